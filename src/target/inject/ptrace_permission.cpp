#include "target/inject/ptrace_permission.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace callprof::inject {
namespace {

constexpr int kCapSysPtrace = 19;

// A "Name:\tvalue" line of /proc/PID/status ("" when absent).
std::string status_field(const std::string& pid, const std::string& name) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.compare(0, name.size() + 1, name + ":") == 0) {
      std::istringstream value(line.substr(name.size() + 1));
      std::string v;
      value >> v;
      return v;
    }
  return "";
}

bool has_cap_sys_ptrace() {
  const std::string eff = status_field("self", "CapEff");
  return !eff.empty() && (std::stoull(eff, nullptr, 16) >> kCapSysPtrace & 1) != 0;
}

int yama_scope() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int scope = 0;
  return in >> scope ? scope : 0;
}

}  // namespace

Status check_ptrace_allowed(pid_t pid) {
  const std::string p = std::to_string(pid);
  const std::string tracer = status_field(p, "TracerPid");
  if (!tracer.empty() && tracer != "0")
    return make_error("process " + p + " is traced by process " + tracer +
                      " (a debugger or tracer): a process has one tracer at a time");
  const int scope = yama_scope();
  const bool capable = has_cap_sys_ptrace();
  if (scope >= 3)
    return make_error("Yama's ptrace_scope is 3 (/proc/sys/kernel/yama/ptrace_scope): no process may be traced");
  if (scope == 2 && !capable)
    return make_error("Yama's ptrace_scope is 2: tracing needs CAP_SYS_PTRACE (run callprof as root)");
  if (scope == 1 && !capable && status_field(p, "Uid") != std::to_string(geteuid()))
    return make_error("process " + p + " belongs to another user: tracing it needs CAP_SYS_PTRACE");
  return Ok{};
}

Status check_visible_in(pid_t pid, const std::string& path) {
  struct stat here {
  }, there{};
  if (stat(path.c_str(), &here) != 0) return make_error("cannot find " + path);
  const std::string inside = "/proc/" + std::to_string(pid) + "/root" + path;
  if (stat(inside.c_str(), &there) != 0 || here.st_dev != there.st_dev || here.st_ino != there.st_ino)
    return make_error("process " + std::to_string(pid) + " sees other files (another mount namespace, a container): " +
                      path + " is not the same file there (copy the runtime to the same path inside it)");
  return Ok{};
}

}  // namespace callprof::inject
