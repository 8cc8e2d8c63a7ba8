// System calls into the sampling collector (--syscalls): each call's entry stack is
// unwound once per distinct stack and its call counted on its path as it arrives, so the
// collector keeps sums, not events. Keys are built into one scratch string and looked up
// without copying: a traced program can make a million calls a second.
#include <algorithm>
#include <cstring>

#include "collect/stacks/sample_collector.h"
#include "util/clock.h"

namespace callprof::stacks {
namespace {

void put(std::string& key, uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool read_word(std::span<const uint8_t> window, uint64_t sp, uint64_t address, uint64_t* out) {
  if (address < sp || address - sp + 8 > window.size()) return false;
  std::memcpy(out, window.data() + (address - sp), 8);
  return true;
}

}  // namespace

// The fast walk, per call: each frame's rule (cached per pc) says where its return address
// and its caller's rbp are in the window. At the first frame that keeps a frame pointer,
// the probe's frame-pointer chain takes over, if rbp is still what the probe started from.
// False where a rule is not one of the simple kinds: the caller then unwinds with libdwfl.
bool SampleCollector::walk_syscall_entry(const perf::SyscallSample& call, std::vector<uint64_t>& out) {
  uint64_t pc = call.ip, sp = call.sp, bp = call.bp;
  const auto chain_after_bp = [&] {
    if (bp != call.bp) return;  // the probe walked from another rbp: its chain is not ours
    for (size_t i = 1; i < call.user_chain.size(); ++i) out.push_back(call.user_chain[i] - 1);
  };
  for (size_t depth = 0; depth < 64; ++depth) {
    const uint64_t lookup = depth == 0 ? pc : pc - 1;
    const FrameRule rule = unwinder_.frame_rule(call.pid, lookup);
    if (rule.kind == FrameRule::Unknown) return false;
    out.push_back(lookup);
    if (rule.kind == FrameRule::Outermost) return true;
    if (rule.kind == FrameRule::BpBased) {
      chain_after_bp();
      return true;
    }
    const uint64_t cfa = sp + uint64_t(int64_t(rule.offset));
    uint64_t ra = 0, saved_bp = 0;
    if (!read_word(call.window, call.sp, cfa - 8, &ra)) {  // the window ends here
      chain_after_bp();
      return true;
    }
    if (rule.saves_bp) {
      if (!read_word(call.window, call.sp, cfa + uint64_t(int64_t(rule.bp_offset)), &saved_bp)) return false;
      bp = saved_bp;
    }
    if (ra == 0) return true;  // the outermost frame
    pc = ra;
    sp = cfa;
  }
  return true;
}

// The kernel-side frame-pointer walk misses the caller of a function without a frame
// pointer, and glibc's wrappers have none: so the top of the stack is unwound by CFI from
// the copied window, and the chain (cut where it leaves code) takes over from the first
// return address both contain, or after the window's frames when they share none.
void SampleCollector::unwind_syscall_entry(const perf::SyscallSample& call, std::vector<uint64_t>& out) {
  ++counts_.syscall_unwinds;
  perf::Sample s;
  s.pid = call.pid;
  s.tid = call.tid;
  s.time_ns = call.time_ns;
  s.ip = call.ip;
  s.user_chain.assign(call.user_chain.begin(), call.user_chain.end());
  unwinder_.unwind(s, perf::UnwindMode::FramePointers, scratch_);
  const std::vector<UserFrame> chain = scratch_.frames;
  if (call.window.empty()) {
    for (const UserFrame& f : chain) out.push_back(f.lookup_address());
    return;
  }
  s.has_user_regs = true;
  s.regs[perf::kDwarfIp] = call.ip;
  s.regs[perf::kDwarfSp] = call.sp;
  s.regs[perf::kDwarfBp] = call.bp;
  s.stack.assign(reinterpret_cast<const char*>(call.window.data()), call.window.size());
  unwinder_.unwind(s, perf::UnwindMode::Dwarf, scratch_);
  for (const UserFrame& f : scratch_.frames) {
    out.push_back(f.lookup_address());
    auto shared = std::find_if(chain.begin() + (chain.empty() ? 0 : 1), chain.end(),
                               [&](const UserFrame& c) { return f.return_address && c.pc == f.pc; });
    if (shared != chain.end()) {
      for (auto c = shared + 1; c != chain.end(); ++c) out.push_back(c->lookup_address());
      return;
    }
  }
  if (!scratch_.complete())
    for (size_t i = 1; i < chain.size(); ++i) out.push_back(chain[i].lookup_address());
}

// The slow path, memoized by everything libdwfl's unwinding reads: the image, the chain,
// the frame layout (sp - bp) and the window's bytes.
const std::vector<uint64_t>& SampleCollector::syscall_user_frames(const perf::SyscallSample& call, uint32_t image) {
  frames_.clear();
  if (call.window.empty() || !walk_syscall_entry(call, frames_)) {
    key_.clear();
    put(key_, (uint64_t(call.pid) << 32) | image);
    put(key_, call.sp - call.bp);
    for (uint64_t pc : call.user_chain) put(key_, pc);
    key_.append(reinterpret_cast<const char*>(call.window.data()), call.window.size());
    auto it = user_frames_.find(std::string_view(key_));
    if (it == user_frames_.end()) {
      if (user_frames_.size() >= (1u << 16)) user_frames_.clear();  // bounded
      it = user_frames_.emplace(key_, std::vector<uint64_t>{}).first;
      unwind_syscall_entry(call, it->second);
    }
    return it->second;
  }
  ++counts_.syscall_fast_walks;
  return frames_;
}

const std::vector<uint64_t>& SampleCollector::entry_frames(const perf::Sample& entry) {
  const uint64_t start = monotonic_ns();
  thread(entry.pid, entry.tid, entry.time_ns);
  perf::SyscallSample call;
  call.pid = entry.pid;
  call.tid = entry.tid;
  call.time_ns = entry.time_ns;
  call.ip = entry.ip;
  call.sp = entry.regs[perf::kDwarfSp];
  call.bp = entry.regs[perf::kDwarfBp];
  call.user_chain = entry.user_chain;
  if (entry.has_user_regs) call.window = {reinterpret_cast<const uint8_t*>(entry.stack.data()), entry.stack.size()};
  const std::vector<uint64_t>& frames = syscall_user_frames(call, images_[entry.pid]);
  counts_.unwind_ns += monotonic_ns() - start;
  return frames;
}

void SampleCollector::on_syscall(const perf::SyscallSample& call) {
  const auto found = images_.find(call.pid);
  const uint32_t image = found == images_.end() ? 0 : found->second;
  if (mappings_.contains({call.pid, image})) return add_syscall(call, image);
  WaitingSyscall& w = waiting_syscalls_.emplace_back();
  w.call = call;
  w.user_chain.assign(call.user_chain.begin(), call.user_chain.end());
  w.kernel_chain.assign(call.kernel_chain.begin(), call.kernel_chain.end());
  w.window.assign(call.window.begin(), call.window.end());
}

void SampleCollector::caught_up(uint32_t pid, uint64_t time_ns) {
  if (waiting_syscalls_.empty()) return;
  std::erase_if(waiting_syscalls_, [&](WaitingSyscall& w) {
    if (w.call.pid != pid || w.call.time_ns > time_ns) return false;
    w.call.user_chain = w.user_chain;
    w.call.kernel_chain = w.kernel_chain;
    w.call.window = w.window;
    add_syscall(w.call, images_[pid]);
    return true;
  });
}

void SampleCollector::add_syscall(const perf::SyscallSample& call, uint32_t image) {
  const uint64_t start = monotonic_ns();
  thread(call.pid, call.tid, call.time_ns + call.duration_ns);
  ++counts_.syscalls;
  SyscallStats& stats = syscall_stats_[{call.tid, image}][call.nr];
  if (stats.name.empty()) stats.name = call.name, stats.number = call.nr;
  stats.add(call.duration_ns, call.error);

  const std::vector<uint64_t>& user = syscall_user_frames(call, image);
  key_.clear();
  put(key_, (uint64_t(call.tid) << 32) | image);
  put(key_, (uint64_t(call.nr) << 32) | uint32_t(call.kernel_chain.size()));
  for (uint64_t pc : call.kernel_chain) put(key_, pc);
  for (uint64_t pc : user) put(key_, pc);
  auto it = syscall_path_index_.find(std::string_view(key_));
  if (it == syscall_path_index_.end()) {
    SyscallPath path{call.pid, call.tid, image, uint32_t(pcs_.size()), 0, call.name};
    for (auto pc = user.rbegin(); pc != user.rend(); ++pc) pcs_.push_back(*pc);
    for (size_t i = call.kernel_chain.size(); i-- > 0;)
      pcs_.push_back(i == 0 ? call.kernel_chain[i] : call.kernel_chain[i] - 1);
    path.count = uint32_t(pcs_.size() - path.first);
    it = syscall_path_index_.emplace(key_, uint32_t(syscall_paths_.size())).first;
    syscall_paths_.push_back(path);
    ++counts_.syscall_paths;
  }
  SyscallPath& path = syscall_paths_[it->second];
  if (timeline_events_) syscall_calls_[call.tid].push({it->second, call.time_ns, call.duration_ns}, timeline_events_);
  path.sums.add(call.duration_ns, call.error);
  counts_.unwind_ns += monotonic_ns() - start;
}

}  // namespace callprof::stacks
