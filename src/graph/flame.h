// The flame graph's layout as data (no drawing): one frame per call path wide enough to
// show, placed by depth and by its offset and width in metric units. Narrow frames are
// elided (flamegraph.pl's --minwidth), keeping pictures of huge trees small.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

struct FlameFrame {
  // The call path drawn; kRootNode for the "all" frame below everything; kNoNode for a
  // group frame standing for narrow sibling paths merged into one.
  NodeId node = kNoNode;
  FunctionId function = kNoFunction;  // kNoFunction for the root and group frames
  uint32_t depth = 0;                 // 0: the root frame; its children are at 1
  uint32_t parent = 0;                // index of the parent frame (the root frame: 0)
  uint64_t x = 0;                     // offset from the picture's left edge, metric units
  uint64_t width = 0;                 // the path's subtree sum of the metric (its total)
  uint64_t self = 0;                  // the path's own value (group frames: 0)
  uint32_t merged = 0;                // group frames: how many sibling paths they stand for
};

struct FlameLayoutOptions {
  Metric metric = Metric::WallNs;
  // A second metric added to `metric` (kCount: none): one width of two quantities, as
  // off-CPU time is blocked + waiting for a CPU.
  Metric plus = Metric::kCount;
  // Frames narrower than this (metric units) are not drawn on their own: siblings that are
  // narrow together become one group frame when the group is at least this wide.
  uint64_t min_width = 0;
  // Sibling order, left to right: by rank per FunctionId (e.g. name order, as flamegraph.pl
  // sorts); ties and ids past the end by FunctionId.
  std::span<const uint32_t> rank{};
};

struct FlameLayout {
  std::vector<FlameFrame> frames;  // depth first: each frame after its parent, siblings left to right
  uint64_t total = 0;              // the root frame's width: the metric over the whole tree
  uint32_t max_depth = 0;
  uint64_t paths = 0;         // call paths with a non-zero value
  uint64_t elided_paths = 0;  // of those, paths not drawn as a frame of their own
};

// The layout of `tree` with `cum` its cumulative metrics (cumulative(tree)). Iterative: a
// deep recursion makes a deep tree, never a deep C++ stack.
FlameLayout flame_layout(const CallTree& tree, const MetricTable& cum, const FlameLayoutOptions& options);

}  // namespace callprof
