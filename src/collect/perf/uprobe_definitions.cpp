#include "collect/perf/uprobe_definitions.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

namespace callprof::perf {
namespace {

// tracefs parses commands line by line, from writes of at most 4 KiB each.
bool write_commands(const std::string& file, const std::vector<std::string>& lines, std::string* error) {
  int fd = open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = file + ": " + std::strerror(errno);
    return false;
  }
  bool ok = true;
  std::string chunk;
  auto flush = [&] {
    if (!chunk.empty() && write(fd, chunk.data(), chunk.size()) != ssize_t(chunk.size())) {
      ok = false;
      if (error) *error = file + ": " + std::strerror(errno);
    }
    chunk.clear();
  };
  for (const std::string& line : lines) {
    if (chunk.size() + line.size() + 1 > 4000) flush();
    chunk += line + '\n';
  }
  flush();
  close(fd);
  return ok;
}

std::string event_name(uint32_t site) { return fmt::format("s{}", site); }

uint64_t read_id(const std::string& root, const std::string& group, uint32_t site) {
  std::ifstream in(root + "/events/" + group + "/" + event_name(site) + "/id");
  uint64_t id = 0;
  return in >> id ? id : 0;
}

// Groups left by callprof processes that were killed before they could remove them.
void remove_stale_groups(const std::string& root) {
  DIR* dir = opendir((root + "/events").c_str());
  if (!dir) return;
  std::vector<std::string> removals;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.rfind("callprof_", 0) != 0) continue;
    const pid_t pid = pid_t(std::strtol(name.c_str() + 9, nullptr, 10));
    if (pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH)) continue;
    DIR* events = opendir((root + "/events/" + name).c_str());
    if (!events) continue;
    while (dirent* ev = readdir(events))
      if (ev->d_name[0] == 's') removals.push_back("-:" + name + "/" + ev->d_name);
    closedir(events);
  }
  closedir(dir);
  if (!removals.empty()) write_commands(root + "/uprobe_events", removals, nullptr);
}

}  // namespace

std::string tracefs_root() {
  auto writable = [] {
    for (const char* root : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
      if (access((std::string(root) + "/uprobe_events").c_str(), W_OK) == 0) return std::string(root);
    return std::string();
  };
  std::string root = writable();
  // A fresh boot may not have tracefs mounted: mount it where the kernel expects it, as
  // perf does (needs CAP_SYS_ADMIN; otherwise the caller says what is missing).
  if (root.empty() && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, nullptr) == 0) root = writable();
  return root;
}

Result<UprobeDefinitions> UprobeDefinitions::define(const std::vector<UprobeSite>& sites) {
  const std::string root = tracefs_root();
  if (root.empty())
    return make_error(
        "probe mode needs tracefs with uprobe events (/sys/kernel/tracing/uprobe_events, writable: "
        "run as root; CONFIG_UPROBE_EVENTS)");
  remove_stale_groups(root);
  UprobeDefinitions d;
  d.group_ = fmt::format("callprof_{}", getpid());
  d.ids_.assign(sites.size(), 0);
  // One command per site; a refused one fails only its own line, so each is written alone
  // when a batch fails.
  std::vector<std::string> lines;
  for (uint32_t i = 0; i < sites.size(); ++i) {
    const std::string& path = sites[i].path;
    if (path.find_first_of(" \t\n:") != std::string::npos) continue;  // not expressible in the syntax
    lines.push_back(
        fmt::format("{}:{}/{} {}:{:#x}", sites[i].ret ? 'r' : 'p', d.group_, event_name(i), path, sites[i].offset));
    d.defined_.push_back(i);
  }
  std::string error;
  if (!write_commands(root + "/uprobe_events", lines, &error))
    for (const std::string& line : lines) write_commands(root + "/uprobe_events", {line}, nullptr);
  std::vector<uint32_t> defined;
  for (uint32_t site : d.defined_) {
    d.ids_[site] = read_id(root, d.group_, site);
    if (d.ids_[site] != 0) defined.push_back(site);
  }
  d.defined_ = std::move(defined);
  return d;
}

UprobeDefinitions::UprobeDefinitions(UprobeDefinitions&& o) noexcept { *this = std::move(o); }

UprobeDefinitions& UprobeDefinitions::operator=(UprobeDefinitions&& o) noexcept {
  if (this != &o) {
    remove();
    group_ = std::move(o.group_);
    defined_ = std::exchange(o.defined_, {});
    ids_ = std::exchange(o.ids_, {});
  }
  return *this;
}

UprobeDefinitions::~UprobeDefinitions() { remove(); }

void UprobeDefinitions::remove() {
  if (defined_.empty()) return;
  std::vector<std::string> lines;
  for (uint32_t site : defined_) lines.push_back(fmt::format("-:{}/{}", group_, event_name(site)));
  write_commands(tracefs_root() + "/uprobe_events", lines, nullptr);
  defined_.clear();
}

}  // namespace callprof::perf
