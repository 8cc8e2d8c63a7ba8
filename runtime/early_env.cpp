#include "early_env.h"

#include <fcntl.h>
#include <string.h>

#include "raw_syscall.h"

extern char** environ;

namespace callprof::rt {
namespace {

// The CALLPROF_* entries of /proc/self/environ, "NAME=value\0..." (the process's initial
// environment, which is what the recorder set). Filled once, at the first early lookup.
char g_entries[16384];
unsigned g_used = 0;
bool g_read = false;
bool g_settings = false;  // g_entries hold an attach's settings: they win over the environment

void keep(const char* entry, unsigned length) {
  if (strncmp(entry, "CALLPROF_", 9) != 0 || g_used + length + 1 > sizeof g_entries) return;
  memcpy(g_entries + g_used, entry, length);
  g_entries[g_used + length] = 0;
  g_used += length + 1;
}

// Streams the file through a small buffer: an environment can be megabytes long.
void read_initial_environment() {
  g_read = true;
  const long fd = sys::open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  static char buf[8192];
  unsigned have = 0;
  for (;;) {
    const long n = sys::read(int(fd), buf + have, sizeof buf - have);
    if (n <= 0) break;
    have += unsigned(n);
    unsigned start = 0;
    for (unsigned i = 0; i < have; ++i)
      if (buf[i] == 0) keep(buf + start, i - start), start = i + 1;
    if (start == 0 && have == sizeof buf) start = have;  // an entry longer than the buffer: not ours to keep
    memmove(buf, buf + start, have - start);
    have -= start;
  }
  sys::close(int(fd));
}

// NAME=value in a list of entries; the value or null.
const char* find(const char* name, char** entries) {
  const size_t n = strlen(name);
  for (char** e = entries; e && *e; ++e)
    if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

}  // namespace

void use_runtime_settings(const char* lines, unsigned length) {
  g_used = 0;
  for (unsigned start = 0, i = 0; i <= length; ++i)
    if (i == length || lines[i] == '\n') {
      if (i > start) keep(lines + start, i - start);
      start = i + 1;
    }
  g_read = true;
  g_settings = true;
}

// Never libc's getenv: the program may define its own.
const char* runtime_getenv(const char* name) {
  if (environ && !(g_settings && strncmp(name, "CALLPROF_", 9) == 0)) return find(name, environ);
  if (!g_read) read_initial_environment();
  const size_t length = strlen(name);
  for (unsigned at = 0; at < g_used; at += unsigned(strlen(g_entries + at)) + 1)
    if (strncmp(g_entries + at, name, length) == 0 && g_entries[at + length] == '=') return g_entries + at + length + 1;
  return nullptr;
}

}  // namespace callprof::rt
