// Numbers and durations typed by a user: one parser per kind, each with a range, each
// failing with one line that names what was expected. Nothing here accepts NaN, infinity,
// hexadecimal, exponents in counts, trailing garbage or a value that would overflow.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace callprof {

// A whole number written in decimal digits only, between min and max.
Result<uint64_t> parse_count(std::string_view text, uint64_t min, uint64_t max);

// A finite decimal number (exponents allowed: 1e-3), between min and max.
Result<double> parse_real(std::string_view text, double min, double max);

// Seconds as a finite decimal number up to kMaxSeconds, in nanoseconds; zero (or what
// rounds to 0 ns) only when `zero_allowed`.
inline constexpr double kMaxSeconds = 366.0 * 24 * 3600;  // a year: ample, and far from int64 ns overflow
Result<int64_t> parse_seconds_ns(std::string_view text, bool zero_allowed);

// A duration with a unit (ns, us, ms, s; a bare number is ns): "250ns", "1.5ms", "2s";
// positive and at most kMaxSeconds.
Result<uint64_t> parse_duration_ns(std::string_view text, bool zero_allowed = false);

}  // namespace callprof
