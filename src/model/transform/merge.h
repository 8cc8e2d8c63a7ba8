// Merging calling context trees: paths with the same functions become one node whose
// metrics combine by each metric's merge kind. Associative and commutative.
#pragma once

#include <span>
#include <vector>

#include "model/profile.h"

namespace callprof {

// Merge `from` into `into` (both over the same function table). `from` holds each path
// once, as every tree built by child() and every validated file does.
void merge_into(CallTree& into, const CallTree& from);

// Merge `from` with its top-level nodes made children of `at` (a node of `into`); the
// root's own metrics go to the root of `into`. Returns, per node of `from`, its node in
// `into` (the root maps to `at`).
std::vector<NodeId> merge_under(CallTree& into, NodeId at, const CallTree& from);

// One tree for the selected threads of a profile (all when `tids` is empty).
CallTree merged_tree(const Profile& profile, std::span<const uint32_t> tids = {});

}  // namespace callprof
