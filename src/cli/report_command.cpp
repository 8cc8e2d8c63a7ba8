// `callprof report`: read a profile and render one view.
#include <iostream>

#include "cli/commands.h"
#include "report/report.h"
#include "trace/profile_file.h"

namespace callprof::cli {

Run add_report(CLI::App& app) {
  struct Args {
    std::string input = "callprof.data";
    ReportOptions options;
    uint32_t thread = 0;
  };
  auto args = std::make_shared<Args>();
  app.add_option("-i,--input", args->input, "Profile to read")->capture_default_str();
  app.add_option("--view", args->options.view, "flat | callers | tree | threads | summary")->capture_default_str();
  app.add_option("-s,--sort", args->options.sort, "Sort by this column (the view's default when empty)");
  app.add_option("--filter", args->options.filter, "Only functions whose name matches this regular expression");
  auto* thread = app.add_option("--thread", args->thread, "Only this thread id (default: all threads merged)");
  app.add_flag("--json", args->options.json, "Write the whole JSON document (docs/json.md) instead of text");
  app.add_option("--limit", args->options.limit, "At most this many rows (0: the view's default)")
      ->check(CLI::Validator([](std::string& v) { return v.rfind('-', 0) == 0 ? "must be 0 or more" : ""; }, "N"));
  app.add_flag("--raw", args->options.raw, "Times as measured, without compensating the hook overhead");
  app.add_option("--columns", args->options.columns,
                 "flat, tree, callers: comma-separated columns to show (e.g. calls,self,cpu,allocs)");
  app.add_flag("--graft", args->options.graft, "One program-wide tree: threads under the call path that created them");
  app.add_option("--merge-threads", args->options.merge_threads,
                 "paths: merge threads path by path | start: one tree per thread start routine")
      ->capture_default_str();
  app.add_option("--function", args->options.function,
                 "threads view: per-thread calls and times of the functions matching this regular expression");
  return [args, thread]() {
    if (thread->count() > 0) args->options.thread = args->thread;
    auto profile = read_profile(args->input);
    if (!profile) return fail(profile.error().message);
    std::ostringstream out;
    if (auto s = render_report(std::move(*profile), args->options, out); !s) return fail(s.error().message);
    std::cout << out.str() << std::flush;
    return std::cout ? 0 : 1;
  };
}

}  // namespace callprof::cli
