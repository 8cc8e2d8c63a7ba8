#include "model/transform/sampled_time.h"

#include <cmath>

namespace callprof {

Result<double> sample_period_ns(const Profile& profile) {
  const auto& s = profile.meta.sampling;
  if (!s || s->samples == 0)
    return make_error("--time sampled: the profile has no samples (record it with -F HZ, or in sample mode)");
  if (s->event != "cpu-clock" || s->frequency_hz == 0)
    return make_error("--time sampled: the samples are of " + s->event +
                      (s->frequency_hz ? "" : " at rates that differ between the merged profiles") +
                      ", not of cpu-clock at one rate: they stand for no time");
  return 1e9 / double(s->frequency_hz);
}

void use_sampled_time(CallTree& tree, double period_ns) {
  for (NodeId n = 0; n < tree.size(); ++n) {
    MetricRowRef row = tree.base(n);
    const uint64_t ns = uint64_t(std::llround(double(uint64_t(row[Metric::Samples])) * period_ns));
    // Cells written only where they change: a written cell adds its column to the table.
    const auto set = [&](Metric m, uint64_t v) {
      if (uint64_t(row[m]) != v) row[m] = v;
    };
    set(Metric::WallNs, ns);
    set(Metric::CpuNs, ns);
    set(Metric::OffCpuNs, 0);
    set(Metric::PreemptedNs, 0);
    if (row.has_min(Metric::MinWallNs)) row[Metric::MinWallNs] = Metrics::kUnset;
    set(Metric::MaxWallNs, 0);
  }
}

}  // namespace callprof
