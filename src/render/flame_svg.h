// The flame graph (and icicle) as one self-contained SVG with its script embedded: hover
// details, click to zoom, search with the matched share, reset; optionally coloured by the
// change against a base profile. The page of `callprof html` may embed it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "query/query.h"
#include "util/result.h"

namespace callprof {

// What a frame's width measures: the subtree sum of one per-node metric.
enum class FlameMetric : uint8_t {
  Self,  // wall time ("self" as in collapsed stacks: each path's own time, summed up)
  Cpu,
  OffCpu,
  Samples,
  Calls,
  Allocs,
  AllocBytes,
  Syscalls,
  SyscallTime,
};

// "self", "cpu", "offcpu", "samples", "calls", "allocs", "allocbytes", "syscalls",
// "syscalltime"; nullopt for another name.
std::optional<FlameMetric> parse_flame_metric(std::string_view name);
std::string_view flame_metric_name(FlameMetric m);
// Every name, comma-separated, for messages.
std::string flame_metric_names();

enum class FlameColors : uint8_t {
  Name,    // warm colours from a hash of the function's name (stable across runs)
  Module,  // one colour family per module
};

struct FlameOptions {
  FlameMetric metric = FlameMetric::Self;
  bool icicle = false;  // roots at the top, callees below
  FlameColors colors = FlameColors::Name;
  double width_px = 1200;
  double min_width_px = 0.1;       // narrower frames are elided (merged or dropped)
  const Analysis* base = nullptr;  // set: colour each frame by its change against this profile
  bool normalize = false;          // with base: scale the base to this profile's total
  std::string base_label{};        // with base: how the title names it (e.g. its file)
};

struct FlamePicture {
  std::string svg;
  size_t frames = 0;          // drawn, with the root frame and merged narrow frames
  uint64_t paths = 0;         // call paths with a non-zero value
  uint64_t elided_paths = 0;  // paths not drawn as a frame of their own
};

// Errors (one line): the metric is not measured in the profile (or in the base), naming
// those that are; a width that cannot be drawn.
Result<FlamePicture> render_flame(const Analysis& analysis, const FlameOptions& options);
Result<std::string> render_flame_svg(const Analysis& analysis, const FlameOptions& options);

}  // namespace callprof
