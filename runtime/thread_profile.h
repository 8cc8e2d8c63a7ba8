// One thread's shadow stack and calling context tree, built online as calls return.
// Pure logic: time and stack addresses come in as arguments, memory is handed in, so the
// hooks stay tiny and the unit tests can drive it with a fake clock. Not thread-safe by
// design: each thread owns its own.
#pragma once

#include <stdint.h>

#include "wire/attach_frames.h"
#include "wire/raw_dump.h"

namespace callprof::rt {

using wire::DumpCallSite;
using wire::DumpNode;
using wire::DumpNodeMetrics;
using wire::DumpTimelineEvent;

inline constexpr uint32_t kNoNode = UINT32_MAX;
// find_or_add's answer when the running frame's function is gone (GoneCheck): its frame is
// stale, to be closed before the call is placed.
inline constexpr uint32_t kParentGone = UINT32_MAX - 1;
inline constexpr uint64_t kNoMin = UINT64_MAX;
// A frame is dead once a later event runs with a higher stack pointer than the frame's:
// its stack area has been released. Equal stack pointers are no proof (inlined functions
// share their host's physical frame). Beyond this distance the two addresses are taken
// to be on different stacks (sigaltstack, coroutines) and nothing is closed.
inline constexpr uint64_t kSameStackSpan = 1u << 20;

struct Frame {
  uint32_t node;
  uint32_t site;  // the call's DumpCallSite entry; 0: its node's own call site
  uint64_t sp;    // the caller's stack pointer at the hook call: orders frames by depth
  uint64_t entry_tsc;
  uint64_t child_ticks;  // time spent in callees that already returned
};

// The index: open addressing from (parent, fn) to node, four bytes a slot, so that a tree
// larger than the caches has its index mostly in them (16 bytes a slot, with the key, made
// manypaths' 20 MiB of nodes and 16 MiB of index outgrow a 32 MiB cache). A slot holds the
// node's number (node budgets stop at 2^28) and 4 bits of the key's hash beside those of
// its position, so most slots of other paths are passed without reading their node; the
// node itself holds the key (fn, parent), checked before a slot counts as found. 0: empty
// (node 0, the root, is never indexed).
using NodeSlot = uint32_t;
inline constexpr uint32_t kSlotNodeMask = (1u << 28) - 1;

// An instrumented function calls its enter hook within its first bytes; an inlined copy
// calls it from its host's code, elsewhere (the hooks name the out-of-line copy).
inline constexpr uint64_t kHookCallSpan = 64;
inline bool inlined_hooks(uint64_t fn, uint64_t hook_ret) {
  return hook_ret != 0 && (hook_ret < fn || hook_ret - fn >= kHookCallSpan);
}

inline uint64_t slot_hash(uint32_t parent, uint64_t fn) {
  return fn * 0x9E3779B97F4A7C15ull ^ (uint64_t(parent) + 1) * 0xC2B2AE3D27D4EB4Full;
}
inline uint32_t slot_position(uint64_t hash) { return uint32_t(hash >> 32); }
inline uint32_t slot_tag(uint64_t hash) { return uint32_t(hash) & ~kSlotNodeMask; }

// The index a thread starts with (4 KiB, one page): it doubles as the tree grows.
inline constexpr uint32_t kInitialSlots = 1024;
// Nodes (and their metrics) are faulted in ahead of the new paths that will use them, in a
// pause of the profile's own: 64 at first (a page each), then as many as are in use, up to
// this many at a time. Threads are many and mostly small: touching more at once made a
// program that starts 3,000 short threads twice as slow (~20 us per page faulted in).
inline constexpr uint32_t kNodesTouchedAhead = 1024;
// A tree this large (2 MiB of nodes) has outgrown the caches and the TLB's reach: a call on
// a new path then misses the TLB as well as the caches. Its nodes, their metrics and its
// index are offered large pages from then on (LargeTreeAdvice), once per tree. Below it, a
// thread keeps small pages: large ones would round each of the many small threads' trees
// up to megabytes.
inline constexpr uint32_t kLargeTreeNodes = 32768;

// The index size for a node capacity: a power of two, at least twice the capacity.
inline uint32_t slot_count_for(uint32_t node_capacity) {
  uint32_t n = 1;
  while (n < 2 * node_capacity) n <<= 1;
  return n;
}

// Scratch memory pruning needs: per node a subtree weight and three 32-bit work values.
inline uint64_t prune_scratch_bytes(uint32_t node_capacity) { return uint64_t(node_capacity) * 24; }
struct PruneScratch;

struct ThreadMemory {
  DumpNode* nodes;
  uint32_t node_capacity;
  NodeSlot* slots;
  uint32_t slot_count;  // a power of two, at least twice node_capacity
  Frame* frames;
  uint32_t frame_capacity;
  DumpNodeMetrics* metrics = nullptr;     // node_capacity entries, or none
  void* prune_scratch = nullptr;          // prune_scratch_bytes(node_capacity), or no pruning
  DumpTimelineEvent* timeline = nullptr;  // the timeline ring (record --timeline), or none
  uint32_t timeline_capacity = 0;
  // Call sites beyond a node's first (DumpCallSite): per node the first of its list, and
  // the entries (the first is never used); none: one call site per node.
  uint32_t* node_sites = nullptr;  // node_capacity entries
  DumpCallSite* sites = nullptr;
  uint32_t site_capacity = 0;
};

// What the user chose not to record.
struct ThreadLimits {
  uint32_t max_depth = UINT32_MAX;           // calls deeper than this are not recorded
  uint64_t min_ticks = 0;                    // calls shorter than this are not recorded
  uint64_t timeline_min_ticks = UINT64_MAX;  // calls at least this long go on the timeline
};

// Auto-fold (docs/modes.md, "Tiny functions folded at run time"): a leaf call path whose
// average self time is below `max_self_ticks` after `check_every` calls (and at every
// multiple) has its function folded in this thread: later calls of it take the excluded
// path (counted on their node, their time in the caller's self), without reading the clock.
// A folded wrapper (not `leaves_only`) pushes no frame either, so the calls it makes land
// under its caller.
struct AutoFold {
  uint64_t max_self_ticks = 0;  // 0: off
  uint32_t check_every = 1024;  // a power of two
  bool inlined_only = true;     // fold only inlined copies (record --auto-fold all: any tiny function)
  // Fold only functions whose callees are all folded (record --auto-fold wrappers: any whose
  // own time is tiny, which then leaves its callees to its callers).
  bool leaves_only = true;
  // The part of a hooked callee's hook costs that lands in its caller's self time: a
  // wrapper's self time, less that per call of its callees, is what is compared.
  uint64_t callee_outer_ticks = 0;
};
// A function whose self time per call exceeds the threshold by more than this many of its
// callees' hook costs is not looked at as a wrapper (the check counts its callees' calls);
// nor one that calls more than kWrapperMaxCallees functions that are not folded.
inline constexpr uint64_t kWrapperMaxCalleesPerCall = 8;
inline constexpr uint32_t kWrapperMaxCallees = 4;  // src/query/hook_cost.h estimates with it too
inline constexpr uint32_t kFoldSlots = 128;        // functions folded per thread, direct-mapped
// Leaf paths looked at window by window (tiny_lately): those whose average is above the
// threshold by less than this factor, at most kFoldWindows of them at a time per thread.
inline constexpr uint64_t kFoldWindowReach = 3;
inline constexpr uint32_t kFoldWindows = 128;
inline constexpr uint32_t kMaxFoldedNodes =
    8192;  // nodes per thread with calls from before their fold (untouched memory until used)
using wire::DumpFoldedNode;

// Flags (wire::kNode*) for a function's new nodes: filters and checkpoints.
using NodeClassifier = uint32_t (*)(uint64_t fn);
// A call of a checkpoint function returned (the profile is consistent at this point).
using CheckpointHandler = void (*)(uint64_t fn);
// A function found tiny that this thread could not fold (its slot of the folded-function
// table is taken, or no room is left for its nodes' counts): the runtime may still remove it
// for the whole process (hook_removal.h).
using FoldRefusedHandler = void (*)(uint64_t fn);
// Whether a function's hook calls have been rewritten away for the whole process: a frame
// of it still open here was entered before, and its exit will never come (hook_removal.h).
using GoneCheck = bool (*)(uint64_t fn);
// Backs [at, at + bytes) with large pages where the system can (kLargeTreeNodes).
using LargeTreeAdvice = void (*)(void* at, uint64_t bytes);
// The clock the hooks read (the TSC; tests pass a fake): the profile reads it itself only
// around its own pauses (growing the index, faulting nodes in, pruning), to leave them out
// of the calls.
using PauseClock = uint64_t (*)();

class ThreadProfile {
 public:
  void init(const ThreadMemory& memory, uint64_t now);
  void set_limits(const ThreadLimits& limits);
  // Faults the index's first pages and the first nodes' in now (they are zero already),
  // not in the first calls.
  void touch_first_pages();
  void set_callbacks(NodeClassifier classify, CheckpointHandler checkpoint) {
    classify_ = classify;
    on_checkpoint_ = checkpoint;
  }
  void set_pause_clock(PauseClock clock) { pause_clock_ = clock; }
  void set_fold_refused_handler(FoldRefusedHandler handler) { on_fold_refused_ = handler; }
  void set_gone_check(GoneCheck check) { gone_ = check; }
  void set_large_tree_advice(LargeTreeAdvice advise) { advise_large_ = advise; }
  // Set while an attached window closes (attach.cpp): returns without a recorded entry are
  // then calls made after the window, not counted as unmatched.
  void set_window_closing_flag(const bool* closing) { closing_ = closing; }

