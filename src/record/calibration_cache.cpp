#include "record/calibration_cache.h"

#include <cpuid.h>
#include <fmt/format.h>
#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "util/user_cache.h"
#include "util/whole_file.h"

namespace callprof::record {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Each runtime build and each boot has a file of its own: beyond this many, the ones
// written longest ago go.
constexpr size_t kCacheFilesKept = 16;

constexpr uint64_t wire::DumpHookCosts::*kCostFields[] = {
    &wire::DumpHookCosts::leaf_inner, &wire::DumpHookCosts::leaf_outer, &wire::DumpHookCosts::excluded,
    &wire::DumpHookCosts::folded,     &wire::DumpHookCosts::caller,     &wire::DumpHookCosts::recursive};

bool has(uint32_t sets, uint32_t i) { return (sets >> i) & 1u; }

// The median over the history's entries of the value `of` reads from each.
template <typename Of>
auto median(const CalibrationHistory& h, Of of) {
  std::vector<decltype(of(h.entries[0]))> v;
  for (const CalibrationEntry& e : h.entries) v.push_back(of(e));
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A measurement worth keeping: a rate, a check value, and a leaf's inner and outer costs
// both above 0 for every set of `sets`. A hooked call reads the clock inside its callee, so
// an inner cost of 0 is a hook path that recorded nothing timed: the calibration under
// --max-depth or --min-duration did that until session 47, and an attached window's check
// at its end until session 48 (glibc's empty hooks, check values a fifth of the others').
// Learnt, such entries took the auto-fold threshold of every later recording below what any
// call costs.
bool usable(const wire::CalibrationFile& f, uint32_t sets) {
  if (!(f.ticks_per_ns > 0 && f.ticks_per_ns < 1e3) || (f.sets & sets) != sets) return false;
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (has(sets, i) && (f.check[i] == 0 || f.costs[i].leaf_inner == 0 || f.costs[i].leaf_outer == 0)) return false;
  return true;
}

CalibrationEntry entry_of(const wire::CalibrationFile& f, uint32_t sets) {
  CalibrationEntry e;
  e.ticks_per_ns = f.ticks_per_ns;
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (has(sets, i)) {
      e.costs[i] = f.costs[i];
      e.check[i] = f.check[i];
    }
  return e;
}

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// The processor's brand string (what /proc/cpuinfo calls "model name") and its signature,
// straight from CPUID: /proc/cpuinfo took 25-50 us to read, the kernel asking each CPU its
// frequency.
std::string cpu_model() {
  unsigned regs[12] = {};
  if (__get_cpuid_max(0x80000000, nullptr) < 0x80000004) return "";
  for (unsigned leaf = 0; leaf < 3; ++leaf)
    __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
  char brand[sizeof regs + 1] = {};
  std::memcpy(brand, regs, sizeof regs);
  unsigned signature = 0, b = 0, c = 0, d = 0;
  __get_cpuid(1, &signature, &b, &c, &d);
  std::string_view name(brand);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return fmt::format("{} ({:x})", name, signature);
}

}  // namespace

const char* calibration_outcome_name(CalibrationOutcome o) {
  switch (o) {
    case CalibrationOutcome::Measured:
      return "measured";
    case CalibrationOutcome::Cached:
      return "cached";
    case CalibrationOutcome::Unchecked:
      return "unchecked";
    case CalibrationOutcome::None:
      break;
  }
  return "";
}

std::optional<wire::CalibrationFile> seed_from(const CalibrationHistory& h, uint32_t sets) {
  if (sets == 0 || h.entries.size() < kCalibrationHistoryNeeded) return std::nullopt;
  wire::CalibrationFile f{};
  std::memcpy(f.magic, wire::kCalibrationMagic, sizeof f.magic);
  f.sets = f.cached_sets = sets;
  f.ticks_per_ns = median(h, [](const CalibrationEntry& e) { return e.ticks_per_ns; });
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    if (!has(sets, i)) continue;
    f.check[i] = median(h, [i](const CalibrationEntry& e) { return e.check[i]; });
    for (auto field : kCostFields)
      f.costs[i].*field = median(h, [i, field](const CalibrationEntry& e) { return e.costs[i].*field; });
  }
  for (const CalibrationEntry& e : h.entries) {
    if (f.alternates == wire::kCalibrationAlternates) break;
    for (uint32_t i = 0; i < wire::kHookSets; ++i)
      if (has(sets, i)) {
        f.alternate_costs[f.alternates][i] = e.costs[i];
        f.alternate_check[f.alternates][i] = e.check[i];
      }
    ++f.alternates;
  }
  return f;
}

CalibrationOutcome outcome_of(const wire::CalibrationFile& f, uint32_t sets) {
  if (sets == 0) return CalibrationOutcome::None;
  if ((f.checked_sets & sets) == sets) return CalibrationOutcome::Cached;
  if ((f.sets & sets) == sets && (f.cached_sets & sets) == 0) return CalibrationOutcome::Measured;
  if ((f.cached_sets & sets) == sets && (f.failed_sets & sets) == 0) return CalibrationOutcome::Unchecked;
  return CalibrationOutcome::None;
}

std::optional<double> change_at_exit(const wire::CalibrationFile& f, uint32_t sets) {
  std::optional<double> largest;
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (has(sets, i) && has(f.rechecked_sets, i)) {
      const double change = f.recheck_change_permille[i] / 1000.0;
      if (!largest || std::abs(change) > std::abs(*largest)) largest = change;
    }
  return largest;
}

