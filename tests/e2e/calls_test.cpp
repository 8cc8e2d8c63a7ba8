// End-to-end: exact call counts, the gprof counter-example (per-caller time measured, not
// apportioned) and recursion counted once, each with GCC and Clang.
#include <cstdio>

#include "e2e_support.h"

namespace e2e {
namespace {

class Calls : public E2ETest {};
class GprofSplit : public E2ETest {};
class Recursion : public E2ETest {};
class ClockConversion : public E2ETest {};
E2E_INSTANTIATE(Calls);
E2E_INSTANTIATE(ClockConversion);
E2E_INSTANTIATE(GprofSplit);
E2E_INSTANTIATE(Recursion);

TEST_P(Calls, ExactOnEveryFunctionEdgeAndPath) {
  const Report r = record_and_report(build("calls.c"));
  expect_calls_c_truth(r);
  EXPECT_EQ(u64(r.doc().at("summary"), "nodes"), 11u);
  ASSERT_EQ(r.threads().size(), 1u);
  EXPECT_EQ(u64(r.threads()[0], "calls"), 101065u);
  EXPECT_EQ(u64(r.threads()[0], "dropped_calls"), 0u);
  expect_report_invariants(r);
}

// The runtime measures the hooks of the compiler that built the executable (only those:
// the measuring is a third of a short recording's fixed cost), and the times use them.
TEST_P(Calls, HookCostsAreMeasuredForTheCompilerThatBuiltTheProgram) {
  const Report r = record_and_report(build("calls.c"));
  ASSERT_EQ(r.processes().size(), 1u);
  const json& p = r.processes()[0];
  EXPECT_EQ(p.at("hook_compiler"), GetParam());
  EXPECT_GT(p.at("hook_inner_ns").get<double>() + p.at("hook_outer_ns").get<double>(), 1.0);
  EXPECT_TRUE(r.doc().at("compensated").get<bool>());
}

// The first process of a recording that measures the hooks leaves the numbers for the
// processes it starts, which read them instead of measuring again (about 20 ms each): a
// shell's three runs of calls.c use the same costs, to the last bit (measured three times,
// they would differ in their noise).
TEST_P(Calls, ProcessesOfOneRecordingShareOneCalibration) {
  const std::string binary = build("calls.c");
  const Report r =
      record_with({"--mode", "exact", "--children"}, "/bin/sh", {"-c", binary + " && " + binary + " && " + binary});
  std::vector<const json*> hooked;
  for (const json& p : r.processes())
    if (p.at("hook_compiler") == GetParam()) hooked.push_back(&p);
  ASSERT_EQ(hooked.size(), 3u) << r.doc().at("processes").dump();
  EXPECT_GT(hooked[0]->at("hook_inner_ns").get<double>() + hooked[0]->at("hook_outer_ns").get<double>(), 1.0);
  for (const json* p : hooked)
    for (const char* cost : {"hook_inner_ns", "hook_outer_ns", "excluded_hook_ns", "folded_hook_ns", "hook_caller_ns"})
      EXPECT_EQ(p->at(cost), hooked[0]->at(cost)) << cost;
  expect_function_calls(r, {{"a", 3 * 7}, {"b", 3 * 51}, {"main", 3}});
}

// A hook can run before libc has set `environ` (here from .preinit_array): the runtime
// reads its configuration from /proc/self/environ then, instead of switching itself off
// (no profile at all before; issue 14.3).
TEST_P(Calls, HooksBeforeLibcIsSetUpAreRecorded) {
  std::string out;
  const Report r = record_and_report(build("preinit_hooks.c", {"-g"}), {}, &out);
  EXPECT_EQ(out, "ok\n");
  expect_path_calls(r, {{{"preinit", "early"}, 1}, {{"main", "work"}, 10}});
  expect_function_calls(r, {{"main", 1}, {"preinit", 1}});
}

// A library closed with dlclose() long before the data is written keeps its functions'
// names (they were raw addresses; issue 14.5).
TEST_P(Calls, FunctionsOfAClosedLibraryKeepTheirNames) {
  const std::string lib = (dir() / "libdlclosed.so").string();
  const RunResult built = run({toolchain(GetParam()).c, "-O2", "-g", "-finstrument-functions", "-shared", "-fPIC", "-I",
                               E2E_PROGRAMS, std::string(E2E_PROGRAMS) + "/dlclosed_lib.c", "-o", lib},
                              dir());
  ASSERT_EQ(built.exit, exited(0)) << built.err;
  const Report r = record_and_report(build("dlclosed.c", {"-g", "-ldl"}), {lib});
  expect_path_calls(r, {{{"main", "use_library", "lib_work", "lib_inner"}, 3}, {{"main", "after_close"}, 1}});
  expect_function_calls(r, {{"lib_work", 3}, {"lib_inner", 3}});
}

// Library B loaded where library A was, after A was closed: A's and B's functions share
// addresses, yet they are different functions, each with its own name and calls (they
// were one node, named after one of them; issue 14.5).
TEST_P(Calls, LibrariesLoadedAtTheSameAddressStayApart) {
  std::vector<std::string> libs;
  for (const char* name : {"alpha", "beta"}) {
    libs.push_back((dir() / ("lib" + std::string(name) + ".so")).string());
    const RunResult built =
        run({toolchain(GetParam()).c, "-O2", "-g", "-finstrument-functions", "-shared", "-fPIC", "-I", E2E_PROGRAMS,
             std::string("-DLIB=") + name, std::string(E2E_PROGRAMS) + "/dlreused_lib.c", "-o", libs.back()},
            dir());
    ASSERT_EQ(built.exit, exited(0)) << built.err;
  }
  std::string out;
  const Report r = record_and_report(build("dlreused.c", {"-g", "-ldl"}), libs, &out);
  if (out != "same\n") GTEST_SKIP() << "the loader put the second library elsewhere (" << out << "): nothing to show";
  expect_path_calls(r, {{{"main", "use_library"}, 2},
                        {{"main", "use_library", "alpha_work", "alpha_inner"}, 3},
                        {{"main", "use_library", "beta_work", "beta_inner"}, 5}});
  expect_function_calls(r, {{"alpha_work", 3}, {"alpha_inner", 3}, {"beta_work", 5}, {"beta_inner", 5}});
  expect_report_invariants(r);
}

TEST_P(GprofSplit, EdgesCarryMeasuredNotApportionedTime) {
  std::string out;
  const Report r = record_and_report(build("gprof_split.c"), {}, &out);
  unsigned long long truth_bd = 0, truth_cd = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "truth b_d_ns=%llu c_d_ns=%llu", &truth_bd, &truth_cd), 2) << out;
  expect_function_calls(r, {{"A", 1}, {"B", 1}, {"C", 1}, {"D", 80}});
  expect_edge_calls(r, {{"B", "D", 40}, {"C", "D", 40}});
  const uint64_t bd = u64(r.edge("B", "D"), "total_ns"), cd = u64(r.edge("C", "D"), "total_ns");
  const double split = 100.0 * double(bd) / double(bd + cd);
  const double truth_split = 100.0 * double(truth_bd) / double(truth_bd + truth_cd);
  const std::string key = compiler_name() + ".gprof_split.";
  measured(key + "B_to_D_percent", split, "%");
  measured(key + "B_to_D_percent_measured_by_program", truth_split, "%");
  measured(key + "B_to_D_ms", ms(bd), "ms");
  measured(key + "C_to_D_ms", ms(cd), "ms");
  // SPEC 6: the split within 2 % of the truth, which the program's own clock measured.
  // The designed 75/25 (gprof would say 50/50) holds within 3 points when the machine
  // let the program run as designed.
  EXPECT_NEAR(split, truth_split, 2.0) << "callprof's B->D share vs the program's own measurement";
  if (construction_held(key + "B_to_D_percent", truth_split, 75.0, 3.0)) {
    EXPECT_NEAR(split, 75.0, 3.0) << "designed split 75/25";
  }
  EXPECT_EQ(bd + cd, u64(r.function("D"), "total_ns")) << "the two edges make up D's total";
  // B's and C's totals are their D time (plus a loop around it). Only ratios here: the
  // absolute scale is ClockConversion's business.
  const uint64_t b_total = u64(r.function("B"), "total_ns"), c_total = u64(r.function("C"), "total_ns");
  EXPECT_GE(double(bd), 0.98 * double(b_total)) << "B's time is nearly all in D";
  EXPECT_GE(double(cd), 0.98 * double(c_total)) << "C's time is nearly all in D";
  expect_report_invariants(r);
}

