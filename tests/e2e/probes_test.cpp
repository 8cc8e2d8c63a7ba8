// End-to-end: probe mode (record --mode probe --probe REGEX, attach --mode probe) on
// programs built as Debian builds packages (-O2 -g, no hooks) whose calls are known by
// construction (programs/probed*.c, probed_exceptions.cpp): exact calls per function, per
// caller and per path; a shared library of ours probed by module; recursion; 4 threads;
// attach mid-run (text restored, no uprobe left); an exception through probed frames;
// durations; the program's output and exit status; the one-line errors. Needs writable
// tracefs uprobe events (root): without them every test here is skipped, saying so.
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

std::string writable_uprobe_events() {
  for (const char* f : {"/sys/kernel/tracing/uprobe_events", "/sys/kernel/debug/tracing/uprobe_events"})
    if (access(f, W_OK) == 0) return f;
  return "";
}

// A fresh boot may have no tracefs mounted; callprof then mounts it (as perf does), and so
// does the suite, so that the tests below run on such a machine instead of skipping.
std::string mounted_uprobe_events() {
  if (writable_uprobe_events().empty()) mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr);
  return writable_uprobe_events();
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A hit lost in the ring (PERF_RECORD_LOST, counted per thread) makes exact counts
// impossible: said first, so a count that is off names its cause.
void expect_no_lost_hits(const Report& r) {
  for (const json& t : r.threads())
    EXPECT_EQ(u64(t, "lost_events"), 0u) << "hits lost in the ring buffer by thread " << u64(t, "tid")
                                         << ": the counts below cannot be exact";
}

class Probes : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (IsSkipped()) return;
    if (mounted_uprobe_events().empty())
      GTEST_SKIP() << "probe mode needs writable tracefs uprobe events (/sys/kernel/tracing/uprobe_events: "
                      "root and CONFIG_UPROBE_EVENTS); not available here";
  }
  Report probed(const std::string& binary, const std::vector<std::string>& probes,
                const std::vector<std::string>& extra = {}, const std::vector<std::string>& args = {}) {
    // Every probe stays: these tests check exact counts, on loops that would exceed the
    // default budget (--probe-budget 10) on a loaded machine. The budget has its own test.
    std::vector<std::string> options = {"--mode", "probe", "--probe-budget", "0"};
    for (const std::string& p : probes) options.insert(options.end(), {"--probe", p});
    options.insert(options.end(), extra.begin(), extra.end());
    Report r = record_with(options, binary, args);
    EXPECT_EQ(r.doc().at("metadata").at("mode"), "probe");
    // Self times lose the measured cost of the probes' hits, when it could be measured.
    EXPECT_EQ(r.doc().at("compensated").get<bool>(),
              r.doc().at("metadata").at("probes").at("cost_per_hit_ns").get<uint64_t>() > 0);
    expect_no_lost_hits(r);
    return r;
  }
};
E2E_INSTANTIATE(Probes);

const json& probe_facts(const Report& r) { return r.doc().at("metadata").at("probes"); }

bool ends_with(const std::vector<std::string>& path, const std::vector<std::string>& suffix) {
  if (path.size() < suffix.size()) return false;
  return same_path(std::vector<std::string>(path.end() - long(suffix.size()), path.end()), suffix);
}

// Calls of every tree node whose path (from the top) ends in `suffix`: the probed paths
// start with the unwound stack (_start, __libc_start_main...), which these tests ignore.
uint64_t calls_at_suffix(const json& nodes, const std::vector<std::string>& suffix, std::vector<std::string>& path) {
  uint64_t n = 0;
  for (const json& node : nodes) {
    path.push_back(node.at("name").get<std::string>());
    if (ends_with(path, suffix)) n += u64(node, "calls");
    n += calls_at_suffix(node.at("children"), suffix, path);
    path.pop_back();
  }
  return n;
}
uint64_t calls_at_suffix(const Report& r, const std::vector<std::string>& suffix) {
  std::vector<std::string> path;
  return calls_at_suffix(r.doc().at("tree"), suffix, path);
}
void expect_suffix_calls(const Report& r, const std::vector<CallsAt>& expected) {
  for (const CallsAt& e : expected) EXPECT_EQ(calls_at_suffix(r, e.path), e.calls) << "... > " << join_path(e.path);
}

