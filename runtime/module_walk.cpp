#include "module_walk.h"

#include <sys/syscall.h>

#include "raw_syscall.h"

namespace callprof::rt {
namespace {

uint32_t g_walks = 0;    // walks under way
uint32_t g_forking = 0;  // 1: a fork is under way (its thread holds the walks back)
// This thread is inside a walk: a fork from a signal handler that interrupted it must not
// wait for its own walk.
__thread bool t_walking __attribute__((tls_model("initial-exec"))) = false;

void yield() { sys::call(SYS_sched_yield); }

}  // namespace

int walk_modules(ModuleVisitor visit, void* data) {
  for (;;) {
    while (__atomic_load_n(&g_forking, __ATOMIC_ACQUIRE)) yield();
    __atomic_add_fetch(&g_walks, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&g_forking, __ATOMIC_SEQ_CST)) break;
    __atomic_sub_fetch(&g_walks, 1, __ATOMIC_SEQ_CST);  // the fork came first: let it go
  }
  t_walking = true;
  const int result = dl_iterate_phdr(visit, data);
  t_walking = false;
  __atomic_sub_fetch(&g_walks, 1, __ATOMIC_RELEASE);
  return result;
}

void hold_module_walks() {
  // One fork at a time holds them (two threads may fork at once).
  for (uint32_t idle = 0; !__atomic_compare_exchange_n(&g_forking, &idle, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
       idle = 0)
    yield();
  const uint32_t own = t_walking ? 1 : 0;
  while (__atomic_load_n(&g_walks, __ATOMIC_SEQ_CST) > own) yield();
}

// In the parent a thread may still be backing off (its count not yet taken back): the
// count stays.
void release_module_walks_in_parent() { __atomic_store_n(&g_forking, 0, __ATOMIC_RELEASE); }

// The child has one thread: any count is a thread of the parent's, backing off.
void release_module_walks_in_child() {
  __atomic_store_n(&g_walks, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_forking, 0, __ATOMIC_RELEASE);
}

}  // namespace callprof::rt
