// The ways one recording collects, alike to its session (docs/design.md, "Recording"): the
// in-process runtime's dumps (exact mode), the perf session's samples, probe hits and
// entry stacks (collect/stacks), the eBPF probe's system calls and exact-mode samples, and
// probe mode's uprobes. The session holds the sources its mode and options ask for as a
// list: each adds to the launch what it needs, watches the target once it exists, is polled
// by the drain loop, and adds what it collected to the one profile, in the list's order.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "collect/runtime/node_samples.h"
#include "collect/runtime/profile_builder.h"
#include "model/profile.h"
#include "record/drain_loop.h"
#include "target/launcher.h"
#include "util/result.h"

namespace callprof::record {

// The profile as the sources put it together, each in turn.
struct Assembly {
  bool final = true;               // false: a snapshot while the program runs (exact mode)
  std::optional<Profile> profile;  // built by the first source; none when it had nothing yet
  // Exact mode, from the runtime's dumps: where each thread's node ids went in its tree,
  // the runtime's own threads, and what became of the samples placed under the nodes.
  std::vector<ThreadNodes> thread_nodes;
  std::vector<uint32_t> runtime_tids;
  NodeSampleCounts node_samples;
};

class Source {
 public:
  virtual ~Source() = default;

  // Before the target runs: what a launched program's environment needs.
  virtual void add_environment(LaunchSpec&) const {}
  // The target's process, launched (held before its exec) or attached.
  virtual Status watch(pid_t) { return Ok{}; }
  // What the drain loop polls between its rounds; none: nothing.
  virtual SideSource* side() { return nullptr; }
  // Once the target ended or was detached, before any source contributes.
  virtual void target_ended() {}
  // Adds what it collected: the list's first source builds `a.profile`, the others add to
  // it. A snapshot (`a.final` false) is built by the first source alone.
  virtual void contribute(Assembly& a) = 0;
  // Once written: the "wrote" line (the source the recording's mode is named after says
  // it; "" from the others), and the source's own lines after it.
  virtual std::string written(const Profile&, const std::string& /*path*/, bool /*final*/) const { return ""; }
  virtual std::vector<std::string> details() const { return {}; }
};

}  // namespace callprof::record
