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

// A node's object without its closing brace, so its children array can follow.
std::string open_node(const ReportContext& ctx, const JsonNames& names, NodeId id) {
  const CallNode& n = ctx.tree().node(id);
  const MetricRow b = ctx.tree().base(id);
  const MetricRow c = ctx.nodes().cum[id];
  const bool timed = b.has_min(Metric::MinWallNs);
  const bool cpu_measured = ctx.cpu_measured();
  std::string s = fmt::format(R"({{"name":{},"function_id":{},"calls":{},"self_ns":{},"total_ns":{},"min_self_ns":{},)"
                              R"("max_self_ns":{},"cpu_ns":{},"offcpu_ns":{})",
                              names(n.function), n.function, b[Metric::Calls], b[Metric::WallNs], c[Metric::WallNs],
                              opt(b[Metric::MinWallNs], timed), opt(b[Metric::MaxWallNs], timed),
                              opt(b[Metric::CpuNs], cpu_measured), opt(b[Metric::OffCpuNs], cpu_measured));
  s += fields_json(metric_fields(ctx, b, c, false));
  s += fmt::format(R"(,"recursion_level":{})", ctx.nodes().level[id]);
  if (ctx.stats().has_samples)
    s += fmt::format(R"(,"samples":{},"total_samples":{})", b[Metric::Samples], c[Metric::Samples]);
  if (ctx.stats().has_inlined) s += n.inlined ? R"(,"inlined":true)" : R"(,"inlined":false)";
  return s;
}

}  // namespace

std::string json_string(std::string_view s) {
  using nlohmann::json;
  return inert_json(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
}

const std::string& JsonNames::operator()(FunctionId f) const {
  auto [it, inserted] = cache_.try_emplace(f);
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
  out << "\"tree\": [";
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == kNoNode) {
      const bool empty = f.first;
      stack.pop_back();
      out << (empty ? "]" : "\n]") << (stack.empty() ? "" : "}");
      continue;
    }
    const NodeId id = f.next;
    f.next = next_shown(tree.node(id).next_sibling);
    out << (f.first ? "\n" : ",\n") << open_node(ctx, names, id);
    f.first = false;
    const NodeId first_child = next_shown(tree.node(id).first_child);
    if (stack.size() >= kMaxJsonTreeDepth && first_child != kNoNode) {
      out << ",\"children\":[],\"children_cut\":" << shown_below(tree, shown, id) << "}";
      continue;
    }
    out << ",\"children\":[";
    stack.push_back({first_child, true});  // invalidates f
  }
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
  out << "\"nodes\": [";
  for (size_t i = 0; i < order.ids.size(); ++i) {
    const int64_t parent = order.parents[i];
    out << (i ? ",\n" : "\n") << open_node(ctx, names, order.ids[i]) << ",\"id\":" << i
        << ",\"parent\":" << (parent < 0 ? std::string("null") : std::to_string(parent)) << '}';
  }
  out << (order.ids.empty() ? "]" : "\n]");
}

}  // namespace callprof
