// Where sampled stacks begin (see stack_roots.h).
#include "collect/stacks/stack_roots.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace callprof::stacks {
namespace {

// A symbol's name without its version ("__libc_start_main@@GLIBC_2.34").
std::string_view unversioned(std::string_view name) { return name.substr(0, name.find('@')); }

bool is_one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), unversioned(name)) != names.end();
}

// A function of the program or a library (not kernel, not synthetic), when the frame is one.
const Function* user_function(const Profile& p, const Frame& f) {
  if (f.function >= p.functions.size()) return nullptr;
  const Function& fn = p.functions[f.function];
  return fn.kind == FunctionKind::Normal ? &fn : nullptr;
}

bool named_one_of(const Function* f, std::initializer_list<std::string_view> names) {
  return f && (is_one_of(f->name, names) || is_one_of(f->linkage_name, names));
}

// Where a stack may begin.
bool is_root(const Function* f) {
  return named_one_of(f, {"_start", "_start_c", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
                          "start_thread", "clone", "__clone", "clone3", "__clone3", "thread_start"});
}

// Roots nothing but other roots calls (unlike clone, which a program calls): whatever a chain
// shows outside one is garbage.
bool is_entry(const Function* f) {
  return named_one_of(f, {"_start", "_start_c", "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
                          "start_thread"});
}

}  // namespace

size_t root_frame(const Profile& p, std::span<const Frame> path) {
  if (path.empty()) return kNoRoot;
  if (is_root(user_function(p, path[0]))) return 0;
  for (size_t i = 1; i < path.size(); ++i)
    if (!path[i].inlined && is_entry(user_function(p, path[i]))) return i;
  // Start code without a symbol (and so without inlined frames): the frame that called main.
  for (size_t i = 1; i < path.size(); ++i) {
    const Function* f = user_function(p, path[i]);
    if (path[i].inlined || !named_one_of(f, {"main", "_dl_start", "_dl_init"})) continue;
    const Function* caller = user_function(p, path[i - 1]);
    return caller && caller->linkage_name.empty() && !path[i - 1].inlined ? i - 1 : kNoRoot;
  }
  return kNoRoot;
}

}  // namespace callprof::stacks
