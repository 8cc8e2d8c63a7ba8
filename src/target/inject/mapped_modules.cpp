#include "target/inject/mapped_modules.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "symbols/elf_file.h"
#include "symbols/elf_functions.h"

namespace callprof::inject {

Result<LoadLayout> load_layout(const std::string& file) {
  auto elf_file = ElfFile::open(file);
  if (!elf_file) return elf_file.error();
  Elf* elf = elf_file->elf();
  LoadLayout l;
  GElf_Ehdr eh;
  size_t count = 0;
  if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &count) != 0) return make_error(file + " has no program headers");
  l.dynamic_object = eh.e_type == ET_DYN;
  bool load_seen = false;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, int(i), &ph)) continue;
    if (ph.p_type == PT_LOAD && !load_seen) l.first_load = ph.p_vaddr & ~uint64_t(0xfff), load_seen = true;
  }
  return l;
}

Result<std::vector<MappedModule>> mapped_modules(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream in(proc + "/maps");
  if (!in) return make_error("cannot read " + proc + "/maps");
  std::map<std::string, uint64_t> lowest;  // path -> start of its mapping at file offset 0
  std::vector<std::string> order;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (path.empty() || path[0] != '/' || std::stoull(offset, nullptr, 16) != 0) continue;
    const uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    if (auto [it, added] = lowest.emplace(path, start); added)
      order.push_back(path);
    else
      it->second = std::min(it->second, start);
  }
  std::vector<MappedModule> out;
  for (const std::string& path : order) {
    MappedModule m{path, proc + "/root" + path, 0};
    auto l = load_layout(m.file);
    if (!l) continue;
    m.bias = l->dynamic_object ? lowest[path] - l->first_load : 0;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> code_ranges(pid_t pid, const std::string& path) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::vector<std::pair<uint64_t, uint64_t>> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, mapped;
    fields >> range >> perms >> offset >> device >> inode >> mapped;
    if (mapped != path || perms.size() < 3 || perms[2] != 'x') continue;
    const size_t dash = range.find('-');
    out.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return out;
}

const MappedModule* find_module(const std::vector<MappedModule>& modules, const std::string& prefix) {
  for (const MappedModule& m : modules) {
    if (prefix.find('/') != std::string::npos ? m.path == prefix
                                              : m.path.compare(m.path.rfind('/') + 1, prefix.size(), prefix) == 0)
      return &m;
  }
  return nullptr;
}

Result<uint64_t> function_address(const MappedModule& module, const std::string& function) {
  auto functions = elf_functions(module.file);
  if (!functions) return functions.error();
  for (const ElfFunction& f : *functions)
    if (f.linkage_name == function && !f.indirect) return module.bias + f.address;
  return make_error(module.path + " does not define " + function);
}

Result<uint64_t> data_address(const MappedModule& module, const std::string& name) {
  auto file = ElfFile::open(module.file);
  if (!file) return file.error();
  for (Elf_Scn* scn = elf_nextscn(file->elf(), nullptr); scn; scn = elf_nextscn(file->elf(), scn)) {
    GElf_Shdr sh;
    Elf_Data* data = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM ? elf_getdata(scn, nullptr) : nullptr;
    for (size_t i = 0; data && sh.sh_entsize > 0 && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF)
        continue;
      const char* n = elf_strptr(file->elf(), sh.sh_link, sym.st_name);
      if (n && name == n) return module.bias + sym.st_value;
    }
  }
  return make_error(module.path + " does not export " + name);
}

}  // namespace callprof::inject
