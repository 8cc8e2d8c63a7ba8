// End-to-end: exact mode attached to a program already running and started normally
// (issue 31; docs/attach.md). In the attached window every call is counted (b's calls
// are three times a's, within the calls open at the window's edges), the program goes on
// after the detach and its own check of its results still passes; a program without hooks
// is refused with one line, its memory untouched.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "e2e_support.h"

namespace e2e {
namespace {

class AttachExact : public E2ETest {
 protected:
  // A target still running when a test ends (a failed assertion) is killed.
  void TearDown() override {
    for (pid_t pid : started_)
      if (waitpid(pid, nullptr, WNOHANG) == 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
    E2ETest::TearDown();
  }
  // Starts `binary args`, its output in target.out, and waits for its "ready".
  pid_t start(const std::string& binary, const std::vector<std::string>& args) {
    const std::string out = (dir() / "target.out").string();
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> argv{const_cast<char*>(binary.c_str())};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      if (!freopen(out.c_str(), "w", stdout)) _exit(126);
      execv(argv[0], argv.data());
      _exit(127);
    }
    started_.push_back(pid);
    for (int i = 0; i < 500 && target_output().find("ready") == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return pid;
  }
  std::string target_output() const {
    std::ifstream in(dir() / "target.out");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  // Asks the program to stop and check itself; its wait status.
  int finish(pid_t pid) {
    kill(pid, SIGUSR1);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }
  std::vector<pid_t> started_;
  // The frames open when the window began are the path of its first calls (docs/attach.md,
  // "Frames open at attach"): b always under a, a under worker, worker at the top of a
  // thread it started or under main; those open frames count no call; every return found
  // its entry; the header counts them.
  static void expect_paths_from_the_attach(const Report& rep) {
    for (const auto& path : rep.paths_to("b")) {
      ASSERT_GE(path.size(), 3u) << join_path(path);
      EXPECT_TRUE(same_function(path[path.size() - 2], "a")) << join_path(path);
      EXPECT_TRUE(same_function(path[path.size() - 3], "worker")) << join_path(path);
      EXPECT_LE(path.size(), 4u) << join_path(path);
    }
    EXPECT_EQ(u64(rep.function("worker"), "calls"), 0u) << "open at the attach: no call counted";
    const json& exact = rep.doc().at("metadata").at("exact");
    EXPECT_TRUE(exact.at("attached").get<bool>());
    EXPECT_GE(exact.at("frames_open_at_attach").get<uint64_t>(), exact.at("threads_open_at_attach").get<uint64_t>());
    EXPECT_GE(exact.at("threads_open_at_attach").get<uint64_t>(), 1u);
    EXPECT_EQ(exact.at("unmatched_exits").get<uint64_t>(), 0u);
  }
  static uint64_t rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
    return 0;
  }
  // Whether a thread of `pid` has a tracer.
  static bool traced(pid_t pid) {
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
      std::ifstream in(task.path() / "status");
      for (std::string line; std::getline(in, line);)
        if (line.rfind("TracerPid:", 0) == 0 && std::stoi(line.substr(10)) != 0) return true;
    }
    return false;
  }
  static std::string maps_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};
E2E_INSTANTIATE(AttachExact);

TEST_P(AttachExact, EveryCallInTheWindowIsCountedAndTheProgramGoesOn) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2"});
  const RunResult r = run(
      {E2E_CALLPROF, "attach", "--mode", "exact", "-d", "0.3", "-o", "profile.callprof", std::to_string(pid)}, dir());
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  EXPECT_NE(r.err.find("attached to " + std::to_string(pid) + " in exact mode"), std::string::npos) << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // after the detach it runs on
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 2 threads: ok"), std::string::npos) << target_output();
  if (r.exit != exited(0)) return;
  const Report rep = report();
  ASSERT_NE(rep.find_function("a"), nullptr) << r.err;
  const json& a = rep.function("a");
  const json& b = rep.function("b");
  const uint64_t ca = u64(a, "calls"), cb = u64(b, "calls");
  measured("a_calls", double(ca));
  EXPECT_GT(ca, 1000u) << "both threads ran hooked for 0.3 s";
  EXPECT_LE(cb, 3 * ca + 6) << "b = 3 a within 3 per thread";
  EXPECT_GE(cb + 6, 3 * ca) << "b = 3 a within 3 per thread";
  expect_paths_from_the_attach(rep);
  EXPECT_EQ(rep.processes().size(), 1u);
}

// Attach, detach, attach again: each window's profile holds its own calls only, and the
// program, four threads calling all along, goes on and checks itself at the end.
TEST_P(AttachExact, TenAttachesInARowEachHoldOnlyTheirWindow) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"4"});
  for (int round = 0; round < 10; ++round) {
    const std::string profile = "window" + std::to_string(round) + ".callprof";
    // Every other round without --mode: a program with hooks gets exact mode, as with record.
    std::vector<std::string> argv = {E2E_CALLPROF, "attach", "-q", "-d", "0.05", "-o", profile, std::to_string(pid)};
    if (round % 2) argv.insert(argv.begin() + 3, {"--mode", "exact"});
    const RunResult r = run(argv, dir());
    ASSERT_EQ(r.exit, exited(0)) << "round " << round << ": " << r.err;
    const Report rep = report({}, profile);
    EXPECT_EQ(rep.doc().at("metadata").at("mode"), "exact") << "round " << round;
    ASSERT_NE(rep.find_function("a"), nullptr) << "round " << round << ": " << r.err;
    const uint64_t ca = u64(rep.function("a"), "calls"), cb = u64(rep.function("b"), "calls");
    EXPECT_GT(ca, 100u) << "round " << round;
    EXPECT_LE(cb, 3 * ca + 12) << "round " << round << ": b = 3 a within 3 per thread";
    EXPECT_GE(cb + 12, 3 * ca) << "round " << round << ": b = 3 a within 3 per thread";
    // The window, not the time since the first attach.
    const json& p = rep.processes().at(0);
    EXPECT_LT(p.at("end_ns").get<int64_t>() - p.at("start_ns").get<int64_t>(), 1'000'000'000) << "round " << round;
    SCOPED_TRACE("round " + std::to_string(round));
    expect_paths_from_the_attach(rep);
  }
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 4 threads: ok"), std::string::npos) << target_output();
}

