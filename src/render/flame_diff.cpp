// Matching call paths across two analysed profiles: functions interned by full name, paths
// numbered as (parent path, function), the base's values summed per path.
#include "render/flame_diff.h"

#include <cmath>
#include <string_view>
#include <unordered_map>

namespace callprof {
namespace {

constexpr uint32_t kNoPath = UINT32_MAX;

// The base's call paths by name: (parent path, interned full name) -> path, with its value.
class BasePaths {
 public:
  BasePaths(const Analysis& base, Metric metric, Metric plus) {
    const CallTree& t = base.tree();
    const MetricTable& cum = base.nodes().cum;
    std::vector<uint32_t> path_of(t.size(), kNoPath);
    for (NodeId id = 1; id < t.size(); ++id) {  // parents first
      const CallNode& n = t.node(id);
      const uint32_t name = intern(base.full_name(n.function));
      const uint64_t key = this->key(path_of[n.parent], name);
      auto [it, added] = index_.try_emplace(key, uint32_t(value_.size()));
      if (added) {
        value_.push_back(0);
        parent_.push_back(path_of[n.parent]);
      }
      path_of[id] = it->second;
      value_[it->second] += cum[id][metric] + (plus == Metric::kCount ? 0 : cum[id][plus]);
    }
  }

  // The path of `name` under `parent` (kNoPath: the root), kNoPath when the base has none.
  uint32_t find(uint32_t parent, std::string_view name) const {
    const auto n = names_.find(name);
    if (n == names_.end()) return kNoPath;
    const auto it = index_.find(key(parent, n->second));
    return it == index_.end() ? kNoPath : it->second;
  }
  size_t size() const { return value_.size(); }
  uint64_t value(uint32_t path) const { return value_[path]; }
  uint32_t parent(uint32_t path) const { return parent_[path]; }

 private:
  static uint64_t key(uint32_t parent, uint32_t name) { return (uint64_t(parent + 1) << 32) | name; }
  uint32_t intern(std::string_view name) { return names_.try_emplace(name, uint32_t(names_.size())).first->second; }

  std::unordered_map<std::string_view, uint32_t> names_;  // views into the base profile
  std::unordered_map<uint64_t, uint32_t> index_;
  std::vector<uint64_t> value_;
  std::vector<uint32_t> parent_;
};

}  // namespace

FlameBase match_flame_base(const Analysis& next, const FlameLayout& layout, const Analysis& base, Metric metric,
                           Metric plus, bool normalize) {
  const BasePaths paths(base, metric, plus);
  FlameBase out;
  out.total = base.total(metric) + (plus == Metric::kCount ? 0 : base.total(plus));
  if (normalize && out.total > 0) out.scale = double(layout.total) / double(out.total);
  const auto scaled = [&](uint64_t v) { return uint64_t(std::llround(double(v) * out.scale)); };

  // Every path of the new tree (not only the drawn ones), so "only in base" is exact.
  const CallTree& t = next.tree();
  std::vector<uint32_t> path_of(t.size(), kNoPath);
  std::vector<bool> matched(paths.size(), false);
  for (NodeId id = 1; id < t.size(); ++id) {
    const CallNode& n = t.node(id);
    if (n.parent != kRootNode && path_of[n.parent] == kNoPath) continue;
    path_of[id] = paths.find(n.parent == kRootNode ? kNoPath : path_of[n.parent], next.full_name(n.function));
    if (path_of[id] != kNoPath) matched[path_of[id]] = true;
  }
  uint64_t unmatched = 0;  // base paths the new tree lacks whose parent it has: disjoint subtrees
  for (uint32_t p = 0; p < paths.size(); ++p)
    if (!matched[p] && (paths.parent(p) == kNoPath || matched[paths.parent(p)])) unmatched += paths.value(p);
  out.only_in_base = scaled(unmatched);
  out.total = scaled(out.total);

  out.value.assign(layout.frames.size(), 0);
  out.present.assign(layout.frames.size(), false);
  for (size_t i = 0; i < layout.frames.size(); ++i) {
    const FlameFrame& f = layout.frames[i];
    if (f.node == kRootNode) {
      out.value[i] = out.total;
      out.present[i] = true;
    } else if (f.node != kNoNode && path_of[f.node] != kNoPath) {
      out.value[i] = scaled(paths.value(path_of[f.node]));
      out.present[i] = true;
    }
  }
  return out;
}

}  // namespace callprof
