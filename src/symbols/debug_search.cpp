// Where symbol and debug files are looked for (see debug_search.h).
#include "symbols/debug_search.h"

#include <cstdlib>

namespace callprof {
namespace symbols_detail {

std::vector<std::string> debug_roots(const SymbolizerOptions& options) {
  std::vector<std::string> roots;
  if (!options.symfs.empty()) {
    roots.push_back(options.symfs + "/usr/lib/debug");
    roots.push_back(options.symfs);  // a flat .build-id/ tree, or debug files beside the copies
  }
  roots.insert(roots.end(), options.debug_dirs.begin(), options.debug_dirs.end());
  return roots;
}

std::string debuginfo_path(const SymbolizerOptions& options) {
  // Relative entries are taken from the file's directory ("" itself); absolute ones are
  // roots holding .build-id/ and the file's directory tree. A ':' in a root would split
  // it: such roots are left out (the CLI refuses them before).
  std::string path = ":.debug";
  for (const std::string& root : debug_roots(options))
    if (!root.empty() && root[0] == '/' && root.find(':') == std::string::npos) path += ":" + root;
  return path;
}

std::vector<std::string> file_candidates(const std::string& path, const SymbolizerOptions& options) {
  std::vector<std::string> files;
  if (!options.symfs.empty()) files.push_back(options.symfs + (path.starts_with('/') ? "" : "/") + path);
  files.push_back(path);
  return files;
}

std::string debug_search_advice(const std::string& build_id, const SymbolizerOptions& options) {
  std::string where = "beside it, in .debug/";
  for (const std::string& root : debug_roots(options)) where += ", under " + root;
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  const bool debuginfod = urls != nullptr && *urls != '\0';
  where += debuginfod ? " and from debuginfod (DEBUGINFOD_URLS)" : "; DEBUGINFOD_URLS is not set";
  std::string id = build_id.empty() ? "no build id" : "build id " + build_id;
  return "debug info (" + id + ") was looked for " + where +
         ": install its debug package (Debian: the -dbgsym one), pass --symfs DIR or set DEBUGINFOD_URLS; "
         "callprof report names the recorded addresses once it is found";
}

}  // namespace symbols_detail
}  // namespace callprof
