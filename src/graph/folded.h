// Functions the runtime folded at run time (auto-fold, docs/modes.md): derived from the
// trees' FoldedCalls, summed one thread's tree at a time.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "model/profile.h"

namespace callprof {

struct FoldedFunction {
  FunctionId function = kNoFunction;
  uint64_t calls = 0;         // every call of it, hooked or folded
  uint64_t folded_calls = 0;  // of those, made after the fold (their time is in the callers' self)
  // When its hook calls were first rewritten away in any process (CLOCK_MONOTONIC). None
  // where the system refused: every call went through the hooks.
  std::optional<int64_t> hooks_removed_at_ns;
  // Its calls since were counted (per function, by counting stubs) in every process that
  // removed it; false: not counted after hooks_removed_at_ns.
  bool counted_after_removal = false;
  // ... but for its inlined copies' runs, whose entries became nops in some process (record
  // --fold-counts called): only its real calls were counted after hooks_removed_at_ns.
  bool inlined_copies_uncounted = false;
};

class FoldedTally {
 public:
  // Adds a thread's tree; returns how many functions the runtime folded in it.
  size_t add(const CallTree& tree);
  // Functions with folded calls in any tree added, most folded first.
  std::vector<FoldedFunction> sorted() const;

 private:
  std::map<FunctionId, FoldedFunction> by_function_;
};

// Sets each folded function's hooks_removed_at_ns from the processes' removed hooks.
void add_hook_removals(std::vector<FoldedFunction>& folded, const std::vector<Process>& processes);

}  // namespace callprof