  // Hot path: a function is entered. `sp` orders frames (lower = deeper); `hook_ret`, where
  // the enter hook returns to, marks a new node's calls as inlined instances (0: unknown).
  // GCC keeps it out of line (a call and six register saves per entry). Forced inline, a
  // call cost 0.8 ns less on the Xeon, but compensation then left fib (TinyRecursion)
  // 0.35x its plain time further off, as the calibration's loops no longer cost what the
  // program's calls do: measured in 12 interleaved runs each, and not kept.
  inline void enter(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now, uint64_t hook_ret = 0) {
    Frame* top = &frames_[depth_ - 1];
    if (__builtin_expect(top->sp < sp, 0)) top = release_dead_frames(sp, now);
    if (__builtin_expect(overflow_ != 0 || depth_ == depth_limit_, 0)) return skip_call();
    DumpNode& parent = nodes_[top->node];
    uint32_t child = parent.last_child;
    if (__builtin_expect(nodes_[child].fn != fn, 0)) {
      child =
          next_child(parent, top->node, fn, inlined_hooks(fn, hook_ret) ? callsite | wire::kCallsiteInlined : callsite);
      now += take_pause();  // the call starts after the profile's own pause, if it made one
      if (child == kParentGone) return enter_after_gone_frame(fn, callsite, sp, now, hook_ret);
      if (child == kNoNode) return skip_call();
    }
    if (__builtin_expect(nodes_[child].flags & wire::kNodeExcluded, 0)) {
      ++nodes_[child].calls;  // transparent: its time stays with the caller, its callees attach there
      return;
    }
    uint32_t site = 0;
    if (__builtin_expect(other_site(nodes_[child].callsite, callsite), 0)) {
      site = recent_site(child, callsite);
      if (site == 0) {
        site = site_entry(child, callsite);
        now += take_pause();
      }
    }
    push_frame(top, child, site, sp, now);
  }

