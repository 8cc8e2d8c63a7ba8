// End-to-end: samples inside exact mode (record -F HZ in exact mode; docs/modes.md,
// "Samples inside exact mode"). Each CPU-clock sample is placed under the node that was on
// top of its thread's shadow stack (programs/exact_samples.c): a folded function, which
// exact mode alone charges to its caller, gets its share of the CPU back from the samples;
// samples in callprof's runtime are counted apart, in no tree; every call count stays what
// exact mode counts alone.
#include "e2e_support.h"

namespace e2e {
namespace {

std::string fmt_threshold(double ns) { return std::to_string(uint64_t(ns)); }

class ExactSamples : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (const std::string why = kernel_probe_unavailable(dir()); !why.empty())
      GTEST_SKIP() << "eBPF (the kernel probe) is not available here: " << why;
  }
  // record, with the auto-fold threshold in the environment (three times tiny's work on this
  // machine: work's own part is ten times it), then the report.
  Report record_sampled(const std::vector<std::string>& options, const std::string& binary,
                        const std::vector<std::string>& args = {}, std::string* program_out = nullptr) {
    const RunResult calibration = run({binary, "calibrate"}, dir());
    double tiny_ns = 0;
    EXPECT_EQ(std::sscanf(calibration.out.c_str(), "tiny_ns=%lf", &tiny_ns), 1) << calibration.out;
    const std::string threshold = fmt_threshold(std::max(2000.0, 3 * tiny_ns));
    std::vector<std::string> argv = {
        "/usr/bin/env", "CALLPROF_AUTO_FOLD_NS=" + threshold, E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.push_back(binary);
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run(argv, dir());
    EXPECT_EQ(r.exit, exited(0)) << r.err;
    if (program_out) *program_out = r.out;
    return report();
  }
};
E2E_INSTANTIATE(ExactSamples);

uint64_t tree_samples(const json& nodes) {
  uint64_t n = 0;
  for (const json& node : nodes) n += node.value("total_samples", uint64_t(0));
  return n;
}

// Whether a node of the tree stands for the runtime's code or the hooks' PLT stubs.
bool in_runtime(const Report& r, const json& nodes) {
  for (const json& node : nodes) {
    for (const json& f : r.doc().at("functions"))
      if (f.at("id") == node.at("function_id") &&
          ((f.at("module").is_string() &&
            f.at("module").get<std::string>().find("libcallprof-rt") != std::string::npos) ||
           f.at("name").get<std::string>().starts_with("__cyg_profile_func_")))
        return true;
    if (in_runtime(r, node.at("children"))) return true;
  }
  return false;
}

// A sample in GCC's cold part of the node's function (work.cold) is the node's own: work's
// samples are nearly all its self, with no `work.cold` below it as if work had called it.
// In C++ too, where the part's name demangles to "ns::work(int) [clone .cold]".
TEST_P(ExactSamples, ASampleInTheFunctionsColdPartIsItsOwn) {
  for (const ColdPartProgram& c : cold_part_programs()) {
    SCOPED_TRACE(c.source);
    const std::string binary = build(c.source, {"-g"});
    if (const std::string why = unsplit(binary, c); !why.empty()) FAIL() << why;
    const RunResult r = run({E2E_CALLPROF, "record", "-q", "-F", "999", "-o", "profile.callprof", "--", binary}, dir());
    ASSERT_EQ(r.exit, exited(0)) << r.err;
    const Report rep = report();
    const json& work = rep.node({"main", c.work});
    measured("work_samples", double(u64(work, "total_samples")));
    EXPECT_GT(u64(work, "total_samples"), 20u) << "about 0.1 s of CPU at 999 Hz";
    EXPECT_GE(u64(work, "samples") * 10, u64(work, "total_samples") * 9) << work.dump();
    EXPECT_EQ(rep.find_node({"main", c.work, c.cold_name}), nullptr) << work.dump();
  }
}

// tiny holds half of work's CPU, and is folded: exact mode alone puts that half in work's
// self time; the samples below work put it back in tiny.
TEST_P(ExactSamples, AFoldedFunctionGetsItsShareOfTheSamplesUnderItsCaller) {
  std::string out;
  const Report r = record_sampled({"-F", "4999", "--auto-fold", "all"}, build("exact_samples.c", {"-g"}), {}, &out);
  double by_program = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "tiny_share=%lf", &by_program), 1) << out;
  measured("tiny_share_by_program", by_program);
  expect_function_calls(r, {{"work", 30000}});
  bool folded = false;
  for (const json& f : r.doc().at("auto_fold").at("functions"))
    folded = folded || same_function(f.at("name").get<std::string>(), "tiny");
  EXPECT_TRUE(folded) << r.doc().at("auto_fold").dump();
  const json& work = r.node({"main", "work"});
  const json& tiny = r.node({"main", "work", "tiny"});
  const double share = double(u64(tiny, "total_samples")) / double(std::max<uint64_t>(1, u64(work, "total_samples")));
  measured("tiny_share_of_work_samples", share);
  measured("work_samples", double(u64(work, "total_samples")));
  EXPECT_GE(u64(work, "total_samples"), 600u) << "too few samples to judge the share";
  // The truth is the program's own measure of the split; the design's half holds when the
  // machine ran both loops alike (it did not always here: 0.50-0.63).
  construction_held("tiny_share", by_program, 0.5, 0.05);
  // Within 0.08: the program's clock reads put the hooks' cost before the fold in the parts
  // they fell in, the samples leave the runtime's out (0.444 against 0.498 once in a CI run,
  // from 2,007 samples, when the program still summed its parts: a stop of the machine in
  // one then moved its split too); exact mode alone gives tiny none at all.
  EXPECT_NEAR(share, by_program, 0.08);
  // The same node as tiny's calls before the fold (one function table: by identity).
  EXPECT_GT(u64(tiny, "calls"), 0u);
  EXPECT_LT(u64(tiny, "calls"), 300000u) << "folded after a first check";
  // Every sample is in a tree, the runtime's or unplaced, each counted once.
  const json& s = r.doc().at("metadata").at("sampling");
  EXPECT_EQ(s.at("unwind"), "shadow-stack");
  EXPECT_EQ(s.at("frequency_hz"), 4999);
  EXPECT_EQ(tree_samples(r.doc().at("tree")) + u64(s, "runtime_samples") + u64(s, "unplaced_samples"),
            u64(s, "samples"));
  EXPECT_EQ(u64(s, "unplaced_samples"), 0u);
  expect_report_invariants(r);

  // The report says where exact mode and the samples disagree: the folded function's time
  // is in its caller's exact self, its samples are its own.
  std::vector<std::string> disagreeing;
  for (const json& d : r.doc().at("sample_disagreements")) disagreeing.push_back(d.at("name"));
  EXPECT_NE(std::find(disagreeing.begin(), disagreeing.end(), "tiny"), disagreeing.end())
      << r.doc().at("sample_disagreements");
  EXPECT_NE(std::find(disagreeing.begin(), disagreeing.end(), "work"), disagreeing.end())
      << r.doc().at("sample_disagreements");

  // --time sampled: the samples' CPU as every node's self time, in every output. Exact
  // mode's own times give tiny none of work's time after the fold; the samples give it half.
  const Report sampled = report({"--time", "sampled"});
  const double by_time = double(u64(sampled.node({"main", "work", "tiny"}), "total_ns")) /
                         double(std::max<uint64_t>(1, u64(sampled.node({"main", "work"}), "total_ns")));
  EXPECT_NEAR(by_time, share, 0.001) << "the same shares as the samples'";
  EXPECT_EQ(u64(sampled.node({"main", "work"}), "calls"), 30000u) << "the counts stay exact mode's";
  expect_report_invariants(sampled);
  const RunResult folded_stacks =
      run({E2E_CALLPROF, "export", "-i", "profile.callprof", "-f", "collapsed", "--time", "sampled"}, dir());
  ASSERT_EQ(folded_stacks.exit, exited(0)) << folded_stacks.err;
  EXPECT_NE(folded_stacks.out.find("main;work;tiny"), std::string::npos) << folded_stacks.out;
  // pprof: exact mode's calls and times, the samples a sample type beside them.
  const RunResult pprof =
      run({E2E_CALLPROF, "export", "-i", "profile.callprof", "-f", "pprof", "-o", "p.pb.gz"}, dir());
  ASSERT_EQ(pprof.exit, exited(0)) << pprof.err;
  for (const std::string type : {"calls", "samples"}) {
    const RunResult top =
        run({"/usr/bin/env", "go", "tool", "pprof", "-sample_index=" + type, "-top", "p.pb.gz"}, dir());
    EXPECT_EQ(top.exit, exited(0)) << top.err;
    EXPECT_NE(top.out.find("Type: " + type), std::string::npos) << top.out;
  }
  const RunResult text =
      run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager", "--time", "sampled"}, dir());
  EXPECT_NE(text.out.find("# times:    sampled (--time sampled)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("# disagree:"), std::string::npos) << "times taken from the samples agree with them";
  const RunResult measured_text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager"}, dir());
  EXPECT_NE(measured_text.out.find("# disagree: "), std::string::npos) << measured_text.out;
}

// Twenty million calls of an empty function, every one hooked: nearly all of the CPU is the
// hooks', and those samples are the runtime's, counted apart; no node stands for them.
TEST_P(ExactSamples, SamplesInTheRuntimeAreCountedApart) {
  const Report r = record_sampled({"-F", "4999", "--no-auto-fold"}, build("exact_samples.c", {"-g"}), {"hooks"});
  expect_function_calls(r, {{"empty", 20000000}, {"hooks", 1}});
  const json& s = r.doc().at("metadata").at("sampling");
  const double runtime = double(u64(s, "runtime_samples")) / double(std::max<uint64_t>(1, u64(s, "samples")));
  measured("runtime_share_of_samples", runtime);
  EXPECT_GE(u64(s, "samples"), 300u);
  EXPECT_GT(runtime, 0.5);
  EXPECT_FALSE(in_runtime(r, r.doc().at("tree"))) << "a sample in the runtime was charged to the program";
  EXPECT_EQ(tree_samples(r.doc().at("tree")) + u64(s, "runtime_samples") + u64(s, "unplaced_samples"),
            u64(s, "samples"));
}

// System calls and samples in one recording, one tree: the program's write (its printf)
// under main, placed by the shadow stack as the samples are, and the samples under work.
TEST_P(ExactSamples, SystemCallsAndSamplesShareTheExactTree) {
  const Report r =
      record_sampled({"-F", "4999", "--auto-fold", "all", "--syscalls", "write"}, build("exact_samples.c", {"-g"}));
  expect_path_calls(r, {{{"main", "[syscall] write"}, 1}});
  EXPECT_GT(u64(r.node({"main", "work", "tiny"}), "total_samples"), 100u);
  expect_function_calls(r, {{"work", 30000}});
  const json& facts = r.doc().at("metadata");
  EXPECT_EQ(facts.at("sampling").at("unwind"), "shadow-stack");
  EXPECT_GE(u64(facts.at("syscalls"), "exact_callers"), 1u);
  EXPECT_EQ(r.threads().size(), 1u) << "one thread, one tree";
  expect_report_invariants(r);
}

// Without -F exact mode takes no samples: no sampling facts, no samples on any node.
TEST_P(ExactSamples, NoFrequencyNoSamples) {
  const Report r = record_sampled({"--auto-fold", "all"}, build("exact_samples.c", {"-g"}));
  EXPECT_TRUE(r.doc().at("metadata").at("sampling").is_null());
  EXPECT_EQ(tree_samples(r.doc().at("tree")), 0u);
  expect_function_calls(r, {{"work", 30000}});
  const RunResult refused =
      run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager", "--time", "sampled"}, dir());
  EXPECT_EQ(refused.exit, exited(2));
  EXPECT_EQ(refused.err,
            "callprof: error: --time sampled: the profile has no samples (record it with -F HZ, or in sample "
            "mode)\n");
}

}  // namespace
}  // namespace e2e
