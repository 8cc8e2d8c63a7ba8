// ELF inspection with libelf: the dynamic symbol table tells whether the program calls the
// instrumentation hooks.
#include "target/executable.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace callprof {
namespace {

std::string find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* env = getenv("PATH");
  std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// A symbol table entry naming the enter hook: `__cyg_profile_func_enter`, or in a .symtab
// `__cyg_profile_func_enter@GLIBC_2.2.5` (binutils names undefined versioned symbols so).
bool names_hook(const char* name) {
  static constexpr char kHook[] = "__cyg_profile_func_enter";
  return name && std::strncmp(name, kHook, sizeof kHook - 1) == 0 &&
         (name[sizeof kHook - 1] == 0 || name[sizeof kHook - 1] == '@');
}

// Whether the table of type `table` names the enter hook; `undefined_only`: as a reference
// to another module's (libc.so defines glibc's empty hooks and calls none).
bool table_names_hook(Elf* elf, GElf_Word table, bool undefined_only) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != table || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym)) break;
      if ((!undefined_only || sym.st_shndx == SHN_UNDEF) && names_hook(elf_strptr(elf, sh.sh_link, sym.st_name)))
        return true;
    }
  }
  return false;
}

// A dynamically linked program or shared library calls hooks resolved at load time (from the
// preloaded runtime): an undefined symbol of its .dynsym. A static program has them linked
// in: its .symtab (absent when stripped).
bool references_hook(Elf* elf, bool dynamic_program) {
  return table_names_hook(elf, SHT_DYNSYM, true) || (!dynamic_program && table_names_hook(elf, SHT_SYMTAB, false));
}

}  // namespace

static bool has_section(Elf* elf, const char* wanted) {
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
    if (name && std::strcmp(name, wanted) == 0 && sh.sh_size > 0) return true;
  }
  return false;
}

Result<ExecutableInfo> inspect_executable(const std::string& program) {
  ExecutableInfo info;
  info.path = find_in_path(program);
  if (info.path.empty()) return make_error("cannot find '" + program + "' in PATH");
  int fd = open(info.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + info.path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    close(fd);
    return make_error(info.path + " is not a program (" + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                      ")");
  }
  if (fstat(fd, &st) == 0)
    info.changes_identity = ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
                            ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid());
  char magic[2] = {};
  info.script = pread(fd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!';
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
    if (elf) elf_end(elf);
    close(fd);
    // Scripts: the kernel runs their interpreter; we cannot look inside.
    return info;
  }
  info.elf = true;
  info.elf_class = gelf_getclass(elf);
  info.machine = eh.e_machine;
  info.elf_type = eh.e_type;
  size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_INTERP) info.dynamic = true;
  }
  info.has_hooks = references_hook(elf, info.dynamic);
  info.patchable = has_section(elf, "__patchable_function_entries");
  elf_end(elf);
  close(fd);
  return info;
}

bool is_wrapper(const ExecutableInfo& info) {
  static constexpr const char* kWrappers[] = {"sh",     "bash",  "dash",    "zsh",    "ksh",   "fish",    "env",
                                              "nice",   "nohup", "timeout", "stdbuf", "xargs", "taskset", "setsid",
                                              "ionice", "chrt",  "sudo",    "su",     "time",  "make"};
  const size_t slash = info.path.rfind('/');
  const std::string name = slash == std::string::npos ? info.path : info.path.substr(slash + 1);
  for (const char* w : kWrappers)
    if (name == w) return true;
  return info.script;
}

Status check_runnable(const ExecutableInfo& info) {
  const std::string& p = info.path;
  if (!info.elf && !info.script)
    return make_error(p +
                      " is neither an ELF program nor a script starting with #! (the system would hand it to "
                      "/bin/sh); callprof runs only those: to profile a shell script, run it as sh " +
                      p);
  if (info.elf && info.elf_class == ELFCLASS32) return make_error(p + " is a 32-bit ELF program: " + kWhyNot32Bit);
  if (info.elf && info.machine != EM_X86_64)
    return make_error(p + " is an ELF program for another machine (e_machine " + std::to_string(info.machine) +
                      "): callprof profiles x86-64 programs only");
  if (info.elf && info.elf_type != ET_EXEC && info.elf_type != ET_DYN)
    return make_error(p + " is an ELF file but not a program (an object file or a core dump?)");
  if (info.changes_identity)
    return make_error(p +
                      " is set-user-ID or set-group-ID to another identity: the kernel keeps LD_PRELOAD and "
                      "performance monitoring of other users away from it, so callprof cannot profile it (profile "
                      "a copy without that bit, or run callprof as that user)");
  return Ok{};
}

}  // namespace callprof
