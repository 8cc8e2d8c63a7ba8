// Function and edge aggregates on hand-made trees: the gprof counter-example, recursion,
// min/max and sampled metrics.
#include "graph/aggregate.h"

#include <gtest/gtest.h>

#include "folded_profile.h"

namespace callprof {
namespace {

using testing::FoldedBuilder;

struct Fixture {
  FoldedBuilder b;
  Profile p;
  explicit Fixture(std::string_view text) : p(b.build(text)) {}
  FunctionId id(const char* name) { return b.function(name); }
  const CallTree& tree() const { return p.threads.at(0).tree; }
};

const FunctionRow& row(const std::vector<FunctionRow>& rows, FunctionId f) {
  for (const FunctionRow& r : rows)
    if (r.function == f) return r;
  throw std::runtime_error("no row");
}

const EdgeRow& edge(const std::vector<EdgeRow>& rows, FunctionId from, FunctionId to) {
  for (const EdgeRow& e : rows)
    if (e.caller == from && e.callee == to) return e;
  throw std::runtime_error("no edge");
}

// SPEC §1.1: B's 40 calls of D take three times as long as C's 40 calls.
constexpr std::string_view kCounterExample =
    "main;A;B 10\n"
    "main;A;C 10\n"
    "main;A;B;D 120 calls=40\n"
    "main;A;C;D 40 calls=40\n";

TEST(Aggregate, GprofCounterExampleSplitsByMeasuredTime) {
  Fixture f(kCounterExample);
  auto fns = function_rows(f.tree());
  auto edges = edge_rows(f.tree());
  const FunctionId A = f.id("A"), B = f.id("B"), C = f.id("C"), D = f.id("D");
  const FunctionRow& d = row(fns, D);
  EXPECT_EQ(d.calls, 80u);
  EXPECT_EQ(d.self_ns, 160u);
  EXPECT_EQ(d.total_ns, 160u);
  const EdgeRow& bd = edge(edges, B, D);
  const EdgeRow& cd = edge(edges, C, D);
  EXPECT_EQ(bd.total_ns * 4, d.total_ns * 3);  // exactly 75 %
  EXPECT_EQ(cd.total_ns * 4, d.total_ns * 1);  // exactly 25 %
  EXPECT_EQ(bd.calls + cd.calls, d.calls);
  EXPECT_EQ(bd.self_ns + cd.self_ns, d.self_ns);
  EXPECT_EQ(bd.total_ns + cd.total_ns, d.total_ns);
  EXPECT_EQ(row(fns, B).total_ns, 130u);
  EXPECT_EQ(row(fns, C).total_ns, 50u);
  EXPECT_EQ(row(fns, A).total_ns, 180u);
  EXPECT_EQ(row(fns, B).self_ns + bd.total_ns, row(fns, B).total_ns);
  EXPECT_EQ(grand_total_ns(f.tree()), 180u);
  EXPECT_EQ(edge(edges, kNoFunction, f.id("main")).total_ns, 180u);
}

TEST(Aggregate, DirectRecursionCountsOutermostInstanceOnly) {
  Fixture f("main;f 10\nmain;f;f 10\nmain;f;f;f 10\n");
  auto fns = function_rows(f.tree());
  const FunctionId F = f.id("f");
  EXPECT_EQ(row(fns, F).calls, 3u);
  EXPECT_EQ(row(fns, F).self_ns, 30u);
  EXPECT_EQ(row(fns, F).total_ns, 30u);
  EXPECT_EQ(row(fns, F).recursive_calls, 2u);
  auto edges = edge_rows(f.tree());
  const EdgeRow& ff = edge(edges, F, F);
  EXPECT_EQ(ff.calls, 2u);
  EXPECT_EQ(ff.self_ns, 20u);
  EXPECT_EQ(ff.total_ns, 0u);  // already inside an active f: not counted again
  EXPECT_EQ(ff.recursive_calls, 2u);
  const EdgeRow& mf = edge(edges, f.id("main"), F);
  EXPECT_EQ(mf.total_ns + ff.total_ns, row(fns, F).total_ns);
  EXPECT_EQ(mf.calls + ff.calls, row(fns, F).calls);
  EXPECT_EQ(mf.self_ns + ff.self_ns, row(fns, F).self_ns);
}

TEST(Aggregate, MutualRecursionCountsOutermostInstanceOnly) {
  Fixture f("main;f 1\nmain;f;g 2\nmain;f;g;f 4\nmain;f;g;f;g 8\n");
  auto fns = function_rows(f.tree());
  const FunctionId F = f.id("f"), G = f.id("g");
  EXPECT_EQ(row(fns, F).total_ns, 15u);
  EXPECT_EQ(row(fns, F).self_ns, 5u);
  EXPECT_EQ(row(fns, G).total_ns, 14u);
  EXPECT_EQ(row(fns, G).self_ns, 10u);
  auto edges = edge_rows(f.tree());
  EXPECT_EQ(edge(edges, G, F).total_ns, 0u);
  EXPECT_EQ(edge(edges, G, F).recursive_calls, 1u);
  EXPECT_EQ(edge(edges, F, G).total_ns, 14u);  // only the outer g counts
  EXPECT_EQ(edge(edges, F, G).recursive_calls, 1u);
  EXPECT_EQ(edge(edges, F, G).calls, 2u);
}

TEST(Aggregate, MinMaxOverNodesAndUnsetWhenNothingMeasured) {
  Fixture f("main;a 30 calls=3 min=2 max=20\nmain;b;a 5 calls=1 min=5 max=5\n");
  auto fns = function_rows(f.tree());
  EXPECT_EQ(row(fns, f.id("a")).min_self_ns, 2u);
  EXPECT_EQ(row(fns, f.id("a")).max_self_ns, 20u);
  CallTree t;
  std::vector<FunctionId> p{7};
  t.base(t.path(p))[Metric::Samples] = 4;  // a sampled node: no single call measured
  auto s = function_rows(t);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].min_self_ns, Metrics::kUnset);
  EXPECT_EQ(s[0].max_self_ns, Metrics::kUnset);
  EXPECT_EQ(s[0].self_samples, 4u);
  EXPECT_EQ(s[0].total_samples, 4u);
}

