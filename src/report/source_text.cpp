// Finding and reading source files (see source_text.h).
#include "report/source_text.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace callprof {
namespace {

constexpr uint64_t kMaxSourceBytes = uint64_t(16) << 20;

bool regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The recorded path, then DIR/suffix for each directory and each suffix of the path's
// components, longest first: /build/x/src/a.c under DIR tries DIR/build/x/src/a.c,
// DIR/x/src/a.c, DIR/src/a.c, DIR/a.c.
std::string locate(const std::string& recorded, const std::vector<std::string>& dirs) {
  if (!recorded.empty() && regular_file(recorded)) return recorded;
  const std::filesystem::path p(recorded);
  std::vector<std::filesystem::path> parts;
  for (const auto& part : p.relative_path()) parts.push_back(part);
  for (const std::string& dir : dirs)
    for (size_t first = 0; first < parts.size(); ++first) {
      std::filesystem::path candidate(dir);
      for (size_t k = first; k < parts.size(); ++k) candidate /= parts[k];
      if (regular_file(candidate.string())) return candidate.string();
    }
  return "";
}

std::optional<std::vector<std::string>> read_lines(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || uint64_t(st.st_size) > kMaxSourceBytes) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace

SourceText::Entry& SourceText::entry(const std::string& recorded_path) {
  auto [it, added] = files_.try_emplace(recorded_path);
  if (!added) return it->second;
  Entry& e = it->second;
  e.path = locate(recorded_path, dirs_);
  if (!e.path.empty()) e.lines = read_lines(e.path);
  if (!e.lines)
    missing_.push_back(recorded_path.empty() ? "the debug info names no source file"
                       : e.path.empty()      ? recorded_path + ": not found (--source-path DIR looks elsewhere)"
                                             : e.path + ": cannot be read");
  return e;
}

const std::vector<std::string>* SourceText::lines(const std::string& recorded_path) {
  Entry& e = entry(recorded_path);
  return e.lines ? &*e.lines : nullptr;
}

std::string SourceText::found_at(const std::string& recorded_path) { return entry(recorded_path).path; }

}  // namespace callprof
