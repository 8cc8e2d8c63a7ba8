// The text views: sorting, filtering, thread selection, limits, tree layout, recursion
// marks, escaping of hostile names, and one-line errors for bad options.
#include <gtest/gtest.h>

#include <sstream>

#include "fixtures.h"
#include "model/transform/compensate.h"
#include "report/columns.h"
#include "report/context.h"
#include "report/function_order.h"
#include "report/header.h"
#include "report/report.h"
#include "trace/profile_file.h"

namespace callprof {
namespace {

struct Rendered {
  bool ok;
  std::string text;  // the output, or the error message
};

Rendered render(const Profile& p, const ReportOptions& o) {
  std::ostringstream out;
  Status s = render_report(p, o, out);
  if (!s) {
    EXPECT_EQ(out.str(), "") << "nothing is written on error";
    return {false, s.error().message};
  }
  return {true, out.str()};
}

ReportOptions opts(std::string view, std::string sort = "", std::string filter = "") {
  ReportOptions o;
  o.view = *parse_view(view);
  o.sort = std::move(sort);
  o.filter = std::move(filter);
  o.percent_limit = 0;  // every row: these tests check order and numbers, not the noise threshold
  return o;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// One byte per column, so byte offsets are column offsets ("µ" is two bytes, one column).
std::string ascii(std::string s) {
  for (size_t at; (at = s.find("µ")) != std::string::npos;) s.replace(at, 2, "u");
  return s;
}

// Data rows of the first table: lines after the title line that starts with `title`,
// up to the first empty line.
std::vector<std::string> table_rows(const std::string& text, const std::string& title) {
  std::vector<std::string> rows;
  bool in = false;
  for (const std::string& l : lines(text)) {
    if (!in) {
      in = l.rfind(title, 0) == 0;
      continue;
    }
    if (l.empty()) break;
    rows.push_back(l);
  }
  return rows;
}

std::string last_word(const std::string& row) { return row.substr(row.rfind(' ') + 1); }

std::vector<std::string> flat_names(const std::string& text, const std::string& first_column = "calls") {
  std::vector<std::string> names;
  for (const std::string& r : table_rows(text, first_column)) names.push_back(last_word(r));
  return names;
}

const Profile& counter() {
  static const Profile p = testing::counter_example_profile();
  return p;
}

// By self, as perf report and pprof's top (issue 29.2: by total, Lua's first 13 rows were
// wrappers at 96-100 %).
TEST(FlatView, DefaultSortIsSelfDescending) {
  auto r = render(counter(), opts("flat"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(flat_names(r.text), (std::vector<std::string>{"D", "E", "B", "C", "spawn", "main", "A", "worker"}));
  ReportOptions by_total = opts("flat");
  by_total.sort = "total";
  EXPECT_EQ(flat_names(render(counter(), by_total).text),
            (std::vector<std::string>{"main", "A", "D", "B", "C", "E", "worker", "spawn"}));
  EXPECT_NE(r.text.find("# command:  ./counter 40"), std::string::npos);
  EXPECT_NE(r.text.find("# threads:  2, processes: 1"), std::string::npos);
  EXPECT_NE(r.text.find("off-cpu"), std::string::npos);
}

// Every column sorts the rows, in the order the shared comparator defines, and the
// comparator orders by the column's value (numbers descending, names ascending).
TEST(FlatView, SortsByEveryColumn) {
  const ReportOptions base = opts("flat");
  auto analysis = Analysis::run(counter(), base.query);
  ASSERT_TRUE(analysis.ok());
  auto ctx = ReportContext::make(*analysis, base);
  ASSERT_TRUE(ctx.ok());
  auto per = [](uint64_t a, uint64_t b) { return b ? a / b : 0; };
  const std::vector<std::pair<std::string, std::function<uint64_t(const FunctionRow&)>>> keys = {
      {"calls", [](const FunctionRow& r) { return r.calls; }},
      {"self", [](const FunctionRow& r) { return r.self_ns; }},
      {"total", [](const FunctionRow& r) { return r.total_ns; }},
      {"avg", [&](const FunctionRow& r) { return per(r.self_ns, r.calls); }},
      {"avgtotal", [&](const FunctionRow& r) { return per(r.total_ns, r.calls); }},
      {"min", [](const FunctionRow& r) { return r.min_self_ns; }},
      {"max", [](const FunctionRow& r) { return r.max_self_ns; }},
      {"cpu", [](const FunctionRow& r) { return r.cpu_ns; }},
      {"offcpu", [](const FunctionRow& r) { return r.offcpu_ns; }},
      {"samples", [](const FunctionRow& r) { return r.self_samples; }}};
  for (const auto& [key, value] : keys) {
    auto less = function_order(*ctx, key, "flat");
    ASSERT_TRUE(less.ok()) << key;
    std::vector<FunctionRow> rows = ctx->functions();
    std::sort(rows.begin(), rows.end(), *less);
    std::vector<std::string> expected;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i) {
        EXPECT_GE(value(rows[i - 1]), value(rows[i])) << key;
      }
      expected.emplace_back(ctx->name(rows[i].function));
    }
    auto r = render(counter(), opts("flat", key));
    ASSERT_TRUE(r.ok) << r.text;
    EXPECT_EQ(flat_names(r.text), expected) << key;
  }
  EXPECT_EQ(flat_names(render(counter(), opts("flat", "calls")).text)[0], "D");
  EXPECT_EQ(flat_names(render(counter(), opts("flat", "name")).text),
            (std::vector<std::string>{"A", "B", "C", "D", "E", "main", "spawn", "worker"}));
  auto by_module = flat_names(render(counter(), opts("flat", "module")).text);
  EXPECT_EQ(by_module.back(), "D");  // counter < libd.so.1
}

TEST(FlatView, FilterLimitAndThreadSelection) {
  auto f = render(counter(), opts("flat", "", "^[BC]$"));
  EXPECT_EQ(flat_names(f.text), (std::vector<std::string>{"B", "C"}));
  EXPECT_NE(f.text.find("72.43%"), std::string::npos);  // still relative to the whole tree
  ReportOptions o = opts("flat");
  o.limit = 2;
  EXPECT_EQ(flat_names(render(counter(), o).text).size(), 2u);
  o = opts("flat");
  o.query.tid = 101;
  auto t = render(counter(), o);
  EXPECT_EQ(flat_names(t.text), (std::vector<std::string>{"E", "worker"}));  // total ties: by name
  EXPECT_NE(t.text.find("tid 101 worker (of 2)"), std::string::npos);
  EXPECT_NE(t.text.find("100.00%"), std::string::npos);  // percentages of the shown thread
  EXPECT_NE(t.text.find("off-cpu"), std::string::npos);  // the split was measured: 0 is a value
  EXPECT_EQ(render(testing::folded("main;a 10\n"), opts("flat")).text.find("cpu"), std::string::npos)
      << "no CPU columns when the split was not measured";
}

TEST(FlatView, SampledProfilesShowSampleColumns) {
  Profile p = testing::folded("main;a 30 samples=3\nmain;a;b 70 samples=7\n");
  auto r = render(p, opts("flat", "samples"));
  ASSERT_TRUE(r.ok);
  const std::vector<std::string> rows = table_rows(r.text, "samples");
  ASSERT_EQ(rows.size(), 3u) << r.text;
  EXPECT_EQ(flat_names(r.text, "samples"), (std::vector<std::string>{"b", "a", "main"}));
  EXPECT_EQ(table_rows(r.text, "calls").size(), 0u) << "no call counts in a sampled profile";
  // samples, self, self%, sum% (running down the rows), total, total%
  auto words = [](const std::string& row) {
    std::vector<std::string> w;
    std::istringstream in(row);
    for (std::string s; in >> s;) w.push_back(s);
    return w;
  };
  EXPECT_EQ(words(rows[0]), (std::vector<std::string>{"7", "70ns", "70.00%", "70.00%", "70ns", "70.00%", "b"}));
  EXPECT_EQ(words(rows[1]), (std::vector<std::string>{"3", "30ns", "30.00%", "100.00%", "100ns", "100.00%", "a"}));
}

// An inlined function is one function: the flat view adds its inlined and called time; the
// tree says where it was inlined.
TEST(FlatView, InlinedAndCalledInstancesAreOneFunction) {
  auto r = render(testing::inlined_profile(), opts("flat", "samples"));
  ASSERT_TRUE(r.ok) << r.text;
  const std::vector<std::string> names = flat_names(r.text, "samples");
  EXPECT_EQ(names, (std::vector<std::string>{"compute", "squares", "hot_leaf", "main", "[truncated]"})) << r.text;
  for (const std::string& row : table_rows(r.text, "samples"))
    if (last_word(row) == "squares") EXPECT_EQ(row.substr(row.find_first_not_of(' '), 4), "250 ") << row;
  EXPECT_EQ(r.text.find("[inlined]"), std::string::npos);
}

TEST(TreeView, InlinedFramesAreMarked) {
  auto r = render(testing::inlined_profile(), opts("tree"));
  ASSERT_TRUE(r.ok) << r.text;
  std::vector<std::string> marked;
  for (const std::string& row : table_rows(r.text, "level"))
    if (row.find("[inlined]") != std::string::npos) marked.push_back(row);
  ASSERT_EQ(marked.size(), 1u) << r.text;
  EXPECT_NE(marked[0].find("      squares [inlined]"), std::string::npos) << "under compute: " << marked[0];
  EXPECT_NE(r.text.find("  squares\n"), std::string::npos) << "main's call of squares is not marked";
}

// Honest stacks: the header says how many stacks did not reach their root.
TEST(Header, TruncatedStacksAreCounted) {
  auto r = render(testing::inlined_profile(), opts("flat"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("# stacks:   7 of 707 (1.0 %) truncated"), std::string::npos) << r.text;
  EXPECT_EQ(render(testing::sampled_profile(), opts("flat")).text.find("# stacks:"), std::string::npos)
      << "none truncated: no line";
}

TEST(CallersView, StanzaShowsMeasuredSplitAndIndices) {
  auto r = render(counter(), opts("callers", "", "^D$"));
  ASSERT_TRUE(r.ok) << r.text;
  auto rows = table_rows(r.text, "index");
  ASSERT_EQ(rows.size(), 4u);  // two parents, the function, the rule
  // self, total, cpu, off-cpu, calls n/N
  EXPECT_NE(rows[0].find("120ms   120ms   100ms   20.0ms  40/80      B [4]"), std::string::npos) << rows[0];
  EXPECT_NE(rows[1].find("40.0ms  40.0ms  40.0ms        0  40/80      C [5]"), std::string::npos) << rows[1];
  EXPECT_EQ(rows[2].rfind("[3]", 0), 0u);
  EXPECT_NE(rows[2].find("95.78%"), std::string::npos);
  EXPECT_NE(rows[2].find("D [3]"), std::string::npos);
}

TEST(CallersView, RecursiveEdgesAreMarked) {
  Profile p = testing::folded("main;f 10\nmain;f;f 10\nmain;f;g 5\nmain;f;g;f 1\n");
  auto r = render(p, opts("callers", "", "^f$"));
  ASSERT_TRUE(r.ok);
  // f [1] (ties with main on total, first by name), g [3]
  EXPECT_NE(r.text.find("      f [1] <self-recursive>"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("      g [3] <recursive>"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("  f [1] <2 recursive>"), std::string::npos) << r.text;
}

// Inlined edges (sampled stacks) say so, as recursive ones do: on every path of the edge, or
// on some of them.
TEST(CallersView, InlinedEdgesAreMarked) {
  Profile p = testing::inlined_profile();
  auto r = render(p, opts("callers", "", "^squares$"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("    compute [2] [inlined]"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("    main [1]\n"), std::string::npos) << r.text;
  // compute also calls squares out of line: the edge is partly inlined.
  CallTree& t = p.threads[0].tree;
  FunctionId squares = 0;
  while (p.functions[squares].name != "squares") ++squares;
  const NodeId compute = t.find_child(t.find_child(kRootNode, 0), 1);
  t.base(t.child(compute, squares))[Metric::Samples] = 5;
  r = render(p, opts("callers", "", "^squares$"));
  EXPECT_NE(r.text.find("    compute [2] [partly inlined]"), std::string::npos) << r.text;
}

TEST(CallersView, LimitCountsStanzas) {
  ReportOptions o = opts("callers");
  o.limit = 2;
  auto r = render(counter(), o);
  EXPECT_NE(r.text.find("[2]"), std::string::npos);
  EXPECT_EQ(r.text.find("[3]"), std::string::npos);  // D's stanza and references to it
}

// Each data row: level in the first column, name indented by 2 per level below 1.
void check_indentation(const std::string& text) {
  auto ls = lines(ascii(text));
  size_t title = 0;
  while (title < ls.size() && ls[title].rfind("level", 0) != 0) ++title;
  ASSERT_LT(title, ls.size());
  const size_t name_col = ls[title].find("function");
  for (size_t i = title + 1; i < ls.size(); ++i) {
    const size_t level = std::stoul(ls[i]);
    const size_t indent = ls[i].find_first_not_of(' ', name_col) - name_col;
    EXPECT_EQ(indent, 2 * (std::min<size_t>(level, 64) - 1)) << ls[i];
  }
}

std::vector<std::string> tree_names(const std::string& text) {
  std::vector<std::string> names;
  for (const std::string& r : table_rows(text, "level")) names.push_back(last_word(r));
  return names;
}

TEST(TreeView, LevelsIndentationAndDefaultOrder) {
  auto r = render(counter(), opts("tree"));
  ASSERT_TRUE(r.ok);
  check_indentation(r.text);
  EXPECT_EQ(tree_names(r.text), (std::vector<std::string>{"main", "A", "B", "D", "C", "D", "spawn", "worker", "E"}));
}

TEST(TreeView, SortColumnsAndAliases) {
  Profile p = testing::folded("main;x 10 calls=1\nmain;y 5 calls=9\nmain;w 1 calls=2\n");
  auto names = [&](const char* sort) { return tree_names(render(p, opts("tree", sort)).text); };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(""), (V{"main", "x", "y", "w"}));
  EXPECT_EQ(names("cum"), names(""));
  EXPECT_EQ(names("calls"), (V{"main", "y", "w", "x"}));
  EXPECT_EQ(names("name"), (V{"main", "w", "x", "y"}));
  EXPECT_EQ(names("base"), (V{"main", "x", "y", "w"}));
  for (const char* k : {"self", "total", "avg", "min", "max", "cpu", "offcpu", "samples"})
    EXPECT_TRUE(render(p, opts("tree", k)).ok) << k;
}

TEST(TreeView, FilterKeepsAncestorsAndSubtreesAndRecursionLevels) {
  auto r = render(counter(), opts("tree", "", "^C$"));
  EXPECT_EQ(tree_names(r.text), (std::vector<std::string>{"main", "A", "C", "D"}));
  Profile p = testing::folded("main;f;f;f 1\n");
  auto rows = table_rows(render(p, opts("tree")).text, "level");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].substr(0, 10), "    4    2");
}

TEST(TreeView, DeepRecursionKeepsIndentBoundedAndLimitCapsRows) {
  std::string stack = "main";
  for (int i = 0; i < 300; ++i) stack += ";f";
  Profile p = testing::folded(stack + " 1\n");
  auto r = render(p, opts("tree"));
  ASSERT_TRUE(r.ok);
  check_indentation(r.text);
  ReportOptions o = opts("tree");
  o.limit = 5;
  EXPECT_EQ(table_rows(render(p, o).text, "level").size(), 5u);
}

TEST(ThreadsView, ProcessesThreadsAndCreationTree) {
  auto r = render(counter(), opts("threads"));
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.text.find("\npid 1: ./counter 40\n"), std::string::npos);
  auto rows = table_rows(r.text, "  tid");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[1].find("main > spawn"), std::string::npos);
  EXPECT_NE(rows[1].find("2.000ms    7.000ms"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("running"), std::string::npos);
  EXPECT_NE(r.text.find("  100  counter   -"), std::string::npos) << r.text;
  EXPECT_NE(rows[1].find("  101    worker  main > spawn"), std::string::npos) << "created threads are indented";
  ReportOptions o = opts("threads", "total");
  auto sorted = table_rows(render(counter(), o).text, "  tid");
  EXPECT_NE(sorted[0].find("100"), std::string::npos);
  o = opts("threads", "", "^work");
  EXPECT_EQ(table_rows(render(counter(), o).text, "  tid").size(), 1u);
  for (const char* k : {"tid", "name", "start", "duration", "calls", "cpu", "offcpu", "dropped"})
    EXPECT_TRUE(render(counter(), opts("threads", k)).ok) << k;
}

// The threads, threads --function and modules views show cpu and off-CPU (blocked) time; the
// wait for a CPU gets its column next to them by the rule of flat/tree/callers (at least 1 %
// of the time: TreeStats::crowded), so the three add up to the wall time there too.
TEST(ThreadsView, TheWaitForACpuHasItsColumnWhereItMattered) {
  const Profile crowded = testing::folded(
      "main;work@/bin/app 1000 cpu=500 off=300 preempted=200\n"
      "main;crowded@/lib/libc.so.6 400 cpu=100 preempted=300\n");
  const Rendered threads = render(crowded, opts("threads"));
  ASSERT_TRUE(threads.ok) << threads.text;
  const std::vector<std::string> rows = table_rows(threads.text, "  tid");
  ASSERT_EQ(rows.size(), 1u) << threads.text;
  EXPECT_NE(threads.text.find("wall    cpu  off-cpu  preempted"), std::string::npos) << threads.text;
  EXPECT_NE(rows[0].find("1.40µs  600ns    300ns      500ns"), std::string::npos) << threads.text;
  EXPECT_TRUE(render(crowded, opts("threads", "preempted")).ok);
  ReportOptions by_function = opts("threads", "preempted");
  by_function.function = "^crowded$";
  const Rendered functions = render(crowded, by_function);
  ASSERT_TRUE(functions.ok) << functions.text;
  EXPECT_NE(functions.text.find("off-cpu  preempted"), std::string::npos) << functions.text;
  EXPECT_NE(functions.text.find("100ns        0      300ns"), std::string::npos) << functions.text;
  const Rendered modules = render(crowded, opts("modules"));
  ASSERT_TRUE(modules.ok) << modules.text;
  EXPECT_NE(modules.text.find("off-cpu  preempted"), std::string::npos) << modules.text;
  // Under 1 % of the time, as in flat: no column.
  const Profile quiet = testing::folded("main;work 100000 cpu=99000 off=900 preempted=100\n");
  for (const char* view : {"threads", "modules"}) {
    const Rendered r = render(quiet, opts(view));
    ASSERT_TRUE(r.ok) << r.text;
    EXPECT_EQ(r.text.find("preempted"), std::string::npos) << view << "\n" << r.text;
  }
}

TEST(SummaryView, ShapeRankingsAndModules) {
  auto r = render(counter(), opts("summary"));
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.text.find("edges              7 (distinct caller > callee pairs)"), std::string::npos);
  EXPECT_NE(r.text.find("deepest recursion  none"), std::string::npos);
  EXPECT_EQ(last_word(table_rows(r.text, "hottest functions")[1]), "D");
  EXPECT_NE(r.text.find("B > D"), std::string::npos);
  EXPECT_NE(r.text.find("main > A > B > D"), std::string::npos);
  EXPECT_NE(r.text.find("/usr/lib/libd.so.1"), std::string::npos);
  Profile p = testing::folded("main;f;g;f;g;f 1\n");
  EXPECT_NE(render(p, opts("summary")).text.find("deepest recursion  f (level 2)"), std::string::npos);
}

TEST(Escaping, HostileNamesCannotBreakTheTerminalOrTables) {
  Profile p = testing::folded("main;evil 10\n");
  p.functions[1].name = "evil\nname\x1b[2J";
  p.threads[0].name = "thr\x1b]0;x\x07";
  p.meta.command = "cmd\rline";
  for (const char* v : {"flat", "callers", "tree", "threads", "summary"}) {
    auto r = render(p, opts(v));
    ASSERT_TRUE(r.ok) << v;
    EXPECT_EQ(r.text.find('\x1b'), std::string::npos) << v;
    EXPECT_EQ(r.text.find('\r'), std::string::npos) << v;
    EXPECT_EQ(r.text.find("evil\n"), std::string::npos) << v;
    if (std::string(v) != "threads") {
      EXPECT_NE(r.text.find("evil\\nname\\x1b[2J"), std::string::npos) << v;
    }
  }
  EXPECT_NE(render(p, opts("threads")).text.find("thr\\x1b]0;x\\x07"), std::string::npos);
}

TEST(Errors, BadOptionsGiveOneLineErrors) {
  auto one_line = [](const Rendered& r) {
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.text.find('\n'), std::string::npos) << r.text;
    return r.text;
  };
  // Unknown views are the CLI's to reject (tests/cli).
  for (const char* v : {"flat", "callers", "summary"})
    EXPECT_NE(one_line(render(counter(), opts(v, "bogus"))).find("calls, samples, self, self%"), std::string::npos);
  EXPECT_NE(one_line(render(counter(), opts("tree", "bogus"))).find("valid: calls"), std::string::npos);
  EXPECT_NE(one_line(render(counter(), opts("threads", "bogus"))).find("valid: tid"), std::string::npos);
  EXPECT_NE(one_line(render(counter(), opts("flat", "", "(unclosed"))).find("invalid --filter regex '(unclosed'"),
            std::string::npos);
  ReportOptions o = opts("tree");
  o.query.tid = 999;
  EXPECT_EQ(one_line(render(counter(), o)), "thread 999 is not in the profile (threads: 100, 101)");
  o.json = true;
  EXPECT_FALSE(render(counter(), o).ok);
  EXPECT_NE(one_line(render(counter(), opts("flat", "bad\ncolumn"))).find("bad\\ncolumn"), std::string::npos);
}

// Views that read only the analysed tree let the threads' own trees go once they are
// merged (their memory then serves the view): the output is the same as with them kept,
// and a single thread used in place is kept.
TEST(Analysis, ViewsThatReadOnlyTheTreeReleaseTheThreadTrees) {
  QueryOptions keep, release;
  release.keep_thread_trees = false;
  auto kept = Analysis::run(testing::exact_profile(), keep);
  auto released = Analysis::run(testing::exact_profile(), release);
  ASSERT_TRUE(kept.ok() && released.ok());
  for (const Thread& t : kept->profile().threads) EXPECT_GT(t.tree.size(), 1u);
  for (const Thread& t : released->profile().threads) EXPECT_EQ(t.tree.size(), 1u) << "only the root left";
  EXPECT_EQ(released->tree().size(), kept->tree().size());
  EXPECT_EQ(released->grand_total_ns(), kept->grand_total_ns());
  release.tid = 100;  // one thread, nothing merged: the analysis walks that thread's own tree
  auto single = Analysis::run(testing::exact_profile(), release);
  ASSERT_TRUE(single.ok());
  EXPECT_GT(single->profile().threads[0].tree.size(), 1u);
  for (const char* view : {"flat", "callers", "tree", "summary", "modules"}) {
    const ReportOptions o = opts(view);
    std::ostringstream with_trees;
    ASSERT_TRUE(render_report(*kept, o, with_trees).ok());
    EXPECT_EQ(render(testing::exact_profile(), o).text, with_trees.str()) << view;
  }
}

// A view of the merged tree reads a profile of three threads or more through a ThreadIntake
// (each thread compensated, summarised and merged as it is read, its own tree dropped):
// the report is the one of the profile read whole, for every such view and selection.
TEST(Analysis, ThreadsTakenAsTheyAreReadGiveTheSameReport) {
  ASSERT_GE(testing::exact_profile().threads.size(), 3u);
  auto bytes = serialize_profile(testing::exact_profile());
  ASSERT_TRUE(bytes.ok());
  std::vector<ReportOptions> cases;
  for (const char* view : {"flat", "callers", "tree", "summary", "modules", "threads"}) cases.push_back(opts(view));
  cases.push_back(opts("threads"));
  cases.back().function = "^[BD]$";
  ReportOptions json = opts("flat");
  json.json = true;
  cases.push_back(json);
  cases.push_back(json);
  cases.back().query.raw = true;
  cases.push_back(json);
  cases.back().query.tid = 101;
  cases.push_back(opts("tree"));
  cases.back().query.pid = 2;
  cases.push_back(opts("tree"));
  cases.back().query.hide = "^B$";
  cases.push_back(opts("callers-of"));
  cases.back().function = "^D$";
  cases.push_back(opts("callees-of"));
  cases.back().function = "^A$";
  for (const ReportOptions& o : cases) {
    const QueryOptions q = report_query(o);
    ASSERT_TRUE(ThreadIntake::applies(q)) << view_name(o.view);
    ThreadIntake intake(q);
    auto read = parse_profile(*bytes, "p", ReadOptions{{}, &intake});
    ASSERT_TRUE(read.ok()) << read.error().message;
    for (const Thread& t : read->threads) EXPECT_EQ(t.tree.size(), 1u) << "taken: only the root left";
    std::ostringstream out;
    ASSERT_TRUE(render_report(std::move(*read), std::move(intake), o, out).ok());
    EXPECT_EQ(out.str(), render(testing::exact_profile(), o).text) << view_name(o.view) << (o.json ? " json" : "");
  }
}

// Compensation's work on the selected threads is the same taken thread by thread as on the
// profile read whole (the `# cost:` line's time as measured adds back what it left).
TEST(Analysis, ThreadsTakenAsTheyAreReadCountCompensationForTheSelectedThreads) {
  auto bytes = serialize_profile(testing::exact_profile());
  ASSERT_TRUE(bytes.ok());
  for (std::optional<uint32_t> tid : {std::optional<uint32_t>(), std::optional<uint32_t>(101)}) {
    QueryOptions q = report_query(opts("flat"));
    q.tid = tid;
    ThreadIntake intake(q);
    auto read = parse_profile(*bytes, "p", ReadOptions{{}, &intake});
    ASSERT_TRUE(read.ok());
    auto taken = Analysis::run_intake(std::move(*read), std::move(intake));
    auto whole = Analysis::run(testing::exact_profile(), q);
    ASSERT_TRUE(taken.ok() && whole.ok());
    if (tid) {
      EXPECT_LT(whole->selected_compensation().nodes, whole->compensation().nodes) << "one thread of several";
    } else {
      EXPECT_GT(whole->compensation().nodes, 0u) << "a profile with hook costs";
    }
    EXPECT_EQ(taken->selected_compensation().nodes, whole->selected_compensation().nodes);
    EXPECT_EQ(taken->selected_compensation().limited, whole->selected_compensation().limited);
    EXPECT_DOUBLE_EQ(taken->selected_compensation().unremoved_ns, whole->selected_compensation().unremoved_ns);
    EXPECT_EQ(taken->compensation().nodes, whole->compensation().nodes);
  }
}

// With two threads both trees exist at once however they are read: the intake declines,
// the reader reads them together, and the analysis runs on the whole profile.
TEST(Analysis, TwoThreadsAreReadWhole) {
  const Profile two = testing::counter_example_profile();
  ASSERT_EQ(two.threads.size(), 2u);
  auto bytes = serialize_profile(two);
  ASSERT_TRUE(bytes.ok());
  const ReportOptions o = opts("tree");
  ThreadIntake intake(report_query(o));
  auto read = parse_profile(*bytes, "p", ReadOptions{{}, &intake});
  ASSERT_TRUE(read.ok());
  for (const Thread& t : read->threads) EXPECT_GT(t.tree.size(), 1u) << "not taken";
  std::ostringstream out;
  ASSERT_TRUE(render_report(std::move(*read), std::move(intake), o, out).ok());
  EXPECT_EQ(out.str(), render(two, o).text);
}

// An analysis made without thread_rows that kept the threads' trees (the web report's,
// made for other outputs too) gives --json the same per-thread and per-process breakdowns.
TEST(Analysis, JsonBreakdownsFromAnAnalysisThatKeptTheThreadTrees) {
  ReportOptions o = opts("flat");
  o.json = true;
  auto kept = Analysis::run(testing::exact_profile(), QueryOptions{});
  ASSERT_TRUE(kept.ok());
  std::ostringstream out;
  ASSERT_TRUE(render_report(*kept, o, out).ok());
  const std::string text = render(testing::exact_profile(), o).text;
  EXPECT_EQ(out.str(), text);
  const size_t breakdowns = text.find("\"by_process\"");
  ASSERT_NE(breakdowns, std::string::npos);
  EXPECT_EQ(text.find("\"functions\":[]", breakdowns), std::string::npos) << "every thread and process has rows";
}

// JSON releases the threads' trees too: its per-thread breakdowns are the function rows
// the analysis took from each thread's own tree first (QueryOptions::thread_rows).
TEST(Analysis, ThreadRowsAreEachThreadsOwnFunctionRows) {
  QueryOptions q;
  q.keep_thread_trees = false;
  q.thread_rows = true;
  const Profile profile = testing::exact_profile();
  auto a = Analysis::run(testing::exact_profile(), q);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->threads().size(), profile.threads.size());
  for (size_t k = 0; k < a->threads().size(); ++k) {
    EXPECT_EQ(a->profile().threads[a->threads()[k]].tree.size(), 1u) << "released";
    Profile compensated = testing::exact_profile();
    compensate(compensated);  // as the analysis did before taking the rows
    const std::vector<FunctionRow> want = function_rows(compensated.threads[a->threads()[k]].tree);
    const std::vector<FunctionRow> got = a->thread_rows(k);
    ASSERT_EQ(got.size(), want.size()) << "thread " << k;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].function, want[i].function);
      EXPECT_EQ(got[i].calls, want[i].calls);
      EXPECT_EQ(got[i].self_ns, want[i].self_ns);
      EXPECT_EQ(got[i].total_ns, want[i].total_ns);
    }
    EXPECT_GT(a->thread_totals()[a->threads()[k]].calls, 0u);
  }
  // Not asked for, they are made from the tree the analysis kept: the same rows.
  auto kept = Analysis::run(testing::exact_profile(), QueryOptions{});
  ASSERT_TRUE(kept.ok());
  for (size_t k = 0; k < a->threads().size(); ++k) {
    ASSERT_EQ(kept->thread_rows(k).size(), a->thread_rows(k).size()) << "thread " << k;
    for (size_t i = 0; i < a->thread_rows(k).size(); ++i)
      EXPECT_EQ(kept->thread_rows(k)[i].self_ns, a->thread_rows(k)[i].self_ns);
  }
}

