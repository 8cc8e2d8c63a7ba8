// Library calls: at start-up, every PLT slot (JUMP_SLOT relocation) of every instrumented
// module is pointed at a stub of libcall_trampoline.S that records the call as its own
// node and then calls the symbol's real target. See docs/modes.md "Library calls".
#include "libcalls.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "clock.h"
#include "hook_path.h"
#include "libcall_layout.h"
#include "module_walk.h"
#include "raw_syscall.h"
#include "symbol_presence.h"

extern "C" {
__attribute__((visibility("hidden"))) extern char callprof_libcall_stubs[];
// Read by the trampoline: the real target of stub i.
__attribute__((visibility("hidden"))) uint64_t callprof_libcall_targets[CALLPROF_LIBCALL_STUBS];
__attribute__((visibility("hidden"))) void callprof_libcall_enter(uint32_t index, uint64_t callsite, uint64_t sp);
__attribute__((visibility("hidden"))) void callprof_libcall_exit(uint32_t index, uint64_t sp);
}

namespace callprof::rt {
namespace {

constexpr uint32_t kStubs = CALLPROF_LIBCALL_STUBS;
constexpr uint32_t kStubIndexSlots = 2 * kStubs;  // open addressing by (name, target)
constexpr uint32_t kMaxModules = 512;

uint64_t stub_id(uint32_t index) {
  return reinterpret_cast<uint64_t>(callprof_libcall_stubs) + (uint64_t(index) << CALLPROF_LIBCALL_STUB_SHIFT);
}

// What install_libcalls needs of one loaded module, from its program headers and PT_DYNAMIC.
struct Module {
  uint64_t bias, start, end;        // load bias; address range of the PT_LOAD segments
  uint64_t relro_start, relro_end;  // pages the dynamic linker made read-only
  const ElfW(Sym) * symtab;
  const char* strtab;
  const ElfW(Rela) * jmprel;  // the PLT's relocations
  uint64_t jmprel_count;
  const ElfW(Rela) * rela;  // the others (GLOB_DAT: calls made with -fno-plt)
  uint64_t rela_count;
  const ElfW(Half) * versym;
  const char* verneed;
  uint64_t verneed_count;
  bool instrumented;
  bool contains(uint64_t a) const { return a >= start && a < end; }
};

struct Modules {
  Module list[kMaxModules];
  uint32_t count;
};

struct StubTable {
  const char* names[kStubs];
  uint32_t index[kStubIndexSlots];  // stub + 1, 0 = empty
  uint32_t count;
};

constinit Modules g_modules{};
constinit StubTable g_stubs{};

// Calls that must not gain a frame between caller and callee: they return twice or
// switch stacks (the setjmp and context families, vfork, clone), use their caller's
// address (dl*), have their own calling conventions (__tls_get_addr, mcount), belong to
// the exception machinery or to the program's start, or are hooks.
bool never_wrapped(const char* name) {
  static const char* const kPrefixes[] = {"__cyg_profile_", "_Unwind_", "__cxa_",  "__gxx_",  "dl",      "_dl",
                                          "__libc_start",   "_ITM_",    "__asan_", "__tsan_", "__ubsan_"};
  static const char* const kNames[] = {"setjmp",     "_setjmp",     "sigsetjmp",     "__sigsetjmp",    "savectx",
                                       "vfork",      "__vfork",     "clone",         "clone3",         "getcontext",
                                       "setcontext", "swapcontext", "makecontext",   "__tls_get_addr", "mcount",
                                       "_mcount",    "__fentry__",  "__gmon_start__"};
  for (const char* p : kPrefixes)
    if (strncmp(name, p, strlen(p)) == 0) return true;
  for (const char* n : kNames)
    if (strcmp(name, n) == 0) return true;
  return false;
}

// glibc rewrites most d_ptr values to run-time addresses, not all of them everywhere.
template <typename T>
const T* dyn_pointer(uint64_t value, uint64_t bias) {
  return reinterpret_cast<const T*>(value < bias ? value + bias : value);
}

void read_dynamic(Module& m, const ElfW(Dyn) * dyn) {
  uint64_t jmprel_bytes = 0, rela_bytes = 0;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    const uint64_t v = dyn->d_un.d_val;
    switch (dyn->d_tag) {
      case DT_SYMTAB:
        m.symtab = dyn_pointer<ElfW(Sym)>(v, m.bias);
        break;
      case DT_STRTAB:
        m.strtab = dyn_pointer<char>(v, m.bias);
        break;
      case DT_JMPREL:
        m.jmprel = dyn_pointer<ElfW(Rela)>(v, m.bias);
        break;
      case DT_PLTRELSZ:
        jmprel_bytes = v;
        break;
      case DT_RELA:
        m.rela = dyn_pointer<ElfW(Rela)>(v, m.bias);
        break;
      case DT_RELASZ:
        rela_bytes = v;
        break;
      case DT_VERSYM:
        m.versym = dyn_pointer<ElfW(Half)>(v, m.bias);
        break;
      case DT_VERNEED:
        m.verneed = dyn_pointer<char>(v, m.bias);
        break;
      case DT_VERNEEDNUM:
        m.verneed_count = v;
        break;
      case DT_PLTREL:
        if (v != DT_RELA) jmprel_bytes = 0;
        break;  // x86-64 uses RELA only
      default:
        break;
    }
  }
  m.jmprel_count = m.jmprel ? jmprel_bytes / sizeof(ElfW(Rela)) : 0;
  m.rela_count = m.rela ? rela_bytes / sizeof(ElfW(Rela)) : 0;
  if (!m.symtab || !m.strtab) m.jmprel_count = m.rela_count = 0;
}

const char* symbol_name(const Module& m, const ElfW(Rela) & r) {
  return m.strtab + m.symtab[ELF64_R_SYM(r.r_info)].st_name;
}

bool references_undefined(const Module& m, const ElfW(Rela) * relocs, uint64_t count, const char* name) {
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t sym = uint32_t(ELF64_R_SYM(relocs[i].r_info));
    if (sym != 0 && m.symtab[sym].st_shndx == SHN_UNDEF && strcmp(symbol_name(m, relocs[i]), name) == 0) return true;
  }
  return false;
}

