#include "target/descendants.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace callprof {
namespace {

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

// The parent pid in /proc/PID/stat: the field after the command, which is in parentheses
// and may itself contain ") ".
pid_t parent_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 4 > line.size()) return 0;
  const char* after = line.c_str() + close + 2;  // "S PPID ..."
  return pid_t(std::strtol(after + 2, nullptr, 10));
}

}  // namespace

Status adopt_orphans() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return make_error(std::string("cannot adopt the program's orphaned processes: ") + std::strerror(errno));
  return Ok{};
}

std::vector<pid_t> running_children() {
  std::vector<pid_t> found;
  // No child at all, the common case: no need to read every process's stat (a few ms).
  siginfo_t info{};
  if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD) return found;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (!proc) return found;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    if (parent_of(e->d_name) == self) found.push_back(pid_t(std::atoi(e->d_name)));
  }
  closedir(proc);
  return found;
}

bool wait_for_children() {
  struct sigaction stop {
  }, old_int{}, old_term{};
  stop.sa_handler = on_stop;  // no SA_RESTART: waitpid returns with EINTR
  sigemptyset(&stop.sa_mask);
  g_stop = 0;
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGTERM, &stop, &old_term);
  while (!g_stop && (waitpid(-1, nullptr, 0) > 0 || errno == EINTR)) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return !g_stop;
}

}  // namespace callprof