bool measurement_due() {
  // getrandom, not std::random_device, which throws where no source can be opened.
  uint32_t draw = 0;
  if (getrandom(&draw, sizeof draw, GRND_NONBLOCK) != ssize_t(sizeof draw))
    draw = uint32_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return draw % kMeasureOneIn == 0;
}

bool learn(CalibrationHistory& h, const wire::CalibrationFile& f, uint32_t sets) {
  switch (outcome_of(f, sets)) {
    case CalibrationOutcome::Cached:
    case CalibrationOutcome::Unchecked:
      return false;
    case CalibrationOutcome::Measured:
      if (!usable(f, sets)) return false;
      // After a failed check too: a check fails now and then on a busy machine, and
      // restarting the history cost three full measurements for each such fluke. A machine
      // that really changed fails the checks until its new measurements are the median:
      // three, as many as a restart took.
      h.entries.push_back(entry_of(f, sets));
      if (h.entries.size() > kCalibrationHistoryKept)
        h.entries.erase(h.entries.begin(), h.entries.end() - kCalibrationHistoryKept);
      return true;
    case CalibrationOutcome::None:
      return false;
  }
  return false;
}

std::string history_json(const CalibrationHistory& h, const std::string& key) {
  json entries = json::array();
  for (const CalibrationEntry& e : h.entries) {
    json costs = json::array(), check = json::array();
    for (uint32_t i = 0; i < wire::kHookSets; ++i) {
      json c = json::array();
      for (auto field : kCostFields) c.push_back(e.costs[i].*field);
      costs.push_back(c);
      check.push_back(e.check[i]);
    }
    entries.push_back({{"ticks_per_ns", e.ticks_per_ns}, {"costs", costs}, {"check", check}});
  }
  return json{{"key", key}, {"entries", entries}}.dump(1) + "\n";
}

std::optional<CalibrationHistory> parse_history(const std::string& text, const std::string& key) {
  const json j = json::parse(text, nullptr, false);
  try {
    if (!j.is_object() || j.value("key", std::string()) != key) return std::nullopt;
    CalibrationHistory h;
    for (const json& e : j.at("entries")) {
      CalibrationEntry out;
      out.ticks_per_ns = e.at("ticks_per_ns").get<double>();
      const json &costs = e.at("costs"), &check = e.at("check");
      if (!(out.ticks_per_ns > 0 && out.ticks_per_ns < 1e3) || costs.size() != wire::kHookSets ||
          check.size() != wire::kHookSets)
        return std::nullopt;
      for (uint32_t i = 0; i < wire::kHookSets; ++i) {
        if (costs[i].size() != std::size(kCostFields)) return std::nullopt;
        for (size_t k = 0; k < std::size(kCostFields); ++k) out.costs[i].*kCostFields[k] = costs[i][k].get<uint64_t>();
        out.check[i] = check[i].get<uint64_t>();
      }
      h.entries.push_back(out);
    }
    if (h.entries.size() > kCalibrationHistoryKept) return std::nullopt;
    return h;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<wire::CalibrationFile> read_calibration_file(const std::string& dir) {
  const std::string bytes = read_whole_file(fs::path(dir) / "calibration");
  wire::CalibrationFile f;
  if (bytes.size() != sizeof f) return std::nullopt;
  std::memcpy(&f, bytes.data(), sizeof f);
  if (std::memcmp(f.magic, wire::kCalibrationMagic, sizeof f.magic) != 0) return std::nullopt;
  return f;
}

CalibrationCache CalibrationCache::open(const std::string& runtime, uint32_t sets, CalibrationConditions conditions) {
  CalibrationCache c;
  c.sets_ = sets;
  c.learns_ = !conditions.sampled;
  const auto dir = user_cache_dir();
  const auto runtime_id = file_identity(runtime);
  if (!dir || sets == 0 || !runtime_id) return c;
  c.key_ = fmt::format("runtime {} {}; boot {}; cpu {}; hooks {}{}", runtime, *runtime_id,
                       first_line("/proc/sys/kernel/random/boot_id"), cpu_model(), sets,
                       conditions.ordered_clock ? "; ordered clock" : "");
  c.path_ = (*dir / cache_file_name("calibration", c.key_, ".json")).string();
  return c;
}

void CalibrationCache::seed(const std::string& recording_dir, bool measure_due) const {
  if (path_.empty() || measure_due) return;
  const auto h = parse_history(read_whole_file(path_), key_);
  const auto f = h ? seed_from(*h, sets_) : std::nullopt;
  if (!f) return;
  std::ofstream out(fs::path(recording_dir) / "calibration", std::ios::binary);
  out.write(reinterpret_cast<const char*>(&*f), sizeof *f);
}

CalibrationReport CalibrationCache::learn_from(const std::string& recording_dir) const {
  const auto f = read_calibration_file(recording_dir);
  if (!f) return {};
  const CalibrationReport report{outcome_of(*f, sets_), change_at_exit(*f, sets_)};
  // Costs taken from the cache teach it nothing: its file is not read again.
  if (report.outcome != CalibrationOutcome::Measured || path_.empty() || !learns_) return report;
  CalibrationHistory h = parse_history(read_whole_file(path_), key_).value_or(CalibrationHistory{});
  if (learn(h, *f, sets_))
    (void)write_cache_file(path_, history_json(h, key_), "calibration", ".json", kCacheFilesKept);
  return report;
}

}  // namespace callprof::record
