// Streaming writers for the tree and edge arrays of the JSON document.
#include "report/json_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "graph/node_filter.h"
#include "util/escape.h"

namespace callprof {
namespace {

std::string opt(uint64_t v, bool present) { return present ? std::to_string(v) : "null"; }

constexpr Metric kExtraMetrics[] = {Metric::PreemptedNs,   Metric::Switches,   Metric::PageFaults,
                                    Metric::AllocCalls,    Metric::AllocBytes, Metric::FreeCalls,
                                    Metric::ExcludedCalls, Metric::Syscalls,   Metric::SyscallNs,
                                    Metric::SyscallErrors, Metric::FoldedCalls};

// `,"key":value` for each field.
std::string fields_json(const std::vector<std::pair<std::string, std::optional<uint64_t>>>& fields) {
  std::string s;
  for (const auto& [key, value] : fields) s += fmt::format(R"(,"{}":{})", key, value ? std::to_string(*value) : "null");
  return s;
}

// Text appended through a raw cursor: a node's room is made once, then each field is a
// memcpy or a to_chars, with no capacity check per field (fmt's buffer checked each).
class TextBuffer {
 public:
  size_t size() const { return used_; }
  const char* data() const { return data_.data(); }
  void clear() { used_ = 0; }
  // Room for n more bytes at the returned cursor; commit(end) takes what was written.
  char* room(size_t n) {
    if (used_ + n > data_.size()) data_.resize(std::max(data_.size() * 2, used_ + n));
    return data_.data() + used_;
  }
  void commit(const char* end) { used_ = size_t(end - data_.data()); }
  void append(std::string_view s) { commit(put(room(s.size()), s)); }

  static char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
  }
  static char* put(char* p, uint64_t v) { return std::to_chars(p, p + kMaxDigits, v).ptr; }
  static char* put_opt(char* p, uint64_t v, bool present) { return present ? put(p, v) : put(p, "null"); }
  static constexpr size_t kMaxDigits = 20;

 private:
  std::vector<char> data_;
  size_t used_ = 0;
};

// The tree's node objects, written straight into a buffer: the same text as building each
// field's string (metric_fields, fields_json) did, without allocating per node, which was
// most of the time `--json` took on a million nodes. The keys that depend on the profile
// (which extra metrics it has) are chosen once.
class NodeWriter {
 public:
  NodeWriter(const ReportContext& ctx, const JsonNames& names, const MetricTable& totals)
      : ctx_(ctx), names_(names), totals_(totals) {
    cpu_measured_ = ctx.cpu_measured();
    samples_ = ctx.stats().has_samples;
    inlined_ = ctx.stats().has_inlined;
    for (Metric m : kExtraMetrics)
      if (ctx.stats().present[size_t(m)])
        extras_.push_back({m, fmt::format(R"(,"{}":)", info(m).name), fmt::format(R"(,"total_{}":)", info(m).name)});
    room_ = 512;  // the fixed keys and up to 14 numbers
    for (const Extra& e : extras_) room_ += e.key.size() + e.total_key.size() + 2 * TextBuffer::kMaxDigits;
  }

  // A node's object without its closing brace, so its children array can follow.
  void open(TextBuffer& buf, NodeId id) const {
    using T = TextBuffer;
    const CallNode& n = ctx_.tree().node(id);
    const MetricRow b = ctx_.tree().base(id);
    const MetricRow c = totals_[id];
    const bool timed = b.has_min(Metric::MinWallNs);
    const std::string& name = names_(n.function);
    char* p = buf.room(room_ + name.size());
    p = T::put(p, R"({"name":)");
    p = T::put(p, name);
    p = T::put(p, R"(,"function_id":)");
    p = T::put(p, uint64_t(n.function));
    p = T::put(p, R"(,"calls":)");
    p = T::put(p, b[Metric::Calls]);
    p = T::put(p, R"(,"self_ns":)");
    p = T::put(p, b[Metric::WallNs]);
    p = T::put(p, R"(,"total_ns":)");
    p = T::put(p, c[Metric::WallNs]);
    p = T::put(p, R"(,"min_self_ns":)");
    p = T::put_opt(p, b[Metric::MinWallNs], timed);
    p = T::put(p, R"(,"max_self_ns":)");
    p = T::put_opt(p, b[Metric::MaxWallNs], timed);
    p = T::put(p, R"(,"cpu_ns":)");
    p = T::put_opt(p, b[Metric::CpuNs], cpu_measured_);
    p = T::put(p, R"(,"offcpu_ns":)");
    p = T::put_opt(p, b[Metric::OffCpuNs], cpu_measured_);
    p = T::put(p, R"(,"total_cpu_ns":)");
    p = T::put_opt(p, c[Metric::CpuNs], cpu_measured_);
    p = T::put(p, R"(,"total_offcpu_ns":)");
    p = T::put_opt(p, c[Metric::OffCpuNs], cpu_measured_);
    for (const Extra& e : extras_) {
      p = T::put(p, e.key);
      p = T::put(p, b[e.metric]);
      p = T::put(p, e.total_key);
      p = T::put(p, c[e.metric]);
    }
    p = T::put(p, R"(,"recursion_level":)");
    p = T::put(p, uint64_t(ctx_.levels()[id]));
    if (samples_) {
      p = T::put(p, R"(,"samples":)");
      p = T::put(p, b[Metric::Samples]);
      p = T::put(p, R"(,"total_samples":)");
      p = T::put(p, c[Metric::Samples]);
    }
    if (inlined_) p = T::put(p, n.inlined ? R"(,"inlined":true)" : R"(,"inlined":false)");
    buf.commit(p);
  }

