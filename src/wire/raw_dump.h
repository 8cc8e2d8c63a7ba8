// The raw dump the in-process runtime writes for `callprof record` to read: one file per
// process image, fixed little-endian layout, addresses unsymbolized, times in TSC ticks.
// Header-only and dependency-free: included by the runtime (no exceptions, no RTTI).
#pragma once

#include <stdint.h>

namespace callprof::wire {

inline constexpr char kDumpMagic[8] = {'C', 'P', 'R', 'T', 'D', 'U', 'M', 'P'};
inline constexpr uint32_t kDumpVersion = 10;

// File layout, every record 8-byte aligned:
//   DumpHeader
//   command line: cmdline_bytes bytes (argv strings, each NUL-terminated), padded to 8
//   module_count x { DumpModule, path bytes, build id bytes, padded to 8 }
//   libcall_count x { DumpLibCall, name bytes, padded to 8 }
//   removed_functions x DumpRemovedFunction
//   thread_count x { DumpThread, node_count x DumpNode, open_frames x DumpOpenFrame,
//                    interrupt_node_count x DumpNode,
//                    node_count x DumpNodeMetrics when flags has kDumpHasNodeMetrics,
//                    DumpTimeline and its count x DumpTimelineEvent when flags has kDumpHasTimeline,
//                    folded_node_count x DumpFoldedNode,
//                    call_site_count x DumpCallSite,
//                    unhooked_count x DumpUnhookedCalls }
// What the hooks cost per call, in 1/kHookCostScale TSC ticks (fractions of a tick add up
// over millions of calls). All zero: not measured (no compensation, or no such compiler).
inline constexpr uint64_t kHookCostScale = 1u << 16;
inline constexpr uint32_t kHooksGcc = 0;
inline constexpr uint32_t kHooksClang = 1;
// A program built with -fpatchable-function-entry, its entries patched into calls of the
// runtime's trampolines (record from its start, or attach): the same situations measured
// through the trampolines and the replaced return address.
inline constexpr uint32_t kHooksPatched = 2;
inline constexpr uint32_t kHookSets = 3;
struct DumpHookCosts {
  uint64_t leaf_inner;  // a call of a leaf (no callees), inside its own self time
  uint64_t leaf_outer;  // ... in its caller's self time
  uint64_t excluded;    // a call of an excluded function, in the caller's self time
  uint64_t folded;      // a call of a function folded at run time, in the caller's self time
  uint64_t caller;      // a call of a function with callees: the whole cost (inner + outer)
  uint64_t recursive;   // a recursive call: the whole cost, with what it stops the compiler doing
};
static_assert(sizeof(DumpHookCosts) == 48);

// Where patching a program's entries at its start stopped (DumpHeader::patch_step).
enum PatchStep : uint32_t {
  kPatchStepUnknown = 0,
  kPatchStepTaskList = 1,      // /proc/self/task could not be read: the threads not counted
  kPatchStepOtherThreads = 2,  // other threads already ran (-EBUSY)
  kPatchStepUnwinder = 3,      // a GOT entry of the unwinder could not be redirected
  kPatchStepCode = 4,          // the code could not be made writable (mprotect's error)
};

struct DumpHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;  // sizeof(DumpHeader), lets a reader skip fields it does not know
  uint32_t pid;
  uint32_t ppid;
  uint64_t tsc_start;      // calibration pair taken when the runtime started (or forked)
  uint64_t mono_start_ns;  // CLOCK_MONOTONIC
  uint64_t tsc_end;        // calibration pair taken when the dump was written
  uint64_t mono_end_ns;
  int64_t realtime_start_ns;  // CLOCK_REALTIME at start, for humans
  uint32_t module_count;
  uint32_t thread_count;
  uint32_t cmdline_bytes;
  uint32_t flags;         // kDump* bits below
  uint32_t snapshot_seq;  // 0: the final dump of the image; n: its n-th snapshot
  uint32_t death_signal;  // the fatal signal that ended the image, 0 when none
  uint32_t libcall_count;
  uint32_t runtime_tid;      // the runtime's own thread (snapshots), 0 when none: never the program's
  uint64_t auto_fold_ticks;  // auto-fold: paths whose average self time per call stayed below this were folded; 0: off
  // Overhead compensation, measured by the runtime at start-up (docs/design.md,
  // "Compensation"), for the hooks as each compiler emits them: [kHooksGcc], [kHooksClang],
  // and for patched entries [kHooksPatched].
  DumpHookCosts hook_costs[kHookSets];
  // Hook removal (runtime/hook_removal.h), 0 without it: hook call sites rewritten into
  // nops, folded functions removed for the whole process, and mprotect's error when the
  // system refused writable code (nothing rewritten after it).
  uint32_t rewritten_sites;
  uint32_t removed_functions;  // DumpRemovedFunction records that follow the library calls
  uint32_t rewrite_refused_errno;
  uint32_t hook_removal;  // 1: hooks of filtered-out and folded functions are rewritten away
  // record of a program built with -fpatchable-function-entry (runtime/patched_calls.h):
  // 1 its entries became calls at start-up; a negative errno-like code when they could not,
  // with the step that failed in patch_step; 0 for a program with hooks.
  int32_t entries_patched;
  uint32_t patch_step;  // PatchStep
  // Entry hook calls of removed folded functions that call a counting stub now (their calls
  // counted per function: DumpUnhookedCalls), and those that became nops because no stub
  // could be mapped within their reach (their calls since are not counted).
  uint32_t counted_sites;
  uint32_t uncounted_sites;
};
static_assert(sizeof(DumpHeader) == 280);