// Instrumented modules import the entry hook (as a PLT call, or through the GOT with -fno-plt).
bool imports_entry_hook(const Module& m) {
  return references_undefined(m, m.jmprel, m.jmprel_count, "__cyg_profile_func_enter") ||
         references_undefined(m, m.rela, m.rela_count, "__cyg_profile_func_enter");
}

int collect_module(dl_phdr_info* info, size_t, void*) {
  if (g_modules.count == kMaxModules) return 1;
  Module m{};
  m.bias = info->dlpi_addr;
  m.start = UINT64_MAX;
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    const uint64_t at = m.bias + p.p_vaddr;
    if (p.p_type == PT_LOAD) {
      if (at < m.start) m.start = at;
      if (at + p.p_memsz > m.end) m.end = at + p.p_memsz;
    } else if (p.p_type == PT_DYNAMIC) {
      dyn = reinterpret_cast<const ElfW(Dyn)*>(at);
    } else if (p.p_type == PT_GNU_RELRO) {
      m.relro_start = at & ~uint64_t(4095);
      m.relro_end = (at + p.p_memsz) & ~uint64_t(4095);
    }
  }
  if (m.start == UINT64_MAX) return 0;
  if (dyn) read_dynamic(m, dyn);
  m.instrumented = imports_entry_hook(m);
  g_modules.list[g_modules.count++] = m;
  return 0;
}

const Module* module_at(uint64_t address) {
  for (uint32_t i = 0; i < g_modules.count; ++i)
    if (g_modules.list[i].contains(address)) return &g_modules.list[i];
  return nullptr;
}

// The version the module asked for (memcpy@GLIBC_2.14), or null when unversioned.
const char* symbol_version(const Module& m, uint32_t sym) {
  if (!m.versym || !m.verneed) return nullptr;
  const uint16_t wanted = m.versym[sym] & 0x7fff;
  if (wanted < 2) return nullptr;  // local or global: no version
  const char* need = m.verneed;
  for (uint64_t n = 0; n < m.verneed_count; ++n) {
    const auto* vn = reinterpret_cast<const ElfW(Verneed)*>(need);
    const char* aux = need + vn->vn_aux;
    for (uint32_t i = 0; i < vn->vn_cnt; ++i) {
      const auto* a = reinterpret_cast<const ElfW(Vernaux)*>(aux);
      if (a->vna_other == wanted) return m.strtab + a->vna_name;
      aux += a->vna_next;
    }
    if (vn->vn_next == 0) break;
    need += vn->vn_next;
  }
  return nullptr;
}

