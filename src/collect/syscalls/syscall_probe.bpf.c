// The kernel side of system-call tracing: eBPF programs on the syscall and scheduler
// tracepoints that time each selected call of the traced processes and hand one record per
// completed call to user space through a ring buffer (syscall_records.h).
//
// Why it looks like this:
// - Every system call of every process runs sys_enter and sys_exit, so both start with the
//   two cheapest possible filters: a bit test of the call number in one global bitmap, then
//   of the tgid in another (512 KiB, one bit per possible pid). Both are plain loads; a hash
//   lookup of the tgid measured ~60 ns per call here, paid by every process on the machine
//   that makes a selected call.
// - tp_btf (BTF-typed raw tracepoints, 5.5+) rather than raw_tracepoint: pt_regs fields (the
//   call number at exit, the user registers at entry) are direct loads instead of
//   bpf_probe_read_kernel calls.
// - The call in flight lives in task-local storage, not a tid-keyed hash: it has no
//   capacity limit, dies with the thread, and stays with the task when a non-leader thread
//   execs and takes over the leader's tid. It holds the finished record header and the
//   stack window, so exit only adds ret and end time and copies it out in one helper call.
// - Configuration that shapes the code (stack mode, window size, follow) is in .rodata: the
//   verifier sees constants, drops unused branches and accepts the record size as fixed.
// - Wakeups: records are submitted without waking the reader until the ring holds
//   cfg_wakeup_bytes; the reader polls with a timeout. One wakeup per call would cost more
//   than the call being traced.
// - Kernel stacks (full mode) are taken in sched_switch when the call first sleeps: at
//   sys_enter the kernel stack is always the same entry path, while the stack where a call
//   blocks (pipe_read, futex_wait, …) says why it took long.
// - The child's return from fork/clone fires sys_exit in the child without an entry; the
//   parent's pending call is copied to the child at sched_process_fork so both get an event.
// x86-64 only (pt_regs layout, syscall numbers of 64-bit tasks).

typedef unsigned char __u8;
typedef signed short __s16;
typedef unsigned short __u16;
typedef signed int __s32;
typedef unsigned int __u32;
typedef signed long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

// Stable UAPI values (include/uapi/linux/bpf.h), declared here so the build needs neither
// kernel headers for the BPF target nor the build machine's BTF.
enum {
  BPF_MAP_TYPE_PERCPU_ARRAY = 6,
  BPF_MAP_TYPE_STACK_TRACE = 7,
  BPF_MAP_TYPE_RINGBUF = 27,
  BPF_MAP_TYPE_TASK_STORAGE = 29,
};
enum { BPF_F_NO_PREALLOC = 1 };
enum { BPF_LOCAL_STORAGE_GET_F_CREATE = 1 };
enum { BPF_RB_NO_WAKEUP = 1, BPF_RB_FORCE_WAKEUP = 2 };
enum { BPF_RB_AVAIL_DATA = 0 };
#define EEXIST 17
#define NR_PRCTL 157
#define NR_EXIT 60
#define NR_EXIT_GROUP 231

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "syscall_records.h"
#include "wire/syscall_context.h"

// Only the fields used; CO-RE relocates them against the running kernel's BTF.
struct pt_regs {
  unsigned long r8;
  unsigned long r10;
  unsigned long dx;
  unsigned long si;
  unsigned long di;
  unsigned long bp;
  unsigned long orig_ax;
  unsigned long ip;
  unsigned long sp;
} __attribute__((preserve_access_index));

struct signal_struct {
  struct {
    int counter;
  } live;
} __attribute__((preserve_access_index));

struct mm_struct {
  unsigned long start_stack;
} __attribute__((preserve_access_index));

