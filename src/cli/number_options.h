// Numeric options registered with their parser (util/numbers.h) and range: a bad value is
// a parse error ("--limit: '2^64' is out of range (expected 0 to 1000000000)") that main
// turns into one line and exit status 2, like any other usage error.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "util/numbers.h"

namespace callprof::cli {

// Counts above this are never meaningful (rows, nodes, pixels) and keep arithmetic safe.
inline constexpr uint64_t kMaxCount = 1'000'000'000;

namespace detail {
std::string option_label(const std::string& names);  // "-d,--duration" -> "--duration"
[[noreturn]] void reject(const std::string& names, const Error& error);
}  // namespace detail

namespace detail {
template <typename T>
struct CountTarget {
  using type = T;
};
template <typename T>
struct CountTarget<std::optional<T>> {
  using type = T;
};
}  // namespace detail

// A whole number between min and max into an integer (or an optional one); shown as
// `--NAME N` in --help (->type_name() names it otherwise).
template <typename Target>
CLI::Option* add_count_option(CLI::App& app, const std::string& names, Target& target, const std::string& help,
                              uint64_t min = 0, uint64_t max = kMaxCount) {
  using T = typename detail::CountTarget<Target>::type;
  static_assert(std::is_integral_v<T>);
  max = std::min<uint64_t>(max, uint64_t(std::numeric_limits<T>::max()));
  auto* option = app.add_option_function<std::string>(
      names,
      [&target, names, min, max](const std::string& text) {
        auto value = parse_count(text, min, max);
        if (!value) detail::reject(names, value.error());
        target = T(*value);
      },
      help);
  option->type_name("N");
  if constexpr (std::is_integral_v<Target>) option->default_str(std::to_string(target));
  return option;
}

// A finite number between min and max (`--NAME X` in --help; callers name it: PCT, PX).
CLI::Option* add_real_option(CLI::App& app, const std::string& names, double& target, const std::string& help,
                             double min, double max);

// Seconds (util's parse_seconds_ns) into nanoseconds; 0 only when `zero_allowed`. Shown
// as `--NAME TIME`, the help saying "seconds".
CLI::Option* add_seconds_option(CLI::App& app, const std::string& names, int64_t& target_ns, const std::string& help,
                                bool zero_allowed);

// A duration with a unit ("10us"), kept as given in `target` once it parses; 0 only when
// `zero_allowed`. Shown as `--NAME TIME`.
CLI::Option* add_duration_option(CLI::App& app, const std::string& names, std::string& target, const std::string& help,
                                 bool zero_allowed = false);

}  // namespace callprof::cli
