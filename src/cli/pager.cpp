// The pager runs through the shell like git's ($PAGER may hold options); SIGPIPE is
// ignored while writing so that quitting the pager early is not an error.
#include "cli/pager.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace callprof::cli {
namespace {

std::string pager_command() {
  const char* pager = std::getenv("PAGER");
  if (!pager) return "less -FRSX";
  return pager;
}

bool write_all(std::FILE* f, std::string_view text) {
  return std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
}

}  // namespace

size_t terminal_width() {
  if (!isatty(STDOUT_FILENO)) return 0;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return 80;
  return ws.ws_col;
}

bool write_paged(std::string_view text, bool use_pager) {
  const std::string command = use_pager && isatty(STDOUT_FILENO) ? pager_command() : "";
  if (command.empty() || command == "cat") return write_all(stdout, text);
  std::fflush(stdout);
  std::FILE* pipe = popen(command.c_str(), "w");
  if (!pipe) return write_all(stdout, text);
  const auto old = std::signal(SIGPIPE, SIG_IGN);
  write_all(pipe, text);  // the user may quit the pager before the end: not an error
  const int status = pclose(pipe);
  std::signal(SIGPIPE, old);
  // The shell could not run the pager (127): show the text rather than nothing.
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127) return write_all(stdout, text);
  return true;
}

}  // namespace callprof::cli
