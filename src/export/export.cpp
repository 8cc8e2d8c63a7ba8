// Dispatch to the writer of each format.
#include "export/export.h"

#include <array>
#include <utility>

namespace callprof {
namespace {

constexpr std::array<std::pair<ExportFormat, std::string_view>, 5> kFormats = {{
    {ExportFormat::Pprof, "pprof"},
    {ExportFormat::Callgrind, "callgrind"},
    {ExportFormat::Collapsed, "collapsed"},
    {ExportFormat::Speedscope, "speedscope"},
    {ExportFormat::Chrome, "chrome"},
}};

constexpr std::array<std::pair<CollapsedValue, std::string_view>, 5> kValues = {{
    {CollapsedValue::Self, "self"},
    {CollapsedValue::Cpu, "cpu"},
    {CollapsedValue::Offcpu, "offcpu"},
    {CollapsedValue::Samples, "samples"},
    {CollapsedValue::Calls, "calls"},
}};

template <typename E, size_t N>
std::optional<E> find(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name) {
  for (auto [value, text] : table)
    if (text == name) return value;
  return std::nullopt;
}

}  // namespace

std::optional<ExportFormat> parse_export_format(std::string_view name) { return find(kFormats, name); }
std::optional<CollapsedValue> parse_collapsed_value(std::string_view name) { return find(kValues, name); }

Status write_export(const Analysis& analysis, const ExportOptions& options, std::ostream& out) {
  switch (options.format) {
    case ExportFormat::Pprof:
      return write_pprof(analysis, out);
    case ExportFormat::Callgrind:
      return write_callgrind(analysis, out);
    case ExportFormat::Collapsed:
      return write_collapsed(analysis, options.value, out);
    case ExportFormat::Speedscope:
      return write_speedscope(analysis, out);
    case ExportFormat::Chrome:
      return write_chrome(analysis, out);
  }
  return make_error("unknown export format");
}

}  // namespace callprof
