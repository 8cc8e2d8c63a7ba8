/* dlclosed LIB: dlopens LIB, calls its lib_work 3 times through use_library, dlcloses it
 * (unloaded long before the profile is written), then calls after_close once. Truth:
 * use_library 1, lib_work 3, lib_inner 3 (named, from the closed library), after_close 1.
 * Exit status 0; 2 when the library cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>

#include "truth.h"

E2E_FN void after_close(void) { __asm__ volatile(""); }

E2E_FN int use_library(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fprintf(stderr, "%s\n", dlerror()), 0;
  void (*work)(void) = (void (*)(void))dlsym(lib, "lib_work");
  if (!work) return 0;
  for (int i = 0; i < 3; ++i) work();
  return dlclose(lib) == 0;
}

int main(int argc, char** argv) {
  if (argc < 2 || !use_library(argv[1])) return 2;
  after_close();
  return 0;
}
