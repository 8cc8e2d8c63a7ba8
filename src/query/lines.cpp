// A function's costs by line and instruction (see lines.h).
#include "query/lines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace callprof {
namespace {

void add_call(std::vector<CallsFrom>& calls, const CallsFrom& c) {
  auto it = std::find_if(calls.begin(), calls.end(), [&](const CallsFrom& x) { return x.callee == c.callee; });
  if (it == calls.end()) return calls.push_back(c);
  it->calls += c.calls;
  it->wall_ns += c.wall_ns;
  it->cpu_ns += c.cpu_ns;
  it->samples += c.samples;
}

// Most expensive callee first (samples, then time, then calls), stable by id.
void sort_calls(std::vector<CallsFrom>& calls) {
  std::sort(calls.begin(), calls.end(), [](const CallsFrom& a, const CallsFrom& b) {
    return std::tie(b.samples, b.wall_ns, b.calls, a.callee) < std::tie(a.samples, a.wall_ns, a.calls, b.callee);
  });
}

}  // namespace

CodeIndex::CodeIndex(const Profile& profile, std::span<const size_t> threads)
    : profile_(profile), by_function_(profile.functions.size()), own_(profile.functions.size()) {
  for (size_t index : threads) add_thread(profile.threads[index].tree, profile.threads[index].code, nullptr, nullptr);
}

CodeIndex::CodeIndex(const Analysis& a)
    : profile_(a.profile()), by_function_(profile_.functions.size()), own_(profile_.functions.size()) {
  for (size_t index : a.threads()) {
    const Thread& t = profile_.threads[index];
    if (!a.transforms_trees()) {
      add_thread(t.tree, t.code, nullptr, nullptr);
      continue;
    }
    NodeImage image;
    const CallTree view = a.thread_tree(index, &image);
    add_thread(t.tree, relocated(t.code, t.tree, image), &view, &image);
  }
}

// Calls from a place are measured on the own tree's node (its part of the view's node, which
// can merge several); whether a recursive callee is outermost is asked of the view.
void CodeIndex::add_thread(const CallTree& tree, const CodeCosts& code, const CallTree* view, const NodeImage* image) {
  const auto in_table = [&](LocationId l) {
    return l < profile_.locations.size() && profile_.locations[l].function < by_function_.size();
  };
  const CallTree& shown = view ? *view : tree;
  for (NodeId n = 1; n < shown.size(); ++n) {
    const FunctionId f = shown.node(n).function;
    if (f >= own_.size()) continue;
    const MetricRow m = shown.base(n);
    own_[f].calls += m[Metric::Calls];
    own_[f].wall_ns += m[Metric::WallNs];
    own_[f].cpu_ns += m[Metric::CpuNs];
    own_[f].samples += m[Metric::Samples];
  }
  for (const InstructionSamples& i : code.instructions)
    if (i.node < tree.size() && in_table(i.location))
      by_function_[profile_.locations[i.location].function].push_back({i.location, i.samples, i.cpu_ns, {}});
  if (code.call_sites.empty()) return;
  const MetricTable cum = cumulative(tree, std::array{Metric::WallNs, Metric::CpuNs, Metric::Samples});
  const std::vector<uint32_t> level = recursion_levels(shown);
  const std::vector<SiteShare> share = site_shares(code.call_sites, tree.size());
  for (size_t i = 0; i < code.call_sites.size(); ++i) {
    const CallSite& c = code.call_sites[i];
    if (c.node >= tree.size()) continue;
    // A place not known (a tail call's) is its caller's: the parent's function, when shown.
    const NodeId parent = tree.node(c.node).parent;
    const bool unplaced = c.location == kNoLocation && parent != kRootNode &&
                          tree.node(parent).function < by_function_.size() &&
                          !(image && parent < image->folded.size() && image->folded[parent]);
    if (!unplaced && !in_table(c.location)) continue;
    const MetricRow total = cum[c.node];
    // An inner recursive call's time is inside the outer one's: counted there.
    const NodeId in_view = image ? image->node[c.node] : c.node;
    const double time = level[in_view] == 0 ? share[i].time : 0;
    const auto part = [](uint64_t v, double f) { return uint64_t(std::llround(double(v) * f)); };
    CallsFrom from{tree.node(c.node).function, part(tree.base(c.node)[Metric::Calls], share[i].calls),
                   part(total[Metric::WallNs], time), part(total[Metric::CpuNs], time),
                   part(total[Metric::Samples], time)};
    const FunctionId caller = unplaced ? tree.node(parent).function : profile_.locations[c.location].function;
    by_function_[caller].push_back({c.location, 0, 0, from});
  }
}

