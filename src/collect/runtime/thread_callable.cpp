#include "collect/runtime/thread_callable.h"

#include <utility>

namespace callprof {

namespace {

// "R ns::f<T>(A) const" -> "ns::f<T>": the parameter list (the group the last ')' closes,
// when only qualifiers follow it) and the return type cut off. The return type may hold
// parentheses of its own ("main::{lambda()#1}& std::__get_helper<...>(...)"), so the name
// starts after the last space outside brackets, but the space of "operator new".
std::string_view function_path(std::string_view name) {
  const size_t close = name.rfind(')');
  if (close != std::string_view::npos && name.find_first_of("}:>", close) == std::string_view::npos) {
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
      depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
      if (depth == 0) {
        name = name.substr(0, i);
        break;
      }
    }
  }
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == '}' || c == ']') --depth;
    if (c == ' ' && depth == 0 && !name.substr(0, i).ends_with("operator")) start = i + 1;
  }
  return name.substr(start);
}

}  // namespace

bool library_wrapper(std::string_view name) {
  const std::string_view path = function_path(name);
  return path.starts_with("std::") || path.starts_with("__gnu_cxx::");
}

// The routine is not at the top when it was not recorded: std::thread's trampoline in
// libstdc++, a routine built without hooks (a bare "libstdc++.so.6+0xd4490" to the user);
// the wrappers below are those the hooks also saw (_M_run, _Invoker, __invoke).
FunctionId thread_callable(const CallTree& tree, FunctionId routine, const std::vector<Function>& functions) {
  for (NodeId n : tree.children(0))
    if (tree.node(n).function == routine) return routine;
  // Children come after their parents: one backward pass sums each subtree's time and
  // whether it reaches the program's own code. A path that does is taken over a heavier one
  // that stays in the library (std::get of the callable, whose trivial getter once took a
  // page fault's 134 us while the lambda ran 104).
  std::vector<uint64_t> cum(tree.size(), 0);
  std::vector<bool> reaches_program(tree.size(), false);
  for (NodeId n = NodeId(tree.size()); n-- > 1;) {
    cum[n] += tree.base(n)[Metric::WallNs];
    cum[tree.node(n).parent] += cum[n];
    if (!library_wrapper(functions[tree.node(n).function].name)) reaches_program[n] = true;
    if (reaches_program[n]) reaches_program[tree.node(n).parent] = true;
  }
  auto heaviest_child = [&](NodeId n) {
    NodeId best = kNoNode;
    for (NodeId c : tree.children(n))
      if (best == kNoNode || std::pair(reaches_program[c], cum[c]) > std::pair(reaches_program[best], cum[best]))
        best = c;
    return best;
  };
  const std::vector<NodeId> top = tree.children(0);
  NodeId n = top.empty() ? kNoNode : *std::min_element(top.begin(), top.end());  // entered first
  if (n == kNoNode) return routine;
  for (NodeId below; library_wrapper(functions[tree.node(n).function].name) && (below = heaviest_child(n)) != kNoNode;)
    n = below;
  return tree.node(n).function;
}

}  // namespace callprof
