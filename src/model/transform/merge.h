// Merging calling context trees: paths with the same functions become one node whose
// metrics combine by each metric's merge kind. Associative and commutative.
#pragma once

#include <span>

#include "model/profile.h"

namespace callprof {

// Merge `from` into `into` (both over the same function table).
void merge_into(CallTree& into, const CallTree& from);

// One tree for the selected threads of a profile (all when `tids` is empty).
CallTree merged_tree(const Profile& profile, std::span<const uint32_t> tids = {});

}  // namespace callprof
