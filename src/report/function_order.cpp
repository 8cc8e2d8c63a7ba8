// Column keys for function rows.
#include "report/function_order.h"

#include <fmt/format.h>

#include <array>

#include "report/text.h"

namespace callprof {
namespace {

uint64_t per_call(uint64_t ns, uint64_t calls) { return calls ? ns / calls : 0; }
uint64_t or_zero(uint64_t v) { return v == Metrics::kUnset ? 0 : v; }

struct NumericKey {
  std::string_view name;
  uint64_t (*value)(const FunctionRow&);
};

constexpr std::array<NumericKey, 10> kNumeric = {{
    {"calls", [](const FunctionRow& r) { return r.calls; }},
    {"self", [](const FunctionRow& r) { return r.self_ns; }},
    {"total", [](const FunctionRow& r) { return r.total_ns; }},
    {"avg", [](const FunctionRow& r) { return per_call(r.self_ns, r.calls); }},
    {"avgtotal", [](const FunctionRow& r) { return per_call(r.total_ns, r.calls); }},
    {"min", [](const FunctionRow& r) { return or_zero(r.min_self_ns); }},
    {"max", [](const FunctionRow& r) { return or_zero(r.max_self_ns); }},
    {"cpu", [](const FunctionRow& r) { return r.cpu_ns; }},
    {"offcpu", [](const FunctionRow& r) { return r.offcpu_ns; }},
    {"samples", [](const FunctionRow& r) { return r.self_samples; }},
}};

}  // namespace

Result<FunctionLess> function_order(const ReportContext& ctx, std::string_view key, std::string_view view) {
  const ReportContext* c = &ctx;
  // Final tie-breaks: bigger total first, then name, then id.
  auto tie = [c](const FunctionRow& a, const FunctionRow& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    const std::string_view na = c->name(a.function), nb = c->name(b.function);
    return na != nb ? na < nb : a.function < b.function;
  };
  for (const NumericKey& k : kNumeric) {
    if (k.name != key) continue;
    auto value = k.value;
    return FunctionLess([value, tie](const FunctionRow& a, const FunctionRow& b) {
      const uint64_t va = value(a), vb = value(b);
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
  std::string valid;
  for (const NumericKey& k : kNumeric) valid += fmt::format("{}, ", k.name);
  return make_error(
      fmt::format("unknown sort column '{}' for the {} view (valid: {}module, name)", escape_text(key), view, valid));
}

}  // namespace callprof
