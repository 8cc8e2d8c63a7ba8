#include "target/child_output.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace callprof {

ChildOutput read_child_output(int fd, pid_t pid) {
  ChildOutput out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.text.append(buf, size_t(n));
  }
  close(fd);
  while (waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

}  // namespace callprof
