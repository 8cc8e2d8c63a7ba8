#include "util/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace callprof {

std::string read_whole_file(const std::filesystem::path& path) {
  std::string bytes;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return bytes;
  struct stat st {};
  // One byte beyond the size reported, so that a regular file's end is seen by the first read.
  const size_t known = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? size_t(st.st_size) : 0;
  bytes.resize(known > 0 ? known + 1 : size_t(64) << 10);
  size_t used = 0;
  for (ssize_t n; (n = ::read(fd, bytes.data() + used, bytes.size() - used)) > 0;) {
    used += size_t(n);
    if (used == bytes.size()) bytes.resize(bytes.size() * 2);
  }
  ::close(fd);
  bytes.resize(used);
  return bytes;
}

}  // namespace callprof
