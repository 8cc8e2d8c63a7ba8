// Merging profiles: each input's tables unified by identity as it comes (its functions given
// provisional ids), its records kept; at the end the tables are sorted, which fixes every id,
// and each thread's functions are renumbered once.
#include "model/transform/merge_profiles.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include "model/transform/merge_metadata.h"

namespace callprof {
namespace {

std::string program_of(const Metadata& m) {
  const std::string_view cmd = m.command;
  const std::string_view exe = cmd.substr(0, cmd.find(' '));
  const size_t slash = exe.rfind('/');
  return std::string(slash == std::string_view::npos ? exe : exe.substr(slash + 1));
}

Status check_compatible(const Metadata& first, const Metadata& m, const MergeOptions& o) {
  if (m.compensated != first.compensated) return make_error("cannot merge a compensated profile with a raw one");
  if (o.force) return Ok{};
  if (m.mode != first.mode)
    return make_error("profiles of different modes ('" + first.mode.text() + "' and '" + m.mode.text() +
                      "'): --force merges them anyway, functions by name");
  if (program_of(m) != program_of(first))
    return make_error("profiles of different programs ('" + program_of(first) + "' and '" + program_of(m) +
                      "'): --force merges them anyway, functions by name");
  return Ok{};
}

// A module's identity: its build id, else its path.
std::string module_key(const Module& m) { return m.build_id.empty() ? "path:" + m.path : "id:" + m.build_id; }

using FunctionKey = std::tuple<std::string, std::string, FunctionKind>;  // module key ("" by name), name, kind

struct Unified {
  FunctionKey key;
  Function function;   // its module field is resolved through `module` at the end
  std::string module;  // the module's key, "" for none
};

// Attributes that differ between builds (file, line, address) resolve to the smallest, so
// the choice does not depend on the order of the inputs.
void unify(Unified& u, const Function& f, const std::string& module) {
  Function& into = u.function;
  if (u.module.empty()) u.module = module;
  if (std::tie(f.file, f.line, f.linkage_name, f.address) <
      std::tie(into.file, into.line, into.linkage_name, into.address)) {
    into.file = f.file;
    into.line = f.line;
    into.linkage_name = f.linkage_name;
    into.address = f.address;
  }
}

FunctionId remap(const std::vector<FunctionId>& map, FunctionId f) { return f < map.size() ? map[f] : f; }

// The thread's tree with new function ids, node by node: nodes that become equal paths
// merge. `node` gets each old node's new id (for the timeline).
CallTree remapped_tree(const CallTree& in, const std::vector<FunctionId>& map, std::vector<NodeId>& node) {
  CallTree out;
  out.reserve(in.size());  // at most as many nodes: no reallocation while it grows
  node.assign(in.size(), kRootNode);
  for (NodeId i = 1; i < in.size(); ++i) {
    const CallNode& n = in.node(i);
    node[i] = out.child(node[n.parent], remap(map, n.function), n.inlined);
  }
  out.base_table().merge_rows(in.base_table(), node);  // column by column; the root onto the root
  return out;
}

// The thread's code costs on its new nodes and the merged locations (`location`: the input's
// id -> merged id); entries of nodes that merged add up (call sites too: a weighed site by location, an unweighed one
// only where none is).
void remap_code(CodeCosts& code, const std::vector<NodeId>& node, const std::vector<LocationId>& location) {
  InstructionSums sums;
  for (const InstructionSamples& i : code.instructions)
    sums.add(node[i.node], location[i.location], i.samples, i.cpu_ns);
  CallSiteSet sites;
  for (const CallSite& c : code.call_sites)
    sites.add({node[c.node], c.location == kNoLocation ? kNoLocation : location[c.location], c.calls, c.wall_ns});
  code = CodeCosts{};
  sums.move_into(code);
  sites.move_into(code);
}

// The thread with the merged function ids. When `one_to_one` (no two of its input's functions
// became one) its tree keeps every node: renumbered in place.
void renumber(Thread& t, const std::vector<FunctionId>& map, bool one_to_one,
              const std::vector<LocationId>& locations) {
  std::vector<NodeId> node_map;
  if (one_to_one && t.tree.renumber_functions(map)) {
    if (!t.timeline.events.empty() || !t.code.empty()) {  // events on the root are dropped, as when nodes merge
      node_map.resize(t.tree.size());
      std::iota(node_map.begin(), node_map.end(), NodeId(0));
    }
  } else {
    t.tree = remapped_tree(t.tree, map, node_map);
  }
  if (!t.timeline.events.empty()) remap_timeline(t.timeline, node_map);
  if (!t.code.empty()) remap_code(t.code, node_map, locations);
  for (FunctionId& f : t.creator_path) f = remap(map, f);
  if (t.start_routine != kNoFunction) t.start_routine = remap(map, t.start_routine);
}

void sort_records(Profile& p) {
  std::stable_sort(p.processes.begin(), p.processes.end(), [](const Process& a, const Process& b) {
    return std::tie(a.host, a.pid, a.image, a.start_ns, a.command) <
           std::tie(b.host, b.pid, b.image, b.start_ns, b.command);
  });
  std::stable_sort(p.threads.begin(), p.threads.end(), [](const Thread& a, const Thread& b) {
    return std::tie(a.host, a.pid, a.start_ns, a.tid, a.name) < std::tie(b.host, b.pid, b.start_ns, b.tid, b.name);
  });
}

}  // namespace

struct ProfileMerger::State {
  MergeOptions options;
  std::vector<Metadata> metas;                                // per input
  std::map<std::string, Module> modules;                      // by key: sorted, as the merged table
  absl::flat_hash_map<FunctionKey, FunctionId> function_ids;  // key -> provisional id
  std::vector<Unified> functions;                             // by provisional id
  struct Input {
    std::vector<FunctionId> functions;    // its function id -> provisional id
    bool one_to_one = true;               // no two of its functions unified into one
    std::vector<CodeLocation> locations;  // with its own function ids and files
    std::vector<std::string> source_files;
  };
  std::vector<Input> inputs;
  std::vector<Process> processes;
  std::vector<Thread> threads;         // with their input's function ids
  std::vector<uint32_t> thread_input;  // per thread, its input

