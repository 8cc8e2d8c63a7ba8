// Crafted hostile profile files (decompression bombs, payloads claiming millions of
// elements, lengths past the end), shared by the CLI's bounded-memory test and the fuzz
// seed corpus. Each is written the way an attacker would: container and zstd frame made
// directly, not through callprof's writer (which refuses to produce most of them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace callprof::crafted {

struct CraftedFile {
  std::string name;            // a file name: what it is
  std::vector<uint8_t> bytes;  // the whole file
  uint64_t payload_bytes = 0;  // what its header says the payload decompresses to
};

// 512 MiB of empty thread entries in a few KiB: the header's ratio gives it away.
CraftedFile ratio_bomb();
// 16 million empty threads in 32 MiB of payload, with enough noise to keep an honest-looking
// compression ratio: only counting the elements finds it out.
CraftedFile thread_bomb();
// 128 functions and one thread whose tree lists 16 million nodes (parent 0, function 0,
// some noise) in ~100 KB.
CraftedFile node_bomb();
// A tree column whose length prefix claims 1 GiB and is followed by a few bytes.
CraftedFile overlong_column();

std::vector<CraftedFile> all();

}  // namespace callprof::crafted