// The pairing's books balance: every entry closed at a probed exit, by a hit above it
// (unwound), at the end (unfinished) or when its probes were removed (cut); every exit
// closed a frame or was unmatched.
void expect_hits_balance(const json& facts) {
  const uint64_t entries = u64(facts, "entries"), unwound = u64(facts, "unwound"),
                 unfinished = u64(facts, "unfinished"), cut = u64(facts, "cut");
  ASSERT_GE(entries, unwound + unfinished + cut) << facts.dump();
  EXPECT_EQ(u64(facts, "exits"), entries - unwound - unfinished - cut + u64(facts, "unmatched_exits")) << facts.dump();
}

TEST_P(Probes, CallsPerFunctionCallerAndPathAreExact) {
  const Report r = probed(build_plain("probed.c"), {"^(leaf|outer|other|via_tail|tail_target)$"});
  expect_function_calls(
      r, {{"leaf", 59}, {"outer", 3}, {"other", 2}, {"via_tail", 4}, {"tail_target", 4}, {"hidden", 0}, {"main", 0}});
  expect_edge_calls(r, {{"main", "outer", 3},
                        {"main", "other", 2},
                        {"main", "leaf", 7},
                        {"outer", "leaf", 30},
                        {"other", "leaf", 10},
                        {"hidden", "leaf", 12},  // an unprobed frame between probed ones, by unwinding
                        {"main", "via_tail", 4},
                        // via_tail ends in `jmp tail_target`: its frame is gone when tail_target runs.
                        {"main", "tail_target", 4}});
  expect_suffix_calls(r, {{{"main", "outer", "leaf"}, 30},
                          {{"main", "outer", "hidden", "leaf"}, 12},
                          {{"main", "other", "leaf"}, 10},
                          {{"main", "leaf"}, 7},
                          {{"main", "tail_target"}, 4}});
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "probed"), 5u);
  // An entry, and exits or a return probe, per function; via_tail (`add; jmp tail_target`)
  // may have one probe, on its tail jump, that is both.
  EXPECT_GE(u64(facts, "sites"), 9u) << "an entry and at least one exit per function";
  EXPECT_EQ(u64(facts, "refused_sites"), 0u);
  EXPECT_EQ(u64(facts, "entries"), 72u);
  // When via_tail's entry probe sits on its tail jump, its 4 hits are entries only.
  const uint64_t exits = u64(facts, "exits");
  EXPECT_TRUE(exits == 72u || (exits == 68u && u64(facts, "sites") == 9u)) << facts.dump();
  EXPECT_EQ(u64(facts, "unwound"), 0u);
  EXPECT_EQ(u64(facts, "unfinished"), 0u);
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u);
  EXPECT_EQ(u64(facts, "estimated_distortion_ns"), (72 + exits) * u64(facts, "cost_per_hit_ns"));
  expect_report_invariants(r);
  // The text header says what was probed and what it cost.
  RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof"}, dir());
  EXPECT_EQ(text.exit, exited(0)) << text.err;
  EXPECT_NE(text.out.find("# probes:   5 functions"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("72 entries, " + std::to_string(exits) + " exits"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("# cost:"), std::string::npos) << text.out;
}

// A function whose first instruction is its tail jump (`jmp tail_target`): its entry and
// its exit are one address, so both probes fire at once; the call must pair like any other
// (entry first), not as an unmatched exit followed by a frame left without return.
TEST_P(Probes, AFunctionThatIsOnlyATailJumpPairsItsEntryAndExit) {
  const Report r = probed(build_plain("probed.c"), {"^(jump_only|tail_target)$"}, {}, {"jump"});
  expect_function_calls(r, {{"jump_only", 6}, {"tail_target", 6}});
  expect_edge_calls(r, {{"main", "jump_only", 6}, {"main", "tail_target", 6}});
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "entries"), 12u);
  EXPECT_EQ(u64(facts, "unwound"), 0u) << facts.dump();
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u) << facts.dump();
  // jump_only's entry is its exit (one site, one hit): only tail_target's returns are exits.
  EXPECT_EQ(u64(facts, "exits"), 6u) << facts.dump();
}

