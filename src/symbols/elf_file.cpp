#include "symbols/elf_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace callprof {

Result<ElfFile> ElfFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + path + ": " + std::strerror(errno));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  ElfFile file(fd, elf);  // closes both on the way out, whatever happens
  if (!elf || elf_kind(elf) != ELF_K_ELF) return make_error(path + " is not an ELF file");
  return file;
}

ElfFile::~ElfFile() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

}  // namespace callprof
