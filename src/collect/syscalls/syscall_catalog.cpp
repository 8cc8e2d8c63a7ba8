// The name table is built once from libseccomp (it allocates each name; we copy and free).
// Classes are lists of names, resolved through that table, so a name this x86-64 kernel or
// this libseccomp does not know simply drops out instead of breaking the build.
#include "collect/syscalls/syscall_catalog.h"

#include <seccomp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

namespace callprof::syscalls {
namespace {

struct NameTable {
  std::array<std::string, kMaxSyscallNumber> names;
  std::unordered_map<std::string_view, uint32_t> numbers;  // views into names
};

const NameTable& name_table() {
  static const NameTable table = [] {
    NameTable t;
    for (uint32_t nr = 0; nr < kMaxSyscallNumber; ++nr) {
      char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, int(nr));
      if (name) {
        t.names[nr] = name;
        std::free(name);
      } else {
        t.names[nr] = "syscall_" + std::to_string(nr);
      }
    }
    for (uint32_t nr = 0; nr < kMaxSyscallNumber; ++nr) t.numbers.emplace(t.names[nr], nr);
    return t;
  }();
  return table;
}

std::optional<uint32_t> parse_number(std::string_view text) {
  uint32_t nr = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), nr);
  if (ec != std::errc() || end != text.data() + text.size() || nr >= kMaxSyscallNumber) return std::nullopt;
  return nr;
}

struct ClassList {
  std::string_view name;
  std::string_view members;  // names separated by spaces; empty for "all"
};

// Like strace's %file + %desc, %network, %process, %memory, %ipc, %signal, %clock, plus
// "blocking": calls that can wait for another party (I/O, locks, children, timers).
constexpr ClassList kClasses[] = {
    {"file",
     "open openat openat2 creat close close_range read write pread64 pwrite64 readv writev preadv "
     "pwritev preadv2 pwritev2 lseek stat fstat lstat newfstatat statx statfs fstatfs access faccessat "
     "faccessat2 chdir fchdir getcwd mkdir mkdirat rmdir rename renameat renameat2 link linkat unlink "
     "unlinkat symlink symlinkat readlink readlinkat chmod fchmod fchmodat fchmodat2 chown fchown "
     "lchown fchownat truncate ftruncate utime utimes futimesat utimensat mknod mknodat getdents "
     "getdents64 dup dup2 dup3 fcntl ioctl flock fsync fdatasync sync syncfs sync_file_range fallocate "
     "fadvise64 readahead sendfile splice tee vmsplice copy_file_range pipe pipe2 select pselect6 poll "
     "ppoll epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2 eventfd eventfd2 "
     "signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime inotify_init inotify_init1 "
     "inotify_add_watch inotify_rm_watch fanotify_init fanotify_mark setxattr lsetxattr fsetxattr "
     "getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr removexattr lremovexattr "
     "fremovexattr io_setup io_destroy io_submit io_getevents io_pgetevents io_cancel io_uring_setup "
     "io_uring_enter io_uring_register memfd_create name_to_handle_at open_by_handle_at execve "
     "execveat chroot pivot_root mount umount2 quotactl acct swapon swapoff pidfd_getfd"},
    {"network",
     "socket socketpair bind listen accept accept4 connect getsockname getpeername sendto recvfrom "
     "sendmsg recvmsg sendmmsg recvmmsg shutdown setsockopt getsockopt"},
    {"process",
     "fork vfork clone clone3 execve execveat exit exit_group wait4 waitid kill tkill tgkill "
     "pidfd_open pidfd_send_signal unshare setns prctl arch_prctl set_tid_address getpid getppid "
     "gettid setsid setpgid getpgid getsid seccomp"},
    {"memory",
     "brk mmap munmap mremap mprotect pkey_mprotect madvise process_madvise mlock mlock2 munlock "
     "mlockall munlockall mincore msync remap_file_pages mbind set_mempolicy get_mempolicy "
     "migrate_pages move_pages memfd_secret process_vm_readv process_vm_writev"},
    {"ipc",
     "msgget msgsnd msgrcv msgctl semget semop semtimedop semctl shmget shmat shmdt shmctl mq_open "
     "mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr"},
    {"signal",
     "rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend "
     "rt_sigqueueinfo rt_tgsigqueueinfo sigaltstack kill tkill tgkill pause signalfd signalfd4 "
     "pidfd_send_signal"},
    {"time",
     "time gettimeofday settimeofday clock_gettime clock_settime clock_getres clock_nanosleep "
     "clock_adjtime adjtimex nanosleep alarm getitimer setitimer timer_create timer_settime "
     "timer_gettime timer_getoverrun timer_delete timerfd_create timerfd_settime timerfd_gettime times"},
    {"blocking",
     "read readv pread64 preadv preadv2 write writev pwrite64 pwritev pwritev2 recvfrom recvmsg "
     "recvmmsg sendto sendmsg sendmmsg accept accept4 connect poll ppoll select pselect6 epoll_wait "
     "epoll_pwait epoll_pwait2 futex futex_waitv futex_wait nanosleep clock_nanosleep wait4 waitid "
     "pause rt_sigsuspend rt_sigtimedwait msgrcv msgsnd semop semtimedop mq_timedsend mq_timedreceive "
     "flock fsync fdatasync sync syncfs sync_file_range msync open openat openat2 creat io_getevents "
     "io_pgetevents io_uring_enter sendfile splice tee vmsplice copy_file_range"},
    {"all", ""},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view syscall_name(uint32_t nr) {
  if (nr >= kMaxSyscallNumber) return {};
  return name_table().names[nr];
}

std::optional<uint32_t> syscall_number(std::string_view name) {
  const auto& numbers = name_table().numbers;
  if (auto it = numbers.find(name); it != numbers.end()) return it->second;
  return parse_number(name);
}

std::span<const std::string_view> syscall_class_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const ClassList& c : kClasses) v.push_back(c.name);
    return v;
  }();
  return names;
}

