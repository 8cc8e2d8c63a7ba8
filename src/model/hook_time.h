// What exact mode's hooks took in a recording: the calls that went through them (every call
// less those counted folded, which ran unhooked) times their process's measured cost per
// call, against the threads' time as measured (docs/modes.md, "What the hooks cost").
#pragma once

#include <cstdint>
#include <span>

#include "model/profile.h"

namespace callprof {

struct HookTime {
  uint64_t hooked_calls = 0;
  double hook_ns = 0;      // 0 without the hooks' measured costs
  double recorded_ns = 0;  // the threads' time as measured, the hooks in it
};

// Over the threads `threads` (indices into p.threads) that made `calls` calls (by thread of
// the profile), `folded_calls` of them counted folded; `raw_ns` is their time as measured
// (the hooks' estimate is held to it; 0: not known, nothing held).
HookTime hook_time(const Profile& p, std::span<const size_t> threads, std::span<const uint64_t> calls,
                   uint64_t folded_calls, double raw_ns);

// Over every thread of a profile as recorded (its trees not compensated).
HookTime hook_time(const Profile& p);

}  // namespace callprof
