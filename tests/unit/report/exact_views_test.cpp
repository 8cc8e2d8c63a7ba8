// Views of exact-mode profiles in depth: compensation by default and --raw, CPU/off-CPU,
// allocation and fault columns, --columns, the process/thread trees, the per-thread split
// of a function, and program-wide trees (--graft, --merge-threads=start).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "hooked_profile.h"
#include "report/report.h"

namespace callprof {
namespace {

using nlohmann::json;

struct Out {
  bool ok = false;
  std::string text;  // the report, or the error message
};

Out run(const ReportOptions& o, Profile p = testing::exact_profile()) {
  std::ostringstream out;
  Status s = render_report(p, o, out);
  return s.ok() ? Out{true, out.str()} : Out{false, s.error().message};
}

ReportOptions view(std::string v) {
  ReportOptions o;
  o.view = *parse_view(v);
  return o;
}

const json* find(const json& array, const std::string& key, const std::string& value) {
  for (const json& j : array)
    if (j[key] == value) return &j;
  return nullptr;
}

json document(ReportOptions o) {
  o.json = true;
  return json::parse(run(o).text);
}

TEST(Compensation, AppliedByDefaultWithHandComputedNumbers) {
  const json d = document(view("flat"));
  EXPECT_EQ(d["compensated"], true);
  const json& D = *find(d["functions"], "name", "D");
  // B > D: 120 ms - 40 calls * 10 ns; C > D: 40 ms - 40 * 10 ns.
  EXPECT_EQ(D["self_ns"], 120000000 - 400 + 40000000 - 400);
  EXPECT_EQ(D["min_self_ns"], 900000 - 10);
  EXPECT_EQ(D["cpu_ns"], (120000000 - 400 - 20000000) + (40000000 - 400));  // wall' - off-CPU
  EXPECT_EQ((*find(d["functions"], "name", "B"))["self_ns"], 1000000 - 10 - 40 * 5);
  EXPECT_NE(run(view("flat"))
                .text.find("# times:    compensated for measured hook overhead (15.0 ns/call); "
                           "--raw for raw numbers\n"),
            std::string::npos);
}

// A process's check again at its exit: within the runtime's tolerance said as it is, beyond
// it with what it means for the times.
TEST(Compensation, TheTimesLineSaysHowFarTheHooksCostMovedByTheExit) {
  Profile p = testing::exact_profile();
  p.meta.exact.emplace().calibration = "measured";
  p.meta.exact->calibration_change_at_exit = 0.03;
  EXPECT_NE(run(view("flat"), p).text.find("(15.0 ns/call; checked again at the exit: +3 %); --raw"), std::string::npos)
      << run(view("flat"), p).text;
  p.meta.exact->calibration_change_at_exit = -0.24;
  EXPECT_NE(run(view("flat"), p)
                .text.find("; checked again at the exit: -24 %, the machine's speed moved during the "
                           "run: self times are least sure where the hooks took much of them); "),
            std::string::npos)
      << run(view("flat"), p).text;
  ReportOptions j = view("flat");
  j.json = true;
  EXPECT_EQ(json::parse(run(j, p).text)["metadata"]["exact"]["calibration_change_at_exit"], -0.24);
}

TEST(Compensation, RawShowsMeasuredNumbers) {
  ReportOptions o = view("flat");
  o.query.raw = true;
  EXPECT_NE(run(o).text.find("# times:    raw, not compensated for the measured hook overhead (15.0 ns/call)"),
            std::string::npos);
  const json d = document(o);
  EXPECT_EQ(d["compensated"], false);
  EXPECT_EQ((*find(d["functions"], "name", "D"))["self_ns"], 160000000);
  EXPECT_EQ(run(view("flat"), testing::counter_example_profile()).text.find("# times:"), std::string::npos)
      << "nothing to say without measured costs";
}

// The header's `# cost:` line (docs/modes.md, "What the hooks cost"): raw times, 20 ns of
// hooks a call, a fold threshold of 40 ns. `w` is a thin wrapper (10 ns of its own around
// `work`, 50 ns a call, which stays hooked); `leaf` a small leaf.

std::string cost_line(const std::string& text, bool raw = false) {
  ReportOptions o = view("flat");
  o.query.raw = raw;
  const Out r = run(o, testing::hooked_profile(text));
  EXPECT_TRUE(r.ok) << r.text;
  const size_t at = r.text.find("# cost:");
  return at == std::string::npos ? "" : r.text.substr(at, r.text.find('\n', at) - at);
}

TEST(CostLine, NamesTheWrappersOptionAloneWhenNoSmallLeavesAreMany) {
  const std::string text =
      "main 100000 calls=1\n"
      "main;w 10000 calls=1000\n"
      "main;w;work 50000 calls=1000\n";
  const std::string line = cost_line(text);
  EXPECT_NE(line.find("the hooks took about 40.0µs of the threads' 160µs (25 %: 2001 calls through them at 20.0 "
                      "ns)"),
            std::string::npos)
      << "the time as measured, though compensation could take only 10 of w's 20 ns a call: " << line;
  EXPECT_EQ(line, cost_line(text, true)) << "the recording's cost, compensated or not";
  EXPECT_EQ(line.find("--auto-fold all"), std::string::npos) << "no small leaf: " << line;
  EXPECT_NE(line.find("; record --auto-fold wrappers would unhook about 50 % of them (1 thin wrapper of other "
                      "calls, under 40 ns a call of their own: that time in their callers', the calls they make "
                      "under their callers)"),
            std::string::npos)
      << line;
}

TEST(CostLine, AddsTheWrappersToTheSmallLeavesAfterTheAllOption) {
  const std::string line = cost_line(
      "main 100000 calls=1\n"
      "main;w 10000 calls=1000\n"
      "main;w;work 50000 calls=1000\n"
      "main;w;leaf 20000 calls=1000\n");
  EXPECT_NE(line.find("; record --auto-fold all would unhook about 33 % of them (1 small leaf function under 40 "
                      "ns a call: their time then in their callers', their calls still counted)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("; --auto-fold wrappers about 67 % (also 1 thin wrapper of other calls, "), std::string::npos)
      << line;
}

TEST(CostLine, SaysNothingUnderATenthOfTheTime) {
  EXPECT_EQ(cost_line("main 10000000 calls=1\nmain;w 10000 calls=1000\nmain;w;work 100000 calls=1000\n"), "");
}

TEST(Columns, AllocationAndFaultColumnsWhenPresent) {
  const std::string flat = run(view("flat")).text;
  for (const char* title : {"  cpu", "off-cpu", "faults", "allocs", "alloc bytes"})
    EXPECT_NE(flat.find(title), std::string::npos) << title;
  EXPECT_EQ(flat.find("total allocs"), std::string::npos) << "self only by default; --columns +allocstotal adds it";
  EXPECT_NE(flat.find("40.0KiB"), std::string::npos);
  EXPECT_EQ(flat.find("switches"), std::string::npos) << "no switch counts in this profile";
  const std::string plain = run(view("flat"), testing::counter_example_profile()).text;
  EXPECT_EQ(plain.find("allocs"), std::string::npos);
  const std::string tree = run(view("tree")).text;
  EXPECT_NE(tree.find("allocs"), std::string::npos);
}

TEST(Columns, AddRemoveAndAll) {
  ReportOptions o = view("flat");
  o.columns = "+allocstotal,-avg,-self%";
  const Out r = run(o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(
      r.text.find("calls    self    sum%   total  total%     cpu  off-cpu  faults  allocs  alloc bytes  total allocs"),
      std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("total allocs"), std::string::npos);
  EXPECT_EQ(r.text.find("avg self"), std::string::npos);
  o.columns = "all";
  const Out all = run(o);
  ASSERT_TRUE(all.ok) << all.text;
  for (const char* title : {"min self", "max self", "avg total", "sum%", "total syscall errors", "indirect"})
    EXPECT_NE(all.text.find(title), std::string::npos) << title;
  o.columns = "calls,+self";
  EXPECT_NE(run(o).text.find("mix of names and +/- changes"), std::string::npos);
}

TEST(Columns, UnknownValuesPrintDashNotZero) {
  // A sampled profile has no call counts, no single-call times and no CPU split.
  ReportOptions o = view("flat");
  o.columns = "samples,calls,avg,cpu,self";
  const Out r = run(o, testing::folded("main;a 30 samples=3\n"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("      3      -         -    -  30ns  a"), std::string::npos) << r.text;
  o.columns = "calls,samples";
  const Out exact = run(o);
  EXPECT_NE(exact.text.find("   80        -  libd.so.1  D"), std::string::npos)
      << "no samples in an exact profile: " << exact.text;
  // Issue 29.2: counts of what was not recorded (no --faults, --alloc, --syscalls) are
  // unknown, not zero: "-" in every row of `--columns all`.
  o.columns = "calls,faults,allocs,syscalls,switches";
  const Out plain = run(o, testing::folded("main;a 30 calls=3\n"));
  EXPECT_NE(plain.text.find("    3       -       -         -         -  a"), std::string::npos) << plain.text;
}

TEST(Columns, ChosenColumnsAndSortingByAnyColumn) {
  ReportOptions o = view("flat");
  o.columns = "calls,allocbytes,frees";
  const Out r = run(o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("calls  alloc bytes  frees  module"), std::string::npos) << r.text;
  o.sort = "allocbytestotal";
  const std::string sorted = run(o).text;
  const size_t table = sorted.find("calls  alloc bytes");
  // main, A, B and D all have 40 KiB below them; ties go by total: main first, C after them.
  EXPECT_LT(sorted.find(" main\n", table), sorted.find(" C\n", table));
  for (const char* v : {"flat", "tree", "callers"}) {
    ReportOptions bad = view(v);
    bad.columns = "calls,bogus";
    EXPECT_NE(run(bad).text.find("unknown column 'bogus' (valid: calls, samples, self"), std::string::npos) << v;
    for (const char* key : {"cpu", "offcputotal", "faults", "allocs", "allocbytestotal", "switches", "preempted"}) {
      ReportOptions s = view(v);
      s.sort = key;
      EXPECT_TRUE(run(s).ok) << v << " --sort " << key;
    }
  }
}

TEST(Json, NewMetricsOnlyWhenPresent) {
  const json d = document(view("flat"));
  const json& D = *find(d["functions"], "name", "D");
  EXPECT_EQ(D["alloc_calls"], 80 - 40);
  EXPECT_EQ(D["alloc_bytes"], 40960);
  EXPECT_EQ(D["free_calls"], 40);
  EXPECT_EQ(D["page_faults"], 3);
  EXPECT_FALSE(D.contains("switches"));
  EXPECT_EQ((*find(d["functions"], "name", "A"))["total_alloc_bytes"], 40960);
  EXPECT_EQ(d["tree"][0]["total_page_faults"], 3);
  const json& edge = d["edges"][0];
  EXPECT_TRUE(edge.contains("alloc_calls") && edge.contains("total_cpu_ns"));
  const json plain = json::parse(run(
                                     [] {
                                       auto o = view("flat");
                                       o.json = true;
                                       return o;
                                     }(),
                                     testing::folded("main;a 10\n"))
                                     .text);
  EXPECT_EQ(plain["functions"][0]["cpu_ns"], nullptr);
  EXPECT_EQ(plain["functions"][0]["total_cpu_ns"], nullptr);
  EXPECT_FALSE(plain["functions"][0].contains("alloc_calls"));
  const json& child =
      *std::find_if(d["processes"].begin(), d["processes"].end(), [](const json& p) { return p["pid"] == 2; });
  EXPECT_EQ(child["death_signal"], 9);
  EXPECT_EQ(child["complete"], false);
  EXPECT_EQ(child["hook_inner_ns"], 10.0);
  EXPECT_EQ(d["threads"][0]["offcpu"], "measured");
}

TEST(ThreadsView, ProcessTreeWithImagesSignalsAndSnapshots) {
  const Out r = run(view("threads"));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("\npid 1: ./counter 40\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\n  pid 1 image 1: /bin/echo done\n"), std::string::npos);
  EXPECT_NE(r.text.find("\n  pid 2 (ppid 1): ./counter 40; killed by signal 9 (SIGKILL); incomplete: data up to "
                        "last snapshot\n"),
            std::string::npos);
  EXPECT_NE(r.text.find("  101    worker  main > spawn"), std::string::npos) << "created thread indented";
  EXPECT_NE(r.text.find("off-cpu"), std::string::npos);
}

TEST(ThreadsView, FunctionSplitByThread) {
  ReportOptions o = view("threads");
  o.function = "^(main|E)$";
  const Out r = run(o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("all  2 threads"), std::string::npos) << r.text;  // main ran in 100 and 2
  EXPECT_NE(r.text.find("all  1 thread "), std::string::npos);            // E only in 101
  EXPECT_NE(r.text.find("\n100  counter        1"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("\n  2  child          1"), std::string::npos);
  o.function = "(";
  EXPECT_NE(run(o).text.find("invalid --function regex"), std::string::npos);
  ReportOptions flat = view("flat");
  flat.function = "main";
  EXPECT_NE(run(flat).text.find("--function applies to the threads view"), std::string::npos);
}

TEST(ProgramTree, GraftPutsThreadsUnderTheirCreationPath) {
  ReportOptions o = view("tree");
  o.query.merge = ThreadMerge::Graft;
  o.query.raw = true;
  const Out r = run(o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("grafted under their creators' call paths"), std::string::npos);
  EXPECT_NE(r.text.find("    spawn\n"), std::string::npos);
  EXPECT_NE(r.text.find("      worker\n"), std::string::npos) << r.text;  // main > spawn > worker
  o.json = true;
  const json d = json::parse(run(o).text);
  o.query.merge = ThreadMerge::Paths;
  EXPECT_EQ(d["summary"]["total_ns"], json::parse(run(o).text)["summary"]["total_ns"]) << "totals preserved";
  EXPECT_EQ(d["selection"]["threads"], "graft");
}

TEST(ProgramTree, MergeByStartRoutine) {
  ReportOptions o = view("tree");
  o.query.merge = ThreadMerge::StartRoutine;
  const Out r = run(o);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_NE(r.text.find("  [thread] worker\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("    worker\n"), std::string::npos);
  // Mutually exclusive and unknown modes are the CLI's to reject (tests/cli).
}

}  // namespace
}  // namespace callprof
