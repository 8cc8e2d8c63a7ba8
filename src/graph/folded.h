// Functions the runtime folded at run time (auto-fold, docs/modes.md): derived from the
// trees' FoldedCalls, summed one thread's tree at a time.
#pragma once

#include <map>
#include <vector>

#include "model/profile.h"

namespace callprof {

struct FoldedFunction {
  FunctionId function = kNoFunction;
  uint64_t calls = 0;         // every call of it, hooked or folded
  uint64_t folded_calls = 0;  // of those, made after the fold (their time is in the callers' self)
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

}  // namespace callprof
