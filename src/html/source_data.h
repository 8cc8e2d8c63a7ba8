// The web report's Source panel data (docs/html.md, "Source"): for the functions whose costs
// were located inside them (query/lines.h), the source lines to show, each with the samples
// that fell on it and the calls made from it, as `callprof annotate` shows them. The page
// only lays these out; it reads no file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "query/query.h"

namespace callprof::html {

// What the page embeds at most: a report of a large program would otherwise carry the
// source of thousands of functions.
struct SourceLimits {
  size_t functions = 200;               // most located samples first (then by id)
  size_t text_bytes = size_t(4) << 20;  // source text over all files; a file past it keeps its costs only
  size_t line_bytes = 400;              // longer lines are cut (at a UTF-8 boundary)
  size_t context = 2;                   // unannotated lines shown around annotated ones
};

// The JSON document the panel reads (docs/html.md): {"why": ...} when there is nothing to
// show (--focus or --hide set, no located costs), else the functions with their files and
// lines, the ids of those left out by the limit and the source files not found. Names and
// text are the profile's and the files' as they are (only made valid UTF-8 and inert for a
// terminal); json_for_script makes the document safe inside the page.
std::string source_document(const Analysis& analysis, const std::vector<std::string>& source_path,
                            const SourceLimits& limits = {});

}  // namespace callprof::html
