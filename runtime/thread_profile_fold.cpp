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
  fold_leaves_only_ = fold.leaves_only;
  fold_callee_outer_ticks_ = fold.callee_outer_ticks;
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

// --auto-fold wrappers: whether the node's function is thin in this thread, over all its
// nodes: its self time tiny once the part of its hooked callees' hook costs that lands in it
// is left out, and its calls passed on to a few functions only. By one node alone, Lua's
// interpreter loop looked thin (its first 1024 calls on one path ran small callbacks); over
// all of them it calls dozens of functions. One walk over the nodes, made only when the
// node's own numbers could be thin.
bool ThreadProfile::thin_wrapper(uint32_t node) const {
  const DumpNode& n = nodes_[node];
  const uint64_t outer = fold_callee_outer_ticks_;
  const auto excess = [&](uint64_t self, uint64_t calls) {
    const uint64_t limit = fold_max_self_ticks_ * calls;
    return self > limit ? self - limit : 0;
  };
  // A leaf path of a function may be tiny where the function is not (Lua's interpreter loop
  // running a comparison callback that calls nothing hooked): the walk decides.
  const uint64_t own = excess(n.self_ticks, n.calls);
  if (own > 0 && (n.last_child == 0 || own >= kWrapperMaxCalleesPerCall * outer * n.calls)) return false;
  uint64_t self = 0, calls = 0, callee_calls = 0;
  uint64_t callees[kWrapperMaxCallees] = {};
  uint32_t distinct = 0;
  for (uint32_t i = 1; i < node_count_; ++i) {
    const DumpNode& c = nodes_[i];
    if (c.fn == n.fn) self += c.self_ticks, calls += c.calls;
    // Hooked calls made by a node of the function: a folded callee's cost its caller less.
    if (c.fn == 0 || nodes_[c.parent].fn != n.fn || (c.flags & wire::kNodeAutoFolded)) continue;
    callee_calls += c.calls;
    uint32_t k = 0;
    while (k < distinct && callees[k] != c.fn) ++k;
    if (k == distinct) {
      if (distinct == kWrapperMaxCallees) return false;
      callees[distinct++] = c.fn;
    }
  }
  const uint64_t over = excess(self, calls);
  return over == 0 || callee_calls * outer > over;
}

// Whether the node's calls since its last check were tiny on average, for a node whose
// average over all its calls is not but comes near. The hooks' own cost inside a call is
// what the threshold allows for, and in a real program it is above what the calibration's
// tight loop measured, by its cache misses and interrupts, more in some stretches than in
// others: noise only adds, so the stretch that added least is the truest, and the average
// of all of them can stay above the threshold for good (zstd by GCC: its hash functions
// folded in some runs and not in others).
bool ThreadProfile::tiny_lately(uint32_t node) {
  const DumpNode& n = nodes_[node];
  uint32_t at = 0;
  while (at < kFoldWindows && fold_windows_[at].node != node) ++at;
  if (at == kFoldWindows) {  // not looked at yet: its window starts now
    fold_windows_[fold_window_next_++ % kFoldWindows] = {node, n.calls, n.self_ticks};
    return false;
  }
  FoldWindow& w = fold_windows_[at];
  // Fewer calls or less time than at the last check: the node was restarted (fork).
  const bool valid = n.calls > w.calls && n.self_ticks >= w.self_ticks;
  const bool tiny = valid && n.self_ticks - w.self_ticks < fold_max_self_ticks_ * (n.calls - w.calls);
  w.calls = n.calls;
  w.self_ticks = n.self_ticks;
  return tiny;
}

// Called every `check_every` calls of a node, right after one returned.
void ThreadProfile::consider_fold(uint32_t node) {
  const DumpNode& n = nodes_[node];
  // By default only an inlined helper: a function really called is one the plain build
  // calls too, whose time a sampling profile shows as its own (--auto-fold all folds it too).
  // Never a function with a role of its own (checkpoint, excluded, pinned).
  if ((fold_inlined_only_ && !(n.callsite & wire::kCallsiteInlined)) || n.flags != 0) return;
  // Tiny on average, or lately for a leaf path near the threshold (asked first: the leaf
  // check may walk every node).
  const bool near = n.self_ticks < kFoldWindowReach * fold_max_self_ticks_ * n.calls;
  const bool tiny =
      n.self_ticks < fold_max_self_ticks_ * n.calls || (near && only_folded_children(node) && tiny_lately(node));
  if (!tiny && fold_leaves_only_) return;
  // A tiny leaf path (no callee but folded ones: a wrapper of real work keeps its place in
  // the tree) of a function with no call of it still open (a recursion's outer frames would
  // keep its time while its inner levels lost theirs); or, with --auto-fold wrappers, a
  // function thin over all its nodes, open or not (thin_wrapper).
  if (!(tiny && only_folded_children(node) && !open_frame_of(n.fn)) && (fold_leaves_only_ || !thin_wrapper(node)))
    return;
  if (fold(n.fn)) return;
  if (fold_refused_ < UINT32_MAX) ++fold_refused_;
  if (on_fold_refused_) on_fold_refused_(n.fn);
}

bool ThreadProfile::open_frame_of(uint64_t fn) const {
  for (uint32_t i = 1; i < depth_; ++i)
    if (nodes_[frames_[i].node].fn == fn) return true;
  return false;
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
  forget_fold_windows();
  for (uint64_t& f : folded_fns_) f = 0;
  folded_node_count_ = 0;
  fold_refused_ = 0;
}

void ThreadProfile::forget_fold_windows() {
  for (FoldWindow& w : fold_windows_) w = {};
  fold_window_next_ = 0;
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
  forget_fold_windows();  // nodes were freed and merged: their ids may be another's now
  uint32_t kept = 0;
  for (uint32_t i = 0; i < folded_node_count_; ++i) {
    const DumpFoldedNode& e = folded_nodes_[i];
    if (nodes_[e.node].fn != 0 && (nodes_[e.node].flags & wire::kNodeAutoFolded)) folded_nodes_[kept++] = e;
  }
  folded_node_count_ = kept;
}

}  // namespace callprof::rt
