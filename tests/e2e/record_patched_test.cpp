// End-to-end: `record` of a program built to be attached (-fpatchable-function-entry=5, no
// hooks; docs/modes.md, "Programs built to be attached"). The runtime, preloaded, patches
// every entry's nops into a call as the program starts and sees each return by replacing
// the return address, as an attach does; the program is otherwise the plain build. Each
// test checks the truth its program was built with, with GCC and Clang: calls per
// function, edge and path; per-caller times; C++ exceptions, longjmp, signals, threads and
// forks going on as without callprof; filters and folding giving the nops back; and the
// refusals, each in one line.
#include <algorithm>
#include <functional>
#include <set>

#include "e2e_support.h"

namespace e2e {
namespace {

class RecordPatched : public E2ETest {
 protected:
  std::string patched(const std::string& source) { return build_plain(source, {"-fpatchable-function-entry=5"}); }
  // The recording's report; its stderr (not quiet) in `err`.
  Report record_loud(const std::string& binary, const std::vector<std::string>& args, std::string* out,
                     std::string* err, const std::vector<std::string>& options = {}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run(argv, dir());
    EXPECT_EQ(r.exit, exited(0)) << r.err;
    if (out) *out = r.out;
    if (err) *err = r.err;
    return report();
  }
  static void expect_no_unmatched_exits(const Report& r) {
    EXPECT_EQ(r.doc().at("metadata").at("exact").at("unmatched_exits").get<uint64_t>(), 0u);
  }
};
E2E_INSTANTIATE(RecordPatched);

TEST_P(RecordPatched, EveryCallIsCountedOnEveryFunctionEdgeAndPath) {
  std::string err;
  const Report r = record_loud(patched("calls.c"), {}, nullptr, &err);
  EXPECT_NE(err.find("exact mode: "), std::string::npos) << "chosen without --mode: " << err;
  EXPECT_NE(err.find("-fpatchable-function-entry nops"), std::string::npos) << err;
  // c's call of a is a tail call in the plain build (jmp a): a's entry finds c's return
  // address replaced already, and both returns are seen in turn, a's first.
  expect_calls_c_truth(r);
  expect_no_unmatched_exits(r);
  expect_report_invariants(r);
}

TEST_P(RecordPatched, EdgesCarryMeasuredTimes) {
  std::string out;
  const Report r = record_loud(patched("gprof_split.c"), {}, &out, nullptr);
  unsigned long long truth_bd = 0, truth_cd = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "truth b_d_ns=%llu c_d_ns=%llu", &truth_bd, &truth_cd), 2) << out;
  expect_edge_calls(r, {{"B", "D", 40}, {"C", "D", 40}});
  const uint64_t bd = u64(r.edge("B", "D"), "total_ns"), cd = u64(r.edge("C", "D"), "total_ns");
  const double split = 100.0 * double(bd) / double(bd + cd);
  const double truth_split = 100.0 * double(truth_bd) / double(truth_bd + truth_cd);
  measured(compiler_name() + ".record_patched.B_to_D_percent", split, "%");
  EXPECT_NEAR(split, truth_split, 2.0) << "callprof's B->D share vs the program's own measurement";
}

// Times are compensated with what a patched call costs (the runtime measures its own
// workload patched the same way), not with the compiler hooks' smaller cost: calls.c's leaf
// (`sink++`, 101,000 calls) keeps under 30 % of its raw self time (about 1 ns of 25 per
// call; with the hooks' costs it kept 12 ns). The best of up to five recordings: a run that
// the machine preempted inside the loop measures the preemption, not the compensation.
TEST_P(RecordPatched, TimesAreCompensatedWithThePatchedCallsCost) {
  const std::string binary = patched("calls.c");
  double best = 1.0;
  for (int run = 0; run < 5 && best >= 0.3; ++run) {
    const Report r = record_and_report(binary);
    EXPECT_EQ(r.processes().at(0).at("hook_compiler"), "patched");
    const Report raw = report({"--raw"});
    const double compensated = double(u64(*r.find_function("leaf"), "self_ns"));
    const double uncompensated = double(u64(*raw.find_function("leaf"), "self_ns"));
    best = std::min(best, compensated / std::max(1.0, uncompensated));
  }
  measured(compiler_name() + ".record_patched.leaf_compensated_share", best);
  EXPECT_LT(best, 0.3);
}

