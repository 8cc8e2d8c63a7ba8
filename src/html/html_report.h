// The web report (`callprof html`): one self-contained HTML page that needs no network. It
// embeds the JSON document of `report --json` (with the tree as columns, docs/json.md), the
// call graph's SVG, and the page's own CSS and JavaScript; the page renders every panel from
// those numbers and computes none. docs/html.md.
#pragma once

#include <string>
#include <vector>

#include "graph/call_graph.h"
#include "query/query.h"
#include "util/result.h"

namespace callprof::html {

struct HtmlOptions {
  CallGraphOptions graph;  // the call graph tab's picture
  // Give up drawing the call graph after this many seconds (Graphviz's layout of a dense
  // graph can take minutes); the tab then says so. 0: wait as long as it takes.
  double graph_timeout_s = 2.0;
  // The Source panel looks for source files under these directories too (--source-path).
  std::vector<std::string> source_path;
};

// The whole page. A call graph that cannot be drawn is not an error: its tab says why.
Result<std::string> render_html(const Analysis& analysis, const HtmlOptions& options);

}  // namespace callprof::html
