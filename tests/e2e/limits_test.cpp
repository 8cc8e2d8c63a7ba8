// End-to-end: filters and limits, bounded memory by pruning, and getting data out of a
// program that is killed or crashes (snapshots, checkpoints, fatal signals).
#include <signal.h>

#include <cstdio>

#include "e2e_support.h"

namespace e2e {
namespace {

size_t tree_nodes(const json& nodes) {
  size_t n = 0;
  for (const json& node : nodes) n += 1 + tree_nodes(node.at("children"));
  return n;
}

class Filters : public E2ETest {
 protected:
  // Records `binary` with record options; the program must exit 0.
  Report record_with(const std::string& binary, const std::vector<std::string>& options) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    RunResult r = run(argv, dir());
    EXPECT_EQ(r.exit, exited(0)) << r.err;
    EXPECT_EQ(r.err, "");
    return report();
  }
};
class Pruning : public Filters {};
class Limits : public E2ETest {};
class Snapshots : public E2ETest {
 protected:
  // Records snapshots.c in `mode` with record options; returns record's result.
  RunResult record_snapshots(const std::string& binary, const std::string& mode,
                             const std::vector<std::string>& options) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary, mode});
    return run(argv, dir());
  }
};
E2E_INSTANTIATE(Filters);
E2E_INSTANTIATE(Pruning);
E2E_INSTANTIATE(Limits);
E2E_INSTANTIATE(Snapshots);

TEST_P(Filters, ExcludedFunctionsVanishAndTheirCalleesMoveUp) {
  const Report r = record_with(build("filters.c"), {"--exclude", "^helper"});
  expect_absent(r, {"helper_step"});
  expect_path_calls(r, {{{"main", "outer", "inner"}, 100}, {{"main", "deep1", "deep2", "deep3", "deep4"}, 100}});
  expect_function_calls(r, {{"outer", 100}, {"inner", 100}, {"quick", 100}, {"slow", 10}});
  // helper_step's hook calls became nops after its first calls (docs/modes.md, "Removing hooks").
  EXPECT_LT(u64(r.function("outer"), "excluded_calls"), 100u);
  EXPECT_GE(u64(r.processes().at(0), "rewritten_sites"), 2u);
  expect_report_invariants(r);
  // With them kept, each excluded call is counted where it was made.
  const Report kept = record_with(build("filters.c"), {"--exclude", "^helper", "--keep-hooks"});
  expect_absent(kept, {"helper_step"});
  expect_path_calls(kept, {{{"main", "outer", "inner"}, 100}});
  EXPECT_EQ(u64(kept.function("outer"), "excluded_calls"), 100u)
      << "the excluded calls are counted where they were made";
}

TEST_P(Filters, IncludeKeepsOnlyMatchingFunctions) {
  const Report r = record_with(build("filters.c"), {"--include", "^(main|deep)"});
  expect_absent(r, {"outer", "helper_step", "inner", "quick", "slow"});
  expect_path_calls(r, {{{"main", "deep1", "deep2", "deep3", "deep4"}, 100}});
}

TEST_P(Filters, MaximumDepthAndMinimumDuration) {
  const std::string binary = build("filters.c");
  const Report deep = record_with(binary, {"--max-depth", "2"});
  expect_path_calls(deep, {{{"main", "deep1"}, 100}, {{"main", "outer"}, 100}});
  expect_absent(deep, {"deep2", "deep3", "deep4", "helper_step", "inner"});
  EXPECT_GT(u64(deep.threads().at(0), "depth_limited_calls"), 0u);

  const Report slow = record_with(binary, {"--min-duration", "1ms"});
  expect_function_calls(slow, {{"main", 1}, {"slow", 10}});
  expect_absent(slow, {"quick", "outer", "deep1"});
  EXPECT_EQ(u64(slow.threads().at(0), "short_calls"), 100u * 8) << "outer, helper_step, inner, deep1-4, quick";
}

