// Runtime start-up, per-thread memory, the thread registry and fork handling.
#include "process.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "alt_stack.h"
#include "attach_frames.h"
#include "calibration_check.h"
#include "clock.h"
#include "closed_modules.h"
#include "code_patch.h"
#include "context_store.h"
#include "function_plan.h"
#include "hook_calibration.h"
#include "hook_removal.h"
#include "libcalls.h"
#include "module_walk.h"
#include "patched_calls.h"
#include "process_calibration.h"
#include "raw_syscall.h"
#include "runtime_thread.h"
#include "snapshots.h"
#include "syscall_context.h"

namespace callprof::rt {

__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;
bool g_ordered_clock = false;

namespace {

// constinit: constructors of other files run before this one's dynamic initializers would.
constinit ProcessInfo g_process{};
double g_recording_rate = 0;       // the TSC rate the recording's calibration file gave
ThreadState* g_threads = nullptr;  // lock-free push-only list
pthread_key_t g_exit_key;
// Signal handlers that interrupt a hook are rare and shallow: a small second tree.
constexpr uint32_t kInterruptNodes = 1u << 14;
constexpr uint32_t kInterruptFrames = 1u << 10;
constexpr uint32_t kMinStackFrames = 1u << 16;
int g_init_state = 0;  // 0 none, 1 running, 2 done
// Set while this thread initialises the runtime or attaches itself. libc may call the
// program's malloc or calloc on our behalf meanwhile (glibc allocates a new thread's TLS
// vector with calloc); such a call's hook is not recorded, instead of re-entering the
// set-up (which waited for itself forever).
__thread bool t_setting_up __attribute__((tls_model("initial-exec"))) = false;

uint64_t page_round(uint64_t n) { return (n + 4095) & ~uint64_t(4095); }

// One thread profile's memory, in this order: frames, index, prune scratch, the nodes'
// call-site lists, timeline, call sites, metrics, nodes. The timeline, call sites, nodes
// and metrics come last so a finished thread gives back what precedes them. Call sites:
// as many entries as nodes (the main tree only).
struct TreeLayout {
  uint64_t frames, slots, scratch, node_sites, timeline, sites, metrics, nodes, end;
};

TreeLayout tree_layout(uint32_t nodes, uint32_t frames, bool metrics, bool prunable, uint32_t timeline = 0,
                       bool sites = false) {
  TreeLayout l{};
  l.slots = page_round(frames * sizeof(Frame));
  l.scratch = l.slots + page_round(uint64_t(slot_count_for(nodes)) * sizeof(NodeSlot));
  l.node_sites = l.scratch + (prunable ? page_round(prune_scratch_bytes(nodes)) : 0);
  l.timeline = l.node_sites + (sites ? page_round(uint64_t(nodes) * sizeof(uint32_t)) : 0);
  l.sites = l.timeline + page_round(uint64_t(timeline) * sizeof(DumpTimelineEvent));
  l.metrics = l.sites + (sites ? page_round(uint64_t(nodes) * sizeof(DumpCallSite)) : 0);
  l.nodes = l.metrics + (metrics ? page_round(uint64_t(nodes) * sizeof(DumpNodeMetrics)) : 0);
  l.end = l.nodes + page_round(uint64_t(nodes) * sizeof(DumpNode));
  return l;
}

ThreadMemory tree_memory(char* at, const TreeLayout& l, uint32_t nodes, uint32_t frames, uint32_t timeline = 0) {
  ThreadMemory m{reinterpret_cast<DumpNode*>(at + l.nodes), nodes,
                 reinterpret_cast<NodeSlot*>(at + l.slots), slot_count_for(nodes),
                 reinterpret_cast<Frame*>(at + l.frames),   frames};
  if (l.nodes > l.metrics) m.metrics = reinterpret_cast<DumpNodeMetrics*>(at + l.metrics);
  if (l.node_sites > l.scratch) m.prune_scratch = at + l.scratch;
  if (l.metrics > l.sites) {
    m.node_sites = reinterpret_cast<uint32_t*>(at + l.node_sites);
    m.sites = reinterpret_cast<DumpCallSite*>(at + l.sites);
    m.site_capacity = nodes;
  }
  if (l.sites > l.timeline) {
    m.timeline = reinterpret_cast<DumpTimelineEvent*>(at + l.timeline);
    m.timeline_capacity = timeline;
  }
  return m;
}

TreeLayout interrupt_layout() { return tree_layout(kInterruptNodes, kInterruptFrames, false, false); }
TreeLayout main_layout(uint32_t frames) {
  const RuntimeConfig& c = g_process.config;
  return tree_layout(c.node_budget, frames, c.node_metrics(), true, c.timeline_events, true);
}
// A thread's reservation: its state, the interrupt tree, then the main tree.
uint64_t main_tree_offset() { return page_round(sizeof(ThreadState)) + interrupt_layout().end; }

void on_thread_exit(void* p) {
  finish_thread(static_cast<ThreadState*>(p), true);
  release_return_stack();  // a patched program's: every frame of the thread has returned
}

// The owner's side of hold_thread: announce the teardown, then wait for a holder to let
// go. Sequentially consistent on both sides (Dekker): of a holder and the owner, at least
// one sees the other's flag, so no holder reads what the teardown releases.
void begin_teardown(ThreadState* s) {
  __atomic_store_n(&s->tearing_down, 1u, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&s->held, __ATOMIC_SEQ_CST)) sys::call(SYS_sched_yield);
}
void end_teardown(ThreadState* s) { __atomic_store_n(&s->tearing_down, 0u, __ATOMIC_RELEASE); }

// The counting stubs' counts of thread `s` restart from 0 (a fork's child, a new window).
void forget_unhooked_counts(ThreadState* s) {
  __builtin_memset(s->unhooked_calls, 0, removed_function_count() * sizeof s->unhooked_calls[0]);
  s->unhooked_closed = 0;
}

// The id of a thread forking before the runtime met it while an attach's frames wait for
// it (0: none): the child's copy of the thread takes them (after_fork_in_child).
__thread uint32_t t_forking_tid __attribute__((tls_model("initial-exec"))) = 0;

void before_fork() {
  t_forking_tid = !t_state && attach_frames_pending() ? uint32_t(sys::gettid()) : 0;
  hold_module_walks();
}

void after_fork_in_parent() { release_module_walks_in_parent(); }

void after_fork_in_child() {
  release_module_walks_in_child();
  ThreadState* self = t_state;
  uint64_t now = ticks();
  own_return_stack_after_fork();
  // Other threads do not exist in the child; their memory is the parent's copy.
  // A state lives in its own mapping: take the link before unmapping it.
  for (ThreadState *s = g_threads, *next = nullptr; s; s = next) {
    next = s->next;
    if (s != self) sys::munmap(s->mapping, s->mapping_bytes);
  }
  g_threads = nullptr;
  reset_rewriting_after_fork();
  reset_hook_removal_after_fork();
  g_process.ppid = g_process.pid;
  g_process.pid = sys::getpid();
  calibration_pair(CLOCK_MONOTONIC, &g_process.tsc_start, &g_process.mono_start_ns);
  g_process.realtime_start_ns = int64_t(clock_ns(CLOCK_REALTIME));
  g_process.cpu_start_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  if (!self) {
    if (t_forking_tid != 0) adopt_forking_thread_frames(t_forking_tid, sys::gettid(), now);
    restart_snapshots_after_fork();
    return;
  }
  // A dump writer of the parent may have held this state at the fork: it does not exist here.
  self->held = 0;
  self->tearing_down = 0;
  close_thread_events(self, false);  // the ring reports the parent's thread
  open_thread_events(self, g_process.config.events);
  announce_syscall_context(self);  // a new task: the probe knows nothing of it
  self->profile.restart(now);
  self->interrupts.restart(now);
  forget_unhooked_counts(self);
  inherit_saved(static_cast<ContextStore*>(self->contexts), now);
  follow_closed_modules(self);  // a poke may have gone to the parent's ring
  self->start_tsc = now;
  self->tid = sys::gettid();
  self->creator_tid = 0;
  self->creator_node = UINT32_MAX;
  self->next = nullptr;
  g_threads = self;
  restart_snapshots_after_fork();  // last: the snapshot thread must find this state whole
}

void initialize() {
  g_process.enabled = read_config(&g_process.config);
  if (!g_process.enabled) return;
  g_ordered_clock = g_process.config.ordered_clock;
  g_process.pid = sys::getpid();
  g_process.ppid = sys::getppid();
  calibration_pair(CLOCK_MONOTONIC, &g_process.tsc_start, &g_process.mono_start_ns);
  g_process.realtime_start_ns = int64_t(clock_ns(CLOCK_REALTIME));
  g_process.cpu_start_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  pthread_key_create(&g_exit_key, on_thread_exit);
  find_thread_creation();  // here, not in a fork's child (module_walk.h)
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  // Fast exclusion counts excluded calls in the caller's node metrics: only with them, or
  // when their hook calls are to be rewritten away (then they are counted only with them).
  load_function_plan(g_process.config.functions_file, g_process.config.node_metrics() || g_process.config.remove_hooks);
  RuntimeConfig& c = g_process.config;
  g_recording_rate = load_recording_calibration(c.output_dir);
  if (c.compensate || c.auto_fold || c.min_duration_ns > 0 || c.timeline_events > 0)
    g_process.ticks_per_ns = g_recording_rate > 0 ? g_recording_rate : measure_tsc_rate();
  c.limits.min_ticks = uint64_t(double(c.min_duration_ns) * g_process.ticks_per_ns);
  if (c.timeline_events > 0) c.limits.timeline_min_ticks = uint64_t(double(c.timeline_min_ns) * g_process.ticks_per_ns);
  if (g_process.config.libcalls) install_libcalls();
  // A program built to be attached, recorded from its start: before any other thread can
  // exist (the snapshot thread is one).
  if (patchable_ranges() && !attached_mode()) {
    const int status = patch_entries_at_start(&g_process.patch_step);
    g_process.patch_status = status == 0 ? 1 : status;
  }
  start_snapshots(g_process.config);
}

void* reserve(uint64_t bytes) {
  return sys::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
}

// A call path is folded when its average self time (hooks included) stays below the
// hooks' own cost plus the part of it inside the callee: its body costs less than the
// hooks. Without a calibration, or by choice (CALLPROF_AUTO_FOLD_NS), a fixed time.
AutoFold auto_fold_for(const RuntimeConfig& c, const wire::DumpHookCosts* costs, double ticks_per_ns) {
  if (!c.auto_fold) return AutoFold{};
  uint64_t scaled = 0, outer = 0;
  for (uint32_t i = 0; i < wire::kHookSets; ++i) {
    const uint64_t leaf = 2 * costs[i].leaf_inner + costs[i].leaf_outer;
    if (leaf > scaled) scaled = leaf;
    if (costs[i].leaf_outer > outer) outer = costs[i].leaf_outer;
  }
  uint64_t ticks = scaled / wire::kHookCostScale;
  if (c.auto_fold_ns > 0 || ticks == 0) ticks = uint64_t(double(c.auto_fold_ns ? c.auto_fold_ns : 30) * ticks_per_ns);
  return AutoFold{ticks, 1024, c.auto_fold == 1, c.auto_fold < 3, outer / wire::kHookCostScale};
}

uint64_t read_ticks() { return ticks(); }

void advise_large_pages(void* at, uint64_t bytes) { sys::madvise(at, bytes, MADV_HUGEPAGE); }

// A thread state in fresh memory, trees initialised, not yet registered.
ThreadState* new_thread_state(const TreeLayout& main, uint32_t nodes, uint32_t frames) {
  const uint64_t main_at = main_tree_offset();
  char* base = static_cast<char*>(reserve(main_at + main.end));
  if (!base) return nullptr;
  ThreadState* s = reinterpret_cast<ThreadState*>(base);
  s->start_tsc = ticks();
  s->profile.init(tree_memory(base + main_at, main, nodes, frames, g_process.config.timeline_events), s->start_tsc);
  s->profile.touch_first_pages();  // the interrupt tree's, rarely used, are left to its first calls
  s->interrupts.init(
      tree_memory(base + page_round(sizeof(ThreadState)), interrupt_layout(), kInterruptNodes, kInterruptFrames),
      s->start_tsc);
  s->profile.set_pause_clock(read_ticks);
  s->interrupts.set_pause_clock(read_ticks);
  s->events.head = &s->events.consumed;
  s->tid = sys::gettid();
  s->creator_node = UINT32_MAX;
  s->mapping = base;
  s->mapping_bytes = main_at + main.end;
  return s;
}

// The limits the hooks' costs are measured under: a recorded call's, whatever --max-depth and
// --min-duration leave out of the program's tree (under them the calibration timed their
// cheaper path, a leaf's inner cost of 0, and taught callprof's cache that for every later
// recording on the machine: a threshold for auto-fold that no tiny function met).
ThreadLimits measuring_limits(ThreadLimits limits) {
  limits.max_depth = ThreadLimits{}.max_depth;
  limits.min_ticks = ThreadLimits{}.min_ticks;
  return limits;
}

// The calling thread's state, set up, registered (visible to dump writers only now, whole)
// and installed; null when memory could not be had.
ThreadState* set_up_thread() {
  const RuntimeConfig& c = g_process.config;
  // The shadow stack is address space, committed only as deep as the calls go; where even
  // that is refused (strict overcommit), a quarter of it, down to the old fixed size.
  ThreadState* s = nullptr;
  uint32_t frames = c.stack_frames;
  for (;;) {
    s = new_thread_state(main_layout(frames), c.node_budget, frames);
    if (s || frames / 4 < kMinStackFrames) break;
    frames /= 4;
  }
  if (!s) return nullptr;
  s->profile.set_limits(measuring_limits(c.limits));
  open_thread_events(s, c.events);
  // The first thread measures the hooks' cost for the whole process (hook_calibration.cpp).
  static int calibrated = 0;
  Learnt learnt = Learnt::Nothing;  // for the recording's later processes to read instead
  if (!__atomic_exchange_n(&calibrated, 1, __ATOMIC_ACQ_REL)) {
    if (g_process.ticks_per_ns > 0 && !(g_recording_rate > 0)) learnt = Learnt::Measured;  // the rate
    // Entries patched into calls of the trampolines cost more than the hooks: measured too.
    const uint8_t sets = uint8_t(c.calibrate | (patched_window_open() ? 1u << wire::kHooksPatched : 0));
    if (const Learnt here = c.compensate ? calibrate_or_inherit(s, sets, g_process.hook_costs) : Learnt::Nothing;
        here > learnt)
      learnt = here;
    g_process.auto_fold = auto_fold_for(c, g_process.hook_costs, g_process.ticks_per_ns);
    // Not before: the calibration folds its own functions, which are the runtime's to keep.
    __atomic_store_n(&g_remove_hooks, c.remove_hooks, __ATOMIC_RELEASE);
  }
  s->profile.set_limits(c.limits);
  s->profile.set_auto_fold(g_process.auto_fold);
  s->profile.set_callbacks(function_flags, checkpoint_reached);
  // A tiny function this thread has no room to fold is removed for every thread instead.
  // A frame of a function removed while it was open is closed when a call lands under it.
  s->profile.set_gone_check([](uint64_t fn) { return removed_folded_function(fn) && known_excluded(fn); });
  s->profile.set_fold_refused_handler([](uint64_t fn) {
    if (g_remove_hooks && !rewriting_refused()) remove_folded_function(fn);
  });
  // Where transparent huge pages are off, or on for every mapping, this changes nothing.
  s->profile.set_large_tree_advice(advise_large_pages);
  s->profile.set_window_closing_flag(&g_window_closing);
  s->closed_seen = closed_module_count();  // no nodes of libraries closed before it began
  announce_syscall_context(s);
  share_calibration(s, learnt, g_process.ticks_per_ns);
  s->next = __atomic_load_n(&g_threads, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&g_threads, &s->next, s, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
  pthread_setspecific(g_exit_key, s);
  attach_alt_stack();  // a crash by stack overflow must still save the profile
  t_state = s;
  return s;
}

}  // namespace

const ProcessInfo& process() { return g_process; }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
int32_t unhooked_calls_offset() { return int32_t(offsetof(ThreadState, unhooked_calls)); }
#pragma GCC diagnostic pop
ThreadState* first_thread() { return __atomic_load_n(&g_threads, __ATOMIC_ACQUIRE); }

void ensure_initialized() {
  int expected = 0;
  if (__atomic_compare_exchange_n(&g_init_state, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    t_setting_up = true;
    initialize();
    t_setting_up = false;
    __atomic_store_n(&g_init_state, 2, __ATOMIC_RELEASE);
  }
  if (t_setting_up) return;  // re-entered from initialize() itself: waiting would never end
  while (__atomic_load_n(&g_init_state, __ATOMIC_ACQUIRE) != 2) sys::call(SYS_sched_yield);
}

bool start_recording() {
  // Loaded by dlopen: a hook may have run the set-up already, without settings (off).
  int done = 2;
  if (!g_process.enabled)
    __atomic_compare_exchange_n(&g_init_state, &done, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  ensure_initialized();
  return g_process.enabled && attach_thread() != nullptr;
}

void stop_recording() { __atomic_store_n(&g_process.enabled, false, __ATOMIC_RELEASE); }

// Dormant, no thread is inside a hook: the threads' states are changed from here. Each
// live thread's tree keeps its nodes (with no calls: the recorder leaves those out) and
// forgets its open frames, which returned long ago; finished threads leave the list (their
// data went with the last window); what their event rings gathered meanwhile is skipped.
bool resume_recording() {
  if (!read_config(&g_process.config)) return false;
  calibration_pair(CLOCK_MONOTONIC, &g_process.tsc_start, &g_process.mono_start_ns);
  g_process.realtime_start_ns = int64_t(clock_ns(CLOCK_REALTIME));
  g_process.cpu_start_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  const uint64_t now = ticks();
  for (ThreadState** link = &g_threads; ThreadState* s = *link;) {
    if (__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE)) {
      *link = s->next;
      continue;
    }
    s->profile.unwind_all(now);
    s->profile.restart(now);
    s->interrupts.unwind_all(now);
    s->interrupts.restart(now);
    s->events.consumed = *s->events.head;
    s->events.out_ns = 0;
    s->start_tsc = now;
    link = &s->next;
  }
  allow_another_dump();
  g_window_end_tsc = 0;
  __atomic_store_n(&g_window_closing, false, __ATOMIC_RELEASE);
  __atomic_store_n(&g_process.enabled, true, __ATOMIC_RELEASE);
  return true;
}

namespace {

// Whether hooked calls of hook `sets` cost at least kCheckedHooksShare of the CPU time the
// image used, by the calls counted in the threads' trees: counting stops at enough calls.
bool hooks_cost_matters(uint8_t sets) {
  uint64_t cost = 0;
  for (uint32_t i = 0; i < wire::kHookSets; ++i)
    if (sets & (1u << i)) {
      const uint64_t leaf = g_process.hook_costs[i].leaf_inner + g_process.hook_costs[i].leaf_outer;
      if (leaf > cost) cost = leaf;
    }
  const uint64_t cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - g_process.cpu_start_ns;
  const uint64_t enough = calls_worth_a_check(uint64_t(double(cpu_ns) * g_process.ticks_per_ns), cost);
  uint64_t calls = 0;
  for (ThreadState* s = first_thread(); s && calls < enough; s = s->next) {
    hold_thread(s);
    const DumpNode* nodes = s->profile.nodes();
    for (uint32_t i = 1; i < s->profile.node_count() && calls < enough; ++i) calls += nodes[i].calls;
    release_thread(s);
  }
  return calls >= enough;
}

}  // namespace

void check_costs_at_exit() {
  if (__atomic_load_n(&g_window_closing, __ATOMIC_ACQUIRE)) return;
  const uint8_t sets = uint8_t(unchecked_sets() | measured_sets());
  if (!sets || !hooks_cost_matters(sets)) return;
  // A state as fresh as the first thread's at start-up, where the costs were measured.
  const RuntimeConfig& c = g_process.config;
  ThreadState* scratch = new_thread_state(main_layout(c.stack_frames), c.node_budget, c.stack_frames);
  if (!scratch) return;
  scratch->profile.set_limits(measuring_limits(c.limits));
  open_thread_events(scratch, c.events);  // the hooks read its ring's head at every call
  // The calibration's folded and excluded loops must not take the removal's path (their hook
  // calls are no sites of the plan, and would be looked up at every call). Another thread
  // still running meanwhile leaves its hook calls in place a little longer.
  const bool removing = __atomic_exchange_n(&g_remove_hooks, false, __ATOMIC_ACQ_REL);
  const Learnt learnt = check_cached_costs(scratch, g_process.hook_costs);
  __atomic_store_n(&g_remove_hooks, removing, __ATOMIC_RELEASE);
  share_calibration(t_state, learnt, g_process.ticks_per_ns);
  recheck_measured_costs(scratch, t_state);
  close_thread_events(scratch, false);
  sys::munmap(scratch->mapping, scratch->mapping_bytes);
}

bool g_window_closing = false;
uint64_t g_window_end_tsc = 0;

void release_window_memory() {
  const uint64_t now = ticks();
  for (ThreadState* s = g_threads; s; s = s->next) {
    // A thread still inside a hook keeps its tree: it may be writing to it.
    if (__atomic_load_n(&s->busy, __ATOMIC_ACQUIRE)) continue;
    const bool finished = __atomic_load_n(&s->finished, __ATOMIC_ACQUIRE);
    ThreadProfile* trees[] = {&s->profile, &s->interrupts};
    for (ThreadProfile* p : trees) {
      const ThreadMemory m = p->memory();
      char* from = reinterpret_cast<char*>(m.frames);  // the tree's first part (tree_layout)
      char* to = reinterpret_cast<char*>(m.nodes) + page_round(uint64_t(m.node_capacity) * sizeof(DumpNode));
      // Small pages again first: an emptied tree's first write would fault in a 2 MiB page.
      sys::madvise(from, uint64_t(to - from), MADV_NOHUGEPAGE);
      // A finished thread's tree end is unmapped already: the rest is given back all the same.
      sys::madvise(from, uint64_t(to - from), MADV_DONTNEED);
      if (!finished) p->init(m, now);  // a finished thread leaves the list at the next window
    }
    if (finished) continue;
    s->profile.set_limits(g_process.config.limits);
    s->profile.set_auto_fold(g_process.auto_fold);
    s->profile.set_large_tree_advice(advise_large_pages);
  }
}

void freeze_unhooked_counts() {
  const uint32_t n = removed_function_count();
  for (ThreadState* s = g_threads; s; s = s->next) {
    // Its pages faulted in first: a fault between two counts would let the thread run on
    // for microseconds between them (b = 3 a failed by 200 calls).
    __builtin_memset(s->unhooked_at_close, 0, n * sizeof s->unhooked_at_close[0]);
    for (uint32_t i = 0; i < n; ++i) s->unhooked_at_close[i] = __atomic_load_n(&s->unhooked_calls[i], __ATOMIC_RELAXED);
    __atomic_store_n(&s->unhooked_closed, 1u, __ATOMIC_RELEASE);
  }
}

void clear_unhooked_counts() {
  for (ThreadState* s = g_threads; s; s = s->next) forget_unhooked_counts(s);
}

ThreadState* attach_thread() {
  if (t_setting_up) return nullptr;  // a hook inside our own set-up: not the program's call
  ensure_initialized();
  if (!g_process.enabled) return nullptr;
  t_setting_up = true;
  ThreadState* s = set_up_thread();
  t_setting_up = false;
  return s;
}

ThreadState* attach_thread_at(uint64_t sp) {
  ThreadState* s = attach_thread();
  if (s && attach_frames_pending()) {
    s->busy = 1;
    open_attach_frames(s, sp);
    s->busy = 0;
  }
  return s;
}

void hold_thread(ThreadState* s) {
  for (;;) {
    __atomic_store_n(&s->held, 1u, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&s->tearing_down, __ATOMIC_SEQ_CST)) return;  // a teardown now waits for us
    __atomic_store_n(&s->held, 0u, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&s->tearing_down, __ATOMIC_ACQUIRE)) sys::call(SYS_sched_yield);
  }
}

