// daemon(3): glibc's version ends the parent with an internal _exit that no interposer
// sees, so the parent's calls (everything before daemon) were never written. The same
// steps here, with the parent's data written before it leaves. The child goes on as the
// daemon: its tree starts below the frames it inherited (see process.cpp), and `record`
// waits for it (it adopts orphaned processes).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"

extern "C" __attribute__((visibility("default"))) int daemon(int nochdir, int noclose) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid > 0) {
    callprof::rt::write_dump();
    _exit(0);
  }
  if (setsid() < 0) return -1;
  if (!nochdir && chdir("/") != 0) return -1;
  if (!noclose) {
    const int fd = open("/dev/null", O_RDWR);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {  // as glibc: not the real /dev/null
      close(fd);
      return -1;
    }
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
  return 0;
}
