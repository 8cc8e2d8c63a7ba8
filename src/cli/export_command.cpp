// `callprof export`: a profile in another tool's format.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/selection_options.h"
#include "export/export.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct ExportArgs {
  std::string input = "callprof.data";
  std::string output;  // "" or "-": stdout
  std::string format, value = "self";
  SelectionOptions selection;
};

Result<ExportOptions> resolve(const ExportArgs& a, const CLI::Option* value) {
  const auto format = parse_export_format(a.format);
  if (!format)
    return make_error(fmt::format("unknown export format '{}' (valid: pprof, callgrind, collapsed, speedscope)", a.format));
  const auto v = parse_collapsed_value(a.value);
  if (!v) return make_error(fmt::format("unknown --value '{}' (valid: self, cpu, offcpu, samples, calls)", a.value));
  if (value->count() > 0 && *format != ExportFormat::Collapsed) return make_error("--value applies to --format collapsed");
  return ExportOptions{.format = *format, .value = *v};
}

// The whole export is made before the output is opened, so a failure leaves no partial file.
int write_output(const std::string& path, const std::string& bytes) {
  if (path.empty() || path == "-") {
    std::cout.write(bytes.data(), std::streamsize(bytes.size()));
    return std::cout.flush() ? 0 : 1;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(bytes.data(), std::streamsize(bytes.size())) || !out.flush())
    return fail(fmt::format("cannot write {}", path));
  return 0;
}

}  // namespace

Run add_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  app.add_option("-i,--input", a->input, "Profile to read")->capture_default_str();
  app.add_option("-f,--format", a->format, "pprof | callgrind | collapsed | speedscope")->required();
  app.add_option("-o,--output", a->output, "File to write (default: standard output)");
  auto* value = app.add_option("--value", a->value, "collapsed: self | cpu | offcpu | samples | calls")
                    ->capture_default_str();
  a->selection.add_to(app);
  return [a, value]() {
    auto options = resolve(*a, value);
    if (!options) return fail(options.error().message);
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    auto profile = read_profile(a->input);
    if (!profile) return fail(profile.error().message);
    auto analysis = Analysis::run(std::move(*profile), *query);
    if (!analysis) return fail(analysis.error().message);
    std::ostringstream out;
    if (Status s = write_export(*analysis, *options, out); !s) return fail(s.error().message);
    return write_output(a->output, out.str());
  };
}

}  // namespace callprof::cli
