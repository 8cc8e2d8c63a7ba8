// The ring-buffer records and counters shared by the eBPF probe (syscall_probe.bpf.c, C)
// and its loader (syscall_tracer.cpp, C++). Plain C with kernel integer types so both
// compilers see one layout; every field is naturally aligned, so no packing is needed.
#ifndef CALLPROF_COLLECT_SYSCALLS_SYSCALL_RECORDS_H
#define CALLPROF_COLLECT_SYSCALLS_SYSCALL_RECORDS_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CALLPROF_SYSCALL_MAX_NR 1024       /* bits in the selection bitmap */
#define CALLPROF_SYSCALL_MAX_PID (1 << 22) /* PID_MAX_LIMIT on 64-bit: bits in the traced-tgid bitmap */
#define CALLPROF_SYSCALL_MAX_WINDOW 8192   /* user stack bytes copied at entry, at most */
#define CALLPROF_SYSCALL_STACK_DEPTH 127   /* PERF_MAX_STACK_DEPTH: frames per stack map entry */
#define CALLPROF_SYSCALL_NO_STACK (-1)     /* stack id: not asked for, or the call never slept */
#define CALLPROF_SYSCALL_USER_FRAMES 32    /* return addresses of the probe's frame-pointer walk, at most */

enum callprof_record_kind {
  CALLPROF_RECORD_SYSCALL = 1,
  CALLPROF_RECORD_PROCESS = 2,
  CALLPROF_RECORD_SAMPLE = 3,
};

enum callprof_syscall_flags {
  CALLPROF_SYSCALL_NO_RETURN = 1, /* exit/exit_group: emitted at entry, end == start */
  CALLPROF_SYSCALL_CONTEXT = 2,   /* context_node/context_fn hold the exact-mode caller: no stack */
};

enum callprof_stack_mode {
  CALLPROF_STACKS_NONE = 0,
  CALLPROF_STACKS_USER = 1,
  CALLPROF_STACKS_FULL = 2, /* user stack at entry and kernel stack where the call first slept */
};

enum callprof_process_kind {
  CALLPROF_PROCESS_FORK = 1,         /* a traced process created a process: other = child pid */
  CALLPROF_PROCESS_THREAD_START = 2, /* a traced process created a thread: other = new tid */
  CALLPROF_PROCESS_EXEC = 3,         /* other = the tid that called execve (before de_thread) */
  CALLPROF_PROCESS_THREAD_EXIT = 4,  /* a thread ended, others live on */
  CALLPROF_PROCESS_EXIT = 5,         /* the last thread ended: the process is gone */
};

/* One completed system call, followed by the configured window size of user stack bytes
 * from sp (valid: window_bytes of them), then user_frames return addresses. */
struct callprof_syscall_record {
  __u16 kind; /* CALLPROF_RECORD_SYSCALL */
  __u16 flags;
  __u16 window_bytes; /* valid bytes after the header (0 when the copy failed) */
  __u16 user_frames;  /* return addresses after the window, innermost first (the ip is not one) */
  __u32 tgid;
  __u32 tid;
  __u32 nr;
  __s32 reserved3;    /* user stacks come as user_frames, not as stack ids */
  __s32 kernel_stack; /* likewise */
  __u32 context_node; /* CALLPROF_SYSCALL_CONTEXT: the runtime's node on top of the shadow stack */
  __s64 ret;
  __u64 start_ns; /* CLOCK_MONOTONIC */
  __u64 end_ns;
  __u64 ip; /* user registers at entry */
  __u64 sp;
  __u64 bp;
  __u64 context_fn; /* CALLPROF_SYSCALL_CONTEXT: that node's function (see wire/syscall_context.h) */
};

enum callprof_sample_flags {
  CALLPROF_SAMPLE_CONTEXT = 1, /* context_node/context_fn hold the exact-mode node on top */
  CALLPROF_SAMPLE_RUNTIME = 2, /* the thread was in the runtime's own code (busy word set, or muted) */
  CALLPROF_SAMPLE_KERNEL = 4,  /* the CPU was in the kernel: ip is where the thread entered it */
};

/* A CPU-clock sample of a traced thread (exact mode with samples): where the thread was,
 * and the node on top of its shadow stack then. */
struct callprof_sample_record {
  __u16 kind; /* CALLPROF_RECORD_SAMPLE */
  __u16 flags;
  __u32 context_node;
  __u32 tgid;
  __u32 tid;
  __u64 time_ns; /* CLOCK_MONOTONIC */
  __u64 ip;      /* user instruction pointer (0: unknown) */
  __u64 context_fn;
};

struct callprof_process_record {
  __u16 kind; /* CALLPROF_RECORD_PROCESS */
  __u16 process_kind;
  __s32 exit_code; /* THREAD_EXIT/EXIT: the task's exit code as wait() encodes it */
  __u32 tgid;
  __u32 tid;
  __u32 other;
  __u32 reserved;
  __u64 time_ns;
};

/* Per-CPU; user space sums them. Every way an event can go missing has a counter. */
struct callprof_syscall_counters {
  __u64 events;           /* syscall records submitted */
  __u64 process_events;   /* process records submitted */
  __u64 lost_events;      /* ring full: a record (either kind) was dropped */
  __u64 stack_failures;   /* bpf_get_stackid failed other than by a collision */
  __u64 stack_collisions; /* -EEXIST: the stack's bucket holds another stack (map too small) */
  __u64 pending_failures; /* no per-thread storage at entry: the call was not recorded */
  __u64 unpaired_exits;   /* exit of a selected call without its entry (began before tracing) */
  __u64 window_failures;  /* the user stack window could not be read */
  __u64 context_failures; /* a thread announced its shadow stack but it could not be read */
  __u64 samples;          /* sample records submitted */
};

#endif /* CALLPROF_COLLECT_SYSCALLS_SYSCALL_RECORDS_H */
