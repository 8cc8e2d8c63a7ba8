// Model <-> payload message. Writing is a field-by-field copy plus the columnar tree layout;
// reading trusts ids only after validate_head() and validate_thread(), and rebuilds each tree
// by appending its nodes in file order (checked once for repeated paths), so its sibling
// links are the model's own.
#include "trace/proto_convert.h"

#include <fmt/format.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <thread>
#include <vector>

#include "model/time_split.h"
#include "trace/container.h"
#include "trace/message_parts.h"
#include "trace/metadata_convert.h"
#include "trace/validate.h"
#include "util/parallel.h"

namespace callprof::trace {
namespace {

template <typename Repeated>
void reserve(Repeated* field, size_t n) {
  if (n <= size_t(INT_MAX)) field->Reserve(int(n));
}

// The file's offcpu_ns is every switched-out interval, preempted ones included, as it was
// before the model kept the wait for a CPU apart (model/metrics.h): files read the same by
// every version. Built before the column is judged empty: a tree whose switched-out time
// was all preempted has an offcpu_ns column all the same. Empty: neither metric.
std::vector<uint64_t> switched_out_column(const MetricTable& base) {
  if (!base.has(Metric::OffCpuNs) && !base.has(Metric::PreemptedNs)) return {};
  std::vector<uint64_t> out(base.size(), 0);
  for (Metric m : {Metric::OffCpuNs, Metric::PreemptedNs}) {  // switched_out_ns(), a column at a time
    if (!base.has(m)) continue;
    const std::span<const uint64_t> values = base.column(m);
    for (size_t i = 0; i < values.size(); ++i) out[i] += values[i];
  }
  return out;
}

// The reader's side: the file's offcpu_ns back into blocked and preempted time.
void exclude_preempted(MetricTable& base) {
  if (!base.has(Metric::OffCpuNs) || !base.has(Metric::PreemptedNs)) return;
  std::span<uint64_t> preempted = base.column(Metric::PreemptedNs);
  std::span<uint64_t> offcpu = base.column(Metric::OffCpuNs);
  for (size_t i = 0; i < offcpu.size(); ++i) {
    const OffCpuParts parts = split_switched_out(offcpu[i], preempted[i]);
    offcpu[i] = parts.blocked;
    preempted[i] = parts.preempted;
  }
}

void put_tree(const CallTree& tree, file::CallTree* out) {
  const std::span<const CallNode> nodes = tree.nodes();
  reserve(out->mutable_parent(), nodes.size());
  reserve(out->mutable_function(), nodes.size());
  for (const CallNode& node : nodes) {
    out->add_parent(node.parent);
    out->add_function(node.function);
  }
  for (NodeId i = 1; i < nodes.size(); ++i)
    if (nodes[i].inlined) out->add_inlined(i);
  const MetricTable& base = tree.base_table();
  const std::vector<uint64_t> switched_out = switched_out_column(base);
  for (size_t m = 0; m < kMetricCount; ++m) {  // in the metrics' order: the file's bytes do not depend on history
    const Metric metric = Metric(m);
    if (metric != Metric::OffCpuNs && !base.has(metric)) continue;
    const std::span<const uint64_t> values =
        metric == Metric::OffCpuNs ? std::span<const uint64_t>(switched_out) : base.column(metric);
    if (std::all_of(values.begin(), values.end(), [&](uint64_t v) { return v == default_value(metric); })) continue;
    file::MetricColumn* column = out->add_metrics();
    column->set_name(std::string(kMetricInfo[m].name));
    column->mutable_values()->Add(values.begin(), values.end());
  }
}

void put_syscall(const SyscallStats& s, file::Syscall* out) {
  out->set_name(s.name);
  out->set_number(s.number);
  out->set_calls(s.calls);
  out->set_errors(s.errors);
  out->set_total_ns(s.total_ns);
  out->set_min_ns(s.calls ? s.min_ns : 0);
  out->set_max_ns(s.max_ns);
  for (auto [err, calls] : s.errnos) {
    file::ErrnoCount* e = out->add_errnos();
    e->set_errno_value(err);
    e->set_calls(calls);
  }
  for (auto [bucket, calls] : s.durations.counts()) {
    out->add_duration_buckets(bucket);
    out->add_duration_counts(calls);
  }
}

void put_timeline(const Timeline& timeline, file::Timeline* out) {
  const int n = int(timeline.events.size());
  out->mutable_node()->Reserve(n);
  out->mutable_start_ns()->Reserve(n);
  out->mutable_duration_ns()->Reserve(n);
  for (const TimelineEvent& e : timeline.events) {
    out->add_node(e.node);
    out->add_start_ns(e.start_ns);
    out->add_duration_ns(e.duration_ns);
  }
  out->set_dropped(timeline.dropped);
}

Timeline take_timeline(const file::Timeline& in) {
  Timeline t;
  t.dropped = in.dropped();
  t.events.reserve(size_t(in.node_size()));
  for (int i = 0; i < in.node_size(); ++i) t.events.push_back({in.node(i), in.start_ns(i), in.duration_ns(i)});
  return t;
}

void put_code(const CodeCosts& code, file::CodeCosts* out) {
  for (const InstructionSamples& i : code.instructions) {
    out->add_sample_node(i.node);
    out->add_sample_location(i.location);
    out->add_samples(i.samples);
    out->add_cpu_ns(i.cpu_ns);
  }
  bool weighed = false;
  for (const CallSite& c : code.call_sites) {
    out->add_site_node(c.node);
    out->add_site_location(c.location);
    weighed = weighed || c.calls != 0 || c.wall_ns != 0;
  }
  if (!weighed) return;
  for (const CallSite& c : code.call_sites) {
    out->add_site_calls(c.calls);
    out->add_site_wall_ns(c.wall_ns);
  }
}

// Validated before (validate.cpp): equal columns, nodes and locations in range.
CodeCosts take_code(const file::CodeCosts& in) {
  CodeCosts code;
  code.instructions.reserve(size_t(in.sample_node_size()));
  for (int i = 0; i < in.sample_node_size(); ++i)
    code.instructions.push_back({in.sample_node(i), in.sample_location(i), in.samples(i), in.cpu_ns(i)});
  code.call_sites.reserve(size_t(in.site_node_size()));
  const bool weighed = in.site_calls_size() == in.site_node_size();
  for (int i = 0; i < in.site_node_size(); ++i)
    code.call_sites.push_back(
        {in.site_node(i), in.site_location(i), weighed ? in.site_calls(i) : 0, weighed ? in.site_wall_ns(i) : 0});
  return code;
}

void put_thread(const Thread& thread, file::Thread* out) {
  out->set_tid(thread.tid);
  out->set_pid(thread.pid);
  out->set_name(thread.name);
  out->set_creator_tid(thread.creator_tid);
  for (FunctionId f : thread.creator_path) out->add_creator_path(f);
  out->set_start_routine(thread.start_routine);
  out->set_start_ns(thread.start_ns);
  out->set_end_ns(thread.end_ns);
  out->set_finished(thread.finished);
  out->set_dropped_calls(thread.dropped_calls);
  put_tree(thread.tree, out->mutable_tree());
  out->set_depth_limited_calls(thread.depth_limited_calls);
  out->set_short_calls(thread.short_calls);
  out->set_lost_events(thread.lost_events);
  out->set_prunes(thread.prunes);
  out->set_offcpu(file::OffCpu(thread.offcpu));
  for (const SyscallStats& s : thread.syscalls) put_syscall(s, out->add_syscalls());
  out->set_host(thread.host);
  if (!thread.timeline.events.empty() || thread.timeline.dropped)
    put_timeline(thread.timeline, out->mutable_timeline());
  if (!thread.code.empty()) put_code(thread.code, out->mutable_code());
}

void put_process(const Process& p, file::Process* out) {
  out->set_pid(p.pid);
  out->set_ppid(p.ppid);
  out->set_command(p.command);
  out->set_start_ns(p.start_ns);
  out->set_end_ns(p.end_ns);
  out->set_image(p.image);
  out->set_death_signal(p.death_signal);
  out->set_incomplete(!p.complete);
  out->set_hook_inner_ns(p.hook_inner_ns);
  out->set_hook_outer_ns(p.hook_outer_ns);
  out->set_excluded_hook_ns(p.excluded_hook_ns);
  out->set_hook_caller_ns(p.hook_caller_ns);
  out->set_hook_recursive_ns(p.hook_recursive_ns);
  out->set_hook_compiler(p.hook_compiler);
  out->set_folded_hook_ns(p.folded_hook_ns);
  out->set_auto_fold_ns(p.auto_fold_ns);
  out->set_hook_removal(p.hook_removal);
  out->set_rewritten_sites(p.rewritten_sites);
  out->set_rewrite_refused_errno(p.rewrite_refused_errno);
  out->set_counting_sites(p.counting_sites);
  out->set_uncounted_sites(p.uncounted_sites);
  out->set_counts_unhooked_calls(p.counts_unhooked_calls);
  for (const Process::RemovedHooks& r : p.removed_hooks) {
    file::RemovedHooks* m = out->add_removed_hooks();
    m->set_function(r.function);
    m->set_at_ns(r.at_ns);
    m->set_inlined_copies_uncounted(r.inlined_copies_uncounted);
  }
  out->set_host(p.host);
}

Process take_process(const file::Process& in) {
  Process p;
  p.pid = in.pid();
  p.ppid = in.ppid();
  p.image = in.image();
  p.command = in.command();
  p.start_ns = in.start_ns();
  p.end_ns = in.end_ns();
  p.death_signal = in.death_signal();
  p.complete = !in.incomplete();
  p.hook_inner_ns = in.hook_inner_ns();
  p.hook_outer_ns = in.hook_outer_ns();
  p.excluded_hook_ns = in.excluded_hook_ns();
  p.hook_caller_ns = in.hook_caller_ns();
  p.hook_recursive_ns = in.hook_recursive_ns();
  p.hook_compiler = in.hook_compiler();
  p.folded_hook_ns = in.folded_hook_ns();
  p.auto_fold_ns = in.auto_fold_ns();
  p.hook_removal = in.hook_removal();
  p.rewritten_sites = in.rewritten_sites();
  p.rewrite_refused_errno = in.rewrite_refused_errno();
  p.counting_sites = in.counting_sites();
  p.uncounted_sites = in.uncounted_sites();
  p.counts_unhooked_calls = in.counts_unhooked_calls();
  for (const file::RemovedHooks& r : in.removed_hooks())
    p.removed_hooks.push_back({r.function(), r.at_ns(), r.inlined_copies_uncounted()});
  p.host = in.host();
  return p;
}

Thread::OffCpu take_offcpu(int value) {
  switch (value) {
    case file::OFFCPU_OFF:
      return Thread::OffCpu::Off;
    case file::OFFCPU_MEASURED:
      return Thread::OffCpu::Measured;
    default:
      return Thread::OffCpu::Unavailable;  // incl. values of a newer writer
  }
}

// Per node, whether it is listed as inlined (validated: listed indexes are nodes).
std::vector<bool> inlined_nodes(const file::PackedCallTree& in) {
  std::vector<bool> out(size_t(in.parent_size()), false);
  for (uint32_t node : in.inlined())
    if (node < out.size()) out[node] = true;
  return out;
}

// The first node that repeats an earlier node's (parent, function, inlined), as (earlier,
// later); a file must not hold one path twice. Sorting the keys costs a fraction of indexing them.
std::optional<std::pair<int, int>> repeated_path(const file::PackedCallTree& in) {
  const std::vector<bool> inlined = inlined_nodes(in);
  using Key = std::pair<uint64_t, bool>;
  auto key = [&](int i) { return Key{(uint64_t(in.parent(i)) << 32) | in.function(i), inlined[size_t(i)]}; };
  std::vector<Key> keys;
  keys.reserve(size_t(in.parent_size()));
  for (int i = 1; i < in.parent_size(); ++i) keys.push_back(key(i));
  std::sort(keys.begin(), keys.end());
  const auto twice = std::adjacent_find(keys.begin(), keys.end());
  if (twice == keys.end()) return std::nullopt;
  int first = -1;
  for (int i = 1; i < in.parent_size(); ++i) {
    if (key(i) != *twice) continue;
    if (first >= 0) return std::pair{first, i};
    first = i;
  }
  return std::nullopt;
}

// Whether a node has two children of the same function (and inlined flag): one pass over the
// child lists with the last parent seen per function, where sorting every node's key
// (repeated_path) cost more than building the tree. Functions are validated table ids.
bool has_repeated_child(const CallTree& tree) {
  FunctionId max_id = 0;
  for (const CallNode& n : tree.nodes().subspan(1)) max_id = std::max(max_id, n.function);
  std::vector<NodeId> called(size_t(max_id) + 1, kNoNode), inlined(size_t(max_id) + 1, kNoNode);
  for (NodeId p = 0; p < tree.size(); ++p)
    for (NodeId c = tree.node(p).first_child; c != kNoNode; c = tree.node(c).next_sibling) {
      NodeId& last_parent = (tree.node(c).inlined ? inlined : called)[tree.node(c).function];
      if (last_parent == p) return true;
      last_parent = p;
    }
  return false;
}

// Requires a validated tree: parents precede children and columns match the node count.
// Each metric column is decoded from its packed bytes straight into the model's array, and
// the bytes are freed at once: the next column's array can then reuse their memory.
// Whether the reader leaves `metric` out: as `skip` asks, except preempted_ns while offcpu_ns
// is read, since the file's offcpu_ns includes it and the reader subtracts it
// (exclude_preempted): without it the model's off-CPU time would silently keep the wait.
bool skipped(std::span<const Metric> skip, Metric metric) {
  const auto asked = [&](Metric m) { return std::find(skip.begin(), skip.end(), m) != skip.end(); };
  if (metric == Metric::PreemptedNs && !asked(Metric::OffCpuNs)) return false;
  return asked(metric);
}

Result<CallTree> take_tree(file::PackedCallTree& in, std::string_view where, std::span<const Metric> skip) {
  const std::vector<bool> inlined = inlined_nodes(in);
  CallTree tree;
  tree.reserve(size_t(in.parent_size()));
  for (int i = 1; i < in.parent_size(); ++i) tree.append(in.parent(i), in.function(i), inlined[size_t(i)]);
  if (has_repeated_child(tree))
    if (auto twice = repeated_path(in))  // the first repeated key, as the message has always named it
      return make_error(fmt::format("invalid ({}: node {} repeats node {}: same parent {} and function {})", where,
                                    twice->second, twice->first, in.parent(twice->first), in.function(twice->first)));
  for (file::PackedMetricColumn& column : *in.mutable_metrics()) {
    const Metric metric = metric_named(column.name());
    const bool wanted = metric != Metric::kCount && !skipped(skip, metric);
    if (wanted && !decode_packed_varints(column.values(), tree.base_table().column_to_overwrite(metric)))
      return make_error(fmt::format("invalid ({}: metric column {} holds a malformed value)", where, column.name()));
    std::string().swap(*column.mutable_values());
  }
  exclude_preempted(tree.base_table());
  return tree;
}

// Validated before (validate.cpp): counts add up, buckets increase.
SyscallStats take_syscall(const file::Syscall& in) {
  SyscallStats s;
  s.name = in.name();
  s.number = in.number();
  s.calls = in.calls();
  s.errors = in.errors();
  s.total_ns = in.total_ns();
  s.min_ns = in.calls() ? in.min_ns() : UINT64_MAX;
  s.max_ns = in.max_ns();
  for (const file::ErrnoCount& e : in.errnos()) s.errnos[e.errno_value()] += e.calls();
  for (int i = 0; i < in.duration_buckets_size(); ++i)
    s.durations.counts()[in.duration_buckets(i)] = in.duration_counts(i);
  return s;
}

Result<Thread> take_thread(file::Thread& in, file::PackedCallTree& tree_in, size_t index,
                           std::span<const Metric> skip_metrics) {
  Thread thread;
  thread.tid = in.tid();
  thread.pid = in.pid();
  thread.host = in.host();
  thread.name = in.name();
  thread.creator_tid = in.creator_tid();
  thread.creator_path.assign(in.creator_path().begin(), in.creator_path().end());
  thread.start_routine = in.start_routine();
  thread.start_ns = in.start_ns();
  thread.end_ns = in.end_ns();
  thread.finished = in.finished();
  thread.dropped_calls = in.dropped_calls();
  thread.depth_limited_calls = in.depth_limited_calls();
  thread.short_calls = in.short_calls();
  thread.lost_events = in.lost_events();
  thread.prunes = in.prunes();
  thread.offcpu = take_offcpu(in.offcpu());
  Result<CallTree> tree = take_tree(tree_in, thread_label(index, in.tid()), skip_metrics);
  if (!tree) return tree.error();
  thread.tree = std::move(tree).value();
  for (const file::Syscall& s : in.syscalls()) thread.syscalls.push_back(take_syscall(s));
  if (in.has_timeline()) thread.timeline = take_timeline(in.timeline());
  if (in.has_code()) thread.code = take_code(in.code());
  return thread;
}

}  // namespace

namespace {

// Everything but the threads.
void put_head(const Profile& profile, file::Profile& out) {
  put_metadata(profile.meta, out.mutable_metadata());
  for (const Module& m : profile.modules) {
    file::Module* module = out.add_modules();
    module->set_path(m.path);
    module->set_build_id(m.build_id);
  }
  for (const Function& f : profile.functions) {
    file::Function* function = out.add_functions();
    function->set_name(f.name);
    function->set_linkage_name(f.linkage_name);
    function->set_module(f.module);
    function->set_address(f.address);
    function->set_file(f.file);
    function->set_line(f.line);
    function->set_kind(to_proto(f.kind));
  }
  for (const Process& p : profile.processes) put_process(p, out.add_processes());
  for (const CodeLocation& l : profile.locations) {
    file::Location* location = out.add_locations();
    location->set_function(l.function);
    location->set_address(l.address);
    location->set_file(l.file);
    location->set_line(l.line);
  }
  for (const std::string& f : profile.source_files) out.add_source_files(f);
}

// `threads` is the last field of Profile: a message's fields are written in number order,
// so the head's bytes followed by each thread as a length-delimited field 5 are the bytes
// of the whole message.
static_assert(file::Profile::kThreadsFieldNumber == 5 && file::Profile::kProcessesFieldNumber == 4);
constexpr uint8_t kThreadTag = (5 << 3) | 2;  // field 5, wire type LEN

}  // namespace

file::Profile to_proto(const Profile& profile) {
  file::Profile out;
  put_head(profile, out);
  for (const Thread& t : profile.threads) put_thread(t, out.add_threads());
  return out;
}

Status serialize_payload(const Profile& profile, ByteBuffer& out) {
  // The head on an arena: its names and paths, a few thousand strings copied in, are
  // dropped at once (built and freed on the heap they were a third of the payload's cost).
  google::protobuf::Arena arena;
  file::Profile& head = *google::protobuf::Arena::CreateMessage<file::Profile>(&arena);
  put_head(profile, head);
  uint64_t total = head.ByteSizeLong();
  if (total <= kMaxPayloadSize) head.SerializeWithCachedSizesToArray(out.extend(total));
  file::Thread message;  // reused: its fields keep their room from one thread to the next
  for (const Thread& t : profile.threads) {
    message.Clear();
    put_thread(t, &message);
    const size_t size = message.ByteSizeLong();
    const size_t field = 1 + google::protobuf::io::CodedOutputStream::VarintSize64(size) + size;
    total += field;
    if (total > kMaxPayloadSize) continue;  // counted on, for the message
    uint8_t* at = out.extend(field);
    *at++ = kThreadTag;
    at = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(size, at);
    message.SerializeWithCachedSizesToArray(at);
  }
  if (total > kMaxPayloadSize)
    return make_error(
        fmt::format("profile too large for the file format ({} bytes, the limit is {})", total, kMaxPayloadSize));
  return Ok{};
}

namespace {

TableSizes table_sizes(const Profile& p) { return {p.functions.size(), p.locations.size()}; }

Error corrupted() { return make_error("corrupted (the payload is not a valid profile message)"); }

// Each thread is parsed, checked and taken on its own, its message dropped as soon as it
// is taken: the whole message is never held.
Result<Thread> read_thread(std::span<const uint8_t> bytes, size_t index, const TableSizes& tables,
                           std::span<const Metric> skip_metrics) {
  std::optional<ThreadMessage> message = parse_thread_message(bytes);
  if (!message) return corrupted();
  if (Status s = validate_thread(message->thread, message->tree, index, tables); !s) return s.error();
  return take_thread(message->thread, message->tree, index, skip_metrics);
}

// Messages [first, end) read in parallel.
std::vector<std::optional<Result<Thread>>> read_range(const Profile& profile,
                                                      std::span<const std::span<const uint8_t>> messages, size_t first,
                                                      size_t end, std::span<const Metric> skip_metrics) {
  std::vector<std::optional<Result<Thread>>> threads(end - first);
  parallel_for(threads.size(), [&](size_t k) {
    threads[k].emplace(read_thread(messages[first + k], first + k, table_sizes(profile), skip_metrics));
  });
  return threads;
}

// All threads at once.
Status read_threads(Profile& profile, std::span<const std::span<const uint8_t>> messages,
                    std::span<const Metric> skip_metrics) {
  std::vector<std::optional<Result<Thread>>> threads = read_range(profile, messages, 0, messages.size(), skip_metrics);
  profile.threads.reserve(threads.size());
  for (std::optional<Result<Thread>>& thread : threads) {
    if (!*thread) return thread->error();
    profile.threads.push_back(std::move(*thread).value());
  }
  return Ok{};
}

// Threads go to the sink in batches of consecutive messages of up to this many bytes
// together (a larger message alone): one batch is read on another core while the sink
// takes the one before. A profile of 20,000 processes has 40,000 small threads: a reader
// started per thread would cost more than reading them.
constexpr size_t kBatchBytes = size_t(1) << 20;

// Where each batch of messages ends.
std::vector<size_t> batch_ends(std::span<const std::span<const uint8_t>> messages) {
  std::vector<size_t> ends;
  size_t bytes = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i > 0 && bytes + messages[i].size() > kBatchBytes) {
      ends.push_back(i);
      bytes = 0;
    }
    bytes += messages[i].size();
  }
  if (!messages.empty()) ends.push_back(messages.size());
  return ends;
}

