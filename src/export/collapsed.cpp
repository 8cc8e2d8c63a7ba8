// Collapsed ("folded") stacks, as Brendan Gregg's flamegraph.pl and speedscope read them:
// one line per call path, "root;caller;function VALUE", the path's own (self) value.
// The format has no escaping: a ';' inside a name would split a frame and a line break
// would split a line, so ';' becomes ':' and line breaks and other control characters
// become C escapes (escape_text, as on the terminal, where this output often goes).
// The output is as large as the paths are long (every line repeats its whole path: 780 MB
// for 350 k paths of C++ names 21 frames deep), so it is streamed in 1 MiB blocks.
#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "export/export.h"
#include "export/function_texts.h"
#include "model/time_split.h"
#include "util/escape.h"

namespace callprof {
namespace {

// A path's own value. Off-CPU is all the time not running, blocked or waiting for a CPU, as
// flame graphs of off-CPU stacks (perf, bcc's offcputime) have it: the format has one number.
uint64_t value_of(MetricRow m, CollapsedValue v) {
  switch (v) {
    case CollapsedValue::Self:
      return m[Metric::WallNs];
    case CollapsedValue::Cpu:
      return m[Metric::CpuNs];
    case CollapsedValue::Offcpu:
      return switched_out_ns(m);
    case CollapsedValue::Samples:
      return m[Metric::Samples];
    case CollapsedValue::Calls:
      return m[Metric::Calls];
  }
  return m[Metric::WallNs];
}

constexpr size_t kFlushBytes = size_t(1) << 20;

// A frame as the format can hold it.
std::string frame_text(std::string_view name) {
  std::string frame = escape_text(name.empty() ? "[unknown]" : name);
  std::replace(frame.begin(), frame.end(), ';', ':');
  return frame;
}

}  // namespace

Status write_collapsed(const Analysis& analysis, CollapsedValue value, std::ostream& out) {
  const CallTree& tree = analysis.tree();
  // Depth first, keeping only the current path's text (its length per depth), never one
  // string per node; an explicit stack, since recursion can make the tree arbitrarily deep.
  struct Entry {
    NodeId id;
    size_t depth;
  };
  std::vector<Entry> stack;
  for (NodeId k = tree.node(kRootNode).first_child; k != kNoNode; k = tree.node(k).next_sibling)
    stack.push_back({k, 0});
  std::vector<size_t> length;  // path text length up to and including each depth
  FunctionTexts frames(analysis, frame_text);
  std::string path, buf;
  buf.reserve(kFlushBytes + 4096);
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    const CallNode& n = tree.node(e.id);
    length.resize(e.depth);
    path.resize(e.depth ? length.back() : 0);
    if (e.depth) path += ';';
    path += frames[n.function];
    length.push_back(path.size());
    if (const uint64_t v = value_of(tree.base(e.id), value); v > 0) {
      buf += path;
      buf += ' ';
      char digits[24];
      buf.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
      buf += '\n';
      if (buf.size() >= kFlushBytes) {
        out.write(buf.data(), std::streamsize(buf.size()));
        buf.clear();
      }
    }
    for (NodeId k = n.first_child; k != kNoNode; k = tree.node(k).next_sibling) stack.push_back({k, e.depth + 1});
  }
  out.write(buf.data(), std::streamsize(buf.size()));
  return out ? Status(Ok{}) : make_error("writing the collapsed stacks failed");
}

}  // namespace callprof