TEST_P(Filters, BadFilterArgumentsAreOneLineErrors) {
  const std::string binary = build("filters.c");
  for (std::vector<std::string> options : {std::vector<std::string>{"--exclude", "("},
                                           {"--checkpoint", "no_such_fn"},
                                           {"--min-duration", "fast"},
                                           {"--snapshot-signal", "NOPE"}}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    RunResult r = run(argv, dir());
    EXPECT_EQ(r.exit, exited(2)) << options[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("callprof: error: ", 0), 0u) << r.err;
  }
}

TEST_P(Pruning, HalfAMillionPathsStayWithinTheNodeBudget) {
  // The plain build first: both builds write the same binary name.
  RunResult base = run({build("many_paths.c", {"-DE2E_PLAIN"})}, dir());
  ASSERT_EQ(base.exit, exited(0));
  const std::string binary = build("many_paths.c");
  constexpr uint64_t kBudget = 50000;
  std::vector<std::string> argv = {E2E_CALLPROF, "record",           "-q", "--max-nodes", std::to_string(kBudget),
                                   "-o",         "profile.callprof", "--", binary};
  RunResult rec = run(argv, dir());
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  const Report r = report();
  const json& t = r.threads().at(0);
  EXPECT_GT(u64(t, "prunes"), 0u);
  EXPECT_LE(tree_nodes(r.doc().at("tree")), kBudget);
  // Memory: the program's peak grows by the budget's worth of nodes at most (node,
  // metrics, index and scratch: under 200 bytes each), not by 1.1 million nodes.
  long base_kb = 0, rec_kb = 0;
  std::sscanf(base.out.c_str(), "VmHWM kB=%ld", &base_kb);
  std::sscanf(rec.out.c_str(), "VmHWM kB=%ld", &rec_kb);
  measured("peak_rss_growth_kb", double(rec_kb - base_kb));
  EXPECT_LT(rec_kb - base_kb, long(kBudget * 200 / 1024) + 8 * 1024);
  // Kept nodes count exactly; totals are exact because pruned paths fold into [pruned].
  expect_function_calls(r, {{"main", 1}, {"heavy", 20}});
  expect_path_calls(r, {{{"main", "heavy"}, 20}});
  for (int d = 0; d < 10; ++d) expect_path_calls(r, {{{"main", "g" + std::to_string(d)}, 50000}});
  ASSERT_NE(r.find_function("[pruned]"), nullptr);
  // A prune (69 here) runs inside the call that needed a node: no call is charged for it.
  // Every call but main's and heavy's does next to nothing (30-40 ms on CPU in all, besides
  // the 230 ms of [pruned], the calls of the subtrees folded into it); charged,
  // each prune added 3-11 ms on CPU. On CPU, since a call may wait on the machine (one
  // call of g7 spent 6 ms off CPU under a loaded ctest).
  uint64_t small_cpu_ns = 0;
  for (const json& f : r.doc().at("functions"))
    if (f.at("name") != "main" && f.at("name") != "heavy" && f.at("name") != "[pruned]")
      small_cpu_ns += u64(f, "cpu_ns");
  measured("small_functions_self_cpu_ms", double(small_cpu_ns) / 1e6);
  EXPECT_LT(small_cpu_ns, 150'000'000u);
  expect_report_invariants(r);
}

// Recursion 100,000 deep is recorded whole: the shadow stack holds as many frames as the
// program's stack can hold calls (it held 65,536, and 34,467 calls went unrecorded
// without a word; issue 14.1).
TEST_P(Limits, DeepRecursionIsRecordedToItsBottom) {
  const std::string binary = build("deep_recursion.c");
  RunResult rec = run({E2E_CALLPROF, "record", "-q", "-o", "profile.callprof", "--", binary, "100000"}, dir());
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  EXPECT_EQ(rec.err, "") << "nothing to warn about";
  const Report r = report();
  expect_function_calls(r, {{"main", 1}, {"dive", 100001}});
  EXPECT_EQ(u64(r.threads().at(0), "dropped_calls"), 0u);
  EXPECT_TRUE(r.doc().at("metadata").at("warnings").empty());
}

