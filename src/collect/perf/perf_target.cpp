// /proc parsing for attach. The process may change under us: every reader tolerates a
// thread or the whole process vanishing halfway. No parser throws: the numbers are read with strtol.
#include "collect/perf/perf_target.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace callprof::perf {
namespace {

std::string proc_path(pid_t pid, const std::string& rest) { return "/proc/" + std::to_string(pid) + "/" + rest; }

}  // namespace

Status check_process(pid_t pid) {
  if (pid <= 0) return make_error("no process with PID " + std::to_string(pid));
  int fd = open(proc_path(pid, "stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return make_error("no process with PID " + std::to_string(pid));
  if (fd < 0 && (errno == EMFILE || errno == ENFILE)) return make_error("too many open files (raise `ulimit -n`)");
  if (fd < 0) return make_error("cannot read /proc/" + std::to_string(pid) + "/stat: " + std::strerror(errno));
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  std::string line(buf, size_t(std::max<ssize_t>(n, 0)));
  // The state follows the parenthesised command name, which may itself contain ") ".
  size_t paren = line.rfind(')');
  char state = paren != std::string::npos && paren + 2 < line.size() ? line[paren + 2] : '?';
  if (n <= 0 || state == 'Z' || state == 'X') return make_error("process " + std::to_string(pid) + " has exited");
  return Ok{};
}

std::vector<pid_t> thread_ids(pid_t pid) {
  std::vector<pid_t> tids;
  DIR* dir = opendir(proc_path(pid, "task").c_str());
  if (!dir) return tids;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] >= '1' && e->d_name[0] <= '9') tids.push_back(pid_t(std::strtol(e->d_name, nullptr, 10)));
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::vector<Mapping> read_mappings(pid_t pid) {
  std::vector<Mapping> maps;
  std::ifstream in(proc_path(pid, "maps"));
  std::string line;
  while (std::getline(in, line)) {
    // start-end perms offset dev inode path
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode;
    fields >> range >> perms >> offset >> dev >> inode;
    std::string path;
    std::getline(fields >> std::ws, path);
    size_t dash = range.find('-');
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/' || dash == std::string::npos) continue;
    Mapping m;
    m.pid = uint32_t(pid);
    m.start = std::strtoull(range.c_str(), nullptr, 16);
    m.end = std::strtoull(range.c_str() + dash + 1, nullptr, 16);
    m.pgoff = std::strtoull(offset.c_str(), nullptr, 16);
    m.path = path;
    maps.push_back(std::move(m));
  }
  return maps;
}

std::vector<TaskEvent> read_threads(pid_t pid) {
  std::vector<TaskEvent> tasks;
  for (pid_t tid : thread_ids(pid)) {
    TaskEvent e;
    e.kind = TaskEvent::Kind::Comm;
    e.pid = uint32_t(pid);
    e.tid = uint32_t(tid);
    std::ifstream in(proc_path(pid, "task/" + std::to_string(tid) + "/comm"));
    if (!std::getline(in, e.comm)) continue;  // the thread ended meanwhile
    tasks.push_back(std::move(e));
  }
  return tasks;
}

std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string list, part;
  std::vector<int> cpus;
  if (!std::getline(in, list)) return cpus;
  std::istringstream parts(list);
  while (std::getline(parts, part, ',')) {
    size_t dash = part.find('-');
    int first = int(std::strtol(part.c_str(), nullptr, 10));
    int last = dash == std::string::npos ? first : int(std::strtol(part.c_str() + dash + 1, nullptr, 10));
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace callprof::perf
