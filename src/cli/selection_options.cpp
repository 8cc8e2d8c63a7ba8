// Parsing the shared selection options into QueryOptions.
#include "cli/selection_options.h"

#include <fmt/format.h>

#include "cli/number_options.h"
#include "cli/symbol_options.h"
#include "query/thread_intake.h"
#include "trace/profile_file.h"

namespace callprof::cli {

void SelectionOptions::add_to(CLI::App& app, bool with_names) {
  thread_option_ = add_count_option(app, "--thread", thread_, "Only this thread id (default: all threads merged)", 0,
                                    UINT32_MAX)
                       ->type_name("TID")
                       ->default_str("");  // not 0: all threads
  pid_option_ = add_count_option(app, "--pid", pid_, "Only this process of a multi-process profile", 0, UINT32_MAX)
                    ->type_name("PID")
                    ->default_str("");  // not 0: every process
  app.add_option("--focus", query_.focus,
                 "Re-root at the functions matching this regex: what they do, whatever their caller; "
                 "percentages of their total")
      ->type_name("REGEX");
  app.add_option("--hide", query_.hide, "Fold the functions matching this regex into their callers")
      ->type_name("REGEX");
  if (with_names)
    app.add_option("--names", names_, "short (no parameters, template arguments as <…>) | templates | full")
        ->type_name("STYLE")
        ->capture_default_str();
  app.add_flag("--raw", query_.raw, "Times as measured, without compensating the hook overhead");
  app.add_option("--time", time_,
                 "measured: the times exact mode measured | sampled: each node's self time is its samples' CPU "
                 "time (record -F in exact mode)")
      ->type_name("SOURCE")
      ->capture_default_str();
  app.add_flag("--graft", graft_, "One program-wide tree: threads under the call path that created them");
  app.add_option("--merge-threads", merge_threads_,
                 "paths: merge threads path by path | start: one tree per thread start routine")
      ->type_name("MODE")
      ->capture_default_str();
  add_symbol_options(app);
}

Result<QueryOptions> SelectionOptions::resolve() const {
  QueryOptions q = query_;
  const auto names = parse_name_style(names_);
  if (!names) return make_error(fmt::format("unknown --names style '{}' (valid: short, templates, full)", names_));
  const auto merge = parse_thread_merge(merge_threads_);
  if (!merge || *merge == ThreadMerge::Graft)
    return make_error(fmt::format("unknown --merge-threads mode '{}' (valid: paths, start)", merge_threads_));
  if (graft_ && *merge == ThreadMerge::StartRoutine)
    return make_error("--graft and --merge-threads=start exclude each other");
  if (time_ != "measured" && time_ != "sampled")
    return make_error(fmt::format("unknown --time source '{}' (valid: measured, sampled)", time_));
  if (time_ == "sampled" && q.raw) return make_error("--raw and --time sampled exclude each other");
  q.sampled_time = time_ == "sampled";
  q.names = *names;
  q.merge = graft_ ? ThreadMerge::Graft : *merge;
  if (thread_option_->count() > 0) q.tid = thread_;
  if (pid_option_->count() > 0) q.pid = pid_;
  return q;
}

Result<Analysis> analyse_profile(const std::string& path, const QueryOptions& query) {
  ThreadIntake intake(query);
  auto profile = read_profile(path, ReadOptions{{}, intake.sink()});
  if (!profile) return profile.error();
  name_unnamed_functions_now(*profile);
  return Analysis::run_intake(std::move(*profile), std::move(intake));
}

}  // namespace callprof::cli
