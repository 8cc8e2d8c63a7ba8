// Starting the program: posix_spawn where nothing runs between fork and exec, else fork/exec
// with a close-on-exec pipe the child writes errno into only if exec fails.
#include "target/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace callprof {
namespace {

// This process's environment with spec.env set: "NAME=value" strings in `storage`.
std::vector<char*> child_environment(const LaunchSpec& spec, std::vector<std::string>& storage) {
  auto overridden = [&](const char* entry) {
    for (const auto& [k, v] : spec.env)
      if (std::strncmp(entry, k.c_str(), k.size()) == 0 && entry[k.size()] == '=') return true;
    return false;
  };
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) envp.push_back(*e);
  storage.reserve(spec.env.size());
  for (size_t i = 0; i < spec.env.size(); ++i) {
    bool later = false;  // set twice: the last one holds, as with setenv
    for (size_t j = i + 1; j < spec.env.size(); ++j) later = later || spec.env[j].first == spec.env[i].first;
    if (!later) storage.push_back(spec.env[i].first + "=" + spec.env[i].second);
  }
  for (auto& s : storage) envp.push_back(s.data());
  envp.push_back(nullptr);
  return envp;
}

// posix_spawn shares this process's memory until the exec (glibc's clone with CLONE_VFORK):
// no page tables copied, and none of ours write-protected for the faults a fork leaves
// behind in a large recorder (0.3 ms of the CPU time of zstd's recording). Returns posix_spawnp's
// error.
int spawn(const LaunchSpec& spec, std::vector<char*>& argv, pid_t* pid) {
  std::vector<std::string> storage;
  std::vector<char*> envp = child_environment(spec, storage);
  return posix_spawnp(pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
}

}  // namespace

Result<pid_t> launch(const LaunchSpec& spec) {
  if (spec.argv.empty()) return make_error("no program given");
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (!spec.in_child && !spec.in_parent) {
    // A script without "#!" is not exec'd by posix_spawnp, as execvp does (through /bin/sh).
    pid_t pid = 0;
    const int err = spawn(spec, argv, &pid);
    if (err == 0) return pid;
    if (err != ENOEXEC) return make_error("cannot run " + spec.argv[0] + ": " + std::strerror(err));
  }
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(pipefd[0]);
    for (const auto& [k, v] : spec.env) setenv(k.c_str(), v.c_str(), 1);
    if (spec.in_child && !spec.in_child()) _exit(127);
    execvp(argv[0], argv.data());
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
