// POSIX file access for profiles: reads that stop where the header says the file ends, and
// writes that replace the target in one rename so no reader sees a half-written profile.
#include "trace/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <system_error>

#include "util/huge_pages.h"

namespace callprof::trace {
namespace {

constexpr size_t kReadChunk = size_t(1) << 20;

Error io_error(std::string_view verb, const std::string& path, int err) {
  return make_error(fmt::format("cannot {} {}: {}", verb, path, std::generic_category().message(err)));
}

// Returns 0 or the errno of the failed write.
int write_all(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += size_t(n);
  }
  return 0;
}

// A fresh sibling of `path`: rename() is atomic only within one file system. O_EXCL keeps
// two writers (or a stale leftover) from sharing a temporary file.
int create_temporary(const std::string& path, std::string& tmp_path) {
  static std::atomic<unsigned> sequence{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp_path = fmt::format("{}.tmp.{}.{}", path, ::getpid(), sequence++);
    const int fd = ::open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

// Opened without blocking and checked before reading: a device or directory is never a
// profile. A pipe or FIFO is read as it comes (`report -i <(zcat p.gz)`, `-i -`): opened
// again to block as `cat` does until a named FIFO has a writer (a pipe has one already).
Result<InputFile> InputFile::open(const std::string& path) {
  if (path == "-") return from_stdin();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error("read", path, errno);
  InputFile file(fd, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("read", path, errno);
  if (S_ISFIFO(st.st_mode)) {
    const int blocking = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (blocking < 0) return io_error("read", path, errno);
    return InputFile(blocking, path);
  }
  if (!S_ISREG(st.st_mode)) return make_error(fmt::format("cannot read {}: not a regular file, pipe or FIFO", path));
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return file;
}

Result<InputFile> InputFile::from_stdin() {
  struct stat st {};
  if (::fstat(0, &st) != 0) return io_error("read", "standard input", errno);
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return make_error("cannot read standard input (-i -): not a file or pipe (a terminal?)");
  const int fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) return io_error("read", "standard input", errno);
  return InputFile(fd, "standard input");
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InputFile::read_until(std::vector<uint8_t>& out, uint64_t limit) {
  struct stat st {};
  // Room for the whole file and the one byte a caller may ask past it (a file longer than it
  // says): without that byte the last read doubled the vector and copied the file.
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode))
    reserve_huge(out, size_t(std::min<uint64_t>(limit, uint64_t(st.st_size) + 1)));
  while (out.size() < limit) {
    const size_t chunk = size_t(std::min<uint64_t>(limit - out.size(), kReadChunk));
    const size_t old_size = out.size();
    out.resize(old_size + chunk);
    const ssize_t n = ::read(fd_, out.data() + old_size, chunk);
    const int err = errno;
    out.resize(old_size + size_t(std::max<ssize_t>(n, 0)));
    if (n < 0 && err == EINTR) continue;
    if (n < 0) return io_error("read", path_, err);
    if (n == 0) break;
  }
  return Ok{};
}

Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  std::string tmp_path;
  const int fd = create_temporary(path, tmp_path);
  if (fd < 0) return io_error("write", path, errno);
  // No fsync before the rename (0.14-0.18 ms of a short recording's CPU, more than its file's
  // write): a profile is recorded again, not restored, and the exports never had one.
  int err = write_all(fd, bytes);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp_path.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp_path.c_str());
    return io_error("write", path, err);
  }
  return Ok{};
}

Status check_writable(const std::string& path) {
  std::string tmp_path;
  const int fd = create_temporary(path, tmp_path);
  if (fd < 0) return io_error("write", path, errno);
  ::close(fd);
  ::unlink(tmp_path.c_str());
  return Ok{};
}

}  // namespace callprof::trace
