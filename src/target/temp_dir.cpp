#include "target/temp_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <vector>

#include "util/user_cache.h"
#include "util/whole_file.h"

namespace callprof {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPrefix = "callprof-";
constexpr const char* kLockName = ".lock";
constexpr time_t kLocklessAge = 3600;  // seconds: an older callprof's directory, surely ended
constexpr int kMaxDepth = 4;           // the runtime writes files only; deeper is not ours

// The live directories and their markers ("" for none), for a signal handler: fixed slots,
// no allocation.
constexpr int kSlots = 8;
char g_paths[kSlots][PATH_MAX];
char g_markers[kSlots][PATH_MAX];
std::atomic<bool> g_used[kSlots];

void remember(const std::string& path, const std::string& marker) {
  if (path.size() >= PATH_MAX || marker.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i].load()) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      std::memcpy(g_markers[i], marker.c_str(), marker.size() + 1);
      g_used[i].store(true);
      return;
    }
}

void forget(const std::string& path) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load() && path == g_paths[i]) g_used[i].store(false);
}

// Unlinks `name` under `parent_fd` and everything in it, with system calls only. Entries are
// listed again until a pass finds none, as removing while listing may skip some.
void remove_tree(int parent_fd, const char* name, int depth) {
  const int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(dirent64) char buf[4096];
    for (bool removed = true; removed;) {
      removed = false;
      lseek(fd, 0, SEEK_SET);
      ssize_t n;
      while ((n = getdents64(fd, buf, sizeof buf)) > 0)
        for (ssize_t off = 0; off < n;) {
          const auto* d = reinterpret_cast<const dirent64*>(buf + off);
          off += d->d_reclen;
          if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
          if (unlinkat(fd, d->d_name, 0) == 0) {
            removed = true;
          } else if (errno == EISDIR && depth < kMaxDepth) {
            remove_tree(fd, d->d_name, depth + 1);
            removed = true;
          }
        }
    }
    close(fd);
  }
  unlinkat(parent_fd, name, AT_REMOVEDIR);
}

// A lock that no live process holds: its owner ended (flock locks die with their holder).
bool lock_is_free(const std::string& dir) {
  const int fd = open((dir + "/" + kLockName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd);
  return free;
}

bool is_stale(const std::string& dir, const struct stat& st) {
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return false;
  struct stat lock {};
  if (lstat((dir + "/" + kLockName).c_str(), &lock) == 0) return S_ISREG(lock.st_mode) && lock_is_free(dir);
  return time(nullptr) - st.st_mtime > kLocklessAge;
}

std::string temp_parent() {
  const char* tmp = getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

// Markers: each recording's directory is named by a file in the user's cache,
// <cache>/running/<host>-callprof-XXXXXX, holding its path and removed with it, so that the
// next recording finds what a killed one left there instead of reading the whole of $TMPDIR
// (1,754 entries on this VM: about 1 ms of every recording). The host name keeps apart the
// recordings of machines that share a home directory.
std::string marker_name(const std::string& dir_name) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + dir_name;
}

// <cache>/running, made when missing (`made`: the first recording that uses markers, which
// reads $TMPDIR once more for the directories of runs that had none); none without a cache
// directory that can be written.
std::optional<std::string> marker_dir(bool& made) {
  const auto cache = user_cache_dir();
  if (!cache) return std::nullopt;
  std::error_code ec;
  fs::create_directories(*cache, ec);
  const std::string dir = (*cache / "running").string();
  made = mkdir(dir.c_str(), 0700) == 0;
  if (!made && errno != EEXIST) return std::nullopt;
  if (access(dir.c_str(), W_OK | X_OK) != 0) return std::nullopt;
  return dir;
}

// The directories this host's markers name whose run is over, removed with their markers; a
// marker whose directory is gone, is not the one its name says, or is not a directory of
// ours, goes alone.
void remove_ended_runs(const std::string& markers) {
  const std::string prefix = marker_name(kPrefix);
  std::vector<std::string> names;
  if (DIR* d = opendir(markers.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) names.emplace_back(e->d_name);
    closedir(d);
  }
  const size_t host = prefix.size() - std::strlen(kPrefix);
  for (const auto& name : names) {
    const std::string marker = markers + "/" + name;
    const std::string dir = read_whole_file(marker);
    struct stat st {};
    if (!dir.empty() && dir[0] == '/' && fs::path(dir).filename() == name.substr(host) &&
        lstat(dir.c_str(), &st) == 0) {
      if (is_stale(dir, st))
        remove_tree(AT_FDCWD, dir.c_str(), 0);
      else if (S_ISDIR(st.st_mode) && st.st_uid == geteuid())
        continue;  // a live run's
    }
    unlink(marker.c_str());
  }
}

// The marker of `dir`, written; "" when it could not be.
std::string write_marker(const std::string& markers, const std::string& dir) {
  const std::string marker = markers + "/" + marker_name(fs::path(dir).filename().string());
  const int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return "";
  const bool written = write(fd, dir.data(), dir.size()) == ssize_t(dir.size());
  close(fd);
  if (written) return marker;
  unlink(marker.c_str());
  return "";
}

// A name for a new directory under `parent`: kPrefix and six random letters or digits, as
// mkdtemp makes them (mkdir refuses a name that exists, a planted link included).
std::string new_dir_name(const std::string& parent) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char draw[6] = {};
  if (getrandom(draw, sizeof draw, GRND_NONBLOCK) != ssize_t(sizeof draw)) {
    const uint64_t mix = uint64_t(time(nullptr)) * 0x9E3779B97F4A7C15ull ^ uint64_t(getpid()) << 20 ^ uint64_t(clock());
    for (size_t i = 0; i < sizeof draw; ++i) draw[i] = static_cast<unsigned char>(mix >> (8 * i));
  }
  std::string name = parent + "/" + kPrefix;
  for (unsigned char c : draw) name += kLetters[c % (sizeof kLetters - 1)];
  return name;
}

