// Profiles for the diff tests (query and report): the program of issue 29.6 (one function
// made slower by an argument among others that are not) recorded as exact mode would, on a
// quiet or a loaded machine, and helpers to analyse two of them.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "folded_profile.h"
#include "query/diff.h"

namespace callprof::testing {

// "PATH WALL calls=N cpu=CPU off=OFF" (off: blocked or asleep).
inline std::string stack(const std::string& path, uint64_t wall, uint64_t calls, uint64_t cpu, uint64_t off = 0) {
  std::ostringstream s;
  s << path << ' ' << wall << " calls=" << calls << " cpu=" << cpu << " off=" << off << '\n';
  return s.str();
}

// Exact mode's facts on a folded profile: mode, hook costs already compensated (10 + 10 ns
// per call), the CPU split measured in every thread.
inline Profile exact_run(const std::string& folded_text, const std::string& command) {
  Profile p = folded(folded_text);
  p.meta.command = command;
  p.meta.mode = RecordingMode::Exact;
  p.meta.exact = ExactFacts{};
  p.meta.compensated = true;
  p.processes.push_back(Process{.pid = 1, .command = command, .hook_inner_ns = 10, .hook_outer_ns = 10});
  for (Thread& t : p.threads) t.offcpu = Thread::OffCpu::Measured;
  return p;
}

// The issue's program: main calls parse, render, compress, checksum and target 40 times
// each; checksum calls helper 20,000 times a call. `stretch` multiplies every time (the
// machine, or a run of twice the work), `factor` target's on top (its argument).
inline Profile issue_run(double stretch, double factor, const std::string& command = "./prog") {
  auto t = [&](double ms) { return uint64_t(ms * 1e6 * stretch); };
  const uint64_t target = uint64_t(double(t(4.9)) * factor);
  return exact_run(stack("main", t(0.7), 1, t(0.7)) + stack("main;parse", t(187), 40, t(187)) +
                       stack("main;render", t(139), 40, t(139)) + stack("main;compress", t(93), 40, t(93)) +
                       stack("main;target", target, 40, target) + stack("main;checksum", t(0.2), 40, t(0.2)) +
                       stack("main;checksum;helper", t(0.6), 800000, t(0.6)),
                   command + " " + std::to_string(int(factor)));
}

// Both profiles analysed with default query options (names short).
struct AnalysedPair {
  Analysis base, next;
};
inline AnalysedPair analyse(Profile base, Profile next, NameStyle names = NameStyle::Short) {
  QueryOptions q;
  q.names = names;
  auto b = Analysis::run(std::move(base), q);
  auto n = Analysis::run(std::move(next), q);
  if (!b || !n) throw std::runtime_error("analysis failed");
  return {std::move(*b), std::move(*n)};
}

inline Diff diff(const AnalysedPair& p, const DiffOptions& o = {}) {
  auto d = diff_analyses(p.base, p.next, o);
  if (!d) throw std::runtime_error(d.error().message);
  return std::move(*d);
}

}  // namespace callprof::testing
