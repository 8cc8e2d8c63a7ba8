// Reading the source files a profile's debug info names, for annotate and the web report's
// Source panel. A profile is read on another machine than the one that built the program,
// so a path is tried as recorded, then under each --source-path directory with fewer and
// fewer of its leading directories (as pprof's -source_path does). A file not found is
// said (why(), once per file), never fatal.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace callprof {

class SourceText {
 public:
  explicit SourceText(std::vector<std::string> search_dirs = {}) : dirs_(std::move(search_dirs)) {}
  // The file's lines (line n is lines[n - 1], without its newline), nullptr when it could not
  // be read. Files over 16 MiB are not read.
  const std::vector<std::string>* lines(const std::string& recorded_path);
  // Where the file was found ("" when it was not).
  std::string found_at(const std::string& recorded_path);
  // One line per file that could not be read, in the order they were asked for.
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  struct Entry {
    std::string path;  // "" when not found
    std::optional<std::vector<std::string>> lines;
  };
  Entry& entry(const std::string& recorded_path);
  std::vector<std::string> dirs_;
  std::map<std::string, Entry> files_;
  std::vector<std::string> missing_;
};

}  // namespace callprof