// Locks `path` as a recording's directory: the lock file is locked before it takes its name,
// so no other run ever sees it unlocked while we live. Close-on-exec: the launched program
// must not keep a dead callprof's directory alive. The lock's descriptor, or -1 (errno set).
int lock_dir(const std::string& path) {
  const std::string unnamed = path + "/" + kLockName + ".new";
  const int fd = open(unnamed.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && rename(unnamed.c_str(), (path + "/" + kLockName).c_str()) == 0)
    return fd;
  const int err = errno;
  if (fd >= 0) close(fd);
  errno = err;
  return -1;
}

}  // namespace

// Reads the whole parent (/tmp: hundreds of entries on a machine in use), so names are
// compared in place: 1,568 entries took 0.70-0.93 ms through std::filesystem here, 0.33-0.36
// ms with readdir (3 rounds each). Recordings read markers instead where they can.
int remove_stale_temp_dirs(const std::string& parent) {
  std::vector<std::string> stale;
  DIR* dir = opendir(parent.c_str());
  if (dir == nullptr) return 0;
  const size_t prefix = std::strlen(kPrefix);
  while (const dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, kPrefix, prefix) != 0 || std::strlen(e->d_name) != prefix + 6) continue;
    const std::string path = parent + "/" + e->d_name;
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0 && is_stale(path, st)) stale.push_back(path);
  }
  closedir(dir);
  for (const auto& path : stale) remove_tree(AT_FDCWD, path.c_str(), 0);
  return int(stale.size());
}

Result<TempDir> TempDir::create() {
  std::error_code ec;
  const std::string parent = fs::absolute(temp_parent(), ec).string();
  bool first_marker = false;
  const std::optional<std::string> markers = marker_dir(first_marker);
  if (markers && !first_marker)
    remove_ended_runs(*markers);
  else
    remove_stale_temp_dirs(parent);
  // The marker first, then the directory: a run killed between the two leaves a marker whose
  // directory is gone (the next run removes it), never a directory no marker names. (A run
  // starting within those microseconds may take the marker for a dead run's and remove it:
  // this run is then unmarked, as every run was before markers came first.)
  std::string path, marker;
  for (int attempt = 0; path.empty(); ++attempt) {
    const std::string candidate = new_dir_name(parent);
    marker = markers ? write_marker(*markers, candidate) : "";
    if (mkdir(candidate.c_str(), 0700) == 0) {
      path = candidate;
    } else {
      const int err = errno;
      if (!marker.empty()) unlink(marker.c_str());
      if (err != EEXIST || attempt == 100)
        return make_error("cannot create a temporary directory in " + parent + ": " + std::strerror(err));
    }
  }
  remember(path, marker);  // from here a fatal signal removes it
  const int lock_fd = lock_dir(path);
  if (lock_fd < 0) {
    const int err = errno;
    remove_tree(AT_FDCWD, path.c_str(), 0);
    if (!marker.empty()) unlink(marker.c_str());
    forget(path);
    return make_error("cannot lock the temporary directory " + path + ": " + std::strerror(err));
  }
  return TempDir(std::move(path), lock_fd, std::move(marker));
}

TempDir::TempDir(std::string path, int lock_fd, std::string marker)
    : path_(std::move(path)), lock_fd_(lock_fd), marker_(std::move(marker)) {}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::move(other.path_)), lock_fd_(other.lock_fd_), marker_(std::move(other.marker_)) {
  other.path_.clear();
  other.lock_fd_ = -1;
  other.marker_.clear();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  remove_tree(AT_FDCWD, path_.c_str(), 0);
  if (!marker_.empty()) unlink(marker_.c_str());
  forget(path_);
  if (lock_fd_ >= 0) close(lock_fd_);
}

void remove_live_temp_dirs() {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) {
      remove_tree(AT_FDCWD, g_paths[i], 0);
      if (g_markers[i][0] != 0) unlink(g_markers[i]);
    }
}

}  // namespace callprof
