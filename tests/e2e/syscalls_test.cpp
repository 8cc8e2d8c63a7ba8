// End-to-end: system calls traced with call stacks (--syscalls) on programs whose calls are
// known by construction (programs/syscalls.c): exact counts per path and per errno, a
// blocking read's duration, a child's calls in the child, alone and combined with exact
// mode and sampling, attach, and the one-line errors. Needs eBPF (root or CAP_BPF +
// CAP_PERFMON): without it every test here is skipped, saying so.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>

#include "e2e_support.h"

namespace e2e {
namespace {

class Syscalls : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (const std::string why = kernel_probe_unavailable(dir()); !why.empty())
      GTEST_SKIP() << "system-call tracing is not available here: " << why;
  }
  // Debian's default flags (-O2, no frame pointers), or with hooks for exact mode.
  std::string build_program(bool hooks) { return hooks ? build("syscalls.c", {"-g"}) : build_plain("syscalls.c"); }
  Report traced(const std::string& binary, const std::vector<std::string>& options,
                const std::vector<std::string>& args = {}) {
    return record_with(options, binary, args);
  }
};
E2E_INSTANTIATE(Syscalls);

const json& syscall(const Report& r, const std::string& name) {
  for (const json& s : r.doc().at("syscalls"))
    if (s.at("name") == name) return s;
  throw std::runtime_error("system call " + name + " is not in the report");
}

// Calls of `name` on paths through function `via` (the path's callers, any position).
uint64_t calls_via(const Report& r, const std::string& name, const std::string& via, const char* key = "calls") {
  uint64_t n = 0;
  for (const json& p : syscall(r, name).at("paths")) {
    bool through = false;
    for (const json& f : p.at("path")) through = through || (f.is_string() && same_function(f.get<std::string>(), via));
    if (through) n += u64(p, key);
  }
  return n;
}

void expect_known_calls(const Report& r) {
  EXPECT_EQ(calls_via(r, "write", "f1"), 3000u);
  EXPECT_EQ(calls_via(r, "write", "f2"), 1000u);
  EXPECT_EQ(calls_via(r, "read", "f2"), 500u);
  EXPECT_EQ(calls_via(r, "write", "bad_writes"), 100u);
  EXPECT_EQ(calls_via(r, "write", "bad_writes", "errors"), 100u);
  EXPECT_EQ(calls_via(r, "write", "varying_writes"), 2000u);
  size_t varying_paths = 0;
  for (const json& p : syscall(r, "write").at("paths"))
    for (const json& f : p.at("path"))
      varying_paths += f.is_string() && same_function(f.get<std::string>(), "varying_writes");
  EXPECT_EQ(varying_paths, 1u) << "stack bytes that differ at every call are still one path";
  EXPECT_EQ(calls_via(r, "write", "f1", "errors"), 0u);
  const json& write = syscall(r, "write");
  EXPECT_EQ(u64(write, "errors"), 100u);
  EXPECT_EQ(write.at("errnos").at("EBADF"), 100u);
  const uint64_t blocked = calls_via(r, "read", "pipe_wait", "total_ns");
  measured("pipe_read_ms", ms(blocked));
  EXPECT_NEAR(ms(blocked), 100, 30) << "a read on a pipe whose writer waits 100 ms";
}