std::optional<SyscallSet> syscall_class(std::string_view name) {
  auto it = std::find_if(std::begin(kClasses), std::end(kClasses), [&](const ClassList& c) { return c.name == name; });
  if (it == std::end(kClasses)) return std::nullopt;
  SyscallSet set;
  if (it->members.empty()) return set.set();
  const auto& numbers = name_table().numbers;
  for (std::string_view rest = it->members; !rest.empty();) {
    size_t space = rest.find(' ');
    std::string_view member = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (auto n = numbers.find(member); n != numbers.end()) set.set(n->second);
  }
  return set;
}

Result<SyscallSet> parse_syscall_selection(std::string_view spec) {
  const std::string whole(spec);
  SyscallSet selected;
  spec = trim(spec);
  if (spec.starts_with('!')) selected.set();
  while (true) {
    size_t comma = spec.find(',');
    std::string_view item = trim(spec.substr(0, comma));
    bool remove = item.starts_with('!');
    if (remove) item = trim(item.substr(1));
    if (item.empty()) return make_error("empty item in system-call selection '" + whole + "'");
    bool class_only = item.starts_with('%');
    std::string_view word = class_only ? item.substr(1) : item;
    SyscallSet members;
    if (auto cls = syscall_class(word)) {
      members = *cls;
    } else if (auto nr = class_only ? std::nullopt : syscall_number(word)) {
      members.set(*nr);
    } else {
      return make_error("unknown system call or class '" + std::string(item) + "'");
    }
    if (remove)
      selected &= ~members;
    else
      selected |= members;
    if (comma == std::string_view::npos) break;
    spec = spec.substr(comma + 1);
  }
  if (selected.none()) return make_error("the system-call selection selects nothing");
  return selected;
}

std::string_view errno_name(int err) {
  if (err < 0) err = -err;
  // Kernel-internal (include/linux/errno.h): a call interrupted by a signal returns one of
  // these at sys_exit before the kernel restarts it or turns it into EINTR.
  switch (err) {
    case 512:
      return "ERESTARTSYS";
    case 513:
      return "ERESTARTNOINTR";
    case 514:
      return "ERESTARTNOHAND";
    case 515:
      return "ENOIOCTLCMD";
    case 516:
      return "ERESTART_RESTARTBLOCK";
    default:
      break;
  }
  const char* name = strerrorname_np(err);
  return name ? std::string_view(name) : std::string_view();
}

}  // namespace callprof::syscalls
