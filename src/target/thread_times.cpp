#include "thread_times.h"

#include <fstream>
#include <sstream>

namespace callprof {

std::optional<ThreadTime> parse_schedstat(pid_t tid, const std::string& text) {
  std::istringstream in(text);
  ThreadTime t{tid, 0, 0};
  uint64_t slices = 0;
  if (!(in >> t.on_cpu_ns >> t.waiting_ns >> slices)) return std::nullopt;
  return t;
}

std::optional<ThreadTime> read_thread_time(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  return parse_schedstat(tid, text);
}

std::string read_thread_name(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

Status write_thread_times(const std::string& path, const std::vector<ThreadTime>& times) {
  std::ofstream out(path, std::ios::trunc);
  for (const ThreadTime& t : times) out << t.tid << ' ' << t.on_cpu_ns << ' ' << t.waiting_ns << '\n';
  out.close();
  if (!out) return make_error("cannot write " + path);
  return Ok{};
}

std::vector<ThreadTime> read_thread_times(const std::string& path) {
  std::vector<ThreadTime> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    ThreadTime t;
    if (fields >> t.tid >> t.on_cpu_ns >> t.waiting_ns && t.tid > 0) out.push_back(t);
  }
  return out;
}

}  // namespace callprof
