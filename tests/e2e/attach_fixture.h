// The fixture of the attach tests (attach_exact_test.cpp, attach_lifecycle_test.cpp): the
// program to attach to (programs/attach_target.c), started normally, its output, its end,
// and what /proc says of it.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_support.h"

namespace e2e {

class AttachFixture : public E2ETest {
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
  // Asks the program to stop and check itself: it must end with status 0 after checking
  // each of its `threads` threads' counts.
  void expect_checked_ok(pid_t pid, int threads) {
    const int status = finish(pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    const std::string line = "checked " + std::to_string(threads) + " threads: ok";
    EXPECT_NE(target_output().find(line), std::string::npos) << target_output();
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
  // attach_target.c's truth: b = 3 a, within `slack` (3 per thread: the calls open at the
  // window's edges); more than `at_least` calls of a.
  static void expect_b_is_three_a(const Report& rep, uint64_t slack, uint64_t at_least) {
    ASSERT_NE(rep.find_function("a"), nullptr);
    const uint64_t ca = u64(rep.function("a"), "calls"), cb = u64(rep.function("b"), "calls");
    EXPECT_GT(ca, at_least);
    EXPECT_LE(cb, 3 * ca + slack) << "b = 3 a within the calls open at the window's edges";
    EXPECT_GE(cb + slack, 3 * ca) << "b = 3 a within the calls open at the window's edges";
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
  // Waits (10 s at most, a loaded machine is slow to attach) until the runtime is loaded into
  // `pid`, then `then_ms` more, by which time the window has begun.
  static void wait_for_runtime(pid_t pid, int then_ms) {
    for (int i = 0; i < 1000 && maps_of(pid).find("libcallprof-rt") == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(then_ms));
  }
  static std::string maps_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};

}  // namespace e2e