// Per-caller times as exact mode measures them, in an attached window too: x's calls of d
// work 3 ms, y's 1 ms, so x -> d carries 75 % of d's time (gprof would say 50 %).
TEST_P(AttachExact, PerCallerTimesAreMeasuredInTheWindow) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"1", "split"});
  const RunResult r =
      run({E2E_CALLPROF, "attach", "-q", "--mode", "exact", "-d", "1", "-o", "profile.callprof", std::to_string(pid)},
          dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report();
  const double xd = double(u64(rep.edge("x", "d"), "total_ns")), yd = double(u64(rep.edge("y", "d"), "total_ns"));
  ASSERT_GT(xd + yd, 0.0);
  const double share = xd / (xd + yd);
  measured("x_share_of_d", share);
  // Calls open at the window's edges move it by at most one 3 ms call in about 750 ms.
  EXPECT_NEAR(share, 0.75, 0.02) << "x->d " << xd << " ns, y->d " << yd << " ns";
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// A fork while attached: with --children the child records too (a child that lived within
// the window holds exactly its 1,000 calls of a and 3,000 of b, under spawned); without,
// the child gets glibc's hooks back and records nothing. The program checks each child.
TEST_P(AttachExact, ForksAreFollowedWithChildrenOnly) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2", "fork"});
  const RunResult r = run(
      {E2E_CALLPROF, "attach", "-q", "--children", "-d", "0.5", "-o", "children.callprof", std::to_string(pid)}, dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report({}, "children.callprof");
  size_t whole = 0;
  for (const json& t : rep.threads()) {
    if (t.at("pid").get<int>() == pid || !t.at("finished").get<bool>()) continue;  // still running at the end
    const Report child = report({"--thread", std::to_string(t.at("tid").get<int>())}, "children.callprof");
    const json* spawned = child.find_function("spawned");
    if (!spawned || u64(*spawned, "calls") != 1) continue;  // forked before the window
    ++whole;
    EXPECT_EQ(u64(child.function("a"), "calls"), 1000u) << "child " << t.at("pid");
    EXPECT_EQ(u64(child.function("b"), "calls"), 3000u) << "child " << t.at("pid");
    EXPECT_EQ(u64(child.node({"main", "fork_children", "spawned", "a", "b"}), "calls"), 3000u);
  }
  measured("children_recorded_whole", double(whole));
  EXPECT_GE(whole, 5u) << "a child every 20 ms, 0.5 s attached";
  EXPECT_EQ(rep.doc().at("metadata").at("exact").at("unmatched_exits").get<uint64_t>(), 0u);

  const RunResult alone =
      run({E2E_CALLPROF, "attach", "-q", "-d", "0.3", "-o", "alone.callprof", std::to_string(pid)}, dir());
  ASSERT_EQ(alone.exit, exited(0)) << alone.err;
  EXPECT_EQ(report({}, "alone.callprof").processes().size(), 1u) << "without --children, the children record nothing";
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 2 threads: ok"), std::string::npos) << target_output();
}

// Threads started while attached are recorded whole, each under the call path that created
// it (the program's GOT entry for pthread_create points at the runtime's while attached).
TEST_P(AttachExact, ThreadsStartedWhileAttachedAreRecordedWhole) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2", "threads"});
  const RunResult r =
      run({E2E_CALLPROF, "attach", "-q", "-d", "0.5", "-o", "profile.callprof", std::to_string(pid)}, dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const Report rep = report();
  size_t whole = 0;
  for (const json& t : rep.threads()) {
    if (!t.at("finished").get<bool>()) continue;  // still running at the window's end
    const Report one = report({"--thread", std::to_string(t.at("tid").get<int>())});
    const json* started = one.find_function("short_lived");
    if (!started || u64(*started, "calls") != 1) continue;  // started before the window
    ++whole;
    EXPECT_EQ(u64(one.node({"short_lived", "a"}), "calls"), 1000u) << "thread " << t.at("tid");
    EXPECT_EQ(u64(one.node({"short_lived", "a", "b"}), "calls"), 3000u) << "thread " << t.at("tid");
    EXPECT_NE(t.at("creator_path").dump().find("start_threads"), std::string::npos) << t.dump();
  }
  measured("threads_recorded_whole", double(whole));
  EXPECT_GE(whole, 10u) << "a thread every 5 ms, 0.5 s attached";
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// An exec while attached ends the recording of that image: its data is the profile, and
// callprof ends then instead of at the window's end; the new image runs unprofiled.
TEST_P(AttachExact, AnExecEndsTheRecordingOfThatImage) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2", "exec"});
  const auto began = std::chrono::steady_clock::now();
  const RunResult r = run({E2E_CALLPROF, "attach", "-d", "20", "-o", "profile.callprof", std::to_string(pid)}, dir());
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(4000)) << "not the 20 s window";
  EXPECT_NE(r.err.find("replaced its image (exec)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did not confirm"), std::string::npos) << r.err;
  const Report rep = report();
  const uint64_t ca = u64(rep.function("a"), "calls"), cb = u64(rep.function("b"), "calls");
  EXPECT_GT(ca, 100u);
  EXPECT_LE(cb, 3 * ca + 3);
  EXPECT_GE(cb + 3, 3 * ca);
  for (int i = 0; i < 300; ++i) {  // the new image says "ready" too
    const std::string out = target_output();
    if (out.find("ready") != out.rfind("ready")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(maps_of(pid).find("libcallprof-rt"), std::string::npos) << "the new image has no runtime";
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 1 threads: ok"), std::string::npos) << target_output();
}

// kill -9 of callprof at any moment of an attach (finding a safe point, loading the
// runtime, every thread stopped, recording): the program lives on, and its own check of
// its results passes at the end; the next attach works.
TEST_P(AttachExact, KillingCallprofAnywhereLeavesTheProgramRunning) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"4"});
  for (int round = 0; round < 12; ++round) {
    const Started attach = e2e::start(
        {E2E_CALLPROF, "attach", "-q", "--mode", "exact", "-d", "5", "-o", "killed.callprof", std::to_string(pid)},
        dir());
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 9 * round));  // 5 .. 104 ms
    kill(attach.pid, SIGKILL);
    (void)e2e::finish(attach);
    ASSERT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << "the program died at round " << round;
    // The injector finishes its step and lets go before the next attach can begin.
    for (int i = 0; i < 300 && traced(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const RunResult r =
      run({E2E_CALLPROF, "attach", "-q", "-d", "0.2", "-o", "after.callprof", std::to_string(pid)}, dir());
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  if (r.exit == exited(0)) EXPECT_GT(u64(report({}, "after.callprof").function("a"), "calls"), 100u);
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 4 threads: ok"), std::string::npos) << target_output();
}

// Threads interrupted by a signal handler that calls hooked functions too (a timer's, every
// millisecond): attaching stops them wherever they are, inside the handler or not; every
// call in the window is counted and the program's own check passes.
TEST_P(AttachExact, ThreadsInsideSignalHandlersAreAttachedTo) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2", "alarms"});
  for (int round = 0; round < 4; ++round) {
    const std::string profile = "signals" + std::to_string(round) + ".callprof";
    const RunResult r = run({E2E_CALLPROF, "attach", "-q", "-d", "0.2", "-o", profile, std::to_string(pid)}, dir());
    ASSERT_EQ(r.exit, exited(0)) << "round " << round << ": " << r.err;
    const Report rep = report({}, profile);
    const uint64_t ca = u64(rep.function("a"), "calls"), cb = u64(rep.function("b"), "calls");
    EXPECT_GT(u64(rep.function("on_alarm"), "calls"), 10u) << "round " << round;
    EXPECT_LE(cb, 3 * ca + 12) << "round " << round << ": b = 3 a within the calls open at the edges";
    EXPECT_GE(cb + 12, 3 * ca) << "round " << round;
    for (const auto& path : rep.paths_to("b"))
      EXPECT_TRUE(same_function(path[path.size() - 2], "a")) << join_path(path);
  }
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(target_output().find("checked 2 threads: ok"), std::string::npos) << target_output();
}

