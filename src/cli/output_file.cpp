#include "cli/output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

namespace callprof::cli {

Status write_file_atomically(const std::string& path, const std::function<Status(std::ostream&)>& write) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  auto failed = [&](const std::string& why) {
    std::remove(tmp.c_str());
    return make_error(why.empty() ? fmt::format("cannot write {}: {}", path, std::strerror(errno)) : why);
  };
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return failed("");
  if (Status s = write(out); !s) return failed(s.error().message);
  out.close();
  if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) return failed("");
  return Ok{};
}

Status write_output(const std::string& path, std::string_view bytes) {
  auto put = [&](std::ostream& out) -> Status {
    out.write(bytes.data(), std::streamsize(bytes.size()));
    return Ok{};
  };
  if (path.empty() || path == "-") {
    if (Status s = put(std::cout); !s) return s;
    if (!std::cout.flush()) return make_error("cannot write to standard output");
    return Ok{};
  }
  return write_file_atomically(path, put);
}

std::string size_text(size_t bytes) {
  if (bytes < 10 * 1024) return fmt::format("{} bytes", bytes);
  if (bytes < 10 * 1024 * 1024) return fmt::format("{} KiB", (bytes + 512) / 1024);
  return fmt::format("{:.1f} MiB", double(bytes) / (1024.0 * 1024.0));
}

}  // namespace callprof::cli
