#include "query/sample_agreement.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace callprof {
namespace {

struct Sums {
  uint64_t exact_ns = 0, samples = 0;
};

// Each node's samples go to the nearest node at or above it that exact mode measured (it
// has calls); a depth-first walk carries that owner down.
std::map<FunctionId, Sums> sums_by_function(const CallTree& tree, bool cpu_measured, uint64_t& all_samples) {
  std::map<FunctionId, Sums> out;
  std::vector<std::pair<NodeId, NodeId>> todo;  // node, its owner (kNoNode: none yet)
  for (NodeId c = tree.nodes()[kRootNode].first_child; c != kNoNode; c = tree.nodes()[c].next_sibling)
    todo.emplace_back(c, kNoNode);
  while (!todo.empty()) {
    const auto [n, above] = todo.back();
    todo.pop_back();
    const MetricRow m = tree.base(n);
    const bool exact = uint64_t(m[Metric::Calls]) > 0;
    const NodeId owner = exact ? n : above;
    if (exact) out[tree.nodes()[n].function].exact_ns += cpu_measured ? m[Metric::CpuNs] : m[Metric::WallNs];
    all_samples += m[Metric::Samples];
    if (owner != kNoNode) out[tree.nodes()[owner].function].samples += m[Metric::Samples];
    for (NodeId c = tree.nodes()[n].first_child; c != kNoNode; c = tree.nodes()[c].next_sibling)
      todo.emplace_back(c, owner);
  }
  return out;
}

uint64_t distance(const SampleDisagreement& d) {
  return d.exact_ns > d.sampled_ns ? d.exact_ns - d.sampled_ns : d.sampled_ns - d.exact_ns;
}

}  // namespace

std::vector<SampleDisagreement> sample_disagreements(const CallTree& tree, double period_ns, bool cpu_measured,
                                                     double min_share) {
  uint64_t all_samples = 0;
  const std::map<FunctionId, Sums> sums = sums_by_function(tree, cpu_measured, all_samples);
  const double floor_ns = min_share * double(all_samples) * period_ns;
  std::vector<SampleDisagreement> out;
  for (const auto& [f, s] : sums) {
    SampleDisagreement d{f, s.exact_ns, uint64_t(std::llround(double(s.samples) * period_ns)),
                         uint64_t(std::llround(3 * std::sqrt(double(std::max<uint64_t>(s.samples, 1))) * period_ns))};
    if (distance(d) > d.error_ns && double(distance(d)) >= floor_ns) out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return distance(a) > distance(b); });
  return out;
}

}  // namespace callprof