TEST_P(Recursion, DirectRecursionCountedOnce) {
  const Report r = record_and_report(build("recursion.c"));
  const json& depth = r.function("depth");
  EXPECT_EQ(u64(depth, "calls"), 105u);
  EXPECT_EQ(u64(depth, "recursive_calls"), 100u);
  expect_edge_calls(r, {{"main", "run_depth", 5}, {"run_depth", "depth", 5}, {"depth", "depth", 100}});
  EXPECT_EQ(u64(r.edge("depth", "depth"), "total_ns"), 0u) << "a recursive edge carries no total (docs/json.md)";
  // The chain main/run_depth/depth/depth/...: 21 depth nodes, level k at the k-th.
  std::vector<std::string> path = {"main", "run_depth"};
  for (uint64_t level = 0; level <= 20; ++level) {
    path.push_back("depth");
    const json* n = r.find_node(path);
    ASSERT_TRUE(n) << "tree path with " << level + 1 << " depth nodes is missing";
    EXPECT_EQ(u64(*n, "calls"), 5u) << join_path(path);
    EXPECT_EQ(u64(*n, "recursion_level"), level) << join_path(path);
  }
  EXPECT_TRUE(r.node(path).at("children").empty());
  // Only the outermost instance counts: the function's total is the outermost node's,
  // about 5 x 1 ms, never the sum over the 21 nested instances.
  const uint64_t total = u64(depth, "total_ns");
  EXPECT_EQ(total, u64(r.node({"main", "run_depth", "depth"}), "total_ns"));
  EXPECT_LE(total, u64(r.function("run_depth"), "total_ns"));
  EXPECT_LE(u64(r.function("run_depth"), "total_ns"), u64(r.function("main"), "total_ns"));
  EXPECT_GE(double(total), 0.9 * double(u64(r.function("run_depth"), "total_ns"))) << "run_depth only calls depth";
  measured(compiler_name() + ".recursion.depth_total_ms", ms(total), "ms");
  const json& deepest = r.doc().at("summary").at("deepest_recursion");
  ASSERT_TRUE(deepest.is_object());
  EXPECT_EQ(deepest.at("function"), "depth");
  EXPECT_EQ(u64(deepest, "level"), 20u);
  expect_report_invariants(r);
}