// A folded function removed for the whole process (runtime/hook_removal.h): from `tsc` on,
// the calls through its rewritten hook calls were not counted. fn 0: a record being
// written when the dump was taken (skip it).
struct DumpRemovedFunction {
  uint64_t fn;
  uint64_t tsc;
  uint32_t flags;  // kRemoved* bits below
  uint32_t reserved;
};
static_assert(sizeof(DumpRemovedFunction) == 24);
// An entry of one of its inlined copies became a nop (record --fold-counts called): its runs
// there since were not counted, only its real calls.
inline constexpr uint32_t kRemovedInlinedCopiesUncounted = 1u << 0;

// (Which metrics were on is in each thread's offcpu_state and the profile's metadata.)
inline constexpr uint32_t kDumpHasNodeMetrics = 1u << 0;  // DumpNodeMetrics follow each thread
inline constexpr uint32_t kDumpHasTimeline = 1u << 1;     // a DumpTimeline ends each thread
// A removed folded function's calls after its entries were rewritten are counted (by its
// counting stubs, or by the hook where an entry's call stays: DumpUnhookedCalls), but for
// the header's uncounted_sites; without it they are not counted.
inline constexpr uint32_t kDumpCountsUnhookedCalls = 1u << 2;

// What a removed folded function's rewritten entries count (CALLPROF_COUNT_FOLDED): nothing,
// its real calls (entries in its own code), or its inlined copies' runs too.
inline constexpr uint8_t kFoldCountsNone = 0, kFoldCountsCalled = 1, kFoldCountsAll = 2;

// A call that left an instrumented module through its PLT: nodes name it by `id` (an
// address of the runtime's own stub, unique per imported symbol and module).
struct DumpLibCall {
  uint64_t id;          // the fn value used in DumpNode
  uint64_t target;      // runtime address the symbol resolved to (its module)
  uint32_t name_bytes;  // followed by the symbol name (not NUL-terminated)
  uint32_t reserved;
};
static_assert(sizeof(DumpLibCall) == 24);

struct DumpModule {
  uint64_t bias;   // load bias: runtime address = ELF vaddr + bias
  uint64_t start;  // runtime address range of the PT_LOAD segments
  uint64_t end;
  uint32_t path_bytes;      // followed by the path (not NUL-terminated)
  uint32_t build_id_bytes;  // then the raw build id bytes
};
static_assert(sizeof(DumpModule) == 32);
// A module entry with this path is not a file: the runtime's code near the program's
// modules (runtime/near_code.h: a patched program's jumps to its entry trampoline, counting
// stubs), listed so that samples there count as the profiler's own cost.
inline constexpr char kStubModulePath[] = "[callprof-stub]";

