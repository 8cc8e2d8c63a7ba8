// The call graph as data on hand-computed trees: which functions show at a threshold, the
// edges with their calls and time, paths through hidden functions folded into dashed edges,
// recursion, edge widths; and on random trees, that every shown total is exactly accounted
// for by its incoming edges.
#include "graph/call_graph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "folded_profile.h"

namespace callprof {
namespace {

using testing::FoldedBuilder;

struct Fixture {
  FoldedBuilder b;
  Profile p;
  NodeQuantities q;
  std::vector<FunctionRow> rows;
  explicit Fixture(std::string_view text) : p(b.build(text)) {
    q = node_quantities(tree());
    rows = function_rows(tree(), q);
  }
  FunctionId id(const char* name) { return b.function(name); }
  const CallTree& tree() const { return p.threads.at(0).tree; }
  CallGraph graph(CallGraphOptions o = {}) { return build_call_graph(tree(), q, rows, o); }
  // Names of the shown functions, in the graph's order.
  std::vector<std::string> shown(const CallGraph& g) const {
    std::vector<std::string> names;
    for (const GraphNode& n : g.nodes) names.push_back(p.functions[n.row.function].name);
    return names;
  }
  const GraphEdge* edge(const CallGraph& g, const char* from, const char* to, bool folded) {
    for (const GraphEdge& e : g.edges)
      if (g.nodes[e.caller].row.function == id(from) && g.nodes[e.callee].row.function == id(to) && e.folded == folded)
        return &e;
    return nullptr;
  }
};

// SPEC §1.1: A calls B and C; B's 40 calls of D take 120, C's 40 take 40.
// Totals: main 180, A 180, D 160, B 130, C 50.
constexpr std::string_view kCounterExample =
    "main;A;B 10\n"
    "main;A;C 10\n"
    "main;A;B;D 120 calls=40\n"
    "main;A;C;D 40 calls=40\n";

TEST(CallGraph, EverythingShownHasTheAnalysisEdges) {
  Fixture f(kCounterExample);
  const CallGraph g = f.graph({.max_nodes = 0});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "A", "D", "B", "C"}));
  EXPECT_EQ(g.grand_total, 180u);
  EXPECT_EQ(g.threshold, 50u);
  EXPECT_EQ(g.hidden(), 0u);
  ASSERT_EQ(g.edges.size(), 5u);
  const GraphEdge* bd = f.edge(g, "B", "D", false);
  ASSERT_NE(bd, nullptr);
  EXPECT_EQ(bd->calls, 40u);
  EXPECT_EQ(bd->value, 120u);
  EXPECT_EQ(f.edge(g, "C", "D", false)->value, 40u);
  EXPECT_EQ(f.edge(g, "A", "B", false)->value, 130u);
  EXPECT_EQ(f.edge(g, "main", "A", false)->value, 180u);
  EXPECT_EQ(g.max_edge_value, 180u);
  // Node numbers are the function rows' own.
  const GraphNode& d = g.nodes[g.find(f.id("D"))];
  EXPECT_EQ(d.row.calls, 80u);
  EXPECT_EQ(d.self, 160u);
  EXPECT_EQ(d.total, 160u);
  EXPECT_DOUBLE_EQ(d.heat, 160.0 / 180);
  EXPECT_EQ(d.entry_value, 0u);
  EXPECT_EQ(g.nodes[g.find(f.id("main"))].entry_value, 180u);
}

TEST(CallGraph, HiddenFunctionsFoldIntoADashedEdgeWithTheirTime) {
  Fixture f(kCounterExample);
  const CallGraph g = f.graph({.max_nodes = 3});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "A", "D"}));
  EXPECT_EQ(g.threshold, 160u);
  EXPECT_EQ(g.hidden(), 2u);
  ASSERT_EQ(g.edges.size(), 2u);
  EXPECT_EQ(f.edge(g, "main", "A", false)->value, 180u);
  const GraphEdge* ad = f.edge(g, "A", "D", true);
  ASSERT_NE(ad, nullptr);
  EXPECT_EQ(f.edge(g, "A", "D", false), nullptr) << "A never calls D directly";
  EXPECT_EQ(ad->calls, 80u);
  EXPECT_EQ(ad->value, 160u);
  EXPECT_EQ(ad->via, (std::vector<std::pair<FunctionId, uint64_t>>{{f.id("B"), 120}, {f.id("C"), 40}}));
  // The shown nodes keep their exact numbers: A's total still includes B's and C's self.
  EXPECT_EQ(g.nodes[g.find(f.id("A"))].total, 180u);
  EXPECT_EQ(g.nodes[g.find(f.id("A"))].self, 0u);
}

