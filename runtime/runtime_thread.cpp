#include "runtime_thread.h"

#include <pthread.h>
#include <signal.h>

#include "symbol_presence.h"

namespace callprof::rt {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

namespace {

CreateFn g_create = nullptr;

}  // namespace

void find_thread_creation() {
  if (__atomic_load_n(&g_create, __ATOMIC_ACQUIRE)) return;
  // Loaded by dlopen (attach), no object comes after this one: the name binds to libc's.
  CreateFn create = reinterpret_cast<CreateFn>(next_symbol("pthread_create"));
  __atomic_store_n(&g_create, create ? create : &pthread_create, __ATOMIC_RELEASE);
}

bool start_runtime_thread(void* (*routine)(void*), const char* name, uint64_t stack_bytes) {
  find_thread_creation();
  const CreateFn create = __atomic_load_n(&g_create, __ATOMIC_ACQUIRE);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, stack_bytes);
  const bool ok = create(&t, &attr, routine, nullptr) == 0;
  if (ok) pthread_setname_np(t, name);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

}  // namespace callprof::rt
