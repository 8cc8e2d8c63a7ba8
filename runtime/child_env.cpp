#include "child_env.h"

#include <string.h>

#include "early_env.h"
#include "process.h"

extern char** environ;

namespace callprof::rt {
namespace {

bool has_prefix(const char* entry, const char* prefix) { return strncmp(entry, prefix, strlen(prefix)) == 0; }

unsigned count(char* const* list) {
  unsigned n = 0;
  while (list && list[n]) ++n;
  return n;
}

// Does the child's environment already carry the runtime (inherited, or passed on)?
bool carries_runtime(char* const envp[]) {
  for (unsigned i = 0; envp && envp[i]; ++i)
    if (has_prefix(envp[i], "CALLPROF_OUTPUT_DIR=")) return true;
  return false;
}

// Copies `text` to `at` (no terminating NUL); returns where it ends.
char* append(char* at, const char* text) {
  const size_t n = strlen(text);
  memcpy(at, text, n);
  return at + n;
}

// Attached to a running program, the runtime follows no exec: the new image runs as it would.
bool wanted(char* const envp[]) { return process().enabled && !attached_mode() && environ && !carries_runtime(envp); }

const char* child_preload(char* const envp[]) {
  for (unsigned i = 0; envp && envp[i]; ++i)
    if (has_prefix(envp[i], "LD_PRELOAD=")) return envp[i] + 11;
  return nullptr;
}

}  // namespace

unsigned runtime_env_slots(char* const envp[]) { return count(envp) + count(environ) + 2; }

unsigned runtime_preload_bytes(char* const envp[]) {
  const char* ours = runtime_getenv("LD_PRELOAD");
  const char* theirs = child_preload(envp);
  return unsigned(11 + (ours ? strlen(ours) : 0) + 1 + (theirs ? strlen(theirs) : 0) + 1);
}

char* const* with_runtime_env(char* const envp[], char** out, char* preload) {
  if (!wanted(envp)) return envp;
  unsigned n = 0;
  for (unsigned i = 0; envp && envp[i]; ++i)
    if (!has_prefix(envp[i], "LD_PRELOAD=")) out[n++] = envp[i];
  for (unsigned i = 0; environ[i]; ++i)
    if (has_prefix(environ[i], "CALLPROF_")) out[n++] = environ[i];
  const char* ours = runtime_getenv("LD_PRELOAD");
  const char* theirs = child_preload(envp);
  char* at = append(preload, "LD_PRELOAD=");
  if (ours) at = append(at, ours);
  if (theirs && *theirs) at = append(append(at, ours ? ":" : ""), theirs);
  *at = 0;
  out[n++] = preload;
  out[n] = nullptr;
  return out;
}

}  // namespace callprof::rt