// The registers a perf_event program's context starts with (bpf_perf_event_data's
// bpf_user_pt_regs_t: x86-64's UAPI struct pt_regs, a fixed layout).
struct sample_regs {
  __u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct task_struct {
  int pid;
  int tgid;
  int exit_code;
  struct signal_struct *signal;
  struct mm_struct *mm;
} __attribute__((preserve_access_index));

// Newer kernels (6.18 here, not 6.1) pass sched_process_exit a group_dead argument; the
// same change added the field to the event record, which CO-RE can test for.
struct trace_event_raw_sched_process_exit___group_dead {
  bool group_dead;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 cfg_stack_mode = CALLPROF_STACKS_USER;
const volatile __u32 cfg_window_bytes = 256;
const volatile __u32 cfg_follow_children = 1;
const volatile __u64 cfg_wakeup_bytes = 2 << 20;

// Written by user space through the mmapped .bss; traced_tgids also by the fork and exit
// programs, with atomic operations on both sides.
__u64 selected_syscalls[CALLPROF_SYSCALL_MAX_NR / 64];
__u64 traced_tgids[CALLPROF_SYSCALL_MAX_PID / 64];

enum { CALL_IDLE = 0, CALL_ACTIVE = 1, CALL_SKIPPED = 2 /* the runtime's own: no record */ };

struct pending_call {
  __u32 active;  // CALL_*: between sys_enter and sys_exit
  __u32 slept;   // full mode: the kernel stack of the first sleep is taken
  // An exact-mode thread's shadow stack (wire/syscall_context.h); layout 0: none announced.
  __u64 ctx_layout;
  __u64 ctx_depth;
  __u64 ctx_frames;
  __u64 ctx_nodes;
  struct callprof_syscall_record rec;
  // The window, then the frame-pointer walk's return addresses at cfg_window_bytes: must
  // follow rec, all go out in one copy.
  __u8 window[CALLPROF_SYSCALL_MAX_WINDOW + CALLPROF_SYSCALL_USER_FRAMES * 8];
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct pending_call);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 32768);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, CALLPROF_SYSCALL_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 8 << 20);
} ring SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct callprof_syscall_counters);
} counters SEC(".maps");

#define COUNT(field)                                                               \
  do {                                                                             \
    __u32 zero_ = 0;                                                               \
    struct callprof_syscall_counters *c_ = bpf_map_lookup_elem(&counters, &zero_); \
    if (c_) c_->field++;                                                           \
  } while (0)

static __always_inline bool is_selected(unsigned long nr) {
  if (nr >= CALLPROF_SYSCALL_MAX_NR) return false;
  return (selected_syscalls[nr / 64] >> (nr % 64)) & 1;
}

// Callers bound tgid; barrier_var keeps clang from recomputing the index from the unbounded
// 64-bit pid_tgid, which the verifier would reject.
#define TGID_WORD(tgid) traced_tgids[(tgid) / 64]
#define TGID_BIT(tgid) (1ULL << ((tgid) % 64))

static __always_inline bool is_traced(__u32 tgid) {
  barrier_var(tgid);
  if (tgid >= CALLPROF_SYSCALL_MAX_PID) return false;
  return (TGID_WORD(tgid) & TGID_BIT(tgid)) != 0;
}

static __always_inline void count_stack_failure(long err) {
  if (err == -EEXIST)
    COUNT(stack_collisions);
  else
    COUNT(stack_failures);
}

// Wake the reader once, when this record makes the ring cross the threshold: a wakeup is
// an irq_work, whose APIC write is a VM exit here (~1 µs). Forcing one for every record
// above the threshold doubled the cost of a traced call while the reader was busy. A
// wakeup lost to a race between CPUs costs the reader's poll timeout, nothing more.
static __always_inline __u64 wakeup_flags(__u64 size) {
  __u64 avail = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA);
  return avail < cfg_wakeup_bytes && avail + size >= cfg_wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

// The user stack by frame pointers, walked here rather than by bpf_get_stackid: the
// kernel's walk follows whatever rbp holds, and in code without frame pointers that is
// data whose read faults, which costs ~0.9 µs per call on this VM. A frame record is only
// read where it can be one: above sp, within 8 MiB, aligned, each further out than the
// last. The caller of a leaf without a frame pointer is found from the window instead.
static __always_inline __u32 walk_frame_pointers(struct pending_call *call, __u64 sp, __u64 bp) {
  __u64 *frames = (__u64 *)(call->window + cfg_window_bytes);
  __u32 n = 0;
  for (__u32 i = 0; i < CALLPROF_SYSCALL_USER_FRAMES; i++) {
    if (bp < sp || bp - sp > (8u << 20) || (bp & 7)) break;
    __u64 record[2];  // saved rbp, return address
    if (bpf_probe_read_user(record, sizeof record, (const void *)bp) != 0 || record[1] == 0) break;
    frames[i] = record[1];
    n = i + 1;
    if (record[0] <= bp) break;
    sp = bp;
    bp = record[0];
  }
  return n;
}