TEST(CallGraph, AFoldedEdgeNamesItsHeaviestHiddenCallersAndCountsThemAll) {
  Fixture f(
      "main;A;h1;D 50\n"
      "main;A;h2;D 40\n"
      "main;A;h3;D 30\n"
      "main;A;h4;D 20\n"
      "main;A;h5;D 10\n");
  const CallGraph g = f.graph({.max_nodes = 3});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"D", "main", "A"})) << "D ties at 150 with 5 calls";
  const GraphEdge* ad = f.edge(g, "A", "D", true);
  ASSERT_NE(ad, nullptr);
  EXPECT_EQ(ad->calls, 5u);
  EXPECT_EQ(ad->value, 150u);
  EXPECT_EQ(ad->via,
            (std::vector<std::pair<FunctionId, uint64_t>>{{f.id("h1"), 50}, {f.id("h2"), 40}, {f.id("h3"), 30}}));
  EXPECT_EQ(ad->via_callers, 5u);
}

TEST(CallGraph, NodeFractionSetsTheThreshold) {
  Fixture f(kCounterExample);
  // 0.5 of 180 = 90: C (50) is hidden, B (130) shows; the path A > C > D folds.
  const CallGraph g = f.graph({.max_nodes = 0, .node_fraction = 0.5});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "A", "D", "B"}));
  EXPECT_EQ(g.threshold, 130u);
  ASSERT_EQ(g.edges.size(), 4u);
  EXPECT_EQ(f.edge(g, "B", "D", false)->value, 120u);
  const GraphEdge* ad = f.edge(g, "A", "D", true);
  ASSERT_NE(ad, nullptr);
  EXPECT_EQ(ad->calls, 40u);
  EXPECT_EQ(ad->value, 40u);
  // Both limits: the stricter one wins.
  EXPECT_EQ(f.shown(f.graph({.max_nodes = 3, .node_fraction = 0.5})), (std::vector<std::string>{"main", "A", "D"}));
}

TEST(CallGraph, FunctionsTiedWithTheLastShownOneShowToo) {
  Fixture f(kCounterExample);
  const CallGraph g = f.graph({.max_nodes = 1});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "A"})) << "main and A both total 180";
  EXPECT_EQ(g.threshold, 180u);
}

// Ties never pass the layout's cap: 300,000 functions of one total each were all shown, and
// Graphviz crashed on them (issue 30's review).
TEST(CallGraph, TiedFunctionsStopAtTheLayoutsCap) {
  std::string stacks;
  for (size_t i = 0; i < kMaxGraphNodes + 50; ++i) stacks += "f" + std::to_string(i) + " 10\n";
  Fixture f(stacks);
  for (size_t asked : {size_t(0), size_t(30)}) {  // all of them; about 30, the rest tied
    const CallGraph g = f.graph({.max_nodes = asked});
    EXPECT_EQ(g.nodes.size(), kMaxGraphNodes);
    EXPECT_TRUE(g.nodes_capped) << "the graph says the layout's cap left functions out";
  }
}

// f and g call each other: main > f > g > f > g.
// cum: inner g 4, inner f 9, outer g 29, outer f 39. f: self 15, total 39; g: self 24, total 29.
constexpr std::string_view kMutualRecursion =
    "main;f 10\n"
    "main;f;g 20 calls=2\n"
    "main;f;g;f 5 calls=2\n"
    "main;f;g;f;g 4 calls=4\n";

TEST(CallGraph, RecursiveEdgesCountTheirRecursionAndNoTimeTwice) {
  Fixture f(kMutualRecursion);
  const CallGraph g = f.graph({.max_nodes = 0});
  const GraphEdge* fg = f.edge(g, "f", "g", false);
  ASSERT_NE(fg, nullptr);
  EXPECT_EQ(fg->calls, 6u);
  EXPECT_EQ(fg->recursive_calls, 4u);
  EXPECT_EQ(fg->max_recursion, 1u);
  EXPECT_EQ(fg->value, 29u) << "only the outer g's cum";
  const GraphEdge* gf = f.edge(g, "g", "f", false);
  ASSERT_NE(gf, nullptr);
  EXPECT_EQ(gf->calls, 2u);
  EXPECT_EQ(gf->recursive_calls, 2u);
  EXPECT_EQ(gf->value, 0u) << "f was already active: its time flowed in through main > f";
  EXPECT_EQ(gf->width, kMinEdgeWidth);
  EXPECT_EQ(g.nodes[g.find(f.id("f"))].total, 39u);
  EXPECT_EQ(g.nodes[g.find(f.id("g"))].total, 29u);
}