void release_thread(ThreadState* s) { __atomic_store_n(&s->held, 0u, __ATOMIC_RELEASE); }

// A thread that ends with a small tree keeps its memory until the process ends, up to
// kKeptSmallThreads of them: some 16 KiB resident each (at most about 70: a tree this
// small is this shallow, its index this short, never pruned). Giving pages back changes
// the address space, which costs a TLB shootdown, an interrupt to every CPU that ran the
// process: 250 short threads took 25-27 ms of CPU to record on the AMD VM, 18-20 ms kept
// (1,000 with --no-offcpu: 61-74 against 41-47 ms). Later ones, larger trees, and every thread where the reservations
// count against a strict overcommit limit give back what the dump does not need, as before.
constexpr uint32_t kSmallTreeNodes = 1024;
constexpr uint32_t kKeptSmallThreads = 1024;
uint32_t g_kept_small_threads = 0;

bool strict_overcommit() {
  static int strict = -1;  // read once (two threads ending at once may both read it)
  int known = __atomic_load_n(&strict, __ATOMIC_RELAXED);
  if (known < 0) {
    char mode = '0';
    const long fd = sys::open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (sys::read(int(fd), &mode, 1) != 1) mode = '0';
      sys::close(int(fd));
    }
    known = mode == '2';
    __atomic_store_n(&strict, known, __ATOMIC_RELAXED);
  }
  return known != 0;
}

