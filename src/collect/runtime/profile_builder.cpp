// Building the model from raw dumps: ticks to ns, open frames closed, trees in
// parents-first order (pruning may have reused low node ids), filtered-out and
// never-completed nodes folded into their callers, signal contexts grafted.
#include "collect/runtime/profile_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <span>

#include "collect/runtime/process_symbols.h"
#include "collect/runtime/thread_callable.h"
#include "model/time_split.h"
#include "symbols/elf_compiler.h"
#include "util/strings.h"

namespace callprof {
namespace {

struct Clock {
  const wire::DumpHeader& h;
  double rate;  // ns per tick
  // Modular arithmetic: a damaged dump's times may be anything, and must not overflow.
  int64_t ns(uint64_t tsc) const {
    return int64_t(uint64_t(h.mono_start_ns) + uint64_t(std::llround((double(tsc) - double(h.tsc_start)) * rate)));
  }
  uint64_t span(uint64_t ticks) const { return uint64_t(std::llround(double(ticks) * rate)); }
};

// Close the frames still open when the dump was taken, as if they returned at `end`, in
// the dump's own nodes (a copy of a large tree's was tens of MB written once more).
// Off-CPU time the thread had not yet charged belongs to the frame on top.
void close_open_frames(RawThread& t) {
  std::vector<wire::DumpNode>& nodes = t.nodes;
  uint64_t inner_total = 0;
  for (size_t i = t.open.size(); i-- > 0;) {
    const wire::DumpOpenFrame& f = t.open[i];
    wire::DumpNode& n = nodes[f.node];
    if (f.node == 0 || n.fn == 0) continue;  // a snapshot raced with the thread
    uint64_t total = t.info.end_tsc > f.entry_tsc ? t.info.end_tsc - f.entry_tsc : 0;
    uint64_t children = f.child_ticks + inner_total;
    uint64_t self = total > children ? total - children : 0;
    n.self_ticks += self;
    inner_total = total;
    if (f.flags & wire::kOpenFrameInherited) continue;  // the parent's call, counted there
    n.calls += 1;
    n.min_self_ticks = std::min(n.min_self_ticks, self);
    n.max_self_ticks = std::max(n.max_self_ticks, self);
  }
  if (!t.metrics.empty()) t.metrics[t.open.empty() ? 0 : t.open.back().node].offcpu_ns += t.info.pending_offcpu_ns;
}

// Live nodes reachable from the root, parents before children. The runtime adds a node
// after its parent, so index order is such an order unless pruning reused a slot (a parent
// may then have a later index than its child): in index order, the dump is read front to
// back (a level order went to memory for every node of a large tree).
std::vector<uint32_t> parents_first(const std::vector<wire::DumpNode>& nodes) {
  if (nodes.empty()) return {};
  std::vector<uint32_t> order{0};
  order.reserve(nodes.size());
  bool in_index_order = true;
  for (uint32_t i = 1; i < nodes.size() && in_index_order; ++i) {
    if (nodes[i].fn == 0) continue;
    const uint32_t parent = nodes[i].parent;
    in_index_order = parent < i && (parent == 0 || nodes[parent].fn != 0);
    order.push_back(i);
  }
  if (in_index_order) return order;
  order.assign(1, 0);
  std::vector<std::vector<uint32_t>> children(nodes.size());
  for (uint32_t i = 1; i < nodes.size(); ++i)
    if (nodes[i].fn != 0) children[nodes[i].parent].push_back(i);
  for (size_t k = 0; k < order.size(); ++k)
    for (uint32_t c : children[order[k]]) order.push_back(c);
  return order;
}

struct NodeSource {
  const std::vector<wire::DumpNode>& nodes;
  const std::vector<wire::DumpNodeMetrics>& metrics;  // empty: none
  bool cpu_measured;
  std::vector<uint64_t> folded{};                  // per node, calls made after an auto-fold; empty: none
  std::span<const wire::DumpCallSite> sites = {};  // nodes' further call sites
};

// Per node, the total time of its calls: its self time and its descendants'.
std::vector<uint64_t> total_ticks(const std::vector<wire::DumpNode>& nodes, const std::vector<uint32_t>& order) {
  std::vector<uint64_t> total(nodes.size(), 0);
  for (size_t k = order.size(); k-- > 1;) {
    const uint32_t i = order[k];
    total[i] += nodes[i].self_ticks;
    total[nodes[i].parent] += total[i];
  }
  return total;
}

// A node's call sites, weighed: each further site the runtime kept with its own calls and
// time, and its first call site with the rest. A GCC-hooked inlined copy's hooks see the
// return address of the function it is inlined into: it has no site.
void add_call_sites(const NodeSource& src, uint32_t i, NodeId node, FunctionId caller, uint64_t total_ticks,
                    ProcessSymbols& syms, const Clock& clock, CallSiteSet& sites) {
  const wire::DumpNode& d = src.nodes[i];
  if (d.callsite & wire::kCallsiteInlined) return;
  uint64_t calls = d.calls, ticks = total_ticks;
  auto [lo, hi] = std::equal_range(src.sites.begin(), src.sites.end(), wire::DumpCallSite{i, 0, 0, 0, 0},
                                   [](const auto& a, const auto& b) { return a.node < b.node; });
  for (const wire::DumpCallSite& s : std::span(lo, hi)) {
    const uint64_t c = std::min(s.calls, calls), t = std::min(s.ticks, ticks);
    sites.add({node, syms.call_site(s.callsite, caller), c, clock.span(t)});
    calls -= c;
    ticks -= t;
  }
  sites.add({node, syms.call_site(d.callsite, caller), calls, clock.span(ticks)});
}

// An auto-folded node counts every call; those its DumpFoldedNode entry does not name as
// made through the hooks (all, without an entry) were folded.
std::vector<uint64_t> folded_calls(const RawThread& t) {
  std::vector<uint64_t> folded;
  for (uint32_t i = 1; i < t.nodes.size(); ++i) {
    if (!(t.nodes[i].flags & wire::kNodeAutoFolded)) continue;
    if (folded.empty()) folded.assign(t.nodes.size(), 0);
    folded[i] = t.nodes[i].calls;
  }
  for (const wire::DumpFoldedNode& f : t.folded)
    if (!folded.empty()) folded[f.node] -= std::min(folded[f.node], f.hooked_calls);
  return folded;
}

Metrics metrics_of(const NodeSource& src, uint32_t i, const Clock& clock) {
  const wire::DumpNode& d = src.nodes[i];
  Metrics m;
  m[Metric::Calls] = d.calls;
  m[Metric::WallNs] = clock.span(d.self_ticks);
  if (!src.folded.empty()) m[Metric::FoldedCalls] = src.folded[i];
  if (d.calls > m[Metric::FoldedCalls]) {
    m[Metric::MinWallNs] = clock.span(d.min_self_ticks);
    m[Metric::MaxWallNs] = clock.span(d.max_self_ticks);
  }
  if (src.metrics.empty()) return m;
  const wire::DumpNodeMetrics& x = src.metrics[i];
  // The runtime's offcpu_ns holds every switched-out interval; the model keeps the
  // preempted ones (waiting for a CPU) apart from the blocked ones.
  const SelfSplit split = split_self(m[Metric::WallNs], x.offcpu_ns, x.preempted_ns);
  m[Metric::PreemptedNs] = split.preempted;
  m[Metric::OffCpuNs] = split.blocked;
  if (src.cpu_measured) m[Metric::CpuNs] = split.on_cpu;
  m[Metric::Switches] = x.switches;
  m[Metric::PageFaults] = x.faults;
  m[Metric::AllocCalls] = x.alloc_calls;
  m[Metric::AllocBytes] = x.alloc_bytes;
  m[Metric::FreeCalls] = x.free_calls;
  m[Metric::ExcludedCalls] = x.excluded_calls;
  return m;
}

// A node whose calls were all too short to record (or that only the parent process
// used, before a fork) has no calls of its own, but what was charged to it while it ran
// (off-CPU time, allocations, ...) happened in its caller's time: it goes there.
void fold_into(MetricRowRef into, const wire::DumpNodeMetrics& x, bool cpu_measured) {
  const OffCpuParts off = split_switched_out(x.offcpu_ns, x.preempted_ns);
  into[Metric::OffCpuNs] += off.blocked;
  into[Metric::PreemptedNs] += off.preempted;
  if (cpu_measured) into[Metric::CpuNs] -= std::min<uint64_t>(into[Metric::CpuNs], x.offcpu_ns);
  into[Metric::Switches] += x.switches;
  into[Metric::PageFaults] += x.faults;
  into[Metric::AllocCalls] += x.alloc_calls;
  into[Metric::AllocBytes] += x.alloc_bytes;
  into[Metric::FreeCalls] += x.free_calls;
  into[Metric::ExcludedCalls] += x.excluded_calls;
}

// Adds dump nodes to `tree` under the tree nodes already in `mapped` (the root, or graft
// points), leaving out paths no call reached (after a fork the child keeps its parent's
// nodes with zero metrics). Filtered-out functions are not nodes: their calls are counted
// at the caller.
// Each node's call sites go to `sites` (add_call_sites).
void add_nodes(const NodeSource& src, ProcessSymbols& syms, const Clock& clock, CallTree& tree,
               std::vector<NodeId>& mapped, CallSiteSet& sites) {
  const auto& nodes = src.nodes;
  std::vector<uint32_t> order = parents_first(nodes);
  const std::vector<uint64_t> total = total_ticks(nodes, order);
  std::vector<bool> used(nodes.size());
  for (size_t k = order.size(); k-- > 1;) {
    uint32_t i = order[k];
    // A frame inherited at fork has time in the child but no call of its own.
    if (used[i] || nodes[i].calls != 0 || nodes[i].self_ticks != 0) used[i] = used[nodes[i].parent] = true;
  }
  for (size_t k = 1; k < order.size(); ++k) {
    uint32_t i = order[k];
    const wire::DumpNode& d = nodes[i];
    if (mapped[i] != kNoNode || mapped[d.parent] == kNoNode) continue;
    if ((d.flags & wire::kNodeExcluded) && !(d.flags & wire::kNodeAutoFolded)) {
      if (d.calls > 0) tree.base(mapped[d.parent])[Metric::ExcludedCalls] += d.calls;
      continue;
    }
    if (!used[i]) {
      if (!src.metrics.empty()) fold_into(tree.base(mapped[d.parent]), src.metrics[i], src.cpu_measured);
      mapped[i] = mapped[d.parent];  // and so do its descendants'
      continue;
    }
    mapped[i] = tree.child(mapped[d.parent], syms.function(d.fn));
    if (mapped[d.parent] != kRootNode)
      add_call_sites(src, i, mapped[i], tree.node(mapped[d.parent]).function, total[i], syms, clock, sites);
    Metrics m = metrics_of(src, i, clock);
    // The runtime keeps the first call site of each path: its kind stands for the path's.
    if (syms.indirect_call(d.callsite & ~wire::kCallsiteInlined)) m[Metric::IndirectCalls] = d.calls;
    tree.base(mapped[i]).merge(m);
  }
  if (!src.metrics.empty() && !mapped.empty() && mapped[0] == kRootNode)
    tree.base(kRootNode).merge(metrics_of(src, 0, clock));
}

// Calls of removed folded functions through their counting stubs: counted per function, on
// no path, so they go under one "[unhooked calls]" node at the root, untimed (their time is
// in their callers' self).
void add_unhooked_calls(const RawThread& t, ProcessSymbols& syms, CallTree& tree) {
  if (t.unhooked.empty()) return;
  const NodeId at = tree.child(kRootNode, syms.unhooked_calls());
  for (const wire::DumpUnhookedCalls& u : t.unhooked) {
    MetricRowRef m = tree.base(tree.child(at, syms.function(u.fn)));
    m[Metric::Calls] += u.calls;
    m[Metric::FoldedCalls] += u.calls;
  }
}

CallTree build_tree(RawThread& t, ProcessSymbols& syms, const Clock& clock, std::vector<NodeId>& mapped,
                    CallSiteSet& sites) {
  CallTree tree;
  tree.reserve(t.nodes.size() + t.interrupts.size());  // a dump node is at most one tree node
  sites.reserve(t.nodes.size() + t.sites.size());
  mapped.assign(t.nodes.size(), kNoNode);
  mapped[0] = kRootNode;
  std::vector<uint64_t> folded = folded_calls(t);  // of the calls the runtime counted
  close_open_frames(t);
  std::stable_sort(t.sites.begin(), t.sites.end(), [](const auto& a, const auto& b) { return a.node < b.node; });
  add_nodes(NodeSource{t.nodes, t.metrics, t.info.offcpu_state == wire::kOffCpuMeasured, std::move(folded), t.sites},
            syms, clock, tree, mapped, sites);
  // Signal handlers that interrupted a hook: each context node names the main-tree node
  // that was running; graft its calls there (at the root if that path was left out).
  std::vector<NodeId> graft(t.interrupts.size(), kNoNode);
  for (size_t i = 1; i < t.interrupts.size(); ++i) {
    const wire::DumpNode& d = t.interrupts[i];
    if (d.parent != 0) continue;
    uint64_t node = d.fn & ~wire::kInterruptedContext;
    bool known = (d.fn & wire::kInterruptedContext) && node < mapped.size() && mapped[node] != kNoNode;
    graft[i] = known ? mapped[node] : kRootNode;
  }
  add_nodes(NodeSource{t.interrupts, {}, false}, syms, clock, tree, graft, sites);
  add_unhooked_calls(t, syms, tree);
  return tree;
}

// The ring's calls, and the frames still open at the dump (closed at the thread's end),
// on the model's nodes. An event whose node was pruned (and perhaps reused by another
// function) since the call returned cannot be placed: it counts as dropped.
Timeline build_timeline(const RawThread& t, const Clock& clock, const std::vector<NodeId>& mapped) {
  Timeline out;
  out.dropped = t.timeline_info.dropped;
  auto add = [&](uint32_t node, uint64_t fn, uint64_t entry, uint64_t exit) {
    const bool placed = node < t.nodes.size() && t.nodes[node].fn == fn && fn != 0 && mapped[node] != kNoNode &&
                        mapped[node] != kRootNode && exit >= entry;
    if (!placed) return void(++out.dropped);
    out.events.push_back(TimelineEvent{mapped[node], clock.ns(entry), clock.span(exit - entry)});
  };
  out.events.reserve(t.timeline.size() + t.open.size());
  for (const wire::DumpTimelineEvent& e : t.timeline) add(e.node, e.fn, e.entry_tsc, e.exit_tsc);
  for (const wire::DumpOpenFrame& f : t.open) {
    const uint64_t end = std::max(t.info.end_tsc, f.entry_tsc);
    if (f.node < t.nodes.size() && end - f.entry_tsc >= t.timeline_info.min_ticks)
      add(f.node, t.nodes[f.node].fn, f.entry_tsc, end);
  }
  return out;
}

Thread::OffCpu offcpu_state(uint32_t s) {
  if (s == wire::kOffCpuMeasured) return Thread::OffCpu::Measured;
  return s == wire::kOffCpuUnavailable ? Thread::OffCpu::Unavailable : Thread::OffCpu::Off;
}

bool measured(const wire::DumpHookCosts& c) {
  return c.leaf_inner || c.leaf_outer || c.excluded || c.caller || c.recursive;
}

// The constants measured for the compiler that built the program (its executable, the
// first module: an instrumented library of the other compiler gets them too), or the
// other compiler's when the runtime could not measure its. A process whose patched entries
// were recorded has the trampolines' own (measured only then).
void set_hook_costs(const RawProcessDump& d, double ns_per_tick, Process& proc) {
  const std::string compiler = d.modules.empty() ? "" : elf_compiler(d.modules[0].path);
  uint32_t which = compiler == "clang" ? wire::kHooksClang : wire::kHooksGcc;
  if (!measured(d.header.hook_costs[which])) which = 1 - which;
  if (measured(d.header.hook_costs[wire::kHooksPatched])) which = wire::kHooksPatched;
  const wire::DumpHookCosts& c = d.header.hook_costs[which];
  if (!measured(c)) return;
  const double ns = ns_per_tick / double(wire::kHookCostScale);
  proc.hook_inner_ns = double(c.leaf_inner) * ns;
  proc.hook_outer_ns = double(c.leaf_outer) * ns;
  proc.excluded_hook_ns = double(c.excluded) * ns;
  proc.folded_hook_ns = double(c.folded) * ns;
  proc.hook_caller_ns = double(c.caller) * ns;
  proc.hook_recursive_ns = double(c.recursive) * ns;
  proc.hook_compiler = which == wire::kHooksPatched ? "patched" : which == wire::kHooksClang ? "clang" : "gcc";
}

// The step at which patching a program's entries stopped, and its error.
std::string unpatched_cause(uint32_t step, const std::string& error) {
  switch (step) {
    case wire::kPatchStepTaskList:
      return "the runtime could not count the process's threads in /proc/self/task: " + error;
    case wire::kPatchStepOtherThreads:
      return "other threads were already running when the runtime started";
    case wire::kPatchStepUnwinder:
      return "the unwinder's GOT entries could not be redirected: " + error;
    default:
      return "the system refused writable code: " + error;
  }
}

// Why a program built with -fpatchable-function-entry recorded no call of its own.
std::string unpatched_warning(const wire::DumpHeader& h) {
  // The code comes from an untrusted dump: widen before negating, and name only real errno values.
  const int64_t error = -int64_t(h.entries_patched);
  const std::string text =
      error > 0 && error < 4096 ? std::strerror(int(error)) : fmt::format("code {}", h.entries_patched);
  return fmt::format(
      "process {}: its -fpatchable-function-entry nops were not made calls ({}), so none of its "
      "calls was recorded",
      h.pid, unpatched_cause(h.patch_step, text));
}

void add_process(RawProcessDump& d, size_t dump, double rate, ProcessSymbols& syms, BuildResult& out) {
  Clock clock{d.header, rate};
  Profile& p = out.profile;
  Process proc;
  proc.pid = d.header.pid;
  proc.ppid = d.header.ppid;
  proc.image = d.image;
  proc.command = join(d.argv);
  proc.start_ns = clock.ns(d.header.tsc_start);
  proc.end_ns = clock.ns(d.header.tsc_end);
  proc.death_signal = int(d.header.death_signal);
  proc.complete = d.header.snapshot_seq == 0;
  set_hook_costs(d, rate, proc);
  proc.auto_fold_ns = double(d.header.auto_fold_ticks) * rate;
  proc.hook_removal = d.header.hook_removal != 0;
  proc.rewritten_sites = d.header.rewritten_sites;
  proc.rewrite_refused_errno = int(d.header.rewrite_refused_errno);
  proc.counting_sites = d.header.counted_sites;
  proc.uncounted_sites = d.header.uncounted_sites;
  proc.counts_unhooked_calls = (d.header.flags & wire::kDumpCountsUnhookedCalls) != 0;
  for (const wire::DumpRemovedFunction& r : d.removed)
    proc.removed_hooks.push_back(
        {syms.function(r.fn), clock.ns(r.tsc), (r.flags & wire::kRemovedInlinedCopiesUncounted) != 0});
  if (d.header.entries_patched < 0) out.warnings.push_back(unpatched_warning(d.header));
  uint64_t sites_lost = 0;
  for (const RawThread& rt : d.threads) sites_lost += rt.info.call_sites_lost;
  if (sites_lost > 0)
    out.warnings.push_back(
        fmt::format("pid {}: {} calls were made from a call site with no room left to tell it "
                    "apart; the lines view counts them on their path's first call site",
                    d.header.pid, sites_lost));
  p.processes.push_back(std::move(proc));
  std::map<uint32_t, const RawThread*> by_tid;
  size_t first = p.threads.size();
  for (RawThread& rt : d.threads) {
    Thread t;
    t.tid = rt.info.tid;
    t.pid = d.header.pid;
    t.name.assign(rt.info.name, strnlen(rt.info.name, sizeof rt.info.name));
    t.start_routine = rt.info.start_routine ? syms.function(rt.info.start_routine) : kNoFunction;
    t.start_ns = clock.ns(rt.info.start_tsc);
    t.end_ns = clock.ns(rt.info.end_tsc);
    t.finished = rt.info.finished != 0;
    t.dropped_calls = rt.info.dropped_calls;
    t.depth_limited_calls = rt.info.depth_limited_calls;
    t.short_calls = rt.info.short_calls;
    t.lost_events = rt.info.lost_events;
    t.prunes = rt.info.prunes;
    t.offcpu = offcpu_state(rt.info.offcpu_state);
    out.unmatched_exits += rt.info.unmatched_exits;
    std::vector<NodeId> mapped;
    CallSiteSet sites;
    t.tree = build_tree(rt, syms, clock, mapped, sites);
    sites.move_into(t.code);
    if (t.start_routine != kNoFunction) t.start_routine = thread_callable(t.tree, t.start_routine, p.functions);
    if (rt.has_timeline) t.timeline = build_timeline(rt, clock, mapped);
    ThreadNodes& nodes = out.thread_nodes.emplace_back();
    nodes.thread = p.threads.size();
    nodes.dump = dump;
    nodes.pid = t.pid;
    nodes.tid = t.tid;
    nodes.image_start_ns = p.processes.back().start_ns;
    nodes.node = std::move(mapped);
    nodes.fn.reserve(rt.nodes.size());
    for (const wire::DumpNode& d : rt.nodes) nodes.fn.push_back(d.fn);
    nodes.attach_top = rt.attach_top;
    by_tid[t.tid] = &rt;
    p.threads.push_back(std::move(t));
  }
  // Creation paths refer to nodes of the creating thread in the same process.
  for (size_t i = first; i < p.threads.size(); ++i) {
    const RawThread& rt = *by_tid[p.threads[i].tid];
    auto creator = by_tid.find(rt.info.creator_tid);
    if (rt.info.creator_tid == 0 || creator == by_tid.end()) continue;
    p.threads[i].creator_tid = rt.info.creator_tid;
    const RawThread& ct = *creator->second;
    if (rt.info.creator_node >= ct.nodes.size()) continue;
    std::vector<FunctionId> path;
    for (uint32_t n = rt.info.creator_node; n != 0 && ct.nodes[n].fn != 0 && path.size() < ct.nodes.size();
         n = ct.nodes[n].parent)
      path.push_back(syms.function(ct.nodes[n].fn));
    p.threads[i].creator_path.assign(path.rbegin(), path.rend());
  }
  // Images sharing a symbolizer share its warnings: each is said once.
  for (auto& w : syms.warnings())
    if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end()) out.warnings.push_back(w);
}

void add_samples(const std::vector<NodeSample>& samples, const std::vector<std::unique_ptr<ProcessSymbols>>& syms,
                 FunctionTable& table, BuildResult& out) {
  std::map<const ThreadNodes*, std::vector<const NodeSample*>> by_thread;
  for (const NodeSample& s : samples) {
    if (const ThreadNodes* t = thread_nodes_at(out.thread_nodes, s.pid, s.tid, s.time_ns))
      by_thread[t].push_back(&s);
    else
      out.samples.unplaced += s.count;
  }
  const NodeSampleNames names{table.named("[kernel]", kNoModule, 0, FunctionKind::Kernel),
                              table.named("[unknown]", kNoModule, 0)};
  for (const auto& [t, list] : by_thread) hang_node_samples(list, *t, *syms[t->dump], out.profile, names, out.samples);
}

}  // namespace

