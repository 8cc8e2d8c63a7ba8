// pprof's profile (go tool pprof, Pyroscope, Parca): a gzipped perftools.profiles.Profile in
// pprof's own schema (Debian's golang-github-google-pprof-dev; C++ generated at build time).
// One sample per call-tree node and selected thread, with the node's own (self) values and
// its path leaf first; one function per callprof function, one location per function, and
// one per inline chain: a function and the frames inlined into it (sampled stacks) are one
// location whose lines list them innermost first, as pprof represents inlining.
//
// Source lines (model/code_lines.h), where the profile has them and the threads' own trees
// are written (no --focus or --hide): a node's samples located at instructions become
// samples of their own whose leaf location is that instruction (its address and line), the
// rest stays on the function's location; and a caller's frame is the location of the call
// (the callee node's call site), so `go tool pprof -list` puts costs on their lines.
//
// Streaming: the profile is written as a sequence of partial Profile messages (a header,
// batches of samples, then the tables and the string table), each serialized by protobuf
// into the same gzip stream. Protobuf defines the concatenation of serialized messages as
// their merge, and repeated fields append, so readers see one Profile (fields may come in
// any order: every conforming parser, Go pprof's included, accepts that). Only one batch of
// samples is ever held, never the whole message or its serialized bytes.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/export.h"
#include "proto/profile.pb.h"

namespace callprof {
namespace {

namespace pb = perftools::profiles;
namespace io = google::protobuf::io;

constexpr int kSamplesPerBatch = 4096;
// A batch also ends at this many location ids: a deep tree's samples each hold its whole
// path (a 65,534-level recursion held 2.6 GiB in 4,096 samples).
constexpr uint64_t kLocationsPerBatch = uint64_t(1) << 20;
// A batch with a path longer than this gives its samples' memory back when written:
// Clear() keeps each sample's capacity for reuse, which must stay small.
constexpr size_t kLongPath = 1024;
// Mappings get disjoint synthetic ranges (callprof keeps addresses relative to each module's
// file, not where it was loaded): each starts on a 4 GiB boundary, so an address reads as
// the mapping's start plus the function's ELF address.
constexpr uint64_t kMappingAlign = uint64_t(1) << 32;

// The length of the valid UTF-8 sequence at s[i], 0 when the byte there does not start one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  // The sequence's length and its second byte's range (narrower after E0, ED, F0, F4).
  size_t n = 4;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

// pprof's strings are proto3 `string`s, which must be UTF-8: protobuf's own parsers (C++,
// and Go's google.golang.org/protobuf behind Pyroscope and Parca) reject a profile holding
// anything else, even though go tool pprof's hand-written decoder does not check. Names from
// profiled binaries can hold any bytes, so each byte outside a valid sequence becomes U+FFFD.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (const size_t n = utf8_length(s, i)) {
      out.append(s, i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

// The profile's string table: index 0 is "" as the format requires.
class StringTable {
 public:
  StringTable() { (*this)(""); }
  int64_t operator()(std::string_view s) {
    std::string text = valid_utf8(s);
    auto [it, added] = index_.try_emplace(std::move(text), int64_t(strings_.size()));
    if (added) strings_.push_back(&it->first);
    return it->second;
  }
  void write_to(pb::Profile& p) const {
    for (const std::string* s : strings_) p.add_string_table(*s);
  }

 private:
  std::unordered_map<std::string, int64_t> index_;  // node-based: the keys stay put
  std::vector<const std::string*> strings_;
};

// One value of every sample: pprof's sample type and the node's metric behind it (plus a
// second one added to it, when set).
struct Column {
  std::string_view type, unit;
  Metric metric;
  Metric plus = Metric::kCount;
  template <typename Row>
  uint64_t value(const Row& base) const {
    return base[metric] + (plus == Metric::kCount ? 0 : base[plus]);
  }
};

// `offcpu` is all the time not running, blocked or waiting for a CPU, as perf and bcc's
// offcputime count off-CPU time (and as callprof's exports always have); `preempted`, where
// some node waited, is the part of it spent waiting for a CPU (docs/interop.md).
void add_offcpu(std::vector<Column>& c, bool preempted) {
  c.push_back({"offcpu", "nanoseconds", Metric::OffCpuNs, Metric::PreemptedNs});
  if (preempted) c.push_back({"preempted", "nanoseconds", Metric::PreemptedNs});
}

std::vector<Column> columns_of(const Analysis& a, bool sampled) {
  const auto& present = a.stats().present;
  const auto has = [&](Metric m) { return present[size_t(m)]; };
  std::vector<Column> c;
  if (sampled) {
    // An on-CPU sample's weight is CPU time; a profile that kept it only as wall time (no
    // CPU split, no off-CPU stacks) has no other time.
    const bool off_cpu = has(Metric::OffCpuNs) || has(Metric::PreemptedNs);
    const bool split = has(Metric::CpuNs) || off_cpu;
    c = {{"samples", "count", Metric::Samples}, {"cpu", "nanoseconds", split ? Metric::CpuNs : Metric::WallNs}};
    if (off_cpu) add_offcpu(c, has(Metric::PreemptedNs));
    // Off-CPU stacks and traced system calls have wall time but no samples or CPU time.
    if (off_cpu || has(Metric::Syscalls)) c.push_back({"wall", "nanoseconds", Metric::WallNs});
    return c;
  }
  c = {{"calls", "count", Metric::Calls}, {"wall", "nanoseconds", Metric::WallNs}};
  if (a.cpu_measured()) {
    c.push_back({"cpu", "nanoseconds", Metric::CpuNs});
    add_offcpu(c, has(Metric::PreemptedNs));
  }
  if (has(Metric::AllocCalls)) {
    c.push_back({"alloc_calls", "count", Metric::AllocCalls});
    c.push_back({"alloc_bytes", "bytes", Metric::AllocBytes});
  }
  if (has(Metric::Samples)) c.push_back({"samples", "count", Metric::Samples});  // samples inside exact mode
  return c;
}

int64_t as_int64(uint64_t v) { return int64_t(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max())); }

class PprofWriter {
 public:
  PprofWriter(const Analysis& a, io::CodedOutputStream& out)
      : a_(a),
        p_(a.profile()),
        out_(out),
        // Exact mode with samples keeps its calls and times, the samples a column beside them.
        sampled_(p_.meta.mode.only(RecordingMode::Sample) || (a.stats().has_samples && a.stats().calls == 0)),
        columns_(columns_of(a, sampled_)),
        location_of_(p_.functions.size(), 0),
        function_of_(p_.functions.size(), 0) {}

