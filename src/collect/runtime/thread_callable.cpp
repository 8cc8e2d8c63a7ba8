#include "collect/runtime/thread_callable.h"

#include <utility>

namespace callprof {

bool library_wrapper(std::string_view name) {
  std::string_view head = name.substr(0, name.find('('));
  head = head.substr(0, head.find('<'));
  head = head.substr(head.rfind(' ') == std::string_view::npos ? 0 : head.rfind(' ') + 1);
  return head.starts_with("std::") || head.starts_with("__gnu_cxx::");
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
