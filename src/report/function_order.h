// Ordering function rows by a named column, shared by the flat, callers and summary views
// so every function list sorts by the same names with the same meaning.
#pragma once

#include <functional>
#include <string_view>

#include "graph/aggregate.h"
#include "report/context.h"
#include "util/result.h"

namespace callprof {

using FunctionLess = std::function<bool(const FunctionRow&, const FunctionRow&)>;

// Numeric columns sort descending, module and name ascending; ties fall back to total,
// then name, then function id, so the order is fully deterministic.
// Keys: every column of the catalog (report/columns.h), module and name.
Result<FunctionLess> function_order(const ReportContext& ctx, std::string_view key, std::string_view view);

}  // namespace callprof
