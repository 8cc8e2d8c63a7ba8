// The web report's assets (src/html/assets/), embedded at build time by embed_assets.cmake.
#pragma once

#include <string_view>

namespace callprof::html {

// The HTML skeleton with its placeholders (html_report.cpp fills them).
std::string_view page_template();
// report.css.
std::string_view style_sheet();
// The JavaScript files concatenated in CMakeLists.txt's order: one classic script whose
// files share one function scope (app.js wraps nothing; page.html wraps it in an IIFE).
std::string_view script();

}  // namespace callprof::html
