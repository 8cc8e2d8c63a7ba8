// Text formatting shared by the text views: the units used in every column (time,
// percentages, counts). Escaping of untrusted text is in util/escape.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/escape.h"
#include "util/strings.h"

namespace callprof {

// Duration with 3 significant digits and a unit: 950ns, 1.23µs, 12.3ms, 4.56s;
// 0 is "0" and Metrics::kUnset (no value) is "-".
std::string format_ns(uint64_t ns);
// Bytes with 3 significant digits and a binary unit: 512B, 1.50KiB, 12.3MiB; 0 is "0".
std::string format_bytes(uint64_t bytes);
// Fixed milliseconds with microsecond precision, for time offsets: 12.345ms.
std::string format_ms(int64_t ns);
// part / whole as 12.34%; "-" when whole is 0.
std::string format_pct(uint64_t part, uint64_t whole);

}  // namespace callprof