// When calls cannot be recorded, the recording says so in one line, and the profile says
// it too (metadata.warnings, the thread's dropped_calls), with the counts adding up.
TEST_P(Limits, CallsThatCouldNotBeRecordedAreSaidAtTheEnd) {
  const std::string binary = build("deep_recursion.c", {"-g"});  // no other warning
  RunResult rec =
      run({E2E_CALLPROF, "record", "--max-nodes", "1024", "-o", "profile.callprof", "--", binary, "5000"}, dir());
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  const std::string warning = "callprof: warning: not everything was recorded: ";
  const size_t at = rec.err.find(warning);
  EXPECT_NE(at, std::string::npos) << rec.err;
  EXPECT_EQ(rec.err.find("warning", at + warning.size()), std::string::npos) << "one warning line:\n" << rec.err;
  const Report r = report();
  const uint64_t dropped = u64(r.threads().at(0), "dropped_calls");
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(u64(r.function("dive"), "calls") + dropped, 5001u);
  const json& warnings = r.doc().at("metadata").at("warnings");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings.at(0).get<std::string>().find(std::to_string(dropped) + " calls dropped"), std::string::npos);
}

TEST_P(Snapshots, KilledProgramKeepsDataUpToItsLastSnapshot) {
  RunResult rec = record_snapshots(build("snapshots.c"), "kill", {"--snapshot-interval", "0.1"});
  EXPECT_EQ(rec.exit, killed_by(SIGKILL)) << "record passes the death signal on";
  EXPECT_NE(rec.err.find("killed by signal 9 (SIGKILL)"), std::string::npos) << rec.err;
  const Report r = report();
  expect_function_calls(r, {{"step", 5}});
  ASSERT_NE(r.find_function("idle_loop"), nullptr) << "running at the last snapshot";
  EXPECT_EQ(r.processes().at(0).at("complete"), false);
}

TEST_P(Snapshots, CheckpointFunctionWritesASnapshotWhenItReturns) {
  RunResult rec = record_snapshots(build("snapshots.c"), "kill", {"--checkpoint", "step"});
  EXPECT_EQ(rec.exit, killed_by(SIGKILL));
  const Report r = report();
  expect_function_calls(r, {{"step", 5}, {"main", 1}});
  expect_absent(r, {"idle_loop"});  // the last snapshot came when the fifth step returned
}

TEST_P(Snapshots, SignalTakesASnapshotWithoutStoppingTheProgram) {
  RunResult rec = record_snapshots(build("snapshots.c"), "signal", {"--snapshot-signal", "USR2"});
  EXPECT_EQ(rec.exit, killed_by(SIGKILL)) << "the program went on after the snapshot until it killed itself";
  expect_function_calls(report(), {{"step", 5}});
}

// Issue 14.8: a snapshot read the off-CPU ring of a thread that was unmapping it (SIGSEGV
// in 66 of 100 runs with --snapshot-interval 0.01, in every run with --checkpoint).
// Snapshots by interval, signal and checkpoint while threads start and end all the time:
// the program never crashes and the final profile has every call.
TEST_P(Snapshots, ThreadsStartingAndEndingDuringSnapshotsNeverCrash) {
  const std::string binary = build("thread_churn.c");
  struct Variant {
    std::vector<std::string> options;
    std::string mode;
    int runs;
  };
  const Variant variants[] = {{{"--snapshot-interval", "0.01"}, "", 8},
                              {{"--snapshot-signal", "USR2"}, "signal", 3},
                              {{"--checkpoint", "worker"}, "", 3}};
  int crashes = 0, runs = 0;
  for (const Variant& v : variants) {
    for (int i = 0; i < v.runs; ++i, ++runs) {
      SCOPED_TRACE(v.options[0] + " run " + std::to_string(i));
      std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
      argv.insert(argv.end(), v.options.begin(), v.options.end());
      argv.insert(argv.end(), {"--", binary});
      if (!v.mode.empty()) argv.push_back(v.mode);
      const RunResult rec = run(argv, dir());
      if (rec.exit != exited(0)) ++crashes;
      EXPECT_EQ(rec.exit, exited(0)) << rec.err;
      EXPECT_EQ(rec.out, "waves 60\n");
      if (rec.exit != exited(0)) continue;
      const Report r = report();
      expect_function_calls(r, {{"main", 1}, {"spawn_wave", 60}, {"worker", 240}, {"nap", 720}});
      EXPECT_EQ(r.threads().size(), 241u);
    }
  }
  measured(compiler_name() + ".thread_churn.crashed_runs", double(crashes));
  measured(compiler_name() + ".thread_churn.runs", double(runs));
}