 private:
  struct Extra {
    Metric metric;
    std::string key, total_key;
  };
  const ReportContext& ctx_;
  const JsonNames& names_;
  const MetricTable& totals_;
  bool cpu_measured_ = false, samples_ = false, inlined_ = false;
  std::vector<Extra> extras_;
  size_t room_ = 0;  // bytes a node needs besides its name
};

// Writes the buffer out once it holds this much (and at the end).
constexpr size_t kFlushBytes = size_t(1) << 16;

void flush(std::ostream& out, TextBuffer& buf) {
  out.write(buf.data(), std::streamsize(buf.size()));
  buf.clear();
}

void put(TextBuffer& buf, std::string_view s) { buf.append(s); }
void put(TextBuffer& buf, uint64_t v) { buf.commit(TextBuffer::put(buf.room(TextBuffer::kMaxDigits), v)); }
void put_opt(TextBuffer& buf, uint64_t v, bool present) {
  buf.commit(TextBuffer::put_opt(buf.room(TextBuffer::kMaxDigits), v, present));
}

}  // namespace

JsonNames::JsonNames(const ReportContext& ctx) : ctx_(ctx), table_(ctx.profile().functions.size()) {}

const std::string& JsonNames::operator()(FunctionId f) const {
  if (f < table_.size()) {
    std::optional<std::string>& name = table_[f];
    if (!name) name = json_string(ctx_.analysis().full_name(f));
    return *name;
  }
  auto [it, inserted] = others_.try_emplace(f);
  if (inserted) it->second = f == kNoFunction ? "null" : json_string(ctx_.analysis().full_name(f));
  return it->second;
}

std::vector<std::pair<std::string, std::optional<uint64_t>>> metric_fields(const ReportContext& ctx, MetricView self,
                                                                           MetricView total, bool self_cpu) {
  std::vector<std::pair<std::string, std::optional<uint64_t>>> out;
  auto measured = [&](uint64_t v) { return ctx.cpu_measured() ? std::optional(v) : std::nullopt; };
  if (self_cpu) {
    out.emplace_back("cpu_ns", measured(self[Metric::CpuNs]));
    out.emplace_back("offcpu_ns", measured(self[Metric::OffCpuNs]));
  }
  out.emplace_back("total_cpu_ns", measured(total[Metric::CpuNs]));
  out.emplace_back("total_offcpu_ns", measured(total[Metric::OffCpuNs]));
  for (Metric m : kExtraMetrics) {
    if (!ctx.stats().present[size_t(m)]) continue;
    out.emplace_back(std::string(info(m).name), self[m]);
    out.emplace_back("total_" + std::string(info(m).name), total[m]);
  }
  return out;
}

std::string edge_json(const ReportContext& ctx, const EdgeRow& e, const JsonNames& names) {
  return fmt::format(R"({{"caller":{},"callee":{},"caller_id":{},"callee_id":{},"calls":{},)"
                     R"("recursive_calls":{},"self_ns":{},"total_ns":{}{}}})",
                     names(e.caller), names(e.callee), opt(e.caller, e.caller != kNoFunction), e.callee, e.calls,
                     e.recursive_calls, e.self_ns, e.total_ns, fields_json(metric_fields(ctx, e.self, e.total, true)));
}

