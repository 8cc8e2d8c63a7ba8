// Test fixture: a profile from folded stacks (folded_profile.h) recorded in exact mode by one
// process whose hooks cost 20 ns a call (8 inside the callee, 12 in its caller), with an
// auto-fold threshold of 40 ns a call. Shared by query_test and report_test (tests only).
#pragma once

#include <string>

#include "folded_profile.h"

namespace callprof::testing {

inline Profile hooked_profile(const std::string& text, const std::string& auto_fold = "inlined") {
  Profile p = folded(text);
  Process proc;
  proc.pid = 1;
  proc.hook_inner_ns = 8;
  proc.hook_outer_ns = 12;
  proc.auto_fold_ns = 40;
  p.processes.push_back(proc);
  p.meta.exact.emplace().auto_fold = auto_fold;
  return p;
}

}  // namespace callprof::testing
