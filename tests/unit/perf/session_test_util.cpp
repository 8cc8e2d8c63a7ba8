#include "session_test_util.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

namespace callprof::perf::test {

std::map<uint32_t, size_t> Collected::samples_per_tid() const {
  std::map<uint32_t, size_t> n;
  for (const auto& s : samples) ++n[s.tid];
  return n;
}

std::optional<std::string> cannot_sample() {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1000000;
  a.disabled = 1;
  int fd = int(syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return std::string("perf_event_open(cpu-clock) fails here: ") + std::strerror(errno);
  close(fd);
  return std::nullopt;
}

static uint64_t read_address(int fd) {
  std::string line;
  char c;
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 5000) > 0 && read(fd, &c, 1) == 1 && c != '\n') line += c;
  return std::strtoull(line.c_str(), nullptr, 16);
}

static pid_t fork_child(const std::vector<std::string>& args, int out_fd, LaunchGate* gate) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  dup2(out_fd, 1);
  // The child spins on every core; niced, it cannot starve the reader draining its rings
  // when ctest runs other tests beside it (the 10 kHz DWARF test lost samples that way).
  // Samples follow the child's CPU time, so their counts do not change.
  if (setpriority(PRIO_PROCESS, 0, 10) != 0) _exit(126);
  if (gate && !gate->wait_in_child()) _exit(127);
  std::vector<char*> argv{const_cast<char*>(SAMPLING_BUSY_CHILD)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

std::optional<Launched> launch_busy_child(const std::vector<std::string>& args, const SamplingOptions& options,
                                          std::optional<PerfSession>& session, std::string& error) {
  auto gate = LaunchGate::create();
  int out[2];
  if (!gate || pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  Launched l;
  l.pid = fork_child(args, out[1], &*gate);
  close(out[1]);
  gate->close_child_end();
  auto opened = PerfSession::open_launched(l.pid, options);
  if (!opened) {
    error = opened.error().message;
    gate->abandon();
    waitpid(l.pid, nullptr, 0);
    return std::nullopt;
  }
  session.emplace(std::move(*opened));
  gate->release();
  l.out = out[0];
  l.spin_here = read_address(l.out);
  return l;
}

Launched start_busy_child(const std::vector<std::string>& args) {
  int out[2];
  Launched l;
  if (pipe2(out, O_CLOEXEC) != 0) return l;
  l.pid = fork_child(args, out[1], nullptr);
  close(out[1]);
  l.out = out[0];
  l.spin_here = read_address(l.out);
  return l;
}

int run_to_exit(PerfSession& session, pid_t pid, Collected& sink, int timeout_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (session.poll(sink, 100) && std::chrono::steady_clock::now() < end) {
  }
  int status = -1;
  waitpid(pid, &status, 0);
  session.detach(sink);
  return status;
}

char process_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return '?';
  size_t close = line.rfind(')');
  return close + 2 < line.size() ? line[close + 2] : '?';
}

double process_cpu_ms(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stod(field);
    if (i == 15) {
      stime = std::stod(field);
      break;
    }
  }
  return (utime + stime) * 1000.0 / double(sysconf(_SC_CLK_TCK));
}

}  // namespace callprof::perf::test
