/* Page faults per function, by construction: touch_pages() maps 4 MiB of fresh anonymous
 * memory and writes one byte in each of its 1024 pages (1024 minor faults); reuse() then
 * writes the same pages again (no faults). Then it prints how many descriptors above 2 it
 * has open (the profiler must hold none of the program's). Exit status 0. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "truth.h"

#define PAGES 1024

static volatile char* area;

E2E_FN void touch_pages(void) {
  area = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  for (int i = 0; i < PAGES; ++i) area[i * 4096] = 1;
}

E2E_FN void reuse(void) {
  for (int i = 0; i < PAGES; ++i) area[i * 4096] = 2;
}

static int descriptors_above_2(void) {
  DIR* d = opendir("/proc/self/fd");
  int n = 0;
  for (struct dirent* e; d && (e = readdir(d));)
    if (e->d_name[0] != '.' && atoi(e->d_name) > 2) ++n;
  if (d) closedir(d);
  return n - 1; /* the directory's own */
}

int main(void) {
  touch_pages();
  reuse();
  printf("descriptors above 2: %d\n", descriptors_above_2());
  return 0;
}