  void write_header();
  void write_thread(size_t index);
  void write_tables();

 private:
  // A location: its functions innermost first (an inline chain), their line numbers (0: the
  // function's first line) and its address relative to the module (kEntry: the function's).
  static constexpr uint64_t kEntry = UINT64_MAX;
  struct LocationKey {
    std::vector<FunctionId> functions;
    std::vector<uint32_t> lines;
    uint64_t address = kEntry;
    auto operator<=>(const LocationKey&) const = default;
  };
  class PathCode;
  uint64_t location(FunctionId f);
  uint64_t location(LocationKey key);
  uint64_t new_location(const LocationKey& key);
  uint64_t function_id(FunctionId f);
  void write_samples(const CallTree& tree, const CodeCosts* code,
                     const google::protobuf::RepeatedPtrField<pb::Label>& labels);
  template <typename Row>
  void add_sample(const Row& base, const std::vector<uint64_t>& path,
                  const google::protobuf::RepeatedPtrField<pb::Label>& labels);
  void flush() {
    chunk_.SerializePartialToCodedStream(&out_);
    if (batch_long_) google::protobuf::RepeatedPtrField<pb::Sample>().Swap(chunk_.mutable_sample());
    chunk_.Clear();  // keeps the (short) samples' memory for the next batch
    batch_locations_ = 0;
    batch_long_ = false;
  }
  ModuleId main_module() const;
  std::vector<ModuleId> mapping_order() const;
  const Function* function(FunctionId f) const { return f < p_.functions.size() ? &p_.functions[f] : nullptr; }
  bool mapped(const Function* fn) const {
    return fn && fn->kind == FunctionKind::Normal && fn->module < p_.modules.size();
  }

