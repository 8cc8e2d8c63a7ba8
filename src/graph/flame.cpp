// Flame layout: a depth-first walk placing each path's children side by side under it.
#include "graph/flame.h"

#include <algorithm>
#include <tuple>

namespace callprof {
namespace {

class FlameLayouter {
 public:
  FlameLayouter(const CallTree& tree, const MetricTable& cum, const FlameLayoutOptions& o)
      : tree_(tree), cum_(cum), o_(o) {}

  FlameLayout run() {
    for (NodeId c = tree_.node(kRootNode).first_child; c != kNoNode; c = tree_.node(c).next_sibling)
      out_.total += value(c);
    for (NodeId id = 1; id < tree_.size(); ++id) out_.paths += value(id) > 0;
    out_.frames.push_back(FlameFrame{.node = kRootNode, .width = out_.total});
    place_children(kRootNode, 0, 1, 0);
    while (!pending_.empty()) {
      FlameFrame f = pending_.back();
      pending_.pop_back();
      const uint32_t index = uint32_t(out_.frames.size());
      out_.max_depth = std::max(out_.max_depth, f.depth);
      out_.frames.push_back(f);
      if (f.node != kNoNode) place_children(f.node, index, f.depth + 1, f.x);
    }
    uint64_t drawn = 0;
    for (const FlameFrame& f : out_.frames) drawn += f.node != kNoNode && f.node != kRootNode;
    out_.elided_paths = out_.paths - drawn;
    return std::move(out_);
  }

 private:
  uint64_t value(NodeId id) const { return of(cum_[id]); }
  uint64_t of(MetricRow m) const { return m[o_.metric] + (o_.plus == Metric::kCount ? 0 : m[o_.plus]); }
  uint32_t rank(FunctionId f) const { return f < o_.rank.size() ? o_.rank[f] : UINT32_MAX; }

  // Queues the frames of `node`'s children, left to right from `x`: the wide ones in rank
  // order, then one group frame for the narrow ones when together they are wide enough.
  void place_children(NodeId node, uint32_t parent, uint32_t depth, uint64_t x) {
    children_.clear();
    for (NodeId c = tree_.node(node).first_child; c != kNoNode; c = tree_.node(c).next_sibling)
      if (value(c) > 0) children_.push_back(c);
    std::sort(children_.begin(), children_.end(), [&](NodeId a, NodeId b) {
      const FunctionId fa = tree_.node(a).function, fb = tree_.node(b).function;
      return std::tuple(rank(fa), fa, a) < std::tuple(rank(fb), fb, b);
    });
    const size_t first = pending_.size();
    uint64_t narrow_width = 0;
    uint32_t narrow = 0;
    for (NodeId c : children_) {
      const uint64_t w = value(c);
      if (w < o_.min_width) {
        narrow_width += w;
        ++narrow;
        continue;
      }
      pending_.push_back(FlameFrame{.node = c,
                                    .function = tree_.node(c).function,
                                    .depth = depth,
                                    .parent = parent,
                                    .x = x,
                                    .width = w,
                                    .self = of(tree_.base(c))});
      x += w;
    }
    if (narrow > 1 && narrow_width >= o_.min_width)
      pending_.push_back(FlameFrame{.depth = depth, .parent = parent, .x = x, .width = narrow_width, .merged = narrow});
    std::reverse(pending_.begin() + std::ptrdiff_t(first), pending_.end());  // leftmost popped first
  }

  const CallTree& tree_;
  const MetricTable& cum_;
  const FlameLayoutOptions& o_;
  FlameLayout out_;
  std::vector<FlameFrame> pending_;  // the walk's stack
  std::vector<NodeId> children_;
};

}  // namespace

FlameLayout flame_layout(const CallTree& tree, const MetricTable& cum, const FlameLayoutOptions& options) {
  return FlameLayouter(tree, cum, options).run();
}

}  // namespace callprof
