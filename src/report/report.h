// The report entry point used by the CLI: one analysed profile, a view and its options,
// text or JSON out. Views and their columns are described in docs/json.md and SPEC §3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "model/profile.h"
#include "query/query.h"
#include "query/thread_intake.h"
#include "util/result.h"

namespace callprof {

enum class View { Flat, Callers, Tree, Threads, Summary, Syscalls, Modules, CallersOf, CalleesOf };

// "flat", "callers", ..., "callers-of", "callees-of"; nullopt for an unknown name.
std::optional<View> parse_view(std::string_view name);
std::string_view view_name(View view);

enum class JsonLayout { Nested, Flat, Columns };

// "nested", "flat", "columns"; nullopt for an unknown name.
std::optional<JsonLayout> parse_json_layout(std::string_view name);

struct ReportOptions {
  QueryOptions query;  // selection and analysis (threads, compensation, focus, hide, names)
  View view = View::Flat;
  // Column name; "" = the view's default: flat, callers: total; tree: total (cum);
  // threads: tid; summary: cpu when measured, else self. Numbers sort descending, names
  // ascending.
  std::string sort;
  std::string filter;  // regex searched in function names; "" = all
  bool json = false;   // the whole JSON document (all sections) instead of the view
  // The JSON document's layout of its two large sections: Nested (the default: `tree`, one
  // object per node with its name and every key, children nested; `edges`, one object per
  // edge; nesting stops at kMaxJsonTreeDepth with a marker), Flat (`nodes` instead of `tree`:
  // the same node objects in one array, each with its id and its parent's, so any depth
  // stays readable by jq and Python) or Columns (`nodes` instead of `tree` and `edges` as
  // columnar arrays, ids instead of names, the main keys only: a fraction of the size, for
  // the web report). docs/json.md.
  JsonLayout json_layout = JsonLayout::Nested;
  size_t limit = 0;  // max rows (stanzas for callers); 0 = all (summary: 10)
  // flat/tree/callers: "" = the profile's default set; "all"; "a,b" exactly these;
  // "+a,-b" the default set with a added and b removed.
  std::string columns;
  // Rows (tree: subtrees) whose total is below this share of the view's total, in %,
  // are hidden and counted in a footer; 0 shows everything.
  double percent_limit = 0.5;
  size_t width = 0;      // cut names so lines fit this many columns; 0: no limit
  bool verbose = false;  // header lists in full (the folded functions), whatever the width
  std::string function;  // threads: per-thread rows of these functions; callers-of/callees-of: the target
};

// Writes the report; a bad option (unknown sort column, invalid regex, thread not in the
// profile) is returned as a one-line Error and nothing is written. The profile is taken:
// it is compensated for the hook overhead unless options.query.raw.
Status render_report(Profile profile, const ReportOptions& options, std::ostream& out);
// The analysis options a report with these options needs: read the profile through a
// ThreadIntake of them (ReadOptions::threads = intake.sink()), and render it with the intake.
QueryOptions report_query(const ReportOptions& options);
Status render_report(Profile profile, ThreadIntake intake, const ReportOptions& options, std::ostream& out);
// The same over an analysis already made (its options are options.query's).
Status render_report(const Analysis& analysis, const ReportOptions& options, std::ostream& out);
// The metrics the report with these options never reads, so the profile can be read without
// them (ReadOptions::skip_metrics): the text views' column-only metrics their columns leave
// out; none for --json and the threads and syscalls views.
std::vector<Metric> metrics_not_read(const ReportOptions& options);

}  // namespace callprof