static __always_inline void submit_call(struct pending_call *call) {
  __u32 size =
      sizeof(call->rec) + cfg_window_bytes + (call->rec.user_frames & (CALLPROF_SYSCALL_USER_FRAMES * 2 - 1)) * 8;
  if (size > sizeof(call->rec) + sizeof(call->window)) size = sizeof(call->rec) + sizeof(call->window);
  if (bpf_ringbuf_output(&ring, &call->rec, size, wakeup_flags(size)) == 0)
    COUNT(events);
  else
    COUNT(lost_events);
}

static __always_inline void submit_process(__u16 kind, __u32 tgid, __u32 tid, __u32 other, __s32 exit_code) {
  struct callprof_process_record r = {};
  r.kind = CALLPROF_RECORD_PROCESS;
  r.process_kind = kind;
  r.exit_code = exit_code;
  r.tgid = tgid;
  r.tid = tid;
  r.other = other;
  r.time_ns = bpf_ktime_get_ns();
  // A process exit wakes the reader at once (it may be waiting for its target to end).
  __u64 flags = kind == CALLPROF_PROCESS_EXIT ? BPF_RB_FORCE_WAKEUP : wakeup_flags(sizeof(r));
  if (bpf_ringbuf_output(&ring, &r, sizeof(r), flags) == 0)
    COUNT(process_events);
  else
    COUNT(lost_events);
}

// An exact-mode thread announces its shadow stack with a prctl no kernel defines (the call
// itself fails with EINVAL); a depth address of 0 withdraws it.
static __always_inline void note_context(struct pt_regs *regs) {
  if (!is_traced(bpf_get_current_pid_tgid() >> 32)) return;
  struct pending_call *call =
      bpf_task_storage_get(&pending, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!call) {
    COUNT(pending_failures);
    return;
  }
  __u64 layout = regs->si;
  bool usable = CALLPROF_CONTEXT_LAYOUT_VERSION(layout) == CALLPROF_CONTEXT_VERSION && regs->dx != 0;

  call->ctx_layout = usable ? layout : 0;
  call->ctx_depth = regs->dx;
  call->ctx_frames = regs->r10;
  call->ctx_nodes = regs->r8;
}

enum context_result { CONTEXT_NONE, CONTEXT_READ, CONTEXT_RUNTIME };