  // The common entry, for hooks that keep no registers of their own (hook_path.h): the
  // callee is the parent's last child or the one entered after it, from the node's first
  // call site or the further one used last, nothing skipped or released. False, having
  // changed nothing but the parent's hint, for every other case, which enter() then takes.
  __attribute__((always_inline)) bool enter_fast(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now) {
    Frame* top = &frames_[depth_ - 1];
    if (__builtin_expect(top->sp < sp || overflow_ != 0 || depth_ == depth_limit_, 0)) return false;
    // The index's slot is fetched from the start, beside the last callee's node: in a large
    // tree each is a cache miss, and when the callee is another one the slot names its node
    // by the time the last callee's is read, so that node is the only miss that follows.
    const uint64_t hash = slot_hash(top->node, fn);
    const NodeSlot* slot = &slots_[slot_position(hash) & slot_mask_];
    __builtin_prefetch(slot);
    DumpNode& parent = nodes_[top->node];
    uint32_t child = parent.last_child;
    if (__builtin_expect(nodes_[child].fn != fn, 0)) {
      const uint32_t last = child;
      if (slot_names(*slot, slot_tag(hash), top->node, fn)) {
        child = *slot & kSlotNodeMask;
        if (last != 0) nodes_[last].next_sibling = child;  // the hint next_child() keeps
      } else {
        child = nodes_[last].next_sibling;
        if (last == 0 || nodes_[child].fn != fn) return false;
      }
      parent.last_child = child;
    }
    const DumpNode& c = nodes_[child];
    if (__builtin_expect((c.flags & wire::kNodeExcluded) != 0, 0)) return false;
    uint32_t site = 0;
    if (__builtin_expect(other_site(c.callsite, callsite), 0) && (site = recent_site(child, callsite)) == 0)
      return false;
    push_frame(top, child, site, sp, now);
    return true;
  }
  // The common return: the top frame's, not inherited, kept, not on the timeline, its node
  // unflagged and not due for the fold check. False, having changed nothing, for every
  // other case, which exit() then takes.
  __attribute__((always_inline)) bool exit_fast(uint64_t fn, uint64_t now) {
    if (__builtin_expect(overflow_ != 0, 0)) return false;
    Frame* f = &frames_[depth_ - 1];
    DumpNode& n = nodes_[f->node];
    const uint64_t total = now - f->entry_tsc;
    const uint64_t self = total - f->child_ticks;
    if (__builtin_expect(n.fn != fn || n.flags != 0 || depth_ <= inherited_depth_, 0)) return false;
    // A negative self also catches a negative total (a clock behind the entry's core).
    if (__builtin_expect(int64_t(self) < 0 || total < min_ticks_ || total >= timeline_min_ticks_, 0)) return false;
    if (__builtin_expect(((n.calls + 1) & fold_mask_) == 0, 0)) return false;
    --depth_;
    n.calls += 1;
    n.self_ticks += self;
    if (self < n.min_self_ticks) n.min_self_ticks = self;
    if (self > n.max_self_ticks) n.max_self_ticks = self;
    f[-1].child_ticks += total;
    if (__builtin_expect(f->site != 0, 0)) {
      sites_[f->site].calls += 1;
      sites_[f->site].ticks += total;
    }
    return true;
  }

