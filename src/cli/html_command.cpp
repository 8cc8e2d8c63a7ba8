// `callprof html`: the self-contained web report of a profile (one HTML file, no network).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/number_options.h"
#include "cli/output_file.h"
#include "cli/selection_options.h"
#include "html/html_report.h"
#include "trace/profile_file.h"

namespace callprof::cli {
namespace {

struct HtmlArgs {
  std::string input = "callprof.data";
  std::string output = "callprof.html";
  size_t graph_nodes = 30;
  int64_t graph_timeout_ns = 2'000'000'000;
  std::vector<std::string> source_path;
  SelectionOptions selection;
};

std::string file_url(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : "file://" + absolute.lexically_normal().string();
}

}  // namespace

Run add_html(CLI::App& app) {
  auto a = std::make_shared<HtmlArgs>();
  app.add_option("-i,--input", a->input, "Profile to read (- for standard input)")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("-o,--output", a->output, "HTML file to write")->type_name("FILE")->capture_default_str();
  add_count_option(app, "--graph-nodes", a->graph_nodes, "Call graph tab: about this many functions show; 0: all");
  add_seconds_option(app, "--graph-timeout", a->graph_timeout_ns,
                     "Call graph tab: give up laying out the graph after this many seconds; 0: no limit", true)
      ->default_str("2");
  app.add_option("--source-path", a->source_path,
                 "Source tab: look for source files under DIR too, with fewer and fewer of their leading "
                 "directories (repeatable)")
      ->type_name("DIR");
  a->selection.add_to(app);
  app.footer("Example: callprof html -i prog.callprof -o prog.html   (then open prog.html in a browser)");
  return [a]() {
    if (a->output.empty() || a->output == "-") return fail("html needs an output file (-o FILE.html)");
    auto query = a->selection.resolve();
    if (!query) return fail(query.error().message);
    // The threads' trees stay: the call graph is drawn in a forked child while the page's
    // JSON is written, and JSON written into memory they had freed made the pages the child
    // still shared copy-on-write faults (docs/design.md, "Analysis"); and the Source tab reads
    // a function's lines from them (query/lines.h).
    auto analysis = analyse_profile(a->input, *query);
    if (!analysis) return fail(analysis.error().message);
    html::HtmlOptions options;
    options.graph.max_nodes = a->graph_nodes;
    options.graph_timeout_s = double(a->graph_timeout_ns) / 1e9;
    options.source_path = a->source_path;
    auto page = html::render_html(*analysis, options);
    if (!page) return fail(page.error().message);
    if (Status s = write_output(a->output, *page); !s) return fail(s.error().message);
    note(fmt::format("wrote {} ({:.1f} MB): open {}", a->output, double(page->size()) / 1e6, file_url(a->output)));
    return 0;
  };
}

}  // namespace callprof::cli