TEST_P(Probes, ASharedLibraryOfOursIsProbedByModuleAlone) {
  const std::string lib = (dir() / "libprobed_lib.so").string();
  RunResult built = run({toolchain(GetParam()).c, "-O2", "-g", "-shared", "-fPIC", "-I", E2E_PROGRAMS,
                         std::string(E2E_PROGRAMS) + "/probed_lib.c", "-o", lib},
                        dir());
  ASSERT_EQ(built.exit, exited(0)) << built.err;
  // build_plain names its binary after the flags: this one is linked by hand.
  const std::string binary = (dir() / "probed_lib_main").string();
  built =
      run({toolchain(GetParam()).c, "-O2", "-g", "-I", E2E_PROGRAMS, std::string(E2E_PROGRAMS) + "/probed_lib_main.c",
           "-Wl,--no-as-needed", lib, "-Wl,-rpath," + dir().string(), "-o", binary},
          dir());
  ASSERT_EQ(built.exit, exited(0)) << built.err;
  // ^lib_ also matches the executable's lib_own: the module pattern leaves it out.
  const Report r = probed(binary, {"^lib_"}, {"--probe-module", "libprobed_lib"});
  expect_function_calls(r, {{"lib_inner", 23}, {"lib_outer", 5}, {"lib_own", 0}});
  expect_edge_calls(r, {{"main", "lib_outer", 5}, {"lib_outer", "lib_inner", 15}, {"lib_own", "lib_inner", 8}});
  expect_suffix_calls(r, {{{"main", "lib_outer", "lib_inner"}, 15}, {{"main", "lib_own", "lib_inner"}, 8}});
  const json& inner = r.function("lib_inner");
  EXPECT_NE(inner.at("module").get<std::string>().find("libprobed_lib.so"), std::string::npos) << inner.dump();
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "probed"), 2u) << "lib_inner and lib_outer, not the executable's lib_own";
  EXPECT_EQ(facts.at("modules"), "libprobed_lib");
  EXPECT_EQ(u64(facts, "entries"), 28u);
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u);
  expect_report_invariants(r);
}

TEST_P(Probes, RecursionNestsCallInCallWithExactCounts) {
  const Report r = probed(build_plain("probed_recursion.c"), {"^(fib|down)$"});
  expect_function_calls(r, {{"fib", 1973}, {"down", 150}});
  // fib(15): 2^d calls at depth d while every call of the level above still recurses.
  std::vector<std::string> path = {"main"};
  for (uint64_t d = 0; d <= 7; ++d) {
    path.push_back("fib");
    EXPECT_EQ(calls_at_suffix(r, path), uint64_t(1) << d) << "fib at depth " << d;
  }
  // down(49) x3: one path 50 calls deep, every level 3 calls.
  path = {"main"};
  for (int d = 0; d < 50; ++d) path.push_back("down");
  EXPECT_EQ(calls_at_suffix(r, path), 3u) << "the innermost down, 50 deep";
  path.push_back("down");
  EXPECT_EQ(calls_at_suffix(r, path), 0u) << "no deeper than 50";
  EXPECT_EQ(u64(r.function("fib"), "recursive_calls"), 1972u) << "every call but the outermost";
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "entries"), 2123u);
  EXPECT_EQ(u64(facts, "exits"), 2123u);
  EXPECT_EQ(u64(facts, "unwound"), 0u);
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u);
  expect_report_invariants(r);
}

TEST_P(Probes, FourThreadsHaveTheirOwnExactCounts) {
  const Report r = probed(build_plain("probed_threads.c"), {"^tick$"});
  expect_function_calls(r, {{"tick", 10005}});
  expect_edge_calls(r, {{"worker", "tick", 10000}, {"main", "tick", 5}});
  const uint64_t tick = u64(r.function("tick"), "id");
  std::vector<uint64_t> per_thread;
  for (const json& t : r.doc().at("by_thread"))
    for (const json& f : t.at("functions"))
      if (u64(f, "id") == tick && u64(f, "calls") > 0) per_thread.push_back(u64(f, "calls"));
  std::sort(per_thread.begin(), per_thread.end());
  EXPECT_EQ(per_thread, (std::vector<uint64_t>{5, 1000, 2000, 3000, 4000}));
  EXPECT_EQ(r.threads().size(), 5u);
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "entries"), 10005u);
  EXPECT_EQ(u64(facts, "exits"), 10005u);
  EXPECT_EQ(u64(facts, "unwound") + u64(facts, "unfinished") + u64(facts, "unmatched_exits"), 0u) << facts.dump();
  expect_report_invariants(r);
}

