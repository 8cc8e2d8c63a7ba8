// Shared fixtures of the tree-transform tests (focus, hide, invert): the SPEC §1.1
// counter-example as folded stacks, lookups by name, and random trees for properties.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "folded_profile.h"

namespace callprof::testing {

// The counter-example's main thread (as in tests/unit/report/fixtures.h): A calls B and C,
// each calls D 40 times, B's calls of D taking 3 ms and C's 1 ms.
inline constexpr const char* kCounterExample =
    "main;A;B 1000000\n"
    "main;A;C 1000000\n"
    "main;A;B;D 120000000 calls=40 min=2900000 max=3100000 cpu=100000000 off=20000000\n"
    "main;A;C;D 40000000 calls=40 min=900000 max=1100000 cpu=40000000\n"
    "main;spawn 50000\n";

inline FunctionId id(const Profile& p, const std::string& name) {
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == name) return f;
  ADD_FAILURE() << "no function " << name;
  return kNoFunction;
}

// The node at a path of names, kNoNode when the tree has no such path.
inline NodeId at(const Profile& p, const CallTree& t, const std::vector<std::string>& path) {
  NodeId n = kRootNode;
  for (const std::string& name : path) {
    n = t.find_child(n, id(p, name));
    if (n == kNoNode) return kNoNode;
  }
  return n;
}

inline std::function<bool(FunctionId)> named(const Profile& p, std::set<std::string> names) {
  return [&p, names](FunctionId f) { return names.count(p.functions[f].name) > 0; };
}

// Random trees over few functions, so paths recurse and merge often.
inline CallTree random_tree(std::mt19937& rng, size_t steps, FunctionId functions) {
  CallTree t;
  std::vector<NodeId> nodes{kRootNode};
  for (size_t k = 0; k < steps; ++k) {
    const bool deepen = rng() % 2;  // extend a recent node half of the time, for depth
    const NodeId parent =
        deepen ? nodes[nodes.size() - 1 - rng() % std::min<size_t>(nodes.size(), 3)] : nodes[rng() % nodes.size()];
    const NodeId n = t.child(parent, FunctionId(rng() % functions));
    if (n == nodes.size()) nodes.push_back(n);
    Metrics m;
    m[Metric::Calls] = 1 + rng() % 5;
    m[Metric::IndirectCalls] = rng() % 2;
    m[Metric::WallNs] = rng() % 1000;
    m[Metric::CpuNs] = rng() % 500;
    m[Metric::MinWallNs] = rng() % 100;
    m[Metric::MaxWallNs] = 100 + rng() % 100;
    t.base(n).merge(m);
  }
  return t;
}

}  // namespace callprof::testing
