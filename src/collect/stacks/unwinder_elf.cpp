// Load bias and build id of mapped ELF files (see unwinder_elf.h).
#include "collect/stacks/unwinder_elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

namespace callprof::stacks {
namespace {

constexpr uint64_t kPageMask = ~uint64_t{0xfff};

struct ElfCloser {
  void operator()(Elf* elf) const noexcept { elf_end(elf); }
};
using ElfPtr = std::unique_ptr<Elf, ElfCloser>;

std::string hex(const unsigned char* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::string build_id_of(Elf* elf, size_t phnum) {
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_NOTE) continue;
    Elf_Data* data = elf_getdata_rawchunk(elf, int64_t(ph.p_offset), ph.p_filesz, ELF_T_NHDR);
    if (data == nullptr) continue;
    GElf_Nhdr note;
    size_t offset = 0, name_at = 0, desc_at = 0;
    while ((offset = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
      const char* base = static_cast<const char*>(data->d_buf);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(base + name_at, "GNU", 4) == 0) {
        return hex(reinterpret_cast<const unsigned char*>(base + desc_at), note.n_descsz);
      }
    }
  }
  return {};
}

// The segment the kernel mapped at file offset pgoff: mappings start on the page that
// holds p_offset, so compare page-rounded offsets.
Result<uint64_t> bias_from_segments(Elf* elf, size_t phnum, const perf::Mapping& mapping) {
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
    if (mapping.pgoff < (ph.p_offset & kPageMask) || mapping.pgoff >= ph.p_offset + ph.p_filesz) continue;
    return mapping.start - mapping.pgoff + ph.p_offset - ph.p_vaddr;
  }
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(mapping.pgoff));
  return make_error(mapping.path + ": no loadable segment at file offset " + offset);
}

// This process's vDSO copied into a memory file, so libdwfl can read it like any file.
Result<int> own_vdso_fd() {
  const auto* image = reinterpret_cast<const unsigned char*>(getauxval(AT_SYSINFO_EHDR));
  if (image == nullptr) return make_error("[vdso]: this process has no vDSO to read");
  std::ifstream maps("/proc/self/maps");
  std::string line;
  size_t size = 0;
  while (std::getline(maps, line)) {
    if (line.find("[vdso]") == std::string::npos) continue;
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &start, &end) == 2) size = end - start;
  }
  if (size == 0) return make_error("[vdso]: not found in /proc/self/maps");
  int fd = memfd_create("callprof-vdso", MFD_CLOEXEC);
  if (fd < 0) return make_error(std::string("[vdso]: memfd_create: ") + std::strerror(errno));
  if (write(fd, image, size) != ssize_t(size)) {
    close(fd);
    return make_error("[vdso]: cannot copy the vDSO image");
  }
  return fd;
}

Result<int> open_file(const perf::Mapping& mapping) {
  if (mapping.path == "[vdso]") return own_vdso_fd();
  int fd = open(mapping.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(mapping.path + ": cannot open: " + std::strerror(errno));
  return fd;
}

}  // namespace

bool mapping_has_file(const std::string& path) {
  return path == "[vdso]" || (!path.empty() && path[0] == '/' && path.rfind("//anon", 0) != 0);
}

Result<MappedElf> open_mapped_elf(const perf::Mapping& mapping) {
  elf_version(EV_CURRENT);
  Result<int> fd = open_file(mapping);
  if (!fd.ok()) return fd.error();
  MappedElf out;
  out.fd = fd.value();
  ElfPtr elf(elf_begin(out.fd, ELF_C_READ_MMAP, nullptr));
  size_t phnum = 0;
  Result<uint64_t> bias = make_error(mapping.path + ": not an ELF file");
  if (elf && elf_kind(elf.get()) == ELF_K_ELF && elf_getphdrnum(elf.get(), &phnum) == 0) {
    bias = bias_from_segments(elf.get(), phnum, mapping);
    out.build_id = build_id_of(elf.get(), phnum);
  }
  elf.reset();
  if (!bias.ok()) {
    close(out.fd);
    return bias.error();
  }
  out.bias = bias.value();
  return out;
}

Result<uint64_t> mapping_load_bias(const perf::Mapping& mapping) {
  Result<MappedElf> elf = open_mapped_elf(mapping);
  if (!elf.ok()) return elf.error();
  close(elf->fd);
  return elf->bias;
}

}  // namespace callprof::stacks
