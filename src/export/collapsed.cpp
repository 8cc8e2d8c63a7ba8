// Collapsed ("folded") stacks, as Brendan Gregg's flamegraph.pl and speedscope read them:
// one line per call path, "root;caller;function VALUE", the path's own (self) value.
// The format has no escaping: a ';' inside a name would split a frame and a line break
// would split a line, so ';' becomes ':' and line breaks and other control characters
// become C escapes (escape_text, as on the terminal, where this output often goes).
#include <string>

#include "export/export.h"
#include "util/escape.h"

namespace callprof {
namespace {

Metric metric_of(CollapsedValue v) {
  switch (v) {
    case CollapsedValue::Self: return Metric::WallNs;
    case CollapsedValue::Cpu: return Metric::CpuNs;
    case CollapsedValue::Offcpu: return Metric::OffCpuNs;
    case CollapsedValue::Samples: return Metric::Samples;
    case CollapsedValue::Calls: return Metric::Calls;
  }
  return Metric::WallNs;
}

// A frame as the format can hold it.
std::string frame(std::string_view name) {
  std::string out = escape_text(name.empty() ? "[unknown]" : name);
  for (char& c : out)
    if (c == ';') c = ':';
  return out;
}

}  // namespace

Status write_collapsed(const Analysis& analysis, CollapsedValue value, std::ostream& out) {
  const CallTree& tree = analysis.tree();
  const Metric metric = metric_of(value);
  // Depth first, keeping only the current path's text (its length per depth), never one
  // string per node; an explicit stack, since recursion can make the tree arbitrarily deep.
  struct Entry {
    NodeId id;
    size_t depth;
  };
  std::vector<Entry> stack;
  for (NodeId k = tree.node(kRootNode).first_child; k != kNoNode; k = tree.node(k).next_sibling) stack.push_back({k, 0});
  std::vector<size_t> length;  // path text length up to and including each depth
  std::string path;
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    const CallNode& n = tree.node(e.id);
    length.resize(e.depth);
    path.resize(e.depth ? length.back() : 0);
    if (e.depth) path += ';';
    path += frame(analysis.full_name(n.function));
    length.push_back(path.size());
    if (const uint64_t v = n.base[metric]; v > 0) out << path << ' ' << v << '\n';
    for (NodeId k = n.first_child; k != kNoNode; k = tree.node(k).next_sibling) stack.push_back({k, e.depth + 1});
  }
  return out ? Status(Ok{}) : make_error("writing the collapsed stacks failed");
}

}  // namespace callprof