  const Analysis& a_;
  const Profile& p_;
  io::CodedOutputStream& out_;
  const bool sampled_;
  const std::vector<Column> columns_;
  StringTable strings_;
  pb::Profile chunk_;                                         // the part being written
  uint64_t batch_locations_ = 0;                              // location ids in chunk_'s samples
  bool batch_long_ = false;                                   // one of them has a path over kLongPath
  std::vector<uint64_t> location_of_;                         // by FunctionId: its one-line location's id, 0 = none yet
  std::unordered_map<FunctionId, uint64_t> other_locations_;  // ids outside the table
  std::map<LocationKey, uint64_t> chains_;                    // other locations, by their key
  std::vector<FunctionId> lines_;                             // every location's lines, in location order
  std::vector<uint32_t> line_numbers_;                        // beside lines_: 0 for the function's first line
  std::vector<size_t> first_line_;                            // by location id - 1: its first entry in lines_
  std::vector<uint64_t> addresses_;                           // by location id - 1: kEntry, or the address
  std::vector<uint64_t> function_of_;                         // by FunctionId: pprof's function id, 0 = none yet
  std::unordered_map<FunctionId, uint64_t> other_functions_;  // ids outside the table
  std::vector<FunctionId> functions_;                         // by pprof function id - 1, in order of first use
};

void PprofWriter::write_header() {
  for (const Column& c : columns_) {
    pb::ValueType* t = chunk_.add_sample_type();
    t->set_type(strings_(c.type));
    t->set_unit(strings_(c.unit));
  }
  // The default view: CPU time for sampled profiles, wall time for exact ones.
  chunk_.set_default_sample_type(strings_(sampled_ ? "cpu" : "wall"));
  chunk_.set_time_nanos(p_.meta.start_realtime_ns);
  chunk_.set_duration_nanos(p_.meta.duration_ns);
  if (sampled_ && p_.meta.sampling && p_.meta.sampling->frequency_hz > 0) {
    chunk_.mutable_period_type()->set_type(strings_("cpu"));
    chunk_.mutable_period_type()->set_unit(strings_("nanoseconds"));
    chunk_.set_period(int64_t(1000000000 / p_.meta.sampling->frequency_hz));
  }
  const auto comment = [&](std::string_view key, const std::string& value) {
    if (!value.empty()) chunk_.add_comment(strings_(std::string(key) + ": " + value));
  };
  comment("command", p_.meta.command);
  comment("mode", p_.meta.mode.text());
  comment("host", p_.meta.hostname);
  flush();
}

// A selected thread's tree with --focus and --hide applied, its samples labelled with the
// thread, its located costs moved with its nodes. Without either, Analysis::thread_tree would
// return a copy of the profile's own (compensated) tree: read that in place instead of copying
// a possibly huge tree.
void PprofWriter::write_thread(size_t index) {
  const Thread& t = p_.threads[index];
  google::protobuf::RepeatedPtrField<pb::Label> labels;
  const auto number = [&](std::string_view key, uint32_t value) {
    pb::Label* l = labels.Add();
    l->set_key(strings_(key));
    l->set_num(value);
  };
  const auto text = [&](std::string_view key, const std::string& value) {
    pb::Label* l = labels.Add();
    l->set_key(strings_(key));
    l->set_str(strings_(value));
  };
  number("pid", t.pid);
  number("tid", t.tid);
  text("thread", t.name);
  std::string host = t.host;
  for (const Process& p : p_.processes)
    if (host.empty() && p.pid == t.pid && !p.host.empty()) host = p.host;
  if (host.empty()) host = p_.meta.hostname;
  if (!host.empty()) text("host", host);
  if (!a_.transforms_trees()) return write_samples(t.tree, t.code.empty() ? nullptr : &t.code, labels);
  NodeImage image;
  const CallTree tree = a_.thread_tree(index, &image);
  const CodeCosts code = on_result(relocated(t.code, t.tree, image), image);
  write_samples(tree, code.empty() ? nullptr : &code, labels);
}

// A thread's code costs by node (model/code_lines.h), for the paths being written.
class PprofWriter::PathCode {
 public:
  PathCode(const CallTree& tree, const CodeCosts* code) {
    if (!code) return;
    site_ = main_call_sites(code->call_sites, tree.size());  // a stack has one caller location per frame
    const std::vector<SiteShare> share = site_shares(code->call_sites, tree.size());
    std::unordered_map<NodeId, uint32_t> sites_of;
    for (const CallSite& c : code->call_sites) ++sites_of[c.node];
    for (size_t i = 0; i < share.size(); ++i) {
      const CallSite& c = code->call_sites[i];
      if (c.node < tree.size() && sites_of[c.node] > 1) shares_[c.node].push_back({c.location, share[i]});
    }
    for (const InstructionSamples& i : code->instructions)
      if (i.node < tree.size()) samples_.push_back(&i);
    std::stable_sort(samples_.begin(), samples_.end(), [](auto* a, auto* b) { return a->node < b->node; });
  }
  // Where in its parent's function the node's calls were made (the main place).
  LocationId site(NodeId n) const { return n < site_.size() ? site_[n] : kNoLocation; }
  // A node called from several places: each place's share of its costs; null for one place.
  const std::vector<std::pair<LocationId, SiteShare>>* shares(NodeId n) const {
    auto it = shares_.find(n);
    return it == shares_.end() ? nullptr : &it->second;
  }
  // The node's samples by instruction.
  std::span<const InstructionSamples* const> samples(NodeId n) const {
    auto [lo, hi] = std::equal_range(samples_.begin(), samples_.end(), n, Less{});
    return {lo, hi};
  }

