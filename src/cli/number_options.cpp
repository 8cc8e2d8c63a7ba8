// The CLI11 side of the numeric options: each parses with util/numbers.h and throws CLI11's
// validation error, so main reports it as "callprof: error: --NAME: ...".
#include "cli/number_options.h"

#include <fmt/format.h>

namespace callprof::cli {
namespace detail {

std::string option_label(const std::string& names) {
  const size_t comma = names.rfind(',');
  return comma == std::string::npos ? names : names.substr(comma + 1);
}

void reject(const std::string& names, const Error& error) {
  throw CLI::ValidationError(option_label(names), error.message);
}

}  // namespace detail

CLI::Option* add_real_option(CLI::App& app, const std::string& names, double& target, const std::string& help,
                             double min, double max) {
  return app
      .add_option_function<std::string>(
          names,
          [&target, names, min, max](const std::string& text) {
            auto value = parse_real(text, min, max);
            if (!value) detail::reject(names, value.error());
            target = *value;
          },
          help)
      ->type_name("X")
      ->default_str(fmt::format("{:g}", target));
}

CLI::Option* add_seconds_option(CLI::App& app, const std::string& names, int64_t& target_ns, const std::string& help,
                                bool zero_allowed) {
  return app
      .add_option_function<std::string>(
          names,
          [&target_ns, names, zero_allowed](const std::string& text) {
            auto ns = parse_seconds_ns(text, zero_allowed);
            if (!ns) detail::reject(names, ns.error());
            target_ns = *ns;
          },
          help)
      ->type_name("TIME");
}

CLI::Option* add_duration_option(CLI::App& app, const std::string& names, std::string& target, const std::string& help,
                                 bool zero_allowed) {
  return app
      .add_option_function<std::string>(
          names,
          [&target, names, zero_allowed](const std::string& text) {
            if (auto ns = parse_duration_ns(text, zero_allowed); !ns) detail::reject(names, ns.error());
            target = text;
          },
          help)
      ->type_name("TIME");
}

}  // namespace callprof::cli