// A fork while the snapshot thread walks the loaded objects (dl_iterate_phdr, writing a
// dump's module list) left the child's copy of the loader's walk lock held: the child's
// fork handler, starting its own snapshot thread, looked up pthread_create by a walk and
// hung for ever (docs/design.md, "Forks and the loader's lock"). many_forks kills a child
// that hangs and exits with 2.
TEST_P(Snapshots, ForksWhileTheSnapshotThreadWalksTheModulesNeverHangAChild) {
  const std::string binary = build("many_forks.c");
  const RunResult rec = run(
      {E2E_CALLPROF, "record", "-q", "--snapshot-interval", "0.0005", "-o", "profile.callprof", "--", binary, "300"},
      dir());
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  const Report r = report();
  EXPECT_EQ(r.processes().size(), 301u);
  expect_function_calls(r, {{"child_work", 300}});
}

TEST_P(Snapshots, CrashWritesEverythingAndTheSignalPassesOn) {
  for (auto [mode, sig] : {std::pair{"crash", SIGSEGV}, std::pair{"abort", SIGABRT}}) {
    SCOPED_TRACE(mode);
    RunResult rec = record_snapshots(build("snapshots.c"), mode, {});
    EXPECT_EQ(rec.exit, killed_by(sig));
    const Report r = report();
    expect_function_calls(r, {{"step", 5}, {"crash", 1}, {"main", 1}});
    EXPECT_EQ(r.processes().at(0).at("complete"), true);
    EXPECT_EQ(r.processes().at(0).at("death_signal"), sig);
  }
}

// Issue 14.9: a stack overflow left no profile (no handler can run on an exhausted stack).
// Overflow in the main thread, in a thread the program creates (and in one started after
// another ended, on the stack that one left), with an alternate stack
// the program installed itself (256 KiB, and 8 KiB: the dump writer needs little stack),
// and with the program's own SIGSEGV handler that resets
// to SIG_DFL: the program sees the same alternate stacks as without callprof, dies by
// SIGSEGV, and the profile holds every call up to the crash.
TEST_P(Snapshots, StackOverflowStillWritesTheProfile) {
  const std::string binary = build("stack_overflow.c");
  for (const char* mode : {"main", "thread", "reused", "own", "small", "handler"}) {
    SCOPED_TRACE(mode);
    const RunResult plain = run({binary, mode}, dir());
    ASSERT_EQ(plain.exit, killed_by(SIGSEGV)) << plain.err;
    const RunResult rec = record_snapshots(binary, mode, {"-q"});
    EXPECT_EQ(rec.exit, killed_by(SIGSEGV)) << rec.err;
    EXPECT_EQ(rec.out, plain.out) << "the program saw other alternate stacks under callprof";
    const Report r = report();
    ASSERT_FALSE(r.processes().empty()) << "no profile";
    EXPECT_EQ(r.processes().at(0).at("complete"), true);
    EXPECT_EQ(r.processes().at(0).at("death_signal"), SIGSEGV);
    expect_function_calls(r, {{"main", 1}});
    const json* descend = r.find_function("descend");
    ASSERT_NE(descend, nullptr);
    EXPECT_GT(u64(*descend, "calls"), 1000u) << "each call holds 512 bytes of an 8 MiB stack";
    measured(compiler_name() + ".stack_overflow." + mode + ".descend_calls", double(u64(*descend, "calls")));
  }
}

}  // namespace
}  // namespace e2e
