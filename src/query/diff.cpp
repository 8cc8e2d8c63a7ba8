// Diffing: functions and paths of both trees keyed by names (interned as numbers, so a
// million-node tree costs a few hash lookups per node), joined, scaled, sorted.
#include "query/diff.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

namespace callprof {
namespace {

// Functions of both sides as one numbering, by full name: the two builds being compared
// may be different files (as pprof, a name is the identity across builds).
class Interner {
 public:
  uint32_t id(const Analysis& a, FunctionId f) {
    auto [it, added] = ids_.try_emplace(std::string(a.full_name(f)), uint32_t(names_.size()));
    if (added) names_.emplace_back(a.full_name(f));
    return it->second;
  }
  const std::string& name(uint32_t id) const { return names_[id]; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
};

// Call paths of both sides as one numbering: (parent path, function) -> path.
struct Paths {
  std::unordered_map<uint64_t, uint32_t> index;
  std::vector<uint32_t> parent;    // kNoParent for a top-level path
  std::vector<uint32_t> function;  // interned
  std::vector<DiffSide> base, next;
  static constexpr uint32_t kNoParent = UINT32_MAX;

  uint32_t at(uint32_t parent_path, uint32_t fn) {
    const uint64_t key = (uint64_t(parent_path + 1) << 32) | fn;
    auto [it, added] = index.try_emplace(key, uint32_t(parent.size()));
    if (added) {
      parent.push_back(parent_path);
      function.push_back(fn);
      base.emplace_back();
      next.emplace_back();
    }
    return it->second;
  }
};

void add_paths(const Analysis& a, bool is_base, Interner& names, Paths& paths) {
  const CallTree& t = a.tree();
  const MetricTable& cum = a.nodes().cum;
  std::vector<uint32_t> path_of(t.size(), Paths::kNoParent);
  for (NodeId id = 1; id < t.size(); ++id) {  // parents first
    const CallNode& n = t.node(id);
    path_of[id] = paths.at(path_of[n.parent], names.id(a, n.function));
    DiffSide& side = (is_base ? paths.base : paths.next)[path_of[id]];
    side.calls += t.base(id)[Metric::Calls];
    side.self_ns += t.base(id)[Metric::WallNs];
    side.total_ns += cum[id][Metric::WallNs];
    side.present = true;
  }
}

void add_functions(const Analysis& a, bool is_base, Interner& names, std::unordered_map<uint32_t, DiffRow>& rows) {
  for (const FunctionRow& r : a.functions()) {
    const uint32_t id = names.id(a, r.function);
    DiffRow& row = rows[id];
    row.names = {names.name(id)};
    (is_base ? row.base : row.next) = {r.calls, r.self_ns, r.total_ns, true};
  }
}

int64_t delta(const DiffRow& r, DiffOrder order) {
  return std::llabs(order == DiffOrder::SelfDelta ? r.self_delta() : r.total_delta());
}

void scale_next(DiffSide& s, double scale) {
  s.self_ns = uint64_t(std::llround(double(s.self_ns) * scale));
  s.total_ns = uint64_t(std::llround(double(s.total_ns) * scale));
}

// The `limit` largest changes (all with 0), largest first; ties by name for a stable order.
std::vector<DiffRow> top(std::vector<DiffRow> rows, DiffOrder order, size_t limit) {
  auto larger = [order](const DiffRow& a, const DiffRow& b) {
    const int64_t da = delta(a, order), db = delta(b, order);
    return da != db ? da > db : a.names < b.names;
  };
  if (limit && limit < rows.size()) {
    std::partial_sort(rows.begin(), rows.begin() + std::ptrdiff_t(limit), rows.end(), larger);
    rows.resize(limit);
  } else {
    std::sort(rows.begin(), rows.end(), larger);
  }
  return rows;
}

// Paths are ranked as indices (ties by first appearance) and only the rows kept get their
// frames' names: a large tree has far more paths than a report shows.
std::vector<DiffRow> path_rows(const Paths& paths, const Interner& names, double scale, DiffOrder order,
                               size_t limit) {
  std::vector<DiffRow> all(paths.parent.size());
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].base = paths.base[i];
    all[i].next = paths.next[i];
    scale_next(all[i].next, scale);
  }
  std::vector<uint32_t> rank(all.size());
  std::iota(rank.begin(), rank.end(), 0u);
  auto larger = [&](uint32_t a, uint32_t b) {
    const int64_t da = delta(all[a], order), db = delta(all[b], order);
    return da != db ? da > db : a < b;
  };
  const size_t keep = limit && limit < rank.size() ? limit : rank.size();
  std::partial_sort(rank.begin(), rank.begin() + std::ptrdiff_t(keep), rank.end(), larger);
  std::vector<DiffRow> rows;
  for (size_t k = 0; k < keep; ++k) {
    DiffRow row = all[rank[k]];
    for (uint32_t p = rank[k]; p != Paths::kNoParent; p = paths.parent[p]) row.names.push_back(names.name(paths.function[p]));
    std::reverse(row.names.begin(), row.names.end());
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Diff diff_analyses(const Analysis& base, const Analysis& next, bool normalize, DiffOrder order, size_t limit) {
  Diff d;
  d.base_total_ns = base.grand_total_ns();
  d.next_total_ns = next.grand_total_ns();
  if (normalize && d.next_total_ns > 0) d.scale = double(d.base_total_ns) / double(d.next_total_ns);
  Interner names;
  std::unordered_map<uint32_t, DiffRow> functions;
  add_functions(base, true, names, functions);
  add_functions(next, false, names, functions);
  std::vector<DiffRow> rows;
  for (auto& [id, row] : functions) {
    scale_next(row.next, d.scale);
    rows.push_back(std::move(row));
  }
  d.functions = top(std::move(rows), order, limit);
  Paths paths;
  add_paths(base, true, names, paths);
  add_paths(next, false, names, paths);
  d.paths = path_rows(paths, names, d.scale, order, limit);
  return d;
}

}  // namespace callprof
