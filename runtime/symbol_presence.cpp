// Symbol look-up in the loaded objects' dynamic symbol tables (GNU and System V hash
// tables), without allocating: see symbol_presence.h.
#include "symbol_presence.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "module_walk.h"

namespace callprof::rt {
namespace {

struct Tables {
  const ElfW(Sym) * symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnu_hash = nullptr;
  const uint32_t* sysv_hash = nullptr;
  const ElfW(Half) * versym = nullptr;
};

// glibc rewrites most d_ptr values to run-time addresses, not all of them everywhere
// (the vDSO's stay offsets).
template <typename T>
const T* dyn_pointer(uint64_t value, uint64_t bias) {
  return reinterpret_cast<const T*>(value < bias ? value + bias : value);
}

Tables read_tables(const dl_phdr_info* info) {
  Tables t;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      const uint64_t v = dyn->d_un.d_ptr, bias = info->dlpi_addr;
      if (dyn->d_tag == DT_SYMTAB)
        t.symtab = dyn_pointer<ElfW(Sym)>(v, bias);
      else if (dyn->d_tag == DT_STRTAB)
        t.strtab = dyn_pointer<char>(v, bias);
      else if (dyn->d_tag == DT_GNU_HASH)
        t.gnu_hash = dyn_pointer<uint32_t>(v, bias);
      else if (dyn->d_tag == DT_HASH)
        t.sysv_hash = dyn_pointer<uint32_t>(v, bias);
      else if (dyn->d_tag == DT_VERSYM)
        t.versym = dyn_pointer<ElfW(Half)>(v, bias);
    }
  }
  return t;
}

// A definition dlsym would return: defined, global or weak, not a hidden (non-default) version.
bool defines(const Tables& t, uint32_t index, const char* name) {
  const ElfW(Sym)& s = t.symtab[index];
  const unsigned bind = ELF64_ST_BIND(s.st_info);
  if (s.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK)) return false;
  if (t.versym && (t.versym[index] & 0x8000)) return false;
  return strcmp(t.strtab + s.st_name, name) == 0;
}

bool gnu_lookup(const Tables& t, const char* name) {
  uint32_t h = 5381;
  for (const char* c = name; *c; ++c) h = h * 33 + uint8_t(*c);
  const uint32_t buckets = t.gnu_hash[0], symoffset = t.gnu_hash[1], bloom_size = t.gnu_hash[2], shift = t.gnu_hash[3];
  const auto* bloom = reinterpret_cast<const uint64_t*>(t.gnu_hash + 4);
  const uint32_t* bucket = reinterpret_cast<const uint32_t*>(bloom + bloom_size);
  const uint32_t* chain = bucket + buckets;
  if (buckets == 0 || bloom_size == 0) return false;
  const uint64_t word = bloom[(h / 64) % bloom_size];
  const uint64_t mask = (uint64_t(1) << (h % 64)) | (uint64_t(1) << ((h >> shift) % 64));
  if ((word & mask) != mask) return false;
  uint32_t i = bucket[h % buckets];
  if (i < symoffset) return false;
  for (;; ++i) {
    const uint32_t h2 = chain[i - symoffset];
    if ((h | 1) == (h2 | 1) && defines(t, i, name)) return true;
    if (h2 & 1) return false;
  }
}

bool sysv_lookup(const Tables& t, const char* name) {
  uint32_t h = 0;
  for (const char* c = name; *c; ++c) {
    h = (h << 4) + uint8_t(*c);
    h ^= (h >> 24) & 0xf0;
  }
  h &= 0x0fffffff;
  const uint32_t buckets = t.sysv_hash[0];
  const uint32_t* bucket = t.sysv_hash + 2;
  const uint32_t* chain = bucket + buckets;
  if (buckets == 0) return false;
  for (uint32_t i = bucket[h % buckets]; i != 0; i = chain[i])
    if (defines(t, i, name)) return true;
  return false;
}

bool contains(const dl_phdr_info* info, const void* address) {
  const uint64_t a = reinterpret_cast<uint64_t>(address);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uint64_t lo = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && a >= lo && a < lo + ph.p_memsz) return true;
  }
  return false;
}

struct Query {
  const char* name;
  const void* self;  // an address in the asking object
  bool after_self;   // RTLD_NEXT: only the objects that follow it in load order
  bool passed_self;
  bool found;
};

int search_object(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<Query*>(data);
  if (q->self && contains(info, q->self)) {
    q->passed_self = true;
    return 0;
  }
  if (q->after_self && !q->passed_self) return 0;
  const Tables t = read_tables(info);
  if (!t.symtab || !t.strtab) return 0;
  q->found = t.gnu_hash ? gnu_lookup(t, q->name) : t.sysv_hash && sysv_lookup(t, q->name);
  return q->found ? 1 : 0;
}

}  // namespace

bool symbol_defined(const char* name, const void* except) {
  Query q{name, except, false, false, false};
  walk_modules(search_object, &q);
  return q.found;
}

void* next_symbol(const char* name) {
  // dl_iterate_phdr walks the objects in load order, which is the global search order.
  Query q{name, reinterpret_cast<const void*>(&next_symbol), true, false, false};
  walk_modules(search_object, &q);
  if (q.found) return dlsym(RTLD_NEXT, name);
  // Loaded with dlopen (attached), no object follows this one, nor is it in the global
  // scope: the definition the program's own calls bind to is the global one. Preloaded,
  // that would be this object's own, which is no answer.
  void* global = dlsym(RTLD_DEFAULT, name);
  Dl_info info{}, self{};
  if (!global || !dladdr(global, &info) || !dladdr(reinterpret_cast<const void*>(&next_symbol), &self) ||
      info.dli_fbase == self.dli_fbase)
    return nullptr;
  return global;
}

}  // namespace callprof::rt
