// Writes the raw dump fuzzer's seed corpus into argv[1]: the sample dump of the reader's
// unit test, whole, cut after its header, and with a patch build's failure code (the
// fuzzer found the negation of that code overflowing; this keeps it near).
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>

#include "raw_dump_samples.h"
#include "wire/raw_dump.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_raw_dump_seeds DIR\n");
    return 2;
  }
  const std::string dump = callprof::test::sample_raw_dump();
  std::ofstream(std::string(argv[1]) + "/sample.dump", std::ios::binary) << dump;
  std::ofstream(std::string(argv[1]) + "/header_only.dump", std::ios::binary) << dump.substr(0, 64);
  std::string unpatched = dump;
  const int32_t busy = -EBUSY;
  unpatched.replace(offsetof(callprof::wire::DumpHeader, entries_patched), sizeof busy,
                    reinterpret_cast<const char*>(&busy), sizeof busy);
  std::ofstream(std::string(argv[1]) + "/unpatched.dump", std::ios::binary) << unpatched;
  return 0;
}
