#include "cli/output_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace callprof::cli {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Status check_output(const std::string& path, const std::string& program) {
  if (path.empty()) return make_error("-o needs a file name");
  struct stat st{};
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return make_error(fmt::format("-o {}: {}, not a regular file (callprof writes a profile only to a regular file)",
                                    path, kind_of(st.st_mode)));
    struct stat prog{};
    if (!program.empty() && stat(program.c_str(), &prog) == 0 && prog.st_dev == st.st_dev && prog.st_ino == st.st_ino)
      return make_error(fmt::format("-o {}: that is the program to be profiled", path));
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat d{};
  if (stat(dir.c_str(), &d) != 0)
    return make_error(fmt::format("-o {}: directory {} does not exist", path, dir));
  if (!S_ISDIR(d.st_mode)) return make_error(fmt::format("-o {}: {} is not a directory", path, dir));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return make_error(fmt::format("-o {}: cannot write in {} ({})", path, dir, std::strerror(errno)));
  return Ok{};
}

void keep_previous(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) std::rename(path.c_str(), (path + ".old").c_str());
}

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
    put(std::cout);
    if (!std::cout.flush()) return make_error("cannot write to standard output");
    return Ok{};
  }
  return write_file_atomically(path, put);
}

}  // namespace callprof::cli
