// Code of the runtime's own placed where the program's calls reach it (a `call rel32`
// reaches 2 GiB either way): the patched entries' jump stubs (patched_sites.h) and the
// counting stubs (counting_stubs.h). One place maps them, and remembers where, so that the
// dump lists them as wire::kStubModulePath modules: a sample there is the profiler's cost.
#pragma once

#include <stdint.h>

namespace callprof::rt {

// Whether a 5-byte call from anywhere in [lo, hi) reaches every byte of [at, at + bytes).
bool within_call_reach(uint64_t lo, uint64_t hi, uint64_t at, uint64_t bytes);
// Maps `bytes` (read + write, zeroed) where a 5-byte call from anywhere in [lo, hi) reaches
// every byte of it: below the module first (above a program lie its data and heap, which
// must stay free to grow), then above, in 1 MiB steps, never over another mapping. Null when
// no place within reach was free or the system refused. Not for the hot path.
void* map_within_reach(uint64_t lo, uint64_t hi, uint64_t bytes);
// Once written: read + execute, and listed (near_code_areas). False (and unmapped) when the
// system refused to make it executable.
bool seal_near_code(void* at, uint64_t bytes);

struct NearCodeArea {
  uint64_t start, end;
};
// The areas sealed so far, oldest first; their count.
uint32_t near_code_areas(const NearCodeArea** areas);

}  // namespace callprof::rt
