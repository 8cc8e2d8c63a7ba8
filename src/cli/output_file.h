// Where the outputs of export, flame, graph and html go: standard output, or a file
// replaced atomically. (record and attach: src/record/output_path.h.)
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include "util/result.h"

namespace callprof::cli {

// Writes through `write` into a file beside `path`, renamed over it once complete: a
// failure leaves no partial file, and the previous one intact.
Status write_file_atomically(const std::string& path, const std::function<Status(std::ostream&)>& write);

// `bytes` to standard output (`path` "" or "-") or atomically to the file `path`.
Status write_output(const std::string& path, std::string_view bytes);

// True when `path` names a file (not standard output), whose writing the command says.
inline bool to_file(const std::string& path) { return !path.empty() && path != "-"; }
// "812 bytes", "23 KiB", "1.4 MiB": the size in the line that says where a picture went.
std::string size_text(size_t bytes);

}  // namespace callprof::cli
