#include "target/shared_libraries.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

#include "target/child_output.h"

namespace callprof {

std::vector<std::string> parse_loader_trace(const std::string& text) {
  std::vector<std::string> paths;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t arrow = line.find("=> ");
    size_t start = arrow == std::string::npos ? line.find_first_not_of(" \t") : arrow + 3;
    if (start == std::string::npos) continue;
    size_t end = line.find(" (", start);
    std::string path = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // A library the program names by a path ("./libx.so", linked as such) has no arrow; the
    // vdso and "not found" have no slash. A relative path is the loader's, from the
    // program's directory of work, which is ours.
    if (path.find('/') == std::string::npos) continue;
    std::error_code ec;
    std::string canonical = std::filesystem::canonical(path, ec).string();
    paths.push_back(ec ? path : canonical);
  }
  return paths;
}

Result<std::vector<std::string>> shared_libraries(const std::string& executable) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    setenv("LD_TRACE_LOADED_OBJECTS", "1", 1);
    unsetenv("LD_PRELOAD");
    execl(executable.c_str(), executable.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  const ChildOutput out = read_child_output(fds[0], pid);
  if (!WIFEXITED(out.status) || WEXITSTATUS(out.status) != 0)
    return make_error("cannot list the shared libraries of " + executable + " (its loader failed)");
  return parse_loader_trace(out.text);
}

}  // namespace callprof
