// Build ids of files on disk, read with libelf (the file is closed again at once).
#include "symbols/elf_handles.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace callprof::symbols_detail {
namespace {

struct ElfDeleter {
  void operator()(Elf* elf) const noexcept { elf_end(elf); }
};

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string to_hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xf]);
  }
  return hex;
}

Result<std::string> file_build_id(const std::string& path) {
  // libelf refuses to work until a version is agreed on; repeating it is harmless.
  elf_version(EV_CURRENT);
  // O_NONBLOCK and the type check: paths come from profiles too, and a FIFO or a device
  // there must not block or stream forever.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return make_error(std::strerror(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return make_error(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return make_error("not a regular file");
  std::unique_ptr<Elf, ElfDeleter> elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) return make_error("not an ELF file");
  const void* id = nullptr;
  ssize_t size = dwelf_elf_gnu_build_id(elf.get(), &id);
  if (size <= 0 || id == nullptr) return std::string();  // none, or notes too damaged to tell
  return to_hex(static_cast<const unsigned char*>(id), static_cast<size_t>(size));
}

}  // namespace callprof::symbols_detail
