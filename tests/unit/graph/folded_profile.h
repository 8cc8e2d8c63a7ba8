// Test fixtures from folded stacks: "main;a;b 30 calls=3" adds to the node main>a>b.
// Shared by graph_test and report_test (header-only, tests only).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/profile.h"

namespace callprof::testing {

// Line format:   frame;frame;...;leaf WALL [key=value ...]
//   WALL adds to the leaf's self wall time; keys: calls (default 1), cpu, off, preempted, samples,
//   min, max (default WALL/calls each). A frame "name@module" puts the function in a
//   module. Synthetic frames get their kind: "[syscall]_NAME" (folded names hold no
//   spaces) becomes the leaf "[syscall] NAME", and "[pruned]", "[truncated]", "[kernel]". Nodes that no line names get
//   calls=1 so every path was entered once.
// Directives: "@thread TID [NAME] [creator=TID] [pid=PID]" starts a new thread (the
//   first lines before any directive go to thread 1, pid 1); "#" starts a comment.
// Function ids are assigned in order of first appearance.
class FoldedBuilder {
 public:
  Profile build(std::string_view text) {
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      if (line.rfind("@thread", 0) == 0)
        start_thread(line);
      else
        add_line(line);
    }
    finish();
    return std::move(p_);
  }

  FunctionId function(const std::string& frame) {
    std::string name = frame, module;
    if (auto at = frame.rfind('@'); at != std::string::npos && at > 0) {
      name = frame.substr(0, at);
      module = frame.substr(at + 1);
    }
    auto [it, inserted] = ids_.try_emplace(name, FunctionId(p_.functions.size()));
    if (inserted) {
      Function f;
      f.name = name;
      synthetic_kind(f);
      if (!module.empty()) f.module = module_id(module);
      p_.functions.push_back(f);
    }
    return it->second;
  }

 private:
  static void synthetic_kind(Function& f) {
    if (f.name.starts_with("[syscall]_")) {
      f.name[9] = ' ';
      f.kind = FunctionKind::Syscall;
    }
    if (f.name == "[pruned]") f.kind = FunctionKind::Pruned;
    if (f.name == "[truncated]") f.kind = FunctionKind::Truncated;
    if (f.name == "[kernel]") f.kind = FunctionKind::Kernel;
  }

  ModuleId module_id(const std::string& path) {
    for (ModuleId m = 0; m < p_.modules.size(); ++m)
      if (p_.modules[m].path == path) return m;
    p_.modules.push_back(Module{path, ""});
    return ModuleId(p_.modules.size() - 1);
  }

  Thread& current() {
    if (p_.threads.empty()) {
      Thread t;
      t.tid = 1;
      t.pid = 1;
      t.name = "main";
      t.finished = true;
      p_.threads.push_back(std::move(t));
    }
    return p_.threads.back();
  }

  void start_thread(const std::string& line) {
    std::istringstream ws(line.substr(7));
    Thread t;
    t.pid = 1;
    t.finished = true;
    ws >> t.tid;
    for (std::string w; ws >> w;) {
      if (w.rfind("creator=", 0) == 0)
        t.creator_tid = uint32_t(std::stoul(w.substr(8)));
      else if (w.rfind("pid=", 0) == 0)
        t.pid = uint32_t(std::stoul(w.substr(4)));
      else
        t.name = w;
    }
    p_.threads.push_back(std::move(t));
  }

  void add_line(const std::string& line) {
    std::istringstream ws(line);
    std::string stack;
    uint64_t wall = 0;
    if (!(ws >> stack >> wall)) throw std::runtime_error("bad folded line: " + line);
    std::unordered_map<std::string, uint64_t> kv{{"calls", 1}};
    for (std::string w; ws >> w;) {
      auto eq = w.find('=');
      if (eq == std::string::npos) throw std::runtime_error("bad key=value: " + w);
      kv[w.substr(0, eq)] = std::stoull(w.substr(eq + 1));
    }
    std::vector<FunctionId> path;
    std::istringstream fs(stack);
    for (std::string frame; std::getline(fs, frame, ';');) path.push_back(function(frame));
    Thread& t = current();
    const NodeId n = t.tree.path(path);
    MetricRowRef b = t.tree.base(n);
    const uint64_t calls = kv["calls"];
    const uint64_t each = calls ? wall / calls : wall;
    b[Metric::Calls] += calls;
    b[Metric::WallNs] += wall;
    b[Metric::CpuNs] += kv.count("cpu") ? kv["cpu"] : 0;
    b[Metric::OffCpuNs] += kv.count("off") ? kv["off"] : 0;
    b[Metric::PreemptedNs] += kv.count("preempted") ? kv["preempted"] : 0;
    b[Metric::Samples] += kv.count("samples") ? kv["samples"] : 0;
    Metrics one;
    one[Metric::MinWallNs] = kv.count("min") ? kv["min"] : each;
    one[Metric::MaxWallNs] = kv.count("max") ? kv["max"] : each;
    b.merge(one);
  }

  void finish() {
    for (Thread& t : p_.threads)
      for (NodeId i = 1; i < t.tree.size(); ++i) {
        MetricRowRef b = t.tree.base(i);
        if (b[Metric::Calls] == 0) {
          b[Metric::Calls] = 1;
          b[Metric::MinWallNs] = b[Metric::MaxWallNs] = 0;
        }
      }
  }

  Profile p_;
  std::unordered_map<std::string, FunctionId> ids_;
};

inline Profile folded(std::string_view text) { return FoldedBuilder().build(text); }

// The id of the function named `name` (as its frame wrote it), kNoFunction when none is.
inline FunctionId function_named(const Profile& p, std::string_view name) {
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == name) return f;
  return kNoFunction;
}

}  // namespace callprof::testing
