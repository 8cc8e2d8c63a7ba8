// Diff's noise: the typical change and its spread (weighted medians), the row threshold.
#include "query/diff_noise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace callprof {
namespace {

struct Weighted {
  double value = 0, weight = 0;
  size_t index = 0;  // of the function in the caller's list
  double known = 0;  // ValuePair::known
};

// The value at which half the weight lies on each side.
double weighted_median(std::vector<Weighted> v) {
  std::sort(v.begin(), v.end(), [](const Weighted& a, const Weighted& b) { return a.value < b.value; });
  double total = 0;
  for (const Weighted& w : v) total += w.weight;
  double seen = 0;
  for (const Weighted& w : v) {
    seen += w.weight;
    if (seen >= total / 2) return w.value;
  }
  return v.empty() ? 0 : v.back().value;
}

// Log ratios, so that x2 and x0.5 are as far from x1, weighted by the share of both runs (so
// that neither run's size decides alone).
std::vector<Weighted> log_ratios(std::span<const ValuePair> functions) {
  double base_total = 0, next_total = 0;
  for (const ValuePair& f : functions) {
    base_total += f.base;
    next_total += f.next;
  }
  std::vector<Weighted> logs;
  for (size_t i = 0; i < functions.size(); ++i) {
    const ValuePair& f = functions[i];
    if (f.base <= 0 || f.next <= 0) continue;
    logs.push_back({std::log(f.next / f.base), f.base / base_total + f.next / next_total, i, f.known});
  }
  return logs;
}

double band(double deviation, double min_spread) {
  return std::max(min_spread, std::exp(kSpreadWidth * deviation) - 1);
}

constexpr double kSupportMargin = 0.02;

struct Pair {
  double difference = 0, weight = 0;
  size_t a = 0, b = 0;  // the functions' indices in the caller's list
};

// The weighted median of the pairs' differences (sorted), leaving out the pairs of function
// `skip`; 0 when none is left.
double pair_median(const std::vector<Pair>& pairs, size_t skip) {
  auto kept = [skip](const Pair& p) { return p.a != skip && p.b != skip; };
  double total = 0;
  for (const Pair& p : pairs)
    if (kept(p)) total += p.weight;
  double seen = 0;
  for (const Pair& p : pairs) {
    if (!kept(p)) continue;
    seen += p.weight;
    if (seen >= total / 2) return p.difference;
  }
  return 0;
}

// Spreads over `logs` (the kPairFunctions heaviest count), `functions` entries of `without`.
Spreads spreads(std::vector<Weighted> logs, size_t functions, double min_spread) {
  std::sort(logs.begin(), logs.end(), [](const Weighted& a, const Weighted& b) { return a.weight > b.weight; });
  logs.resize(std::min(logs.size(), kPairFunctions));
  std::vector<Pair> pairs;
  for (size_t j = 0; j < logs.size(); ++j)
    for (size_t k = j + 1; k < logs.size(); ++k)
      pairs.push_back({std::max(0.0, std::abs(logs[j].value - logs[k].value) - logs[j].known - logs[k].known),
                       logs[j].weight * logs[k].weight, logs[j].index, logs[k].index});
  std::sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.difference < y.difference; });
  // Without a pair left (two functions), nothing is known of the others: the least spread.
  Spreads s;
  s.all = band(pair_median(pairs, SIZE_MAX), min_spread);
  s.without.assign(functions, s.all);
  for (const Weighted& f : logs) s.without[f.index] = band(pair_median(pairs, f.index), min_spread);
  return s;
}

// The weight of the functions whose log ratio is within `spread` (or their own error) of
// `center`.
double support(const std::vector<Weighted>& logs, double center, double spread) {
  double sum = 0;
  for (const Weighted& w : logs)
    if (std::abs(w.value - center) <= std::max(std::log1p(spread), w.known)) sum += w.weight;
  return sum;
}

// The candidate (log ratio) most of the weight agrees with; earlier candidates win ties, and
// a candidate must gain more than kSupportMargin of the weight to beat an earlier one (a few
// tiny functions must not decide).
double best_supported(const std::vector<Weighted>& logs, const std::vector<double>& candidates, double spread,
                      double weight, double& best) {
  double chosen = candidates.front();
  best = -1;
  for (double c : candidates)
    if (const double s = support(logs, c, spread); s > best + kSupportMargin * weight) {
      best = s;
      chosen = c;
    }
  return chosen;
}

}  // namespace

TypicalChange typical_change(std::span<const ValuePair> functions, double min_spread) {
  TypicalChange t;
  std::vector<Weighted> logs = log_ratios(functions);
  t.functions = logs.size();
  if (logs.empty()) {
    t.spread = min_spread;
    return t;
  }
  double weight = 0, heaviest = 0;
  for (const Weighted& w : logs) weight += w.weight, heaviest = std::max(heaviest, w.weight);
  t.dominated = heaviest > weight / 2;
  t.spread = spreads(logs, functions.size(), min_spread).all;
  std::vector<double> candidates{0.0, weighted_median(logs)};
  std::sort(logs.begin(), logs.end(), [](const Weighted& a, const Weighted& b) { return a.weight > b.weight; });
  for (size_t i = 0; i < logs.size() && i < kPairFunctions; ++i) candidates.push_back(logs[i].value);
  double agreeing = 0;
  t.ratio = std::exp(best_supported(logs, candidates, t.spread, weight, agreeing));
  t.support = agreeing / weight;
  t.ambiguous = t.support < 0.5;
  return t;
}

Spreads spreads_among(std::span<const ValuePair> functions, const std::vector<bool>& keep, double min_spread) {
  std::vector<Weighted> logs;
  for (const Weighted& w : log_ratios(functions))
    if (w.index < keep.size() && keep[w.index]) logs.push_back(w);
  return spreads(std::move(logs), functions.size(), min_spread);
}

double NoiseModel::side_error(double value, uint64_t hooked, uint64_t refolded, uint64_t samples, uint64_t switches,
                              bool base) const {
  double error = (base ? hook_ns_base : hook_ns_next) * double(hooked) +
                 (base ? refold_ns_base : refold_ns_next) * double(refolded);
  // A value made of n samples is off by about value / sqrt(n) (Poisson counts).
  double variance = switch_sigma_ns * switch_sigma_ns * double(switches);
  if ((base ? sampled_base : sampled_next) && samples) variance += value * value / double(samples);
  return error + 3 * std::sqrt(variance);
}

double NoiseModel::threshold(const RowNumbers& r) const {
  // A ratio off by the spread either way: of the smaller side (a function half as fast is as
  // far from x1 as one twice as fast).
  double noise = r.spread * std::min(r.base, r.next);
  // The new side's value is scaled, its errors with it (side_error takes it unscaled).
  noise += side_error(r.base, r.hooked_base, r.refolded_base, r.samples_base, r.switches_base, true);
  if (scale > 0)
    noise += scale * side_error(r.next / scale, r.hooked_next, r.refolded_next, r.samples_next, r.switches_next, false);
  return std::max(noise, min_change);
}

double NoiseModel::log_error(const RowNumbers& r) const {
  if (r.base <= 0 || r.next <= 0) return 0;
  return side_error(r.base, r.hooked_base, r.refolded_base, r.samples_base, r.switches_base, true) / r.base +
         side_error(r.next, r.hooked_next, r.refolded_next, r.samples_next, r.switches_next, false) / r.next;
}

double hook_uncertainty_ns(double cost, double other) {
  if (cost <= 0) return 0;
  return std::max(kHookCostUncertainty * cost, other > 0 ? std::abs(cost - other) : 0.0);
}

}  // namespace callprof
