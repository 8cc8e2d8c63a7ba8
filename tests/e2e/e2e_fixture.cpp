// The end-to-end fixture (a working directory per test, build, record, report) and the
// report invariants every recorded profile must satisfy.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>

#include "e2e_support.h"

namespace e2e {
namespace fs = std::filesystem;

namespace {

void expect_function_sums(const Report& r) {
  // Invariant 1 (docs/json.md): incoming edges add up to the function's row.
  // Invariant 2: for a function outside recursion, self + outgoing totals = total.
  struct Sums {
    uint64_t calls = 0, self = 0, total = 0, out_total = 0, out_recursive = 0;
  };
  std::map<uint64_t, Sums> by_id;
  for (const json& e : r.doc().at("edges")) {
    Sums& in = by_id[u64(e, "callee_id")];
    in.calls += u64(e, "calls");
    in.self += u64(e, "self_ns");
    in.total += u64(e, "total_ns");
    if (e.at("caller_id").is_null()) continue;
    Sums& out = by_id[u64(e, "caller_id")];
    out.out_total += u64(e, "total_ns");
    out.out_recursive += u64(e, "recursive_calls");
  }
  for (const json& f : r.doc().at("functions")) {
    const Sums& s = by_id[u64(f, "id")];
    const std::string name = f.at("name");
    EXPECT_EQ(s.calls, u64(f, "calls")) << "incoming edge calls of " << name;
    EXPECT_EQ(s.self, u64(f, "self_ns")) << "incoming edge self_ns of " << name;
    EXPECT_EQ(s.total, u64(f, "total_ns")) << "incoming edge total_ns of " << name;
    if (u64(f, "recursive_calls") == 0 && s.out_recursive == 0) {
      EXPECT_EQ(u64(f, "self_ns") + s.out_total, u64(f, "total_ns")) << "self + callee totals of " << name;
    }
  }
}

// Returns the sum of calls in the subtree; checks cum = base + children's cum per node.
uint64_t expect_tree_consistent(const json& nodes, const std::string& parent_path) {
  uint64_t calls = 0;
  for (const json& n : nodes) {
    const std::string path = parent_path + "/" + n.at("name").get<std::string>();
    uint64_t children_total = 0;
    for (const json& c : n.at("children")) children_total += u64(c, "total_ns");
    EXPECT_EQ(u64(n, "self_ns") + children_total, u64(n, "total_ns")) << "tree node " << path;
    if (!n.at("min_self_ns").is_null()) {
      EXPECT_LE(u64(n, "min_self_ns"), u64(n, "max_self_ns")) << "tree node " << path;
    }
    calls += u64(n, "calls") + expect_tree_consistent(n.at("children"), path);
  }
  return calls;
}

}  // namespace

void expect_report_invariants(const Report& r) {
  SCOPED_TRACE("report invariants");
  expect_function_sums(r);
  uint64_t self_sum = 0, calls_sum = 0;
  for (const json& f : r.doc().at("functions")) {
    self_sum += u64(f, "self_ns");
    calls_sum += u64(f, "calls");
  }
  const json& summary = r.doc().at("summary");
  EXPECT_EQ(self_sum, u64(summary, "total_ns")) << "sum of self_ns over functions = summary.total_ns";
  EXPECT_EQ(calls_sum, u64(summary, "calls")) << "sum of calls over functions = summary.calls";
  uint64_t top_total = 0;
  for (const json& n : r.doc().at("tree")) top_total += u64(n, "total_ns");
  EXPECT_EQ(top_total, u64(summary, "total_ns")) << "grand total = sum of the top-level nodes' totals";
  EXPECT_EQ(expect_tree_consistent(r.doc().at("tree"), ""), u64(summary, "calls")) << "calls in the tree";
}

void E2ETest::SetUp() {
  toolchain_ = toolchain(GetParam());
  if (toolchain_.c.empty())
    GTEST_SKIP() << GetParam() << " was not found when CMake configured the tests (find_program); "
                 << "install it and reconfigure to run the " << GetParam() << " variants";
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/callprof-e2e-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  dir_ = templ;
}

std::string E2ETest::unsplit(const std::string& binary, const ColdPartProgram& program) {
  if (compiler_name() != "gcc" ||
      run({"/usr/bin/nm", binary}, dir()).out.find(" " + program.cold_symbol + "\n") != std::string::npos)
    return "";
  return "GCC did not move work's loop to " + program.cold_symbol + ": the test tests nothing";
}

void E2ETest::require_cxx() {
  if (!IsSkipped() && toolchain_.cxx.empty())
    GTEST_SKIP() << "the C++ compiler of " << toolchain_.name << " was not found when CMake configured the "
                 << "tests (find_program); install it and reconfigure to run this variant";
}

void E2ETest::TearDown() {
  if (dir_.empty()) return;
  if (HasFailure()) {
    std::cout << "[ kept     ] programs, outputs and profiles of this test: " << dir_.string() << std::endl;
    return;
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string E2ETest::build(const std::string& source, const std::vector<std::string>& extra_flags) {
  const fs::path src = fs::path(E2E_PROGRAMS) / source;
  const bool cxx = src.extension() == ".cpp";
  const std::string& compiler = cxx ? toolchain_.cxx : toolchain_.c;
  if (compiler.empty())
    throw std::runtime_error("no " + std::string(cxx ? "C++" : "C") + " compiler for " + toolchain_.name);
  const std::string binary = (dir_ / src.stem()).string() + "-" + toolchain_.name;
  // Clang's after-inlining hooks replace the default ones rather than adding to them.
  const bool after_inlining =
      std::find(extra_flags.begin(), extra_flags.end(), "-finstrument-functions-after-inlining") != extra_flags.end();
  std::vector<std::string> argv = {
      compiler, cxx ? "-std=gnu++17" : "-std=gnu11", "-O2", "-Wall", "-Wextra", "-pthread", "-I", E2E_PROGRAMS};
  if (!after_inlining) argv.push_back("-finstrument-functions");
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.insert(argv.end(), {src.string(), "-o", binary});
  RunResult r = run(argv, dir_);
  if (r.exit != exited(0)) throw std::runtime_error(compiler + " failed on " + source + ":\n" + r.err);
  if (!r.err.empty()) std::cout << "[ warning  ] " << compiler << " on " << source << ":\n" << r.err;
  return binary;
}

std::string E2ETest::build_plain(const std::string& source, const std::vector<std::string>& extra_flags) {
  const fs::path src = fs::path(E2E_PROGRAMS) / source;
  std::string binary = (dir_ / src.stem()).string() + "-plain-" + toolchain_.name;
  for (const std::string& f : extra_flags) binary += f;
  std::vector<std::string> argv = {
      src.extension() == ".cpp" ? toolchain_.cxx : toolchain_.c, "-O2", "-g", "-pthread", "-I", E2E_PROGRAMS};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  argv.insert(argv.end(), {src.string(), "-o", binary});
  RunResult r = run(argv, dir_);
  if (r.exit != exited(0)) throw std::runtime_error("compiling " + source + " failed:\n" + r.err);
  return binary;
}

Report E2ETest::record_with(const std::vector<std::string>& options, const std::string& binary,
                            const std::vector<std::string>& args) {
  std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", "profile.callprof"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", binary});
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv, dir_);
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  return report();
}

