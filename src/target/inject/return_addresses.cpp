#include "target/inject/return_addresses.h"

#include <cstddef>

#include "target/inject/process_memory.h"
#include "wire/return_stacks.h"

namespace callprof::inject {
namespace {

constexpr size_t kMaxStacks = 1 << 16;  // a list longer than any process's threads: corrupt

bool in(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t address) {
  for (const auto& [start, end] : ranges)
    if (address >= start && address < end) return true;
  return false;
}

}  // namespace

Result<size_t> restore_return_addresses(pid_t pid, uint64_t stacks_head,
                                        const std::vector<std::pair<uint64_t, uint64_t>>& runtime_code) {
  uint64_t at = 0;
  if (!read_process_memory(pid, stacks_head, &at, sizeof at))
    return make_error("cannot read the runtime's return stacks");
  size_t restored = 0;
  for (size_t n = 0; at != 0; ++n) {
    if (n == kMaxStacks) return make_error("the runtime's list of return stacks does not end");
    wire::ReturnStackHeader h;
    if (!read_process_memory(pid, at, &h, sizeof h) || h.depth > wire::kReturnCapacity)
      return make_error("cannot read a return stack of the runtime's");
    std::vector<wire::ReturnEntry> entries(h.depth);
    if (h.depth > 0 && !read_process_memory(pid, at + offsetof(wire::ReturnStack, e), entries.data(),
                                            entries.size() * sizeof(wire::ReturnEntry)))
      return make_error("cannot read a return stack of the runtime's");
    // Only over the trampoline: a tail call's entry shares its caller's slot and holds the
    // trampoline as its real address; the caller's entry writes the real one.
    for (size_t i = entries.size(); i-- > 0;) {
      const wire::ReturnEntry& e = entries[i];
      uint64_t held = 0;
      if (e.restored || !read_process_memory(pid, e.slot, &held, sizeof held) || !in(runtime_code, held)) continue;
      if (!write_process_memory(pid, e.slot, &e.original, sizeof e.original))
        return make_error("cannot write a return address back");
      ++restored;
    }
    const uint32_t empty = 0;
    if (!write_process_memory(pid, at + offsetof(wire::ReturnStackHeader, depth), &empty, sizeof empty))
      return make_error("cannot empty a return stack of the runtime's");
    at = h.next;
  }
  return restored;
}

}  // namespace callprof::inject
