// libFuzzer entry for the runtime's raw dump reader: the dumps are written by the profiled
// program's process, so a program (or whatever overwrote its memory) controls every byte.
// A rejection must be one line; an accepted dump must build into a profile without a crash
// (modules dropped: the builder would open their files, which are not the fuzzer's input).
#include <cstdint>
#include <string>

#include "collect/runtime/profile_builder.h"
#include "collect/runtime/raw_dump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  callprof::Result<callprof::RawProcessDump> dump =
      callprof::parse_raw_dump(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!dump.ok()) {
    if (dump.error().message.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  dump->modules.clear();
  dump->libcalls.clear();
  const callprof::BuildResult built = callprof::build_profile({dump.value()});
  for (const callprof::Thread& t : built.profile.threads)
    if (t.tree.size() == 0) __builtin_trap();  // every tree has its root
  return 0;
}