TEST_P(Syscalls, PathsCountsErrorsAndDurationsAreExact) {
  const Report r = traced(build_program(false), {"--mode", "syscall", "--syscalls", "write,read"});
  EXPECT_EQ(r.doc().at("metadata").at("mode"), "syscall");
  EXPECT_EQ(r.doc().at("metadata").at("syscalls").at("lost_events"), 0);
  expect_known_calls(r);
  const json& read = syscall(r, "read");
  EXPECT_GE(u64(read, "max_ns"), 70'000'000u);
  EXPECT_LE(u64(read, "p50_ns"), u64(read, "p99_ns"));
  EXPECT_LE(u64(read, "p99_ns"), u64(read, "max_ns"));
  for (const json& s : r.doc().at("syscalls"))
    EXPECT_TRUE(s.at("name") == "write" || s.at("name") == "read") << s.at("name");
  // The leaves are in the tree too, and the text view lists the paths.
  EXPECT_EQ(u64(r.function("[syscall] write"), "calls"), 6102u);
  RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--view", "syscalls"}, dir());
  EXPECT_EQ(text.exit, exited(0)) << text.err;
  EXPECT_NE(text.out.find("EBADF 100"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Paths to write"), std::string::npos) << text.out;
}

// Without frame pointers the stack above the copied window is unknown: a larger window
// reaches main through four frames of ~300 bytes.
TEST_P(Syscalls, ALargerStackWindowReachesFurtherWithoutFramePointers) {
  const Report r =
      traced(build_program(false), {"--mode", "syscall", "--syscalls", "write", "--syscall-stack-bytes", "4096"});
  bool full = false;
  for (const json& p : syscall(r, "write").at("paths")) {
    std::vector<std::string> names;
    for (const json& f : p.at("path")) names.push_back(f.is_string() ? f.get<std::string>() : "");
    auto at = std::find_if(names.begin(), names.end(), [](const std::string& n) { return same_function(n, "main"); });
    if (at != names.end() && names.end() - at >= 5 &&
        same_path({at[0], at[1], at[2], at[3], at[4]}, {"main", "deep_a", "deep_b", "deep_c", "deep_d"}))
      full = true;
  }
  EXPECT_TRUE(full) << "main > deep_a > deep_b > deep_c > deep_d > write";
  EXPECT_EQ(calls_via(r, "write", "f1"), 3000u);
}

TEST_P(Syscalls, WithoutStacksOnlyTheCallsAreCounted) {
  const Report r =
      traced(build_program(false), {"--mode", "syscall", "--syscalls", "write", "--syscall-stacks", "none"});
  const json& write = syscall(r, "write");
  EXPECT_EQ(u64(write, "calls"), 6102u);
  ASSERT_EQ(write.at("paths").size(), 1u);
  EXPECT_TRUE(write.at("paths")[0].at("path").empty()) << "no stack: the leaf hangs at the root";
}

TEST_P(Syscalls, FullStacksNameTheKernelWhereABlockingCallSlept) {
  const Report r =
      traced(build_program(false), {"--mode", "syscall", "--syscalls", "read", "--syscall-stacks", "full"});
  EXPECT_EQ(calls_via(r, "read", "f2"), 500u);
  EXPECT_EQ(calls_via(r, "read", "pipe_wait"), 1u);
  EXPECT_EQ(calls_via(r, "read", "schedule"), 1u) << "only the pipe read sleeps";
}

TEST_P(Syscalls, ChildProcessCallsAreTheChilds) {
  const Report r = traced(build_program(false), {"--mode", "syscall", "--syscalls", "write", "--children"}, {"fork"});
  ASSERT_EQ(r.processes().size(), 2u);
  const std::string child = std::to_string(u64(r.processes()[1], "pid"));
  const Report own = report({"--thread", child});
  EXPECT_EQ(calls_via(own, "write", "child_writes"), 200u);
  EXPECT_EQ(calls_via(own, "write", "f1"), 0u);
  EXPECT_EQ(calls_via(r, "write", "f1"), 3000u);
}

// 200 forked children of one image share its symbol tables: before, each cost ~43 ms (here
// up to ~190 ms) of work after the program ended (40 s for this run on a loaded VM).
TEST_P(Syscalls, TwoHundredForkedChildrenCostLittleAfterTheProgram) {
  const std::string binary = build("many_forks.c");
  const auto timed = [&](std::vector<std::string> argv) {
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run(argv, dir(), "", 120);
    EXPECT_EQ(r.exit, exited(0)) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double alone = timed({binary, "200"});
  const double recorded =
      timed({E2E_CALLPROF, "record", "-q", "--syscalls", "all", "-o", "profile.callprof", "--", binary, "200"});
  measured("record_syscalls_200_forks_s", recorded);
  measured("alone_200_forks_s", alone);
  EXPECT_EQ(report().processes().size(), 201u);
  EXPECT_LT(recorded - alone, 8.0);
}

// Exact mode and system calls in one recording: the leaves hang under the instrumented
// callers, and the blocking read's duration agrees with exact mode's off-CPU time.
TEST_P(Syscalls, CombinedWithExactModeTheLeavesJoinTheExactTree) {
  const Report r = traced(build_program(true), {"--syscalls", "write,read"});
  EXPECT_EQ(r.doc().at("metadata").at("mode"), "exact");
  expect_known_calls(r);
  EXPECT_EQ(u64(r.node({"main", "f1", "[syscall] write"}), "calls"), 3000u);
  EXPECT_EQ(u64(r.node({"main", "f1"}), "calls"), 1u) << "the function's own calls are unchanged";
  const json& blocked = r.node({"main", "pipe_wait", "[syscall] read"});
  const double offcpu = ms(u64(blocked, "offcpu_ns")), syscall_ms = ms(u64(blocked, "self_ns"));
  measured("blocked_read_offcpu_ms", offcpu);
  EXPECT_NEAR(offcpu, syscall_ms, 0.1 * syscall_ms);
  EXPECT_NEAR(syscall_ms, 100, 30);
  expect_report_invariants(r);
}

// Calls made from a frame no stack window reaches past, in code without frame pointers
// (programs/exact_syscalls.c): exact mode's shadow stack places every one under its
// instrumented caller, in the main thread, another thread and a forked child. Unwinding
// put them at the root (issue 15.1).
TEST_P(Syscalls, ExactModePlacesEveryCallUnderItsInstrumentedCaller) {
  const Report r = traced(build("exact_syscalls.c", {"-g", "-fomit-frame-pointer"}), {"--syscalls", "read,getsid"});
  expect_path_calls(r, {{{"main", "big_frame_reads", "[syscall] read"}, 300},
                        {{"main", "sid_twice", "[syscall] getsid"}, 2},
                        {{"worker", "worker_loop", "[syscall] getsid"}, 200},
                        {{"main", "child_calls", "[syscall] getsid"}, 50},
                        {{"main", "[syscall] getsid"}, 1}});
  EXPECT_EQ(r.find_node({"[syscall] getsid"}), nullptr) << "no call of the program's own code is at the root";
  EXPECT_EQ(u64(syscall(r, "getsid"), "calls"), 253u);
  const json& facts = r.doc().at("metadata").at("syscalls");
  EXPECT_GE(u64(facts, "exact_callers"), 253u + 300u);
  EXPECT_EQ(u64(facts, "exact_callers_unplaced"), 0u);
  measured("syscalls_placed_by_shadow_stack", double(u64(facts, "exact_callers")));
  expect_report_invariants(r);
}

// The runtime's own thread (snapshots) is never one of the program's, in the parent or in
// its forked child, though the system-call tracer sees the calls it makes before it mutes
// itself (issue 30.4: 502 threads were reported for 501).
TEST_P(Syscalls, TheRuntimesOwnThreadIsNotTheProgramsWithSnapshots) {
  const std::string binary = build("exact_syscalls.c", {"-g"});
  const Report plain = traced(binary, {"--syscalls", "all"});
  const Report snapped = traced(binary, {"--syscalls", "all", "--snapshot-interval", "0.02"});
  EXPECT_EQ(snapped.threads().size(), plain.threads().size());
  EXPECT_EQ(plain.threads().size(), 3u) << "main and worker, the child's main";
  for (const json& t : snapped.threads()) EXPECT_NE(t.at("name"), "callprof-snap") << t.dump();
  expect_path_calls(snapped, {{{"worker", "worker_loop", "[syscall] getsid"}, 200}});
}

TEST_P(Syscalls, CombinedWithSamplingTheLeavesCountCalls) {
  const Report r = traced(build_program(false), {"--mode", "sample", "--call-graph", "dwarf", "--syscalls", "write"});
  EXPECT_EQ(r.doc().at("metadata").at("mode"), "sample");
  EXPECT_EQ(calls_via(r, "write", "f1"), 3000u);
  EXPECT_EQ(u64(syscall(r, "write"), "calls"), 6102u);
}

TEST_P(Syscalls, AttachTracesARunningProcessAndLeavesItRunning) {
  const int status = attach_to_running({"/bin/sh", "-c", "while :; do echo x >/dev/null; done"},
                                       {"--mode", "syscall", "--syscalls", "write", "--duration", "0.5"}, 100);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "it died of our SIGKILL, not of the attach";
  EXPECT_GT(u64(syscall(report(), "write"), "calls"), 100u);
}

TEST_P(Syscalls, BadSelectionsAndMissingProcessesAreOneLineErrors) {
  RunResult bad =
      run({E2E_CALLPROF, "record", "--mode", "syscall", "--syscalls", "write,nosuch", "--", "/bin/true"}, dir());
  EXPECT_NE(bad.exit, exited(0));
  EXPECT_NE(bad.err.find("nosuch"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  RunResult missing = run({E2E_CALLPROF, "attach", "--mode", "syscall", "--duration", "1", "999999999"}, dir());
  EXPECT_NE(missing.exit, exited(0));
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

}  // namespace
}  // namespace e2e
