#include "target/start_up_libraries.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "symbols/symbolizer.h"
#include "target/shared_libraries.h"
#include "util/user_cache.h"

namespace callprof {
namespace start_up_detail {
namespace {

constexpr size_t kFilesKept = 32;

// A file's or directory's identity, or "-" when it does not exist (an entry may depend on a
// file staying absent, as much as on one staying the same).
std::string identity_or_absent(const std::string& path) { return file_identity(path).value_or("-"); }

// What the loader's answer depends on besides the program: the directories the libraries
// were found in, and those of LD_LIBRARY_PATH.
std::set<std::string> directories(const std::vector<std::string>& libraries) {
  std::set<std::string> out;
  for (const std::string& lib : libraries) out.insert(std::filesystem::path(lib).parent_path().string());
  if (const char* paths = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream in(paths);
    for (std::string dir; std::getline(in, dir, ':');)
      if (!dir.empty()) out.insert(dir);
  }
  return out;
}

}  // namespace

std::optional<std::string> key_of(const std::string& executable) {
  const auto program = file_identity(executable);
  if (!program) return std::nullopt;
  const char* paths = std::getenv("LD_LIBRARY_PATH");
  return "start-up libraries v1; program " + executable + " " + *program + "; LD_LIBRARY_PATH " +
         (paths ? paths : "(unset)") + "; ld.so.cache " + identity_or_absent("/etc/ld.so.cache") + "; ld.so.preload " +
         identity_or_absent("/etc/ld.so.preload");
}

// One line per file: "lib" or "dir", its identity, a tab, its path (paths hold no newline:
// the loader's trace is read by lines); "end" last, so a file cut short is no entry.
std::string encode(const std::string& key, const std::vector<std::string>& libraries) {
  std::string out = key + "\n";
  for (const std::string& lib : libraries) out += "lib " + identity_or_absent(lib) + "\t" + lib + "\n";
  for (const std::string& dir : directories(libraries)) out += "dir " + identity_or_absent(dir) + "\t" + dir + "\n";
  return out + "end\n";
}

std::optional<std::vector<std::string>> decode(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != key) return std::nullopt;
  std::vector<std::string> libraries;
  while (std::getline(in, line)) {
    if (line == "end") return libraries;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos || tab < 4 || (line.compare(0, 4, "lib ") != 0 && line.compare(0, 4, "dir ") != 0))
      return std::nullopt;
    const std::string path = line.substr(tab + 1);
    if (identity_or_absent(path) != line.substr(4, tab - 4)) return std::nullopt;  // changed since
    if (line[0] == 'l') libraries.push_back(path);
  }
  return std::nullopt;  // no "end": cut short
}

}  // namespace start_up_detail

Result<std::vector<std::string>> start_up_libraries(const std::string& executable) {
  const auto dir = symbol_cache_dir();
  const auto key = dir ? start_up_detail::key_of(executable) : std::nullopt;
  if (!key) return shared_libraries(executable);
  return cached_value(
      *dir, *key, "startlibs", ".txt", start_up_detail::kFilesKept, [&] { return shared_libraries(executable); },
      [&](const std::string& bytes) { return start_up_detail::decode(bytes, *key); },
      [&](const std::vector<std::string>& libraries) { return start_up_detail::encode(*key, libraries); });
}

}  // namespace callprof