  // Folded functions (auto-fold): the hooks test this before reading the clock.
  bool folded(uint64_t fn) const { return folded_fns_[fold_slot(fn)] == fn; }
  // Hot path of a folded function's entry: counted on its node under the running frame.
  inline void count_folded(uint64_t fn, uint64_t callsite) {
    if (__builtin_expect(overflow_ != 0, 0)) return;
    DumpNode& parent = nodes_[frames_[depth_ - 1].node];
    const uint32_t child = parent.last_child;
    if (__builtin_expect(nodes_[child].fn == fn, 1)) {
      ++nodes_[child].calls;
      if (__builtin_expect(other_site(nodes_[child].callsite, callsite), 0)) count_folded_site(child, callsite);
      return;
    }
    count_folded_slow(fn, callsite);
  }
  void set_auto_fold(const AutoFold& fold);
  // Folds `fn` now, whatever its calls (calibration, tests); false when there is no room.
  bool fold(uint64_t fn);
  // Forget every fold (the nodes keep their flags): after the calibration.
  void clear_folds();
  uint32_t folded_node_count() const { return folded_node_count_; }
  const DumpFoldedNode* folded_nodes() const { return folded_nodes_; }
  uint32_t fold_refused() const { return fold_refused_; }

  // Hot path: a function returns.
  inline void exit(uint64_t fn, uint64_t sp, uint64_t now) {
    if (__builtin_expect(overflow_ != 0, 0)) {
      --overflow_;
      return;
    }
    if (__builtin_expect(nodes_[frames_[depth_ - 1].node].fn != fn, 0) && !find_exiting_frame(fn, sp, now)) return;
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
  // Stack switching (coroutines, context_switch.cpp): the frames open above the root leave
  // with a context that is suspended and come back when it resumes, so each context's
  // calls stay on its own shadow stack.
  struct Segment {
    uint32_t depth;     // frames taken, excluding the root
    uint32_t overflow;  // skipped calls still to exit (see skip_call)
    uint32_t inherited_depth;
    uint32_t skipping_by_choice;
  };
  // Copies the open frames above the root, outermost first, to `out` (room for depth())
  // and leaves only the root.
  Segment take_frames(Frame* out);
  // Puts back frames taken by take_frames onto a stack holding only the root. `away`: the
  // ticks the context spent suspended, which are not the top frame's own time (nor its
  // callers'), so they count as time spent below it.
  void put_frames(const Frame* in, const Segment& segment, uint64_t away);
  // A library was unloaded: its functions' nodes (and index slots, timeline events, call
  // sites) move from [start, end) to the same offsets from `to`, so that a library loaded
  // later at those addresses gets nodes of its own (closed_modules.cpp).
  void relocate_functions(uint64_t start, uint64_t end, uint64_t to);
  // After fork: forget all metrics; the frames still open restart at `now`, as context:
  // their calls were the parent's, so their returns here count none.
  void restart(uint64_t now);
  // The frames a thread had open when an attached window began (wire/attach_frames.h),
  // outermost first, pushed onto a stack holding only the root as context, as restart()
  // leaves a fork's: their time counts from `now`, their returns count no call. Filtered-out
  // functions are left out. How many were pushed.
  uint32_t open_context_frames(const wire::AttachFrame* frames, uint32_t n, uint64_t now);

  uint32_t node_count() const { return node_count_; }
  uint32_t index_slots() const { return slot_mask_ + 1; }
  const NodeSlot* index() const { return slots_; }  // index_slots() of them
  const DumpNode* nodes() const { return nodes_; }
  uint32_t depth() const { return depth_ - 1; }  // frames, excluding the root
  uint32_t frame_capacity() const { return frame_capacity_; }
  // The memory it was given (init), as given.
  ThreadMemory memory() const {
    return ThreadMemory{nodes_,        node_capacity_, slots_,    slot_limit_mask_ + 1, frames_,     frame_capacity_,
                        metrics_,      prune_scratch_, timeline_, timeline_capacity_,   node_sites_, sites_,
                        site_capacity_};
  }
  const Frame* open_frames() const { return frames_ + 1; }  // outermost first
  // The outermost open frames that were open in the parent at fork (restart): their calls
  // are the parent's.
  uint32_t inherited_frames() const { return inherited_depth_ - 1; }
  // Where the system-call probe reads the running node (wire/syscall_context.h).
  const uint32_t* depth_address() const { return &depth_; }
  const Frame* frames_address() const { return frames_; }
  const DumpNode* nodes_address() const { return nodes_; }
  uint32_t top_node() const { return frames_[depth_ - 1].node; }
  uint64_t top_sp() const { return frames_[depth_ - 1].sp; }
  uint64_t top_entry() const { return frames_[depth_ - 1].entry_tsc; }
  uint64_t dropped_calls() const { return dropped_calls_; }
  // Count a call that never reached enter(): its exit will not reach exit() either.
  void count_dropped_call() { ++dropped_calls_; }
  uint64_t unmatched_exits() const { return unmatched_exits_; }
  // Frames closed because their function's hook calls were rewritten away while they were open.
  uint64_t gone_frames() const { return gone_frames_; }
  uint64_t depth_limited_calls() const { return depth_limited_calls_; }
  uint64_t short_calls() const { return short_calls_; }
  uint32_t prunes() const { return prunes_; }
  uint32_t live_nodes() const { return live_nodes_; }
  // The timeline ring: events kept (at most its capacity), the i-th oldest, and those
  // overwritten when it was full.
  uint32_t timeline_count() const { return timeline_count_; }
  const DumpTimelineEvent& timeline_event(uint32_t i) const {
    uint32_t at = timeline_next_ + timeline_capacity_ - timeline_count_ + i;
    return timeline_[at >= timeline_capacity_ ? at - timeline_capacity_ : at];
  }
  uint64_t timeline_dropped() const { return timeline_dropped_; }
  uint32_t timeline_capacity() const { return timeline_capacity_; }
  uint64_t timeline_min_ticks() const { return timeline_min_ticks_; }
  const DumpNodeMetrics* metrics() const { return metrics_; }
  // The call-site entries in use (DumpCallSite), from index 1; calls whose further site
  // found no room.
  const DumpCallSite* call_sites() const { return sites_ ? sites_ + 1 : nullptr; }
  uint32_t call_site_count() const { return site_count_ > 0 ? site_count_ - 1 : 0; }
  uint64_t call_sites_lost() const { return sites_lost_; }
  // Where events charge (off-CPU time, faults, allocations): the node on top of the stack.
  // Whether the innermost open frame is `fn`'s, entered at stack pointer `sp`.
  bool top_frame_is(uint64_t fn, uint64_t sp) const {
    return depth_ > 1 && frames_[depth_ - 1].sp == sp && nodes_[frames_[depth_ - 1].node].fn == fn;
  }
  DumpNodeMetrics* top_metrics() { return metrics_ ? &metrics_[frames_[depth_ - 1].node] : nullptr; }
  void pin(uint32_t node) { nodes_[node].flags |= wire::kNodePinned; }
  // Fold small subtrees into [pruned] children until about half the node budget is free.
  // Returns false when nothing could be freed (no scratch memory, or all nodes are live).
  bool prune();

 private:
  // A call not recorded (depth limit, or no node or stack room): it and its callees are
  // skipped until it exits, and their time stays with the caller.
  void skip_call() {
    if (overflow_++ == 0) skipping_by_choice_ = depth_ == depth_limit_ && depth_limit_ < frame_capacity_;
    if (skipping_by_choice_)
      ++depth_limited_calls_;
    else
      ++dropped_calls_;
  }

  __attribute__((aligned(64))) inline void pop(uint64_t now) {  // out of line on the hot path: see hooks.cpp
    Frame* f = &frames_[--depth_];
    DumpNode& n = nodes_[f->node];
    int64_t total = int64_t(now - f->entry_tsc);
    if (__builtin_expect(total < 0, 0)) total = 0;  // TSC skew between cores
    if (__builtin_expect(depth_ < inherited_depth_, 0)) return pop_inherited(*f, n, uint64_t(total));
    if (__builtin_expect(uint64_t(total) < min_ticks_, 0)) {
      ++short_calls_;  // its time stays with the caller
      return;
    }
    int64_t self = total - int64_t(f->child_ticks);
    if (__builtin_expect(self < 0, 0)) self = 0;
    n.calls += 1;
    n.self_ticks += uint64_t(self);
    if (uint64_t(self) < n.min_self_ticks) n.min_self_ticks = uint64_t(self);
    if (uint64_t(self) > n.max_self_ticks) n.max_self_ticks = uint64_t(self);
    frames_[depth_ - 1].child_ticks += uint64_t(total);
    if (__builtin_expect(f->site != 0, 0)) {
      sites_[f->site].calls += 1;
      sites_[f->site].ticks += uint64_t(total);
    }
    // Without a timeline the bound is UINT64_MAX: one compare, never taken.
    if (__builtin_expect(uint64_t(total) >= timeline_min_ticks_, 0)) record_timeline(f->node, n.fn, f->entry_tsc, now);
    if (__builtin_expect(n.flags != 0, 0)) flagged_return(n);
    // Off: the mask has every bit set and calls are never 0 here.
    if (__builtin_expect((n.calls & fold_mask_) == 0, 0)) consider_fold(f->node);
  }
  __attribute__((always_inline)) void push_frame(Frame* top, uint32_t node, uint32_t site, uint64_t sp, uint64_t now) {
    Frame* f = top + 1;
    f->node = node;
    f->site = site;
    f->sp = sp;
    f->entry_tsc = now;
    f->child_ticks = 0;
    ++depth_;
  }
  static uint32_t fold_slot(uint64_t fn) { return uint32_t(fn >> 4) & (kFoldSlots - 1); }
  // A call made from elsewhere than its node's first call site (`node_site`). An inlined
  // copy's hooks see its host's return address, which says nothing of where it was called.
  static bool other_site(uint64_t node_site, uint64_t callsite) {
    return node_site != callsite && !(node_site & wire::kCallsiteInlined);
  }
  // The node's further site used last (its list's head) when it is `callsite`, else 0.
  uint32_t recent_site(uint32_t node, uint64_t callsite) const {
    const uint32_t head = node_sites_ ? node_sites_[node] : 0;
    return head != 0 && sites_[head].callsite == callsite ? head : 0;
  }
  // The entry of `callsite` among the node's further sites, added if new, and moved to the
  // list's head (a caller's loop calls from one place many times in a row); 0 when the node
  // takes it as its first (it had none), or when there is no room (counted).
  uint32_t site_entry(uint32_t node, uint64_t callsite);
  void count_folded_site(uint32_t node, uint64_t callsite);
  void drop_pruned_sites();
  void consider_fold(uint32_t node);
  bool only_folded_children(uint32_t node) const;
  bool thin_wrapper(uint32_t node) const;
  bool tiny_lately(uint32_t node);
  void forget_fold_windows();
  bool open_frame_of(uint64_t fn) const;
  void count_folded_slow(uint64_t fn, uint64_t callsite);
  // The running frame's function is gone: close its frame now, then place the call.
  void enter_after_gone_frame(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now, uint64_t hook_ret);
  void forget_pruned_folds();

  // A different callee than last time from `parent`: first try the one that followed the
  // last callee before (loops that call several functions in turn), then the index.
  // Hints only ever name children of the same parent, so the function compare suffices.
  inline uint32_t next_child(DumpNode& parent, uint32_t parent_id, uint64_t fn, uint64_t callsite) {
    const uint32_t last = parent.last_child;
    uint32_t child = nodes_[last].next_sibling;
    if (last == 0 || nodes_[child].fn != fn) {
      const uint32_t prunes_before = prunes_;
      child = find_or_add(parent_id, fn, callsite);
      if (child == kNoNode || child == kParentGone) return child;
      if (prunes_ != prunes_before) {  // the hints were reset, `last` may be gone
        parent.last_child = child;
        return child;
      }
    }
    if (last != 0) nodes_[last].next_sibling = child;
    parent.last_child = child;
    return child;
  }

  // A frame the parent had open when it forked returns in the child: the call was counted
  // in the parent; the child's time in it (since the fork) is the child's own.
  void pop_inherited(const Frame& f, DumpNode& n, uint64_t total) {
    const uint64_t self = total > f.child_ticks ? total - f.child_ticks : 0;
    n.self_ticks += self;
    frames_[depth_ - 1].child_ticks += total;
    inherited_depth_ = depth_;  // the frames below stay inherited, new ones are pushed above
  }
  // Whether index slot `s` (of a key whose hash has `tag`) is node (parent, fn)'s. An empty
  // slot names the root, whose fn is 0.
  bool slot_names(NodeSlot s, uint32_t tag, uint32_t parent, uint64_t fn) const {
    const DumpNode& n = nodes_[s & kSlotNodeMask];
    return (s & ~kSlotNodeMask) == tag && n.fn == fn && n.parent == parent;
  }
  Frame* release_dead_frames(uint64_t sp, uint64_t now);
  bool find_exiting_frame(uint64_t fn, uint64_t sp, uint64_t now);
  bool excluded_child(uint32_t parent, uint64_t fn) const;
  uint32_t find(uint32_t parent, uint64_t fn) const;
  uint32_t find_or_add(uint32_t parent, uint64_t fn, uint64_t callsite);
  // A pause of the profile's own, for the scope's life: left out of the open calls (their
  // frames start that much later) and of the call being entered (take_pause).
  class Pause {
   public:
    explicit Pause(ThreadProfile& p) : p_(p), start_(p.pause_clock_ ? p.pause_clock_() : 0) {}
    ~Pause() { p_.leave_out_pause(start_); }
    Pause(const Pause&) = delete;
    Pause& operator=(const Pause&) = delete;

   private:
    ThreadProfile& p_;
    uint64_t start_;
  };
  void leave_out_pause(uint64_t start);
  void touch_nodes_ahead();
  uint64_t take_pause() {
    const uint64_t p = pause_ticks_;
    pause_ticks_ = 0;
    return p;
  }
  uint32_t new_node(uint32_t parent, uint64_t fn, uint64_t callsite, uint32_t flags);
  void flagged_return(const DumpNode& n);
  void record_timeline(uint32_t node, uint64_t fn, uint64_t entry, uint64_t exit);
  // Pruning steps (thread_profile_prune.cpp).
  uint32_t breadth_first_order(PruneScratch& s) const;
  uint32_t mark_kept(PruneScratch& s, uint32_t live) const;
  void fold_removed(PruneScratch& s, uint32_t live);
  void merge_node(uint32_t into, uint32_t from, bool with_calls);
  void rebuild_index();
  void grow_index();

  // Hot fields first.
  uint32_t depth_ = 0;     // frames on the stack, including the root frame at index 0
  uint32_t overflow_ = 0;  // entries not pushed (limit or budget) still to be exited
  // Frames below this index were open at the last fork (restart); frames are popped in
  // order, so a frame popped below it is one of them, and no new frame is pushed below it.
  uint32_t inherited_depth_ = 1;
  Frame* frames_ = nullptr;
  DumpNode* nodes_ = nullptr;
  uint32_t depth_limit_ = 0;  // min(frame capacity, max depth + 1)
  uint32_t frame_capacity_ = 0;
  uint64_t min_ticks_ = 0;
  uint64_t timeline_min_ticks_ = UINT64_MAX;
  uint64_t fold_mask_ = UINT64_MAX;  // AutoFold::check_every - 1 when auto-fold is on
  uint32_t node_count_ = 0;          // high-water mark: nodes below it are live or on the free list
  uint32_t node_capacity_ = 0;
  uint32_t slot_mask_ = 0;        // the index in use: grows by doubling up to slot_limit_mask_
  uint32_t slot_limit_mask_ = 0;  // the whole reservation
  uint32_t free_list_ = 0;        // first free node (linked through parent), 0 when none
  uint32_t live_nodes_ = 0;
  uint32_t prunes_ = 0;
  bool skipping_by_choice_ = false;  // the skipped calls are below the depth limit
  NodeSlot* slots_ = nullptr;
  DumpNodeMetrics* metrics_ = nullptr;
  void* prune_scratch_ = nullptr;
  NodeClassifier classify_ = nullptr;
  PauseClock pause_clock_ = nullptr;
  uint64_t pause_ticks_ = 0;    // left out of the call being entered (take_pause)
  uint32_t touched_nodes_ = 0;  // nodes below it have been faulted in
  CheckpointHandler on_checkpoint_ = nullptr;
  FoldRefusedHandler on_fold_refused_ = nullptr;
  GoneCheck gone_ = nullptr;
  LargeTreeAdvice advise_large_ = nullptr;  // null once given (or never set)
  const bool* closing_ = nullptr;
  uint64_t dropped_calls_ = 0;
  uint64_t unmatched_exits_ = 0;
  uint64_t gone_frames_ = 0;
  uint64_t depth_limited_calls_ = 0;
  uint64_t short_calls_ = 0;
  uint32_t* node_sites_ = nullptr;
  DumpCallSite* sites_ = nullptr;
  uint32_t site_capacity_ = 0;
  uint32_t site_count_ = 0;     // entries in use, counting the unused first; 0 without sites
  uint32_t sites_touched_ = 0;  // entries below it have been faulted in
  uint64_t sites_lost_ = 0;
  DumpTimelineEvent* timeline_ = nullptr;  // a ring: timeline_next_ is the oldest once full
  uint32_t timeline_capacity_ = 0;
  uint32_t timeline_next_ = 0;
  uint32_t timeline_count_ = 0;
  uint64_t timeline_dropped_ = 0;
  uint64_t fold_max_self_ticks_ = 0;
  bool fold_inlined_only_ = true;
  bool fold_leaves_only_ = true;
  uint64_t fold_callee_outer_ticks_ = 0;
  uint32_t folded_node_count_ = 0;
  uint32_t fold_refused_ = 0;
  uint64_t folded_fns_[kFoldSlots] = {};
  // A node's calls and self time at its last check (tiny_lately), replaced in turn.
  struct FoldWindow {
    uint32_t node;
    uint64_t calls, self_ticks;
  };
  FoldWindow fold_windows_[kFoldWindows] = {};
  uint32_t fold_window_next_ = 0;
  DumpFoldedNode folded_nodes_[kMaxFoldedNodes];
};

}  // namespace callprof::rt
