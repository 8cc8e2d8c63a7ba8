// Graphviz's library as callprof uses it: a DOT text in, laid out by the dot engine and
// rendered in memory (no `dot` process, nothing parsed back).
#pragma once

#include <string>

#include "render/call_graph.h"
#include "util/result.h"

namespace callprof {

// Lays out `dot` and renders it as SVG or PNG (Dot is returned unchanged). Graphviz's
// messages become the error; warnings are dropped.
Result<std::string> graphviz_render(const std::string& dot, GraphFormat format);

}  // namespace callprof
