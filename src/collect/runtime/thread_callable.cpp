#include "collect/runtime/thread_callable.h"

#include <optional>
#include <utility>

#include "util/demangled_name.h"

namespace callprof {

// By the function's qualified name, its return type left out: std::get's helpers return
// the program's lambda ("main::{lambda()#1}& std::__get_helper<...>(...)").
bool library_wrapper(std::string_view name) {
  const std::optional<SignaturePieces> pieces = parse_signature(name.substr(0, clone_suffix_begin(name)));
  const std::string_view path = pieces ? std::string_view(pieces->name) : name;
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
  // Each function's name parsed once, not once per node of a large tree.
  std::vector<int8_t> wrapper(functions.size(), -1);
  auto is_wrapper = [&](NodeId n) {
    int8_t& w = wrapper[tree.node(n).function];
    if (w < 0) w = library_wrapper(functions[tree.node(n).function].name);
    return w == 1;
  };
  std::vector<uint64_t> cum(tree.size(), 0);
  std::vector<bool> reaches_program(tree.size(), false);
  for (NodeId n = NodeId(tree.size()); n-- > 1;) {
    cum[n] += tree.base(n)[Metric::WallNs];
    cum[tree.node(n).parent] += cum[n];
    if (!is_wrapper(n)) reaches_program[n] = true;
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
  for (NodeId below; is_wrapper(n) && (below = heaviest_child(n)) != kNoNode;) n = below;
  return tree.node(n).function;
}

}  // namespace callprof
