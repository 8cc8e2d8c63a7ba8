// One thread's shadow stack and calling context tree, built online as calls return.
// Pure logic: time and stack addresses come in as arguments, memory is handed in, so the
// hooks stay tiny and the unit tests can drive it with a fake clock. Not thread-safe by
// design: each thread owns its own.
#pragma once

#include <stdint.h>

#include "wire/raw_dump.h"

namespace callprof::rt {

using wire::DumpNode;

inline constexpr uint32_t kNoNode = UINT32_MAX;
inline constexpr uint64_t kNoMin = UINT64_MAX;
// A frame is dead once a later event runs with a higher stack pointer than the frame's:
// its stack area has been released. Equal stack pointers are no proof (inlined functions
// share their host's physical frame). Beyond this distance the two addresses are taken
// to be on different stacks (sigaltstack, coroutines) and nothing is closed.
inline constexpr uint64_t kSameStackSpan = 1u << 20;

struct Frame {
  uint32_t node;
  uint32_t reserved;
  uint64_t sp;           // the caller's stack pointer at the hook call: orders frames by depth
  uint64_t entry_tsc;
  uint64_t child_ticks;  // time spent in callees that already returned
};

struct NodeSlot {        // open-addressing index from (parent, fn) to node; fn 0 = empty
  uint64_t fn;
  uint32_t parent;
  uint32_t node;
};

// The index size for a node capacity: a power of two, at least twice the capacity.
inline uint32_t slot_count_for(uint32_t node_capacity) {
  uint32_t n = 1;
  while (n < 2 * node_capacity) n <<= 1;
  return n;
}

struct ThreadMemory {
  DumpNode* nodes;
  uint32_t node_capacity;
  NodeSlot* slots;
  uint32_t slot_count;   // a power of two, at least twice node_capacity
  Frame* frames;
  uint32_t frame_capacity;
};

class ThreadProfile {
 public:
  void init(const ThreadMemory& memory, uint64_t now);

  // Hot path: a function is entered. `sp` orders frames (lower = deeper).
  inline void enter(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now) {
    Frame* top = &frames_[depth_ - 1];
    if (__builtin_expect(top->sp < sp, 0)) top = release_dead_frames(sp, now);
    if (__builtin_expect(overflow_ != 0 || depth_ == frame_capacity_, 0)) return drop_call();
    DumpNode& parent = nodes_[top->node];
    uint32_t child = parent.last_child;
    if (__builtin_expect(nodes_[child].fn != fn, 0)) {
      child = next_child(parent, top->node, fn, callsite);
      if (child == kNoNode) return drop_call();
    }
    Frame* f = top + 1;
    f->node = child;
    f->sp = sp;
    f->entry_tsc = now;
    f->child_ticks = 0;
    ++depth_;
  }

  // Hot path: a function returns.
  inline void exit(uint64_t fn, uint64_t sp, uint64_t now) {
    if (__builtin_expect(overflow_ != 0, 0)) {
      --overflow_;
      return;
    }
    if (__builtin_expect(nodes_[frames_[depth_ - 1].node].fn != fn, 0) && !find_exiting_frame(fn, sp, now))
      return;
    pop(now);
  }

  // Non-local exit (longjmp, catch): control resumes in the frame whose stack pointer is
  // `sp`. Every frame below it on its stack, and every frame above it on another stack
  // (a handler on sigaltstack), is closed now. Returns false, closing nothing, when no
  // recorded frame is at or near `sp` (the target is not ours to judge).
  bool unwind_to_landing(uint64_t sp, uint64_t now);
  // Close frames until `depth` remain (a longjmp to a setjmp made at that depth).
  void unwind_to_depth(uint32_t depth, uint64_t now);
  // Close every frame (thread exit).
  void unwind_all(uint64_t now);
  // After fork: forget all metrics; the frames still open restart at `now`.
  void restart(uint64_t now);

  uint32_t node_count() const { return node_count_; }
  const DumpNode* nodes() const { return nodes_; }
  uint32_t depth() const { return depth_ - 1; }              // frames, excluding the root
  const Frame* open_frames() const { return frames_ + 1; }   // outermost first
  uint32_t top_node() const { return frames_[depth_ - 1].node; }
  uint64_t top_sp() const { return frames_[depth_ - 1].sp; }
  uint64_t top_entry() const { return frames_[depth_ - 1].entry_tsc; }
  uint64_t dropped_calls() const { return dropped_calls_; }
  // Count a call that never reached enter(): its exit will not reach exit() either.
  void count_dropped_call() { ++dropped_calls_; }
  uint64_t unmatched_exits() const { return unmatched_exits_; }

 private:
  // A call not recorded (no node or stack room): it and its callees are skipped until it
  // exits, and their time stays with the caller.
  void drop_call() {
    ++overflow_;
    ++dropped_calls_;
  }

  inline void pop(uint64_t now) {
    Frame* f = &frames_[--depth_];
    DumpNode& n = nodes_[f->node];
    int64_t total = int64_t(now - f->entry_tsc);
    if (__builtin_expect(total < 0, 0)) total = 0;  // TSC skew between cores
    int64_t self = total - int64_t(f->child_ticks);
    if (__builtin_expect(self < 0, 0)) self = 0;
    n.calls += 1;
    n.self_ticks += uint64_t(self);
    if (uint64_t(self) < n.min_self_ticks) n.min_self_ticks = uint64_t(self);
    if (uint64_t(self) > n.max_self_ticks) n.max_self_ticks = uint64_t(self);
    frames_[depth_ - 1].child_ticks += uint64_t(total);
  }

  // A different callee than last time from `parent`: first try the one that followed the
  // last callee before (loops that call several functions in turn), then the index.
  // Hints only ever name children of the same parent, so the function compare suffices.
  inline uint32_t next_child(DumpNode& parent, uint32_t parent_id, uint64_t fn, uint64_t callsite) {
    const uint32_t last = parent.last_child;
    uint32_t child = nodes_[last].next_sibling;
    if (last == 0 || nodes_[child].fn != fn) {
      child = find_or_add(parent_id, fn, callsite);
      if (child == kNoNode) return kNoNode;
    }
    if (last != 0) nodes_[last].next_sibling = child;
    parent.last_child = child;
    return child;
  }

  Frame* release_dead_frames(uint64_t sp, uint64_t now);
  bool find_exiting_frame(uint64_t fn, uint64_t sp, uint64_t now);
  uint32_t find_or_add(uint32_t parent, uint64_t fn, uint64_t callsite);

  // Hot fields first.
  uint32_t depth_ = 0;       // frames on the stack, including the root frame at index 0
  uint32_t overflow_ = 0;    // entries not pushed (budget exhausted) still to be exited
  Frame* frames_ = nullptr;
  DumpNode* nodes_ = nullptr;
  uint32_t frame_capacity_ = 0;
  uint32_t node_count_ = 0;
  uint32_t node_capacity_ = 0;
  uint32_t slot_mask_ = 0;
  NodeSlot* slots_ = nullptr;
  uint64_t dropped_calls_ = 0;
  uint64_t unmatched_exits_ = 0;
};

}  // namespace callprof::rt
