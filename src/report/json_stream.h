// The large JSON arrays (tree nodes, edges) written directly with fmt, each function name
// JSON-escaped once: these arrays can have millions of elements, and building an
// nlohmann value per element dominated the report's run time.
#pragma once

#include <ostream>
#include <string>
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

// One edge object (docs/json.md, "edge").
std::string edge_json(const EdgeRow& e, const JsonNames& names);

// `"tree": [...]` with the nodes the filter selects, nested, one node per line.
// Iterative, so arbitrarily deep recursion cannot overflow the stack.
void write_tree_json(std::ostream& out, const ReportContext& ctx, const JsonNames& names);

}  // namespace callprof
