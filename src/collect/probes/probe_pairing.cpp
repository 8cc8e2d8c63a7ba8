#include "collect/probes/probe_pairing.h"

#include <algorithm>

namespace callprof::probes {

uint64_t HitCosts::inside(HitKind entry, const HitKind* exit) const {
  if (!exit) {
    const HitKind ret = HitKind::SingleStepped;
    return inside(entry, &ret) / 2;
  }
  if (*exit == HitKind::Return)
    return entry == HitKind::Emulated ? inside_emulated_return_ns : inside_stepped_return_ns;
  // A ret or a tail jump: its single step (or emulation) comes after its timestamp, outside
  // the call. An emulated entry spares the single step that follows its timestamp.
  if (entry == HitKind::SingleStepped) return inside_stepped_ns;
  const uint64_t spared = hit(HitKind::SingleStepped) - std::min(hit(HitKind::SingleStepped), hit(entry));
  return inside_stepped_ns > spared ? inside_stepped_ns - spared : 0;
}

uint64_t HitCosts::outside(HitKind entry, const HitKind* exit) const {
  const uint64_t all = hit(entry) + (exit ? hit(*exit) : 0), in = inside(entry, exit);
  return all > in ? all - in : 0;
}

void ProbePairing::close_top(uint32_t tid, std::vector<OpenFrame>& stack, uint64_t time_ns, const HitKind* exit) {
  const OpenFrame f = stack.back();
  stack.pop_back();
  const uint64_t total = time_ns > f.start_ns ? time_ns - f.start_ns : 0;
  CallTimes times{total, total > f.child_ns ? total - f.child_ns : 0};
  if (compensate_) {
    times.probe_ns = costs_.inside(f.entry_kind, exit) + f.child_probe_ns;
    times.hits_ns = costs_.hit(f.entry_kind) + (exit ? costs_.hit(*exit) : 0);
  }
  if (!stack.empty()) {
    stack.back().child_ns += total;
    if (compensate_) stack.back().child_probe_ns += costs_.outside(f.entry_kind, exit);
    ++stack.back().children;
  }
  ++counts_.calls;
  sink_.on_call(tid, f, times);
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

void ProbePairing::exit(uint32_t tid, uint64_t time_ns, uint64_t sp, HitKind kind) {
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
  close_top(tid, stack, time_ns, &kind);
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

void ProbePairing::close_function(uint32_t function, uint64_t time_ns) {
  for (auto& [tid, stack] : threads_) {
    auto outermost =
        std::find_if(stack.begin(), stack.end(), [&](const OpenFrame& f) { return f.function == function; });
    for (size_t n = size_t(stack.end() - outermost); n > 0; --n) {
      ++counts_.cut;
      close_top(tid, stack, time_ns);
    }
  }
}

std::vector<OpenFrame> ProbePairing::frames(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? std::vector<OpenFrame>{} : it->second;
}

std::span<const OpenFrame> ProbePairing::open_stack(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? std::span<const OpenFrame>{} : std::span<const OpenFrame>(it->second);
}

size_t ProbePairing::open_frames(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? 0 : it->second.size();
}

}  // namespace callprof::probes
