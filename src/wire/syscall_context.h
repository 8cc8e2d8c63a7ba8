/* How an exact-mode thread tells the system-call probe (--syscalls) where its shadow stack
 * is, so that every traced call is placed under the instrumented function that made it,
 * with no unwinding (docs/syscalls-collection.md, "Exact callers").
 *
 * The runtime announces each thread with
 *   prctl(CALLPROF_CONTEXT_PRCTL, layout, depth_address, frames_address, nodes_address)
 * an option no kernel defines, so the call fails with EINVAL and changes nothing; the probe
 * sees it at sys_enter and keeps the addresses with the task. A call with depth_address 0
 * withdraws them (the thread's memory is going away). At each traced call the probe reads,
 * from the calling thread's memory (the thread is in the kernel, so nothing moves):
 *   depth = *(u32 *)depth_address                       frames on the shadow stack, root included
 *   node  = *(u32 *)(frames_address + (depth - 1) * frame_stride)   the top frame's node
 *   fn    = *(u64 *)(nodes_address + node * node_stride + fn_offset) that node's function
 * The function lets the builder tell a node id reused after pruning from the one it was.
 * While the thread's busy word (at depth_address + busy_offset) is set, the thread is in
 * the runtime's own code (writing its data): the probe records none of those calls. A
 * thread of the runtime's own (the snapshot thread) announces itself as muted.
 * Plain C: the eBPF program includes it too. */
#ifndef CALLPROF_WIRE_SYSCALL_CONTEXT_H
#define CALLPROF_WIRE_SYSCALL_CONTEXT_H

#define CALLPROF_CONTEXT_PRCTL 0x43505258UL /* "CPRX" */
#define CALLPROF_CONTEXT_VERSION 1UL

/* layout: version | frame_stride << 8 | node_stride << 24 | fn_offset << 40 | busy_offset << 48 */
#define CALLPROF_CONTEXT_LAYOUT(frame_stride, node_stride, fn_offset, busy_offset)                          \
  (CALLPROF_CONTEXT_VERSION | ((unsigned long)(frame_stride) << 8) | ((unsigned long)(node_stride) << 24) | \
   ((unsigned long)(fn_offset) << 40) | ((unsigned long)(busy_offset) << 48))
#define CALLPROF_CONTEXT_MUTED (1UL << 63) /* with the version alone: none of the thread's calls */
#define CALLPROF_CONTEXT_LAYOUT_VERSION(layout) ((layout)&0xff)
#define CALLPROF_CONTEXT_FRAME_STRIDE(layout) (((layout) >> 8) & 0xffff)
#define CALLPROF_CONTEXT_NODE_STRIDE(layout) (((layout) >> 24) & 0xffff)
#define CALLPROF_CONTEXT_FN_OFFSET(layout) (((layout) >> 40) & 0xff)
#define CALLPROF_CONTEXT_BUSY_OFFSET(layout) (((layout) >> 48) & 0x7fff)

#endif /* CALLPROF_WIRE_SYSCALL_CONTEXT_H */
