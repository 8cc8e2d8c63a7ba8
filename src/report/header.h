// The short header every text view starts with: what was profiled and how much of it.
#pragma once

#include <ostream>
#include <string_view>

#include "report/context.h"

namespace callprof {

void write_header(std::ostream& out, const ReportContext& ctx, std::string_view title);

}  // namespace callprof
