// The slow paths of ThreadProfile: node creation, and closing frames that control left
// without running their exit hook (longjmp, exceptions under Clang, thread exit).
#include "thread_profile.h"

#include <string.h>

namespace callprof::rt {

void ThreadProfile::init(const ThreadMemory& m, uint64_t now) {
  nodes_ = m.nodes;
  node_capacity_ = m.node_capacity;
  slots_ = m.slots;
  slot_limit_mask_ = m.slot_count - 1;
  // The index starts small and doubles as nodes come: spread over the whole reservation,
  // every new call path's slot was a page of its own to fault in, on the hot path (some
  // 20 us each on a VM, 2-3 % of a recursion's 15 ms for 15 new nodes).
  slot_mask_ = (m.slot_count < kInitialSlots ? m.slot_count : kInitialSlots) - 1;
  pause_ticks_ = 0;
  touched_nodes_ = 1;  // the root, written below
  frames_ = m.frames;
  frame_capacity_ = m.frame_capacity;
  depth_limit_ = frame_capacity_;
  metrics_ = m.metrics;
  prune_scratch_ = m.prune_scratch;
  timeline_ = m.timeline;
  timeline_capacity_ = m.timeline ? m.timeline_capacity : 0;
  timeline_min_ticks_ = UINT64_MAX;
  timeline_next_ = timeline_count_ = 0;
  timeline_dropped_ = 0;
  node_sites_ = m.sites ? m.node_sites : nullptr;
  sites_ = node_sites_ ? m.sites : nullptr;
  site_capacity_ = sites_ ? m.site_capacity : 0;
  site_count_ = site_capacity_ > 1 ? 1 : 0;
  sites_touched_ = 0;
  sites_lost_ = 0;
  if (node_sites_) node_sites_[0] = 0;
  nodes_[0] = DumpNode{0, 0, 0, 0, 0, 0, kNoMin, 0, 0, 0};
  if (metrics_) metrics_[0] = DumpNodeMetrics{};
  node_count_ = 1;
  live_nodes_ = 1;
  free_list_ = 0;
  prunes_ = 0;
  frames_[0] = Frame{0, 0, UINT64_MAX, now, 0};
  depth_ = 1;
  inherited_depth_ = 1;
  overflow_ = 0;
  dropped_calls_ = 0;
  unmatched_exits_ = 0;
  gone_frames_ = 0;
  depth_limited_calls_ = 0;
  short_calls_ = 0;
  set_auto_fold(AutoFold{});
  clear_folds();
}

void ThreadProfile::set_limits(const ThreadLimits& limits) {
  // The root frame takes one slot: depth d needs d + 1 frames.
  depth_limit_ = limits.max_depth < frame_capacity_ - 1 ? limits.max_depth + 1 : frame_capacity_;
  min_ticks_ = limits.min_ticks;
  timeline_min_ticks_ = timeline_capacity_ ? limits.timeline_min_ticks : UINT64_MAX;
}

void ThreadProfile::leave_out_pause(uint64_t start) {
  if (!pause_clock_) return;
  const uint64_t pause = pause_clock_() - start;
  for (uint32_t i = 0; i < depth_; ++i) frames_[i].entry_tsc += pause;
  pause_ticks_ += pause;
}

void ThreadProfile::touch_first_pages() {
  memset(slots_, 0, (uint64_t(slot_mask_) + 1) * sizeof(NodeSlot));
  touch_nodes_ahead();
}

void ThreadProfile::touch_nodes_ahead() {
  const uint32_t from = touched_nodes_;
  const uint32_t chunk = from < 64 ? 64 : from < kNodesTouchedAhead ? from : kNodesTouchedAhead;
  const uint32_t to = node_capacity_ - from > chunk ? from + chunk : node_capacity_;
  if (advise_large_ && to >= kLargeTreeNodes) {
    advise_large_(nodes_, uint64_t(node_capacity_) * sizeof(DumpNode));
    if (metrics_) advise_large_(metrics_, uint64_t(node_capacity_) * sizeof(DumpNodeMetrics));
    advise_large_(slots_, (uint64_t(slot_limit_mask_) + 1) * sizeof(NodeSlot));
    advise_large_ = nullptr;
  }
  memset(static_cast<void*>(nodes_ + from), 0, uint64_t(to - from) * sizeof(DumpNode));
  if (metrics_) memset(static_cast<void*>(metrics_ + from), 0, uint64_t(to - from) * sizeof(DumpNodeMetrics));
  if (node_sites_) memset(node_sites_ + from, 0, uint64_t(to - from) * sizeof(uint32_t));
  touched_nodes_ = to;
}

uint32_t ThreadProfile::find(uint32_t parent, uint64_t fn) const {
  const uint64_t hash = slot_hash(parent, fn);
  for (uint32_t i = slot_position(hash) & slot_mask_;; i = (i + 1) & slot_mask_) {
    const NodeSlot s = slots_[i];
    if (s == 0) return kNoNode;
    if (slot_names(s, slot_tag(hash), parent, fn)) return s & kSlotNodeMask;
  }
}

uint32_t ThreadProfile::find_or_add(uint32_t parent, uint64_t fn, uint64_t callsite) {
  if (fn == 0) return kNoNode;
  const uint64_t hash = slot_hash(parent, fn);
  for (uint32_t i = slot_position(hash) & slot_mask_;; i = (i + 1) & slot_mask_) {
    NodeSlot& s = slots_[i];
    if (s != 0) {
      if (slot_names(s, slot_tag(hash), parent, fn)) return s & kSlotNodeMask;
      continue;
    }
    // An index at least twice the live nodes keeps probing short and guarantees an empty
    // slot (the whole reservation is twice the node capacity).
    if (free_list_ == 0 && node_count_ == node_capacity_) {
      bool pruned;
      {
        Pause pause(*this);
        pruned = prune();
      }
      if (!pruned) return kNoNode;
      return find_or_add(parent, fn, callsite);  // the index was rebuilt
    }
    if (2 * uint64_t(live_nodes_) >= uint64_t(slot_mask_) + 1 && slot_mask_ < slot_limit_mask_) {
      {
        Pause pause(*this);
        grow_index();
      }
      return find_or_add(parent, fn, callsite);
    }
    if (free_list_ == 0 && node_count_ >= touched_nodes_) {
      Pause pause(*this);
      touch_nodes_ahead();
    }
    // A first call under a frame whose function is gone: the frame is stale (its exit hook
    // was rewritten away while it was open), not this call's caller. Checked only here,
    // where a path is new, so the hot path pays nothing.
    if (gone_ && depth_ > 1 && frames_[depth_ - 1].node == parent && gone_(nodes_[parent].fn)) return kParentGone;
    uint32_t id = new_node(parent, fn, callsite, classify_ ? classify_(fn) : 0);
    s = slot_tag(hash) | id;
    return id;
  }
}

void ThreadProfile::enter_after_gone_frame(uint64_t fn, uint64_t callsite, uint64_t sp, uint64_t now,
                                           uint64_t hook_ret) {
  pop(now);
  ++gone_frames_;
  enter(fn, callsite, sp, now, hook_ret);
}

uint32_t ThreadProfile::new_node(uint32_t parent, uint64_t fn, uint64_t callsite, uint32_t flags) {
  uint32_t id = free_list_;
  if (id != 0)
    free_list_ = nodes_[id].parent;
  else
    id = node_count_++;
  nodes_[id] = DumpNode{parent, 0, fn, callsite, 0, 0, kNoMin, 0, 0, flags};
  if (metrics_) metrics_[id] = DumpNodeMetrics{};
  if (node_sites_) node_sites_[id] = 0;
  ++live_nodes_;
  return id;
}

uint32_t ThreadProfile::site_entry(uint32_t node, uint64_t callsite) {
  DumpNode& n = nodes_[node];
  if (n.callsite == 0) {  // a frame open at attach, its call site unknown: this one is its first
    n.callsite = callsite;
    return 0;
  }
  if (site_count_ == 0) return 0;
  for (uint32_t prev = 0, i = node_sites_[node]; i != 0; prev = i, i = sites_[i].next) {
    if (sites_[i].callsite != callsite) continue;
    if (prev != 0) {  // to the head
      sites_[prev].next = sites_[i].next;
      sites_[i].next = node_sites_[node];
      node_sites_[node] = i;
    }
    return i;
  }
  if (site_count_ == site_capacity_) {
    ++sites_lost_;
    return 0;
  }
  if (site_count_ >= sites_touched_) {  // a page of entries at a time, out of the calls' time
    Pause pause(*this);
    const uint32_t chunk = 4096 / sizeof(DumpCallSite);
    const uint32_t to = site_capacity_ - sites_touched_ > chunk ? sites_touched_ + chunk : site_capacity_;
    memset(static_cast<void*>(sites_ + sites_touched_), 0, uint64_t(to - sites_touched_) * sizeof(DumpCallSite));
    sites_touched_ = to;
  }
  const uint32_t id = site_count_++;
  sites_[id] = DumpCallSite{node, node_sites_[node], callsite, 0, 0};
  node_sites_[node] = id;
  return id;
}

void ThreadProfile::count_folded_site(uint32_t node, uint64_t callsite) {
  uint32_t site = recent_site(node, callsite);
  if (site == 0) site = site_entry(node, callsite);
  if (site != 0) ++sites_[site].calls;
  take_pause();  // no call starts here
}

// After pruning: the entries of nodes freed or become [pruned] are dropped (their calls
// merged elsewhere); the open frames' nodes were all kept, so no frame names a dropped one.
void ThreadProfile::drop_pruned_sites() {
  for (uint32_t i = 1; i < site_count_; ++i) {
    DumpCallSite& e = sites_[i];
    if (e.node == wire::kDroppedCallSite) continue;
    const uint64_t fn = nodes_[e.node].fn;
    if (fn != 0 && fn != wire::kPrunedFn) continue;
    node_sites_[e.node] = 0;
    e.node = wire::kDroppedCallSite;
  }
}

// A ring: when full, the oldest event gives way and is counted.
void ThreadProfile::record_timeline(uint32_t node, uint64_t fn, uint64_t entry, uint64_t exit) {
  if (timeline_count_ == timeline_capacity_)
    ++timeline_dropped_;
  else
    ++timeline_count_;
  timeline_[timeline_next_] = DumpTimelineEvent{node, 0, fn, entry, exit};
  if (++timeline_next_ == timeline_capacity_) timeline_next_ = 0;
}

void ThreadProfile::flagged_return(const DumpNode& n) {
  if ((n.flags & wire::kNodeCheckpoint) && on_checkpoint_) on_checkpoint_(n.fn);
}

// An exit with no frame of its own: a function that was filtered out at entry.
bool ThreadProfile::excluded_child(uint32_t parent, uint64_t fn) const {
  uint32_t child = nodes_[parent].last_child;
  if (nodes_[child].fn != fn) child = find(parent, fn);
  return child != kNoNode && (nodes_[child].flags & wire::kNodeExcluded);
}

Frame* ThreadProfile::release_dead_frames(uint64_t sp, uint64_t now) {
  // A new frame is being entered at `sp`: any frame recorded below that address (and on
  // the same stack) has been released, so control left it without an exit hook.
  while (depth_ > 1) {
    const Frame& top = frames_[depth_ - 1];
    if (top.sp >= sp || sp - top.sp >= kSameStackSpan) break;
    pop(now);
  }
  overflow_ = 0;
  return &frames_[depth_ - 1];
}

bool ThreadProfile::find_exiting_frame(uint64_t fn, uint64_t sp, uint64_t now) {
  if (excluded_child(frames_[depth_ - 1].node, fn)) return false;
  // Frames above the function now returning were abandoned: close them, but stop at the
  // first frame of the same function (it is the one returning). A frame at the same stack
  // pointer is a function inlined into the same host, and it cannot outlive the return.
  while (depth_ > 1) {
    const Frame& top = frames_[depth_ - 1];
    if (nodes_[top.node].fn == fn) return true;
    if (top.sp > sp || sp - top.sp >= kSameStackSpan) break;
    pop(now);
  }
  // While an attached window closes, a return whose entry went to glibc's empty hook (the
  // entry hooks are given back first) is a call after the window: not lost, not counted.
  if (!closing_ || !__atomic_load_n(closing_, __ATOMIC_RELAXED)) ++unmatched_exits_;
  return false;
}

static inline bool same_stack(uint64_t a, uint64_t b) { return (a > b ? a - b : b - a) < kSameStackSpan; }

bool ThreadProfile::unwind_to_landing(uint64_t sp, uint64_t now) {
  bool landing_known = false;
  for (uint32_t i = 1; i < depth_ && !landing_known; ++i)
    landing_known = frames_[i].sp >= sp && same_stack(frames_[i].sp, sp);
  if (!landing_known) return false;
  // Frames at exactly `sp` are the landing function and the functions inlined into it;
  // those of them that were left are closed by the exit safety net.
  while (depth_ > 1) {
    uint64_t top = frames_[depth_ - 1].sp;
    if (same_stack(top, sp) && top >= sp) break;
    pop(now);
  }
  overflow_ = 0;
  return true;
}

void ThreadProfile::unwind_to_depth(uint32_t depth, uint64_t now) {
  while (depth_ > 1 && depth_ - 1 > depth) pop(now);
  overflow_ = 0;
}

void ThreadProfile::unwind_all(uint64_t now) {
  while (depth_ > 1) pop(now);
  overflow_ = 0;
}

ThreadProfile::Segment ThreadProfile::take_frames(Frame* out) {
  const Segment taken{depth_ - 1, overflow_, inherited_depth_, skipping_by_choice_};
  memcpy(out, frames_ + 1, uint64_t(depth_ - 1) * sizeof(Frame));
  depth_ = 1;
  overflow_ = 0;
  inherited_depth_ = 1;
  return taken;
}

void ThreadProfile::put_frames(const Frame* in, const Segment& segment, uint64_t away) {
  memcpy(frames_ + 1, in, uint64_t(segment.depth) * sizeof(Frame));
  depth_ = segment.depth + 1;
  overflow_ = segment.overflow;
  inherited_depth_ = segment.inherited_depth;
  skipping_by_choice_ = segment.skipping_by_choice != 0;
  if (depth_ > 1) frames_[depth_ - 1].child_ticks += away;
}

void ThreadProfile::relocate_functions(uint64_t start, uint64_t end, uint64_t to) {
  auto move = [&](uint64_t& a) {
    if (a >= start && a < end) a = a - start + to;
  };
  for (uint32_t i = 1; i < node_count_; ++i) {
    move(nodes_[i].fn);
    move(nodes_[i].callsite);
  }
  // The index stays: a moved node keeps its slot, where the same address called again (the
  // next library's code) no longer finds it, and a rebuild files it under its new address.
  for (uint32_t i = 0; i < timeline_capacity_; ++i) move(timeline_[i].fn);
  for (uint32_t i = 1; i < site_count_; ++i) move(sites_[i].callsite);
}

void ThreadProfile::restart(uint64_t now) {
  for (uint32_t i = 0; i < node_count_; ++i) {
    nodes_[i].calls = 0;
    nodes_[i].self_ticks = 0;
    nodes_[i].min_self_ticks = kNoMin;
    nodes_[i].max_self_ticks = 0;
  }
  if (metrics_) memset(metrics_, 0, uint64_t(node_count_) * sizeof(DumpNodeMetrics));
  for (uint32_t i = 1; i < site_count_; ++i) sites_[i].calls = sites_[i].ticks = 0;
  for (uint32_t i = 0; i < depth_; ++i) {
    frames_[i].entry_tsc = now;
    frames_[i].child_ticks = 0;
  }
  inherited_depth_ = depth_;
  dropped_calls_ = 0;
  unmatched_exits_ = 0;
  gone_frames_ = 0;
  depth_limited_calls_ = 0;
  short_calls_ = 0;
  prunes_ = 0;
  timeline_next_ = timeline_count_ = 0;
  timeline_dropped_ = 0;
  // Folded functions stay folded; their nodes' calls from now on are all folded ones.
  folded_node_count_ = 0;
}

uint32_t ThreadProfile::open_context_frames(const wire::AttachFrame* in, uint32_t n, uint64_t now) {
  if (depth_ != 1 || overflow_ != 0) return 0;
  uint32_t pushed = 0;
  for (uint32_t i = 0; i < n && depth_ < depth_limit_; ++i) {
    const uint32_t child = find_or_add(frames_[depth_ - 1].node, in[i].fn, in[i].callsite);
    if (child == kNoNode || child == kParentGone) break;
    if (nodes_[child].flags & wire::kNodeExcluded) continue;
    frames_[depth_++] = Frame{child, 0, in[i].sp, now, 0};
    ++pushed;
  }
  take_pause();  // a pause here is before the frames' time began
  inherited_depth_ = depth_;
  return pushed;
}

}  // namespace callprof::rt
