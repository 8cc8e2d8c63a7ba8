// dlclose, interposed: the library's description is taken before the real dlclose, and
// kept once the library is really gone (dlclose only drops a reference).
#include "closed_modules.h"

#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>

#include "module_walk.h"
#include "process.h"
#include "raw_syscall.h"
#include "symbol_presence.h"

namespace callprof::rt {
namespace {

constexpr uint32_t kCapacity = 1024;  // unloads kept; later ones lose their names, as before
ClosedModule* g_table = nullptr;
uint32_t g_reserved = 0;   // slots handed out
uint32_t g_committed = 0;  // complete entries, in order

struct Lookup {
  uint64_t bias;
  const char* name;
  ClosedModule* into;  // fill when found
  bool found;
};

int find_module(dl_phdr_info* info, size_t, void* data) {
  auto* l = static_cast<Lookup*>(data);
  if (info->dlpi_addr != l->bias || strcmp(info->dlpi_name, l->name) != 0) return 0;
  l->found = true;
  if (!l->into) return 1;
  const unsigned char* id = nullptr;
  l->into->module = describe_module(info, &id);
  const size_t n = strlen(info->dlpi_name);
  l->into->module.path_bytes = uint32_t(n < sizeof l->into->path ? n : sizeof l->into->path);
  memcpy(l->into->path, info->dlpi_name, l->into->module.path_bytes);
  if (l->into->module.build_id_bytes > sizeof l->into->build_id) l->into->module.build_id_bytes = 0;
  memcpy(l->into->build_id, id, l->into->module.build_id_bytes);
  return 1;
}

ClosedModule* table() {
  ClosedModule* t = __atomic_load_n(&g_table, __ATOMIC_ACQUIRE);
  if (t) return t;
  void* m = sys::mmap(nullptr, kCapacity * sizeof(ClosedModule), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  if (reinterpret_cast<long>(m) < 0 && reinterpret_cast<long>(m) > -4096) return nullptr;
  ClosedModule* expected = nullptr;
  if (!__atomic_compare_exchange_n(&g_table, &expected, static_cast<ClosedModule*>(m), false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    sys::munmap(m, kCapacity * sizeof(ClosedModule));
    return expected;
  }
  return static_cast<ClosedModule*>(m);
}

}  // namespace

uint32_t closed_module_count() { return __atomic_load_n(&g_committed, __ATOMIC_ACQUIRE); }
const ClosedModule& closed_module(uint32_t i) { return g_table[i]; }

bool retired_module(uint32_t i, wire::DumpModule* out) {
  const wire::DumpModule& m = closed_module(i).module;
  if (m.end <= m.start || m.end - m.start > kRetiredSpan) return false;
  const uint64_t to = kRetiredBase + uint64_t(i) * kRetiredSpan;
  *out = m;
  out->start = to;
  out->end = to + (m.end - m.start);
  out->bias = m.bias - m.start + to;
  return true;
}

void follow_closed_modules(ThreadState* s) {
  const uint32_t closed = closed_module_count();
  for (; s->closed_seen < closed; ++s->closed_seen) {
    wire::DumpModule r;
    if (!retired_module(s->closed_seen, &r)) continue;
    const wire::DumpModule& m = closed_module(s->closed_seen).module;
    s->profile.relocate_functions(m.start, m.end, r.start);
    s->interrupts.relocate_functions(m.start, m.end, r.start);
  }
}

}  // namespace callprof::rt

using namespace callprof::rt;

extern "C" __attribute__((visibility("default"))) int dlclose(void* handle) {
  using DlcloseFn = int (*)(void*);
  static DlcloseFn real = reinterpret_cast<DlcloseFn>(next_symbol("dlclose"));
  link_map* lm = nullptr;
  ClosedModule taken;
  Lookup lookup{0, nullptr, &taken, false};
  if (process().enabled && dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) {
    lookup.bias = lm->l_addr;
    lookup.name = lm->l_name;
    walk_modules(find_module, &lookup);
  }
  const int rc = real(handle);
  if (!lookup.found) return rc;
  Lookup still{lookup.bias, taken.path, nullptr, false};
  taken.path[taken.module.path_bytes < sizeof taken.path ? taken.module.path_bytes : sizeof taken.path - 1] = 0;
  walk_modules(find_module, &still);
  if (still.found) return rc;  // only a reference was dropped
  ClosedModule* t = table();
  const uint32_t slot = __atomic_fetch_add(&g_reserved, 1, __ATOMIC_ACQ_REL);
  if (!t || slot >= kCapacity) return rc;
  t[slot] = taken;
  // Entries are published in slot order, so the count only ever covers complete ones.
  while (__atomic_load_n(&g_committed, __ATOMIC_ACQUIRE) != slot) {
  }
  __atomic_store_n(&g_committed, slot + 1, __ATOMIC_SEQ_CST);
  // Every thread moves its nodes of the library before its next call is recorded (so
  // before any call into a library loaded after this dlclose returns).
  // Threads that ended are moved by the dump writer (dump_writer.cpp).
  for (ThreadState* s = first_thread(); s; s = s->next)
    if (!__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE)) poke_thread(s);
  return rc;
}