TEST(CallGraph, RecursionThroughAHiddenFunctionIsAFoldedSelfEdge) {
  Fixture f(kMutualRecursion);
  // f (39, 3 calls) ranks before main (39, 1 call); g (29) is hidden.
  const CallGraph g = f.graph({.max_nodes = 2});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"f", "main"}));
  ASSERT_EQ(g.edges.size(), 2u);
  EXPECT_EQ(f.edge(g, "main", "f", false)->value, 39u);
  const GraphEdge* ff = f.edge(g, "f", "f", true);
  ASSERT_NE(ff, nullptr);
  EXPECT_EQ(ff->calls, 2u);
  EXPECT_EQ(ff->recursive_calls, 2u);
  EXPECT_EQ(ff->max_recursion, 1u);
  EXPECT_EQ(ff->value, 0u);
  EXPECT_EQ(ff->via, (std::vector<std::pair<FunctionId, uint64_t>>{{f.id("g"), 0}}));
}

// The edge that closes a cycle does not rank in the layout (constraint=false in the DOT), so
// the recursion's return edge never pulls its callee above its caller.
TEST(CallGraph, TheEdgeClosingARecursionIsABackEdge) {
  Fixture f(kMutualRecursion);
  const CallGraph g = f.graph({.max_nodes = 0});
  EXPECT_FALSE(f.edge(g, "main", "f", false)->back);
  EXPECT_FALSE(f.edge(g, "f", "g", false)->back);
  EXPECT_TRUE(f.edge(g, "g", "f", false)->back);
  size_t back = 0;
  for (const GraphEdge& e : g.edges) back += e.back;
  EXPECT_EQ(back, 1u);
}

// The walk starts at the tops and takes the heaviest edge first, so a cycle entered from both
// sides breaks on its light side. (dot's own choice follows the DOT text: main's first edge
// goes to a, the heavier total, which would make the 50-unit edge b -> a the reversed one.)
TEST(CallGraph, BackEdgesFollowTheHeaviestPathFromTheTops) {
  Fixture f(
      "main 5\n"
      "main;b;a 50\n"
      "main;a 1\n"
      "main;a;b 2\n");
  const CallGraph g = f.graph({.max_nodes = 0});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "a", "b"}));
  EXPECT_FALSE(f.edge(g, "b", "a", false)->back);
  EXPECT_TRUE(f.edge(g, "a", "b", false)->back);
  EXPECT_FALSE(f.edge(g, "main", "a", false)->back);
  EXPECT_FALSE(f.edge(g, "main", "b", false)->back);
}

// A self-recursion is drawn as a loop, which ranks nothing: never a back edge.
TEST(CallGraph, SelfRecursionIsNoBackEdge) {
  Fixture f("main;fib 10\nmain;fib;fib 20 calls=4\n");
  const CallGraph g = f.graph({.max_nodes = 0});
  EXPECT_FALSE(f.edge(g, "fib", "fib", false)->back);
}

TEST(CallGraph, ColourFollowsSelfTimeByDefault) {
  Fixture f(kCounterExample);
  const CallGraph by_self = f.graph({.max_nodes = 0});
  EXPECT_DOUBLE_EQ(by_self.nodes[by_self.find(f.id("A"))].heat, 0.0) << "A only calls";
  EXPECT_DOUBLE_EQ(by_self.nodes[by_self.find(f.id("B"))].heat, 10.0 / 180);
  const CallGraph by_total = f.graph({.max_nodes = 0, .heat = HeatBasis::Total});
  EXPECT_DOUBLE_EQ(by_total.nodes[by_total.find(f.id("A"))].heat, 1.0);
}

TEST(CallGraph, TimeFromNoShownCallerIsTheEntryValue) {
  // main 70, b 55 (20 under main, 35 under the hidden start), a 50, start 35, c 5.
  Fixture f(
      "main;a 50\n"
      "main;b 20\n"
      "start;b 30\n"
      "start;b;c 5\n");
  const CallGraph g = f.graph({.max_nodes = 3});
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "b", "a"}));
  const GraphNode& b = g.nodes[g.find(f.id("b"))];
  EXPECT_EQ(b.total, 55u);
  EXPECT_EQ(b.entry_value, 35u);
  EXPECT_EQ(f.edge(g, "main", "b", false)->value, 20u);
  EXPECT_EQ(g.grand_total, 105u);
}