TEST(Aggregate, CpuOffCpuAndSamplesSelfAndTotal) {
  Fixture f("main 0 cpu=0\nmain;a 10 cpu=6 off=4 samples=2\nmain;a;b 20 cpu=5 off=15 samples=3\n");
  auto fns = function_rows(f.tree());
  const FunctionRow& a = row(fns, f.id("a"));
  EXPECT_EQ(a.cpu_ns, 6u);
  EXPECT_EQ(a.offcpu_ns, 4u);
  EXPECT_EQ(a.self_samples, 2u);
  EXPECT_EQ(a.total_samples, 5u);
  EXPECT_EQ(a.total_ns, 30u);
}

TEST(Aggregate, RowsAreOrderedAndEmptyTreeHasNone) {
  Fixture f(kCounterExample);
  auto fns = function_rows(f.tree());
  for (size_t i = 1; i < fns.size(); ++i) EXPECT_LT(fns[i - 1].function, fns[i].function);
  auto edges = edge_rows(f.tree());
  EXPECT_EQ(edges.back().caller, kNoFunction);
  CallTree empty;
  EXPECT_TRUE(function_rows(empty).empty());
  EXPECT_TRUE(edge_rows(empty).empty());
  EXPECT_EQ(grand_total_ns(empty), 0u);
}

// The analysis sums cum one column at a time from the recursion levels alone; the rows must
// be those that the cum table gives, field for field, recursion, min/max and samples included.
TEST(Aggregate, RowsFromLevelsAloneEqualRowsFromTheCumTable) {
  Fixture f(
      "main;a 30 calls=3 min=2 max=20 cpu=25 off=5\nmain;b;a 5 calls=1 min=5 max=5\n"
      "main;f 1\nmain;f;g 2 samples=3\nmain;f;g;f 4\nmain;f;g;f;g 8\nmain;b;a;a 7 calls=2 min=1 max=6\n");
  const NodeQuantities q = node_quantities(f.tree());
  const std::vector<FunctionRow> by_table = function_rows(f.tree(), q), by_levels = function_rows(f.tree(), q.level);
  ASSERT_EQ(by_table.size(), by_levels.size());
  for (size_t i = 0; i < by_table.size(); ++i) {
    const FunctionRow &a = by_table[i], &b = by_levels[i];
    EXPECT_EQ(a.function, b.function);
    EXPECT_EQ(a.calls, b.calls);
    EXPECT_EQ(a.total_ns, b.total_ns);
    EXPECT_EQ(a.max_self_ns, b.max_self_ns);
    EXPECT_EQ(a.recursive_calls, b.recursive_calls);
    EXPECT_EQ(a.self, b.self);
    EXPECT_EQ(a.total, b.total);
  }
  EXPECT_GT(row(by_levels, f.id("f")).total_ns, 0u);
  const std::vector<EdgeRow> edges_by_table = edge_rows(f.tree(), q), edges_by_levels = edge_rows(f.tree(), q.level);
  ASSERT_EQ(edges_by_table.size(), edges_by_levels.size());
  for (size_t i = 0; i < edges_by_table.size(); ++i) {
    const EdgeRow &a = edges_by_table[i], &b = edges_by_levels[i];
    EXPECT_EQ(a.caller, b.caller);
    EXPECT_EQ(a.callee, b.callee);
    EXPECT_EQ(a.total_ns, b.total_ns);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.self, b.self);
    EXPECT_EQ(a.total, b.total);
  }
}

}  // namespace
}  // namespace callprof
