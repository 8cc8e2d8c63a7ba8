// The exec family, interposed: exec replaces the image without running exit handlers, so
// the image's dump is written first (and removed again if the exec fails). The new image
// loads the runtime again through the inherited LD_PRELOAD and writes its own dump. An
// environment the program passes itself gets the runtime's variables back (child_env.h).
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "attach_replacements.h"
#include "child_env.h"
#include "process.h"
#include "symbol_presence.h"

#define CALLPROF_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvFn = int (*)(const char*, char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);

template <typename F>
F real(const char* name) {
  static_assert(sizeof(F) == sizeof(void*));
  return reinterpret_cast<F>(callprof::rt::next_symbol(name));
}

void before_exec() {
  if (callprof::rt::process().enabled) callprof::rt::write_dump();
  callprof::rt::attached_image_ends(true);
}

int after_failed_exec(int rc) {
  int saved = errno;
  callprof::rt::attached_image_ends(false);
  callprof::rt::discard_dump();
  errno = saved;
  return rc;
}

// execl-style arguments: `first`, then more up to a null pointer.
size_t count_args(va_list ap) {
  size_t n = 0;
  while (va_arg(ap, char*)) ++n;
  return n;
}

// Fills argv[0..n+1] (null-terminated) and consumes the terminating null pointer.
void fill_args(char** argv, const char* first, size_t n, va_list ap) {
  argv[0] = const_cast<char*>(first);
  for (size_t i = 1; i <= n; ++i) argv[i] = va_arg(ap, char*);
  argv[n + 1] = va_arg(ap, char*);
}

}  // namespace

// `envp` with the runtime's variables, in stack memory of the calling function.
#define CALLPROF_CHILD_ENV(name, envp)                                                                      \
  char** name##_slots = static_cast<char**>(alloca(callprof::rt::runtime_env_slots(envp) * sizeof(char*))); \
  char* name##_preload = static_cast<char*>(alloca(callprof::rt::runtime_preload_bytes(envp)));             \
  char* const* name = callprof::rt::with_runtime_env(envp, name##_slots, name##_preload)

CALLPROF_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  static ExecveFn fn = real<ExecveFn>("execve");
  CALLPROF_CHILD_ENV(env, envp);
  before_exec();
  return after_failed_exec(fn(path, argv, env));
}

CALLPROF_EXPORT int execv(const char* path, char* const argv[]) {
  static ExecvFn fn = real<ExecvFn>("execv");
  before_exec();
  return after_failed_exec(fn(path, argv));
}

CALLPROF_EXPORT int execvp(const char* file, char* const argv[]) {
  static ExecvFn fn = real<ExecvFn>("execvp");
  before_exec();
  return after_failed_exec(fn(file, argv));
}

CALLPROF_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  static ExecveFn fn = real<ExecveFn>("execvpe");
  CALLPROF_CHILD_ENV(env, envp);
  before_exec();
  return after_failed_exec(fn(file, argv, env));
}

CALLPROF_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  static FexecveFn fn = real<FexecveFn>("fexecve");
  CALLPROF_CHILD_ENV(env, envp);
  before_exec();
  return after_failed_exec(fn(fd, argv, env));
}

// Hidden aliases bind inside this library, where a reference to the exported names would
// bind to libc's once the runtime is loaded with dlopen (attached): execl* go on through
// them, and an attached program's GOT gets them (exec_replacement).
#define CALLPROF_HIDDEN_ALIAS(name, ret, ...)                                                   \
  extern "C" __attribute__((visibility("hidden"), alias(#name))) CALLPROF_SAME_ATTRIBUTES(name) \
      ret callprof_own_##name(__VA_ARGS__)
CALLPROF_HIDDEN_ALIAS(execve, int, const char*, char* const[], char* const[]);
CALLPROF_HIDDEN_ALIAS(execv, int, const char*, char* const[]);
CALLPROF_HIDDEN_ALIAS(execvp, int, const char*, char* const[]);
CALLPROF_HIDDEN_ALIAS(execvpe, int, const char*, char* const[], char* const[]);
CALLPROF_HIDDEN_ALIAS(fexecve, int, int, char* const[], char* const[]);

// Like glibc's own execl*, the argument vector lives on the stack.
#define CALLPROF_ARGV_FROM_VARARGS(argv, first, ap)                          \
  va_list ap;                                                                \
  va_start(ap, first);                                                       \
  size_t n_##argv = count_args(ap);                                          \
  va_end(ap);                                                                \
  char** argv = static_cast<char**>(alloca((n_##argv + 2) * sizeof(char*))); \
  va_start(ap, first);                                                       \
  fill_args(argv, first, n_##argv, ap)

CALLPROF_EXPORT int execl(const char* path, const char* arg, ...) {
  CALLPROF_ARGV_FROM_VARARGS(argv, arg, ap);
  va_end(ap);
  return callprof_own_execv(path, argv);
}

CALLPROF_EXPORT int execlp(const char* file, const char* arg, ...) {
  CALLPROF_ARGV_FROM_VARARGS(argv, arg, ap);
  va_end(ap);
  return callprof_own_execvp(file, argv);
}

CALLPROF_EXPORT int execle(const char* path, const char* arg, ...) {
  CALLPROF_ARGV_FROM_VARARGS(argv, arg, ap);
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return callprof_own_execve(path, argv, envp);
}

// posix_spawn runs its child's exec inside libc, out of an interposer's reach: the
// environment is fixed here instead.
using SpawnFn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const[],
                        char* const[]);

CALLPROF_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  static SpawnFn fn = real<SpawnFn>("posix_spawn");
  CALLPROF_CHILD_ENV(env, envp);
  return fn(pid, path, actions, attr, argv, env);
}

CALLPROF_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                                 const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  static SpawnFn fn = real<SpawnFn>("posix_spawnp");
  CALLPROF_CHILD_ENV(env, envp);
  return fn(pid, file, actions, attr, argv, env);
}

CALLPROF_HIDDEN_ALIAS(execl, int, const char*, const char*, ...);
CALLPROF_HIDDEN_ALIAS(execlp, int, const char*, const char*, ...);
CALLPROF_HIDDEN_ALIAS(execle, int, const char*, const char*, ...);

// An attached program's GOT entries for these get this library's (attach_replacements.h).
uint64_t callprof::rt::exec_replacement(const char* name) {
  static const OwnFunction kOwn[] = {{"execve", reinterpret_cast<const void*>(&callprof_own_execve)},
                                     {"execv", reinterpret_cast<const void*>(&callprof_own_execv)},
                                     {"execvp", reinterpret_cast<const void*>(&callprof_own_execvp)},
                                     {"execvpe", reinterpret_cast<const void*>(&callprof_own_execvpe)},
                                     {"fexecve", reinterpret_cast<const void*>(&callprof_own_fexecve)},
                                     {"execl", reinterpret_cast<const void*>(&callprof_own_execl)},
                                     {"execlp", reinterpret_cast<const void*>(&callprof_own_execlp)},
                                     {"execle", reinterpret_cast<const void*>(&callprof_own_execle)}};
  return own_function(kOwn, name);
}
