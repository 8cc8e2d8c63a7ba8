// Streaming writers for the tree and edge arrays of the JSON document.
#include "report/json_stream.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "graph/node_filter.h"
#include "util/escape.h"

namespace callprof {
namespace {

std::string opt(uint64_t v, bool present) { return present ? std::to_string(v) : "null"; }

constexpr Metric kExtraMetrics[] = {Metric::PreemptedNs, Metric::Switches,   Metric::PageFaults,
                                    Metric::AllocCalls,  Metric::AllocBytes, Metric::FreeCalls,
                                    Metric::ExcludedCalls, Metric::Syscalls,  Metric::SyscallNs,
                                    Metric::SyscallErrors, Metric::FoldedCalls};

// `,"key":value` for each field.
std::string fields_json(const std::vector<std::pair<std::string, std::optional<uint64_t>>>& fields) {
  std::string s;
  for (const auto& [key, value] : fields) s += fmt::format(R"(,"{}":{})", key, value ? std::to_string(*value) : "null");
  return s;
}

using Buffer = fmt::memory_buffer;

void put(Buffer& buf, std::string_view s) { buf.append(s); }
void put(Buffer& buf, uint64_t v) { fmt::format_to(std::back_inserter(buf), "{}", v); }
void put_opt(Buffer& buf, uint64_t v, bool present) {
  if (present) put(buf, v);
  else put(buf, "null");
}

// The tree's node objects, written straight into a buffer: the same text as building each
// field's string (metric_fields, fields_json) did, without allocating per node, which was
// most of the time `--json` took on a million nodes. The keys that depend on the profile
// (which extra metrics it has) are chosen once.
class NodeWriter {
 public:
  NodeWriter(const ReportContext& ctx, const JsonNames& names) : ctx_(ctx), names_(names) {
    cpu_measured_ = ctx.cpu_measured();
    samples_ = ctx.stats().has_samples;
    inlined_ = ctx.stats().has_inlined;
    for (Metric m : kExtraMetrics)
      if (ctx.stats().present[size_t(m)])
        extras_.push_back({m, fmt::format(R"(,"{}":)", info(m).name), fmt::format(R"(,"total_{}":)", info(m).name)});
  }

  // A node's object without its closing brace, so its children array can follow.
  void open(Buffer& buf, NodeId id) const {
    const CallNode& n = ctx_.tree().node(id);
    const MetricRow b = ctx_.tree().base(id);
    const MetricRow c = ctx_.nodes().cum[id];
    const bool timed = b.has_min(Metric::MinWallNs);
    put(buf, R"({"name":)");
    put(buf, names_(n.function));
    put(buf, R"(,"function_id":)");
    put(buf, n.function);
    put(buf, R"(,"calls":)");
    put(buf, b[Metric::Calls]);
    put(buf, R"(,"self_ns":)");
    put(buf, b[Metric::WallNs]);
    put(buf, R"(,"total_ns":)");
    put(buf, c[Metric::WallNs]);
    put(buf, R"(,"min_self_ns":)");
    put_opt(buf, b[Metric::MinWallNs], timed);
    put(buf, R"(,"max_self_ns":)");
    put_opt(buf, b[Metric::MaxWallNs], timed);
    put(buf, R"(,"cpu_ns":)");
    put_opt(buf, b[Metric::CpuNs], cpu_measured_);
    put(buf, R"(,"offcpu_ns":)");
    put_opt(buf, b[Metric::OffCpuNs], cpu_measured_);
    put(buf, R"(,"total_cpu_ns":)");
    put_opt(buf, c[Metric::CpuNs], cpu_measured_);
    put(buf, R"(,"total_offcpu_ns":)");
    put_opt(buf, c[Metric::OffCpuNs], cpu_measured_);
    for (const Extra& e : extras_) {
      put(buf, e.key);
      put(buf, b[e.metric]);
      put(buf, e.total_key);
      put(buf, c[e.metric]);
    }
    put(buf, R"(,"recursion_level":)");
    put(buf, uint64_t(ctx_.nodes().level[id]));
    if (samples_) {
      put(buf, R"(,"samples":)");
      put(buf, b[Metric::Samples]);
      put(buf, R"(,"total_samples":)");
      put(buf, c[Metric::Samples]);
    }
    if (inlined_) put(buf, n.inlined ? R"(,"inlined":true)" : R"(,"inlined":false)");
  }

 private:
  struct Extra {
    Metric metric;
    std::string key, total_key;
  };
  const ReportContext& ctx_;
  const JsonNames& names_;
  bool cpu_measured_ = false, samples_ = false, inlined_ = false;
  std::vector<Extra> extras_;
};

// Writes the buffer out once it holds this much (and at the end).
constexpr size_t kFlushBytes = size_t(1) << 16;

void flush(std::ostream& out, Buffer& buf) {
  out.write(buf.data(), std::streamsize(buf.size()));
  buf.clear();
}

}  // namespace

std::string json_string(std::string_view s) {
  using nlohmann::json;
  return inert_json(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
}

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

void write_tree_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names) {
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
  const NodeWriter node(ctx, names);
  Buffer buf;
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

void write_flat_nodes_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names) {
  const NodeOrder order = node_order(ctx);
  const NodeWriter node(ctx, names);
  Buffer buf;
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