FunctionCode CodeIndex::of(FunctionId f) const {
  FunctionCode out;
  out.function = f;
  if (f >= by_function_.size()) return out;
  out.calls = own_[f].calls;
  out.self_wall_ns = own_[f].wall_ns;
  out.self_cpu_ns = own_[f].cpu_ns;
  out.self_samples = own_[f].samples;
  std::map<std::pair<uint32_t, uint32_t>, CodeCost> lines;
  std::map<uint64_t, CodeCost> instructions;
  for (const Entry& e : by_function_[f]) {
    if (e.location == kNoLocation) {
      add_call(out.unplaced_calls, e.calls);
      continue;
    }
    const CodeLocation& l = profile_.locations[e.location];
    for (CodeCost* c : {&lines[{l.file, l.line}], &instructions[l.address]}) {
      c->file = l.file;
      c->line = l.line;
      c->samples += e.samples;
      c->cpu_ns += e.cpu_ns;
      if (e.calls.callee != kNoFunction) add_call(c->calls, e.calls);
    }
    out.samples += e.samples;
    out.cpu_ns += e.cpu_ns;
  }
  for (auto& [key, c] : lines) {
    sort_calls(c.calls);
    out.lines.push_back(std::move(c));
  }
  for (auto& [address, c] : instructions) {
    c.address = address;
    sort_calls(c.calls);
    out.instructions.push_back(std::move(c));
  }
  sort_calls(out.unplaced_calls);
  return out;
}

std::vector<FunctionId> CodeIndex::functions() const {
  std::vector<std::pair<uint64_t, FunctionId>> order;
  for (FunctionId f = 0; f < by_function_.size(); ++f) {
    if (by_function_[f].empty()) continue;
    uint64_t samples = 0;
    for (const Entry& e : by_function_[f]) samples += e.samples;
    order.push_back({samples, f});
  }
  std::sort(order.begin(), order.end(),
            [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<FunctionId> out;
  for (auto [samples, f] : order) out.push_back(f);
  return out;
}

LineColumns line_columns(const Analysis& a) {
  const RecordingModes& mode = a.profile().meta.mode;
  return {a.total(Metric::Samples) > 0, mode.has(RecordingMode::Exact) || mode.has(RecordingMode::Probe)};
}

std::vector<uint32_t> files_of(const Profile& p, const FunctionCode& code) {
  std::vector<uint32_t> files;
  for (const CodeCost& c : code.lines)
    if (std::find(files.begin(), files.end(), c.file) == files.end()) files.push_back(c.file);
  const std::string& own = code.function < p.functions.size() ? p.functions[code.function].file : std::string();
  std::stable_partition(files.begin(), files.end(),
                        [&](uint32_t f) { return f < p.source_files.size() && p.source_files[f] == own; });
  return files;
}

std::vector<uint32_t> lines_to_show(std::span<const uint32_t> annotated, uint32_t first_line, size_t context,
                                    size_t file_lines) {
  std::set<uint32_t> show;
  auto around = [&](uint32_t line) {
    const uint64_t lo = line > context ? line - context : 1;
    for (uint64_t l = lo; l <= uint64_t(line) + context && l <= file_lines; ++l) show.insert(uint32_t(l));
  };
  if (first_line) around(first_line);
  for (uint32_t line : annotated) {
    around(line);
    show.insert(line);
  }
  return {show.begin(), show.end()};
}

}  // namespace callprof