// The node on top of the thread's shadow stack, and its function: reads of memory the
// thread touches at every call, while it waits in the kernel (or, for a sample, while it is
// interrupted). CONTEXT_RUNTIME: the thread is in the runtime's own code (a muted thread,
// or its busy word is set).
static __always_inline enum context_result read_context(struct pending_call *call, __u32 *node_out, __u64 *fn_out) {
  __u64 layout = call->ctx_layout;
  if (layout == 0) return CONTEXT_NONE;
  if (layout & CALLPROF_CONTEXT_MUTED) return CONTEXT_RUNTIME;
  __u32 depth = 0, node = 0, busy = 0;
  __u64 fn = 0;
  __u64 busy_offset = CALLPROF_CONTEXT_BUSY_OFFSET(layout);
  if (busy_offset && bpf_probe_read_user(&busy, sizeof busy, (const void *)(call->ctx_depth + busy_offset)) == 0 &&
      busy)
    return CONTEXT_RUNTIME;
  if (bpf_probe_read_user(&depth, sizeof depth, (const void *)call->ctx_depth) != 0 || depth == 0 ||
      bpf_probe_read_user(
          &node, sizeof node,
          (const void *)(call->ctx_frames + (__u64)(depth - 1) * CALLPROF_CONTEXT_FRAME_STRIDE(layout))) != 0 ||
      bpf_probe_read_user(&fn, sizeof fn,
                          (const void *)(call->ctx_nodes + (__u64)node * CALLPROF_CONTEXT_NODE_STRIDE(layout) +
                                         CALLPROF_CONTEXT_FN_OFFSET(layout))) != 0) {
    COUNT(context_failures);
    return CONTEXT_NONE;
  }
  *node_out = node;
  *fn_out = fn;
  return CONTEXT_READ;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long nr) {
  if (nr == NR_PRCTL && regs->di == CALLPROF_CONTEXT_PRCTL) {
    note_context(regs);
    return 0;
  }
  if (!is_selected(nr)) return 0;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  if (!is_traced(pid_tgid >> 32)) return 0;

  struct pending_call *call =
      bpf_task_storage_get(&pending, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!call) {
    COUNT(pending_failures);
    return 0;
  }
  struct callprof_syscall_record *rec = &call->rec;
  rec->kind = CALLPROF_RECORD_SYSCALL;
  rec->flags = 0;
  rec->nr = nr;
  rec->tgid = pid_tgid >> 32;
  rec->tid = (__u32)pid_tgid;
  rec->ip = regs->ip;
  rec->sp = regs->sp;
  rec->bp = regs->bp;
  rec->reserved3 = 0;
  rec->kernel_stack = CALLPROF_SYSCALL_NO_STACK;
  rec->user_frames = 0;
  rec->window_bytes = 0;
  rec->context_node = 0;
  rec->context_fn = 0;
  // An exact-mode caller needs no user stack: the runtime knows the path.
  enum context_result context = read_context(call, &rec->context_node, &rec->context_fn);
  if (context == CONTEXT_READ) rec->flags |= CALLPROF_SYSCALL_CONTEXT;
  if (context == CONTEXT_RUNTIME) {
    call->active = nr == NR_EXIT || nr == NR_EXIT_GROUP ? CALL_IDLE : CALL_SKIPPED;
    return 0;
  }
  bool placed = context == CONTEXT_READ;
  if (cfg_stack_mode != CALLPROF_STACKS_NONE && !placed) rec->user_frames = walk_frame_pointers(call, rec->sp, rec->bp);
  if (cfg_window_bytes > 0 && !placed) {
    // On the main thread a large window can reach past the top of the stack's mapping:
    // copy up to where the stack began at exec (argc) then. Where that still fails (a
    // thread's stack), at least the leaf's frame, from a small window.
    __u32 n = cfg_window_bytes;
    struct mm_struct *mm = BPF_CORE_READ(bpf_get_current_task_btf(), mm);
    __u64 top = mm ? BPF_CORE_READ(mm, start_stack) : 0;
    if (top > rec->sp && top - rec->sp < n) n = (__u32)((top - rec->sp + 15) & ~7ULL);
    if (n > cfg_window_bytes) n = cfg_window_bytes;
    if (n > CALLPROF_SYSCALL_MAX_WINDOW) n = CALLPROF_SYSCALL_MAX_WINDOW;  // for the verifier
    if (bpf_probe_read_user(call->window, n, (const void *)rec->sp) == 0)
      rec->window_bytes = n;
    else if (n > 256 && bpf_probe_read_user(call->window, 256, (const void *)rec->sp) == 0)
      rec->window_bytes = 256;
    else
      COUNT(window_failures);
  }
  call->slept = 0;
  rec->start_ns = bpf_ktime_get_ns();  // after the stack work, which is ours, not the call's

  if (nr == NR_EXIT || nr == NR_EXIT_GROUP) {  // no sys_exit will come
    rec->flags |= CALLPROF_SYSCALL_NO_RETURN;
    rec->ret = 0;
    rec->end_ns = rec->start_ns;
    call->active = CALL_IDLE;
    submit_call(call);
    return 0;
  }
  call->active = CALL_ACTIVE;
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret) {
  // rt_sigreturn restores orig_ax to -1: such exits skip the bitmap and find their entry.
  unsigned long nr = regs->orig_ax;
  bool in_range = nr < CALLPROF_SYSCALL_MAX_NR;
  if (in_range && !is_selected(nr)) return 0;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  if (!is_traced(pid_tgid >> 32)) return 0;
  __u64 end = bpf_ktime_get_ns();

  struct pending_call *call = bpf_task_storage_get(&pending, bpf_get_current_task_btf(), 0, 0);
  if (!call || call->active == CALL_IDLE) {
    if (in_range) COUNT(unpaired_exits);
    return 0;
  }
  bool skipped = call->active == CALL_SKIPPED;
  call->active = CALL_IDLE;
  if (skipped) return 0;
  // From the exiting task: a forked child reports itself, an exec'ing thread its new tid.
  call->rec.tgid = pid_tgid >> 32;
  call->rec.tid = (__u32)pid_tgid;
  call->rec.ret = ret;
  call->rec.end_ns = end;
  submit_call(call);
  return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
  if (preempt || prev_state == 0) return 0;  // only voluntary sleeps (TASK_RUNNING == 0)
  struct pending_call *call = bpf_task_storage_get(&pending, prev, 0, 0);
  if (!call || call->active != CALL_ACTIVE || call->slept) return 0;
  call->slept = 1;
  long id = bpf_get_stackid(ctx, &stacks, 0);  // prev is still current here
  call->rec.kernel_stack = id;
  if (id < 0) count_stack_failure(id);
  return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_process_fork, struct task_struct *parent, struct task_struct *child) {
  __u32 tgid = parent->tgid;
  if (!is_traced(tgid)) return 0;
  __u32 child_tgid = child->tgid;
  __u32 child_tid = child->pid;
  bool thread = child_tgid == tgid;
  bool followed = thread || (cfg_follow_children && child_tgid < CALLPROF_SYSCALL_MAX_PID);
  if (!thread && followed) __sync_fetch_and_or(&TGID_WORD(child_tgid), TGID_BIT(child_tgid));
  if (followed) {
    struct pending_call *call = bpf_task_storage_get(&pending, parent, 0, 0);
    if (call && call->active) {
      struct pending_call *copy = bpf_task_storage_get(&pending, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
      if (copy) {
        bpf_probe_read_kernel(copy, sizeof(*copy), call);
        if (thread) copy->ctx_layout = 0;  // another stack: the new thread announces its own
      } else
        COUNT(pending_failures);
    }
  }
  submit_process(thread ? CALLPROF_PROCESS_THREAD_START : CALLPROF_PROCESS_FORK, tgid, parent->pid,
                 thread ? child_tid : child_tgid, 0);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_process_exec, struct task_struct *task, int old_pid) {
  __u32 tgid = task->tgid;
  if (!is_traced(tgid)) return 0;
  struct pending_call *call = bpf_task_storage_get(&pending, task, 0, 0);
  if (call) call->ctx_layout = 0;  // the announced memory went with the old image
  submit_process(CALLPROF_PROCESS_EXEC, tgid, task->pid, old_pid, 0);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int on_process_exit(unsigned long long *ctx) {
  struct task_struct *task = (struct task_struct *)ctx[0];
  __u32 tgid = task->tgid;
  if (!is_traced(tgid)) return 0;
  bool group_dead;
  // signal->live is decremented before the tracepoint, so two threads exiting together can
  // both see 0; the argument, where the kernel has it, is exact.
  if (bpf_core_field_exists(struct trace_event_raw_sched_process_exit___group_dead, group_dead))
    group_dead = ctx[1] & 1;
  else
    group_dead = task->signal->live.counter == 0;
  submit_process(group_dead ? CALLPROF_PROCESS_EXIT : CALLPROF_PROCESS_THREAD_EXIT, tgid, task->pid, 0,
                 task->exit_code);
  if (group_dead) __sync_fetch_and_and(&TGID_WORD(tgid), ~TGID_BIT(tgid));
  return 0;
}

// Exact mode with samples: a CPU-clock event on every CPU runs this at each tick of a
// traced thread. It records where the thread is (the user ip: in the kernel, where it
// entered) and the node on top of its shadow stack, so the sample is placed under the very
// node that was current, with no unwinding.
SEC("perf_event")
int on_sample(struct sample_regs *ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (!is_traced(tgid)) return 0;
  struct callprof_sample_record r = {};
  r.kind = CALLPROF_RECORD_SAMPLE;
  r.tgid = tgid;
  r.tid = (__u32)pid_tgid;
  r.time_ns = bpf_ktime_get_ns();
  struct task_struct *task = bpf_get_current_task_btf();
  if (ctx->cs & 3) {
    r.ip = ctx->ip;
  } else {
    struct pt_regs *user = (struct pt_regs *)bpf_task_pt_regs(task);
    r.ip = user ? BPF_CORE_READ(user, ip) : 0;
    r.flags |= CALLPROF_SAMPLE_KERNEL;
  }
  struct pending_call *call = bpf_task_storage_get(&pending, task, 0, 0);
  enum context_result context = call ? read_context(call, &r.context_node, &r.context_fn) : CONTEXT_NONE;
  if (context == CONTEXT_READ) r.flags |= CALLPROF_SAMPLE_CONTEXT;
  if (context == CONTEXT_RUNTIME) r.flags |= CALLPROF_SAMPLE_RUNTIME;
  if (bpf_ringbuf_output(&ring, &r, sizeof(r), wakeup_flags(sizeof(r))) == 0)
    COUNT(samples);
  else
    COUNT(lost_events);
  return 0;
}
