#include "target/frame_pointers.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace callprof {
namespace {

struct Segment {
  uint64_t vaddr, offset, filesz;
};

constexpr size_t kMaxFunctions = 4000;

// push %rbp; mov %rsp,%rbp (either encoding), at the entry or after endbr64.
bool sets_frame_pointer(const uint8_t* b) {
  static const uint8_t kEndbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (std::memcmp(b, kEndbr64, 4) == 0) b += 4;
  return b[0] == 0x55 && b[1] == 0x48 && (b[2] == 0x89 || b[2] == 0x8b) && (b[3] == 0xe5 || b[3] == 0xec);
}

}  // namespace

FramePointerShare frame_pointer_share(const std::string& path) {
  FramePointerShare share;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return share;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    close(fd);
    return share;
  }
  std::vector<Segment> code;
  size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      code.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
  }
  for (GElf_Word table : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr && share.functions < kMaxFunctions;) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type != table || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && share.functions < kMaxFunctions; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, int(i), &sym)) break;
        // Tiny functions (stubs, getters) keep no frame even when built to.
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_size < 32) continue;
        for (const Segment& s : code) {
          if (sym.st_value < s.vaddr || sym.st_value + 8 > s.vaddr + s.filesz) continue;
          uint8_t bytes[8];
          if (pread(fd, bytes, sizeof bytes, off_t(sym.st_value - s.vaddr + s.offset)) != ssize_t(sizeof bytes)) break;
          ++share.functions;
          share.with_frame_pointer += sets_frame_pointer(bytes);
          break;
        }
      }
    }
    if (share.functions > 0) break;
  }
  elf_end(elf);
  close(fd);
  return share;
}

}  // namespace callprof