// A slot the dynamic linker already bound (BIND_NOW, or a call made before us) holds the
// target. A lazy one still points into the module's own PLT: look the symbol up as ld.so
// would, the first module in the search order with a matching definition winning. An
// unversioned definition matches a versioned reference, so an interposer (ours for
// longjmp or execl, or the program's own) found by dlsym before the versioned definition's
// module wins; otherwise the version asked for (memcpy@GLIBC_2.2.5) wins.
uint64_t resolve_target(const Module& m, uint64_t slot_value, const char* name, uint32_t sym) {
  if (!m.contains(slot_value)) return slot_value;
  if (!symbol_defined(name)) return 0;  // an unresolved weak reference: dlsym would fail (and allocate)
  const uint64_t first = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, name));
  const char* version = symbol_version(m, sym);
  const uint64_t versioned = version ? reinterpret_cast<uint64_t>(dlvsym(RTLD_DEFAULT, name, version)) : 0;
  if (versioned == 0 || first == 0) return first ? first : versioned;
  return module_at(first) == module_at(versioned) ? versioned : first;
}

// The stub for (name, target), made on first use; UINT32_MAX when the table is full.
uint32_t stub_for(const char* name, uint64_t target) {
  uint64_t h = target * 0x9E3779B97F4A7C15ull;
  for (const char* c = name; *c; ++c) h = (h ^ uint8_t(*c)) * 0x100000001B3ull;
  for (uint32_t i = uint32_t(h >> 40) % kStubIndexSlots;; i = (i + 1) % kStubIndexSlots) {
    const uint32_t at = g_stubs.index[i];
    if (at == 0) {
      if (g_stubs.count == kStubs) return UINT32_MAX;
      const uint32_t stub = g_stubs.count++;
      g_stubs.names[stub] = name;
      callprof_libcall_targets[stub] = target;
      g_stubs.index[i] = stub + 1;
      return stub;
    }
    if (callprof_libcall_targets[at - 1] == target && strcmp(g_stubs.names[at - 1], name) == 0) return at - 1;
  }
}

bool wrapped_target(const Module* owner, const Module* runtime, const char* name) {
  if (!owner) return true;                // the vDSO, or a module we had no room for
  if (owner->instrumented) return false;  // its functions' own hooks see the call
  // Our interposers stay reachable as they are; thread creation is worth a node.
  return owner != runtime || strcmp(name, "pthread_create") == 0;
}

void patch_module(const Module& m, const Module* runtime) {
  const bool relro =
      m.relro_end > m.relro_start &&
      sys::mprotect(reinterpret_cast<void*>(m.relro_start), m.relro_end - m.relro_start, PROT_READ | PROT_WRITE) == 0;
  for (uint64_t i = 0; i < m.jmprel_count; ++i) {
    const ElfW(Rela)& r = m.jmprel[i];
    const uint32_t sym = uint32_t(ELF64_R_SYM(r.r_info));
    if (ELF64_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT || sym == 0) continue;
    const char* name = symbol_name(m, r);
    auto* slot = reinterpret_cast<uint64_t*>(m.bias + r.r_offset);
    const uint64_t addr = reinterpret_cast<uint64_t>(slot);
    if (never_wrapped(name) || (!relro && addr >= m.relro_start && addr < m.relro_end)) continue;
    const uint64_t target = resolve_target(m, *slot, name, sym);
    if (target == 0 || !wrapped_target(module_at(target), runtime, name)) continue;
    const uint32_t stub = stub_for(name, target);
    if (stub != UINT32_MAX) __atomic_store_n(slot, stub_id(stub), __ATOMIC_RELEASE);
  }
  if (relro) sys::mprotect(reinterpret_cast<void*>(m.relro_start), m.relro_end - m.relro_start, PROT_READ);
}

}  // namespace

void install_libcalls() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  walk_modules(collect_module, nullptr);
  const Module* runtime = module_at(reinterpret_cast<uint64_t>(&install_libcalls));
  for (uint32_t i = 0; i < g_modules.count; ++i)
    if (g_modules.list[i].instrumented && &g_modules.list[i] != runtime) patch_module(g_modules.list[i], runtime);
}

uint32_t libcall_count() { return g_stubs.count; }

LibCallInfo libcall_info(uint32_t index) {
  if (index >= g_stubs.count) return LibCallInfo{0, 0, ""};
  return LibCallInfo{stub_id(index), callprof_libcall_targets[index], g_stubs.names[index]};
}

}  // namespace callprof::rt

using namespace callprof::rt;

// Called by the trampoline around the real call; `sp` is where the return address lies,
// so the library frame sits strictly below its caller's (a catch there closes it).
void callprof_libcall_enter(uint32_t index, uint64_t callsite, uint64_t sp) {
  hook_enter(stub_id(index), callsite, sp);
}

void callprof_libcall_exit(uint32_t index, uint64_t sp) { hook_exit(stub_id(index), sp); }
