// A ThreadProfile in memory the test owns, driven like a program: calls and returns
// with a fake clock and fake stack pointers (64 bytes per frame).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "thread_profile.h"

namespace callprof::rt {

struct ProgramOptions {
  uint32_t node_capacity = 1024;
  uint32_t frame_capacity = 256;
  bool metrics = false;
  bool prunable = false;
  uint32_t timeline = 0;          // timeline ring capacity, 0: none
  bool inlined = false;           // the hooks run from the host's code, as for an inlined copy
  uint32_t site_capacity = 1024;  // call-site entries (the first is never used), 0: none
  bool fast_paths = true;         // calls and returns try enter_fast/exit_fast first, as the hooks do
};

class Program {
 public:
  explicit Program(uint32_t node_capacity = 1024, uint32_t frame_capacity = 256)
      : Program(ProgramOptions{node_capacity, frame_capacity}) {}
  explicit Program(const ProgramOptions& o)
      : nodes_(o.node_capacity),
        slots_(slot_count_for(o.node_capacity)),
        frames_(o.frame_capacity),
        inlined_(o.inlined),
        fast_paths_(o.fast_paths) {
    ThreadMemory m{nodes_.data(),           o.node_capacity, slots_.data(),
                   uint32_t(slots_.size()), frames_.data(),  o.frame_capacity};
    if (o.metrics) {
      metrics_.resize(o.node_capacity);
      m.metrics = metrics_.data();
    }
    if (o.prunable) {
      scratch_.resize(prune_scratch_bytes(o.node_capacity) / 8);
      m.prune_scratch = scratch_.data();
    }
    if (o.timeline) {
      timeline_.resize(o.timeline);
      m.timeline = timeline_.data();
      m.timeline_capacity = o.timeline;
    }
    if (o.site_capacity) {
      node_sites_.resize(o.node_capacity);
      sites_.resize(o.site_capacity);
      m.node_sites = node_sites_.data();
      m.sites = sites_.data();
      m.site_capacity = o.site_capacity;
    }
    p.init(m, 0);
  }
  // Enter fn one frame deeper than the current top (stack grows down by 64 per frame).
  // As the hooks do (hook_path.h), a function the thread folded skips the clock and the stack,
  // and the fast path is tried first.
  void call(uint64_t fn, uint64_t at) { call_from(fn, 0, at); }
  // The same from call site `site` (a return address in the caller).
  void call_from(uint64_t fn, uint64_t site, uint64_t at) {
    sp_.push_back(sp_.empty() ? 1'000'000 : sp_.back() - 64);
    if (p.folded(fn)) return p.count_folded(fn, site);
    if (fast_paths_ && p.enter_fast(fn, site, sp_.back(), at)) {
      ++fast_enters;
      return;
    }
    // A real call's enter hook returns a few bytes into the function; an inlined copy's, far away.
    p.enter(fn, site, sp_.back(), at, inlined_ ? fn + 0x100000 : fn + 16);
  }
  void ret(uint64_t fn, uint64_t at) {
    if (!p.folded(fn)) {
      if (fast_paths_ && p.exit_fast(fn, at))
        ++fast_exits;
      else
        p.exit(fn, sp_.back(), at);
    } else if (p.top_frame_is(fn, sp_.back())) {
      p.exit(fn, sp_.back(), at);
    }
    sp_.pop_back();
  }
  // Frames open when an attached window began at `at` (wire/attach_frames.h), outermost
  // first, one deeper than the other as calls would be; how many the profile took.
  uint32_t open_at_attach(const std::vector<uint64_t>& fns, uint64_t at) {
    std::vector<wire::AttachFrame> frames;
    for (uint64_t fn : fns) {
      sp_.push_back(sp_.empty() ? 1'000'000 : sp_.back() - 64);
      frames.push_back({1, 0, 0, fn, 0, sp_.back()});
    }
    return p.open_context_frames(frames.data(), uint32_t(frames.size()), at);
  }
  // Leave `frames` frames without exit hooks (what longjmp or an exception does).
  void abandon(size_t frames) { sp_.resize(sp_.size() - frames); }
  uint64_t sp() const { return sp_.back(); }

  // The live node reached by a path of function ids from the root, or nullptr.
  const DumpNode* at(std::vector<uint64_t> path) const {
    uint32_t cur = 0;
    for (uint64_t fn : path) {
      uint32_t found = kNoNode;
      for (uint32_t i = 1; i < p.node_count(); ++i)
        if (p.nodes()[i].parent == cur && p.nodes()[i].fn == fn) found = i;
      if (found == kNoNode) return nullptr;
      cur = found;
    }
    return &p.nodes()[cur];
  }
  uint32_t index_of(const DumpNode* n) const { return uint32_t(n - p.nodes()); }
  // The further call sites of a node (DumpCallSite), by call site.
  std::map<uint64_t, DumpCallSite> sites_of(const DumpNode* n) const {
    std::map<uint64_t, DumpCallSite> out;
    for (uint32_t i = 0; i < p.call_site_count(); ++i)
      if (p.call_sites()[i].node == index_of(n)) out[p.call_sites()[i].callsite] = p.call_sites()[i];
    return out;
  }

  ThreadProfile p;
  uint64_t fast_enters = 0, fast_exits = 0;  // calls and returns the fast paths took

 private:
  std::vector<DumpNode> nodes_;
  std::vector<NodeSlot> slots_;
  std::vector<Frame> frames_;
  std::vector<DumpNodeMetrics> metrics_;
  std::vector<uint64_t> scratch_;
  std::vector<DumpTimelineEvent> timeline_;
  std::vector<uint32_t> node_sites_;
  std::vector<DumpCallSite> sites_;
  std::vector<uint64_t> sp_;
  bool inlined_ = false;
  bool fast_paths_ = true;
};

enum : uint64_t { MAIN = 0x100, A, B, C, D, F, G, INLINED };

}  // namespace callprof::rt
