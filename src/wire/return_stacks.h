// The return stacks of a patched program's threads (runtime/patched_calls.h): for each
// frame whose return address the runtime replaced with its trampoline, where that address
// lives (the slot) and what it held. The runtime keeps every stack it mapped on a list
// whose head is its exported `callprof_return_stacks`; callprof reads them before a later
// window, with every thread stopped, and writes the real addresses back into the slots
// (target/inject/return_addresses.h), so that the stacks unwind as they are.
#pragma once

#include <stdint.h>

namespace callprof::wire {

struct ReturnEntry {
  uint64_t slot;      // where the function's return address lives
  uint64_t original;  // what it held
  uint64_t fn;
  uint32_t window;    // the window that saw the entry
  uint32_t restored;  // put back for an unwinder (the runtime's restore_returns_for_unwinding)
};
static_assert(sizeof(ReturnEntry) == 32);

inline constexpr uint32_t kReturnCapacity = 4096;  // deeper calls are not seen

struct ReturnStackHeader {
  uint32_t depth;   // entries in use, from the bottom
  uint32_t owner;   // the thread's id; 0: free
  uint32_t seeded;  // filled at the attach for `owner`, which has not taken it yet
  uint32_t reserved;
  uint64_t next;  // the next stack on the list (its address; 0: the last)
};

struct ReturnStack {
  ReturnStackHeader h;
  ReturnEntry e[kReturnCapacity];
};

}  // namespace callprof::wire
