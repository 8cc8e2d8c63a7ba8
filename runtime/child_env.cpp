#include "child_env.h"

#include <stdlib.h>
#include <string.h>

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

bool wanted(char* const envp[]) { return process().enabled && environ && !carries_runtime(envp); }

const char* child_preload(char* const envp[]) {
  for (unsigned i = 0; envp && envp[i]; ++i)
    if (has_prefix(envp[i], "LD_PRELOAD=")) return envp[i] + 11;
  return nullptr;
}

}  // namespace

unsigned runtime_env_slots(char* const envp[]) { return count(envp) + count(environ) + 2; }

unsigned runtime_preload_bytes(char* const envp[]) {
  const char* ours = getenv("LD_PRELOAD");
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
  const char* ours = getenv("LD_PRELOAD");
  const char* theirs = child_preload(envp);
  strcpy(preload, "LD_PRELOAD=");
  if (ours) strcat(preload, ours);
  if (theirs && *theirs) strcat(strcat(preload, ours ? ":" : ""), theirs);
  out[n++] = preload;
  out[n] = nullptr;
  return out;
}

}  // namespace callprof::rt