bool keep_small_thread(const ThreadState* s) {
  const ThreadProfile& p = s->profile;
  if (p.node_count() > kSmallTreeNodes || p.index_slots() > 2 * kSmallTreeNodes || p.prunes() != 0) return false;
  if (__atomic_load_n(&g_kept_small_threads, __ATOMIC_RELAXED) >= kKeptSmallThreads || strict_overcommit())
    return false;
  return __atomic_fetch_add(&g_kept_small_threads, 1u, __ATOMIC_RELAXED) < kKeptSmallThreads;
}

// Keep metrics and nodes (the dump needs them) and give back what precedes them.
void give_back_tree(ThreadState* s) {
  const TreeLayout l = main_layout(s->profile.frame_capacity());
  char* tree = static_cast<char*>(s->mapping) + main_tree_offset();
  sys::madvise(tree, l.timeline, MADV_DONTNEED);
  char* nodes_end = tree + page_round(l.nodes + s->profile.node_count() * sizeof(DumpNode));
  char* end = static_cast<char*>(s->mapping) + s->mapping_bytes;
  if (nodes_end < end) sys::munmap(nodes_end, uint64_t(end - nodes_end));
  s->mapping_bytes = uint64_t(nodes_end - static_cast<char*>(s->mapping));
}

void finish_thread(ThreadState* s, bool release) {
  if (!s) return;
  begin_teardown(s);
  s->busy = 1;
  uint64_t now = ticks();
  close_thread_events(s, true);
  s->profile.unwind_all(now);
  // Coroutines still suspended end with the thread, as of when they were suspended.
  close_all_saved(static_cast<ContextStore*>(s->contexts), s->profile);
  s->interrupts.unwind_all(now);
  s->end_tsc = now;
  sys::call(SYS_prctl, PR_GET_NAME, sys::p(s->name));
  __atomic_store_n(&s->finished, 1u, __ATOMIC_RELEASE);
  if (release && t_state == s) {
    t_state = nullptr;
    pthread_setspecific(g_exit_key, nullptr);
    withdraw_syscall_context();
    detach_alt_stack();
    release_context_store(s->contexts);
    s->contexts = nullptr;
    if (!keep_small_thread(s)) give_back_tree(s);
  }
  s->busy = 0;
  end_teardown(s);
}

}  // namespace callprof::rt
