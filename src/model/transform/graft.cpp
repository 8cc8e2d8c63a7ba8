// Grafting threads under their creators, and grouping them by start routine.
#include "model/transform/graft.h"

#include <map>
#include <vector>

#include "model/lineage.h"
#include "model/transform/merge.h"

namespace callprof {
namespace {

// The node of `tree` at `path`, or at its longest existing prefix.
NodeId deepest_on_path(const CallTree& tree, std::span<const FunctionId> path) {
  NodeId at = kRootNode;
  for (FunctionId f : path) {
    const NodeId next = tree.find_child(at, f);
    if (next == kNoNode) break;
    at = next;
  }
  return at;
}

// Listed threads, creators before the threads they created (pre-order of the creation
// forest restricted to the list); `creator` is rewritten to kNoIndex for roots.
std::vector<size_t> creators_first(std::span<const size_t> threads, std::vector<size_t>& creator) {
  std::vector<bool> listed(creator.size(), false), placed(creator.size(), false);
  for (size_t t : threads) listed[t] = true;
  std::vector<std::vector<size_t>> created(creator.size());
  for (size_t t : threads)
    if (creator[t] != kNoIndex && listed[creator[t]]) created[creator[t]].push_back(t);
  std::vector<size_t> order;
  auto place_from = [&](size_t root) {
    creator[root] = kNoIndex;
    std::vector<size_t> stack{root};
    while (!stack.empty()) {
      const size_t t = stack.back();
      stack.pop_back();
      if (placed[t]) continue;
      placed[t] = true;
      order.push_back(t);
      for (auto c = created[t].rbegin(); c != created[t].rend(); ++c) stack.push_back(*c);
    }
  };
  for (size_t t : threads)
    if (creator[t] == kNoIndex || !listed[creator[t]]) place_from(t);
  for (size_t t : threads)  // left over: members of a creator cycle
    if (!placed[t]) place_from(t);
  return order;
}

}  // namespace

CallTree grafted_tree(const Profile& profile, std::span<const size_t> threads) {
  std::vector<size_t> creator = thread_creators(profile);
  CallTree out;
  std::vector<std::vector<NodeId>> where(profile.threads.size());  // thread node -> out node
  for (size_t t : creators_first(threads, creator)) {
    const Thread& thread = profile.threads[t];
    NodeId at = kRootNode;
    if (const size_t c = creator[t]; c != kNoIndex)
      at = where[c][deepest_on_path(profile.threads[c].tree, thread.creator_path)];
    where[t] = merge_under(out, at, thread.tree);
  }
  return out;
}

CallTree merged_by_start_routine(Profile& profile, std::span<const size_t> threads) {
  std::map<FunctionId, std::vector<size_t>> groups;  // by start routine id
  for (size_t t : threads) groups[profile.threads[t].start_routine].push_back(t);
  CallTree out;
  for (const auto& [routine, members] : groups) {
    NodeId at = kRootNode;
    if (routine != kNoFunction) {
      const std::string name = routine < profile.functions.size() ? profile.functions[routine].name
                                                                  : "<function #" + std::to_string(routine) + ">";
      Function group;
      group.kind = FunctionKind::ThreadGroup;
      group.name =
          members.size() == 1 ? "[thread] " + name : "[" + std::to_string(members.size()) + " threads] " + name;
      profile.functions.push_back(std::move(group));
      at = out.child(kRootNode, FunctionId(profile.functions.size() - 1));
    }
    for (size_t t : members) merge_under(out, at, profile.threads[t].tree);
  }
  return out;
}

}  // namespace callprof
