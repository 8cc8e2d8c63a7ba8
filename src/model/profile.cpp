// Names of the model's enumerations, shared by every output that prints them.
#include "model/profile.h"

#include <array>

namespace callprof {

std::string_view function_kind_name(FunctionKind k) {
  static constexpr std::array<std::string_view, kFunctionKindCount> kNames = {
      "function", "syscall", "kernel", "pruned", "truncated", "thread_group", "unhooked"};
  const size_t i = static_cast<size_t>(k);
  return i < kNames.size() ? kNames[i] : "function";
}

}  // namespace callprof
