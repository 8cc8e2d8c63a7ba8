// The .comment section's strings, read with libelf.
#include "symbols/elf_compiler.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string_view>

#include "util/user_cache.h"

namespace callprof {
namespace {

std::string comment_text(Elf* elf) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return "";
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name || std::strcmp(name, ".comment") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) return "";
    return std::string(static_cast<const char*>(data->d_buf), data->d_size);
  }
  return "";
}

std::string read_compiler(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::string text = elf && elf_kind(elf) == ELF_K_ELF ? comment_text(elf) : "";
  if (elf) elf_end(elf);
  close(fd);
  const std::string_view t(text);
  if (t.find("clang version") != std::string_view::npos) return "clang";
  return t.find("GCC:") != std::string_view::npos ? "gcc" : "";
}

}  // namespace

std::string elf_compiler(const std::string& path) {
  // A recording asks about its program before it starts and again when it builds the
  // profile: the second answer is the first while the file is the same one, unchanged.
  const std::optional<std::string> identity = file_identity(path);
  if (!identity) return "";
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, std::string>> known;  // path: identity, compiler
  {
    std::lock_guard lock(mutex);
    auto it = known.find(path);
    if (it != known.end() && it->second.first == *identity) return it->second.second;
  }
  std::string compiler = read_compiler(path);
  std::lock_guard lock(mutex);
  known[path] = {*identity, compiler};
  return compiler;
}

}  // namespace callprof