// Shown nodes in the subtree under `id` (itself excluded): what a cut at the depth limit leaves out.
size_t shown_below(const CallTree& tree, const std::vector<bool>& shown, NodeId id) {
  size_t count = 0;
  std::vector<NodeId> stack{id};
  while (!stack.empty()) {
    const NodeId at = stack.back();
    stack.pop_back();
    for (NodeId c = tree.node(at).first_child; c != kNoNode; c = tree.node(c).next_sibling)
      if (shown[c]) {
        ++count;
        stack.push_back(c);
      }
  }
  return count;
}

MetricTable json_node_totals(const ReportContext& ctx) {
  std::vector<Metric> metrics{Metric::WallNs, Metric::CpuNs, Metric::OffCpuNs, Metric::Samples};
  metrics.insert(metrics.end(), std::begin(kExtraMetrics), std::end(kExtraMetrics));
  return cumulative(ctx.tree(), metrics);
}

void write_tree_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names, const MetricTable& totals) {
  const CallTree& tree = ctx.tree();
  const std::vector<bool> shown = select_nodes(tree, [&](FunctionId f) { return ctx.matches(f); });
  auto next_shown = [&](NodeId from) {
    while (from != kNoNode && !shown[from]) from = tree.node(from).next_sibling;
    return from;
  };
  struct Frame {
    NodeId next;
    bool first;
  };  // the open node's next child to write; stack.size() is the depth of the nodes it writes
  std::vector<Frame> stack{{next_shown(tree.node(kRootNode).first_child), true}};
  const NodeWriter node(ctx, names, totals);
  TextBuffer buf;
  put(buf, "\"tree\": [");
  while (!stack.empty()) {
    if (buf.size() >= kFlushBytes) flush(out, buf);
    Frame& f = stack.back();
    if (f.next == kNoNode) {
      const bool empty = f.first;
      stack.pop_back();
      put(buf, empty ? "]" : "\n]");
      put(buf, stack.empty() ? "" : "}");
      continue;
    }
    const NodeId id = f.next;
    f.next = next_shown(tree.node(id).next_sibling);
    put(buf, f.first ? "\n" : ",\n");
    node.open(buf, id);
    f.first = false;
    const NodeId first_child = next_shown(tree.node(id).first_child);
    if (stack.size() >= kMaxJsonTreeDepth && first_child != kNoNode) {
      put(buf, ",\"children\":[],\"children_cut\":");
      put(buf, uint64_t(shown_below(tree, shown, id)));
      put(buf, "}");
      continue;
    }
    put(buf, ",\"children\":[");
    stack.push_back({first_child, true});  // invalidates f
  }
  flush(out, buf);
}

NodeOrder node_order(const ReportContext& ctx) {
  const CallTree& tree = ctx.tree();
  const std::vector<bool> shown = select_nodes(tree, [&](FunctionId f) { return ctx.matches(f); });
  NodeOrder order;
  std::vector<std::pair<NodeId, int64_t>> stack;  // (node, its parent's index), next on top
  auto push_children = [&](NodeId parent, int64_t parent_index) {
    const size_t first = stack.size();
    for (NodeId c = tree.node(parent).first_child; c != kNoNode; c = tree.node(c).next_sibling)
      if (shown[c]) stack.emplace_back(c, parent_index);
    std::reverse(stack.begin() + ptrdiff_t(first), stack.end());  // first child on top
  };
  push_children(kRootNode, -1);
  while (!stack.empty()) {
    const auto [id, parent] = stack.back();
    stack.pop_back();
    order.ids.push_back(id);
    order.parents.push_back(parent);
    push_children(id, int64_t(order.ids.size() - 1));
  }
  return order;
}

void write_flat_nodes_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names,
                           const MetricTable& totals) {
  const NodeOrder order = node_order(ctx);
  const NodeWriter node(ctx, names, totals);
  TextBuffer buf;
  put(buf, "\"nodes\": [");
  for (size_t i = 0; i < order.ids.size(); ++i) {
    if (buf.size() >= kFlushBytes) flush(out, buf);
    const int64_t parent = order.parents[i];
    put(buf, i ? ",\n" : "\n");
    node.open(buf, order.ids[i]);
    put(buf, ",\"id\":");
    put(buf, uint64_t(i));
    put(buf, ",\"parent\":");
    put_opt(buf, uint64_t(parent), parent >= 0);
    put(buf, "}");
  }
  put(buf, order.ids.empty() ? "]" : "\n]");
  flush(out, buf);
}

}  // namespace callprof
