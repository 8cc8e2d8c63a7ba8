// The per-node quantities every aggregate is built from (cum and recursion level),
// computed once per tree and shared, since each costs a full pass over a large tree.
#pragma once

#include <cstdint>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

struct NodeQuantities {
  MetricTable cum;              // cumulative(tree)
  std::vector<uint32_t> level;  // recursion_levels(tree)
};

inline NodeQuantities node_quantities(const CallTree& tree) {
  return NodeQuantities{cumulative(tree), recursion_levels(tree)};
}

}  // namespace callprof
