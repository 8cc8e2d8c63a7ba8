// Functions the runtime folded at run time (auto-fold, docs/modes.md): derived from the
// trees' FoldedCalls, per profile and per thread.
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

// Functions with folded calls in any thread of `profile` (or only `thread`), most folded first.
std::vector<FoldedFunction> folded_functions(const Profile& profile);
std::vector<FoldedFunction> folded_functions(const Thread& thread);

// The same summed one tree at a time (threads taken as a profile is read).
class FoldedTally {
 public:
  void add(const CallTree& tree);
  std::vector<FoldedFunction> sorted() const;  // most folded first

 private:
  std::map<FunctionId, FoldedFunction> by_function_;
};

}  // namespace callprof
