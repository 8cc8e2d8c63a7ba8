// End-to-end: sampling mode on programs built without hooks (record --mode sample, and
// attach), frame pointers and DWARF unwinding, off-CPU time, and attach errors.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "e2e_support.h"

namespace e2e {
namespace {

class Sampling : public E2ETest {
 protected:
  // Debian's default flags; `frame_pointers` adds -fno-omit-frame-pointer.
  std::string build_plain(bool frame_pointers, const std::string& source = "sampled.c") {
    return E2ETest::build_plain(
        source, frame_pointers ? std::vector<std::string>{"-fno-omit-frame-pointer"} : std::vector<std::string>{});
  }
  Report record_sampled(const std::string& binary, const std::vector<std::string>& options,
                        const std::vector<std::string>& args = {}) {
    return record_with(options, binary, args);
  }
};
E2E_INSTANTIATE(Sampling);

// The share of samples in heavy among heavy and light: 3:1 by construction.
void expect_three_to_one(const Report& r) {
  const double heavy = double(u64(r.function("heavy"), "total_samples"));
  const double light = double(u64(r.function("light"), "total_samples"));
  measured("heavy_share_percent", 100 * heavy / (heavy + light));
  EXPECT_GT(heavy + light, 250) << "about 400 samples at 999 Hz";
  EXPECT_NEAR(heavy / (heavy + light), 0.75, 0.08);
}

// --call-graph auto (the default): DWARF for a program built as Debian builds (no frame
// pointers), frame pointers for one that keeps them; the profile says which and why.
TEST_P(Sampling, AutoUnwindingFollowsTheProgramsFramePointers) {
  const Report without = record_sampled(build_plain(false), {});
  const json& s = without.doc().at("metadata").at("sampling");
  EXPECT_EQ(s.at("unwind"), "dwarf");
  EXPECT_NE(s.at("unwind_reason").get<std::string>().find("auto: "), std::string::npos) << s.dump();
  expect_three_to_one(without);
  EXPECT_FALSE(without.paths_to("heavy").empty());
  for (const auto& path : without.paths_to("heavy"))
    EXPECT_TRUE(std::find(path.begin(), path.end(), "main") != path.end()) << join_path(path);
  const Report with = record_sampled(build_plain(true), {});
  EXPECT_EQ(with.doc().at("metadata").at("sampling").at("unwind"), "fp");
  const Report chosen = record_sampled(build_plain(false), {"--call-graph", "fp"});
  EXPECT_EQ(chosen.doc().at("metadata").at("sampling").at("unwind_reason"), "") << "the user chose";
}

TEST_P(Sampling, DwarfUnwindingGivesFullPathsWithoutFramePointers) {
  const Report r = record_sampled(build_plain(false), {"--call-graph", "dwarf"});
  EXPECT_EQ(r.doc().at("metadata").at("mode"), "sample");
  expect_three_to_one(r);
  const auto paths = r.paths_to("heavy");
  bool through_work = false;
  for (const auto& p : paths)
    if (p.size() >= 3 && same_path({p.end()[-3], p.end()[-2], p.end()[-1]}, {"main", "work", "heavy"}))
      through_work = true;
  EXPECT_TRUE(through_work) << "main -> work -> heavy by CFI";
}

TEST_P(Sampling, FramePointerUnwindingWithFramePointers) {
  const Report r = record_sampled(build_plain(true), {"--mode", "sample"});
  expect_three_to_one(r);
  bool through_work = false;
  for (const auto& p : r.paths_to("light"))
    if (p.size() >= 2 && same_path({p.end()[-2], p.end()[-1]}, {"work", "light"})) through_work = true;
  EXPECT_TRUE(through_work);
}

TEST_P(Sampling, OffCpuTimeIsChargedToTheBlockingPath) {
  const Report r = record_sampled(build_plain(false), {"--call-graph", "dwarf", "--off-cpu"});
  const json& nap = r.function("nap");
  measured("nap_offcpu_ms", ms(u64(nap, "total_offcpu_ns")));
  EXPECT_NEAR(double(u64(nap, "total_offcpu_ns")), 200e6, 40e6);
}

TEST_P(Sampling, ThreadsBlockedInSleepLocksPollAndReadAreChargedTheirWait) {
  const Report r = record_sampled(build_plain(false, "blocking.c"), {"--call-graph", "dwarf", "--off-cpu"});
  for (auto [fn, ms] : {std::pair{"sleeper", 150.0}, {"waiter", 100.0}, {"poller", 80.0}, {"reader", 120.0}}) {
    const double off = double(u64(r.function(fn), "total_offcpu_ns")) / 1e6;
    measured(std::string(fn) + "_offcpu_ms", off);
    EXPECT_NEAR(off, ms, 0.25 * ms) << fn;
  }
  EXPECT_EQ(r.threads().size(), 5u);
}

// Child processes only on request: without --children the child's 100 ms are not in the
// profile; with it they are, in a process of their own whose parent is the program.
TEST_P(Sampling, ChildProcessesAreFollowedOnRequest) {
  const std::string binary = build_plain(false);
  const Report alone = record_sampled(binary, {"--call-graph", "dwarf"}, {"fork"});
  EXPECT_EQ(alone.processes().size(), 1u);
  EXPECT_EQ(alone.find_function("child_burn"), nullptr);
  expect_three_to_one(alone);

  const Report both = record_sampled(binary, {"--call-graph", "dwarf", "--children"}, {"fork"});
  ASSERT_EQ(both.processes().size(), 2u);
  const json& parent = both.processes()[0];
  const json& child = both.processes()[1];
  EXPECT_EQ(child.at("ppid"), parent.at("pid"));
  const double child_ms = double(u64(both.function("child_burn"), "total_cpu_ns")) / 1e6;
  measured("child_burn_ms", child_ms);
  EXPECT_NEAR(child_ms, 100, 30);
  size_t child_threads = 0;
  for (const json& t : both.threads()) child_threads += t.at("pid") == child.at("pid") ? 1 : 0;
  EXPECT_EQ(child_threads, 1u);
  expect_three_to_one(both);
}

TEST_P(Sampling, AttachSamplesARunningProcessAndLeavesItRunning) {
  const std::string binary = build_plain(false);
  const int status = attach_to_running({binary, "forever"}, {"--duration", "1", "--call-graph", "dwarf"}, 200);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "it died of our SIGKILL, not of the attach";
  expect_three_to_one(report());
}

// Hardware counters where the machine has them; where it has none (virtual machines
// usually), one clear line, and the test says it could not sample.
TEST_P(Sampling, HardwareEventsSampleOrSayTheMachineHasNone) {
  const std::string binary = build_plain(false);
  RunResult r = run(
      {E2E_CALLPROF, "record", "-q", "-e", "cycles", "--call-graph", "dwarf", "-o", "profile.callprof", "--", binary},
      dir());
  if (r.exit != exited(0)) {
    EXPECT_NE(r.err.find("no hardware counter"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    GTEST_SKIP() << "this machine has no hardware counters: " << r.err;
  }
  const Report rep = report();
  EXPECT_EQ(rep.doc().at("metadata").at("sampling").at("event"), "cycles");
  expect_three_to_one(rep);
}

TEST_P(Sampling, AttachToAMissingProcessIsAOneLineError) {
  RunResult r = run({E2E_CALLPROF, "attach", "--duration", "1", "999999999"}, dir());
  EXPECT_EQ(r.exit, exited(2));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no process"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace e2e

namespace e2e {
namespace {

// Self time by call path, the path reduced to the functions in `known` (outermost first,
// repeats collapsed): sampled stacks also hold libc, kernel and inline frames that exact
// mode counts as self time of the instrumented caller.
void self_by_path(const json& nodes, const std::set<std::string>& known, std::vector<std::string>& path,
                  std::map<std::vector<std::string>, double>& out) {
  for (const json& n : nodes) {
    const std::string name = n.at("name").get<std::string>();
    const bool keep = known.count(name) && (path.empty() || path.back() != name);
    if (keep) path.push_back(name);
    if (!path.empty()) out[path] += double(n.at("self_ns").get<uint64_t>());
    self_by_path(n.at("children"), known, path, out);
    if (keep) path.pop_back();
  }
}

// Total variation distance between two distributions given as weights.
double total_variation(std::map<std::vector<std::string>, double> p, std::map<std::vector<std::string>, double> q) {
  double sp = 0, sq = 0;
  for (auto& [k, v] : p) sp += v;
  for (auto& [k, v] : q) sq += v;
  std::set<std::vector<std::string>> keys;
  for (auto& [k, v] : p) keys.insert(k);
  for (auto& [k, v] : q) keys.insert(k);
  double d = 0;
  for (const auto& k : keys) d += std::abs((p.count(k) ? p[k] / sp : 0) - (q.count(k) ? q[k] / sq : 0));
  return d / 2;
}

// The samples of a line of `annotate --disasm` text: "  SAMPLES  SELF%  CALLEES  0xADDRESS  ...".
uint64_t disassembly_samples(const std::string& text) {
  uint64_t sum = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    unsigned long long samples = 0;
    char percent[32], callees[32], address[32];
    if (std::sscanf(line.c_str(), " %llu %31s %31s %31s", &samples, percent, callees, address) == 4 &&
        std::string_view(address).starts_with("0x"))
      sum += samples;
  }
  return sum;
}

// GCC moves work's loop to a part of its own (work.cold), which runs on work's frame: its
// samples are work's own, as exact mode counts them (ExactSamples.ASampleInTheFunctionsColdPart
// IsItsOwn), not a function beside work as perf reports it; `annotate --disasm` lists the
// part's instructions with their samples. In C++ too ("ns::work(int) [clone .cold]").
TEST_P(Sampling, ASampleInAFunctionsColdPartIsTheFunctionsOwn) {
  for (const ColdPartProgram& c : cold_part_programs()) {
    SCOPED_TRACE(c.source);
    const std::string binary = E2ETest::build_plain(c.source, {"-g"});
    if (const std::string why = unsplit(binary, c); !why.empty()) FAIL() << why;
    const Report r = record_sampled(binary, {"-F", "999"});
    const json& work = r.function(c.work);
    measured("work_samples", double(u64(work, "total_samples")));
    EXPECT_GT(u64(work, "total_samples"), 20u) << "about 0.1 s of CPU at 999 Hz";
    EXPECT_GE(u64(work, "samples") * 10, u64(work, "total_samples") * 9) << work.dump();
    EXPECT_EQ(r.find_function(c.cold_name), nullptr);
    const RunResult text = run({E2E_CALLPROF, "annotate", "-i", "profile.callprof", "--disasm", c.work}, dir());
    ASSERT_EQ(text.exit, exited(0)) << text.err;
    EXPECT_GE(disassembly_samples(text.out) * 10, u64(work, "samples") * 9) << text.out;
  }
}

TEST_P(Sampling, SelfTimeDistributionMatchesExactMode) {
  const std::string binary = build("sampled.c");  // with hooks: exact mode can record it too
  const Report exact = record_and_report(binary);
  RunResult r = run({E2E_CALLPROF, "record", "-q", "--mode", "sample", "--call-graph", "dwarf", "-o",
                     "sampled.callprof", "--", binary},
                    dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report sampled = report({}, "sampled.callprof");
  std::set<std::string> known;
  for (const json& f : exact.doc().at("functions")) known.insert(f.at("name").get<std::string>());
  std::map<std::vector<std::string>, double> p, q;
  std::vector<std::string> path;
  self_by_path(exact.doc().at("tree"), known, path, p);
  self_by_path(sampled.doc().at("tree"), known, path, q);
  // Exact mode also measured nap's 200 ms asleep: compare on-CPU work only.
  for (auto* d : {&p, &q}) std::erase_if(*d, [](const auto& e) { return e.first.back() == "nap"; });
  const double tvd = total_variation(p, q);
  measured("self_time_tvd_percent", 100 * tvd);
  EXPECT_LT(tvd, 0.10) << "SPEC: within 5 % (bench/); here with a wide margin";
}

}  // namespace
}  // namespace e2e
