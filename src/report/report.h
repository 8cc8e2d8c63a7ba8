// The report entry point used by the CLI: one profile, a view and its options, text or
// JSON out. Views and their columns are described in docs/json.md and SPEC §3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "model/profile.h"
#include "util/result.h"

namespace callprof {

struct ReportOptions {
  std::string view = "flat";  // flat | callers | tree | threads | summary
  // Column name; "" = the view's default: flat, callers: total; tree: total (cum);
  // threads: tid; summary: self (ranks the hottest functions). Numbers sort
  // descending, names ascending.
  std::string sort;
  std::string filter;              // ECMAScript regex searched in function names; "" = all
  std::optional<uint32_t> thread;  // only this thread id; default all threads merged
  bool json = false;               // the whole JSON document (all sections) instead of the view
  size_t limit = 0;                // max rows (stanzas for callers); 0 = all (summary: 10)
  bool raw = false;                // times as measured, without overhead compensation
  std::string columns;             // flat/tree/callers: comma-separated column keys; "" = default
  bool graft = false;              // threads under their creators' call paths (one tree)
  std::string merge_threads = "paths";  // paths: merge equal paths | start: one node per start routine
  std::string function;            // threads view: per-thread rows of the functions matching this regex
};

// Writes the report; a bad option (unknown view or sort column, invalid regex, thread
// not in the profile) is returned as a one-line Error and nothing is written.
// Unless options.raw, times are first compensated for the measured hook overhead (a copy
// of the profile is made only when there is something to compensate or to add).
Status render_report(const Profile& profile, const ReportOptions& options, std::ostream& out);
// The same, transforming `profile` in place (no copy).
Status render_report(Profile&& profile, const ReportOptions& options, std::ostream& out);

}  // namespace callprof