NodeId ThreadNodes::placed(uint32_t at, uint64_t at_fn) const {
  if (at_fn == 0) {
    const bool top = attach_top != 0 && attach_top < node.size() && node[attach_top] != kNoNode;
    return top ? node[attach_top] : kRootNode;
  }
  return at < node.size() && fn[at] == at_fn ? node[at] : kNoNode;
}

const ThreadNodes* thread_nodes_at(const std::vector<ThreadNodes>& nodes, uint32_t pid, uint32_t tid, int64_t at) {
  const ThreadNodes *latest_before = nullptr, *earliest = nullptr;
  for (const ThreadNodes& t : nodes) {
    if (t.pid != pid || t.tid != tid) continue;
    if (t.image_start_ns <= at && (!latest_before || t.image_start_ns > latest_before->image_start_ns))
      latest_before = &t;
    if (!earliest || t.image_start_ns < earliest->image_start_ns) earliest = &t;
  }
  return latest_before ? latest_before : earliest;
}

double ns_per_tick(const std::vector<RawProcessDump>& dumps) {
  double best_span = 0, rate = 0;
  for (const auto& d : dumps) {
    const auto& h = d.header;
    if (h.tsc_end <= h.tsc_start || h.mono_end_ns <= h.mono_start_ns) continue;
    double span = double(h.mono_end_ns - h.mono_start_ns);
    if (span > best_span) {
      best_span = span;
      rate = span / double(h.tsc_end - h.tsc_start);
    }
  }
  return rate;
}