TEST(CallGraph, SampledProfilesRankBySamples) {
  Fixture f(
      "main;parse 300 samples=3\n"
      "main;compute 450 samples=4\n"
      "main;compute;sqrt 100 samples=1\n");
  const CallGraph g = f.graph({.metric = Metric::Samples, .max_nodes = 0, .heat = HeatBasis::Self});
  EXPECT_EQ(g.grand_total, 8u);
  EXPECT_EQ(f.shown(g), (std::vector<std::string>{"main", "compute", "parse", "sqrt"}));
  EXPECT_EQ(f.edge(g, "main", "compute", false)->value, 5u);
  EXPECT_EQ(f.edge(g, "main", "compute", false)->total[Metric::WallNs], 550u);
  EXPECT_DOUBLE_EQ(g.nodes[g.find(f.id("compute"))].heat, 4.0 / 8);
}

TEST(CallGraph, EdgeWidthsGrowWithTimeLessThanProportionally) {
  EXPECT_DOUBLE_EQ(edge_width(1000, 1000, EdgeWidth::Log), kMaxEdgeWidth);
  EXPECT_DOUBLE_EQ(edge_width(0, 1000, EdgeWidth::Log), kMinEdgeWidth);
  // 999 * (1/111) = 9: log10(10) / 3 of the range above the minimum.
  EXPECT_NEAR(edge_width(1, 111, EdgeWidth::Log), 1 + 9.0 / 3, 1e-12);
  EXPECT_NEAR(edge_width(1, 1, EdgeWidth::Log), 10, 1e-12);
  EXPECT_DOUBLE_EQ(edge_width(500, 1000, EdgeWidth::Linear), 5.5);
  EXPECT_DOUBLE_EQ(edge_width(0, 1000, EdgeWidth::Linear), 1);
  EXPECT_DOUBLE_EQ(edge_width(3, 1000, EdgeWidth::Uniform), 2);
  EXPECT_DOUBLE_EQ(edge_width(900, 1000, EdgeWidth::Uniform), 2);
  EXPECT_DOUBLE_EQ(edge_width(0, 0, EdgeWidth::Log), kMinEdgeWidth);
  // The graph's edges carry the width of their value against the widest edge.
  Fixture f(kCounterExample);
  const CallGraph g = f.graph({.max_nodes = 0, .edge_width = EdgeWidth::Linear});
  EXPECT_DOUBLE_EQ(f.edge(g, "C", "D", false)->width, 1 + 9 * 40.0 / 180);
  EXPECT_DOUBLE_EQ(f.edge(g, "main", "A", false)->width, 10);
}

TEST(CallGraph, LightEdgesGoButEveryFunctionKeepsItsHeaviestCaller) {
  Fixture f(kCounterExample);
  // Heaviest first: main > A 180, A > B 130, B > D 120, A > C 50, C > D 40. Three fit; A > C
  // stays as C's only caller; C > D goes (D keeps B > D).
  for (const CallGraphOptions& o : {CallGraphOptions{.max_nodes = 0, .max_edges = 3},
                                    CallGraphOptions{.max_nodes = 0, .max_edges = 0, .edge_fraction = 0.9}}) {
    const CallGraph g = f.graph(o);
    EXPECT_EQ(g.edges.size(), 4u);
    EXPECT_EQ(f.edge(g, "C", "D", false), nullptr);
    EXPECT_NE(f.edge(g, "A", "C", false), nullptr);
    EXPECT_EQ(g.hidden_edges, 1u);
    EXPECT_EQ(g.hidden_edge_max, 40u);
  }
  EXPECT_EQ(f.graph({.max_nodes = 0}).edges.size(), 5u) << "by default 3 edges per shown function";
  EXPECT_EQ(f.graph({.max_nodes = 0, .max_edges = 4}).hidden_edges, 1u);
  EXPECT_EQ(f.graph({.max_nodes = 0, .max_edges = 5}).hidden_edges, 0u);
  // A function's recursion onto itself always shows; a re-entry into another function is an
  // ordinary edge.
  Fixture r(kMutualRecursion);
  const CallGraph g = r.graph({.max_nodes = 0, .max_edges = 1});
  EXPECT_EQ(g.edges.size(), 2u);
  EXPECT_EQ(r.edge(g, "g", "f", false), nullptr);
  Fixture fib("main;fib 10\nmain;fib;fib 20 calls=4\n");
  EXPECT_NE(fib.edge(fib.graph({.max_nodes = 0, .max_edges = 1}), "fib", "fib", false), nullptr);
}

