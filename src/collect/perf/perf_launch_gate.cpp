// A pipe: the child blocks reading one byte; EOF without that byte means "do not exec".
#include "collect/perf/perf_launch_gate.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace callprof::perf {

Result<LaunchGate> LaunchGate::create() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return make_error(std::string("launch gate: pipe: ") + std::strerror(errno));
  return LaunchGate(fds[0], fds[1]);
}

LaunchGate::LaunchGate(LaunchGate&& other) noexcept
    : read_fd_(std::exchange(other.read_fd_, -1)), write_fd_(std::exchange(other.write_fd_, -1)) {}

LaunchGate::~LaunchGate() {
  close_child_end();
  abandon();
}

bool LaunchGate::wait_in_child() noexcept {
  if (write_fd_ >= 0) close(write_fd_);  // else our own write end would keep EOF away
  write_fd_ = -1;
  char go = 0;
  ssize_t n;
  do n = read(read_fd_, &go, 1);
  while (n < 0 && errno == EINTR);
  close(read_fd_);
  read_fd_ = -1;
  return n == 1 && go == 'g';
}

void LaunchGate::close_child_end() {
  if (read_fd_ >= 0) close(read_fd_);
  read_fd_ = -1;
}

void LaunchGate::release() {
  if (write_fd_ < 0) return;
  char go = 'g';
  ssize_t n;
  do n = write(write_fd_, &go, 1);
  while (n < 0 && errno == EINTR);
  abandon();
}

void LaunchGate::abandon() {
  if (write_fd_ >= 0) close(write_fd_);
  write_fd_ = -1;
}

}  // namespace callprof::perf
