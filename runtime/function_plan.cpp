// Loading the function plan. Runs once at start-up, before the program's own code, so it
// may use system calls; it avoids malloc (the plan can be large, and the program's
// allocator is not ours to disturb) and keeps its tables in its own mapping.
#include "function_plan.h"

#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse_number.h"
#include "raw_syscall.h"
#include "wire/raw_dump.h"

namespace callprof::rt {
namespace {

struct Entry {
  uint64_t address;
  uint32_t flags;
  uint32_t reserved;
};

struct Range {
  uint64_t start, end;
};

bool g_fast_exclusion = false;
Entry* g_entries = nullptr;
uint64_t g_entry_count = 0;
Range g_modules[256];  // the modules the plan lists: their unlisted functions get 0
uint32_t g_module_count = 0;
uint32_t g_default_flags = 0;

// A module of the plan is recognised by its file's identity (device and inode), not by
// its resolved path: realpath may allocate, with the program's malloc.
struct ModuleLookup {
  uint64_t dev, ino;
  uint64_t bias, start, end;
  bool found;
};

ModuleLookup lookup_for(const char* path) {
  ModuleLookup m{};
  struct stat st;
  if (sys::stat(path, &st) == 0) m.dev = st.st_dev, m.ino = st.st_ino;
  return m;
}

int match_module(dl_phdr_info* info, size_t, void* data) {
  auto* m = static_cast<ModuleLookup*>(data);
  const char* name = *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  struct stat st;
  if (m->ino == 0 || sys::stat(name, &st) != 0 || st.st_dev != m->dev || st.st_ino != m->ino) return 0;
  m->bias = info->dlpi_addr;
  m->start = UINT64_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uint64_t lo = info->dlpi_addr + ph.p_vaddr;
    if (lo < m->start) m->start = lo;
    if (lo + ph.p_memsz > m->end) m->end = lo + ph.p_memsz;
  }
  m->found = true;
  return 1;
}

// Heap sort by address, in place: qsort may allocate a merge buffer, with the program's malloc.
void sift_down(Entry* e, uint64_t at, uint64_t n) {
  for (uint64_t child; (child = 2 * at + 1) < n; at = child) {
    if (child + 1 < n && e[child + 1].address > e[child].address) ++child;
    if (e[at].address >= e[child].address) return;
    const Entry t = e[at];
    e[at] = e[child];
    e[child] = t;
  }
}

void sort_by_address(Entry* e, uint64_t n) {
  for (uint64_t i = n / 2; i-- > 0;) sift_down(e, i, n);
  for (uint64_t end = n; end-- > 1;) {
    const Entry t = e[0];
    e[0] = e[end];
    e[end] = t;
    sift_down(e, 0, end);
  }
}

// Next line of the plan as a NUL-terminated string (the buffer is ours to modify).
char* next_line(char** cursor, char* end) {
  if (*cursor >= end) return nullptr;
  char* line = *cursor;
  char* nl = static_cast<char*>(memchr(line, '\n', uint64_t(end - line)));
  if (!nl) nl = end;
  *nl = 0;
  *cursor = nl + 1;
  return line;
}

void parse_plan(char* text, uint64_t size, uint64_t max_entries) {
  char* cursor = text;
  char* end = text + size;
  char* line = next_line(&cursor, end);
  if (!line || strcmp(line, "callprof-functions 1") != 0) return;
  ModuleLookup current{};
  while ((line = next_line(&cursor, end))) {
    if (strncmp(line, "default ", 8) == 0) {
      g_default_flags = uint32_t(parse_u64(line + 8, 10, nullptr));
    } else if (strncmp(line, "module ", 7) == 0) {
      current = lookup_for(line + 7);
      dl_iterate_phdr(match_module, &current);
      if (current.found && g_module_count < sizeof g_modules / sizeof g_modules[0])
        g_modules[g_module_count++] = Range{current.start, current.end};
    } else if (current.found && g_entry_count < max_entries) {
      const char* rest = nullptr;
      uint64_t vaddr = parse_u64(line, 16, &rest);
      uint32_t flags = uint32_t(parse_u64(rest, 10, nullptr));
      g_entries[g_entry_count++] = Entry{vaddr + current.bias, flags, 0};
    }
  }
  sort_by_address(g_entries, g_entry_count);
}

uint32_t remember(uint64_t fn, uint32_t flags) {
  if (g_fast_exclusion && (flags & wire::kNodeExcluded))
    __atomic_store_n(&g_excluded_functions[(fn >> 4) & (kExclusionSlots - 1)], fn, __ATOMIC_RELAXED);
  return flags;
}

}  // namespace

uint64_t g_excluded_functions[kExclusionSlots];

void load_function_plan(const char* path, bool fast_exclusion) {
  g_fast_exclusion = fast_exclusion;
  if (!path || !*path) return;
  const int fd = int(sys::open(path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return;
  struct stat st;
  if (sys::fstat(fd, &st) != 0 || st.st_size <= 0) {
    sys::close(fd);
    return;
  }
  uint64_t size = uint64_t(st.st_size);
  // Every entry line has at least 4 bytes, so size / 4 bounds the entry count.
  uint64_t bytes = size + 8 + (size / 4 + 1) * sizeof(Entry);
  void* m = sys::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  if (!m) {
    sys::close(fd);
    return;
  }
  char* text = static_cast<char*>(m);
  uint64_t got = 0;
  for (long n; got < size && (n = sys::read(fd, text + got, size - got)) > 0;) got += uint64_t(n);
  sys::close(fd);
  g_entries = reinterpret_cast<Entry*>(text + ((size + 8) & ~uint64_t(7)));
  parse_plan(text, got, size / 4 + 1);
}

uint32_t function_flags(uint64_t fn) {
  uint64_t lo = 0, hi = g_entry_count;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if (g_entries[mid].address < fn)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < g_entry_count && g_entries[lo].address == fn) return remember(fn, g_entries[lo].flags);
  for (uint32_t i = 0; i < g_module_count; ++i)
    if (fn >= g_modules[i].start && fn < g_modules[i].end) return 0;
  return remember(fn, g_default_flags);
}

}  // namespace callprof::rt
