// Where inside a function the cost is: the instructions samples fell on and the places calls
// were made from, each with its source line (annotate, pprof -list, callgrind per line, the
// web report's Source panel). Sampled stacks and samples inside exact mode give the first;
// exact nodes' call sites and sampled return addresses the second.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/call_tree.h"

namespace callprof {

struct Profile;

using LocationId = uint32_t;
inline constexpr LocationId kNoLocation = UINT32_MAX;

// An instruction as one frame sees it: an address inside `function` and the source line it
// belongs to there. An address with inlined code is one location per frame, each with its
// own function's line (the innermost's line, and for every frame around it the line of the
// inlined call). A call site's address is inside the call instruction (return address - 1).
struct CodeLocation {
  FunctionId function = kNoFunction;
  uint64_t address = 0;  // relative to the function's module, like Function::address
  uint32_t file = 0;     // index into Profile::source_files ("" when unknown)
  uint32_t line = 0;     // 0: unknown
  bool operator==(const CodeLocation&) const = default;
};

// On-CPU samples whose instruction was in a node's own code, by instruction.
struct InstructionSamples {
  NodeId node = kNoNode;
  LocationId location = kNoLocation;  // its function is the node's
  uint64_t samples = 0;
  uint64_t cpu_ns = 0;
};

// Where in its parent's function a node's calls were made. Exact mode knows every site of
// a calling context (a caller calling one function from two lines) with its calls and
// their wall time; a sampled node, each return address of the stacks through it, weighed by
// their time (no calls). A node's costs are shared among its sites in proportion to the weights
// (site_shares), and equally when they are all zero. A weighed site may have no location
// (a tail call's return address is its caller's caller's): it takes its share, shown nowhere.
struct CallSite {
  NodeId node = kNoNode;
  LocationId location = kNoLocation;  // its function is the parent node's; kNoLocation: not known
  uint64_t calls = 0;                 // calls of the node made from here
  uint64_t wall_ns = 0;               // their total wall time
};

// Each call site's share of its node's costs: of its calls, and of its time.
struct SiteShare {
  double calls = 1;
  double time = 1;
};
std::vector<SiteShare> site_shares(const std::vector<CallSite>& sites, size_t nodes);
// Per node, its heaviest known call site (by calls, then time; the first of equals), for a
// consumer that takes one site per node (pprof's stacks, a hidden node's caller line).
std::vector<LocationId> main_call_sites(const std::vector<CallSite>& sites, size_t nodes);

// A thread's costs inside functions (Thread::code); empty when nothing located them.
struct CodeCosts {
  std::vector<InstructionSamples> instructions;
  std::vector<CallSite> call_sites;
  bool empty() const { return instructions.empty() && call_sites.empty(); }
};

// Interns locations and file names into a profile while it is built: one id per distinct
// (function, address, file, line).
class LocationTable {
 public:
  explicit LocationTable(Profile& profile);
  LocationId add(FunctionId function, uint64_t address, const std::string& file, uint32_t line);

 private:
  Profile& profile_;
  absl::flat_hash_map<std::string, uint32_t> files_;
  absl::flat_hash_map<std::tuple<FunctionId, uint64_t, uint32_t, uint32_t>, LocationId> ids_;
};

// A thread's samples by (node, location) while it is built, then its CodeCosts::instructions.
class InstructionSums {
 public:
  void add(NodeId node, LocationId location, uint64_t samples, uint64_t cpu_ns) {
    auto& [n, ns] = sums_[{node, location}];
    n += samples;
    ns += cpu_ns;
  }
  void move_into(CodeCosts& costs);

 private:
  std::map<std::pair<NodeId, LocationId>, std::pair<uint64_t, uint64_t>> sums_;
};

// A thread's call sites while it is built: weighed sites of a node add up by location; a
// site without weights (an older profile's, a stack of no time) is kept only for a node
// that has none yet.
class CallSiteSet {
 public:
  void add(NodeId node, LocationId location) { add(CallSite{node, location}); }
  void add(const CallSite& site);
  void move_into(CodeCosts& costs);
  void reserve(size_t sites) { sites_.reserve(sites); }

 private:
  // Added as they come, summed by (node, location) at the end: one site per node of a
  // large tree, where an ordered map's insertions went to memory each time.
  std::vector<CallSite> sites_;
  std::vector<bool> has_site_;  // by node
};

}  // namespace callprof
