#include "target/inject/injector_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <type_traits>

#include "target/child_output.h"

namespace callprof::inject {
namespace {

static_assert(std::is_trivially_copyable_v<LoadedRuntime>);

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

// The injector: everything but the answer's pipe and the attach lock closed (callprof's end
// of the control FIFO above all: its closing is the runtime's signal that callprof is gone).
[[noreturn]] void run_injector(int answer, int lock, pid_t pid, const std::string& runtime, const std::string& settings,
                               const std::string& frames_path, int timeout_ms) {
  setsid();
  signal(SIGPIPE, SIG_IGN);  // callprof gone: the answer is dropped, the work is finished
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(sig, SIG_IGN);
  // Above 4 first, so that neither lands on the other's number.
  const int high_answer = fcntl(answer, F_DUPFD, 5), high_lock = lock >= 0 ? fcntl(lock, F_DUPFD, 5) : -1;
  if (high_answer < 0 || dup2(high_answer, 3) != 3) _exit(1);
  if (high_lock >= 0 && dup2(high_lock, 4) != 4) _exit(1);
  close_range(high_lock >= 0 ? 5 : 4, ~0u, 0);
  auto loaded = load_runtime(pid, runtime, settings, frames_path, timeout_ms);
  const char ok = loaded ? 1 : 0;
  write_all(3, &ok, 1);
  if (loaded)
    write_all(3, &*loaded, sizeof *loaded);
  else
    write_all(3, loaded.error().message.data(), loaded.error().message.size());
  _exit(0);
}

}  // namespace

Result<LoadedRuntime> load_runtime_apart(pid_t pid, const std::string& runtime, const std::string& settings,
                                         const std::string& frames_path, int timeout_ms, int lock_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  const pid_t injector = fork();
  if (injector < 0) {
    close(fds[0]);
    close(fds[1]);
    return make_error(std::string("cannot start the injector: ") + std::strerror(errno));
  }
  if (injector == 0) run_injector(fds[1], lock_fd, pid, runtime, settings, frames_path, timeout_ms);
  close(fds[1]);
  const ChildOutput reply = read_child_output(fds[0], injector);
  const std::string& answer = reply.text;
  if (answer.empty())
    return make_error("the injector ended without an answer (status " + std::to_string(reply.status) + ")");
  if (answer[0] == 0) return make_error(answer.substr(1));
  LoadedRuntime out;
  if (answer.size() != 1 + sizeof out) return make_error("the injector's answer is cut short");
  std::memcpy(&out, answer.data() + 1, sizeof out);
  return out;
}

}  // namespace callprof::inject
