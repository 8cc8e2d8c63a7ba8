// Callers-of, the inverted tree: every call path that reaches chosen functions, read bottom-up
// from the function to the outermost caller (pprof's -invert, speedscope's sandwich "callers").
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

// Levels of callers kept below a root child by default. A node's reversed path is its whole
// ancestor chain, so deep recursion (X > X > ... 10^5 deep) would make the inversion cost
// O(nodes x depth); cutting at a fixed depth bounds it to O(matching nodes x limit).
inline constexpr size_t kInvertedCallerLimit = 256;

struct InvertedTree {
  // Root children: the matching functions; below each node, the callers of the path it stands for,
  // up to the outermost caller. A node of depth k stands for the call paths ending in
  // (caller_{k-1} > ... > caller_1 > X). Its nodes' base metrics are left empty: the numbers are
  // in `self` and `total`.
  CallTree tree;
  // Per node of `tree`, over the occurrences of X whose path ends with that suffix (cum over the
  // inverted tree, i.e. already summed, do NOT call cumulative() on `tree` for these):
  //   self: X's base metrics, min/max merged by kind; self[Calls] is X's calls.
  //   total: X's cum metrics (additive ones; Min/Max stay unset) counting only outermost X
  //   instances: an X node with an X ancestor (same function) contributes its calls and self but
  //   no total, so recursion is not counted twice. total[Calls] is cum calls (X's and below).
  // The root's entries are empty: with several matching functions their totals overlap.
  // Tables of the columns `tree`'s metrics have (a metric without one reads as its default):
  // a hot function's inverted tree can have as many nodes as the tree it inverts.
  MetricTable self;
  MetricTable total;
};

// Occurrences: every node of a matching function is one occurrence of it, under its own root
// child. Recursion (X > Y > X) gives the inner X its own reversed path X <- Y <- X <- ...; a path
// through another matching function (B > D with both matching) continues through it as an
// ordinary caller, so D's root child shows B among its callers while B's root child also counts
// that time: each root child is a view of its own function, and totals add only within one.
// At most `max_depth` levels of callers are kept below X; where a longer path is cut, the node at
// the cut gets one child `beyond` (no metrics, a marker that callers were cut) unless `beyond` is
// kNoFunction. Pass a function id reserved for that marker: a real caller with the same id merges.
InvertedTree inverted_tree(const CallTree& tree, const std::function<bool(FunctionId)>& matches,
                           size_t max_depth = kInvertedCallerLimit, FunctionId beyond = kNoFunction);
// The same with the tree's cum and recursion levels already at hand (cumulative(tree),
// recursion_levels(tree)), as an analysis has them.
InvertedTree inverted_tree(const CallTree& tree, const MetricTable& cum, std::span<const uint32_t> level,
                           const std::function<bool(FunctionId)>& matches, size_t max_depth = kInvertedCallerLimit,
                           FunctionId beyond = kNoFunction);

}  // namespace callprof
