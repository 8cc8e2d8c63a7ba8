#include "target/inject/safe_point.h"

#include <sys/syscall.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace callprof::inject {
namespace {

bool is_system_library(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  // libgcc_s: a thread inside it is walking its stack (an exception), which must not
  // change under it once a patched program's return addresses are replaced.
  for (const char* prefix : {"libc.so", "libc-", "ld-linux", "ld64.so", "libpthread.so", "libdl.so", "libgcc_s.so"})
    if (base.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

bool SystemCode::contains(uint64_t address) const {
  for (const auto& [lo, hi] : ranges)
    if (address >= lo && address < hi) return true;
  return false;
}

Result<SystemCode> system_code_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  if (!in) return make_error("cannot read /proc/" + std::to_string(pid) + "/maps");
  SystemCode out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (path.empty() || perms.size() < 3 || perms[2] != 'x' || !is_system_library(path)) continue;
    const size_t dash = range.find('-');
    out.ranges.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16),
                            std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return out;
}

std::vector<uint64_t> code_addresses(const std::vector<UnwoundFrame>& frames) {
  std::vector<uint64_t> out;
  out.reserve(frames.size());
  for (const UnwoundFrame& f : frames) out.push_back(f.code());
  return out;
}

bool waiting_in_blocking_call(const user_regs_struct& regs) {
  if (int64_t(regs.orig_rax) < 0) return false;
  switch (regs.orig_rax) {
    case SYS_read:
    case SYS_pread64:
    case SYS_readv:
    case SYS_preadv:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_accept:
    case SYS_accept4:
    case SYS_connect:
    case SYS_poll:
    case SYS_ppoll:
    case SYS_select:
    case SYS_pselect6:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_wait4:
    case SYS_waitid:
    case SYS_pause:
    case SYS_rt_sigsuspend:
    case SYS_rt_sigtimedwait:
      return true;
    default:
      return false;
  }
}

bool waiting_on_program_object(const user_regs_struct& regs, const std::string& called) {
  if (regs.orig_rax != SYS_futex) return false;
  // glibc's names: the public ones, their versioned and internal aliases ("__new_sem_wait",
  // "___pthread_cond_wait", "pthread_join@@GLIBC_2.34", "__pthread_clockjoin_ex").
  std::string name = called.substr(0, called.find('@'));
  name.erase(0, name.find_first_not_of('_'));
  static const char* const kWaits[] = {"pthread_cond_wait",
                                       "pthread_cond_timedwait",
                                       "pthread_cond_clockwait",
                                       "pthread_join",
                                       "pthread_timedjoin_np",
                                       "pthread_clockjoin_np",
                                       "pthread_clockjoin_ex",
                                       "sem_wait",
                                       "sem_timedwait",
                                       "sem_clockwait",
                                       "new_sem_wait",
                                       "new_sem_wait_slow64",
                                       "pthread_mutex_lock",
                                       "pthread_mutex_timedlock",
                                       "pthread_mutex_clocklock",
                                       "pthread_rwlock_rdlock",
                                       "pthread_rwlock_wrlock",
                                       "pthread_barrier_wait"};
  for (const char* w : kWaits)
    if (name == w) return true;
  return false;
}

std::string called_from_program(const std::vector<uint64_t>& frames, const SystemCode& system,
                                const ProcessUnwinder& unwinder) {
  size_t i = 0;
  while (i < frames.size() && system.contains(frames[i])) ++i;
  return i > 0 && i < frames.size() ? unwinder.function_name(frames[i - 1]) : "";
}

bool safe_to_borrow(const std::vector<uint64_t>& frames, const SystemCode& system, bool blocking) {
  size_t own = 0;  // the innermost frame of the program's own code
  if (blocking)
    while (own < frames.size() && system.contains(frames[own])) ++own;
  if (frames.size() < own + 2) return false;  // not even a caller: nothing known
  size_t first_system = own;
  while (first_system < frames.size() && !system.contains(frames[first_system])) ++first_system;
  // Unwound down to its base: the outermost frames are libc's thread or program start
  // (start_thread, __libc_start_main, clone3; the executable's _start may end it).
  if (first_system == frames.size()) return false;
  for (size_t i = first_system; i < frames.size(); ++i)
    if (!system.contains(frames[i]) && i + 1 != frames.size()) return false;
  return first_system > own;
}

}  // namespace callprof::inject
