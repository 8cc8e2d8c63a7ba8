// The diff as one JSON document (docs/json.md "callprof diff --json").
#pragma once

#include <ostream>

#include "report/diff_view.h"

namespace callprof {

void render_diff_json(const Diff& diff, const DiffReportOptions& options, std::ostream& out);

}  // namespace callprof
