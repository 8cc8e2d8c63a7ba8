// Exports for the tools people already use, each from the analysis layer's result:
// pprof (go tool pprof, Pyroscope, Parca), callgrind (KCachegrind, callgrind_annotate),
// collapsed stacks (flamegraph scripts, speedscope), speedscope's JSON and Chrome's
// trace-event JSON (Perfetto, chrome://tracing: the recorded timeline).
#pragma once

#include <optional>
#include <ostream>
#include <string_view>

#include "query/query.h"
#include "util/result.h"

namespace callprof {

enum class ExportFormat { Pprof, Callgrind, Collapsed, Speedscope, Chrome };

// "pprof", "callgrind", "collapsed", "speedscope", "chrome"; nullopt otherwise.
std::optional<ExportFormat> parse_export_format(std::string_view name);

// The value of a collapsed line: which metric of the path's own (self) node.
enum class CollapsedValue { Self, Cpu, Offcpu, Samples, Calls };
std::optional<CollapsedValue> parse_collapsed_value(std::string_view name);

struct ExportOptions {
  ExportFormat format = ExportFormat::Pprof;
  CollapsedValue value = CollapsedValue::Self;  // collapsed only
};

// Writes the analysis in the format; names are always full (the consumer shortens them).
// Binary formats (pprof: gzip) are written as bytes.
Status write_export(const Analysis& analysis, const ExportOptions& options, std::ostream& out);

// The writers behind write_export, one file each.
Status write_pprof(const Analysis& analysis, std::ostream& out);
Status write_callgrind(const Analysis& analysis, std::ostream& out);
Status write_collapsed(const Analysis& analysis, CollapsedValue value, std::ostream& out);
Status write_speedscope(const Analysis& analysis, std::ostream& out);
// Needs a profile recorded with a timeline (record --timeline); an error otherwise.
Status write_chrome(const Analysis& analysis, std::ostream& out);

}  // namespace callprof