// A C++ exception through probed frames: no return probe on them (a uretprobe would make
// the unwinder call std::terminate), so the program behaves as without callprof; the frames
// it skips are closed by the next hit above them and counted as unwound. The leaf scale,
// called by thrower before it throws, has a return probe: nothing unwinds through a leaf.
TEST_P(Probes, AnExceptionThroughProbedFramesChangesNothingAndIsCountedAsUnwound) {
  require_cxx();
  if (IsSkipped()) return;
  const std::string binary = build_plain("probed_exceptions.cpp");
  const RunResult alone = run({binary}, dir());
  ASSERT_EQ(alone.exit, exited(0)) << alone.err;
  ASSERT_EQ(alone.out, "caught 40 returned 10\n");
  const RunResult recorded =
      run({E2E_CALLPROF, "record", "-q", "-o", "profile.callprof", "--mode", "probe", "--probe-budget", "0", "--probe",
           "^thrower", "--probe", "^middle", "--probe", "^catcher", "--probe", "^scale", "--", binary},
          dir());
  EXPECT_EQ(recorded.exit, exited(0)) << recorded.err;
  EXPECT_EQ(recorded.out, alone.out);
  EXPECT_EQ(recorded.err, "");
  const Report r = report();
  expect_no_lost_hits(r);
  expect_function_calls(r, {{"catcher", 50}, {"middle", 50}, {"thrower", 50}, {"scale", 50}});
  expect_suffix_calls(
      r, {{{"main", "catcher", "middle", "thrower"}, 50}, {{"main", "catcher", "middle", "thrower", "scale"}, 50}});
  const json& facts = probe_facts(r);
  EXPECT_EQ(u64(facts, "entries"), 200u);
  EXPECT_EQ(u64(facts, "unwound"), 80u) << "40 exceptions, each past thrower and middle";
  EXPECT_EQ(u64(facts, "unfinished"), 0u);
  // GCC moves the throw to thrower's .cold part: the jump there is not an exit.
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u);
  expect_hits_balance(facts);
  expect_report_invariants(r);
}

TEST_P(Probes, DurationsOfSleepingCallsAreMeasured) {
  const Report r = probed(build_plain("probed.c"), {"^napper$"}, {}, {"nap"});
  const json& napper = r.function("napper");
  EXPECT_EQ(u64(napper, "calls"), 10u);
  measured("napper_total_ms", ms(u64(napper, "total_ns")));
  EXPECT_GE(u64(napper, "total_ns"), 18'000'000u) << "10 sleeps of 2 ms";
  EXPECT_LE(u64(napper, "total_ns"), 60'000'000u) << "10 sleeps of 2 ms";
  const auto paths = r.paths_to("napper");
  ASSERT_FALSE(paths.empty());
  const json& node = r.node(paths.front());
  EXPECT_GE(u64(node, "min_self_ns"), 2'000'000u) << "a sleep of 2 ms never ends sooner";
  EXPECT_LE(u64(node, "min_self_ns"), u64(node, "max_self_ns"));
}

// Probes, samples and system calls in one recording make one tree: the sleeps hang under
// the probed napper that made them and the samples under the probed spinner, on the same
// nodes as the probes' calls (one node per function and path, whatever source met it).
TEST_P(Probes, ProbesSamplesAndSystemCallsMakeOneTree) {
  const Report r = probed(build_plain("probed.c"), {"^(napper|spinner)$"},
                          {"-F", "999", "--syscalls", "nanosleep,clock_nanosleep"}, {"napspin"});
  ASSERT_EQ(r.threads().size(), 1u);
  EXPECT_EQ(u64(r.function("napper"), "calls"), 10u);
  EXPECT_EQ(u64(r.function("spinner"), "calls"), 1u);
  const auto [sleeps, sleeps_under_napper] =
      r.leaf_calls({"[syscall] nanosleep", "[syscall] clock_nanosleep"}, "napper");
  EXPECT_EQ(sleeps_under_napper, 10u) << "each nap's sleep under the napper call that made it";
  EXPECT_EQ(sleeps, 10u);
  const auto spinners = r.paths_to("spinner");
  ASSERT_EQ(spinners.size(), 1u) << "one node: the probe's call and the samples in it";
  const json& spinner = r.node(spinners.front());
  EXPECT_EQ(u64(spinner, "calls"), 1u);
  const json& s = r.doc().at("metadata").at("sampling");
  measured("spinner_share_of_samples", double(u64(spinner, "total_samples")) / double(u64(s, "samples")));
  EXPECT_GE(u64(spinner, "total_samples") * 2, u64(s, "samples")) << "the spin is most of the CPU time";
  // A sample whose stack the unwinder could not finish (one taken while the entry's
  // instruction is stepped out of line, in the [uprobes] page) hangs under [truncated].
  size_t whole = 0;
  for (const auto& path : r.paths_to("napper")) whole += path.front() != "[truncated]";
  EXPECT_EQ(whole, 1u) << "one node for napper's calls, its sleeps and its samples";
  expect_report_invariants(r);
}

