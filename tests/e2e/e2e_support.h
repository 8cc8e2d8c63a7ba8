// Support for the end-to-end tests: compile a program from tests/e2e/programs with a real
// compiler, run it under `callprof record`, read `callprof report --json`, and look
// things up in the report. Infrastructure failures throw (GoogleTest reports them).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace e2e {

using json = nlohmann::json;

// A compiler pair and its name as it appears in test names ("gcc", "clang"). A path is
// empty when CMake's find_program did not find that compiler.
struct Toolchain {
  std::string name;
  std::string c;
  std::string cxx;
};
Toolchain toolchain(const std::string& name);
std::vector<std::string> toolchain_names();

// How a process ended.
struct Exit {
  bool signaled = false;
  int code = 0;    // exit status when !signaled
  int signal = 0;  // terminating signal when signaled
  std::string describe() const;
  bool operator==(const Exit&) const = default;
};
Exit exited(int code);
Exit killed_by(int signal);

struct RunResult {
  Exit exit;
  std::string out;
  std::string err;
};

// Runs argv (argv[0] a path) in `dir` with `input` on stdin, capturing stdout and stderr.
// Gives up after `timeout_s` seconds: kills the process group and throws.
RunResult run(const std::vector<std::string>& argv, const std::filesystem::path& dir, const std::string& input = "",
              int timeout_s = 60);

// run() in two steps, for a test that acts while the process runs: start() returns at once
// (the process leads its own process group, pgid = pid); finish() waits for it as run() does.
struct Started {
  pid_t pid = 0;
  std::filesystem::path out, err;
  std::string what;
};
Started start(const std::vector<std::string>& argv, const std::filesystem::path& dir, const std::string& input = "");
RunResult finish(const Started& started, int timeout_s = 60);

// The JSON report of one profile, with lookups by (short) function name: "f1" finds the
// C function f1 and the demangled C++ function "f1(int)".
class Report {
 public:
  explicit Report(json doc) : doc_(std::move(doc)) {}
  const json& doc() const { return doc_; }

  const json* find_function(std::string_view name) const;
  const json& function(std::string_view name) const;  // throws when absent
  // caller "" = the spontaneous edge (caller null).
  const json* find_edge(std::string_view caller, std::string_view callee) const;
  const json& edge(std::string_view caller, std::string_view callee) const;
  // A tree node by its path of names from a top-level node, e.g. {"main", "a", "b"}.
  const json* find_node(const std::vector<std::string>& path) const;
  const json& node(const std::vector<std::string>& path) const;
  // Every path (top-level node first) that ends in a node of function `name`.
  std::vector<std::vector<std::string>> paths_to(std::string_view name) const;
  // The calls of the nodes of any of `leaves` (e.g. "[syscall] write"): all of them, and
  // those with a node of function `under` on their path.
  struct LeafCalls {
    uint64_t all = 0, under = 0;
  };
  LeafCalls leaf_calls(const std::vector<std::string>& leaves, std::string_view under) const;
  const json& threads() const { return doc_.at("threads"); }
  const json& processes() const { return doc_.at("processes"); }

 private:
  json doc_;
};

bool same_function(std::string_view full_name, std::string_view short_name);
// Element by element with same_function: {"main", "f1(int)"} is the path {"main", "f1"}.
bool same_path(const std::vector<std::string>& full_names, const std::vector<std::string>& short_names);
std::string join_path(const std::vector<std::string>& path);
uint64_t u64(const json& object, const char* key);
// An extra metric's key (preempted_ns, switches, ...), present only where some node of the
// report has the metric (docs/json.md): 0 when absent.
uint64_t or_zero(const json& object, const char* key);
double ms(uint64_t ns);

// The documented report invariants (docs/json.md "Definitions") and the tree's own
// consistency, checked with EXPECT_* so every violation is listed.
void expect_report_invariants(const Report& report);

// Exact-count expectations; a missing function, edge or path is reported, not thrown.
struct CallsOf {
  std::string function;
  uint64_t calls;
};
struct CallsOn {
  std::string caller, callee;
  uint64_t calls;
};  // caller "" = spontaneous
struct CallsAt {
  std::vector<std::string> path;
  uint64_t calls;
};
void expect_function_calls(const Report& report, const std::vector<CallsOf>& expected);
void expect_edge_calls(const Report& report, const std::vector<CallsOn>& expected);
void expect_path_calls(const Report& report, const std::vector<CallsAt>& expected);
void expect_absent(const Report& report, const std::vector<std::string>& functions);
// programs/calls.c's truth: its calls on every function, edge and path, and nothing else.
void expect_calls_c_truth(const Report& report);

