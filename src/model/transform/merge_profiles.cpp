// Merging profiles: unify the tables by identity, remap every function id, sort.
#include "model/transform/merge_profiles.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

namespace callprof {
namespace {

std::string program_of(const Profile& p) {
  const std::string_view cmd = p.meta.command;
  const std::string_view exe = cmd.substr(0, cmd.find(' '));
  const size_t slash = exe.rfind('/');
  return std::string(slash == std::string_view::npos ? exe : exe.substr(slash + 1));
}

Status check_compatible(const std::vector<Profile>& ps, const MergeOptions& o) {
  for (const Profile& p : ps) {
    const Profile& first = ps.front();
    if (p.meta.compensated != first.meta.compensated)
      return make_error("cannot merge a compensated profile with a raw one");
    if (o.force) continue;
    if (p.meta.mode != first.meta.mode)
      return make_error("profiles of different modes ('" + first.meta.mode + "' and '" + p.meta.mode +
                        "'): --force merges them anyway, functions by name");
    if (program_of(p) != program_of(first))
      return make_error("profiles of different programs ('" + program_of(first) + "' and '" + program_of(p) +
                        "'): --force merges them anyway, functions by name");
  }
  return Ok{};
}

// A module's identity: its build id, else its path.
std::string module_key(const Module& m) { return m.build_id.empty() ? "path:" + m.path : "id:" + m.build_id; }

using FunctionKey = std::tuple<std::string, std::string, FunctionKind>;  // module key, name, kind

struct Unified {
  Function function;   // its module field is resolved through `module`
  std::string module;  // the module's key, "" for none
};

struct Tables {
  std::map<std::string, Module> modules;  // by key
  std::map<FunctionKey, Unified> functions;
};

FunctionKey function_key(const Profile& p, const Function& f, bool by_name_only) {
  const std::string mod = by_name_only || f.module >= p.modules.size() ? "" : module_key(p.modules[f.module]);
  return {mod, f.name, f.kind};
}

// Attributes that differ between builds (file, line, address) resolve to the smallest, so
// the choice does not depend on the order of the inputs.
void unify(Unified& u, const Function& f, const std::string& module) {
  Function& into = u.function;
  if (u.module.empty()) u.module = module;
  if (std::tie(f.file, f.line, f.linkage_name, f.address) < std::tie(into.file, into.line, into.linkage_name, into.address)) {
    into.file = f.file;
    into.line = f.line;
    into.linkage_name = f.linkage_name;
    into.address = f.address;
  }
}

Tables collect_tables(const std::vector<Profile>& ps, bool by_name_only) {
  Tables t;
  for (const Profile& p : ps) {
    for (const Module& m : p.modules) t.modules.try_emplace(module_key(m), m);
    for (const Function& f : p.functions) {
      const std::string mod = f.module < p.modules.size() ? module_key(p.modules[f.module]) : "";
      auto [it, added] = t.functions.try_emplace(function_key(p, f, by_name_only), Unified{f, mod});
      if (!added) unify(it->second, f, mod);
    }
  }
  return t;
}

// The merged tables as vectors (in key order), and per input its function id map.
struct Ids {
  std::vector<std::vector<FunctionId>> function;  // [input][old id] -> new id
};

Ids assign_ids(const std::vector<Profile>& ps, const Tables& t, bool by_name_only, Profile& out) {
  std::map<std::string, ModuleId> module_ids;
  for (const auto& [key, m] : t.modules) {
    module_ids[key] = ModuleId(out.modules.size());
    out.modules.push_back(m);
  }
  std::map<FunctionKey, FunctionId> function_ids;
  for (const auto& [key, u] : t.functions) {
    function_ids[key] = FunctionId(out.functions.size());
    Function f = u.function;
    f.module = u.module.empty() ? kNoModule : module_ids.at(u.module);
    out.functions.push_back(std::move(f));
  }
  Ids ids;
  for (const Profile& p : ps) {
    std::vector<FunctionId>& map = ids.function.emplace_back();
    for (const Function& f : p.functions) map.push_back(function_ids.at(function_key(p, f, by_name_only)));
  }
  return ids;
}

FunctionId remap(const std::vector<FunctionId>& map, FunctionId f) { return f < map.size() ? map[f] : f; }

// The thread's tree with new function ids; nodes that become equal paths merge by kind.
// `node` gets each old node's new id (for the timeline).
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

void add_records(const Profile& p, const std::vector<FunctionId>& map, Profile& out) {
  for (Process proc : p.processes) {
    if (proc.host.empty()) proc.host = p.meta.hostname;
    out.processes.push_back(std::move(proc));
  }
  for (const Thread& t : p.threads) {
    Thread copy = t;
    if (copy.host.empty()) copy.host = p.meta.hostname;
    std::vector<NodeId> node_map;
    copy.tree = remapped_tree(t.tree, map, node_map);
    remap_timeline(copy.timeline, node_map);
    for (FunctionId& f : copy.creator_path) f = remap(map, f);
    if (copy.start_routine != kNoFunction) copy.start_routine = remap(map, copy.start_routine);
    out.threads.push_back(std::move(copy));
  }
}

void sort_records(Profile& p) {
  std::stable_sort(p.processes.begin(), p.processes.end(), [](const Process& a, const Process& b) {
    return std::tie(a.host, a.pid, a.image, a.start_ns, a.command) < std::tie(b.host, b.pid, b.image, b.start_ns, b.command);
  });
  std::stable_sort(p.threads.begin(), p.threads.end(), [](const Thread& a, const Thread& b) {
    return std::tie(a.host, a.pid, a.start_ns, a.tid, a.name) < std::tie(b.host, b.pid, b.start_ns, b.tid, b.name);
  });
}

}  // namespace

namespace {

// "a" when every input says "a"; else the distinct values, sorted, joined. A value that
// was joined by an earlier merge is split first, so grouping does not change the result.
template <typename Get>
std::string common_or_joined(const std::vector<Profile>& ps, Get get, std::string_view separator) {
  std::set<std::string> values;
  for (const Profile& p : ps) {
    const std::string v = get(p);
    for (size_t at = 0;;) {
      const size_t end = v.find(separator, at);
      values.insert(v.substr(at, end == std::string::npos ? end : end - at));
      if (end == std::string::npos) break;
      at = end + separator.size();
    }
  }
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : std::string(separator)) + v;
  return out;
}

// Record options that differ between inputs are not kept: the options say "mixed".
void add_exact(std::optional<ExactFacts>& into, const ExactFacts& x) {
  if (!into) {
    into = x;
    return;
  }
  auto options = [](const ExactFacts& e) {
    return std::tie(e.offcpu, e.alloc, e.faults, e.libcalls, e.include, e.exclude, e.include_module, e.exclude_module,
                    e.checkpoint, e.max_depth, e.min_duration, e.max_nodes);
  };
  const uint64_t unmatched = into->unmatched_exits + x.unmatched_exits;
  if (options(*into) != options(x)) {
    *into = ExactFacts{};
    into->include = "mixed";
  }
  into->unmatched_exits = unmatched;
}

void add_sampling(std::optional<SamplingFacts>& into, const SamplingFacts& s) {
  if (!into) {
    into = s;
    return;
  }
  if (into->event != s.event) into->event = "mixed";
  if (into->unwind != s.unwind) into->unwind = "mixed";
  if (into->frequency_hz != s.frequency_hz) into->frequency_hz = 0;  // 0: differs between inputs
  into->samples += s.samples;
  into->off_cpu_samples += s.off_cpu_samples;
  into->incomplete_stacks += s.incomplete_stacks;
  into->lost_records += s.lost_records;
  into->lost_samples += s.lost_samples;
  into->truncated_stacks += s.truncated_stacks;
  into->inlined_frames = into->inlined_frames && s.inlined_frames;
}

void add_syscalls(std::optional<SyscallFacts>& into, const SyscallFacts& s) {
  if (!into) {
    into = s;
    return;
  }
  if (into->selection != s.selection) into->selection = "mixed";
  if (into->stacks != s.stacks) into->stacks = "mixed";
  into->events += s.events;
  into->lost_events += s.lost_events;
  into->stack_failures += s.stack_failures;
  into->unrecorded += s.unrecorded;
  into->unpaired_exits += s.unpaired_exits;
  into->exact_callers += s.exact_callers;
  into->exact_callers_unplaced += s.exact_callers_unplaced;
}

Metadata merged_metadata(const std::vector<Profile>& ps) {
  Metadata m;
  m.command = common_or_joined(ps, [](const Profile& p) { return p.meta.command; }, " | ");
  m.mode = common_or_joined(ps, [](const Profile& p) { return p.meta.mode; }, "+");
  m.hostname = common_or_joined(ps, [](const Profile& p) { return p.meta.hostname; }, ",");
  m.clock = common_or_joined(ps, [](const Profile& p) { return p.meta.clock; }, ",");
  m.callprof_version = common_or_joined(ps, [](const Profile& p) { return p.meta.callprof_version; }, ",");
  m.start_realtime_ns = ps.front().meta.start_realtime_ns;
  for (const Profile& p : ps) {
    m.start_realtime_ns = std::min(m.start_realtime_ns, p.meta.start_realtime_ns);
    m.duration_ns += p.meta.duration_ns;  // the time recorded, over all inputs
    m.compensated = p.meta.compensated;
    m.snapshot = m.snapshot || p.meta.snapshot;
    if (p.meta.exact) add_exact(m.exact, *p.meta.exact);
    if (p.meta.sampling) add_sampling(m.sampling, *p.meta.sampling);
    if (p.meta.syscalls) add_syscalls(m.syscalls, *p.meta.syscalls);
    for (const auto& [k, v] : p.meta.extra) m.extra.insert({k, v});  // the smallest value wins below
  }
  for (const Profile& p : ps)
    for (const auto& [k, v] : p.meta.extra) m.extra[k] = std::min(m.extra[k], v);
  size_t inputs = 0;  // a merged input counts as the profiles it was made of
  for (const Profile& p : ps) {
    auto it = p.meta.extra.find("merged_profiles");
    inputs += it == p.meta.extra.end() ? 1 : std::max<size_t>(1, std::strtoull(it->second.c_str(), nullptr, 10));
  }
  m.extra["merged_profiles"] = std::to_string(inputs);
  return m;
}

}  // namespace

Result<Profile> merge_profiles(std::vector<Profile> profiles, const MergeOptions& options) {
  if (profiles.empty()) return make_error("nothing to merge");
  if (Status s = check_compatible(profiles, options); !s) return s.error();
  Profile out;
  const Tables tables = collect_tables(profiles, options.force);
  const Ids ids = assign_ids(profiles, tables, options.force, out);
  for (size_t i = 0; i < profiles.size(); ++i) add_records(profiles[i], ids.function[i], out);
  sort_records(out);
  out.meta = merged_metadata(profiles);
  return out;
}

}  // namespace callprof
