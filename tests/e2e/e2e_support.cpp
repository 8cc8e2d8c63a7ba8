// Support for the end-to-end tests: compilers, child processes with captured streams,
// callprof record/report, report lookups and the report invariants.
#include "e2e_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace e2e {
namespace fs = std::filesystem;

Toolchain toolchain(const std::string& name) {
  if (name == "gcc") return {name, E2E_GCC, E2E_GXX};
  if (name == "clang") return {name, E2E_CLANG, E2E_CLANGXX};
  throw std::invalid_argument("unknown toolchain " + name);
}

std::vector<std::string> toolchain_names() { return {"gcc", "clang"}; }

std::string Exit::describe() const {
  if (!signaled) return "exit status " + std::to_string(code);
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}
Exit exited(int code) { return Exit{false, code, 0}; }
Exit killed_by(int signal) { return Exit{true, 0, signal}; }
void PrintTo(const Exit& e, std::ostream* os) { *os << e.describe(); }

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// In the child: redirect the streams to files and exec; never returns.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const fs::path& dir, const fs::path& in,
                             const fs::path& out, const fs::path& err) {
  setpgid(0, 0);  // our own group, so a timeout can kill the program's children too
  if (chdir(dir.c_str()) != 0) _exit(126);
  const fs::path* paths[3] = {&in, &out, &err};
  for (int fd = 0; fd < 3; ++fd) {
    int f = open(paths[fd]->c_str(), fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (f < 0 || dup2(f, fd) < 0) _exit(126);
    close(f);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  dprintf(2, "e2e: cannot execute %s: %s\n", args[0], strerror(errno));
  _exit(127);
}

int wait_with_timeout(pid_t pid, int timeout_s, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) throw std::runtime_error("waitpid failed for " + what);
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      throw std::runtime_error(what + " did not finish within " + std::to_string(timeout_s) + " s; killed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

Started start(const std::vector<std::string>& argv, const fs::path& dir, const std::string& input) {
  static int serial = 0;
  const std::string tag = ".run" + std::to_string(++serial);
  Started s{0, dir / (tag + ".out"), dir / (tag + ".err"), argv.front()};
  const fs::path in = dir / (tag + ".in");
  write_file(in, input);
  s.pid = fork();
  if (s.pid < 0) throw std::runtime_error("fork failed");
  if (s.pid == 0) exec_child(argv, dir, in, s.out, s.err);
  return s;
}

RunResult finish(const Started& s, int timeout_s) {
  int status = wait_with_timeout(s.pid, timeout_s, s.what);
  RunResult r;
  r.exit = WIFSIGNALED(status) ? killed_by(WTERMSIG(status)) : exited(WEXITSTATUS(status));
  r.out = read_file(s.out);
  r.err = read_file(s.err);
  return r;
}

RunResult run(const std::vector<std::string>& argv, const fs::path& dir, const std::string& input, int timeout_s) {
  return finish(start(argv, dir, input), timeout_s);
}

bool same_function(std::string_view full, std::string_view name) {
  // C++ names are demangled with their parameter list: "f1(int)" is function f1.
  return full == name || (full.size() > name.size() && full.substr(0, name.size()) == name && full[name.size()] == '(');
}

bool same_path(const std::vector<std::string>& full, const std::vector<std::string>& names) {
  if (full.size() != names.size()) return false;
  for (size_t i = 0; i < full.size(); ++i)
    if (!same_function(full[i], names[i])) return false;
  return true;
}

std::string join_path(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : "/") + p;
  return s;
}

uint64_t u64(const json& object, const char* key) { return object.at(key).get<uint64_t>(); }
uint64_t or_zero(const json& object, const char* key) { return object.contains(key) ? u64(object, key) : 0; }
double ms(uint64_t ns) { return double(ns) / 1e6; }

const json* Report::find_function(std::string_view name) const {
  for (const json& f : doc_.at("functions"))
    if (same_function(f.at("name").get<std::string>(), name)) return &f;
  return nullptr;
}

const json& Report::function(std::string_view name) const {
  if (const json* f = find_function(name)) return *f;
  throw std::runtime_error("function " + std::string(name) + " is not in the report");
}

const json* Report::find_edge(std::string_view caller, std::string_view callee) const {
  for (const json& e : doc_.at("edges")) {
    const json& c = e.at("caller");
    const bool caller_ok = caller.empty() ? c.is_null() : c.is_string() && same_function(c.get<std::string>(), caller);
    if (caller_ok && same_function(e.at("callee").get<std::string>(), callee)) return &e;
  }
  return nullptr;
}

const json& Report::edge(std::string_view caller, std::string_view callee) const {
  if (const json* e = find_edge(caller, callee)) return *e;
  throw std::runtime_error("edge " + std::string(caller.empty() ? "<spontaneous>" : caller) + " -> " +
                           std::string(callee) + " is not in the report");
}

const json* Report::find_node(const std::vector<std::string>& path) const {
  const json* level = &doc_.at("tree");
  const json* found = nullptr;
  for (const std::string& name : path) {
    found = nullptr;
    for (const json& n : *level)
      if (same_function(n.at("name").get<std::string>(), name)) found = &n;
    if (!found) return nullptr;
    level = &found->at("children");
  }
  return found;
}

const json& Report::node(const std::vector<std::string>& path) const {
  if (const json* n = find_node(path)) return *n;
  throw std::runtime_error("tree path " + join_path(path) + " is not in the report");
}

Report::LeafCalls Report::leaf_calls(const std::vector<std::string>& leaves, std::string_view under) const {
  LeafCalls c;
  for (const std::string& leaf : leaves)
    for (const auto& path : paths_to(leaf)) {
      const uint64_t calls = u64(node(path), "calls");
      c.all += calls;
      if (std::any_of(path.begin(), path.end(), [&](const std::string& f) { return same_function(f, under); }))
        c.under += calls;
    }
  return c;
}

std::vector<std::vector<std::string>> Report::paths_to(std::string_view name) const {
  std::vector<std::vector<std::string>> found;
  std::vector<std::string> path;
  auto walk = [&](auto&& self, const json& nodes) -> void {
    for (const json& n : nodes) {
      path.push_back(n.at("name").get<std::string>());
      if (same_function(path.back(), name)) found.push_back(path);
      self(self, n.at("children"));
      path.pop_back();
    }
  };
  walk(walk, doc_.at("tree"));
  return found;
}

void expect_function_calls(const Report& r, const std::vector<CallsOf>& expected) {
  for (const auto& [name, calls] : expected) {
    const json* f = r.find_function(name);
    EXPECT_TRUE(f) << "function " << name << " is missing";
    if (f) {
      EXPECT_EQ(u64(*f, "calls"), calls) << "calls of " << name;
    }
  }
}

void expect_edge_calls(const Report& r, const std::vector<CallsOn>& expected) {
  for (const auto& [caller, callee, calls] : expected) {
    const std::string what = "edge " + (caller.empty() ? "<spontaneous>" : caller) + " -> " + callee;
    const json* e = r.find_edge(caller, callee);
    EXPECT_TRUE(e) << what << " is missing";
    if (e) {
      EXPECT_EQ(u64(*e, "calls"), calls) << "calls on " << what;
    }
  }
}

void expect_path_calls(const Report& r, const std::vector<CallsAt>& expected) {
  for (const auto& [path, calls] : expected) {
    const json* n = r.find_node(path);
    EXPECT_TRUE(n) << "tree path " << join_path(path) << " is missing";
    if (n) {
      EXPECT_EQ(u64(*n, "calls"), calls) << "calls at " << join_path(path);
    }
  }
}

void expect_calls_c_truth(const Report& r) {
  expect_function_calls(r,
                        {{"main", 1}, {"a", 7}, {"b", 51}, {"c", 4}, {"via_pointer", 1}, {"hot", 1}, {"leaf", 101000}});
  EXPECT_EQ(r.doc().at("functions").size(), 7u) << "no other function (no clone, nothing of the runtime's)";
  expect_edge_calls(r, {{"", "main", 1},
                        {"main", "a", 3},
                        {"c", "a", 4},
                        {"a", "b", 49},
                        {"main", "b", 2},
                        {"main", "c", 4},
                        {"main", "via_pointer", 1},
                        {"via_pointer", "leaf", 1000},
                        {"main", "hot", 1},
                        {"hot", "leaf", 100000}});
  EXPECT_EQ(r.doc().at("edges").size(), 10u);
  expect_path_calls(r, {{{"main"}, 1},
                        {{"main", "a"}, 3},
                        {{"main", "a", "b"}, 21},
                        {{"main", "b"}, 2},
                        {{"main", "c"}, 4},
                        {{"main", "c", "a"}, 4},
                        {{"main", "c", "a", "b"}, 28},
                        {{"main", "via_pointer"}, 1},
                        {{"main", "via_pointer", "leaf"}, 1000},
                        {{"main", "hot"}, 1},
                        {{"main", "hot", "leaf"}, 100000}});
}

void expect_absent(const Report& r, const std::vector<std::string>& functions) {
  for (const auto& name : functions) {
    const json* f = r.find_function(name);
    EXPECT_FALSE(f) << "function " << name << " should not be in this report, yet it has " << (f ? u64(*f, "calls") : 0)
                    << " calls";
  }
}

void measured(const std::string& key, double value, const std::string& unit) {
  std::ostringstream s;
  s.precision(4);
  s << std::fixed << value << (unit.empty() ? "" : " ") << unit;
  std::cout << "[ measured ] " << key << " = " << s.str() << std::endl;
  ::testing::Test::RecordProperty(key, s.str());
}

bool construction_held(const std::string& key, double by_program, double designed, double margin) {
  if (std::abs(by_program - designed) <= margin) return true;
  std::ostringstream s;
  s << "the program measured " << by_program << " where the design says " << designed << " +- " << margin
    << ": the machine is too loaded for the design check, which was not made; the check against the "
       "program's own measurement was";
  std::cout << "[ note     ] " << key << ": " << s.str() << std::endl;
  ::testing::Test::RecordProperty(key + ".design_check_skipped", s.str());
  return false;
}

const std::vector<ColdPartProgram>& cold_part_programs() {
  static const std::vector<ColdPartProgram> programs = {
      {"cold_part.c", "work", "work.cold", "work.cold"},
      {"cold_part_cxx.cpp", "ns::work", "_ZN2ns4workEi.cold", "ns::work(int) [clone .cold]"}};
  return programs;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path candidate = fs::path(d.empty() ? "." : d) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string kernel_probe_unavailable(const fs::path& dir) {
  const RunResult probe = run({E2E_CALLPROF, "record", "-q", "--mode", "syscall", "--syscalls", "getpid", "-o",
                               "kernel-probe.callprof", "--", "/bin/true"},
                              dir);
  return probe.exit == exited(0) ? "" : probe.err.empty() ? "callprof record --mode syscall failed" : probe.err;
}

}  // namespace e2e
