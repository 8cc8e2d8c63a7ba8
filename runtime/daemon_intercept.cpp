// daemon(3): glibc's version ends the parent with an internal _exit that no interposer
// sees, so the parent's calls (everything before daemon) were never written. The same
// steps here, with the parent's data written before it leaves. The child goes on as the
// daemon: its tree starts below the frames it inherited (see process.cpp), and `record`
// waits for it (it adopts orphaned processes). fork stays libc's: its atfork handlers
// (ours among them) must run.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "process.h"
#include "raw_syscall.h"

namespace sys = callprof::rt::sys;

extern "C" __attribute__((visibility("default"))) int daemon(int nochdir, int noclose) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid > 0) {
    callprof::rt::write_dump();
    sys::call(SYS_exit_group, 0);
  }
  if (sys::call(SYS_setsid) < 0) return -1;
  if (!nochdir && sys::call(SYS_chdir, sys::p("/")) != 0) return -1;
  if (!noclose) {
    const long fd = sys::open("/dev/null", O_RDWR);
    if (fd < 0) return -1;
    struct stat st;
    if (sys::fstat(int(fd), &st) != 0 || !S_ISCHR(st.st_mode)) {  // as glibc: not the real /dev/null
      sys::close(int(fd));
      return -1;
    }
    sys::call(SYS_dup2, fd, STDIN_FILENO);
    sys::call(SYS_dup2, fd, STDOUT_FILENO);
    sys::call(SYS_dup2, fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) sys::close(int(fd));
  }
  return 0;
}
