// End-to-end: exact mode attached to a program built to be attached (issue 31's second
// step; docs/attach.md, "Programs built to be attached"): compiled with
// -fpatchable-function-entry=5 and no hooks, it runs at the plain build's speed; the attach
// patches its entry nops into calls of the runtime and sees each return by replacing the
// return address. In every window each call is counted (b = 3 a) under the frames open at
// the attach; at the detach the nops come back byte for byte; signals, longjmp, C++
// exceptions (cleanups, rethrows), threads and forks go on as without callprof, and each
// program's own check of its results passes.
#include <fcntl.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "attach_fixture.h"

namespace e2e {
namespace {

constexpr const char* kAttachable = "-fpatchable-function-entry=5";

class AttachPatched : public AttachFixture {
 protected:
  std::string build_attachable(const std::string& source) { return build_plain(source, {"-lpthread", kAttachable}); }

  // The first 8 bytes of `function` in the running `binary` (process `pid`).
  std::string entry_bytes(pid_t pid, const std::string& binary, const std::string& function) {
    const RunResult nm = run({"/usr/bin/env", "nm", "-P", binary}, dir());
    std::istringstream lines(nm.out);
    uint64_t address = 0;
    for (std::string line; std::getline(lines, line);) {  // "NAME TYPE VALUE SIZE"
      std::istringstream fields(line);
      std::string name, type, value;
      if (fields >> name >> type >> value && name == function) address = std::stoull(value, nullptr, 16);
    }
    uint64_t base = 0;
    const std::string mapped = std::filesystem::canonical(binary).string();  // as /proc/PID/maps names it
    std::istringstream maps(maps_of(pid));
    for (std::string line; std::getline(maps, line);)
      if (line.ends_with(" " + mapped) && line.find(" 00000000 ") != std::string::npos) {
        base = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
        break;
      }
    if (address == 0 || base == 0) return "";
    // pread, not a buffered stream: a read past the mapping fails as a whole.
    const int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    char bytes[8] = {};
    const bool read = fd >= 0 && pread(fd, bytes, sizeof bytes, off_t(base + address)) == ssize_t(sizeof bytes);
    if (fd >= 0) close(fd);
    return read ? std::string(bytes, sizeof bytes) : "";
  }

  // The frames open when the window began are the path of its first calls, as with hooks
  // (attach_fixture.h), but for a(): its last call of b is a tail call (jmp b) in the
  // plain build, so a thread stopped inside that b had no frame of a's left: b's time
  // from the attach to its return hangs under worker, with no call counted.
  static void expect_patched_paths_from_the_attach(const Report& rep) {
    for (const auto& path : rep.paths_to("b")) {
      ASSERT_GE(path.size(), 2u) << join_path(path);
      const std::string& parent = path[path.size() - 2];
      EXPECT_TRUE(same_function(parent, "a") || same_function(parent, "worker")) << join_path(path);
      EXPECT_LE(path.size(), 4u) << join_path(path);
    }
    EXPECT_EQ(u64(rep.function("worker"), "calls"), 0u) << "open at the attach: no call counted";
    const json& exact = rep.doc().at("metadata").at("exact");
    EXPECT_TRUE(exact.at("attached").get<bool>());
    EXPECT_GE(exact.at("threads_open_at_attach").get<uint64_t>(), 1u);
    EXPECT_EQ(exact.at("unmatched_exits").get<uint64_t>(), 0u);
  }

  RunResult attach(pid_t pid, double seconds, const std::string& profile = "profile.callprof",
                   std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "attach", "-q", "-d", std::to_string(seconds), "-o", profile};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(std::to_string(pid));
    return run(argv, dir());
  }

  // b = 3 a within 3 per thread, and more than `at_least` calls of a.
};
E2E_INSTANTIATE(AttachPatched);

TEST_P(AttachPatched, EveryCallInTheWindowIsCountedAndTheNopsComeBack) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2"});
  const std::string before = entry_bytes(pid, binary, "a");
  ASSERT_EQ(before.size(), 8u) << "a's entry in the process";
  EXPECT_TRUE(before.rfind(std::string(5, '\x90'), 0) == 0 || before.rfind("\x0f\x1f\x44\x00", 0) == 0)
      << "the compiler's nops";
  const RunResult r = run({E2E_CALLPROF, "attach", "-d", "0.3", "-o", "profile.callprof", std::to_string(pid)}, dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  EXPECT_NE(r.err.find("attached to " + std::to_string(pid) + " in exact mode"), std::string::npos)
      << "a patchable program gets exact mode without --mode: " << r.err;
  EXPECT_EQ(entry_bytes(pid, binary, "a"), before) << "the detach gives the nops back";
  const Report rep = report();
  expect_b_is_three_a(rep, 6, 1000);
  expect_patched_paths_from_the_attach(rep);
  expect_checked_ok(pid, 2);
}

// Each window holds its own calls; the frames left open by one window (worker, main) are
// given back their return addresses before the next unwinds them.
TEST_P(AttachPatched, TenAttachesInARowEachHoldOnlyTheirWindow) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"4"});
  const std::string before = entry_bytes(pid, binary, "b");
  for (int round = 0; round < 10; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string profile = "window" + std::to_string(round) + ".callprof";
    const RunResult r = attach(pid, 0.05, profile, {"--mode", "exact"});
    ASSERT_EQ(r.exit, exited(0)) << r.err;
    const Report rep = report({}, profile);
    expect_b_is_three_a(rep, 12, 100);
    expect_patched_paths_from_the_attach(rep);
    EXPECT_EQ(entry_bytes(pid, binary, "b"), before);
  }
  expect_checked_ok(pid, 4);
}