 private:
  struct Less {
    bool operator()(const InstructionSamples* a, NodeId n) const { return a->node < n; }
    bool operator()(NodeId n, const InstructionSamples* a) const { return n < a->node; }
  };
  std::vector<LocationId> site_;
  std::unordered_map<NodeId, std::vector<std::pair<LocationId, SiteShare>>> shares_;
  std::vector<const InstructionSamples*> samples_;
};

// Depth first, children in order, keeping only the current path's location ids; an
// explicit stack, since recursion can make the tree arbitrarily deep.
void PprofWriter::write_samples(const CallTree& tree, const CodeCosts* code,
                                const google::protobuf::RepeatedPtrField<pb::Label>& labels) {
  struct Entry {
    NodeId id;
    uint32_t depth;
  };
  const PathCode located_costs(tree, code);
  std::vector<Entry> stack;
  std::vector<uint64_t> path;     // root first: the location of the inline chain ending at each depth
  std::vector<uint32_t> chain;    // per depth: the depth its inline chain begins at
  std::vector<FunctionId> fns;    // per depth: the node's function
  std::vector<NodeId> nodes;      // per depth: the node
  std::vector<FunctionId> lines;  // scratch
  std::vector<uint64_t> ids;      // scratch: the sample's locations, leaf first
  // The inline chain ending at depth d, at the instruction `l` of its innermost function:
  // that line there, and each outer frame's line where the frame inside it was inlined.
  const auto located = [&](uint32_t d, LocationId l) -> uint64_t {
    if (l >= p_.locations.size() || p_.locations[l].function != fns[d]) return path[d];
    LocationKey key;
    key.address = p_.locations[l].address;
    for (int64_t k = d; k >= int64_t(chain[d]); --k) {
      key.functions.push_back(fns[size_t(k)]);
      const LocationId at = k == int64_t(d) ? l : located_costs.site(nodes[size_t(k) + 1]);
      const bool known = at < p_.locations.size() && p_.locations[at].function == fns[size_t(k)];
      key.lines.push_back(known ? p_.locations[at].line : 0);
    }
    return location(std::move(key));
  };
  const auto push_children = [&](NodeId parent, uint32_t depth) {
    const size_t first = stack.size();
    for (NodeId k = tree.node(parent).first_child; k != kNoNode; k = tree.node(k).next_sibling)
      stack.push_back({k, depth});
    std::reverse(stack.begin() + std::ptrdiff_t(first), stack.end());
  };
  push_children(kRootNode, 0);
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    const CallNode& n = tree.node(e.id);
    path.resize(e.depth);
    chain.resize(e.depth);
    fns.resize(e.depth);
    nodes.resize(e.depth);
    fns.push_back(n.function);
    nodes.push_back(e.id);
    chain.push_back(n.inlined && e.depth > 0 ? chain[e.depth - 1] : e.depth);
    if (chain.back() == e.depth) {
      path.push_back(location(n.function));
    } else {
      lines.assign(fns.rbegin(), fns.rend() - chain.back());
      path.push_back(location(LocationKey{lines, {}, kEntry}));
    }
    // Callers at the place of the call, where it is known.
    ids.clear();
    for (int64_t d = e.depth; d >= 0; d = int64_t(chain[size_t(d)]) - 1) {
      const LocationId site = d < int64_t(e.depth) ? located_costs.site(nodes[size_t(d) + 1]) : kNoLocation;
      ids.push_back(site == kNoLocation ? path[size_t(d)] : located(uint32_t(d), site));
    }
    // The node's own costs, on each place it was called from (its callees' go through the
    // main place: a stack has one location per frame).
    const auto own_sample = [&](const Metrics& m) {
      const auto* shares = located_costs.shares(e.id);
      if (!shares || e.depth == 0 || chain[e.depth] != e.depth || ids.size() < 2) return add_sample(m, ids, labels);
      const uint64_t main_place = ids[1];
      Metrics left = m;
      for (size_t k = 0; k < shares->size(); ++k) {
        const auto& [place, share] = (*shares)[k];
        Metrics part;
        for (size_t i = 0; i < kMetricCount; ++i) {
          const Metric metric = Metric(i);
          if (kMetricInfo[i].merge != MergeKind::Sum) continue;
          const double f = metric == Metric::Calls ? share.calls : share.time;
          part[metric] = k + 1 == shares->size()
                             ? left[metric]
                             : std::min<uint64_t>(left[metric], uint64_t(std::llround(double(m[metric]) * f)));
          left[metric] -= part[metric];
        }
        ids[1] = place == kNoLocation ? path[e.depth - 1] : located(e.depth - 1, place);
        add_sample(part, ids, labels);
      }
      ids[1] = main_place;
    };
    const auto at_instructions = located_costs.samples(e.id);
    if (at_instructions.empty()) {
      own_sample(tree.base(e.id));
    } else {  // the located samples at their instructions, the rest at the function
      Metrics rest = tree.base(e.id);
      for (const InstructionSamples* i : at_instructions) {
        Metrics m;
        m[Metric::Samples] = std::min<uint64_t>(i->samples, rest[Metric::Samples]);
        m[Metric::CpuNs] = std::min<uint64_t>(i->cpu_ns, rest[Metric::CpuNs]);
        m[Metric::WallNs] = sampled_ ? std::min<uint64_t>(i->cpu_ns, rest[Metric::WallNs]) : 0;
        for (Metric k : {Metric::Samples, Metric::CpuNs, Metric::WallNs}) rest[k] -= m[k];
        ids[0] = located(e.depth, i->location);
        own_sample(m);
      }
      ids[0] = path[e.depth];
      own_sample(rest);
    }
    push_children(e.id, e.depth + 1);
  }
}

// `path`: location ids, the leaf first.
template <typename Row>
void PprofWriter::add_sample(const Row& base, const std::vector<uint64_t>& path,
                             const google::protobuf::RepeatedPtrField<pb::Label>& labels) {
  if (std::none_of(columns_.begin(), columns_.end(), [&](const Column& c) { return c.value(base) != 0; })) return;
  pb::Sample* s = chunk_.add_sample();
  auto* ids = s->mutable_location_id();
  ids->Resize(int(path.size()), 0);
  std::copy(path.begin(), path.end(), ids->mutable_data());
  auto* values = s->mutable_value();
  values->Resize(int(columns_.size()), 0);
  for (size_t i = 0; i < columns_.size(); ++i) values->Set(int(i), as_int64(columns_[i].value(base)));
  *s->mutable_label() = labels;
  batch_locations_ += path.size();
  batch_long_ = batch_long_ || path.size() > kLongPath || batch_locations_ >= kLocationsPerBatch;
  if (chunk_.sample_size() >= kSamplesPerBatch || batch_locations_ >= kLocationsPerBatch) flush();
}

uint64_t PprofWriter::location(FunctionId f) {
  uint64_t& id = f < location_of_.size() ? location_of_[f] : other_locations_[f];
  if (id == 0) id = new_location(LocationKey{{f}, {}, kEntry});
  return id;
}

// An inline chain (a node flagged inlined and the frames up to the function it was inlined
// into), or a place inside a function: one location, its lines innermost first, the
// function that really ran last.
uint64_t PprofWriter::location(LocationKey key) {
  auto [it, added] = chains_.try_emplace(std::move(key), 0);
  if (added) it->second = new_location(it->first);
  return it->second;
}

uint64_t PprofWriter::new_location(const LocationKey& key) {
  first_line_.push_back(lines_.size());
  for (size_t i = 0; i < key.functions.size(); ++i) {
    lines_.push_back(key.functions[i]);
    line_numbers_.push_back(i < key.lines.size() ? key.lines[i] : 0);
    function_id(key.functions[i]);
  }
  addresses_.push_back(key.address);
  return first_line_.size();
}

uint64_t PprofWriter::function_id(FunctionId f) {
  uint64_t& id = f < function_of_.size() ? function_of_[f] : other_functions_[f];
  if (id == 0) {
    functions_.push_back(f);
    id = functions_.size();
  }
  return id;
}

// The main binary is main's module; else the module of the first top-level function (a
// sampled profile's first one may be the dynamic loader's start-up, or [truncated]), else
// module 0.
ModuleId PprofWriter::main_module() const {
  for (const Function& fn : p_.functions)
    if (fn.name == "main" && mapped(&fn)) return fn.module;
  const CallTree& tree = a_.tree();
  if (const NodeId first = tree.node(kRootNode).first_child; first != kNoNode)
    if (const Function* fn = function(tree.node(first).function); mapped(fn)) return fn->module;
  return p_.modules.empty() ? kNoModule : 0;
}

// The main binary first (pprof takes mapping[0] as the profiled program), then the modules
// of the functions in the samples, in module order.
std::vector<ModuleId> PprofWriter::mapping_order() const {
  std::vector<bool> used(p_.modules.size(), false);
  for (FunctionId f : functions_)
    if (const Function* fn = function(f); mapped(fn)) used[fn->module] = true;
  std::vector<ModuleId> order;
  const ModuleId main = main_module();
  if (main != kNoModule) order.push_back(main);
  for (ModuleId m = 0; m < used.size(); ++m)
    if (used[m] && m != main) order.push_back(m);
  return order;
}

void PprofWriter::write_tables() {
  if (chunk_.sample_size() > 0) flush();
  // Per module: the highest function address, and whether files and lines are known.
  struct Extent {
    uint64_t max_address = 0;
    bool files = false, lines = false;
  };
  std::vector<Extent> extent(p_.modules.size());
  first_line_.push_back(lines_.size());  // the end of the last location's lines
  for (const Function& fn : p_.functions) {
    if (!mapped(&fn)) continue;
    Extent& e = extent[fn.module];
    e.max_address = std::max(e.max_address, fn.address);
    e.files |= !fn.file.empty();
    e.lines |= fn.line != 0;
  }
  for (size_t i = 0; i < addresses_.size(); ++i)  // instructions past the last entry
    if (const Function* fn = function(lines_[first_line_[i + 1] - 1]); mapped(fn) && addresses_[i] != kEntry)
      extent[fn->module].max_address = std::max(extent[fn->module].max_address, addresses_[i]);
  std::vector<uint64_t> mapping_id(p_.modules.size(), 0), start(p_.modules.size(), 0);
  uint64_t next = kMappingAlign;
  for (ModuleId m : mapping_order()) {
    const Extent& e = extent[m];
    pb::Mapping* map = chunk_.add_mapping();
    mapping_id[m] = uint64_t(chunk_.mapping_size());
    start[m] = next;
    const uint64_t size = std::min(e.max_address, UINT64_MAX / 4) / 4096 * 4096 + 4096;
    map->set_id(mapping_id[m]);
    map->set_memory_start(start[m]);
    map->set_memory_limit(start[m] + size);
    map->set_filename(strings_(p_.modules[m].path));
    map->set_build_id(strings_(p_.modules[m].build_id));
    map->set_has_functions(true);
    map->set_has_filenames(e.files);
    map->set_has_line_numbers(e.lines);
    next = (start[m] + size + kMappingAlign - 1) / kMappingAlign * kMappingAlign;
  }
  for (size_t i = 0; i + 1 < first_line_.size(); ++i) {
    const std::span<const FunctionId> lines(lines_.data() + first_line_[i], first_line_[i + 1] - first_line_[i]);
    const Function* fn = function(lines.back());  // the function that ran: the others were inlined into it
    pb::Location* loc = chunk_.add_location();
    loc->set_id(i + 1);
    // Synthetic frames ("[syscall] write", "[kernel]") and functions of unknown modules
    // have no mapping.
    if (mapped(fn)) {
      loc->set_mapping_id(mapping_id[fn->module]);
      loc->set_address(start[fn->module] + (addresses_[i] == kEntry ? fn->address : addresses_[i]));
    }
    for (size_t k = 0; k < lines.size(); ++k) {
      pb::Line* line = loc->add_line();
      const FunctionId f = lines[k];
      line->set_function_id(function_id(f));
      // A function's own location stands at its first line; an instruction's line is the
      // debug info's, 0 where it has none (Clang's merged code): pprof shows it as unknown.
      const uint32_t number = line_numbers_[first_line_[i] + k];
      const bool at_entry = addresses_[i] == kEntry;
      line->set_line(number ? number : at_entry && function(f) ? function(f)->line : 0);
    }
  }
  for (size_t i = 0; i < functions_.size(); ++i) {
    const uint64_t id = i + 1;
    const FunctionId f = functions_[i];
    const Function* fn = function(f);
    pb::Function* out = chunk_.add_function();
    out->set_id(id);
    out->set_name(strings_(a_.full_name(f)));
    if (fn) {
      out->set_system_name(strings_(fn->linkage_name));
      out->set_filename(strings_(fn->file));
      out->set_start_line(fn->line);
    }
  }
  strings_.write_to(chunk_);
  flush();
}

}  // namespace

Status write_pprof(const Analysis& analysis, std::ostream& out) {
  std::string zlib_error;
  {
    io::OstreamOutputStream raw(&out);  // writes its last bytes when it goes out of scope
    io::GzipOutputStream::Options options;
    options.format = io::GzipOutputStream::GZIP;
    // Level 1: on a 1M-node profile (81 MB of protobuf) 11.3 MB in 0.54 s of CPU for the
    // whole writer; the default level 6 gains 10 % of size for 0.4 s more.
    options.compression_level = 1;
    io::GzipOutputStream gzip(&raw, options);
    {
      io::CodedOutputStream coded(&gzip);
      PprofWriter writer(analysis, coded);
      writer.write_header();
      for (size_t t : analysis.threads()) writer.write_thread(t);
      writer.write_tables();
    }
    if (!gzip.Close()) zlib_error = gzip.ZlibErrorMessage() ? gzip.ZlibErrorMessage() : "unknown error";
  }
  if (!zlib_error.empty()) return make_error("compressing the pprof profile failed: " + zlib_error);
  return out ? Status(Ok{}) : make_error("writing the pprof profile failed");
}

}  // namespace callprof
