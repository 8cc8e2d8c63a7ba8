/* dlreused A B: dlopens library A, calls its work function 3 times through use_library,
 * dlcloses it; then the same with library B, 5 times. B is built to land where A was
 * (same size, nothing loaded in between), so B's functions have A's addresses.
 * Truth: main -> use_library 2 calls; use_library -> alpha_work 3 -> alpha_inner 3;
 * use_library -> beta_work 5 -> beta_inner 5: two libraries, two sets of functions.
 * Prints "same" when B's function had the address A's had, "moved" otherwise (the loader
 * chose another address: the test cannot show anything then). Exit status 0; 2 when a
 * library cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>

#include "truth.h"

E2E_FN void* use_library(const char* path, int calls) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fprintf(stderr, "%s\n", dlerror()), NULL;
  void* (*entry)(void) = (void* (*)(void))dlsym(lib, "entry");
  if (!entry) return NULL;
  void (*work)(void) = (void (*)(void))entry();
  for (int i = 0; i < calls; ++i) work();
  dlclose(lib);
  return (void*)work;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  void* a = use_library(argv[1], 3);
  void* b = a ? use_library(argv[2], 5) : NULL;
  if (!b) return 2;
  printf("%s\n", a == b ? "same" : "moved");
  return 0;
}
