#include "record/exact_samples.h"

namespace callprof::record {

void ExactSamples::add(const syscalls::SampleEvent& e) {
  ++total_;
  if (e.in_runtime) {
    ++in_runtime_;
    return;
  }
  const auto seen = images_.find(e.pid);
  const uint32_t image = seen == images_.end() ? 0 : seen->second;
  const Key key{e.pid, e.tid, image, e.context ? e.context->node : 0, e.context ? e.context->fn : 0, e.ip, e.in_kernel};
  auto [it, added] = sums_.try_emplace(key, Sum{int64_t(e.time_ns), 0});
  ++it->second.count;
}

std::vector<NodeSample> ExactSamples::samples() const {
  std::vector<NodeSample> out;
  out.reserve(sums_.size());
  for (const auto& [k, sum] : sums_)
    out.push_back({k.pid, k.tid, sum.first_ns, k.node, k.fn, k.ip, k.in_kernel, sum.count});
  return out;
}

}  // namespace callprof::record
