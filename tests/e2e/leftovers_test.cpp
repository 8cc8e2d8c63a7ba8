// End-to-end: a recording leaves nothing behind, whatever way it ends (issue 30). Each case
// records with TMPDIR pointing at a directory of the test's own and lists it afterwards:
// the program's normal exit, its death by a signal, Ctrl-C (SIGINT to the whole process
// group, as a terminal sends it), SIGTERM to callprof alone (passed on to the program), a
// profile that cannot be written after the run, attach ended by SIGINT, and kill -9 of
// callprof (the next recording removes what the dead one left). An output that takes no
// files (/proc, /sys) is refused before the program runs.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

class Leftovers : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    tmp_ = dir() / "tmp";
    fs::create_directories(tmp_);
    binary_ = build("lingering.c");
  }

  // env TMPDIR=<tmp> callprof record -o <profile> -- lingering ARGS
  std::vector<std::string> record_argv(const std::vector<std::string>& args,
                                       const std::string& profile = "profile.callprof") const {
    std::vector<std::string> argv = {
        "/usr/bin/env", "TMPDIR=" + tmp_.string(), E2E_CALLPROF, "record", "-o", profile, "--", binary_};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp_)) names.push_back(e.path().filename().string());
    return names;
  }

  // Waits until the program under callprof has created <dir>/started.
  void wait_started() const {
    for (int i = 0; i < 300 && !fs::exists(dir() / "started"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(fs::exists(dir() / "started")) << "the program did not start";
  }

  fs::path tmp_;
  std::string binary_;
};
E2E_INSTANTIATE(Leftovers);

using Names = std::vector<std::string>;

TEST_P(Leftovers, NormalExitAndDeathBySignalRemoveTheDirectory) {
  const RunResult normal = run(record_argv({}), dir());
  EXPECT_EQ(normal.exit, exited(3)) << normal.err;
  EXPECT_EQ(leftovers(), Names{});
  const RunResult killed = run(record_argv({"kill"}), dir());
  EXPECT_EQ(killed.exit, killed_by(SIGKILL)) << killed.err;
  EXPECT_EQ(leftovers(), Names{});
  EXPECT_TRUE(fs::exists(dir() / "profile.callprof"));
}

TEST_P(Leftovers, CtrlCAndSigtermEndTheProgramAndLeaveNothing) {
  // Ctrl-C: the terminal signals the whole foreground group; callprof stays to write.
  Started s = start(record_argv({"sleep", dir().string()}), dir());
  wait_started();
  kill(-s.pid, SIGINT);
  RunResult r = finish(s);
  EXPECT_EQ(r.exit, killed_by(SIGINT)) << r.err;
  EXPECT_NE(r.err.find("wrote profile.callprof"), std::string::npos) << r.err;
  EXPECT_EQ(leftovers(), Names{});
  // SIGTERM to callprof alone (kill, timeout, a service manager): passed on to the program.
  fs::remove(dir() / "started");
  s = start(record_argv({"sleep", dir().string()}), dir());
  wait_started();
  const pid_t callprof_pid = s.pid;  // env execs callprof in place
  kill(callprof_pid, SIGTERM);
  r = finish(s);
  EXPECT_EQ(r.exit, killed_by(SIGTERM)) << r.err;
  EXPECT_NE(r.err.find("killed by signal 15"), std::string::npos) << r.err;
  EXPECT_EQ(leftovers(), Names{});
}

TEST_P(Leftovers, AProfileLostAfterTheRunIsSaidLoudlyAndLeavesNothing) {
  fs::create_directories(dir() / "out");
  const RunResult r = run(record_argv({"rmdir", (dir() / "out").string()}, "out/p.callprof"), dir());
  EXPECT_EQ(r.exit, exited(3)) << "the program's status, whatever happened to the profile: " << r.err;
  EXPECT_NE(r.err.find("THE PROFILE IS LOST"), std::string::npos) << r.err;
  EXPECT_EQ(leftovers(), Names{});
}

TEST_P(Leftovers, KillNineLeavesADirectoryTheNextRecordingRemoves) {
  Started s = start(record_argv({"sleep", dir().string()}), dir());
  wait_started();
  ASSERT_EQ(leftovers().size(), 1u) << "the live recording's directory";
  const Names live = leftovers();
  // A directory of another live recording stays: a second recording meanwhile keeps it.
  const RunResult other = run(record_argv({}), dir());
  EXPECT_EQ(other.exit, exited(3)) << other.err;
  EXPECT_EQ(leftovers(), live);
  kill(s.pid, SIGKILL);
  finish(s);
  kill(-s.pid, SIGKILL);  // the program, left running in the group
  EXPECT_EQ(leftovers(), live) << "kill -9 leaves the directory";
  const RunResult next = run(record_argv({}), dir());
  EXPECT_EQ(next.exit, exited(3)) << next.err;
  EXPECT_EQ(leftovers(), Names{}) << "the next recording removed the dead one's";
}

TEST_P(Leftovers, AttachEndedByCtrlCLeavesNothing) {
  Started target = start({binary_, "sleep", dir().string()}, dir());
  wait_started();
  Started a = start({"/usr/bin/env", "TMPDIR=" + tmp_.string(), E2E_CALLPROF, "attach", "-q", "-o", "attached.callprof",
                     std::to_string(target.pid)},
                    dir());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(a.pid, SIGINT);
  const RunResult r = finish(a);
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  EXPECT_TRUE(fs::exists(dir() / "attached.callprof"));
  EXPECT_EQ(leftovers(), Names{});
  kill(target.pid, SIGKILL);
  finish(target);
}

TEST_P(Leftovers, OutputsThatTakeNoFilesAreRefusedBeforeTheProgramRuns) {
  for (const std::string output : {"/proc/version", "/proc/x.callprof", "/sys/kernel/x.callprof"}) {
    SCOPED_TRACE(output);
    const std::string marker = (dir() / "ran").string();
    const RunResult r = run(record_argv({"marker", marker}, output), dir());
    EXPECT_EQ(r.exit, exited(2)) << r.err;
    EXPECT_EQ(r.err.rfind("callprof: error: -o " + output + ": cannot create a file in ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(marker)) << "the program ran";
    EXPECT_EQ(leftovers(), Names{});
  }
}

}  // namespace
}  // namespace e2e
