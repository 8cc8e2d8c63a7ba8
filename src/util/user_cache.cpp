#include "util/user_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace callprof {

namespace fs = std::filesystem;

namespace {

// FNV-1a: a file name stable across builds (the key itself is in the file, compared).
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

bool has_affixes(const std::string& name, std::string_view prefix, std::string_view suffix) {
  return name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name[prefix.size()] == '-' && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void keep_newest_cache_files(const fs::path& dir, std::string_view prefix, std::string_view suffix, size_t kept) {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!has_affixes(e.path().filename().string(), prefix, suffix)) continue;
    if (const auto t = e.last_write_time(ec); !ec) files.emplace_back(t, e.path());
  }
  if (files.size() <= kept) return;
  std::sort(files.begin(), files.end());
  for (size_t i = 0; i + kept < files.size(); ++i) fs::remove(files[i].second, ec);
}

std::optional<fs::path> user_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/') return fs::path(x) / "callprof";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') return fs::path(home) / ".cache" / "callprof";
  return std::nullopt;
}

std::string cache_file_name(std::string_view prefix, std::string_view key, std::string_view suffix) {
  char hash[17];
  snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return std::string(prefix) + "-" + hash + std::string(suffix);
}

std::optional<std::string> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  char id[96];
  snprintf(id, sizeof id, "%llu %llu %lld %lld.%09ld", static_cast<unsigned long long>(st.st_dev),
           static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
           static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
  return std::string(id);
}

bool write_cache_file(const fs::path& path, std::string_view bytes, std::string_view prefix, std::string_view suffix,
                      size_t kept) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::string tmp = path.string() + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += size_t(n);
  }
  ok = ::close(fd) == 0 && ok;
  // A file replaced leaves as many as there were: only a new one can make too many (the
  // directory's listing and a stat of each file, at every recording, otherwise).
  struct stat before {};
  const bool added = ::stat(path.c_str(), &before) != 0;
  ok = ok && ::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  if (added) keep_newest_cache_files(path.parent_path(), prefix, suffix, kept);
  return true;
}

}  // namespace callprof
