/* Page faults per function, by construction: touch_pages() maps 4 MiB of fresh anonymous
 * memory and writes one byte in each of its 1024 pages (1024 minor faults); reuse() then
 * writes the same pages again (no faults). Exit status 0. */
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

int main(void) {
  touch_pages();
  reuse();
  return 0;
}
