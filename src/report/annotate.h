// `callprof annotate`: a function's source with, per line, the samples that fell on it and
// the calls made from it (their count and the callees' time), as perf annotate and
// pprof -list show; with --disasm, its instructions too, under their lines.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "query/lines.h"
#include "query/query.h"
#include "report/source_text.h"
#include "util/result.h"

namespace callprof {

struct DecodedInstructionText {
  uint64_t address = 0;  // module-relative, like CodeLocation::address
  std::string text;
  std::string file;  // its line in the function, from the debug info ("", 0: unknown)
  uint32_t line = 0;
};
// The instructions of a function decoded from its module's file (the caller reads the
// binary: views do not), or an error line saying why not.
using Disassemble = std::function<Result<std::vector<DecodedInstructionText>>(const Function&, const Module&)>;

struct AnnotateOptions {
  std::string function;     // regex over full names
  size_t limit = 5;         // functions shown at most, most samples first
  size_t context = 2;       // unannotated lines shown around annotated ones
  Disassemble disassemble;  // set: --disasm
  bool json = false;        // the lines as JSON (docs/json.md, "annotate")
};

// The calls made from one place, as annotate --json and the web report's Source panel write them.
nlohmann::json calls_json(const Analysis& analysis, const std::vector<CallsFrom>& calls);

// Fails (one line) when no function matches or none that matches has located costs.
Status render_annotate(const Analysis& analysis, SourceText& sources, const AnnotateOptions& options,
                       std::ostream& out);

}  // namespace callprof
