// System-call leaves from a traced profile hung into an exact-mode profile's trees: a walk
// of each traced tree that maps its frames onto the exact tree by function identity.
#include "model/transform/attach_syscalls.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace callprof {
namespace {

// Functions (and their modules) of `traced` in exact's tables, added when missing. A
// function is the same by identity where both tables know it: the same module file (path
// and build id) and entry address; else (a frame known only by name, as an inlined one is)
// by its name and its module's path.
class FunctionMapper {
 public:
  FunctionMapper(Profile& exact, const Profile& traced)
      : exact_(exact),
        traced_(traced),
        functions_(traced.functions.size(), kNoFunction),
        modules_(traced.modules.size(), kNoModule) {
    for (FunctionId f = 0; f < exact.functions.size(); ++f) index(f);
  }

  // The function in exact's table, added when missing.
  FunctionId operator()(FunctionId from) {
    if (from >= traced_.functions.size()) {  // not in the table: a placeholder, as the views show it
      Function placeholder;
      placeholder.name = "<function #" + std::to_string(from) + ">";
      return add(std::move(placeholder));
    }
    if (functions_[from] == kNoFunction) functions_[from] = find(from);
    if (functions_[from] == kNoFunction) {
      Function f = traced_.functions[from];
      f.module = module(f.module);
      functions_[from] = add(std::move(f));
    }
    return functions_[from];
  }

  // The function in exact's table, kNoFunction when it has none.
  FunctionId find(FunctionId from) const {
    if (from >= traced_.functions.size()) return kNoFunction;
    const Function& f = traced_.functions[from];
    if (auto it = by_address_.find(address_key(traced_, f)); it != by_address_.end()) return it->second;
    auto it = by_name_.find(name_key(traced_, f));
    return it == by_name_.end() ? kNoFunction : it->second;
  }

 private:
  static std::string module_key(const Profile& p, ModuleId m) {
    return m < p.modules.size() ? p.modules[m].path + '\n' + p.modules[m].build_id : std::string();
  }
  // "" when the function has no entry address in a module (then it is known by name only).
  static std::string address_key(const Profile& p, const Function& f) {
    if (f.address == 0 || f.module >= p.modules.size() || f.kind != FunctionKind::Normal) return "";
    return module_key(p, f.module) + '\n' + std::to_string(f.address);
  }
  static std::string name_key(const Profile& p, const Function& f) {
    return (f.module < p.modules.size() ? p.modules[f.module].path : std::string()) + '\n' + f.name + '\n' +
           std::to_string(int(f.kind));
  }
  void index(FunctionId f) {
    const Function& fn = exact_.functions[f];
    if (std::string key = address_key(exact_, fn); !key.empty()) by_address_.try_emplace(std::move(key), f);
    by_name_.try_emplace(name_key(exact_, fn), f);
  }
  FunctionId add(Function f) {
    if (auto it = by_name_.find(name_key(exact_, f)); it != by_name_.end()) return it->second;  // a placeholder again
    exact_.functions.push_back(std::move(f));
    const FunctionId id = FunctionId(exact_.functions.size() - 1);
    index(id);
    return id;
  }

  ModuleId module(ModuleId from) {
    if (from >= traced_.modules.size()) return kNoModule;
    if (modules_[from] == kNoModule) {
      const Module& m = traced_.modules[from];
      auto same =
          std::find_if(exact_.modules.begin(), exact_.modules.end(), [&](const Module& e) { return e.path == m.path; });
      modules_[from] = ModuleId(same - exact_.modules.begin());
      if (same == exact_.modules.end()) exact_.modules.push_back(m);
    }
    return modules_[from];
  }

