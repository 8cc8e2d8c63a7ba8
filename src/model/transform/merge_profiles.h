// Profiles of several runs or hosts as one (SPEC §2 merge): modules and functions unified,
// processes and threads kept apart with their host, so every metric adds up exactly.
// The result is canonical (tables and records sorted by their identity), which makes the
// merge associative and commutative: any grouping and order give the same profile.
#pragma once

#include <vector>

#include "model/profile.h"
#include "util/result.h"

namespace callprof {

struct MergeOptions {
  // Merge profiles of different programs or modes anyway, unifying functions by name alone.
  bool force = false;
};

// Modules unify by build id (by path when they have none); functions by (module, name),
// or by name alone with `force`. Each process and thread gets its input's host when it had
// none. Errors (one line): different programs (the command's executable), different modes,
// compensated and raw profiles mixed.
Result<Profile> merge_profiles(std::vector<Profile> profiles, const MergeOptions& options);

}  // namespace callprof