TEST_P(AttachPatched, PerCallerTimesAreMeasuredInTheWindow) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"1", "split"});
  const RunResult r = attach(pid, 1);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report();
  const double xd = double(u64(rep.edge("x", "d"), "total_ns")), yd = double(u64(rep.edge("y", "d"), "total_ns"));
  ASSERT_GT(xd + yd, 0.0);
  measured("x_share_of_d", xd / (xd + yd));
  // A wake-up later than d's final spin adds the same to both callers' calls and lowers
  // x's share: 0.730 under the full suite's load (about 185 us late on average). Averaged
  // over callers, the share would be 0.5.
  EXPECT_GT(xd / (xd + yd), 0.70) << "x->d " << xd << " ns, y->d " << yd << " ns";
  EXPECT_LT(xd / (xd + yd), 0.77) << "x->d " << xd << " ns, y->d " << yd << " ns";
  expect_checked_ok(pid, 1);
}

// A SIGALRM every millisecond calls a() on whichever thread it interrupts, inside a patched
// call's trampoline too: the counts still hold and the program checks itself.
TEST_P(AttachPatched, SignalHandlersCallPatchedFunctions) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2", "alarms"});
  const RunResult r = attach(pid, 0.5);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  expect_b_is_three_a(report(), 6, 1000);
  EXPECT_GT(u64(report().function("on_alarm"), "calls"), 50u);
  expect_checked_ok(pid, 2);
}

// thrower() longjmps out of its frame, whose return address the runtime had replaced: the
// frame closes at the jump and the next returns find theirs.
TEST_P(AttachPatched, FramesLeftByLongjmpCloseAtTheJump) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2", "jumps"});
  const RunResult r = attach(pid, 0.5);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report({"--raw"});
  const double thrower = double(u64(rep.function("thrower"), "total_ns"));
  const double jumper = double(u64(rep.function("jumper"), "total_ns"));
  EXPECT_GT(u64(rep.function("thrower"), "calls"), 100u);
  EXPECT_LT(thrower, 0.2 * jumper) << "thrower " << thrower << " ns, jumper " << jumper << " ns";
  for (const auto& path : rep.paths_to("jumper")) EXPECT_LE(path.size(), 3u) << join_path(path);
  expect_checked_ok(pid, 2);
}

// C++ exceptions unwind through patched frames (the unwinder must never meet the
// trampoline): cleanups run, rethrows are caught again, and every dive() frame a throw
// left is closed at its catch: dive's calls are 5 per round.
TEST_P(AttachPatched, ExceptionsUnwindThroughPatchedFrames) {
  require_cxx();
  const std::string binary = build_attachable("attach_throw.cpp");
  const pid_t pid = start(binary, {"2"});
  const RunResult r = attach(pid, 0.5);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report();
  const uint64_t rounds = u64(rep.function("play_round"), "calls"), dives = u64(rep.function("dive"), "calls");
  EXPECT_GT(rounds, 100u);
  EXPECT_LE(dives, 5 * rounds + 10) << "5 dive calls per round, within a round per thread";
  EXPECT_GE(dives + 10, 5 * rounds) << "5 dive calls per round, within a round per thread";
  for (const auto& path : rep.paths_to("play_round")) EXPECT_LE(path.size(), 3u) << join_path(path);
  expect_checked_ok(pid, 2);
}

// Threads started while attached are recorded whole; a fork's child with --children too,
// and without it the child gets its nops back and runs as the program would.
TEST_P(AttachPatched, ThreadsAndForksWhileAttached) {
  const std::string binary = build_attachable("attach_target.c");
  {
    const pid_t pid = start(binary, {"1", "threads"});
    const RunResult r = attach(pid, 0.5);
    ASSERT_EQ(r.exit, exited(0)) << r.err;
    const Report rep = report();
    EXPECT_GT(u64(rep.function("short_lived"), "calls"), 10u);
    expect_checked_ok(pid, 1);
  }
  for (bool children : {true, false}) {
    SCOPED_TRACE(children ? "--children" : "no --children");
    const pid_t pid = start(binary, {"1", "fork"});
    const RunResult r = attach(pid, 0.5, "fork.callprof",
                               children ? std::vector<std::string>{"--children"} : std::vector<std::string>{});
    ASSERT_EQ(r.exit, exited(0)) << r.err;
    const Report rep = report({}, "fork.callprof");
    EXPECT_EQ(rep.processes().size() > 1, children);
    expect_checked_ok(pid, 1);
  }
}

