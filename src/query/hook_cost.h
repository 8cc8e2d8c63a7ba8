// What exact mode's hooks cost a recording, and what `record --auto-fold all` and
// `--auto-fold wrappers` would have saved (docs/modes.md, "What the hooks cost"): the calls that went through the hooks
// times their process's measured cost per call, and the tiny functions among them that
// folding any tiny leaf would have unhooked (a leaf of folded functions folds too). An
// estimate from the profile, for the report's header and JSON: the runtime decides per call
// path over its first calls, this over every call of the function, so it says less than
// `all` then folds (Lua 5.4: 70 % of the hooked calls against 79 % by GCC, 63 % against 77 %
// by Clang).
#pragma once

#include <cstdint>

#include "query/query.h"

namespace callprof {

// The most functions not folded that a thin wrapper may call and still fold: the runtime's
// kWrapperMaxCallees (runtime/thread_profile.h), which the analysis side cannot include.
inline constexpr uint32_t kWrapperMaxCallees = 4;

struct HookCostEstimate {
  uint64_t hooked_calls = 0;  // calls through the hooks: all calls less those counted folded
  double hook_ns = 0;         // their cost: hooked calls times their process's cost per call
  double recorded_ns = 0;     // the selected threads' time as measured, the hooks included
  // Under `--auto-fold all` (only when the recording folded inlined copies or nothing):
  // functions not folded already whose calls took less than the fold threshold of their
  // own on average (the hooks' part inside included, as the runtime sees it) and that call
  // nothing hooked but other such functions; and their calls.
  uint32_t small_leaves = 0;
  uint64_t small_leaf_calls = 0;
  // Under `--auto-fold wrappers` besides those leaves (same conditions): functions as tiny by
  // their own time that call other hooked functions, thin wrappers, when they call at most
  // kWrapperMaxCallees that stay hooked, and not themselves (a recursion); their calls.
  uint32_t thin_wrappers = 0;
  uint64_t thin_wrapper_calls = 0;
  double threshold_ns = 0;  // the fold threshold (the processes' largest); 0: unknown
};

// Nothing (hook_ns 0) without the hooks' measured costs (not exact mode, or not measured).
HookCostEstimate estimate_hook_cost(const Analysis& a);

}  // namespace callprof
