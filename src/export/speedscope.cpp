// speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json): one
// weighted "sampled" profile per selected thread, one sample per call-tree node with its own
// (self) wall time, the stack root first, weighted in nanoseconds; one shared frame per function.
//
// Streaming: a first pass per thread finds its total and the functions its samples use, so
// the frames table and each profile's endValue are written before the samples, which then
// go out as they are visited. Only the current stack's text and the thread's weights are
// held, never the document; output is buffered in large blocks.
#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/block_output.h"
#include "export/export.h"
#include "util/escape.h"

namespace callprof {
namespace {

// A selected thread's tree as speedscope sees it: --focus and --hide applied. Without
// either, the profile's own tree is the thread's tree: no copy.
class ThreadTrees {
 public:
  explicit ThreadTrees(const Analysis& a) : a_(a), own_(a.options().focus.empty() && a.options().hide.empty()) {
    if (!own_) {
      transformed_.reserve(a.threads().size());
      for (size_t t : a.threads()) transformed_.push_back(a.thread_tree(t));
    }
  }
  // The k-th selected thread's tree.
  const CallTree& operator[](size_t k) const {
    return own_ ? a_.profile().threads[a_.threads()[k]].tree : transformed_[k];
  }

 private:
  const Analysis& a_;
  const bool own_;
  std::vector<CallTree> transformed_;
};

class SpeedscopeWriter : public BlockOutput {
 public:
  SpeedscopeWriter(const Analysis& a, std::ostream& out) : BlockOutput(out), a_(a), trees_(a) {}

  void write();

 private:
  void scan(const CallTree& tree);
  void write_frames();
  void write_profile(size_t k);
  uint32_t& frame_slot(FunctionId f) { return f < frame_of_.size() ? frame_of_[f] : other_frames_[f]; }

