#include "record/runtime_dumps.h"

#include <filesystem>
#include <map>

namespace callprof::record {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFinal = ".cpraw";
constexpr std::string_view kSnapshot = ".snapshot.cpraw";

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct ImageFiles {
  std::string final_dump, snapshot;
};

// "<pid>-<image>" of a file name; the image number orders exec'd images of one pid.
bool parse_image_key(const std::string& stem, std::pair<uint32_t, uint32_t>& key) {
  unsigned pid = 0, image = 0;
  char tail = 0;
  if (sscanf(stem.c_str(), "%u-%u%c", &pid, &image, &tail) != 2) return false;
  key = {pid, image};
  return true;
}

}  // namespace

CollectedDumps collect_dumps(const std::string& dir) {
  CollectedDumps out;
  std::map<std::pair<uint32_t, uint32_t>, ImageFiles> images;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    std::pair<uint32_t, uint32_t> key;
    if (ends_with(name, kSnapshot) && parse_image_key(name.substr(0, name.size() - kSnapshot.size()), key))
      images[key].snapshot = e.path().string();
    else if (ends_with(name, kFinal) && parse_image_key(name.substr(0, name.size() - kFinal.size()), key))
      images[key].final_dump = e.path().string();
    else if (ends_with(name, ".incomplete"))
      out.warnings.push_back(name + ": a process could not finish writing its data; its profile is missing");
  }
  for (const auto& [key, files] : images) {
    bool final = !files.final_dump.empty();
    auto d = read_raw_dump(final ? files.final_dump : files.snapshot);
    if (!d) {
      out.warnings.push_back(d.error().message);
      continue;
    }
    d->image = key.second;
    if (!final) ++out.from_snapshots;
    out.dumps.push_back(std::move(*d));
  }
  return out;
}

std::string snapshot_state(const std::string& dir) {
  std::string state;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (!ends_with(name, kSnapshot) && !ends_with(name, kFinal)) continue;
    auto t = fs::last_write_time(e.path(), ec).time_since_epoch().count();
    state += name + ":" + std::to_string(fs::file_size(e.path(), ec)) + ":" + std::to_string(t) + ";";
  }
  return state;
}

}  // namespace callprof::record
