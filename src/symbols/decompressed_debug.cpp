#include "symbols/decompressed_debug.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/user_cache.h"

namespace callprof::symbols_detail {
namespace {

constexpr const char* kPrefix = "debug";
constexpr const char* kSuffix = ".debug";
constexpr size_t kCopiesKept = 4;

// Whether the ELF file open at `fd` is whole enough to say it has this build id.
bool has_build_id(int fd, const unsigned char* bits, int bits_len) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return false;
  const void* id = nullptr;
  const ssize_t len = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  const bool same = len == bits_len && std::memcmp(id, bits, size_t(len)) == 0;
  elf_end(elf);
  return same;
}

}  // namespace

bool has_compressed_debug(int fd) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return false;
  bool compressed = false;
  size_t names = 0;
  if (elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &names) == 0)
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr && !compressed; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
      compressed = name != nullptr && (sh.sh_flags & SHF_COMPRESSED) && std::strncmp(name, ".debug_", 7) == 0;
    }
  elf_end(elf);
  return compressed;
}

// A copy of the file, opened for update: each compressed section inflated in place, then
// the file laid out again by libelf and written.
bool write_decompressed(const std::string& from, const std::string& out) {
  elf_version(EV_CURRENT);
  std::error_code ec;
  if (!std::filesystem::copy_file(from, out, std::filesystem::copy_options::overwrite_existing, ec)) return false;
  const int to = open(out.c_str(), O_RDWR | O_CLOEXEC);
  Elf* elf = to >= 0 ? elf_begin(to, ELF_C_RDWR, nullptr) : nullptr;
  bool ok = elf != nullptr && elf_kind(elf) == ELF_K_ELF;
  for (Elf_Scn* scn = nullptr; ok && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr)
      ok = false;
    else if (sh.sh_flags & SHF_COMPRESSED)
      ok = elf_compress(scn, 0, 0) >= 0;
  }
  ok = ok && elf_update(elf, ELF_C_WRITE) >= 0;
  if (elf != nullptr) elf_end(elf);
  if (to >= 0) close(to);
  if (!ok) unlink(out.c_str());
  return ok;
}

// The copy is keyed by the module's build id: the DWARF for one build is the same wherever
// its debug file lies (and stays right after the package is removed). It is looked for
// before libdwfl's own search, which keeps an Elf of the file it finds for the module, and
// that one is then used, whatever the callback returns.
int find_debuginfo_decompressed(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                                const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                                char** debuginfo_file_name) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int bits_len = dwfl_module_build_id(mod, &bits, &vaddr);
  const auto dir = user_cache_dir();
  std::string copy;
  if (bits_len > 0 && dir) {
    std::string build_id;
    char hex[3];
    for (int i = 0; i < bits_len; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", bits[i]);
      build_id += hex;
    }
    copy = (*dir / cache_file_name(kPrefix, "decompressed; build id " + build_id, kSuffix)).string();
    const int copied = open(copy.c_str(), O_RDONLY | O_CLOEXEC);
    if (copied >= 0 && has_build_id(copied, bits, bits_len)) {
      if (*debuginfo_file_name == nullptr) *debuginfo_file_name = strdup(copy.c_str());
      return copied;
    }
    if (copied >= 0) {  // damaged: made again below
      close(copied);
      unlink(copy.c_str());
    }
  }
  const int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
                                              debuginfo_file_name);
  // This time the file found is read (libdwfl holds it already); the copy is for the next.
  if (fd >= 0 && !copy.empty() && *debuginfo_file_name != nullptr && has_compressed_debug(fd)) {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    const std::string tmp = copy + ".tmp." + std::to_string(getpid());
    if (write_decompressed(*debuginfo_file_name, tmp) && rename(tmp.c_str(), copy.c_str()) == 0)
      keep_newest_cache_files(*dir, kPrefix, kSuffix, kCopiesKept);
    else
      unlink(tmp.c_str());
  }
  return fd;
}

}  // namespace callprof::symbols_detail