// `report` reads a profile without the metrics its view never reads (metrics_not_read): every
// text view renders the same as from the whole profile, whatever columns and sort are asked.
TEST(Report, ViewsRenderTheSameWithoutTheMetricsTheyDoNotRead) {
  Profile p = testing::exact_profile();
  for (Thread& t : p.threads)
    for (NodeId n = 1; n < t.tree.size(); ++n) t.tree.base(n)[Metric::PreemptedNs] = 7 * n;
  const std::vector<uint8_t> bytes = serialize_profile(p).value();
  ASSERT_EQ(metrics_not_read(opts("flat")), column_only_metrics()) << "the default columns leave them all out";
  EXPECT_EQ(metrics_not_read(opts("threads")), std::vector<Metric>{});
  size_t pruned_reads = 0;
  for (const char* view : {"flat", "callers", "tree", "summary", "modules", "callers-of", "callees-of"}) {
    for (auto [columns, sort] : {std::pair{"", ""}, std::pair{"+min,+max", ""}, std::pair{"+preempted", ""},
                                 std::pair{"", "min"}, std::pair{"", "preemptedtotal"}, std::pair{"all", ""}}) {
      ReportOptions o = opts(view, sort);
      o.columns = columns;
      if (o.view == View::CalleesOf || o.view == View::CallersOf) o.function = "^main$";
      const ReadOptions skip{metrics_not_read(o)};
      const Rendered full = render(parse_profile(bytes, "p").value(), o);
      const Profile pruned = parse_profile(bytes, "p", skip).value();
      if (!skip.skip_metrics.empty()) {
        ++pruned_reads;
        EXPECT_FALSE(pruned.threads[0].tree.base_table().has(skip.skip_metrics[0]));
      }
      const Rendered got = render(pruned, o);
      EXPECT_EQ(got.ok, full.ok) << view << " --columns '" << columns << "' --sort '" << sort << "'";
      EXPECT_EQ(got.text, full.text) << view << " --columns '" << columns << "' --sort '" << sort << "'";
    }
  }
  EXPECT_GE(pruned_reads, 12u);
}

