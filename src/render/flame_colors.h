// Colours of the flame graph's frames: warm by a stable hash of the name (flamegraph.pl's
// "hot" palette) or one hue per module, distinct colours for synthetic frames, and the
// differential scale (red: grew, blue: shrank).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/profile.h"

namespace callprof {

// "#rrggbb", or "url(#hatch)" for the grey hatched pattern the SVG defines.
using FrameFill = std::string;
inline constexpr std::string_view kHatchFill = "url(#hatch)";
inline constexpr std::string_view kRootFill = "#c8c8c8";
inline constexpr std::string_view kMergedFill = "#dcdcdc";

// FNV-1a: the same on every run, machine and build (std::hash promises none of that).
uint32_t stable_hash(std::string_view text);

FrameFill name_fill(std::string_view name);
FrameFill module_fill(std::string_view module, std::string_view name);
// The fill of a synthetic kind (system call, kernel, pruned, truncated, thread group); ""
// for FunctionKind::Normal.
FrameFill kind_fill(FunctionKind kind, std::string_view name);
// The change from `base` to `next` (same units; next already scaled): white-grey when
// equal, deeper red the more it grew (relative to the larger), blue the more it shrank.
FrameFill diff_fill(double base, double next);

}  // namespace callprof
