#include "target/inject/attach_lock.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace callprof::inject {

Result<AttachLock> AttachLock::acquire(pid_t pid, int wait_ms) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string name = "callprof-attach-" + std::to_string(pid);
  std::memcpy(addr.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
  const auto length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return AttachLock();
    if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), length) == 0) return AttachLock(fd);
    const int error = errno;
    close(fd);
    if (error != EADDRINUSE) return AttachLock();
    if (std::chrono::steady_clock::now() >= until)
      return make_error(
          "another callprof is attaching to it (its injector still holds the threads): one attach at "
          "a time");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

AttachLock& AttachLock::operator=(AttachLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void AttachLock::release() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace callprof::inject
