// End-to-end: hook removal (issue 28; docs/modes.md, "Removing hooks"). Functions folded
// (--auto-fold all) or filtered out (--exclude) while five threads run through them get
// their hook calls rewritten: a folded function's entries into calls of its counting stub
// (its calls still counted, per function), the rest into nops; every other call stays
// exact, and each call lands under its true caller.
#include "e2e_support.h"

namespace e2e {
namespace {

class HookRemoval : public E2ETest {
 protected:
  // Auto-fold's threshold just under medium's 2 us: the default (about 40 ns, from the hooks'
  // measured cost) missed tiny under a loaded parallel ctest (a preempted call lifts a path's
  // average), and then nothing is folded or rewritten. callprof passes it to the runtime.
  void SetUp() override {
    E2ETest::SetUp();
    setenv("CALLPROF_AUTO_FOLD_NS", "1500", 1);
  }
  void TearDown() override {
    unsetenv("CALLPROF_AUTO_FOLD_NS");
    E2ETest::TearDown();
  }
  // hook_removal.c's truth for the functions that stay hooked.
  void expect_exact_rest(const Report& r) {
    expect_function_calls(r, {{"work", 1000}, {"medium", 10000}});
    for (const auto& path : r.paths_to("medium"))
      EXPECT_TRUE(path.size() >= 2 && same_function(path[path.size() - 2], "work")) << join_path(path);
    for (const json& t : r.threads()) EXPECT_EQ(u64(t, "dropped_calls"), 0u);
    expect_report_invariants(r);
  }
  const json& process(const Report& r) { return r.processes().at(0); }
};
E2E_INSTANTIATE(HookRemoval);

TEST_P(HookRemoval, FoldedAndExcludedFunctionsLoseTheirHookCallsAndTheRestStaysExact) {
  const std::string binary = build("hook_removal.c");
  const Report r = record_with({"--auto-fold", "all", "--exclude", "^skipped$"}, binary);
  expect_exact_rest(r);
  expect_absent(r, {"skipped"});
  const json& p = process(r);
  EXPECT_TRUE(p.at("hook_removal").get<bool>());
  // tiny's entry and exit, skipped's entry and exit.
  EXPECT_GE(u64(p, "rewritten_sites"), 4u);
  EXPECT_GE(p.at("removed_hooks").size(), 1u);
  EXPECT_EQ(u64(p, "rewrite_refused_errno"), 0u);
  // tiny's calls are all counted: on their paths until its hook calls were rewritten, then
  // by its counting stub, under [unhooked calls] (its entry's call keeps the hook, which
  // counts it, where its displacement spans two cache lines).
  expect_function_calls(r, {{"tiny", 1000000}});
  const Report::LeafCalls tiny = r.leaf_calls({"tiny"}, "[unhooked calls]");
  const uint64_t on_paths = tiny.all - tiny.under;
  measured("tiny_calls_on_their_paths", double(on_paths));
  EXPECT_TRUE(p.at("counts_unhooked_calls").get<bool>());
  EXPECT_EQ(u64(p, "uncounted_sites"), 0u);
  EXPECT_LT(on_paths, 500000u) << "most of tiny's calls counted per function, by its stub (or its hook)";
  // Which folded functions were removed, and when: tiny, within the run.
  bool tiny_removed = false;
  for (const json& h : p.at("removed_hooks"))
    if (h.at("name") == "tiny") {
      tiny_removed = true;
      EXPECT_GE(h.at("at_ns").get<int64_t>(), p.at("start_ns").get<int64_t>());
      EXPECT_LE(h.at("at_ns").get<int64_t>(), p.at("end_ns").get<int64_t>());
    }
  EXPECT_TRUE(tiny_removed) << p.dump();
  for (const json& f : r.doc().at("auto_fold").at("functions"))
    if (f.at("name") == "tiny") EXPECT_FALSE(f.at("hooks_removed_at_ns").is_null());
  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager"}, dir());
  EXPECT_NE(text.out.find("# hooks:    "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("the folded functions' calls since are counted per function, under [unhooked calls]"),
            std::string::npos)
      << text.out;
  // The folded line names tiny with its share of the calls and when its count stopped.
  const size_t folded_at = text.out.find("# folded:");
  ASSERT_NE(folded_at, std::string::npos) << text.out;
  const std::string folded = text.out.substr(folded_at, text.out.find("# hooks:") - folded_at);
  const size_t tiny_at = folded.find("tiny (");
  ASSERT_NE(tiny_at, std::string::npos) << folded;
  EXPECT_NE(folded.find("% of calls, per function only after ", tiny_at), std::string::npos) << folded;
}

// record --uncounted-folds: a folded function's entries become nops, as before counting
// stubs: its calls after the rewrite cost nothing and are not counted, and the report says so.
TEST_P(HookRemoval, UncountedFoldsMakesTheEntriesNopsAndSaysSo) {
  const std::string binary = build("hook_removal.c");
  const Report r = record_with({"--auto-fold", "all", "--exclude", "^skipped$", "--uncounted-folds"}, binary);
  expect_exact_rest(r);
  const json& p = process(r);
  EXPECT_EQ(u64(p, "counting_sites"), 0u);
  EXPECT_FALSE(p.at("counts_unhooked_calls").get<bool>());
  EXPECT_EQ(u64(p, "uncounted_sites"), 0u) << "nops by choice are not sites without a stub";
  EXPECT_GE(u64(p, "rewritten_sites"), 4u);
  EXPECT_LT(u64(r.function("tiny"), "calls"), 500000u) << "not counted once its hook calls are nops";
  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager"}, dir());
  EXPECT_NE(text.out.find("their calls since are not counted"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("% of calls, none counted after "), std::string::npos) << text.out;
  // Neither it nor --fold-counts goes with --keep-hooks, outside exact mode, or with the other (or a bad
  // choice): one line, a non-zero exit.
  using Args = std::vector<std::string>;
  for (const Args& bad :
       {Args{"--uncounted-folds", "--keep-hooks"}, Args{"--mode", "sample", "--uncounted-folds"},
        Args{"--fold-counts", "all", "--keep-hooks"}, Args{"--mode", "sample", "--fold-counts", "all"},
        Args{"--fold-counts", "some"}, Args{"--fold-counts", "none", "--uncounted-folds"}}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "bad.callprof"};
    argv.insert(argv.end(), bad.begin(), bad.end());
    argv.insert(argv.end(), {"--", binary});
    const RunResult rec = run(argv, dir());
    EXPECT_NE(rec.exit, exited(0)) << bad.back();
    EXPECT_EQ(std::count(rec.err.begin(), rec.err.end(), '\n'), 1) << rec.err;
  }
}

TEST_P(HookRemoval, KeepHooksCountsEveryCall) {
  const Report r =
      record_with({"--auto-fold", "all", "--exclude", "^skipped$", "--keep-hooks"}, build("hook_removal.c"));
  expect_exact_rest(r);
  expect_function_calls(r, {{"tiny", 1000000}});
  EXPECT_EQ(u64(r.function("work"), "excluded_calls"), 5000u) << "skipped's calls, where they were made";
  EXPECT_FALSE(process(r).at("hook_removal").get<bool>());
  EXPECT_EQ(u64(process(r), "rewritten_sites"), 0u);
  EXPECT_TRUE(process(r).at("removed_hooks").empty());
  for (const json& f : r.doc().at("auto_fold").at("functions")) EXPECT_TRUE(f.at("hooks_removed_at_ns").is_null());
}

// PR_SET_MDWE forbids writable executable memory: nothing is rewritten, the report says
// why, and the calls are counted as with --keep-hooks.
TEST_P(HookRemoval, ASystemThatRefusesWritableCodeKeepsTheHooksAndSaysSo) {
  const std::string binary = build("hook_removal.c");
  std::string out;
  const RunResult rec =
      run({E2E_CALLPROF, "record", "-q", "--auto-fold", "all", "-o", "profile.callprof", "--", binary, "mdwe"}, dir());
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  if (rec.out.find("mdwe=on") == std::string::npos)
    GTEST_SKIP() << "this kernel has no PR_SET_MDWE (Linux 6.3): " << rec.out;
  const Report r = report();
  expect_exact_rest(r);
  const json& p = process(r);
  EXPECT_NE(u64(p, "rewrite_refused_errno"), 0u);
  EXPECT_EQ(u64(p, "rewritten_sites"), 0u);
  expect_function_calls(r, {{"tiny", 1000000}});
  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager"}, dir());
  EXPECT_NE(text.out.find("the system refused writable code"), std::string::npos) << text.out;
}

// An instrumented library the program is linked with, by name (-l) or by a path ("./lib.so",
// which the loader lists without an arrow), is in the function plan: its folded function's
// hook calls are rewritten and its calls still all counted, and a filter names its
// functions. (Its .symtab names the hook with a version: before, it was left out.)
TEST_P(HookRemoval, ALibraryTheProgramStartsWithIsRewrittenAndFilteredLikeTheProgram) {
  const RunResult lib = run({toolchain(GetParam()).c, "-O2", "-g", "-finstrument-functions", "-shared", "-fPIC", "-I",
                             E2E_PROGRAMS, std::string(E2E_PROGRAMS) + "/startlib_lib.c", "-o", "libstartlib.so"},
                            dir());
  ASSERT_EQ(lib.exit, exited(0)) << lib.err;
  const std::string rpath = "-Wl,-rpath," + dir().string();
  for (const std::vector<std::string>& link :
       {std::vector<std::string>{"-Wl,--no-as-needed", "-L" + dir().string(), "-lstartlib", rpath},
        std::vector<std::string>{"-Wl,--no-as-needed", "./libstartlib.so"}}) {
    const Report r = record_with({"--auto-fold", "all", "--exclude", "^lib_skipped$"}, build("startlib.c", link));
    expect_function_calls(r, {{"work", 1000}, {"lib_medium", 1000}, {"lib_tiny", 1000000}});
    expect_absent(r, {"lib_skipped"});
    EXPECT_GT(u64(r.function("work"), "excluded_calls"), 0u) << "lib_skipped's calls before its sites went";
    const json& p = process(r);
    EXPECT_GE(u64(p, "rewritten_sites"), 3u) << link.back() << ": lib_tiny's exit, lib_skipped's entry and exit";
    bool removed = false;
    for (const json& h : p.at("removed_hooks"))
      removed = removed || same_function(h.at("name").get<std::string>(), "lib_tiny");
    EXPECT_TRUE(removed) << link.back();
    EXPECT_GT(r.leaf_calls({"lib_tiny"}, "[unhooked calls]").under, 900000u) << link.back();
    expect_report_invariants(r);
  }
}

// Frames left by an exception or a longjmp, recursion, fork, snapshots and a library
// loaded and closed again and again, all while tiny's hook calls are rewritten away
// (removal_flow.cpp): every call of the functions that stay hooked is counted, on its path.
class HookRemovalFlow : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    require_cxx();
  }
  Report record_flow(const std::vector<std::string>& args, const std::vector<std::string>& options = {}) {
    std::vector<std::string> all = {"--auto-fold", "all"};
    all.insert(all.end(), options.begin(), options.end());
    return record_with(all, build("removal_flow.cpp", {"-ldl", "-lpthread"}), args);
  }
  static void expect_landings_exact(const Report& r) {
    expect_function_calls(r, {{"landing", 300}, {"chain", 1200}, {"after", 300}});
    expect_path_calls(r, {{{"main", "landings", "landing", "chain", "chain", "chain", "chain"}, 300},
                          {{"main", "landings", "landing", "after"}, 300}});
    EXPECT_EQ(r.paths_to("after").size(), 1u) << "after() only ever below landing";
    EXPECT_EQ(r.paths_to("chain").size(), 4u) << "chain only on its one recursive path";
    for (const json& t : r.threads()) EXPECT_EQ(u64(t, "dropped_calls"), 0u);
    expect_report_invariants(r);
  }
  // tiny's calls are all counted, most of them by its counting stub after its hook calls
  // were rewritten early in the run.
  static void expect_tiny_removed(const Report& r) {
    expect_function_calls(r, {{"tiny", 600000}});
    EXPECT_GT(r.leaf_calls({"tiny"}, "[unhooked calls]").under, 600000u / 2)
        << "tiny's hook calls were rewritten early in the run";
    bool removed = false;
    for (const json& p : r.processes())
      for (const json& h : p.at("removed_hooks"))
        removed = removed || same_function(h.at("name").get<std::string>(), "tiny");
    EXPECT_TRUE(removed);
  }
};
E2E_INSTANTIATE(HookRemovalFlow);

TEST_P(HookRemovalFlow, ExceptionsThrownThroughFramesWhoseCalleesLostTheirHooks) {
  const Report r = record_flow({"throw"});
  expect_landings_exact(r);
  expect_tiny_removed(r);
}

TEST_P(HookRemovalFlow, LongjmpOutOfFramesWhoseCalleesLostTheirHooks) {
  const Report r = record_flow({"longjmp"});
  expect_landings_exact(r);
  expect_tiny_removed(r);
}

// The child inherits the rewritten code and the exclusion cache: its calls stay exact too.
TEST_P(HookRemovalFlow, AForkedChildKeepsTheRemovalAndItsCounts) {
  const Report r = record_flow({"fork"});
  ASSERT_EQ(r.processes().size(), 2u);
  expect_landings_exact(r);
  expect_tiny_removed(r);
}

TEST_P(HookRemovalFlow, SnapshotsWrittenWhileHooksAreRemoved) {
  const Report r = record_flow({"longjmp"}, {"--snapshot-interval", "0.005"});
  expect_landings_exact(r);
  expect_tiny_removed(r);
}

// A library loaded and closed 40 times while another thread's sites are rewritten: its own
// tiny functions are folded per thread, never removed (their sites are not the plan's, and
// their addresses are reused by the next load), so their calls stay counted.
TEST_P(HookRemovalFlow, ALibraryLoadedAndClosedWhileSitesAreRewritten) {
  const std::string lib = (dir() / "libdlclosed.so").string();
  const RunResult built = run({toolchain(GetParam()).c, "-O2", "-g", "-finstrument-functions", "-shared", "-fPIC", "-I",
                               E2E_PROGRAMS, std::string(E2E_PROGRAMS) + "/dlclosed_lib.c", "-o", lib},
                              dir());
  ASSERT_EQ(built.exit, exited(0)) << built.err;
  const Report r = record_flow({"dlopen", lib});
  expect_landings_exact(r);
  expect_tiny_removed(r);
  expect_function_calls(r, {{"lib_work", 80000}, {"lib_inner", 80000}});
  // Once lib_work is folded (it pushes no frame), lib_inner's calls hang under library_user.
  for (const char* f : {"lib_work", "lib_inner"})
    for (const auto& path : r.paths_to(f)) EXPECT_TRUE(same_function(path.front(), "library_user")) << join_path(path);
  for (const json& p : r.processes())
    for (const json& h : p.at("removed_hooks"))
      EXPECT_FALSE(same_function(h.at("name").get<std::string>(), "lib_inner"));
}

}  // namespace
}  // namespace e2e