// One thread at a time into `sink`, in order, the next batch read meanwhile (two batches'
// trees at most at once).
Status read_threads_into(Profile& profile, std::span<const std::span<const uint8_t>> messages,
                         std::span<const Metric> skip_metrics, ThreadSink& sink) {
  size_t nodes = 0;  // a malformed message counts none here, and fails in order when read
  for (std::span<const uint8_t> m : messages) nodes += thread_node_count(m).value_or(0);
  if (!sink.begin(profile, messages.size(), nodes)) return read_threads(profile, messages, skip_metrics);
  profile.threads.reserve(messages.size());
  const std::vector<size_t> ends = batch_ends(messages);
  auto read_batch = [&](size_t b, std::vector<std::optional<Result<Thread>>>& out) {
    out = read_range(profile, messages, b ? ends[b - 1] : 0, ends[b], skip_metrics);
  };
  std::vector<std::optional<Result<Thread>>> batch, next;
  if (!ends.empty()) read_batch(0, batch);
  for (size_t b = 0; b < ends.size(); ++b) {
    std::thread reader;
    if (b + 1 < ends.size()) reader = std::thread([&, b] { read_batch(b + 1, next); });
    Status taken = Ok{};
    for (std::optional<Result<Thread>>& thread : batch) {
      if (!*thread) {
        taken = thread->error();
        break;
      }
      const size_t index = profile.threads.size();
      sink.take(profile, index, **thread);
      profile.threads.push_back(std::move(*thread).value());
    }
    if (reader.joinable()) reader.join();
    if (!taken) return taken.error();
    batch = std::move(next);
    next.clear();
  }
  return Ok{};
}

}  // namespace