struct DumpThread {
  uint32_t tid;
  uint32_t creator_tid;    // 0: not created by a profiled thread
  uint32_t creator_node;   // node in the creator's tree that called pthread_create; UINT32_MAX none
  uint32_t node_count;     // includes the root, node 0
  uint32_t open_frames;    // frames still on the shadow stack when the dump was taken
  uint32_t finished;       // 1: the thread had exited, or ends with the process (exit dump)
  uint64_t start_routine;  // runtime address, 0 for the main thread
  uint64_t start_tsc;
  uint64_t end_tsc;        // exit time, or dump time when still running
  uint64_t dropped_calls;  // calls not recorded: node budget or stack depth exhausted
  char name[16];           // as set by pthread_setname_np / prctl, NUL-padded
  // Calls made by signal handlers that interrupted one of our hooks are kept in a second
  // tree: its root's children have fn = kInterruptedContext | (node of the main tree that
  // was on top when the signal came), and their subtrees belong under that node.
  uint32_t interrupt_node_count;  // includes its root; 0 when no hook was interrupted
  uint32_t unmatched_exits;       // exit hooks whose entry was not on the stack (saturating)
  uint64_t pending_offcpu_ns;     // off-CPU time not yet charged: belongs to the top open frame
  uint64_t depth_limited_calls;   // calls not recorded because of the depth limit
  uint64_t short_calls;           // calls not recorded because shorter than the minimum duration
  uint64_t lost_events;           // context-switch/fault records the kernel could not deliver
  uint32_t prunes;                // times the node budget was exceeded and the tree pruned
  uint32_t offcpu_state;          // kOffCpu* below
  uint32_t folded_node_count;     // DumpFoldedNode entries that end the thread's records
  uint32_t auto_fold_refused;     // functions that qualified but found no room to fold (saturating)
  uint32_t call_site_count;       // DumpCallSite entries after the folded nodes
  uint32_t call_sites_lost;       // calls from a further site with no room left to tell it apart (saturating)
  uint32_t unhooked_count;        // DumpUnhookedCalls entries after the call sites
  uint32_t reserved;
};
static_assert(sizeof(DumpThread) == 144);

inline constexpr uint32_t kOffCpuOff = 0;  // not requested
inline constexpr uint32_t kOffCpuMeasured = 1;
inline constexpr uint32_t kOffCpuUnavailable = 2;  // perf_event_open or mmap failed for this thread

inline constexpr uint64_t kInterruptedContext = uint64_t(1) << 63;
// The fn of a `[pruned]` node: the folded metrics of subtrees pruned under its parent.
inline constexpr uint64_t kPrunedFn = 1;

// DumpNode::flags
inline constexpr uint32_t kNodeCheckpoint = 1u << 0;  // a snapshot is taken when a call of it returns
inline constexpr uint32_t kNodeExcluded = 1u << 1;    // filtered out: calls counts calls made, nothing else
inline constexpr uint32_t kNodePinned = 1u << 2;      // referenced from elsewhere (thread creation): never pruned
// Folded at run time (auto-fold: its function's calls were consistently tiny): also
// kNodeExcluded. `calls` counts every call; the DumpFoldedNode list of the thread says how
// many of them ran through the hooks (their self time is the node's), the rest were folded
// (counted here, their time in the caller's self). A node with no entry had all its calls folded.
inline constexpr uint32_t kNodeAutoFolded = 1u << 3;
// A node whose fn is 0 (other than the root) is free: pruned and not reused yet. Live
// nodes' parents are live, but after pruning a parent may have a higher index.

// DumpNode::callsite's top bit: the node's first call ran its hooks from another function's
// code (an inlined instance: the enter hook returned outside the function's first bytes).
// Readers mask it off; auto-fold folds only such nodes.
inline constexpr uint64_t kCallsiteInlined = uint64_t(1) << 63;

