// The large JSON arrays (tree nodes, edges) written directly with fmt, each function name
// JSON-escaped once: these arrays can have millions of elements, and building an
// nlohmann value per element dominated the report's run time.
#pragma once

#include <ostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <unordered_map>

#include "graph/aggregate.h"
#include "report/context.h"

namespace callprof {

// Function names as JSON string literals ("null" for kNoFunction), escaped on first use.
class JsonNames {
 public:
  explicit JsonNames(const ReportContext& ctx) : ctx_(ctx) {}
  const std::string& operator()(FunctionId f) const;

 private:
  const ReportContext& ctx_;
  mutable std::unordered_map<FunctionId, std::string> cache_;
};

// A JSON string literal for any text; invalid UTF-8 is replaced (U+FFFD), never thrown.
std::string json_string(std::string_view s);

// The metric keys that follow a row's self/total times (docs/json.md): total_cpu_ns and
// total_offcpu_ns (null when the split was not measured), then for each of preempted_ns,
// switches, page_faults, alloc_calls, alloc_bytes, free_calls, excluded_calls and the syscall
// metrics that the tree has, the self value and its "total_" twin. With `self_cpu`, cpu_ns
// and offcpu_ns come first.
std::vector<std::pair<std::string, std::optional<uint64_t>>> metric_fields(const ReportContext& ctx, const Metrics& self,
                                                                           const Metrics& total, bool self_cpu);

// One edge object (docs/json.md, "edge").
std::string edge_json(const ReportContext& ctx, const EdgeRow& e, const JsonNames& names);

// `"tree": [...]` with the nodes the filter selects, nested, one node per line.
// Iterative, so arbitrarily deep recursion cannot overflow the stack.
void write_tree_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names);

}  // namespace callprof
