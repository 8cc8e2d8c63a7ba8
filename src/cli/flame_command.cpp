// `callprof flame`: the flame graph (or icicle) of a profile as a self-contained SVG.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/output_file.h"
#include "cli/selection_options.h"
#include "render/flame_svg.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct FlameArgs {
  std::string input = "callprof.data";
  std::string output;  // "" or "-": stdout
  std::string metric = "self", colors = "name", diff;
  bool icicle = false, normalize = false;
  double width = 1200, min_width = 0.1;
  SelectionOptions selection;
};

Result<FlameOptions> resolve(const FlameArgs& a) {
  FlameOptions o;
  const auto metric = parse_flame_metric(a.metric);
  if (!metric) return make_error(fmt::format("unknown --metric '{}' (valid: {})", a.metric, flame_metric_names()));
  if (a.colors != "name" && a.colors != "module")
    return make_error(fmt::format("unknown --colors '{}' (valid: name, module)", a.colors));
  if (a.normalize && a.diff.empty()) return make_error("--normalize applies to --diff BASE");
  o.metric = *metric;
  o.icicle = a.icicle;
  o.colors = a.colors == "module" ? FlameColors::Module : FlameColors::Name;
  o.width_px = a.width;
  o.min_width_px = a.min_width;
  o.normalize = a.normalize;
  o.base_label = a.diff;
  return o;
}

}  // namespace

Run add_flame(CLI::App& app) {
  auto a = std::make_shared<FlameArgs>();
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("-o,--output", a->output, "SVG file to write (default: standard output)")->type_name("FILE");
  app.add_flag("--icicle", a->icicle, "Icicle graph: roots at the top, callees below");
  std::string metrics = flame_metric_names();  // "a, b, c": as choices "a | b | c" (the completion reads them)
  for (size_t at; (at = metrics.find(", ")) != std::string::npos;) metrics.replace(at, 2, " | ");
  app.add_option("--metric", a->metric, "What a frame's width measures: " + metrics)
      ->type_name("METRIC")
      ->capture_default_str();
  app.add_option("--diff", a->diff, "Base profile: colour each frame by its change (red: grew, blue: shrank)")
      ->type_name("FILE");
  app.add_flag("--normalize", a->normalize, "With --diff: scale the base to this profile's total");
  app.add_option("--colors", a->colors, "name (warm, by a hash of the name) | module")
      ->type_name("SCHEME")
      ->capture_default_str();
  add_real_option(app, "--width", a->width, "Picture width in pixels", 200, 100000)->type_name("PX");
  add_real_option(app, "--min-width", a->min_width, "Frames narrower than this many pixels are elided", 0, 100000)
      ->type_name("PX");
  a->selection.add_to(app);
  app.footer("Example: callprof flame -i after.callprof --diff before.callprof -o diff.svg");
  return [a]() {
    auto options = resolve(*a);
    if (!options) return fail(options.error().message);
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    query->keep_thread_trees = false;  // only the analysed tree is read
    auto analysis = analyse_profile(a->input, *query);
    if (!analysis) return fail(analysis.error().message);
    std::optional<Analysis> base;
    if (!a->diff.empty()) {
      auto b = analyse_profile(a->diff, *query);
      if (!b) return fail(b.error().message);
      base.emplace(std::move(*b));
      options->base = &*base;
    }
    auto picture = render_flame(*analysis, *options);
    if (!picture) return fail(picture.error().message);
    // The whole picture is made before the output is opened: a failure leaves no partial file.
    if (Status s = write_output(a->output, picture->svg); !s) return fail(s.error().message);
    if (to_file(a->output))
      note(fmt::format("wrote {}: {} frames for {} call paths ({} narrower than {} px elided), {}", a->output,
                       picture->frames, picture->paths, picture->elided_paths, a->min_width,
                       size_text(picture->svg.size())));
    return 0;
  };
}

}  // namespace callprof::cli
