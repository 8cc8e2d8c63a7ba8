// Column keys for function rows.
#include "report/function_order.h"

#include <fmt/format.h>

#include "report/columns.h"
#include "report/text.h"

namespace callprof {

Result<FunctionLess> function_order(const ReportContext& ctx, std::string_view key, std::string_view view) {
  const ReportContext* c = &ctx;
  // Final tie-breaks: bigger total first, then name, then id.
  auto tie = [c](const FunctionRow& a, const FunctionRow& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    const std::string_view na = c->name(a.function), nb = c->name(b.function);
    return na != nb ? na < nb : a.function < b.function;
  };
  if (const MetricColumnDef* column = find_metric_column(key)) {
    auto value = column->value;
    return FunctionLess([value, tie](const FunctionRow& a, const FunctionRow& b) {
      const uint64_t va = value(a.self, a.total), vb = value(b.self, b.total);
      return va != vb ? va > vb : tie(a, b);
    });
  }
  if (key == "name" || key == "module") {
    const bool by_module = key == "module";
    return FunctionLess([c, by_module, tie](const FunctionRow& a, const FunctionRow& b) {
      const std::string_view va = by_module ? c->module(a.function) : c->name(a.function);
      const std::string_view vb = by_module ? c->module(b.function) : c->name(b.function);
      return va != vb ? va < vb : tie(a, b);
    });
  }
  return make_error(fmt::format("unknown sort column '{}' for the {} view (valid: {}, module, name)", escape_text(key),
                                view, metric_column_keys()));
}

}  // namespace callprof