TEST_P(Calls, IndirectCallsToldFromDirectOnes) {
  const Report r = record_and_report(build("indirect.c"));
  expect_function_calls(r, {{"direct_callee", 3}, {"pointer_callee", 4}});
  EXPECT_EQ(u64(r.function("direct_callee"), "indirect_calls"), 0u);
  EXPECT_EQ(u64(r.function("pointer_callee"), "indirect_calls"), 4u);
  EXPECT_GE(u64(r.doc().at("summary"), "indirect_calls"), 4u);  // libc may reach main through a pointer too
}

TEST_P(Recursion, MutualRecursionCountedOnce) {
  const Report r = record_and_report(build("recursion.c"));
  const json& even = r.function("is_even");
  const json& odd = r.function("is_odd");
  EXPECT_EQ(u64(even, "calls"), 30u);
  EXPECT_EQ(u64(even, "recursive_calls"), 25u);
  EXPECT_EQ(u64(odd, "calls"), 25u);
  EXPECT_EQ(u64(odd, "recursive_calls"), 20u);
  expect_edge_calls(r, {{"main", "is_even", 5}, {"is_even", "is_odd", 25}, {"is_odd", "is_even", 25}});
  EXPECT_EQ(u64(r.edge("is_odd", "is_even"), "total_ns"), 0u) << "every is_odd -> is_even call is recursive";
  // The alternating chain: is_even at level k, then is_odd at level k.
  std::vector<std::string> path = {"main"};
  for (uint64_t i = 0; i < 11; ++i) {
    path.push_back(i % 2 ? "is_odd" : "is_even");
    const json* n = r.find_node(path);
    ASSERT_TRUE(n) << "tree path " << join_path(path) << " is missing";
    EXPECT_EQ(u64(*n, "calls"), 5u) << join_path(path);
    EXPECT_EQ(u64(*n, "recursion_level"), i / 2) << join_path(path);
  }
  EXPECT_EQ(u64(even, "total_ns"), u64(r.node({"main", "is_even"}), "total_ns"));
  EXPECT_EQ(u64(odd, "total_ns"), u64(r.node({"main", "is_even", "is_odd"}), "total_ns"));
  EXPECT_LE(u64(odd, "total_ns"), u64(even, "total_ns"));
  EXPECT_LE(u64(even, "total_ns"), u64(r.function("main"), "total_ns"));
  EXPECT_GE(double(u64(even, "total_ns")), 0.1 * double(u64(r.function("main"), "total_ns")))
      << "half of main's work is below is_even (a wide margin: 1 ms pieces of work stretch under load)";
  measured(compiler_name() + ".recursion.is_even_total_ms", ms(u64(even, "total_ns")), "ms");
  expect_report_invariants(r);
}

// A process that loses the CPU between the two reads of a (TSC, CLOCK_MONOTONIC) pair
// (here always, at start-up; on a loaded machine now and then) must not see all its times
// scaled by the lost fraction of the run.
TEST_P(ClockConversion, TimesSurviveAPreemptionBetweenClockReads) {
  std::string out;
  const Report r = record_and_report(build("preempted_start.c", {"-rdynamic"}), {}, &out);
  unsigned long long truth = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "work_ns=%llu", &truth), 1) << out;
  expect_function_calls(r, {{"work", 10}});
  const uint64_t total = u64(r.function("work"), "total_ns");
  measured(compiler_name() + ".preempted_start.work_total_ms", ms(total), "ms");
  measured(compiler_name() + ".preempted_start.work_ms_measured_by_program", ms(truth), "ms");
  EXPECT_NEAR(double(total), double(truth), 0.03 * double(truth)) << "work's total vs the program's own clock";
}

}  // namespace
}  // namespace e2e
