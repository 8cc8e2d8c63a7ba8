// The callers/callees invariants of SPEC §3, checked on random trees: parents' calls,
// self and total add up to the function's (always); children's total plus self add up
// to the function's total (without recursion).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "graph/aggregate.h"

namespace callprof {
namespace {

// A random tree over `functions` functions; with allow_recursion false no function
// appears twice on a path.
CallTree random_tree(std::mt19937_64& rng, size_t nodes, uint32_t functions, bool allow_recursion) {
  CallTree t;
  std::uniform_int_distribution<uint64_t> value(0, 1000);
  std::uniform_int_distribution<uint32_t> fn(0, functions - 1);
  for (size_t made = 0; made < nodes * 4 && t.size() <= nodes; ++made) {
    const NodeId parent = std::uniform_int_distribution<NodeId>(0, NodeId(t.size() - 1))(rng);
    const FunctionId f = fn(rng);
    const std::vector<FunctionId> path = t.path_to(parent);
    if (!allow_recursion && std::find(path.begin(), path.end(), f) != path.end()) continue;
    const NodeId n = t.child(parent, f);
    t.base(n)[Metric::Calls] += 1 + value(rng) % 5;
    t.base(n)[Metric::WallNs] += value(rng);
  }
  return t;
}

struct Sums {
  uint64_t calls = 0, self = 0, total = 0;
};

void check_parent_sums(const CallTree& t) {
  std::map<FunctionId, Sums> parents;
  for (const EdgeRow& e : edge_rows(t)) {
    parents[e.callee].calls += e.calls;
    parents[e.callee].self += e.self_ns;
    parents[e.callee].total += e.total_ns;
  }
  for (const FunctionRow& r : function_rows(t)) {
    EXPECT_EQ(parents[r.function].calls, r.calls) << "function " << r.function;
    EXPECT_EQ(parents[r.function].self, r.self_ns) << "function " << r.function;
    EXPECT_EQ(parents[r.function].total, r.total_ns) << "function " << r.function;
  }
}

TEST(Invariants, ParentsAddUpAndChildrenPlusSelfMakeTotalWithoutRecursion) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 50; ++round) {
    const CallTree t = random_tree(rng, 20 + round * 4, 3 + round % 12, false);
    check_parent_sums(t);
    std::map<FunctionId, uint64_t> child_total;
    for (const EdgeRow& e : edge_rows(t))
      if (e.caller != kNoFunction) child_total[e.caller] += e.total_ns;
    uint64_t self_sum = 0;
    for (const FunctionRow& r : function_rows(t)) {
      EXPECT_EQ(r.self_ns + child_total[r.function], r.total_ns) << "function " << r.function;
      EXPECT_EQ(r.recursive_calls, 0u);
      self_sum += r.self_ns;
    }
    EXPECT_EQ(self_sum, grand_total_ns(t));  // self times partition the grand total
  }
}

TEST(Invariants, ParentsAddUpEvenWithRecursionAndTotalNeverExceedsGrandTotal) {
  std::mt19937_64 rng(777);
  for (int round = 0; round < 50; ++round) {
    const CallTree t = random_tree(rng, 30 + round * 3, 2 + round % 5, true);
    check_parent_sums(t);
    for (const FunctionRow& r : function_rows(t)) EXPECT_LE(r.total_ns, grand_total_ns(t));
  }
}

// docs/json.md, invariant 2 with recursion around: it holds for every function that takes
// no part in recursion (no recursive calls of its own or on its outgoing edges).
TEST(Invariants, ChildrenPlusSelfMakeTotalForFunctionsOutsideRecursion) {
  std::mt19937_64 rng(4242);
  size_t checked = 0;
  for (int round = 0; round < 50; ++round) {
    const CallTree t = random_tree(rng, 30 + round * 3, 8 + round % 12, true);
    const NodeQuantities q = node_quantities(t);
    std::map<FunctionId, uint64_t> child_total;
    std::map<FunctionId, bool> in_recursion;
    for (const EdgeRow& e : edge_rows(t, q)) {
      if (e.caller == kNoFunction) continue;
      child_total[e.caller] += e.total_ns;
      if (e.recursive_calls) in_recursion[e.caller] = true;
    }
    for (const FunctionRow& r : function_rows(t, q)) {
      if (r.recursive_calls || in_recursion[r.function]) continue;
      EXPECT_EQ(r.self_ns + child_total[r.function], r.total_ns) << "function " << r.function;
      ++checked;
    }
  }
  EXPECT_GT(checked, 50u);
}

TEST(Invariants, PrecomputedQuantitiesGiveTheSameRows) {
  std::mt19937_64 rng(99);
  const CallTree t = random_tree(rng, 200, 8, true);
  const NodeQuantities q = node_quantities(t);
  const auto a = function_rows(t), b = function_rows(t, q);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].total_ns, b[i].total_ns);
  EXPECT_EQ(edge_rows(t).size(), edge_rows(t, q).size());
  EXPECT_EQ(grand_total_ns(t), grand_total_ns(t, q.cum));
}

}  // namespace
}  // namespace callprof