// main calling helper_number_0..19, 5 calls each (101 calls with main's), 4 of each
// helper's counted folded.
Profile twenty_folded_helpers() {
  std::string stacks;
  for (int i = 0; i < 20; ++i) stacks += "main;helper_number_" + std::to_string(i) + " 10 calls=5\n";
  Profile p = testing::folded(stacks);
  CallTree& tree = p.threads[0].tree;
  for (NodeId n = 1; n < tree.size(); ++n)
    if (p.functions[tree.node(n).function].name != "main") tree.base(n)[Metric::FoldedCalls] = 4;
  return p;
}

// Issue 29.2: the folded functions' names, a 231-character line on Lua, get a line of their
// own cut to the width with a count ("… and 12 more: --verbose"); --verbose lists them all.
TEST(Header, FoldedFunctionsAreCutToTheWidthWithACount) {
  const Profile p = twenty_folded_helpers();
  ReportOptions o = opts("flat");
  o.width = 80;
  const Rendered cut = render(p, o);
  ASSERT_TRUE(cut.ok) << cut.text;
  const size_t at = cut.text.find("\n#           helper_number_");
  ASSERT_NE(at, std::string::npos) << cut.text;
  const std::string line = cut.text.substr(at + 1, cut.text.find('\n', at + 1) - at - 1);
  size_t columns = 0;
  for (char c : line) columns += (uint8_t(c) & 0xC0) != 0x80;
  EXPECT_LE(columns, 80u) << line;
  EXPECT_NE(line.find(" more: --verbose"), std::string::npos) << line;
  o.verbose = true;
  const Rendered all = render(p, o);
  for (int i = 0; i < 20; ++i) {
    const std::string name = "helper_number_" + std::to_string(i);
    EXPECT_TRUE(all.text.find(name + ",") != std::string::npos || all.text.find(name + "\n") != std::string::npos)
        << name << all.text;
  }
  EXPECT_EQ(all.text.find("more: --verbose"), std::string::npos);
}