  const Analysis& a_;
  ThreadTrees trees_;
  std::vector<uint64_t> totals_;                           // per selected thread: the sum of its weights
  std::vector<uint32_t> frame_of_;                         // by FunctionId: frame index + 1, 0 = unused
  std::unordered_map<FunctionId, uint32_t> other_frames_;  // ids outside the table (damaged input)
  std::vector<FunctionId> frames_;                         // by frame index
};

// The thread's total weight, and the functions on the stack of any sample it will have:
// those of nodes whose subtree holds self time. Children come after their parents (the
// tree's invariant), so one backward pass finds them.
void SpeedscopeWriter::scan(const CallTree& tree) {
  std::vector<char> live(tree.size(), 0);
  uint64_t total = 0;
  for (NodeId id = NodeId(tree.size()); id-- > 1;) {
    const CallNode& n = tree.node(id);
    if (const uint64_t w = tree.base(id)[Metric::WallNs]; w > 0) {
      total += w;
      live[id] = 1;
    }
    if (!live[id]) continue;
    if (n.parent != kNoNode) live[n.parent] = 1;
    uint32_t& slot = frame_slot(n.function);
    if (slot == 0) {
      frames_.push_back(n.function);
      slot = uint32_t(frames_.size());
    }
  }
  totals_.push_back(total);
}

void SpeedscopeWriter::write() {
  frame_of_.assign(a_.profile().functions.size(), 0);
  for (size_t k = 0; k < a_.threads().size(); ++k) scan(trees_[k]);
  // Frames in function-table order, so equal profiles give equal files.
  std::sort(frames_.begin(), frames_.end());
  for (size_t i = 0; i < frames_.size(); ++i) frame_slot(frames_[i]) = uint32_t(i + 1);

  const Metadata& meta = a_.profile().meta;
  // The export library has no build version of its own: the version that recorded.
  const std::string exporter = meta.callprof_version.empty() ? "callprof" : "callprof " + meta.callprof_version;
  const auto busy = std::find_if(totals_.begin(), totals_.end(), [](uint64_t t) { return t > 0; });
  buf_ += R"({"$schema":"https://www.speedscope.app/file-format-schema.json","exporter":)";
  buf_ += json_string(exporter);
  buf_ += R"(,"name":)";
  buf_ += json_string(meta.command.empty() ? "callprof profile" : meta.command);
  // Open on the first thread that has anything to show.
  buf_ += R"(,"activeProfileIndex":)";
  number(busy == totals_.end() ? 0 : uint64_t(busy - totals_.begin()));
  buf_ += ",\n";
  write_frames();
  buf_ += R"("profiles":[)";
  for (size_t k = 0; k < a_.threads().size(); ++k) {
    if (k) buf_ += ',';
    buf_ += '\n';
    write_profile(k);
  }
  buf_ += "]}\n";
}

void SpeedscopeWriter::write_frames() {
  buf_ += R"("shared":{"frames":[)";
  const auto& functions = a_.profile().functions;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const FunctionId f = frames_[i];
    buf_ += i ? ",\n" : "\n";
    buf_ += R"({"name":)";
    buf_ += json_string(a_.full_name(f));
    if (f < functions.size()) {
      if (!functions[f].file.empty()) {
        buf_ += R"(,"file":)";
        buf_ += json_string(functions[f].file);
      }
      if (functions[f].line != 0) {
        buf_ += R"(,"line":)";
        number(functions[f].line);
      }
    }
    buf_ += '}';
    maybe_flush();
  }
  buf_ += "]},\n";
}

// Depth first, children in order, keeping only the current stack's text (its length per
// depth), never one stack per node; an explicit stack, since recursion can make the tree
// arbitrarily deep.
void SpeedscopeWriter::write_profile(size_t k) {
  const CallTree& tree = trees_[k];
  const Thread& t = a_.profile().threads[a_.threads()[k]];
  std::string name = "tid " + std::to_string(t.tid);
  if (!t.name.empty()) name += " " + t.name;
  buf_ += R"({"type":"sampled","name":)";
  buf_ += json_string(name);
  buf_ += R"(,"unit":"nanoseconds","startValue":0,"endValue":)";
  number(totals_[k]);
  buf_ += R"(,"samples":[)";

  struct Entry {
    NodeId id;
    uint32_t depth;
  };
  std::vector<Entry> stack;
  const auto push_children = [&](NodeId parent, uint32_t depth) {
    const size_t first = stack.size();
    for (NodeId c = tree.node(parent).first_child; c != kNoNode; c = tree.node(c).next_sibling)
      stack.push_back({c, depth});
    std::reverse(stack.begin() + std::ptrdiff_t(first), stack.end());
  };
  std::vector<size_t> length;  // stack text length up to and including each depth
  std::string path;            // "i0,i1,...": frame indices, root first
  std::vector<uint64_t> weights;
  push_children(kRootNode, 0);
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    const CallNode& n = tree.node(e.id);
    const uint32_t frame = frame_slot(n.function);
    if (frame == 0) continue;  // no self time anywhere below: no sample would use it
    length.resize(e.depth);
    path.resize(e.depth ? length.back() : 0);
    if (e.depth) path += ',';
    char digits[12];
    path.append(digits, std::to_chars(digits, digits + sizeof digits, frame - 1).ptr);
    length.push_back(path.size());
    if (const uint64_t w = tree.base(e.id)[Metric::WallNs]; w > 0) {
      buf_ += weights.empty() ? "[" : ",[";
      buf_ += path;
      buf_ += ']';
      weights.push_back(w);
      maybe_flush();
    }
    push_children(e.id, e.depth + 1);
  }
  buf_ += R"(],"weights":[)";
  for (size_t i = 0; i < weights.size(); ++i) {
    if (i) buf_ += ',';
    number(weights[i]);
    maybe_flush();
  }
  buf_ += "]}";
}

}  // namespace

Status write_speedscope(const Analysis& analysis, std::ostream& out) {
  SpeedscopeWriter writer(analysis, out);
  writer.write();
  return writer.flush() ? Status(Ok{}) : make_error("writing the speedscope profile failed");
}

}  // namespace callprof