TEST_P(RecordPatched, ExceptionsUnwindThroughPatchedFrames) {
  require_cxx();
  std::string out;
  const Report r = record_loud(patched("exceptions.cpp"), {"frames"}, &out, nullptr);
  EXPECT_EQ(out, "caught 10\n");
  expect_function_calls(r, {{"catcher", 10}, {"f1", 10}, {"f2", 10}, {"f3", 10}, {"after_catch", 10}});
  for (const auto& path : r.paths_to("after_catch"))
    EXPECT_TRUE(path.size() >= 2 && same_function(path[path.size() - 2], "catcher")) << join_path(path);
  expect_report_invariants(r);
}

TEST_P(RecordPatched, LongjmpAndSignalHandlersGoOnAsWithoutCallprof) {
  for (const std::string mode : {"longjmp", "signal", "altstack"}) {
    SCOPED_TRACE(mode);
    std::string out;
    const Report r = record_loud(patched("longjmp.c"), {mode}, &out, nullptr);
    EXPECT_EQ(out, "jumped 10\n");
    expect_function_calls(r, {{"jumper", 10}, {"l1", 10}, {"l2", 10}, {"l3", 10}, {"after_jump", 10}});
    for (const auto& path : r.paths_to("after_jump"))
      EXPECT_TRUE(path.size() >= 2 && same_function(path[path.size() - 2], "jumper")) << join_path(path);
  }
  std::string out;
  const Report r = record_loud(patched("signals.c"), {}, &out, nullptr);
  unsigned long long ticks = 0, tiny = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "ticks %llu tiny %llu", &ticks, &tiny), 2) << out;
  expect_function_calls(r, {{"main", 1}, {"on_tick", ticks}, {"tiny", tiny}});
}

TEST_P(RecordPatched, ThreadsAndForksEachKeepTheirOwnCalls) {
  const Report threads = record_loud(patched("threads.c"), {}, nullptr, nullptr);
  ASSERT_EQ(threads.threads().size(), 5u);
  std::set<std::string> routines;
  for (const json& t : threads.threads())
    if (t.at("start_routine").is_string()) routines.insert(t.at("start_routine").get<std::string>());
  for (int k = 1; k <= 4; ++k) EXPECT_EQ(routines.count("worker" + std::to_string(k)), 1u) << k;
  expect_report_invariants(threads);
  const Report forked = record_loud(patched("fork.c"), {"exit"}, nullptr, nullptr);
  ASSERT_EQ(forked.processes().size(), 2u);
  expect_function_calls(forked, {{"before_fork", 5}, {"parent_work", 3}, {"child_work", 7}});
  expect_no_unmatched_exits(forked);
}

// Filtered-out and folded functions get their nops back at their next call (the same
// protocol as an attach's, threads running): five threads through them, the rest exact.
// A filtered-out function's entry gets its nops back; a folded one's calls its counting
// stub (its calls all counted, per function, under [unhooked calls]), or, with
// --uncounted-folds, gets its nops back too.
TEST_P(RecordPatched, ExcludedFunctionsGetTheirNopsBackFoldedOnesACountingStub) {
  setenv("CALLPROF_AUTO_FOLD_NS", "1500", 1);  // as HookRemoval: tiny folds even under load
  const Report r = record_with({"--auto-fold", "all", "--exclude", "^skipped$"}, patched("hook_removal.c"));
  const Report nops =
      record_with({"--auto-fold", "all", "--exclude", "^skipped$", "--uncounted-folds"}, patched("hook_removal.c"));
  unsetenv("CALLPROF_AUTO_FOLD_NS");
  for (const Report* each : {&r, &nops}) {
    expect_function_calls(*each, {{"work", 1000}, {"medium", 10000}});
    expect_absent(*each, {"skipped"});
    EXPECT_GE(u64(each->processes().at(0), "rewritten_sites"), 2u) << "tiny's and skipped's entries";
    expect_report_invariants(*each);
  }
  expect_function_calls(r, {{"tiny", 1000000}});
  EXPECT_EQ(u64(r.processes().at(0), "uncounted_sites"), 0u);
  EXPECT_TRUE(r.processes().at(0).at("counts_unhooked_calls").get<bool>());
  EXPECT_FALSE(nops.processes().at(0).at("counts_unhooked_calls").get<bool>());
  if (u64(r.processes().at(0), "counting_sites") > 0) {  // else its call stays, across two cache lines
    EXPECT_GT(r.leaf_calls({"tiny"}, "[unhooked calls]").under, 500000u);
  }
  EXPECT_LT(u64(nops.function("tiny"), "calls"), 500000u) << "not counted once its nops are back";
}

