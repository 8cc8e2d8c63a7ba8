// The diff of two profiles as text or JSON (docs/json.md "diff").
#pragma once

#include <ostream>
#include <string>

#include "query/diff.h"

namespace callprof {

struct DiffReportOptions {
  std::string base_label, next_label;  // what each side is (file and command)
  bool json = false;
  bool all = false;  // rows within noise were kept (--all): mark them
  size_t width = 0;  // cut names to fit; 0: no limit
};

void render_diff(const Diff& diff, const DiffReportOptions& options, std::ostream& out);

}  // namespace callprof
