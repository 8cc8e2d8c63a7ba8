// An ELF file opened for reading with libelf (mapped, not copied), closed with its owner.
#pragma once

#include <libelf.h>

#include <string>

#include "util/result.h"

namespace callprof {

class ElfFile {
 public:
  // An Error when the file cannot be opened or is not ELF.
  static Result<ElfFile> open(const std::string& path);
  ElfFile(ElfFile&& other) noexcept : fd_(other.fd_), elf_(other.elf_) { other.fd_ = -1, other.elf_ = nullptr; }
  ElfFile& operator=(ElfFile&&) = delete;
  ~ElfFile();

  Elf* elf() const { return elf_; }

 private:
  ElfFile(int fd, Elf* elf) : fd_(fd), elf_(elf) {}
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

}  // namespace callprof
