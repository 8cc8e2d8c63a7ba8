/* Exceptions through library calls (run with CALLPROF_LIBCALLS=1, built with -fno-builtin):
 *   main -> sort_and_catch x4: qsort, whose comparator throws on its 3rd call; caught in
 *           sort_and_catch, which then calls strlen once (after the catch)
 *   main -> checked_at x6: std::vector::at, out of range for odd i (std::__throw_out_of_range_fmt
 *           in libstdc++ throws), caught in checked_at, which then calls strlen once
 * Truth: main/sort_and_catch/qsort 4 calls, .../qsort/throwing_compare 12 calls,
 * main/sort_and_catch/strlen 4 calls (never below qsort), std::__throw_out_of_range_fmt 3
 * calls below checked_at, main/checked_at/strlen 6 calls. Prints "caught 4 3 sum 108 compares 12"; exit 0. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "truth.h"

static int compare_calls;
static const char* volatile text = "after the catch";

E2E_FN int throwing_compare(const void* a, const void* b) {
  if (++compare_calls % 3 == 0) throw std::runtime_error("third compare");
  return *static_cast<const int*>(a) - *static_cast<const int*>(b);
}

E2E_FN int sort_and_catch() {
  int items[16];
  for (int i = 0; i < 16; ++i) items[i] = 16 - i;
  int caught = 0;
  try {
    qsort(items, 16, sizeof items[0], throwing_compare);
  } catch (const std::runtime_error&) {
    caught = 1;
  }
  return caught * 100 + int(strlen(text));
}

E2E_FN int checked_at(const std::vector<int>& v, size_t i) {
  int value;
  try {
    value = v.at(i);
  } catch (const std::out_of_range&) {
    value = -1;
  }
  return value + int(strlen(text));
}

int main() {
  int caught = 0;
  for (int k = 0; k < 4; ++k) caught += sort_and_catch() / 100;
  std::vector<int> v(4, 7);
  int out_of_range = 0, sum = 0;
  for (size_t i = 0; i < 6; ++i) {
    int r = checked_at(v, i % 2 ? 100 + i : i / 2);
    if (r == -1 + 15) ++out_of_range;  // 15: strlen(text)
    sum += r;
  }
  std::printf("caught %d %d sum %d compares %d\n", caught, out_of_range, sum, compare_calls);
  return 0;
}
