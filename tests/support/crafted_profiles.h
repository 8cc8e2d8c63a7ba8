// Crafted hostile profile files (decompression bombs of elements, names, metadata and
// timeline events, payloads claiming millions of elements, lengths past the end, a million
// functions), shared by the CLI's bounded-memory test and the fuzz seed corpus. Each is
// written the way an attacker would: container and zstd frame made directly, not through
// callprof's writer (which refuses to produce most of them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace callprof::crafted {

struct CraftedFile {
  std::string name;            // a file name: what it is
  std::vector<uint8_t> bytes;  // the whole file
  uint64_t payload_bytes = 0;  // what its header says the payload decompresses to
  // Whether a reader must refuse it. A file that is not a bomb costs much for its size but
  // honestly: it is read, within the memory its counts promise (docs/format.md, Limits).
  bool bomb = true;
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
// 64 functions named by 4 MiB of text each, in ~280 KB (a ratio just under 1024), called
// on 4,096 paths: views that copy a name per row would copy 16 GiB.
CraftedFile string_bomb();
// The same kind of names, 48 MiB of them (16 functions, 3 MiB each), compressed ~50-fold as
// honest text might be (~1 MB): the header allows the payload, counting its strings refuses it.
CraftedFile name_heavy();
// 64 metadata extra entries of 4 MiB each in ~290 KB (a ratio of ~900).
CraftedFile extra_bomb();
// One million functions with distinct short names (about 6 MB), no call tree node using any:
// not a bomb, each function is costed (about 100 bytes of memory per byte of file).
CraftedFile function_flood();
// The same million functions, each called once from the root (about 8 MB): rows for each in
// every output, 3.6 GiB at the peak, refused.
CraftedFile called_function_flood();
// A thread whose timeline holds the most events a thread may have (2^24), in ~50 KB.
CraftedFile timeline_bomb();

std::vector<CraftedFile> all();

}  // namespace callprof::crafted
