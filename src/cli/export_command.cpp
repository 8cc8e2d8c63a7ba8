// `callprof export`: a profile in another tool's format.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/output_file.h"
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
    return make_error(
        fmt::format("unknown export format '{}' (valid: pprof, callgrind, collapsed, speedscope, chrome)", a.format));
  const auto v = parse_collapsed_value(a.value);
  if (!v) return make_error(fmt::format("unknown --value '{}' (valid: self, cpu, offcpu, samples, calls)", a.value));
  if (value->count() > 0 && *format != ExportFormat::Collapsed)
    return make_error("--value applies to --format collapsed");
  return ExportOptions{.format = *format, .value = *v};
}

// Streamed: the writers flush in blocks, so a large export never sits whole in memory.
int write_output(const Analysis& analysis, const ExportOptions& options, const std::string& path) {
  if (path.empty() || path == "-") {
    if (Status s = write_export(analysis, options, std::cout); !s) return fail(s.error().message);
    return std::cout.flush() ? 0 : 1;
  }
  Status s = write_file_atomically(path, [&](std::ostream& out) { return write_export(analysis, options, out); });
  return s ? 0 : fail(s.error().message);
}

}  // namespace

Run add_export(CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("-f,--format", a->format,
                 "pprof (go tool pprof) | callgrind (KCachegrind) | collapsed (flamegraph.pl) | speedscope | "
                 "chrome (Perfetto; needs record --timeline)")
      ->type_name("FORMAT")
      ->required();
  app.add_option("-o,--output", a->output, "File to write (default: standard output)")->type_name("FILE");
  auto* value = app.add_option("--value", a->value, "collapsed: self | cpu | offcpu | samples | calls")
                    ->type_name("METRIC")
                    ->capture_default_str();
  // The formats carry names in full, demangled, with parameters (docs/interop.md): --names,
  // which the other reading commands take, is refused here with that reason rather than
  // taken and ignored.
  a->selection.add_to(app, false);
  app.add_option_function<std::string>("--names",
                                       [](const std::string&) {
                                         throw CLI::ValidationError(
                                             "--names",
                                             "export writes names in full (demangled, with parameters); "
                                             "--names applies to report, diff, graph, flame and html");
                                       })
      ->group("");  // hidden
  app.footer("Example: callprof export -i prog.callprof -f pprof -o prof.pb.gz && go tool pprof -http=: prof.pb.gz");
  return [a, value]() {
    auto options = resolve(*a, value);
    if (!options) return fail(options.error().message);
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    // collapsed reads only the analysed tree; pprof and speedscope keep threads apart (labels,
    // one profile per thread), Chrome's timelines point into their trees, and callgrind's
    // source lines are read from them (query/lines.h).
    query->keep_thread_trees = options->format != ExportFormat::Collapsed;
    auto analysis = analyse_profile(a->input, *query);
    if (!analysis) return fail(analysis.error().message);
    return write_output(*analysis, *options, a->output);
  };
}

}  // namespace callprof::cli