// One calling-context-tree node (one cache line). Node 0 is the root (fn 0). The two hint fields are the runtime's
// lookup caches: readers ignore them.
struct DumpNode {
  uint32_t parent;
  uint32_t last_child;  // hint: the child last entered from this node (0: none)
  uint64_t fn;          // runtime address of the function's entry
  uint64_t callsite;    // a return address in the caller (first call seen)
  uint64_t calls;       // completed calls (open frames are in DumpOpenFrame)
  uint64_t self_ticks;
  uint64_t min_self_ticks;  // UINT64_MAX when no call completed
  uint64_t max_self_ticks;
  uint32_t next_sibling;  // hint: the sibling entered after this node the last time (0: none)
  uint32_t flags;         // kNode* bits
};
static_assert(sizeof(DumpNode) == 64);

// Per-node metrics beyond time and calls, self values (kept in a parallel array so the
// node stays one cache line). Present when the header has kDumpHasNodeMetrics.
struct DumpNodeMetrics {
  uint64_t offcpu_ns;       // time switched out while this node was on top of the stack
  uint64_t preempted_ns;    // of offcpu_ns, intervals that began with an involuntary switch
  uint64_t switches;        // context switches (voluntary and involuntary)
  uint64_t faults;          // page faults
  uint64_t alloc_calls;     // malloc, calloc, realloc, aligned allocs, operator new
  uint64_t alloc_bytes;     // bytes requested by them
  uint64_t free_calls;      // free, operator delete (non-null pointers)
  uint64_t excluded_calls;  // calls of filtered-out functions made from here (their hook cost is here)
};
static_assert(sizeof(DumpNodeMetrics) == 64);

// A node folded at run time (kNodeAutoFolded) that had calls through the hooks before.
struct DumpFoldedNode {
  uint32_t node;
  uint32_t reserved;
  uint64_t hooked_calls;  // of the node's calls, those made before the fold
};
static_assert(sizeof(DumpFoldedNode) == 16);

// A place other than its node's first call site (DumpNode::callsite) that calls on the
// node's path were made from: a caller calling one function from several lines. The node's
// own call site has the rest of its calls and time. Calls still open at the dump and calls
// from a further site once the table was full count as the first site's.
inline constexpr uint32_t kDroppedCallSite = UINT32_MAX;  // DumpCallSite::node of an entry to skip
struct DumpCallSite {
  uint32_t node;      // kDroppedCallSite: its node was pruned
  uint32_t next;      // the runtime's list of a node's sites: readers ignore it
  uint64_t callsite;  // a return address in the caller
  uint64_t calls;     // completed calls made from there (folded ones too)
  uint64_t ticks;     // their total time (a folded call's is not measured)
};
static_assert(sizeof(DumpCallSite) == 32);

// Calls of a folded function removed for the whole process that ran through its counting
// stubs in this thread (runtime/counting_stubs.h): counted, not placed on a path, and not
// timed (their time is in their callers' self).
struct DumpUnhookedCalls {
  uint64_t fn;
  uint64_t calls;
};
static_assert(sizeof(DumpUnhookedCalls) == 16);

// A frame still active at dump time; the reader closes it at the thread's end_tsc.
// Frames are listed outermost first.
inline constexpr uint32_t kOpenFrameInherited = 1;  // open in the parent at fork: no call here

struct DumpOpenFrame {
  uint32_t node;
  uint32_t flags;  // kOpenFrame*
  uint64_t entry_tsc;
  uint64_t child_ticks;  // time already spent in completed callees
};
static_assert(sizeof(DumpOpenFrame) == 24);

// `record --timeline`: the thread's ring of completed calls at least min_ticks long, the
// oldest first. The ring overwrites its oldest entry when full (counted in `dropped`).
struct DumpTimeline {
  uint32_t count;      // events that follow
  uint32_t capacity;   // the ring's size
  uint64_t dropped;    // events overwritten
  uint64_t min_ticks;  // shorter calls were not kept
  uint64_t reserved;
};
static_assert(sizeof(DumpTimeline) == 32);

struct DumpTimelineEvent {
  uint32_t node;  // the call's node in the thread's tree
  uint32_t reserved;
  uint64_t fn;  // the node's fn when the call returned (pruning may reuse node ids)
  uint64_t entry_tsc;
  uint64_t exit_tsc;
};
static_assert(sizeof(DumpTimelineEvent) == 32);

inline constexpr uint64_t pad8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

}  // namespace callprof::wire
