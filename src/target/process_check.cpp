#include "target/process_check.h"

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "target/executable.h"

namespace callprof {
namespace {

constexpr unsigned long kKernelThreadFlag = 0x00200000;  // PF_KTHREAD

Result<ProcessState> read_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!in || !std::getline(in, text)) return make_error("no /proc entry");
  return parse_proc_stat(text);
}

std::string named(pid_t pid, const ProcessState& s) { return std::to_string(pid) + " (" + s.comm + ")"; }

// Who traces `pid` ("PID (name)"), from its status; "" when no one does.
std::string tracer_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("TracerPid:", 0) == 0) {
      const pid_t tracer = pid_t(std::atol(line.c_str() + 10));
      if (tracer <= 0) return "";
      auto s = read_state(tracer);
      return s ? named(tracer, *s) : std::to_string(tracer);
    }
  return "";
}

}  // namespace

Result<ProcessState> parse_proc_stat(const std::string& text) {
  const size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return make_error("unexpected /proc stat line");
  ProcessState s;
  s.comm = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 1));
  // Fields after comm: state ppid pgrp session tty_nr tpgid flags ...
  long ppid = 0, skip = 0;
  unsigned long flags = 0;
  if (!(rest >> s.state >> ppid >> skip >> skip >> skip >> skip >> flags))
    return make_error("unexpected /proc stat line");
  s.parent = pid_t(ppid);
  s.kernel_thread = (flags & kKernelThreadFlag) != 0;
  return s;
}

Status check_attachable(pid_t pid) {
  auto s = read_state(pid);
  if (!s) return Ok{};
  const std::string who = named(pid, *s);
  if (s->kernel_thread)
    return make_error(who +
                      " is a kernel thread: callprof samples user processes only (perf record -a sees the "
                      "kernel)");
  if (s->state == 'Z') return make_error(who + " is a zombie: it has exited and runs no code");
  if (s->state == 'T')
    return make_error(who + " is stopped: it would give no samples (continue it first: kill -CONT " +
                      std::to_string(pid) + ")");
  if (s->state == 't') {
    const std::string tracer = tracer_of(pid);
    return make_error(who + " is stopped by a debugger" + (tracer.empty() ? "" : ", " + tracer) +
                      ": it would give no samples");
  }
  if (pid == getpid()) return make_error(who + " is callprof itself");
  for (pid_t up = getppid(); up > 1;) {
    if (up == pid)
      return make_error(who +
                        " is an ancestor of callprof (the shell that started it?): it waits for callprof to "
                        "finish, so it would give no samples");
    auto parent = read_state(up);
    if (!parent) break;
    up = parent->parent;
  }
  if (auto exe = inspect_executable("/proc/" + std::to_string(pid) + "/exe");
      exe && exe->elf && exe->elf_class == ELFCLASS32)
    return make_error(who + " is a 32-bit process: " + kWhyNot32Bit);
  return Ok{};
}

bool process_alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  // getline, not an istreambuf_iterator: a process that ends as it is read fails the read
  // (ESRCH), which the iterator throws out of and getline turns into a failed stream.
  std::string text;
  std::getline(in, text);
  auto state = parse_proc_stat(text);
  return state && state->state != 'Z' && state->state != 'X';
}

bool thread_alive(pid_t pid, pid_t tid) {
  return access(("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid)).c_str(), F_OK) == 0;
}

}  // namespace callprof