// The entry stacks of -O2 code without frame pointers are walked by the CFI's frame rules
// up to _start, whose CFI marks it outermost: libdwfl's full unwinder (memoized by the
// stack's bytes, which a loop's counters change at every call) is left for the rare rule
// the walk cannot read. Before _start was known as outermost, every hit went to libdwfl.
TEST_P(Probes, EntryStacksAreWalkedByFrameRulesToTheOutermostFrame) {
  const std::string binary = build_plain("probed.c");
  const RunResult r = run({E2E_CALLPROF, "record", "-o", "profile.callprof", "--mode", "probe", "--probe",
                           "^(leaf|outer|other)$", "--", binary},
                          dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  uint64_t walked = 0, unwound = 0;
  const size_t at = r.err.find("walked by frame rules");
  ASSERT_NE(at, std::string::npos) << r.err;
  const size_t open = r.err.rfind('(', at);
  ASSERT_EQ(std::sscanf(r.err.c_str() + open, "(%lu walked by frame rules, %lu unwound by libdwfl)", &walked, &unwound),
            2)
      << r.err;
  EXPECT_EQ(walked + unwound, 3u + 2 + 59) << "one stack per entry hit: outer, other and leaf";
  EXPECT_LE(unwound, 5u) << r.err;
  expect_suffix_calls(report(),
                      {{{"main", "outer", "leaf"}, 30}, {{"main", "other", "leaf"}, 10}, {{"main", "leaf"}, 7}});
}

// More matches than --probe-limit: the first ones found are probed, the others not, and
// the recording says so (the warning is checked without -q).
TEST_P(Probes, ALimitCapsTheProbedFunctionsAndSaysSo) {
  const std::string binary = build_plain("probed.c");
  const RunResult run_ = run({E2E_CALLPROF, "record", "-o", "profile.callprof", "--mode", "probe", "--probe",
                              "^(leaf|outer|other)$", "--probe-limit", "1", "--", binary},
                             dir());
  ASSERT_EQ(run_.exit, exited(0)) << run_.err;
  EXPECT_NE(run_.err.find("3 functions match --probe; probing the first 1 (--probe-limit"), std::string::npos)
      << run_.err;
  const Report r = report();
  EXPECT_EQ(u64(probe_facts(r), "probed"), 1u);
  size_t counted = 0;
  for (const json& f : r.doc().at("functions")) counted += u64(f, "calls") > 0;
  EXPECT_EQ(counted, 1u) << "only the probed function has calls";
}

TEST_P(Probes, TheProgramsOutputAndExitStatusPassThrough) {
  const std::string binary = build_plain("probed.c");
  const RunResult alone = run({binary, "exit3"}, dir());
  ASSERT_EQ(alone.exit, exited(3));
  const RunResult r = run({E2E_CALLPROF, "record", "-q", "-o", "profile.callprof", "--mode", "probe", "--probe",
                           "^leaf$", "--", binary, "exit3"},
                          dir());
  EXPECT_EQ(r.exit, exited(3)) << r.err;
  EXPECT_EQ(r.out, alone.out);
  EXPECT_EQ(r.err, "");
  expect_function_calls(report(), {{"leaf", 1}});
}

void expect_one_line_error(const RunResult& r, const std::string& mentions) {
  EXPECT_NE(r.exit, exited(0));
  EXPECT_FALSE(r.exit.signaled) << r.exit.describe();
  EXPECT_EQ(r.err.rfind("callprof: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
}

TEST_P(Probes, BadRequestsAreOneLineErrorsAndTheProgramDoesNotRun) {
  const std::string binary = build_plain("probed.c");
  const auto recorded = [&](std::vector<std::string> options) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary, "exit3"});
    const RunResult r = run(argv, dir());
    EXPECT_EQ(r.out, "") << "the program must not run";
    EXPECT_NE(r.exit, exited(3)) << "the program must not run";
    return r;
  };
  {
    SCOPED_TRACE("a --probe that matches nothing");
    expect_one_line_error(recorded({"--mode", "probe", "--probe", "^no_such_function_here$"}), "matches no function");
  }
  {
    SCOPED_TRACE("--mode probe without --probe");
    expect_one_line_error(recorded({"--mode", "probe"}), "--probe");
  }
  {
    SCOPED_TRACE("a --probe-module that matches no module");
    expect_one_line_error(recorded({"--mode", "probe", "--probe", "^leaf$", "--probe-module", "no_such_module"}),
                          "--probe-module");
  }
  {
    SCOPED_TRACE("a --probe that is no regular expression");
    expect_one_line_error(recorded({"--mode", "probe", "--probe", "leaf("}), "--probe");
  }
  {
    SCOPED_TRACE("a --probe-budget that is no percentage");
    expect_one_line_error(recorded({"--mode", "probe", "--probe", "^leaf$", "--probe-budget", "-5"}), "--probe-budget");
  }
  {
    SCOPED_TRACE("--probe-budget outside probe mode");
    expect_one_line_error(recorded({"--mode", "sample", "--probe-budget", "5"}), "--probe-budget");
  }
  EXPECT_FALSE(fs::exists(dir() / "profile.callprof")) << "no profile for a recording that did not happen";
}