Result<Profile> parse_payload(std::span<const uint8_t> payload, std::span<const Metric> skip_metrics,
                              ThreadSink* sink) {
  // The threads (field 5) apart from the rest, which parses as the message without them.
  const std::optional<MessageParts> parts = split_message(payload, file::Profile::kThreadsFieldNumber);
  if (!parts) return corrupted();
  file::Profile head;
  if (!head.ParseFromString(parts->rest)) return corrupted();
  if (Status s = validate_head(head); !s) return s.error();
  Profile profile;
  profile.meta = take_metadata(head.metadata());
  profile.modules.reserve(size_t(head.modules_size()));
  for (const file::Module& m : head.modules()) profile.modules.push_back(Module{m.path(), m.build_id()});
  profile.functions.reserve(size_t(head.functions_size()));
  for (const file::Function& f : head.functions())
    profile.functions.push_back(Function{f.name(), f.linkage_name(), f.module(), f.address(), f.file(), f.line(),
                                         take_kind(f.kind(), f.name())});
  profile.processes.reserve(size_t(head.processes_size()));
  for (const file::Process& p : head.processes()) profile.processes.push_back(take_process(p));
  profile.locations.reserve(size_t(head.locations_size()));
  for (const file::Location& l : head.locations())
    profile.locations.push_back({l.function(), l.address(), l.file(), l.line()});
  profile.source_files.assign(head.source_files().begin(), head.source_files().end());
  Status threads = sink ? read_threads_into(profile, parts->field, skip_metrics, *sink)
                        : read_threads(profile, parts->field, skip_metrics);
  if (!threads) return threads.error();
  return profile;
}

}  // namespace callprof::trace
