// libFuzzer entry for the profile reader. Each input is tried twice: as a whole file (header
// and zstd layers) and as a payload inside a valid container, because the zstd checksum
// would otherwise keep mutations from ever reaching the protobuf and validation layers.
#include <cstdint>
#include <span>

#include "trace/container.h"
#include "trace/profile_file.h"

namespace {

// What the reader accepts, the writer must write back into a file the reader accepts again
// with the same shape; a rejection must be a one-line message.
void check(const callprof::Result<callprof::Profile>& result) {
  if (!result.ok()) {
    if (result.error().message.find('\n') != std::string::npos) __builtin_trap();
    return;
  }
  const callprof::Profile& profile = result.value();
  callprof::Result<std::vector<uint8_t>> bytes = callprof::serialize_profile(profile);
  if (!bytes.ok()) __builtin_trap();
  callprof::Result<callprof::Profile> again = callprof::parse_profile(bytes.value(), "rewritten");
  if (!again.ok() || again->threads.size() != profile.threads.size()) __builtin_trap();
  for (size_t i = 0; i < profile.threads.size(); ++i)
    if (again->threads[i].tree.size() != profile.threads[i].tree.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  check(callprof::parse_profile(input, "input"));
  callprof::Result<std::vector<uint8_t>> wrapped = callprof::trace::wrap_payload(input);
  if (wrapped.ok()) check(callprof::parse_profile(wrapped.value(), "wrapped"));
  return 0;
}
