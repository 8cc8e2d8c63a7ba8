// Hook removal (issue 28) where frames are left without their exits and processes and
// libraries come and go: tiny() is called 500 times by every frame of a recursive chain
// that is then left by an exception or a longjmp, so it is folded (--auto-fold all) and its
// hook calls rewritten into nops while frames above it are open and about to be unwound.
// argv[1]:
//   "throw"      main calls landing() 300 times; landing calls chain(3) in a try; chain(n)
//                calls tiny 500 times, then chain(n - 1); chain(0) throws. landing catches
//                and calls after().
//   "longjmp"    the same, left by longjmp.
//   "fork"       "longjmp" 100 times, then fork: the child runs it 100 times and exits 0,
//                the parent 100 more times and waits for it.
//   "dlopen LIB" "longjmp" 300 times while a second thread, 40 times, dlopens LIB (the
//                library of dlclosed.c), calls its lib_work 2,000 times and dlcloses it.
// Truth (over all processes): landing and after 300, chain 1,200, always on the path
// main > landing > chain > chain > chain > chain, after only on main > landing > after;
// "dlopen": lib_work and lib_inner 80,000, under library_user. after() works about 2 us,
// chain about 1 us: neither is ever folded. Prints "done"; exit status 0 (2: dlopen failed).
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "truth.h"

struct Unwind {};

static volatile unsigned sink;
static bool use_longjmp;
static jmp_buf landing_point;

E2E_FN unsigned tiny(unsigned x) { return x * 2654435761u; }

E2E_FN void after() {
  const uint64_t end = e2e_now_ns() + 2000;
  while (e2e_now_ns() < end) sink = sink + 1;
}

E2E_FN void chain(int n) {
  for (unsigned i = 0; i < 500; ++i) sink = sink + tiny(i);
  if (n > 0) {
    chain(n - 1);
    sink = sink + 1;  // no tail call
    return;
  }
  if (use_longjmp) longjmp(landing_point, 1);
  throw Unwind{};
}

E2E_FN void landing() {
  if (use_longjmp) {
    if (setjmp(landing_point) == 0) chain(3);
  } else {
    try {
      chain(3);
    } catch (const Unwind&) {
      sink = sink + 1;
    }
  }
  after();
}

E2E_FN void landings(int n) {
  for (int i = 0; i < n; ++i) landing();
}

static const char* g_library;
static int g_library_failed;

E2E_FN void* library_user(void*) {
  for (int round = 0; round < 40; ++round) {
    void* lib = dlopen(g_library, RTLD_NOW | RTLD_LOCAL);
    void (*work)() = lib ? reinterpret_cast<void (*)()>(dlsym(lib, "lib_work")) : nullptr;
    if (!work) {
      std::fprintf(stderr, "%s\n", dlerror());
      g_library_failed = 1;
      return nullptr;
    }
    for (int i = 0; i < 2000; ++i) work();
    dlclose(lib);
  }
  return nullptr;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "longjmp";
  use_longjmp = std::strcmp(mode, "throw") != 0;
  if (std::strcmp(mode, "fork") == 0) {
    landings(100);
    const pid_t child = fork();
    landings(100);
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
  } else if (std::strcmp(mode, "dlopen") == 0 && argc > 2) {
    g_library = argv[2];
    pthread_t user;
    pthread_create(&user, nullptr, library_user, nullptr);
    landings(300);
    pthread_join(user, nullptr);
    if (g_library_failed) return 2;
  } else {
    landings(300);
  }
  std::printf("done\n");
  return 0;
}