BuildResult build_profile(std::vector<RawProcessDump> dumps, const std::vector<NodeSample>& samples) {
  BuildResult out;
  FunctionTable table(out.profile);
  double rate = ns_per_tick(dumps);
  if (rate == 0) {
    out.warnings.push_back("no usable clock calibration in the data: times are in TSC ticks, not ns");
    rate = 1.0;
  }
  SymbolizerCache symbolizers;
  std::vector<std::unique_ptr<ProcessSymbols>> syms;
  for (size_t i = 0; i < dumps.size(); ++i) {
    syms.push_back(std::make_unique<ProcessSymbols>(dumps[i], table, symbolizers));
    add_process(dumps[i], i, rate, *syms.back(), out);
  }
  if (!samples.empty()) add_samples(samples, syms, table, out);
  for (const auto& d : dumps)
    for (const RawThread& t : d.threads)
      if (t.has_timeline) {
        auto& facts = out.profile.meta.timeline;
        TimelineFacts& f = facts ? *facts : facts.emplace();
        f.capacity = std::max<uint64_t>(f.capacity, t.timeline_info.capacity);
      }
  // The runtime's count of exit hooks that found no matching entry (see docs/modes.md).
  if (out.unmatched_exits > 0) out.profile.meta.exact.emplace().unmatched_exits = out.unmatched_exits;
  return out;
}

}  // namespace callprof
