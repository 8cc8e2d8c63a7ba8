#include "collect/probes/probe_pairing.h"

namespace callprof::probes {

void ProbePairing::close_top(uint32_t tid, std::vector<OpenFrame>& stack, uint64_t time_ns) {
  const OpenFrame f = stack.back();
  stack.pop_back();
  const uint64_t total = time_ns > f.start_ns ? time_ns - f.start_ns : 0;
  uint64_t self = total > f.child_ns ? total - f.child_ns : 0;
  const uint64_t probes = f.probe_ns + f.child_probe_ns;
  self = self > probes ? self - probes : 0;
  if (!stack.empty()) {
    stack.back().child_ns += total;
    stack.back().child_probe_ns += f.probe_ns;
    ++stack.back().children;
  }
  ++counts_.calls;
  sink_.on_call(tid, f.path, total, self);
}

const OpenFrame* ProbePairing::enter(uint32_t tid, uint64_t time_ns, uint64_t sp) {
  std::vector<OpenFrame>& stack = threads_[tid];
  // A new frame's return address sits below every live frame's: one at or above it is gone.
  while (!stack.empty() && stack.back().sp <= sp) {
    ++counts_.unwound;
    close_top(tid, stack, time_ns);
  }
  return stack.empty() ? nullptr : &stack.back();
}

void ProbePairing::open(uint32_t tid, const OpenFrame& frame) { threads_[tid].push_back(frame); }

void ProbePairing::exit(uint32_t tid, uint64_t time_ns, uint64_t sp, uint64_t probe_ns) {
  auto it = threads_.find(tid);
  if (it == threads_.end() || it->second.empty()) {
    ++counts_.unmatched_exits;
    return;
  }
  std::vector<OpenFrame>& stack = it->second;
  while (!stack.empty() && stack.back().sp < sp) {
    ++counts_.unwound;
    close_top(tid, stack, time_ns);
  }
  // A jump out of a function to its cold part keeps the stack pointer below the entry's.
  if (stack.empty() || stack.back().sp != sp) {
    ++counts_.unmatched_exits;
    return;
  }
  stack.back().probe_ns += probe_ns;
  close_top(tid, stack, time_ns);
}

void ProbePairing::end_thread(uint32_t tid, uint64_t time_ns) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  while (!it->second.empty()) {
    ++counts_.unfinished;
    close_top(tid, it->second, time_ns);
  }
  threads_.erase(it);
}

void ProbePairing::end_all(uint64_t time_ns) {
  std::vector<uint32_t> tids;
  for (const auto& [tid, stack] : threads_) tids.push_back(tid);
  for (uint32_t tid : tids) end_thread(tid, time_ns);
}

std::vector<OpenFrame> ProbePairing::frames(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? std::vector<OpenFrame>{} : it->second;
}

size_t ProbePairing::open_frames(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? 0 : it->second.size();
}

}  // namespace callprof::probes
