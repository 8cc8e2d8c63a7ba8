#include "collect/stacks/sample_collector.h"

#include <algorithm>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "collect/stacks/frame_names.h"
#include "collect/stacks/function_table.h"
#include "collect/stacks/kernel_symbols.h"
#include "collect/stacks/stack_roots.h"
#include "util/clock.h"

namespace callprof::stacks {

SampleCollector::SampleCollector(perf::UnwindMode method, std::unique_ptr<AddressSymbols> symbols)
    : method_(method), symbols_(std::move(symbols)) {}
SampleCollector::~SampleCollector() = default;

SampleCollector::ThreadInfo& SampleCollector::thread(uint32_t pid, uint32_t tid, uint64_t time_ns) {
  ThreadInfo& t = threads_[tid];
  t.pid = pid;
  if (t.first_ns == 0 || (time_ns != 0 && time_ns < t.first_ns)) t.first_ns = time_ns;
  t.last_ns = std::max(t.last_ns, time_ns);
  return t;
}

void SampleCollector::add_initial(const std::vector<perf::TaskEvent>& tasks,
                                  const std::vector<perf::Mapping>& mappings) {
  for (perf::TaskEvent t : tasks) on_task(std::move(t));
  for (perf::Mapping m : mappings) on_mapping(std::move(m));
}

void SampleCollector::on_mapping(perf::Mapping&& m) {
  unwinder_.add_mapping(m);
  const uint32_t pid = m.pid;
  const uint64_t time_ns = m.time_ns;
  mappings_[{pid, images_[pid]}].push_back(std::move(m));
  caught_up(pid, time_ns);
}

void SampleCollector::on_task(perf::TaskEvent&& t) {
  switch (t.kind) {
    case perf::TaskEvent::Kind::Fork:
      if (t.pid != t.ppid) {  // a new process starts with its parent's mappings
        unwinder_.fork_process(t.ppid, t.pid);
        parents_[t.pid] = t.ppid;
        mappings_[{t.pid, images_[t.pid]}] = mappings_[{t.ppid, images_[t.ppid]}];
      }
      thread(t.pid, t.tid, t.time_ns);
      break;
    case perf::TaskEvent::Kind::Exec:
      unwinder_.exec_process(t.pid);
      ++images_[t.pid];
      thread(t.pid, t.tid, t.time_ns).name = t.comm;
      break;
    case perf::TaskEvent::Kind::Comm:
      thread(t.pid, t.tid, t.time_ns).name = t.comm;
      break;
    case perf::TaskEvent::Kind::Exit:
      thread(t.pid, t.tid, t.time_ns);
      break;
  }
  caught_up(t.pid, t.time_ns);
}

void SampleCollector::on_sample(perf::Sample&& s) {
  caught_up(s.pid, s.time_ns);
  const uint64_t start = monotonic_ns();
  ThreadInfo& t = thread(s.pid, s.tid, s.time_ns);
  const bool dwarf = method_ == perf::UnwindMode::Dwarf && s.has_user_regs;
  unwinder_.unwind(s, dwarf ? perf::UnwindMode::Dwarf : perf::UnwindMode::FramePointers, scratch_);
  if (!scratch_.complete()) ++counts_.incomplete_stacks;
  const uint64_t weight = s.switch_out ? 0 : sample_weight_ns_ ? sample_weight_ns_ : s.period;
  Stack stack{s.pid,        s.tid,     images_[s.pid],     weight, uint32_t(pcs_.size()), 0,
              s.switch_out, s.time_ns, scratch_.complete()};
  for (auto f = scratch_.frames.rbegin(); f != scratch_.frames.rend(); ++f) pcs_.push_back(f->lookup_address());
  // Kernel frames are deeper than every user frame; each but the innermost is a return address.
  for (size_t i = s.kernel_chain.size(); i-- > 0;) pcs_.push_back(i == 0 ? s.kernel_chain[i] : s.kernel_chain[i] - 1);
  stack.count = uint32_t(pcs_.size() - stack.first);
  if (s.switch_out) {
    ++counts_.off_cpu_samples;
    t.pending_off_cpu = int64_t(stacks_.size());
    t.switched_out_ns = s.time_ns;
  } else {
    ++counts_.samples;
  }
  stacks_.push_back(stack);
  counts_.unwind_ns += monotonic_ns() - start;
}

// The switch-out's record and its sample come in either order; both precede the switch-in.
void SampleCollector::on_switch(const perf::SwitchEvent& e) {
  auto it = threads_.find(e.tid);
  if (it == threads_.end()) return;
  ThreadInfo& t = it->second;
  if (e.out) {
    t.out_preempted = e.preempted;
    return;
  }
  if (t.pending_off_cpu < 0) return;
  Stack& s = stacks_[size_t(t.pending_off_cpu)];
  if (e.time_ns > t.switched_out_ns) s.weight_ns = e.time_ns - t.switched_out_ns;
  s.preempted = t.out_preempted;
  t.pending_off_cpu = -1;
}

void SampleCollector::on_lost(const perf::LostEvent& e, perf::LostKind kind) {
  (kind == perf::LostKind::Records ? counts_.lost_records : counts_.lost_samples) += e.lost;
  if (e.tid != 0) thread(e.pid, e.tid, e.time_ns).lost += e.lost;
}

namespace {

// One module per file: its mappings' union, at the load bias of the mapping of offset 0.
// `biases` remembers each mapping's: forked children have their parent's mappings, and
// finding a bias opens the file.
std::vector<LoadedModule> loaded_modules(const std::vector<perf::Mapping>& mappings, LoadBiases& biases,
                                         AddressSymbols& symbols, std::vector<std::string>& warnings) {
  std::map<std::string, LoadedModule> by_path;
  for (const perf::Mapping& m : mappings) {
    if (m.path.empty() || m.path[0] != '/') continue;  // anonymous, [vdso], JIT
    auto [it, added] = by_path.try_emplace(m.path, LoadedModule{m.path, 0, m.start, m.end, m.build_id});
    LoadedModule& lm = it->second;
    lm.start = std::min(lm.start, m.start);
    lm.end = std::max(lm.end, m.end);
    if (!added && lm.bias != 0) continue;
    auto key = std::make_tuple(m.path, m.start, m.pgoff, m.build_id);
    auto known = biases.find(key);
    if (known == biases.end()) known = biases.emplace(std::move(key), symbols.load_bias(m)).first;
    if (known->second)
      lm.bias = *known->second;
    else if (added)
      warnings.push_back(known->second.error().message);
  }
  std::vector<LoadedModule> out;
  for (auto& [path, lm] : by_path) out.push_back(std::move(lm));
  return out;
}

}  // namespace

size_t SampleCollector::name_image(const Image& image, const std::vector<const Stack*>& stacks, FrameNames& names,
                                   FunctionTable& table, AddressSymbols& symbols, std::vector<std::string>& warnings) {
  std::vector<LoadedModule> mods = loaded_modules(mappings_[image], load_biases_, symbols, warnings);
  std::vector<ModuleId> module_ids;
  for (const LoadedModule& m : mods) module_ids.push_back(table.module(m.path, m.build_id));
  // Shared by the images with the same modules at the same addresses (forked children).
  std::string error;
  const std::shared_ptr<ImageSymbols> symbolizer = symbols.image(mods, error);
  if (!error.empty()) warnings.push_back(error);
  const ModuleId kernel_module = table.module("[kernel.kallsyms]", "");
  const size_t index = names.add_image(symbolizer, std::move(module_ids), mappings_[image], kernel_module);
  for (const SyscallPath& c : syscall_paths_)
    if (c.pid == image.first && c.image == image.second)
      for (uint32_t i = 0; i < c.count; ++i) names.add(index, pcs_[c.first + i]);
  for (const MeasuredPath& c : measured_)
    if (c.pid == image.first && c.image == image.second)
      for (uint64_t pc : c.pcs) names.add(index, pc);
  for (const Stack* s : stacks)
    for (uint32_t i = 0; i < s->count; ++i) names.add(index, pcs_[s->first + i]);
  if (symbolizer)
    for (const auto& w : symbolizer->warnings())
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
  return index;
}

namespace {

// The path's leaf node; each frame's node gets its call site, the frame before's location,
// weighed by the path's time (`ns`): a caller calling one function from two lines shares
// the callee's cost among them as the stacks through each did.
NodeId walk(CallTree& tree, std::span<const Frame> path, CallSiteSet& sites, uint64_t ns) {
  NodeId at = kRootNode;
  for (size_t i = 0; i < path.size(); ++i) {
    at = tree.child(at, path[i].function, path[i].inlined);
    if (i > 0) sites.add({at, path[i - 1].location, 0, ns});
  }
  return at;
}

// A thread's tree and where in its functions the costs were, while it is built.
struct ThreadBuild {
  CallTree tree;
  CallSiteSet sites;
  InstructionSums samples;
};

}  // namespace

// A system call's entry stack stops short of the root when the copied window ends and the
// frame-pointer chain breaks in code without frame pointers (glibc's __libc_start_call_main),
// while samples unwound by DWARF, or shallower calls, reach it: the entry stack continues as
// those rooted stacks do through the same return address, when they all agree, so that
// system calls and samples share one tree. pc -> the frames above it (outermost first); a pc
// reached from two different prefixes maps to none.
SampleCollector::RootedPrefixes SampleCollector::rooted_prefixes(const Image& image,
                                                                 const std::vector<const Stack*>& stacks,
                                                                 const FrameNames& names, size_t names_index,
                                                                 const Profile& p) const {
  RootedPrefixes above;
  std::vector<Frame> path;
  std::vector<size_t> pc_of;                  // path's frame -> its pc's index
  std::unordered_set<std::string_view> seen;  // stacks already learnt from (many samples share one)
  const auto learn = [&](std::span<const uint64_t> pcs) {
    if (!seen.insert(std::string_view(reinterpret_cast<const char*>(pcs.data()), pcs.size_bytes())).second) return;
    path.clear();
    pc_of.clear();
    for (size_t j = 0; j < pcs.size(); ++j)
      for (const Frame& f : names.frames(names_index, pcs[j])) path.push_back(f), pc_of.push_back(j);
    const size_t root = root_frame(p, path);
    if (root == kNoRoot) return;
    for (size_t j = pc_of[root] + 1; j < pcs.size(); ++j) {
      const std::span<const uint64_t> prefix = pcs.subspan(pc_of[root], j - pc_of[root]);
      auto [it, added] = above.try_emplace(pcs[j], prefix);
      if (!added && !std::equal(it->second.begin(), it->second.end(), prefix.begin(), prefix.end()))
        it->second = {};  // ambiguous: no prefix
    }
  };
  bool any = false;
  for (const SyscallPath& c : syscall_paths_)
    if (c.pid == image.first && c.image == image.second) {
      any = true;
      learn(std::span<const uint64_t>(pcs_.data() + c.first, c.count));
    }
  if (!any) return above;
  for (const Stack* s : stacks) learn(std::span<const uint64_t>(pcs_.data() + s->first, s->count));
  return above;
}

// Whether `node` is a measured call (probe mode: it has calls) or below one: the call's
// measured time holds whatever a sample there stands for.
bool SampleCollector::inside_measured_call(const CallTree& tree, NodeId node) {
  for (; node != kRootNode; node = tree.node(node).parent)
    if (tree.base(node)[Metric::Calls] > 0) return true;
  return false;
}

void SampleCollector::build_image(const Image& image, size_t names_index, const std::vector<const Stack*>& stacks,
                                  const FrameNames& names, FunctionTable& table, Profile& p) {
  const auto add_frames = [&](std::vector<Frame>& path, uint64_t pc) {
    for (const Frame& f : names.frames(names_index, pc)) path.push_back(f);
  };
  const size_t first_thread = p.threads.size();
  std::map<uint32_t, ThreadBuild> trees;
  std::vector<Frame> path;
  FunctionId truncated = kNoFunction;
  std::vector<NodeId> syscall_nodes(timeline_events_ ? syscall_paths_.size() : 0, kNoNode), stack_nodes;
  const RootedPrefixes rooted = rooted_prefixes(image, stacks, names, names_index, p);
  for (const SyscallPath& c : syscall_paths_) {
    if (c.pid != image.first || c.image != image.second) continue;
    path.clear();
    if (c.count > 0)
      if (auto above = rooted.find(pcs_[c.first]); above != rooted.end())
        for (uint64_t pc : above->second) add_frames(path, pc);
    for (uint32_t i = 0; i < c.count; ++i) add_frames(path, pcs_[c.first + i]);
    path.push_back(
        {table.named(std::string(kSyscallLeafPrefix) + std::string(c.name), kNoModule, 0, FunctionKind::Syscall)});
    ThreadBuild& t = trees[c.tid];
    const NodeId node = walk(t.tree, path, t.sites, c.sums.total_ns);
    if (!syscall_nodes.empty()) syscall_nodes[size_t(&c - syscall_paths_.data())] = node;
    MetricRowRef m = t.tree.base(node);
    c.sums.add_to(m);
    if (syscall_time_is_wall_) m[Metric::WallNs] += c.sums.total_ns;
  }
  // Honest stacks (SPEC §1.2): one that did not reach a root hangs under [truncated], never
  // as if its outermost frame had been called by nobody; frames a chain read past the root
  // are dropped. Returns `weight` when the path is truncated, else 0.
  const auto from_root = [&](uint64_t weight) -> uint64_t {
    if (const size_t root = root_frame(p, path); root != kNoRoot) {
      path.erase(path.begin(), path.begin() + ptrdiff_t(root));
      return 0;
    }
    if (truncated == kNoFunction) truncated = table.named("[truncated]", kNoModule, 0, FunctionKind::Truncated);
    path.insert(path.begin(), Frame{truncated, false});
    return weight;
  };
  for (const MeasuredPath& c : measured_) {
    if (c.pid != image.first || c.image != image.second) continue;
    path.clear();
    for (uint64_t pc : c.pcs) add_frames(path, pc);
    counts_.truncated_measured_calls += from_root(c.calls);
    ThreadBuild& t = trees[c.tid];
    MetricRowRef m = t.tree.base(walk(t.tree, path, t.sites, c.self_ns));
    m[Metric::Calls] += c.calls;
    m[Metric::WallNs] += c.self_ns;
    m[Metric::MinWallNs] = std::min<uint64_t>(m[Metric::MinWallNs], c.min_ns);
    m[Metric::MaxWallNs] = std::max<uint64_t>(m[Metric::MaxWallNs], c.max_ns);
  }
  for (const Stack* s : stacks) {
    path.clear();
    for (uint32_t i = 0; i < s->count; ++i) add_frames(path, pcs_[s->first + i]);
    // A root the unwinder proved by CFI is taken as it is.
    if (!s->root) counts_.truncated_stacks += from_root(1);
    ThreadBuild& t = trees[s->tid];
    const NodeId node = walk(t.tree, path, t.sites, s->weight_ns);
    if (timeline_events_) stack_nodes.push_back(node);
    MetricRowRef m = t.tree.base(node);
    // Inside a probed call the probes measured the time: the sample is a count beside it.
    const bool timed = !inside_measured_call(t.tree, node);
    if (timed) m[Metric::WallNs] += s->weight_ns;
    if (s->off_cpu) {
      if (timed) m[s->preempted ? Metric::PreemptedNs : Metric::OffCpuNs] += s->weight_ns;
    } else {
      m[Metric::Samples] += 1;
      if (timed) m[Metric::CpuNs] += s->weight_ns;
      if (!path.empty() && path.back().location != kNoLocation)
        t.samples.add(node, path.back().location, 1, s->weight_ns);
    }
  }
  for (auto& [tid, build] : trees) {
    Thread t;
    t.tid = tid;
    t.pid = image.first;
    const ThreadInfo& info = threads_[tid];
    t.name = info.name;
    t.start_ns = int64_t(info.first_ns);
    t.end_ns = int64_t(info.last_ns);
    t.finished = true;
    t.lost_events = info.lost;
    for (auto& [nr, stats] : syscall_stats_[{tid, image.second}]) t.syscalls.push_back(stats);
    t.offcpu = counts_.off_cpu_samples > 0 ? Thread::OffCpu::Measured : Thread::OffCpu::Off;
    t.tree = std::move(build.tree);
    build.samples.move_into(t.code);
    build.sites.move_into(t.code);
    p.threads.push_back(std::move(t));
  }
  if (timeline_events_) add_timeline(image, stacks, syscall_nodes, stack_nodes, first_thread, p);
}

// Each of the image's threads (the last ones added to `p`) gets its samples' times (the
// most recent timeline_events_) and its system calls' (kept as they came, bounded).
void SampleCollector::add_timeline(const Image& image, const std::vector<const Stack*>& stacks,
                                   const std::vector<NodeId>& syscall_nodes, const std::vector<NodeId>& stack_nodes,
                                   size_t first_thread, Profile& p) const {
  std::map<uint32_t, Ring<TimelineEvent>> samples;
  for (size_t i = 0; i < stacks.size(); ++i)
    if (stack_nodes[i] != kRootNode)
      samples[stacks[i]->tid].push({stack_nodes[i], int64_t(stacks[i]->time_ns), stacks[i]->weight_ns},
                                   timeline_events_);
  for (size_t k = first_thread; k < p.threads.size(); ++k) {
    Thread& t = p.threads[k];
    Timeline& tl = t.timeline;
    tl = Timeline{};
    if (auto it = samples.find(t.tid); it != samples.end()) {
      tl.events = it->second.items;
      tl.dropped += it->second.dropped;
    }
    if (auto it = syscall_calls_.find(t.tid); it != syscall_calls_.end()) {
      for (const SyscallCall& c : it->second.items) {
        const SyscallPath& path = syscall_paths_[c.path];
        if (path.image != image.second) continue;
        tl.events.push_back({syscall_nodes[c.path], int64_t(c.time_ns), c.duration_ns});
      }
      tl.dropped += it->second.dropped;
    }
  }
  TimelineFacts& facts = p.meta.timeline ? *p.meta.timeline : p.meta.timeline.emplace();
  facts.capacity = timeline_events_;
}

Profile SampleCollector::build(std::vector<std::string>& warnings) {
  while (!waiting_syscalls_.empty()) caught_up(waiting_syscalls_.front().call.pid, UINT64_MAX);  // no more records
  const uint64_t start = monotonic_ns();
  Profile p;
  FunctionTable table(p);
  std::unique_ptr<AddressSymbols> files = symbols_ ? nullptr : file_address_symbols();
  AddressSymbols& symbols = symbols_ ? *symbols_ : *files;
  FrameNames names(p, table, symbols, inlined_frames_);
  counts_.truncated_stacks = 0;
  counts_.truncated_measured_calls = 0;
  std::map<Image, std::vector<const Stack*>> by_image;
  for (const Stack& s : stacks_) by_image[{s.pid, s.image}].push_back(&s);
  for (const SyscallPath& c : syscall_paths_) by_image[{c.pid, c.image}];
  for (const MeasuredPath& c : measured_) by_image[{c.pid, c.image}];
  std::vector<size_t> names_index;
  for (const auto& [image, stacks] : by_image) {
    Process proc;
    proc.pid = image.first;
    proc.image = image.second;
    auto parent = parents_.find(image.first);
    proc.ppid = parent == parents_.end() ? 0 : parent->second;
    auto main_thread = threads_.find(image.first);
    if (main_thread != threads_.end()) {
      proc.command = main_thread->second.name;
      proc.start_ns = int64_t(main_thread->second.first_ns);
      proc.end_ns = int64_t(main_thread->second.last_ns);
    }
    p.processes.push_back(proc);
    names_index.push_back(name_image(image, stacks, names, table, symbols, warnings));
  }
  names.finish();
  size_t k = 0;
  for (const auto& [image, stacks] : by_image) build_image(image, names_index[k++], stacks, names, table, p);
  for (const auto& w : unwinder_.warnings()) warnings.push_back(w);
  counts_.build_ns = monotonic_ns() - start;
  return p;
}

}  // namespace callprof::stacks
