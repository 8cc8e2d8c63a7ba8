// The call graph SVG's pan and zoom script (src/render/graph_zoom.js), embedded at build time.
#pragma once

#include <string_view>

namespace callprof {

std::string_view graph_zoom_script();

}  // namespace callprof