// Calls of `name` in the subtree of the top-level node `root` of the report's tree.
uint64_t calls_under(const json& nodes, const std::string& name) {
  uint64_t n = 0;
  for (const json& node : nodes)
    n += (node.at("name") == name ? u64(node, "calls") : 0) + calls_under(node.at("children"), name);
  return n;
}
uint64_t calls_under_root(const Report& r, const std::string& root, const std::string& name) {
  for (const json& top : r.doc().at("tree"))
    if (top.at("name") == root) return calls_under(top.at("children"), name);
  return 0;
}

// A function called 2 million times (each call's probes cost tens of µs: ~40 s of traps
// here) is stopped once its cost is seen, with a warning while the program runs; the rest
// is probed to the end with exact counts. Its calls until then were shorter than their
// probes' cost: self time not measurable, said so. A call whose entry stack cannot be
// unwound to the program's start hangs under [truncated].
TEST_P(Probes, AFunctionPastTheBudgetIsNoLongerProbedAndTheRestStaysExact) {
  const std::string binary = build_plain("probed_budget.c");
  const auto start = std::chrono::steady_clock::now();
  const RunResult rec = run({E2E_CALLPROF, "record", "-o", "profile.callprof", "--mode", "probe", "--probe",
                             "^(hot|slow|far)$", "--", binary},
                            dir(), "", 120);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  EXPECT_EQ(rec.out, "done\n") << "the program's output passes through";
  EXPECT_NE(rec.err.find("probe budget: the probes of hot added"), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find("no longer probed"), std::string::npos) << rec.err;
  EXPECT_EQ(rec.err.find("the probes of slow"), std::string::npos) << rec.err;
  EXPECT_LT(seconds, 30.0) << "every probe kept would take ~40 s of traps or more";
  const Report r = report();
  expect_no_lost_hits(r);
  const json& facts = probe_facts(r);
  EXPECT_EQ(facts.at("budget_percent").get<double>(), 10.0);
  ASSERT_EQ(facts.at("stopped").size(), 1u) << facts.dump();
  const json& stop = facts.at("stopped")[0];
  EXPECT_EQ(stop.at("function"), "hot");
  EXPECT_GT(stop.at("added_percent").get<double>(), 10.0);
  EXPECT_GT(u64(stop, "calls"), 0u);
  EXPECT_LT(u64(stop, "calls"), 2'000'000u);
  EXPECT_EQ(u64(stop, "calls"), u64(r.function("hot"), "calls")) << "the calls counted are the ones until the stop";
  EXPECT_LE(u64(facts, "cut"), 1u) << "at most the one call running at the stop";
  expect_hits_balance(facts);
  EXPECT_EQ(u64(facts, "unmatched_exits"), 0u) << "the hits of a stopped function's probes are left out together";
  expect_function_calls(r, {{"slow", 20}, {"far", 3}});
  // far's entry stack ends in far_caller's 16 KiB frame, past the 512 bytes copied.
  EXPECT_EQ(calls_under_root(r, "[truncated]", "far"), 3u) << r.doc().at("tree").dump();
  EXPECT_EQ(u64(facts, "truncated_calls"), 3u);
  EXPECT_EQ(calls_under_root(r, "[truncated]", "slow"), 0u) << "slow's stack reaches the program's start";
  if (r.doc().at("compensated").get<bool>()) {
    // hot is one instruction: its calls are all probe cost; slow's are not. (far's three
    // calls, as small, may or may not be: their first touches of cold code can outweigh it.)
    const std::vector<std::string> unmeasurable = facts.at("unmeasurable");
    const auto has = [&](const char* f) {
      return std::find(unmeasurable.begin(), unmeasurable.end(), f) != unmeasurable.end();
    };
    EXPECT_TRUE(has("hot")) << facts.dump();
    EXPECT_FALSE(has("slow")) << facts.dump();
    EXPECT_GE(u64(facts, "unmeasurable_calls"), u64(r.function("hot"), "calls"));
    EXPECT_LE(u64(facts, "unmeasurable_calls"), u64(r.function("hot"), "calls") + 3);
    EXPECT_EQ(u64(r.function("hot"), "self_ns"), 0u) << "not a residue of the probes' cost";
    const uint64_t slow_self = u64(r.function("slow"), "self_ns");
    EXPECT_GT(slow_self, 20 * 4'000'000u) << "slow's 5 ms per call are measured";
    EXPECT_LT(slow_self, 20 * 50'000'000u);
  } else {
    std::cout << "[ note     ] the probes' cost could not be measured here (busy machine): not compensated, so "
                 "what is not measurable is not checked\n";
  }
  RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--wide"}, dir());
  EXPECT_EQ(text.exit, exited(0)) << text.err;
  EXPECT_NE(text.out.find("# budget:   probes removed past --probe-budget 10 %: hot at"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("# stacks:   3 calls"), std::string::npos) << text.out;
  if (r.doc().at("compensated").get<bool>()) EXPECT_NE(text.out.find("# limits:"), std::string::npos) << text.out;
}

// --- attach ---------------------------------------------------------------------------

struct Spawned {
  pid_t pid = -1;
};

// Starts argv with stdout and stderr in files of `dir` (stdin: /dev/null).
Spawned spawn(const std::vector<std::string>& argv, const fs::path& dir, const std::string& name) {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int out = open((dir / (name + ".out")).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open((dir / (name + ".err")).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(dir.c_str()) != 0) _exit(126);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return {pid};
}

// The bytes of the target's mappings of `binary` that are executable, as the process sees
// them (/proc/PID/mem): a uprobe is an int3 written into the process's copy of the page.
std::string executable_text(pid_t pid, const std::string& binary) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  const std::string canonical = fs::canonical(binary).string();
  std::string line, text;
  int mem = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
  if (mem < 0) throw std::runtime_error("cannot open /proc/PID/mem");
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (path != canonical || perms.find('x') == std::string::npos) continue;
    const uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    const uint64_t end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    std::string bytes(end - start, '\0');
    if (pread(mem, bytes.data(), bytes.size(), off_t(start)) != ssize_t(bytes.size())) {
      close(mem);
      throw std::runtime_error("cannot read the target's text");
    }
    text += bytes;
  }
  close(mem);
  if (text.empty()) throw std::runtime_error("no executable mapping of " + canonical + " in the target");
  return text;
}