  // The input's functions unified into the table, and its id map.
  Input add_functions(const Profile& p) {
    std::vector<std::string> module_keys;
    module_keys.reserve(p.modules.size());
    for (const Module& m : p.modules) {
      module_keys.push_back(module_key(m));
      modules.try_emplace(module_keys.back(), m);
    }
    Input in;
    in.functions.reserve(p.functions.size());
    std::vector<bool> taken;
    for (const Function& f : p.functions) {
      static const std::string kNone;
      const std::string& mod = f.module < module_keys.size() ? module_keys[f.module] : kNone;
      FunctionKey key{options.force ? kNone : mod, f.name, f.kind};
      auto [it, added] = function_ids.try_emplace(key, FunctionId(functions.size()));
      if (added)
        functions.push_back(Unified{std::move(key), f, mod});
      else
        unify(functions[it->second], f, mod);
      const FunctionId id = it->second;
      if (taken.size() <= id) taken.resize(functions.size());
      if (taken[id]) in.one_to_one = false;
      taken[id] = true;
      in.functions.push_back(id);
    }
    return in;
  }

  // The merged tables in key order into `out`; returns the final id of each provisional one.
  std::vector<FunctionId> assign_ids(Profile& out) const {
    std::map<std::string, ModuleId> module_ids;
    for (const auto& [key, m] : modules) {
      module_ids[key] = ModuleId(out.modules.size());
      out.modules.push_back(m);
    }
    std::vector<FunctionId> order(functions.size());
    std::iota(order.begin(), order.end(), FunctionId(0));
    std::sort(order.begin(), order.end(),
              [&](FunctionId a, FunctionId b) { return functions[a].key < functions[b].key; });
    std::vector<FunctionId> final_id(functions.size());
    out.functions.reserve(functions.size());
    for (FunctionId provisional : order) {
      final_id[provisional] = FunctionId(out.functions.size());
      const Unified& u = functions[provisional];
      Function f = u.function;
      f.module = u.module.empty() ? kNoModule : module_ids.at(u.module);
      out.functions.push_back(std::move(f));
    }
    return final_id;
  }
};

ProfileMerger::ProfileMerger(MergeOptions options) : state_(std::make_unique<State>()) { state_->options = options; }
ProfileMerger::ProfileMerger(ProfileMerger&&) noexcept = default;
ProfileMerger& ProfileMerger::operator=(ProfileMerger&&) noexcept = default;
ProfileMerger::~ProfileMerger() = default;

Status ProfileMerger::add(Profile p) {
  State& s = *state_;
  if (!s.metas.empty())
    if (Status ok = check_compatible(s.metas.front(), p.meta, s.options); !ok) return ok;
  const uint32_t input = uint32_t(s.inputs.size());
  s.inputs.push_back(s.add_functions(p));
  s.inputs.back().locations = std::move(p.locations);
  s.inputs.back().source_files = std::move(p.source_files);
  for (Process& proc : p.processes) {
    if (proc.host.empty()) proc.host = p.meta.hostname;
    for (Process::RemovedHooks& r : proc.removed_hooks) r.function = s.inputs.back().functions.at(r.function);
    s.processes.push_back(std::move(proc));
  }
  for (Thread& t : p.threads) {
    if (t.host.empty()) t.host = p.meta.hostname;
    s.threads.push_back(std::move(t));
    s.thread_input.push_back(input);
  }
  s.metas.push_back(std::move(p.meta));
  return Ok{};
}

Result<Profile> ProfileMerger::finish() {
  State s = std::move(*state_);
  *state_ = State{.options = s.options};
  if (s.metas.empty()) return make_error("nothing to merge");
  Profile out;
  const std::vector<FunctionId> final_id = s.assign_ids(out);
  std::vector<FunctionId> map;        // the current input's function id -> final id
  std::vector<LocationId> locations;  // ... location id -> merged id
  LocationTable merged_locations(out);
  for (size_t i = 0; i < s.threads.size(); ++i) {
    const State::Input& in = s.inputs[s.thread_input[i]];
    if (i == 0 || s.thread_input[i] != s.thread_input[i - 1]) {
      map.resize(in.functions.size());
      for (size_t f = 0; f < map.size(); ++f) map[f] = final_id[in.functions[f]];
      locations.clear();
      for (const CodeLocation& l : in.locations)
        locations.push_back(
            merged_locations.add(remap(map, l.function), l.address, in.source_files.at(l.file), l.line));
    }
    renumber(s.threads[i], map, in.one_to_one, locations);
  }
  for (Process& proc : s.processes)
    for (Process::RemovedHooks& r : proc.removed_hooks) r.function = final_id[r.function];
  out.processes = std::move(s.processes);
  out.threads = std::move(s.threads);
  sort_records(out);
  out.meta = merged_metadata(s.metas);
  return out;
}

Result<Profile> merge_profiles(std::vector<Profile> profiles, const MergeOptions& options) {
  ProfileMerger merger(options);
  for (Profile& p : profiles)
    if (Status s = merger.add(std::move(p)); !s) return s.error();
  return merger.finish();
}

}  // namespace callprof
