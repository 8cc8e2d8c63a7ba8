// Libraries the program closed with dlclose(): their address ranges are gone from the
// loader's list by the time the data is written, and without them their functions had no
// names. Each unloaded library is kept here (path, range, build id) and written with the
// live ones. A library loaded later may take the same addresses, and a node's function is
// an address: so once a library is gone, every thread moves its nodes of that library to
// a range of its own ("retired", beyond any user-space address), where the dump describes
// the closed library a second time. Calls of the later library then get nodes of their own.
#pragma once

#include <link.h>
#include <stdint.h>

#include "wire/raw_dump.h"

namespace callprof::rt {

struct ClosedModule {
  wire::DumpModule module;  // path_bytes and build_id_bytes say how much of the arrays is used
  char path[512];
  unsigned char build_id[64];
};

// Libraries unloaded so far (entries below the count are complete and never change).
uint32_t closed_module_count();
const ClosedModule& closed_module(uint32_t i);

// The retired copy of closed module i: where its functions' nodes went. False when the
// library is too large for a retired range (its nodes stay where they were).
inline constexpr uint64_t kRetiredBase = 1ull << 52;
inline constexpr uint64_t kRetiredSpan = 1ull << 36;
bool retired_module(uint32_t i, wire::DumpModule* out);

struct ThreadState;
// Moves the thread's nodes of the libraries closed since it last looked. Only the owning
// thread (dlclose pokes every thread, whose next hook calls this; see poke_thread).
void follow_closed_modules(ThreadState* s);

// The address range, bias and build id of a loaded object (dump_writer.cpp).
wire::DumpModule describe_module(const dl_phdr_info* info, const unsigned char** build_id);

}  // namespace callprof::rt