// --nodes 0 and --edges 0 still stop at the layout's caps, and say so; limits below the caps
// are not "capped".
TEST(CallGraph, HardCapsBoundWhatReachesTheLayout) {
  CallTree t;  // main calls 200 functions; f1..f40 also all call each other
  const NodeId main = t.child(kRootNode, 0);
  t.base(main)[Metric::Calls] = 1;
  for (FunctionId f = 1; f <= 200; ++f) {
    const NodeId n = t.child(main, f);
    t.base(n)[Metric::Calls] = 1;
    t.base(n)[Metric::WallNs] = 1000 + f;
    if (f > 40) continue;
    for (FunctionId to = 1; to <= 40; ++to) {
      if (to == f) continue;
      const NodeId c = t.child(n, to);
      t.base(c)[Metric::Calls] = 1;
      t.base(c)[Metric::WallNs] = f * 41 + to;
    }
  }
  const NodeQuantities q = node_quantities(t);
  const std::vector<FunctionRow> rows = function_rows(t, q);
  const CallGraph all = build_call_graph(t, q, rows, {.max_nodes = 0, .max_edges = 0});
  EXPECT_EQ(all.nodes.size(), kMaxGraphNodes);
  EXPECT_TRUE(all.nodes_capped);
  EXPECT_TRUE(all.edges_capped);
  EXPECT_GE(all.edges.size(), kMaxGraphEdges);
  EXPECT_LE(all.edges.size(), kMaxGraphEdges + kMaxGraphNodes) << "the cap, plus each function's heaviest caller";
  EXPECT_EQ(all.hidden_edges + all.edges.size(), 149u + 40 * 39) << "main -> the 149 others shown, 40 x 39 between";
  const CallGraph few = build_call_graph(t, q, rows, {.max_nodes = 40, .max_edges = 100});
  EXPECT_EQ(few.nodes.size(), 40u);
  EXPECT_FALSE(few.nodes_capped);
  EXPECT_FALSE(few.edges_capped);
  EXPECT_GT(few.hidden_edges, 0u);
}

// On random recursive trees, any threshold: each shown function's total is exactly its entry
// value plus the values of its incoming edges, solid and dashed; with nothing hidden the
// edges are the analysis's edge rows.
TEST(CallGraph, IncomingEdgesAccountForEveryShownTotal) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    CallTree t;
    std::vector<NodeId> nodes{kRootNode};
    for (int k = 0; k < 300; ++k) {
      const NodeId parent = nodes[rng() % nodes.size()];
      const NodeId n = t.child(parent, FunctionId(rng() % 12));
      if (n == nodes.size()) nodes.push_back(n);
      t.base(n)[Metric::Calls] += 1 + rng() % 3;
      t.base(n)[Metric::WallNs] += rng() % 100;
    }
    const NodeQuantities q = node_quantities(t);
    const std::vector<FunctionRow> rows = function_rows(t, q);
    for (size_t max_nodes : {size_t(0), size_t(1), size_t(3), size_t(6)}) {
      const CallGraph g = build_call_graph(t, q, rows, {.max_nodes = max_nodes, .max_edges = 0});
      std::vector<uint64_t> incoming(g.nodes.size());
      for (size_t i = 0; i < g.nodes.size(); ++i) incoming[i] = g.nodes[i].entry_value;
      for (const GraphEdge& e : g.edges) incoming[e.callee] += e.value;
      for (size_t i = 0; i < g.nodes.size(); ++i) EXPECT_EQ(incoming[i], g.nodes[i].total) << round << " " << max_nodes;
      for (const FunctionRow& r : rows) {  // the threshold's promise: every hidden function is below it
        if (g.find(r.function) == SIZE_MAX && g.threshold > 0) {
          EXPECT_LT(r.total_ns, g.threshold) << round;
        }
      }
      if (max_nodes != 0) continue;
      size_t between_functions = 0;
      for (const EdgeRow& r : edge_rows(t, q)) {
        if (r.caller == kNoFunction) continue;
        ++between_functions;
        const GraphEdge* e = nullptr;
        for (const GraphEdge& c : g.edges)
          if (g.nodes[c.caller].row.function == r.caller && g.nodes[c.callee].row.function == r.callee) e = &c;
        ASSERT_NE(e, nullptr);
        EXPECT_FALSE(e->folded);
        EXPECT_EQ(e->calls, r.calls);
        EXPECT_EQ(e->value, r.total_ns);
        EXPECT_EQ(e->recursive_calls, r.recursive_calls);
      }
      EXPECT_EQ(g.edges.size(), between_functions);
    }
  }
}

}  // namespace
}  // namespace callprof