int E2ETest::attach_to_running(const std::vector<std::string>& argv, const std::vector<std::string>& options,
                               int settle_ms) {
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
  std::vector<std::string> attach = {E2E_CALLPROF, "attach", "-q", "-o", "profile.callprof"};
  attach.insert(attach.end(), options.begin(), options.end());
  attach.push_back(std::to_string(pid));
  RunResult r = run(attach, dir_);
  EXPECT_EQ(r.exit, exited(0)) << r.err;
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the target must still run after detach";
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return status;
}

RunResult E2ETest::record(const std::string& binary, const std::vector<std::string>& args, const std::string& input,
                          const std::string& profile) {
  std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", profile, "--", binary};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, dir_, input);
}

Report E2ETest::report(const std::vector<std::string>& extra, const std::string& profile) {
  std::vector<std::string> argv = {E2E_CALLPROF, "report", "-i", profile, "--json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  RunResult r = run(argv, dir_);
  if (r.exit != exited(0)) throw std::runtime_error("callprof report failed (" + r.exit.describe() + "):\n" + r.err);
  try {
    return Report(json::parse(r.out));
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("callprof report --json is not JSON: ") + e.what() + "\n" +
                             r.out.substr(0, 2000));
  }
}

Report E2ETest::record_and_report(const std::string& binary, const std::vector<std::string>& args, std::string* out) {
  RunResult r = record(binary, args);
  EXPECT_EQ(r.exit, exited(0)) << "callprof record of " << binary << "; stderr:\n" << r.err;
  // The programs write nothing to stderr, and -q allows callprof nothing but errors.
  EXPECT_EQ(r.err, "") << "stderr of callprof record -q";
  if (out) *out = r.out;
  return report();
}

}  // namespace e2e