// A program whose threads all wait on a condition variable nearly all the time (an idle
// pool: futex) is attached to at once: a thread waiting in pthread_cond_wait holds no lock
// of libc's, so it is a safe point.
TEST_P(AttachExact, AnIdlePoolWaitingOnAConditionVariableIsAttachedToAtOnce) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"3", "idle"});
  const RunResult r = run(
      {E2E_CALLPROF, "attach", "--mode", "exact", "-d", "0.3", "-o", "profile.callprof", std::to_string(pid)}, dir());
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const size_t after = r.err.find("at a safe point after ");
  ASSERT_NE(after, std::string::npos) << r.err;
  measured("safe_point_ms", std::stod(r.err.substr(after + 22)));
  EXPECT_LT(std::stod(r.err.substr(after + 22)), 25.0) << "no need to wait for a burst of calls: " << r.err;
  const Report rep = report();
  EXPECT_GT(u64(rep.function("a"), "calls"), 300u) << "three threads, 100 calls every 30 ms";
  EXPECT_EQ(u64(rep.function("b"), "calls"), 3 * u64(rep.function("a"), "calls"));
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// After the detach the program's memory is what it was before the attach but for the
// runtime and each thread's state: the trees' memory goes back to the system (here 60,000
// call paths, megabytes while attached).
TEST_P(AttachExact, TheTreesMemoryIsGivenBackAtDetach) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2", "deep"});  // the second thread offers safe points
  const uint64_t before = rss_kib(pid);
  const Started attach =
      e2e::start({E2E_CALLPROF, "attach", "-q", "-d", "0.6", "-o", "profile.callprof", std::to_string(pid)}, dir());
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  const uint64_t during = rss_kib(pid);
  const RunResult r = e2e::finish(attach);
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const uint64_t after = rss_kib(pid);
  measured("rss_before_kib", double(before));
  measured("rss_during_kib", double(during));
  measured("rss_after_kib", double(after));
  EXPECT_GT(during, before + 4096) << "the tree of 60,000 paths while attached";
  EXPECT_LT(after, before + 2048) << "before " << before << " KiB, during " << during << " KiB, after " << after;
  EXPECT_GT(u64(report().function("deep"), "calls"), 60000u);
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// The program ends while callprof attaches (at 5 to 75 ms, cleanly or killed): callprof
// ends too, within seconds, with its profile or one line saying why, never a crash.
TEST_P(AttachExact, AProgramEndingDuringTheAttachEndsItCleanly) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  for (int round = 0; round < 8; ++round) {
    const pid_t pid = start(binary, {"2"});
    const auto began = std::chrono::steady_clock::now();
    const Started attach = e2e::start(
        {E2E_CALLPROF, "attach", "-q", "--mode", "exact", "-d", "5", "-o", "ending.callprof", std::to_string(pid)},
        dir());
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 10 * round));
    kill(pid, round % 2 ? SIGKILL : SIGUSR1);
    waitpid(pid, nullptr, 0);
    const RunResult r = e2e::finish(attach, 20);
    EXPECT_TRUE(r.exit == exited(0) || r.exit == exited(2)) << "round " << round << ": " << r.err;
    EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(8)) << "round " << round;
    if (r.exit == exited(2)) EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_P(AttachExact, AProgramWithoutHooksIsRefusedAndLeftAlone) {
  const std::string binary = build_plain("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {});
  const RunResult r = run(
      {E2E_CALLPROF, "attach", "--mode", "exact", "-d", "0.2", "-o", "profile.callprof", std::to_string(pid)}, dir());
  EXPECT_EQ(r.exit, exited(2)) << r.err;
  EXPECT_NE(r.err.find("has no -finstrument-functions hooks"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_EQ(maps_of(pid).find("libcallprof-rt"), std::string::npos) << "nothing was loaded into it";
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// The program ends while attached: its data, written as it exits, is the profile, and
// callprof ends at once instead of waiting for the window.
TEST_P(AttachExact, AProgramThatEndsWhileAttachedLeavesItsData) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {"2"});
  const auto began = std::chrono::steady_clock::now();
  const Started attach = e2e::start(
      {E2E_CALLPROF, "attach", "-q", "--mode", "exact", "-d", "20", "-o", "profile.callprof", std::to_string(pid)},
      dir());
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const RunResult r = e2e::finish(attach);
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(4500))
      << "neither the 20 s window nor the 5 s wait for a detach that cannot come";
  const Report rep = report();
  const uint64_t ca = u64(rep.function("a"), "calls"), cb = u64(rep.function("b"), "calls");
  EXPECT_GT(ca, 100u);
  EXPECT_LE(cb, 3 * ca + 6);
  EXPECT_GE(cb + 6, 3 * ca);
}

// A process already traced (here by the test itself: a debugger would do the same) is
// refused before anything is loaded into it, and goes on untouched.
TEST_P(AttachExact, ATracedProcessIsRefusedWithOneLine) {
  const std::string binary = build("attach_target.c", {"-lpthread"});
  const pid_t pid = start(binary, {});
  ASSERT_EQ(ptrace(PTRACE_SEIZE, pid, nullptr, nullptr), 0) << std::strerror(errno);
  const RunResult r = run(
      {E2E_CALLPROF, "attach", "--mode", "exact", "-d", "0.2", "-o", "profile.callprof", std::to_string(pid)}, dir());
  EXPECT_EQ(r.exit, exited(2)) << r.err;
  EXPECT_NE(r.err.find("is traced by process " + std::to_string(getpid())), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_EQ(maps_of(pid).find("libcallprof-rt"), std::string::npos) << "nothing was loaded into it";
  // Detaching needs the tracee stopped.
  ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr);
  int stopped = 0;
  waitpid(pid, &stopped, __WALL);
  ASSERT_EQ(ptrace(PTRACE_DETACH, pid, nullptr, nullptr), 0) << std::strerror(errno);
  const int status = finish(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace e2e