// callprof killed with -9 at any moment of an attach: the program runs on, with its nops
// or with the runtime dormant, and checks itself.
TEST_P(AttachPatched, KillingCallprofAnywhereLeavesTheProgramRunning) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2"});
  for (int round = 0; round < 6; ++round) {
    const Started attach =
        e2e::start({E2E_CALLPROF, "attach", "-q", "-d", "5", "-o", "killed.callprof", std::to_string(pid)}, dir());
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 20 * round));
    kill(attach.pid, SIGKILL);
    e2e::finish(attach, 20);
    ASSERT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "round " << round << ": the program ended";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the runtime saw callprof end
  const RunResult r = attach(pid, 0.2, "after.callprof");
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  expect_b_is_three_a(report({}, "after.callprof"), 6, 100);
  expect_checked_ok(pid, 2);
}

// A function the filters leave out costs what the plain build pays once met: its site gets
// its nops back while the window is still open (the others stay calls), and nothing of it
// is recorded; a's calls are all counted.
TEST_P(AttachPatched, AnExcludedFunctionGetsItsNopsBackAtItsFirstCall) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2"});
  const std::string a_before = entry_bytes(pid, binary, "a"), b_before = entry_bytes(pid, binary, "b");
  const Started attach = e2e::start(
      {E2E_CALLPROF, "attach", "-q", "--exclude", "^b$", "-d", "1.5", "-o", "profile.callprof", std::to_string(pid)},
      dir());
  wait_for_runtime(pid, 500);
  const std::string a_during = entry_bytes(pid, binary, "a"), b_during = entry_bytes(pid, binary, "b");
  const RunResult r = e2e::finish(attach);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  ASSERT_EQ(a_during.size(), 8u);
  EXPECT_EQ(a_during[0], '\xe8') << "a is a call of the runtime while attached";
  EXPECT_EQ(b_during, b_before) << "b, excluded, has its nops back while attached";
  EXPECT_EQ(entry_bytes(pid, binary, "a"), a_before);
  const Report rep = report();
  EXPECT_GT(u64(rep.function("a"), "calls"), 1000u);
  EXPECT_EQ(rep.find_function("b"), nullptr) << "nothing of b is recorded";
  expect_checked_ok(pid, 2);
}

// --auto-fold all: b's calls are tiny, so b is folded, then removed for the whole process:
// its entry calls its counting stub while the window is open, so every call stays counted
// (per function once removed: b = 3 a still holds), and the detach gives it its nops back.
// The threshold comes from callprof's environment (CALLPROF_AUTO_FOLD_NS), as for a
// launched program.
TEST_P(AttachPatched, AFoldedFunctionIsCountedByItsStubAndGetsItsNopsBack) {
  const std::string binary = build_attachable("attach_target.c");
  const pid_t pid = start(binary, {"2"});
  const std::string b_before = entry_bytes(pid, binary, "b");
  const Started attach = e2e::start({"/usr/bin/env", "CALLPROF_AUTO_FOLD_NS=500", E2E_CALLPROF, "attach", "-q",
                                     "--auto-fold", "all", "-d", "1.5", "-o", "profile.callprof", std::to_string(pid)},
                                    dir());
  wait_for_runtime(pid, 500);
  const std::string b_during = entry_bytes(pid, binary, "b");
  const RunResult r = e2e::finish(attach);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report();
  bool counted = false;
  for (const json& f : rep.doc().at("auto_fold").at("functions"))
    if (same_function(f.at("name").get<std::string>(), "b") && !f.at("hooks_removed_at_ns").is_null())
      counted = f.at("counted_after_removal") != "none";
  EXPECT_EQ(entry_bytes(pid, binary, "b"), b_before) << "the detach gives b its nops back";
  expect_checked_ok(pid, 2);
  // b's calls (20-odd ns) are far under the threshold the environment sets (500 ns), so
  // folding them is certain: the threshold reached the attached runtime.
  EXPECT_TRUE(counted) << "b removed, its calls counted since: " << rep.doc().at("auto_fold").dump();
  EXPECT_NEAR(rep.processes().at(0).at("auto_fold_ns").get<double>(), 500.0, 5.0);
  EXPECT_GE(u64(rep.processes().at(0), "counting_sites"), 1u);
  ASSERT_EQ(b_during.size(), 8u);
  EXPECT_EQ(b_during[0], '\xe8') << "b's entry a call (of its counting stub) while attached";
  expect_b_is_three_a(rep, 6, 1000);
}

TEST_P(AttachPatched, AProgramThatMayCancelAThreadIsRefused) {
  const std::string binary = build_attachable("attach_cancel.c");
  const pid_t pid = start(binary, {});
  const RunResult r = attach(pid, 0.2);
  EXPECT_EQ(r.exit, exited(2)) << r.err;
  EXPECT_NE(r.err.find("calls pthread_cancel"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_EQ(maps_of(pid).find("libcallprof-rt"), std::string::npos) << "nothing was loaded into it";
  expect_checked_ok(pid, 1);
}

}  // namespace
}  // namespace e2e
