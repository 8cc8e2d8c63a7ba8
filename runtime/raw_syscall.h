// System calls made directly, not through libc's wrappers: the program may define (and
// instrument) functions named write, open or mmap, and the runtime must never call into
// the program. Each returns what the kernel returns: a negative errno on failure. They
// neither read nor write errno.
#pragma once

#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

namespace callprof::rt::sys {

inline long call(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  long ret;
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return ret;
}

template <typename P>
long p(P* pointer) {
  return reinterpret_cast<long>(pointer);
}

inline long open(const char* path, int flags, int mode = 0) {
  return call(SYS_openat, -100 /* AT_FDCWD */, p(path), flags, mode);
}
inline long read(int fd, void* buf, uint64_t n) { return call(SYS_read, fd, p(buf), long(n)); }
inline long write(int fd, const void* buf, uint64_t n) { return call(SYS_write, fd, p(buf), long(n)); }
inline long pread(int fd, void* buf, uint64_t n, uint64_t at) {
  return call(SYS_pread64, fd, p(buf), long(n), long(at));
}
inline long pwrite(int fd, const void* buf, uint64_t n, uint64_t at) {
  return call(SYS_pwrite64, fd, p(buf), long(n), long(at));
}
inline long close(int fd) { return call(SYS_close, fd); }
inline long rename(const char* from, const char* to) { return call(SYS_rename, p(from), p(to)); }
// Swaps two existing paths atomically (RENAME_EXCHANGE); fails when either is missing, or on
// a file system that cannot.
inline long exchange(const char* a, const char* b) {
  return call(SYS_renameat2, -100 /* AT_FDCWD */, p(a), -100, p(b), 2 /* RENAME_EXCHANGE */);
}
inline long unlink(const char* path) { return call(SYS_unlink, p(path)); }
inline long flock(int fd, int operation) { return call(SYS_flock, fd, operation); }
inline long readlink(const char* path, char* buf, uint64_t cap) {
  return call(SYS_readlink, p(path), p(buf), long(cap));
}
inline long exists(const char* path) { return call(SYS_access, p(path), 0 /* F_OK */); }
inline long stat(const char* path, struct stat* st) {
  return call(SYS_newfstatat, -100 /* AT_FDCWD */, p(path), p(st), 0);
}
inline long fstat(int fd, struct stat* st) { return call(SYS_fstat, fd, p(st)); }
inline void* mmap(void* at, uint64_t bytes, int prot, int flags, int fd = -1, long offset = 0) {
  const long r = call(SYS_mmap, p(at), long(bytes), prot, flags, fd, offset);
  return r < 0 && r > -4096 ? nullptr : reinterpret_cast<void*>(r);
}
inline long munmap(void* at, uint64_t bytes) { return call(SYS_munmap, p(at), long(bytes)); }
inline long mprotect(void* at, uint64_t bytes, int prot) { return call(SYS_mprotect, p(at), long(bytes), prot); }
inline long madvise(void* at, uint64_t bytes, int advice) { return call(SYS_madvise, p(at), long(bytes), advice); }
inline long sigaltstack(const stack_t* ss, stack_t* old) { return call(SYS_sigaltstack, p(ss), p(old)); }
inline uint32_t gettid() { return uint32_t(call(SYS_gettid)); }
inline uint32_t getpid() { return uint32_t(call(SYS_getpid)); }
inline uint32_t getppid() { return uint32_t(call(SYS_getppid)); }

}  // namespace callprof::rt::sys