// A folded function's share is of every thread's calls, as it was counted: --focus on one
// of them leaves the share (5 of 101 calls), where the tree's calls made it 100 %.
TEST(Header, AFoldedFunctionsShareIsOfAllTheCalls) {
  const Profile p = twenty_folded_helpers();
  ReportOptions o = opts("flat");
  o.verbose = true;
  o.query.focus = "helper_number_7$";
  const Rendered r = render(p, o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("helper_number_7 (5.0% of calls"), std::string::npos) << r.text;
}

// The header fits --width like the tables: long lines wrap at spaces under their values.
TEST(Header, LinesFitTheWidthWrappedUnderTheirValues) {
  const std::string text =
      "# callprof flat profile\n# command:  ./server --config /etc/a-rather-long-path/server.conf --workers 16\n"
      "# folded:   3 functions with calls under 31 ns (12.5 µs): a, b, c\n# path:     /" +
      std::string(70, 'x') + "\n";
  EXPECT_EQ(wrap_header_lines(text, 0), text);
  const std::string wrapped = wrap_header_lines(text, 50);
  std::string words, original;
  for (const std::string& line : lines(wrapped)) {
    size_t columns = 0;
    for (char c : line) columns += (uint8_t(c) & 0xC0) != 0x80;
    EXPECT_LE(columns, 50u) << line;
  }
  EXPECT_NE(wrapped.find("\n#           /etc/a-rather-long-path/server.conf\n"), std::string::npos) << wrapped;
  EXPECT_NE(wrapped.find("(12.5 µs):"), std::string::npos) << "µ is one column, not cut inside" << wrapped;
  EXPECT_NE(wrapped.find("\n#           " + std::string(33, 'x') + "\n"), std::string::npos) << "hard cut, no space";
  auto letters = [](std::string s) {  // the text without line breaks, continuations and spaces
    std::string out;
    for (size_t at = 0; at < s.size();) {
      if (s.compare(at, 13, "\n#           ") == 0)
        at += 13;
      else if (s[at] == ' ' || s[at] == '\n')
        ++at;
      else
        out += s[at++];
    }
    return out;
  };
  EXPECT_EQ(letters(wrapped), letters(text)) << "nothing lost, nothing added";

  Profile p = testing::exact_profile();
  p.meta.command = "./app " + std::string(30, 'a') + " " + std::string(30, 'b') + " " + std::string(30, 'c');
  ReportOptions o = opts("flat");
  o.width = 60;
  const Rendered r = render(p, o);
  ASSERT_TRUE(r.ok) << r.text;
  for (const std::string& line : lines(r.text.substr(0, r.text.find("\n\n")))) EXPECT_LE(line.size(), 60u) << line;
}

TEST(EmptyProfile, EveryViewRenders) {
  Profile p;
  for (const char* v : {"flat", "callers", "tree", "threads", "summary"}) EXPECT_TRUE(render(p, opts(v)).ok) << v;
  ReportOptions o;
  o.json = true;
  EXPECT_TRUE(render(p, o).ok);
}

}  // namespace
}  // namespace callprof
