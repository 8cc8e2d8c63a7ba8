// Writes the raw dump fuzzer's seed corpus into argv[1]: the sample dump of the reader's
// unit test, whole and cut after its header.
#include <cstdio>
#include <fstream>
#include <string>

#include "raw_dump_samples.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_raw_dump_seeds DIR\n");
    return 2;
  }
  const std::string dump = callprof::test::sample_raw_dump();
  std::ofstream(std::string(argv[1]) + "/sample.dump", std::ios::binary) << dump;
  std::ofstream(std::string(argv[1]) + "/header_only.dump", std::ios::binary) << dump.substr(0, 64);
  return 0;
}
