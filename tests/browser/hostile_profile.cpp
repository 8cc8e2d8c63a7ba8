// html_hostile_profile OUTPUT: writes a profile whose every name is hostile (markup, quotes
// and event handlers, a script element's end tag, CDATA ends, newlines, ANSI escapes,
// bidirectional overrides, U+2028, a 10,000-character name) for the web report's
// untrusted-names test (html_report.test.mjs). Assembler symbols cannot carry quotes and
// newlines portably, so the profile is written through the profile library directly.
// Beside OUTPUT it writes a source file with a markup name and hostile lines, which the
// second hostile function's samples and call site point into (the Source tab).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trace/profile_file.h"

using namespace callprof;

namespace {

// Each name's marker (window.__pwned = N) would show if any of them ever ran as code.
std::vector<std::string> hostile_names() {
  return {
      "<script>alert(1)</script>",
      "\"onmouseover=\"window.__pwned=2;alert(2)\" x=\"",
      "' onmouseover='window.__pwned=3' '",
      "<img src=x onerror=\"window.__pwned=4;alert(4)\">",
      "</script><script>window.__pwned=5;alert(5)</script>",
      "]]></text></svg><svg onload=\"window.__pwned=6\"><script>alert(6)</script>",
      "line1\nline2<b>bold</b>",
      "\x1b[31mred\x1b[0m \x1b]0;title\x07",
      "bidi\u202eevil\u202c and\u2028separator",
      "__proto__",
      "long_" + std::string(9990, 'x') + "<i>end",
  };
}

FunctionId add_function(Profile& p, std::string name, FunctionKind kind = FunctionKind::Normal) {
  Function f;
  f.name = std::move(name);
  f.module = 0;
  f.kind = kind;
  f.file = "<src>/\"quoted\".c";
  f.line = 7;
  p.functions.push_back(std::move(f));
  return FunctionId(p.functions.size() - 1);
}

// The hostile source file's lines: markup, a script end tag, control characters (a tab stays
// a tab), a Trojan Source bidirectional override, invalid UTF-8 and a 5,000-byte line.
std::vector<std::string> hostile_source_lines() {
  return {
      "/* a hostile source file */",
      "void f(void) {",
      "\tint x = 1; /* <script>window.__pwned=9;alert(9)</script> */",
      "  g(\"</script><img src=x onerror=\\\"window.__pwned=10\\\">\");",
      "  /* \x1b]0;title\x07 \xff\xfe invalid */ if (access_level != \"user\u202e \u2066// check\u2069 \u2066\") {",
      "  long_line(); /* " + std::string(5000, 'y') + " */",
      "}",
  };
}

// Writes the source file beside `output` and returns its path (absolute, as debug info has it).
std::string write_hostile_source(const std::string& output) {
  const std::filesystem::path dir = std::filesystem::absolute(output).parent_path();
  const std::string path = (dir / "<img src=x onerror=alert(11)>.c").string();
  std::ofstream out(path, std::ios::binary);
  for (const std::string& line : hostile_source_lines()) out << line << "\n";
  return path;
}

void set(MetricRowRef m, uint64_t calls, uint64_t self_ns) {
  m[Metric::Calls] = calls;
  m[Metric::WallNs] = self_ns;
  m[Metric::CpuNs] = self_ns;
  m[Metric::MinWallNs] = self_ns / calls;
  m[Metric::MaxWallNs] = self_ns / calls;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
    return 2;
  }
  Profile p;
  p.meta.command = "./evil <script>alert('cmd')</script> \"x\"";
  p.meta.mode = RecordingMode::Exact;
  p.meta.hostname = "<b>host</b>";
  p.meta.duration_ns = 50000000;
  p.meta.callprof_version = "0.1.0";
  // Compensated (1 ns a hooked call), and the hooks' cost 35 % slower at the exit: the
  // summary's warning beyond the check's tolerance.
  p.meta.exact.emplace();
  p.meta.exact->calibration = "measured";
  p.meta.exact->calibration_change_at_exit = 0.35;
  p.modules.push_back(Module{.path = "/opt/<script>alert(7)</script>/lib\"evil\".so", .build_id = ""});
  const FunctionId main = add_function(p, "main");
  const FunctionId write = add_function(p, "[syscall] write", FunctionKind::Syscall);
  Thread t;
  t.tid = 100;
  t.pid = 100;
  t.name = "<script>alert('thread')</script>";
  t.start_ns = 1000;
  t.end_ns = 50001000;
  t.finished = true;
  set(t.tree.base(t.tree.path(std::vector<FunctionId>{main})), 1, 1000000);
  uint64_t self = 1000000;
  FunctionId previous = main;
  for (const std::string& name : hostile_names()) {
    const FunctionId f = add_function(p, name);
    set(t.tree.base(t.tree.path(std::vector<FunctionId>{main, f})), 3, self);
    // Each hostile function also calls the one before it: edges and deeper paths between names.
    if (previous != main) set(t.tree.base(t.tree.path(std::vector<FunctionId>{main, f, previous})), 2, self / 4);
    previous = f;
    self += 500000;
  }
  // The second hostile function's costs inside it: samples on line 3, on the long line 6 and
  // past the end of the file (line 90), and its call of the first one from line 4.
  const FunctionId f1 = FunctionId(write + 1), f2 = FunctionId(write + 2);
  const std::string source = write_hostile_source(argv[1]);
  LocationTable locations(p);
  const NodeId n2 = t.tree.path(std::vector<FunctionId>{main, f2});
  const NodeId n21 = t.tree.path(std::vector<FunctionId>{main, f2, f1});
  t.tree.base(n2)[Metric::Samples] = 12;
  t.code.instructions.push_back({n2, locations.add(f2, 0x10, source, 3), 9, 9000000});
  t.code.instructions.push_back({n2, locations.add(f2, 0x14, source, 6), 2, 2000000});
  t.code.instructions.push_back({n2, locations.add(f2, 0x18, source, 90), 1, 1000000});
  t.code.call_sites.push_back({n21, locations.add(f2, 0x20, source, 4)});
  // A traced write under the first hostile function: the system-call panel's paths.
  const NodeId w = t.tree.path(std::vector<FunctionId>{main, FunctionId(write + 1), write});
  set(t.tree.base(w), 4, 40000);
  t.tree.base(w)[Metric::Syscalls] = 4;
  t.tree.base(w)[Metric::SyscallNs] = 40000;
  SyscallStats stats;
  stats.name = "write";
  stats.number = 1;
  for (int i = 0; i < 4; ++i) stats.add(10000, i == 0 ? 9 : 0);
  t.syscalls.push_back(stats);
  p.threads.push_back(std::move(t));
  Thread worker;
  worker.tid = 101;
  worker.pid = 100;
  worker.name = "\"onmouseover=\"window.__pwned=8\"";
  worker.creator_tid = 100;
  worker.creator_path = {main, FunctionId(write + 1)};
  worker.start_routine = FunctionId(write + 2);
  worker.start_ns = 2000;
  worker.end_ns = 30000000;
  worker.finished = true;
  set(worker.tree.base(worker.tree.path(std::vector<FunctionId>{FunctionId(write + 2)})), 1, 2000000);
  p.threads.push_back(std::move(worker));
  Process process;
  process.pid = 100;
  process.command = p.meta.command;
  process.start_ns = 1000;
  process.end_ns = 50001000;
  process.hook_inner_ns = process.hook_outer_ns = 0.5;
  p.processes.push_back(std::move(process));
  if (Status s = write_profile(p, argv[1]); !s) {
    std::fprintf(stderr, "html_hostile_profile: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
