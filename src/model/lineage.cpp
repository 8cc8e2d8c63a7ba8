// Resolving process and thread links by id and start time.
#include "model/lineage.h"

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace callprof {
namespace {

// Among `candidates` (indices whose start times are given by start_of), the latest that
// started at or before `at`; else the earliest; kNoIndex when there are none.
template <typename StartOf>
size_t running_at(const std::vector<size_t>& candidates, int64_t at, StartOf start_of, size_t except = kNoIndex) {
  size_t best = kNoIndex, earliest = kNoIndex;
  for (size_t c : candidates) {
    if (c == except) continue;
    const int64_t s = start_of(c);
    if (earliest == kNoIndex || s < start_of(earliest)) earliest = c;
    if (s <= at && (best == kNoIndex || s >= start_of(best))) best = c;
  }
  return best != kNoIndex ? best : earliest;
}

// Pids repeat across hosts (merged profiles): a process is known by its host and pid.
std::map<HostPid, std::vector<size_t>> processes_by_pid(const Profile& p) {
  std::map<HostPid, std::vector<size_t>> by_pid;
  for (size_t i = 0; i < p.processes.size(); ++i) by_pid[{p.processes[i].host, p.processes[i].pid}].push_back(i);
  return by_pid;
}

}  // namespace

ProcessLookup::ProcessLookup(const Profile& profile) : by_pid_(processes_by_pid(profile)) {
  for (const Process& p : profile.processes) start_.push_back(p.start_ns);
}

size_t ProcessLookup::of(const Thread& thread) const {
  auto it = by_pid_.find({thread.host, thread.pid});
  if (it == by_pid_.end()) return kNoIndex;
  return running_at(it->second, thread.start_ns, [&](size_t i) { return start_[i]; });
}

std::vector<size_t> thread_processes(const Profile& profile) {
  const ProcessLookup lookup(profile);
  std::vector<size_t> out;
  out.reserve(profile.threads.size());
  for (const Thread& t : profile.threads) out.push_back(lookup.of(t));
  return out;
}

std::vector<size_t> thread_creators(const Profile& profile) {
  const std::vector<size_t> process = thread_processes(profile);
  // Threads grouped by (host, pid, process image) and tid; a thread without a process
  // record groups with the other threads of its pid.
  auto group = [&](size_t i) {
    const Thread& t = profile.threads[i];
    return std::tuple(std::string_view(t.host), t.pid, process[i]);
  };
  std::unordered_map<uint64_t, std::vector<size_t>> by_tid;
  for (size_t i = 0; i < profile.threads.size(); ++i) by_tid[profile.threads[i].tid].push_back(i);
  std::vector<size_t> out(profile.threads.size(), kNoIndex);
  for (size_t i = 0; i < profile.threads.size(); ++i) {
    const Thread& t = profile.threads[i];
    auto it = by_tid.find(t.creator_tid);
    if (t.creator_tid == 0 || it == by_tid.end()) continue;
    std::vector<size_t> same;
    for (size_t c : it->second)
      if (group(c) == group(i)) same.push_back(c);
    out[i] = running_at(
        same, t.start_ns, [&](size_t c) { return profile.threads[c].start_ns; }, i);
  }
  return out;
}

std::vector<size_t> process_parents(const Profile& profile) {
  const auto by_pid = processes_by_pid(profile);
  const auto& ps = profile.processes;
  std::vector<size_t> out(ps.size(), kNoIndex);
  for (size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].image > 0) {
      for (size_t c : by_pid.at({ps[i].host, ps[i].pid}))
        if (ps[c].image < ps[i].image && (out[i] == kNoIndex || ps[c].image > ps[out[i]].image)) out[i] = c;
      if (out[i] != kNoIndex) continue;
    }
    auto it = by_pid.find({ps[i].host, ps[i].ppid});
    if (ps[i].ppid == 0 || it == by_pid.end()) continue;
    out[i] = running_at(
        it->second, ps[i].start_ns, [&](size_t c) { return ps[c].start_ns; }, i);
  }
  return out;
}

}  // namespace callprof
