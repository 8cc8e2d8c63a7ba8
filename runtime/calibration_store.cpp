// The shared calibration's file (calibration_store.h): one fixed-size record, checked by its
// magic and size, written to a file of the writer's own and exchanged (or renamed) into place
// so a reader never sees half of it.
#include "calibration_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

#include "calibration_check.h"
#include "path_text.h"
#include "raw_syscall.h"

namespace callprof::rt {
namespace {

using wire::CalibrationFile;
constexpr uint32_t kAllSets = (1u << wire::kHookSets) - 1;

Path file_in(const char* dir) {
  Path p;
  p.add(dir).add("/calibration");
  return p;
}

// The recording's directory, locked while a writer reads the file and writes what it read
// back: processes end together (a pipeline's, a build's compilers), and the larger change
// at an exit must survive either order. Held for a read and a write or two; released when
// closed, or at the process's end. Waited for 10 ms at most, then done without: a child
// that another thread forked while this one held it holds it too, until it execs or ends,
// and a process must never hang at its exit for a lock (a change lost is the lesser harm).
class DirectoryLock {
 public:
  explicit DirectoryLock(const char* dir) : fd_(sys::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    const timespec pause{0, 100 * 1000};
    for (int tries = 0; fd_ >= 0 && tries < 100; ++tries) {
      if (sys::flock(int(fd_), LOCK_EX | LOCK_NB) == 0) return;
      sys::call(SYS_nanosleep, sys::p(&pause), 0);
    }
  }
  ~DirectoryLock() {
    if (fd_ >= 0) sys::close(int(fd_));
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  long fd_;
};

// Adds each set of `rechecked` and its change to `sets` and `kept` where the change is
// larger than the one kept, or none was.
void keep_larger(uint32_t& sets, int32_t* kept, uint32_t rechecked, const int32_t* change) {
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    if (!(rechecked & (1u << i))) continue;
    const int32_t magnitude = change[i] < 0 ? -change[i] : change[i];
    if (!(sets & (1u << i)) || magnitude > (kept[i] < 0 ? -kept[i] : kept[i])) kept[i] = change[i];
    sets |= 1u << i;
  }
}

// A set still taken from the cache, with the same costs and check as the file's, that a
// process found checked meanwhile stays checked.
void keep_checked(CalibrationFile& f, const SharedCalibration& there) {
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    const uint32_t bit = 1u << i;
    if (!(there.checked_sets & f.cached_sets & bit) || there.check[i] != f.check[i]) continue;
    if (__builtin_memcmp(&there.costs[i], &f.costs[i], sizeof f.costs[i]) == 0) f.checked_sets |= bit;
  }
}

}  // namespace

SharedCalibration load_calibration(const char* dir) {
  SharedCalibration out;
  const long fd = sys::open(file_in(dir).text, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  CalibrationFile f;
  const long got = sys::read(int(fd), &f, sizeof f);
  sys::close(int(fd));
  bool same_magic = got == long(sizeof f);
  for (int i = 0; same_magic && i < 8; ++i) same_magic = f.magic[i] == wire::kCalibrationMagic[i];
  if (!same_magic || !(f.ticks_per_ns > 0 && f.ticks_per_ns < 1e3)) return out;
  out.ticks_per_ns = f.ticks_per_ns;
  out.sets = uint8_t(f.sets & kAllSets);
  out.cached_sets = uint8_t(f.cached_sets & out.sets);
  out.checked_sets = uint8_t(f.checked_sets & out.cached_sets);
  out.failed_sets = uint8_t(f.failed_sets & kAllSets);
  out.rechecked_sets = uint8_t(f.rechecked_sets & out.sets);
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    out.costs[i] = f.costs[i];
    out.check[i] = f.check[i];
    out.recheck_change_permille[i] = f.recheck_change_permille[i];
  }
  out.alternates = f.alternates < wire::kCalibrationAlternates ? f.alternates : wire::kCalibrationAlternates;
  __builtin_memcpy(out.alternate_costs, f.alternate_costs, sizeof f.alternate_costs);
  __builtin_memcpy(out.alternate_check, f.alternate_check, sizeof f.alternate_check);
  return out;
}