  Profile& exact_;
  const Profile& traced_;
  std::map<std::string, FunctionId> by_address_;  // exact's functions by module file and entry
  std::map<std::string, FunctionId> by_name_;     // ... by module path, name and kind
  std::vector<FunctionId> functions_;             // traced id -> exact id
  std::vector<ModuleId> modules_;                 // traced id -> exact id
};

// The child of `at` (called, not inlined: exact trees have no inlined frames) running the
// function of exact's table `f`, else kNoNode.
NodeId child_running(const CallTree& tree, NodeId at, FunctionId f) {
  return f == kNoFunction ? kNoNode : tree.find_child(at, f, false);
}

// Adds a traced system-call leaf's metrics to the child of `parent` for `function`, moving
// its time out of the parent's self time (see the header); a root parent gives nothing.
void hang(CallTree& tree, NodeId parent, FunctionId function, const Metrics& traced, bool split_offcpu) {
  const NodeId leaf = tree.child(parent, function);
  Metrics add;
  for (Metric m : {Metric::Calls, Metric::Syscalls, Metric::SyscallNs, Metric::SyscallErrors, Metric::MinWallNs,
                   Metric::MaxWallNs})
    add[m] = traced[m];
  const uint64_t syscall_ns = traced[Metric::SyscallNs];
  if (parent == kRootNode) {
    add[Metric::WallNs] = syscall_ns;
  } else {
    MetricRowRef from = tree.base(parent);
    const uint64_t self = from[Metric::WallNs];
    const uint64_t moved = std::min(syscall_ns, self);
    from[Metric::WallNs] -= moved;
    add[Metric::WallNs] = moved;
    if (split_offcpu && self > 0) {
      uint64_t left = moved;
      for (Metric m : {Metric::OffCpuNs, Metric::PreemptedNs, Metric::CpuNs}) {
        const uint64_t share =
            m == Metric::CpuNs ? left : uint64_t(double(moved) * double(from[m]) / double(self) + 0.5);
        const uint64_t part = std::min({share, left, uint64_t(from[m])});
        if (part == 0) continue;
        from[m] -= part;
        add[m] = part;
        left -= part;
      }
    }
  }
  tree.base(leaf).merge(add);
}

// The traced thread's system-call leaves into the exact thread's tree. Parents before
// children, so each traced node's place in the exact tree extends its parent's: the
// matching child when there is one, else the parent's place (the frame is skipped).
// Only the leaves carry metrics in a traced tree; its other nodes are just paths.
void attach_leaves(Thread& into, const Profile& traced, const Thread& from, FunctionMapper& map) {
  const bool split = into.offcpu == Thread::OffCpu::Measured;
  std::vector<NodeId> place(from.tree.size(), kRootNode);
  for (NodeId i = 1; i < from.tree.size(); ++i) {
    const CallNode& n = from.tree.node(i);
    place[i] = place[n.parent];
    if (kind_of(traced, n.function) == FunctionKind::Syscall) {
      hang(into.tree, place[i], map(n.function), from.tree.base(i).metrics(), split);
    } else if (const NodeId c = child_running(into.tree, place[i], map.find(n.function)); c != kNoNode) {
      place[i] = c;
    }
  }
}

// The traced thread with its function ids in exact's table.
Thread remapped(const Thread& from, FunctionMapper& map) {
  Thread out = from;
  out.tree = CallTree();
  std::vector<NodeId> node(from.tree.size(), kRootNode);
  out.tree.base(kRootNode) = from.tree.base(kRootNode);
  for (NodeId i = 1; i < from.tree.size(); ++i) {
    const CallNode& n = from.tree.node(i);
    node[i] = out.tree.child(node[n.parent], map(n.function), n.inlined);
    out.tree.base(node[i]).merge(from.tree.base(i));  // merge: two traced functions may map to one
  }
  remap_timeline(out.timeline, node);
  out.code = CodeCosts{};  // its locations are the traced profile's: not carried over
  for (FunctionId& f : out.creator_path) f = map(f);
  if (out.start_routine != kNoFunction) out.start_routine = map(out.start_routine);
  return out;
}

}  // namespace

void merge_syscall_stats(std::vector<SyscallStats>& into, const std::vector<SyscallStats>& from) {
  for (const SyscallStats& s : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const SyscallStats& e) { return e.name == s.name; });
    if (same == into.end())
      into.push_back(s);
    else
      same->merge(s);
  }
}

void hang_syscall_leaf(Thread& into, NodeId parent, FunctionId leaf, const Metrics& traced) {
  hang(into.tree, parent, leaf, traced, into.offcpu == Thread::OffCpu::Measured);
}

FunctionId syscall_leaf_function(Profile& p, std::string_view syscall_name) {
  const std::string name = std::string(kSyscallLeafPrefix) + std::string(syscall_name);
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].kind == FunctionKind::Syscall && p.functions[f].name == name) return f;
  Function f;
  f.name = name;
  f.kind = FunctionKind::Syscall;
  p.functions.push_back(std::move(f));
  return FunctionId(p.functions.size() - 1);
}

void attach_syscalls(Profile& exact, const Profile& traced) {
  FunctionMapper map(exact, traced);
  // Only exact's own threads are matched: an appended thread holds traced paths already.
  const size_t exact_threads = exact.threads.size();
  for (const Thread& t : traced.threads) {
    auto match = std::find_if(exact.threads.begin(), exact.threads.begin() + std::ptrdiff_t(exact_threads),
                              [&](const Thread& e) { return e.pid == t.pid && e.tid == t.tid; });
    if (match != exact.threads.begin() + std::ptrdiff_t(exact_threads)) {
      attach_leaves(*match, traced, t, map);
      merge_syscall_stats(match->syscalls, t.syscalls);
      continue;
    }
    const bool known_pid =
        std::any_of(exact.processes.begin(), exact.processes.end(), [&](const Process& p) { return p.pid == t.pid; });
    if (!known_pid)
      for (const Process& p : traced.processes)
        if (p.pid == t.pid) exact.processes.push_back(p);
    exact.threads.push_back(remapped(t, map));
  }
  exact.meta.syscalls = traced.meta.syscalls;
}

}  // namespace callprof