// programs/cold_part.c and its C++ twin: work()'s loop, which GCC moves to a part of its own
// (`cold_symbol`, demangled `cold_name`) that runs on work's frame; Clang keeps it in work.
struct ColdPartProgram {
  std::string source, work, cold_symbol, cold_name;
};
const std::vector<ColdPartProgram>& cold_part_programs();

// Why callprof's kernel probe (eBPF: --syscalls, samples inside exact mode) cannot run
// here, from a one-call recording of /bin/true in `dir`; "" when it can.
std::string kernel_probe_unavailable(const std::filesystem::path& dir);

// The program `name` on PATH (a real consumer: go, callgrind_annotate), "" when there is none.
std::string find_on_path(const std::string& name);

// Prints a measured number to the log and records it in the test's XML result.
void measured(const std::string& key, double value, const std::string& unit = "");

// A designed truth (75/25, 1:2:3:4) holds only if the machine let the program run as
// designed, and the program's own clock tells whether it did. True when `by_program` is
// within `margin` of `designed`; otherwise says loudly, in the log and the XML result,
// that the machine was too loaded for the design check (the check against the program's
// own measurement, which the caller makes regardless, still applies).
bool construction_held(const std::string& key, double by_program, double designed, double margin);

// Base fixture, parameterized by toolchain name. Each test gets its own directory, kept
// (and named in the log) when the test fails.
class E2ETest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Compiles programs/<source> with this toolchain (-O2 -finstrument-functions); the
  // language follows the extension. Returns the binary's path.
  std::string build(const std::string& source, const std::vector<std::string>& extra_flags = {});
  // The same program built as Debian builds packages (-O2 -g, no hooks): for sampling and
  // system calls. Binaries with different flags get different names.
  std::string build_plain(const std::string& source, const std::vector<std::string>& extra_flags = {});
  // `callprof record -q -o profile.callprof OPTIONS -- binary ARGS`, then the report; the
  // recording must exit 0.
  Report record_with(const std::vector<std::string>& options, const std::string& binary,
                     const std::vector<std::string>& args = {});
  // Starts argv, lets it run `settle_ms`, runs `callprof attach -q -o profile.callprof
  // OPTIONS PID` (which must exit 0 and leave the target running), then kills the target
  // with SIGKILL and returns its wait status.
  int attach_to_running(const std::vector<std::string>& argv, const std::vector<std::string>& options, int settle_ms);
  // `callprof record -q -o <profile> -- binary args...`
  RunResult record(const std::string& binary, const std::vector<std::string>& args = {}, const std::string& input = "",
                   const std::string& profile = "profile.callprof");
  // `callprof report -i <profile> --json [extra...]`, parsed; throws on failure.
  Report report(const std::vector<std::string>& extra = {}, const std::string& profile = "profile.callprof");
  // record + report for a program that must exit 0 and print nothing to stderr.
  Report record_and_report(const std::string& binary, const std::vector<std::string>& args = {},
                           std::string* out = nullptr);

  // Why `binary`, built from `program` with GCC, tests nothing (GCC left work's loop in work);
  // "" when it has its cold part, or with another compiler.
  std::string unsplit(const std::string& binary, const ColdPartProgram& program);

  // For C++ tests, in SetUp: skip (saying why) when this toolchain has no C++ compiler.
  void require_cxx();

  const std::string& compiler_name() const { return toolchain_.name; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  Toolchain toolchain_;
  std::filesystem::path dir_;
};

// Instantiates a suite derived from E2ETest once per toolchain: Compiler/Suite.Test/gcc.
#define E2E_INSTANTIATE(Suite)                                                             \
  INSTANTIATE_TEST_SUITE_P(Compiler, Suite, ::testing::ValuesIn(::e2e::toolchain_names()), \
                           [](const ::testing::TestParamInfo<std::string>& i) { return i.param; })

}  // namespace e2e