bool take_alternate(SharedCalibration& c, uint32_t set, uint64_t now) {
  uint64_t checks[wire::kCalibrationAlternates];
  for (uint32_t a = 0; a < c.alternates; ++a) checks[a] = c.alternate_check[a][set];
  const int a = confirmed_alternate(now, checks, int(c.alternates));
  if (a < 0) return false;
  c.costs[set] = c.alternate_costs[a][set];
  c.check[set] = c.alternate_check[a][set];
  c.switched_sets = uint8_t(c.switched_sets | 1u << set);
  return true;
}

void save_checked_sets(const char* dir, uint8_t checked) {
  DirectoryLock lock(dir);
  const long fd = sys::open(file_in(dir).text, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  constexpr uint64_t kAt = __builtin_offsetof(CalibrationFile, checked_sets);
  // Added to the sets other processes found checked since this one read the file.
  uint32_t sets = 0;
  if (sys::pread(int(fd), &sets, sizeof sets, kAt) != long(sizeof sets)) sets = 0;
  sets |= checked;
  sys::pwrite(int(fd), &sets, sizeof sets, kAt);
  sys::close(int(fd));
}

void save_recheck(const char* dir, uint8_t rechecked, const int32_t* change) {
  DirectoryLock lock(dir);
  const long fd = sys::open(file_in(dir).text, O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  uint32_t sets = 0;
  int32_t now[wire::kHookSets] = {};
  constexpr uint64_t kSetsAt = __builtin_offsetof(CalibrationFile, rechecked_sets);
  constexpr uint64_t kChangeAt = __builtin_offsetof(CalibrationFile, recheck_change_permille);
  if (sys::pread(int(fd), &sets, sizeof sets, kSetsAt) == long(sizeof sets) &&
      sys::pread(int(fd), now, sizeof now, kChangeAt) == long(sizeof now)) {
    keep_larger(sets, now, rechecked, change);
    sys::pwrite(int(fd), now, sizeof now, kChangeAt);
    sys::pwrite(int(fd), &sets, sizeof sets, kSetsAt);
  }
  sys::close(int(fd));
}

void save_calibration(const char* dir, const SharedCalibration& c) {
  if (!(c.ticks_per_ns > 0)) return;
  CalibrationFile f{};
  for (int i = 0; i < 8; ++i) f.magic[i] = wire::kCalibrationMagic[i];
  f.sets = c.sets;
  f.cached_sets = c.cached_sets;
  f.checked_sets = c.checked_sets;
  f.failed_sets = c.failed_sets;
  f.ticks_per_ns = c.ticks_per_ns;
  f.rechecked_sets = c.rechecked_sets;
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    f.costs[i] = c.costs[i];
    f.check[i] = c.check[i];
    f.recheck_change_permille[i] = c.recheck_change_permille[i];
  }
  f.alternates = c.alternates;
  __builtin_memcpy(f.alternate_costs, c.alternate_costs, sizeof f.alternate_costs);
  __builtin_memcpy(f.alternate_check, c.alternate_check, sizeof f.alternate_check);
  // What processes that ended since `c` was read found at their exit stays.
  DirectoryLock lock(dir);
  const SharedCalibration there = load_calibration(dir);
  keep_larger(f.rechecked_sets, f.recheck_change_permille, there.rechecked_sets, there.recheck_change_permille);
  keep_checked(f, there);
  Path tmp = file_in(dir);
  tmp.add(".").add(uint32_t(sys::getpid()));
  const long fd = sys::open(tmp.text, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const bool whole = sys::write(int(fd), &f, sizeof f) == long(sizeof f);
  sys::close(int(fd));
  // Exchanged with the file in place, whose content then goes with ours: a rename over it
  // would have ext4 (auto_da_alloc) write ours out at once and free its blocks when the
  // recording ends, a synchronous discard where the file system is mounted so (rename and
  // unlink 0.26 ms against 0.03 on this VM). A rename where there is nothing to exchange.
  if (whole && sys::exchange(tmp.text, file_in(dir).text) != 0) {
    sys::rename(tmp.text, file_in(dir).text);
    return;
  }
  sys::unlink(tmp.text);
}

}  // namespace callprof::rt