// A cancelled thread unwinds with libc's own copy of the unwinder, which would meet a
// replaced return address: --mode exact says so in one line. (Auto mode samples it instead;
// the program waits for a signal, so that is left to the mode's unit rules.)
// A patched entry sees its caller's return address as the hooks do: calls of one function
// from two lines of one caller are told apart (programs/call_lines.c: 600 and 1,000).
TEST_P(RecordPatched, CallsFromTwoLinesOfOneCallerAreCountedPerLine) {
  record_loud(build_plain("call_lines.c", {"-fpatchable-function-entry=5", "-g"}), {}, nullptr, nullptr);
  const RunResult r = run({E2E_CALLPROF, "annotate", "-i", "profile.callprof", "--json", "^caller$"}, dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  std::multiset<uint64_t> per_line;
  const json doc = json::parse(r.out);
  for (const json& l : doc.at("functions").at(0).at("lines"))
    for (const json& c : l.at("calls"))
      if (same_function(c.at("callee").get<std::string>(), "work")) per_line.insert(u64(c, "calls"));
  EXPECT_EQ(per_line, (std::multiset<uint64_t>{600, 1000})) << r.out;
  // A tail call returns to the caller's caller: its calls are from no known place.
  const RunResult t = run({E2E_CALLPROF, "annotate", "-i", "profile.callprof", "--json", "^tail_caller$"}, dir());
  ASSERT_EQ(t.exit, exited(0)) << t.err;
  const json tail = json::parse(t.out).at("functions").at(0);
  uint64_t placed = 0;
  for (const json& l : tail.at("lines"))
    for (const json& c : l.at("calls")) placed += u64(c, "calls");
  EXPECT_EQ(placed, 50u) << t.out;
  ASSERT_EQ(tail.at("unplaced_calls").size(), 1u) << t.out;
  EXPECT_EQ(u64(tail.at("unplaced_calls").at(0), "calls"), 50u) << t.out;
  const RunResult text = run({E2E_CALLPROF, "annotate", "-i", "profile.callprof", "^tail_caller$"}, dir());
  EXPECT_NE(text.out.find("from no known place"), std::string::npos) << text.out;
}

TEST_P(RecordPatched, AProgramThatCancelsThreadsIsRefusedInOneLine) {
  const std::string binary = patched("attach_cancel.c");
  const RunResult refused =
      run({E2E_CALLPROF, "record", "--mode", "exact", "-o", "profile.callprof", "--", binary}, dir());
  EXPECT_EQ(refused.exit, exited(2)) << refused.err;
  EXPECT_NE(refused.err.find("calls pthread_cancel"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
}

// A thread that runs before the runtime's start (started from .preinit_array by a bare
// clone): the entries stay nops, the program runs as without callprof, and the recording
// says why in one line.
TEST_P(RecordPatched, AThreadBeforeTheRuntimesStartLeavesTheNopsAndSaysWhy) {
  std::string out, err;
  const Report r = record_loud(patched("prestarted_thread.c"), {}, &out, &err);
  EXPECT_EQ(out, "1000000\n");
  EXPECT_NE(err.find("nops were not made calls (other threads were already running"), std::string::npos) << err;
  EXPECT_EQ(r.find_function("work"), nullptr) << "nothing recorded";
}

// Samples inside exact mode: a patched call goes through a stub page near the program (a
// jump to the runtime's entry trampoline), outside every module. A sample there is the
// profiler's own cost, counted apart like those in the runtime, never an [unknown] frame
// under the program's functions (20,000,000 calls of an empty function: 1-2 % of the
// samples were there).
TEST_P(RecordPatched, SamplesInTheStubsAreTheProfilersOwn) {
  if (const std::string why = kernel_probe_unavailable(dir()); !why.empty())
    GTEST_SKIP() << "samples inside exact mode need eBPF (the kernel probe): " << why;
  const Report r = record_with({"-F", "4999", "--no-auto-fold"}, patched("exact_samples.c"), {"hooks"});
  const json& sampling = r.doc().at("metadata").at("sampling");
  EXPECT_GE(double(u64(sampling, "runtime_samples")), 0.5 * double(u64(sampling, "samples"))) << sampling.dump();
  // Unknown code under a function of the program (at the root: the runtime's start-up reading
  // the clock in the vDSO, before any call).
  uint64_t under_calls = 0;
  const std::function<void(const json&, bool)> walk = [&](const json& nodes, bool nested) {
    for (const json& n : nodes) {
      if (nested && n.at("name") == "[unknown]") under_calls += u64(n, "total_samples");
      walk(n.at("children"), true);
    }
  };
  walk(r.doc().at("tree"), false);
  EXPECT_EQ(under_calls, 0u);
}

}  // namespace
}  // namespace e2e
