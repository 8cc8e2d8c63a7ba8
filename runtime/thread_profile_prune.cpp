// Bounded memory: when a thread's node budget is exhausted, subtrees with small totals
// are folded into a `[pruned]` child of their nearest kept ancestor, so every total stays
// exact while about half the budget becomes free again. Node ids of kept nodes do not
// change (threads and signal contexts refer to them); freed nodes go to a free list, so a
// parent may afterwards have a higher index than its child.
#include <string.h>

#include "thread_profile.h"

namespace callprof::rt {

struct PruneScratch {
  uint64_t* weight;       // completed self time of the subtree, in ticks
  uint32_t* first_child;  // child lists, then (after ordering) each kept node's [pruned] child
  uint32_t* next;         // sibling links
  uint32_t* order;        // live nodes, parents before children
  uint32_t* keep;         // 1 kept, 0 removed (live nodes only)
};

namespace {

constexpr uint32_t kForced = 2;  // kept whatever its weight: on the stack or pinned
constexpr int kBuckets = 65;     // by bit length of the weight

int bucket(uint64_t w) { return w == 0 ? 0 : 64 - __builtin_clzll(w); }

}  // namespace

uint32_t ThreadProfile::breadth_first_order(PruneScratch& s) const {
  for (uint32_t i = 0; i < node_count_; ++i) s.first_child[i] = kNoNode;
  for (uint32_t i = node_count_; i-- > 1;) {
    if (nodes_[i].fn == 0) continue;  // free
    s.next[i] = s.first_child[nodes_[i].parent];
    s.first_child[nodes_[i].parent] = i;
  }
  uint32_t count = 1;
  s.order[0] = 0;
  for (uint32_t k = 0; k < count; ++k)
    for (uint32_t c = s.first_child[s.order[k]]; c != kNoNode; c = s.next[c]) s.order[count++] = c;
  return count;
}

uint32_t ThreadProfile::mark_kept(PruneScratch& s, uint32_t live) const {
  for (uint32_t k = 0; k < live; ++k) {
    uint32_t i = s.order[k];
    s.weight[i] = nodes_[i].self_ticks;
    s.keep[i] = (nodes_[i].flags & wire::kNodePinned) ? kForced : 0;
  }
  for (uint32_t d = 0; d < depth_; ++d) s.keep[frames_[d].node] = kForced;
  s.keep[0] = kForced;
  for (uint32_t k = live; k-- > 1;) {
    uint32_t i = s.order[k], p = nodes_[i].parent;
    s.weight[p] += s.weight[i];
    if (s.keep[i] == kForced) s.keep[p] = kForced;
  }
  // Keep the heaviest subtrees within a quarter of the budget: each kept node may gain a
  // [pruned] child, so about half the budget is then in use. A parent weighs at least as
  // much as its child, so a kept node's ancestors are kept too.
  uint32_t histogram[kBuckets] = {};
  uint32_t forced = 0;
  for (uint32_t k = 0; k < live; ++k) {
    uint32_t i = s.order[k];
    if (s.keep[i] == kForced)
      ++forced;
    else
      ++histogram[bucket(s.weight[i])];
  }
  const uint32_t room = node_capacity_ / 4 > forced ? node_capacity_ / 4 - forced : 0;
  int threshold = kBuckets;
  for (uint32_t above = 0; threshold > 0 && above + histogram[threshold - 1] <= room;) above += histogram[--threshold];
  uint32_t kept = 0;
  for (uint32_t k = 0; k < live; ++k) {
    uint32_t i = s.order[k];
    const DumpNode& n = nodes_[i];
    if (s.keep[i] != kForced) {
      bool parent_kept = s.keep[n.parent] != 0;
      // Filtered-out children and [pruned] children are tiny and carry their parent's
      // counts: they stay with it.
      bool rides_along = (n.flags & wire::kNodeExcluded) || n.fn == wire::kPrunedFn;
      s.keep[i] = parent_kept && (rides_along || bucket(s.weight[i]) >= threshold);
    }
    kept += s.keep[i] != 0;
  }
  return kept;
}

void ThreadProfile::merge_node(uint32_t into, uint32_t from, bool with_calls) {
  DumpNode& a = nodes_[into];
  const DumpNode& b = nodes_[from];
  if (with_calls) a.calls += b.calls;
  a.self_ticks += b.self_ticks;
  if (b.min_self_ticks < a.min_self_ticks) a.min_self_ticks = b.min_self_ticks;
  if (b.max_self_ticks > a.max_self_ticks) a.max_self_ticks = b.max_self_ticks;
  if (!metrics_) return;
  DumpNodeMetrics& x = metrics_[into];
  const DumpNodeMetrics& y = metrics_[from];
  x.offcpu_ns += y.offcpu_ns;
  x.preempted_ns += y.preempted_ns;
  x.switches += y.switches;
  x.faults += y.faults;
  x.alloc_calls += y.alloc_calls;
  x.alloc_bytes += y.alloc_bytes;
  x.free_calls += y.free_calls;
  x.excluded_calls += y.excluded_calls;
}

void ThreadProfile::fold_removed(PruneScratch& s, uint32_t live) {
  // Each removed subtree flows up into its top node (calls below it are not kept).
  for (uint32_t k = live; k-- > 1;) {
    uint32_t i = s.order[k], p = nodes_[i].parent;
    if (!s.keep[i] && !s.keep[p]) merge_node(p, i, false);
  }
  // Then the top nodes under one kept parent merge into its [pruned] child.
  uint32_t* sink_of = s.first_child;
  for (uint32_t k = 0; k < live; ++k) sink_of[s.order[k]] = kNoNode;
  for (uint32_t k = 1; k < live; ++k) {
    uint32_t i = s.order[k];
    if (s.keep[i] && nodes_[i].fn == wire::kPrunedFn) sink_of[nodes_[i].parent] = i;
  }
  for (uint32_t k = 1; k < live; ++k) {
    uint32_t i = s.order[k], p = nodes_[i].parent;
    if (s.keep[i] || !s.keep[p]) continue;
    if (sink_of[p] == kNoNode) {
      nodes_[i].fn = wire::kPrunedFn;  // the first top node becomes the [pruned] child
      nodes_[i].flags = 0;
      s.keep[i] = 1;
      sink_of[p] = i;
    } else {
      merge_node(sink_of[p], i, true);
    }
  }
  for (uint32_t k = 1; k < live; ++k) {
    uint32_t i = s.order[k];
    if (s.keep[i]) {
      nodes_[i].last_child = 0;  // hints may name freed nodes
      nodes_[i].next_sibling = 0;
      continue;
    }
    nodes_[i] = DumpNode{free_list_, 0, 0, 0, 0, 0, kNoMin, 0, 0, 0};
    free_list_ = i;
    --live_nodes_;
  }
  nodes_[0].last_child = 0;
}

void ThreadProfile::rebuild_index() {
  memset(slots_, 0, (uint64_t(slot_mask_) + 1) * sizeof(NodeSlot));
  for (uint32_t i = 1; i < node_count_; ++i) {
    const DumpNode& n = nodes_[i];
    if (n.fn == 0) continue;
    const uint64_t hash = slot_hash(n.parent, n.fn);
    uint32_t at = slot_position(hash) & slot_mask_;
    while (slots_[at] != 0) at = (at + 1) & slot_mask_;
    slots_[at] = slot_tag(hash) | i;
  }
}

void ThreadProfile::grow_index() {
  slot_mask_ = slot_mask_ * 2 + 1;
  rebuild_index();
}

bool ThreadProfile::prune() {
  if (!prune_scratch_) return false;
  char* base = static_cast<char*>(prune_scratch_);
  PruneScratch s{reinterpret_cast<uint64_t*>(base), reinterpret_cast<uint32_t*>(base + 8ull * node_capacity_),
                 reinterpret_cast<uint32_t*>(base + 12ull * node_capacity_),
                 reinterpret_cast<uint32_t*>(base + 16ull * node_capacity_),
                 reinterpret_cast<uint32_t*>(base + 20ull * node_capacity_)};
  uint32_t live = breadth_first_order(s);
  if (mark_kept(s, live) >= live) return false;
  fold_removed(s, live);
  drop_pruned_sites();
  rebuild_index();
  forget_pruned_folds();
  ++prunes_;
  // A prune that frees little (everything is on the stack or pinned) would repeat at every
  // new node: stop pruning, and let calls beyond the budget be dropped and counted.
  if (live_nodes_ > node_capacity_ - node_capacity_ / 8) prune_scratch_ = nullptr;
  return true;
}

}  // namespace callprof::rt
