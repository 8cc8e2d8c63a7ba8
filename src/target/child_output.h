// What a child process wrote into a pipe before it ended, and how it ended: shared by the
// helpers callprof forks (the loader's library listing, the attach injector).
#pragma once

#include <sys/types.h>

#include <string>

namespace callprof {

struct ChildOutput {
  std::string text;
  int status = 0;  // waitpid's
};

// Reads `fd` (the pipe's read end) until the child closes it, closes it, and reaps `pid`.
ChildOutput read_child_output(int fd, pid_t pid);

}  // namespace callprof
