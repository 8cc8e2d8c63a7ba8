// Auto-fold: a function whose calls are consistently tiny costs more in hooks than in its
// body (GCC instruments a program's small inline helpers) and distorts the profile. Each
// thread decides for itself, on its own tree, so there is nothing to lock: every
// `check_every` calls of a leaf path its average self time is compared with the threshold,
// and a function found tiny is folded — its nodes become excluded (counted, their time in
// the caller's self, as an inlined body's would be) and the hooks skip it before reading
// the clock. How many of a node's calls ran through the hooks first is kept per node.
#include "thread_profile.h"

namespace callprof::rt {

void ThreadProfile::set_auto_fold(const AutoFold& fold) {
  const bool on = fold.max_self_ticks > 0 && fold.check_every > 0 && (fold.check_every & (fold.check_every - 1)) == 0;
  fold_max_self_ticks_ = on ? fold.max_self_ticks : 0;
  fold_mask_ = on ? fold.check_every - 1 : UINT64_MAX;
  fold_inlined_only_ = fold.inlined_only;
}

// The last callee (the hint) tells cheaply about most nodes; only then are all children looked for.
bool ThreadProfile::only_folded_children(uint32_t node) const {
  const uint32_t last = nodes_[node].last_child;
  if (last == 0) return true;
  if (!(nodes_[last].flags & wire::kNodeAutoFolded)) return false;
  for (uint32_t i = 1; i < node_count_; ++i)
    if (nodes_[i].parent == node && nodes_[i].fn != 0 && !(nodes_[i].flags & wire::kNodeAutoFolded)) return false;
  return true;
}

// Called every `check_every` calls of a node, right after one returned.
void ThreadProfile::consider_fold(uint32_t node) {
  const DumpNode& n = nodes_[node];
  if (n.self_ticks >= fold_max_self_ticks_ * n.calls) return;  // not tiny on average
  // Only a function with no role of its own (checkpoint, excluded, pinned), no call of it
  // still open (recursion: its outer frames would never close) and no callee but folded
  // ones (a wrapper of real work keeps its place in the tree).
  // And by default only an inlined helper: a function really called is one the plain build
  // calls too, whose time a sampling profile shows as its own (--auto-fold all folds it too).
  if (fold_inlined_only_ && !(n.callsite & wire::kCallsiteInlined)) return;
  if (n.flags != 0 || !only_folded_children(node)) return;
  for (uint32_t i = 1; i < depth_; ++i)
    if (nodes_[frames_[i].node].fn == n.fn) return;
  if (fold(n.fn)) return;
  if (fold_refused_ < UINT32_MAX) ++fold_refused_;
  if (on_fold_refused_) on_fold_refused_(n.fn);
}

bool ThreadProfile::fold(uint64_t fn) {
  uint64_t& slot = folded_fns_[fold_slot(fn)];
  if (slot == fn) return true;
  if (slot != 0 || fn == 0) return false;  // another function folded at that address slot
  uint32_t with_calls = 0;
  for (uint32_t i = 1; i < node_count_; ++i) with_calls += nodes_[i].fn == fn && nodes_[i].calls > 0;
  if (folded_node_count_ + with_calls > kMaxFoldedNodes) return false;
  for (uint32_t i = 1; i < node_count_; ++i) {
    DumpNode& n = nodes_[i];
    if (n.fn != fn) continue;
    if (n.calls > 0) folded_nodes_[folded_node_count_++] = DumpFoldedNode{i, 0, n.calls};
    n.flags |= wire::kNodeExcluded | wire::kNodeAutoFolded;
  }
  slot = fn;
  return true;
}

void ThreadProfile::clear_folds() {
  for (uint64_t& f : folded_fns_) f = 0;
  folded_node_count_ = 0;
  fold_refused_ = 0;
}

// A folded function called under a node that has not called it lately: its node under
// the running frame (new ones are folded from the start: no entry, all calls folded).
void ThreadProfile::count_folded_slow(uint64_t fn, uint64_t callsite) {
  const uint32_t parent_id = frames_[depth_ - 1].node;
  const uint32_t child = next_child(nodes_[parent_id], parent_id, fn, callsite);
  take_pause();  // the open frames were moved; no call starts here
  if (child == kParentGone) {
    pop(pause_clock_ ? pause_clock_() : frames_[depth_ - 1].entry_tsc);
    ++gone_frames_;
    return count_folded(fn, callsite);
  }
  if (child == kNoNode) return void(++dropped_calls_);
  nodes_[child].flags |= wire::kNodeExcluded | wire::kNodeAutoFolded;
  ++nodes_[child].calls;
}

// After pruning: entries whose node was freed (or merged away) are dropped; the freed
// node may be reused by another function, whose calls are its own.
void ThreadProfile::forget_pruned_folds() {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < folded_node_count_; ++i) {
    const DumpFoldedNode& e = folded_nodes_[i];
    if (nodes_[e.node].fn != 0 && (nodes_[e.node].flags & wire::kNodeAutoFolded)) folded_nodes_[kept++] = e;
  }
  folded_node_count_ = kept;
}

}  // namespace callprof::rt
