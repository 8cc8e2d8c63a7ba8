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
#include "patched_calls.h"
#include "raw_syscall.h"
#include "wire/raw_dump.h"

namespace callprof::rt {
namespace {

struct Entry {
  uint64_t address;
  uint32_t flags;
  uint32_t reserved;
};

struct Module {
  uint64_t start, end;
  uint64_t ret_byte;  // a byte 0xc3 in its code ("r" line), 0 when none
};

bool g_fast_exclusion = false;
Entry* g_entries = nullptr;
uint64_t g_entry_count = 0;
uint64_t* g_sites = nullptr;  // hook call sites (run-time addresses), ascending
uint64_t g_site_count = 0;
struct TailExit {
  uint64_t function, site;  // run-time addresses
};
TailExit* g_tails = nullptr;  // by function, ascending
uint64_t g_tail_count = 0;
Module g_modules[kMaxPlanModules];  // the modules the plan lists: their unlisted functions get 0
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

// Heap sort in place: qsort may allocate a merge buffer, with the program's malloc.
uint64_t key(const Entry& e) { return e.address; }
uint64_t key(const TailExit& t) { return t.function; }
uint64_t key(uint64_t a) { return a; }

template <typename T>
void sift_down(T* e, uint64_t at, uint64_t n) {
  for (uint64_t child; (child = 2 * at + 1) < n; at = child) {
    if (child + 1 < n && key(e[child + 1]) > key(e[child])) ++child;
    if (key(e[at]) >= key(e[child])) return;
    const T t = e[at];
    e[at] = e[child];
    e[child] = t;
  }
}

template <typename T>
void sort_ascending(T* e, uint64_t n) {
  // The recorder lists each module's sites ascending, and modules mostly come in address
  // order: sorting zstd's 1,510 sorted sites took some 0.08 ms of every recording (perf).
  uint64_t sorted = 1;
  while (sorted < n && !(key(e[sorted]) < key(e[sorted - 1]))) ++sorted;
  if (sorted >= n) return;
  for (uint64_t i = n / 2; i-- > 0;) sift_down(e, i, n);
  for (uint64_t end = n; end-- > 1;) {
    const T t = e[0];
    e[0] = e[end];
    e[end] = t;
    sift_down(e, 0, end);
  }
}

// The first of the n sorted elements whose key is not below `k` (n when none is).
template <typename T>
uint64_t first_not_below(const T* e, uint64_t n, uint64_t k) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    if (key(e[mid]) < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
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

// "s ADDR ADDR ...": hook call sites of the current module.
void add_sites(const char* line, const ModuleLookup& module, uint64_t max_sites) {
  for (const char* at = line; *at == ' ' && g_site_count < max_sites;) {
    const char* rest = nullptr;
    const uint64_t vaddr = parse_u64(at + 1, 16, &rest);
    if (rest == at + 1) return;
    g_sites[g_site_count++] = vaddr + module.bias;
    at = rest;
  }
}

// "t FUNCTION SITE": a tail-call exit site of the current module's function.
void add_tail_exit(const char* line, const ModuleLookup& module, uint64_t max_tails) {
  const char* rest = nullptr;
  const uint64_t fn = parse_u64(line, 16, &rest);
  const uint64_t site = parse_u64(rest, 16, nullptr);
  if (g_tail_count < max_tails && fn != 0 && site != 0)
    g_tails[g_tail_count++] = TailExit{fn + module.bias, site + module.bias};
}

void parse_plan(char* text, uint64_t size, uint64_t max_entries, uint64_t max_sites) {
  char* cursor = text;
  char* end = text + size;
  char* line = next_line(&cursor, end);
  if (!line || strcmp(line, "callprof-functions 1") != 0) return;
  ModuleLookup current{};
  while ((line = next_line(&cursor, end))) {
    if (strncmp(line, "default ", 8) == 0) {
      g_default_flags = uint32_t(parse_u64(line + 8, 10, nullptr));
    } else if (strncmp(line, "got ", 4) == 0) {  // a module whose GOT entries follow: not one of the plan's
      current = lookup_for(line + 4);
      dl_iterate_phdr(match_module, &current);
    } else if (strncmp(line, "module ", 7) == 0) {
      current = lookup_for(line + 7);
      dl_iterate_phdr(match_module, &current);
      if (current.found && g_module_count < sizeof g_modules / sizeof g_modules[0])
        g_modules[g_module_count++] = Module{current.start, current.end, 0};
    } else if (line[0] == 's' && line[1] == ' ') {
      if (current.found) add_sites(line + 1, current, max_sites);
    } else if (line[0] == 'p' && line[1] == ' ') {  // "p START END": a section of patchable entries
      const char* rest = nullptr;
      const uint64_t start = parse_u64(line + 2, 16, &rest);
      const uint64_t end = parse_u64(rest, 16, nullptr);
      if (current.found) add_patchable_range(start + current.bias, end + current.bias);
    } else if (line[0] == 'u' && line[1] == ' ') {  // "u SLOT 0|1 NAME": an unwinder's GOT entry
      const char* rest = nullptr;
      const uint64_t slot = parse_u64(line + 2, 16, &rest);
      if (current.found && rest[0] == ' ' && (rest[1] == '0' || rest[1] == '1') && rest[2] == ' ')
        add_unwinder_slot(slot + current.bias, rest + 3, rest[1] == '1');
    } else if (line[0] == 'r' && line[1] == ' ') {  // "r ADDR": a byte 0xc3 in the module's code
      const uint64_t at = parse_u64(line + 2, 16, nullptr) + current.bias;
      if (current.found && g_module_count > 0 && g_modules[g_module_count - 1].start == current.start &&
          at >= current.start && at < current.end)
        g_modules[g_module_count - 1].ret_byte = at;
    } else if (line[0] == 't' && line[1] == ' ') {
      if (current.found) add_tail_exit(line + 2, current, max_entries);
    } else if (current.found && g_entry_count < max_entries) {
      const char* rest = nullptr;
      uint64_t vaddr = parse_u64(line, 16, &rest);
      uint32_t flags = uint32_t(parse_u64(rest, 10, nullptr));
      g_entries[g_entry_count++] = Entry{vaddr + current.bias, flags, 0};
    }
  }
  sort_ascending(g_entries, g_entry_count);
  sort_ascending(g_sites, g_site_count);
  sort_ascending(g_tails, g_tail_count);
}

uint32_t remember(uint64_t fn, uint32_t flags) {
  // Into an empty slot only: a slot's function never changes, since the hooks of a function
  // removed there (hook_removal.h) must go on finding it excluded.
  uint64_t empty = 0;
  if (g_fast_exclusion && (flags & wire::kNodeExcluded))
    __atomic_compare_exchange_n(&g_excluded_functions[(fn >> 4) & (kExclusionSlots - 1)], &empty, fn, false,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
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
  // Every entry or tail-exit line has at least 4 bytes, so size / 4 bounds their counts;
  // every site at least 2 (" 1"), so size / 2 bounds the sites.
  const uint64_t text_bytes = (size + 8) & ~uint64_t(7), entry_bytes = (size / 4 + 1) * sizeof(Entry);
  const uint64_t site_bytes = (size / 2 + 1) * sizeof(uint64_t);
  uint64_t bytes = text_bytes + entry_bytes + site_bytes + (size / 4 + 1) * sizeof(TailExit);
  void* m = sys::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
  if (!m) {
    sys::close(fd);
    return;
  }
  char* text = static_cast<char*>(m);
  uint64_t got = 0;
  for (long n; got < size && (n = sys::read(fd, text + got, size - got)) > 0;) got += uint64_t(n);
  sys::close(fd);
  g_entries = reinterpret_cast<Entry*>(text + text_bytes);
  g_sites = reinterpret_cast<uint64_t*>(text + text_bytes + entry_bytes);
  g_tails = reinterpret_cast<TailExit*>(text + text_bytes + entry_bytes + site_bytes);
  parse_plan(text, got, size / 4 + 1, size / 2 + 1);
}

bool known_hook_site(uint64_t address) {
  const uint64_t at = first_not_below(g_sites, g_site_count, address);
  return at < g_site_count && g_sites[at] == address;
}

uint32_t tail_exits_of(uint64_t fn, uint64_t* sites, uint32_t max) {
  uint64_t lo = first_not_below(g_tails, g_tail_count, fn);
  uint32_t n = 0;
  for (; lo < g_tail_count && g_tails[lo].function == fn && n < max; ++lo) sites[n++] = g_tails[lo].site;
  return n;
}

namespace {
const Module* plan_module(uint64_t address) {
  for (uint32_t i = 0; i < g_module_count; ++i)
    if (address >= g_modules[i].start && address < g_modules[i].end) return &g_modules[i];
  return nullptr;
}
}  // namespace

bool in_plan_module(uint64_t address) { return plan_module(address) != nullptr; }

bool plan_module_range(uint64_t address, uint32_t* index, uint64_t* start, uint64_t* end) {
  const Module* m = plan_module(address);
  if (!m) return false;
  *index = uint32_t(m - g_modules);
  *start = m->start;
  *end = m->end;
  return true;
}

uint64_t return_byte_near(uint64_t address) {
  const Module* m = plan_module(address);
  return m ? m->ret_byte : 0;
}

uint32_t function_flags(uint64_t fn) {
  const uint64_t lo = first_not_below(g_entries, g_entry_count, fn);
  if (lo < g_entry_count && g_entries[lo].address == fn) return remember(fn, g_entries[lo].flags);
  return in_plan_module(fn) ? 0 : remember(fn, g_default_flags);
}

}  // namespace callprof::rt
