// Starting the program: posix_spawn where nothing runs between fork and exec, else fork/exec
// with a close-on-exec pipe the child writes errno into only if exec fails.
#include "target/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern char** environ;

namespace callprof {
namespace {

// This process's environment with spec.env set (a name set twice: the last value), as
// "NAME=value" strings in `storage`; built before the child exists, for both ways of starting it.
std::vector<char*> child_environment(const LaunchSpec& spec, std::vector<std::string>& storage) {
  auto set_later = [&](size_t i, std::string_view name) {
    return std::any_of(spec.env.begin() + std::ptrdiff_t(i) + 1, spec.env.end(),
                       [&](const auto& e) { return e.first == name; });
  };
  for (size_t i = 0; i < spec.env.size(); ++i)
    if (!set_later(i, spec.env[i].first)) storage.push_back(spec.env[i].first + "=" + spec.env[i].second);
  auto overridden = [&](std::string_view entry) {
    return std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& e) {
      return entry.size() > e.first.size() && entry.starts_with(e.first) && entry[e.first.size()] == '=';
    });
  };
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) envp.push_back(*e);
  for (auto& entry : storage) envp.push_back(entry.data());
  envp.push_back(nullptr);
  return envp;
}

}  // namespace

Result<pid_t> launch(const LaunchSpec& spec) {
  if (spec.argv.empty()) return make_error("no program given");
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> storage;
  std::vector<char*> envp = child_environment(spec, storage);
  if (!spec.in_child && !spec.in_parent) {
    // posix_spawn shares this process's memory until the exec (glibc's clone with
    // CLONE_VFORK): no page tables copied, and none of ours write-protected for the faults a
    // fork leaves behind in a large recorder (0.3 ms of the CPU time of zstd's recording). A
    // script without "#!" it does not hand to /bin/sh as execvpe does: fork/exec then.
    pid_t pid = 0;
    const int err = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
    if (err == 0) return pid;
    if (err != ENOEXEC) return make_error("cannot run " + spec.argv[0] + ": " + std::strerror(err));
  }
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(pipefd[0]);
    if (spec.in_child && !spec.in_child()) _exit(127);
    execvpe(argv[0], argv.data(), envp.data());
    int err = errno;
    (void)!write(pipefd[1], &err, sizeof err);
    _exit(127);
  }
  close(pipefd[1]);
  if (spec.in_parent) spec.in_parent(pid);
  int err = 0;
  ssize_t n;
  do n = read(pipefd[0], &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == sizeof err) {
    waitpid(pid, nullptr, 0);
    return make_error("cannot run " + spec.argv[0] + ": " + std::strerror(err));
  }
  return pid;
}

Result<ExitStatus> wait_for_exit(pid_t pid) {
  int status = 0;
  pid_t r;
  do r = waitpid(pid, &status, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0) return make_error(std::string("waitpid: ") + std::strerror(errno));
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signaled = true;
    s.signal = WTERMSIG(status);
  } else {
    s.code = WEXITSTATUS(status);
  }
  return s;
}

void exit_like(const ExitStatus& status) {
  if (!status.signaled) std::exit(status.code);
  // Die of the same signal, without a core of our own (the program already left one).
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  signal(status.signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, status.signal);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(status.signal);
  std::_Exit(128 + status.signal);
}

}  // namespace callprof