bool has_group_of(pid_t callprof) {
  const std::string group = "callprof_" + std::to_string(callprof) + "/";
  return read_text_file(writable_uprobe_events()).find(group) != std::string::npos;
}

// How many copies of the eBPF system-call probe (--syscalls) are loaded: bpftool lists
// programs by name. -1 when bpftool cannot run (the caller then cannot check).
int loaded_syscall_probes() {
  FILE* p = popen("bpftool prog list 2>/dev/null", "r");
  if (!p) return -1;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;  // no bpftool, or it failed
  int count = 0;
  for (size_t at = out.find("on_sys_enter"); at != std::string::npos; at = out.find("on_sys_enter", at + 1)) ++count;
  return count;
}

TEST_P(Probes, AttachCountsFromThenOnAndLeavesTheTargetAsItWas) {
  const std::string binary = build_plain("probed_loop.c");
  const Spawned target = spawn({binary}, dir(), "target");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::string before = executable_text(target.pid, binary);
  const int bpf_before = loaded_syscall_probes();
  // Exact counts of inner (3 calls a millisecond: ~18 % added time): no budget.
  const Spawned callprof = spawn(
      {E2E_CALLPROF, "attach", "-q", "-o", "profile.callprof", "--mode", "probe", "--probe-budget", "0", "--probe",
       "^(cycle|inner)$", "--syscalls", "nanosleep,clock_nanosleep", "-d", "1", std::to_string(target.pid)},
      dir(), "callprof");
  // While attached, the probes are visible: the check below can fail.
  bool seen_probes = false, seen_group = false, seen_bpf = false;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(callprof.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(callprof.pid, SIGKILL);
      waitpid(callprof.pid, &status, 0);
      kill(target.pid, SIGKILL);
      waitpid(target.pid, nullptr, 0);
      FAIL() << "callprof attach -d 1 did not end within 60 s";
    }
    seen_group = seen_group || has_group_of(callprof.pid);
    seen_bpf = seen_bpf || loaded_syscall_probes() > bpf_before;
    if (!seen_probes) seen_probes = executable_text(target.pid, binary) != before;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "callprof attach: status " << status << "\n"
                                                             << read_text_file(dir() / "callprof.err");
  EXPECT_EQ(read_text_file(dir() / "callprof.err"), "");
  EXPECT_TRUE(seen_group) << "the uprobes were defined in group callprof_" << callprof.pid;
  EXPECT_TRUE(seen_probes) << "the target's text carried breakpoints while attached";
  EXPECT_FALSE(has_group_of(callprof.pid)) << "no uprobe of ours remains:\n"
                                           << read_text_file(writable_uprobe_events());
  if (bpf_before >= 0) {
    EXPECT_TRUE(seen_bpf) << "the system-call probe was loaded while attached";
    // The kernel frees a program whose last descriptor closed after an RCU grace period.
    int after = loaded_syscall_probes();
    for (int i = 0; i < 150 && after > bpf_before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      after = loaded_syscall_probes();
    }
    EXPECT_EQ(after, bpf_before) << "no eBPF program of ours stays loaded after detach (waited 3 s)";
  } else {
    std::cout << "[ note     ] bpftool lists no programs here: the eBPF unload is not checked\n";
  }
  EXPECT_EQ(waitpid(target.pid, &status, WNOHANG), 0) << "the target still runs after detach";
  EXPECT_TRUE(executable_text(target.pid, binary) == before) << "the target's text is as before the attach";
  kill(target.pid, SIGKILL);
  waitpid(target.pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "killed by us, not before";

  const Report r = report();
  EXPECT_EQ(r.doc().at("metadata").at("mode"), "probe");
  expect_no_lost_hits(r);
  const uint64_t cycles = u64(r.function("cycle"), "calls"), inners = u64(r.function("inner"), "calls");
  measured("attached_cycles", double(cycles));
  EXPECT_GT(cycles, 10u) << "1 s of a loop of ~1 ms per cycle";
  // A cycle cut by the attach or the end counts its inner calls on one side only.
  EXPECT_LE(inners, 3 * cycles + 3);
  EXPECT_GE(inners + 3, 3 * cycles);
  // Every call on its true caller, nothing else counted.
  expect_edge_calls(r, {{"main", "cycle", cycles}, {"cycle", "inner", inners}});
  for (const json& f : r.doc().at("functions")) {
    if (u64(f, "calls") == 0 || f.at("kind") == "syscall") continue;  // the traced sleeps are leaves of their own
    const std::string name = f.at("name").get<std::string>();
    EXPECT_TRUE(same_function(name, "cycle") || same_function(name, "inner")) << f.dump();
  }
  expect_hits_balance(probe_facts(r));
  EXPECT_LE(u64(probe_facts(r), "unmatched_exits"), 2u) << "only exits of calls entered before the attach";
  // Probes and system calls in one recording: the sleeps hang under the probed cycle.
  EXPECT_GE(u64(r.doc().at("metadata").at("syscalls"), "events") + 2, cycles) << "one sleep per cycle";
  expect_report_invariants(r);
}

}  // namespace
}  // namespace e2e
