// Per-thread kernel events for CPU vs off-CPU time: a context-switch perf event on the
// thread itself (or, with page faults, the page-fault event, which then also reports the
// switches) writing into a small memory-mapped ring that it alone keeps alive: the program
// keeps every descriptor number. The
// hooks compare the ring's head with what they consumed (one load); when it moved, the
// records are charged to the frame on top of the shadow stack — a switched-out interval to
// the function that was running, as SPEC §1.1 describes. No system call per function call.
#pragma once

#include <stdint.h>

namespace callprof::rt {

struct ThreadState;

struct ThreadEvents {
  const volatile uint64_t* head;  // the ring's data_head, or &consumed when off
  uint64_t consumed;              // ring offset read so far
  void* page;                     // perf_event_mmap_page, then the data pages
  uint64_t ring_bytes;            // data area size, a power of two
  uint64_t out_ns;                // CLOCK_MONOTONIC time of a switch-out not yet paired
  uint32_t out_preempted;         // that switch-out was involuntary
  uint32_t state;                 // wire::kOffCpu*
  uint64_t lost;                  // records the kernel could not deliver
};

struct EventOptions {
  bool offcpu = true;
  bool faults = false;
  uint32_t ring_pages = 4;  // data pages, a power of two
};

// Opens the events for the calling thread (its state's `events`); on failure the thread
// runs without them and says so in its state.
void open_thread_events(ThreadState* s, const EventOptions& options);
// Charge what the ring holds to the top of the thread's stack. Only the owning thread.
void drain_events(ThreadState* s);
// Makes the thread's next hook run drain_events, which then follows the libraries closed
// meanwhile (closed_modules.h), at no cost to the hooks: the thread's head pointer is
// pointed at a word that never equals what it consumed. Any thread may call it.
void poke_thread(ThreadState* s);
// Release the ring (thread exit, or after fork: the ring is the parent thread's).
void close_thread_events(ThreadState* s, bool drain);
// Off-CPU time of another thread not yet charged: records it has not consumed, and a
// switch-out that has no switch-in yet (it is blocked now). Read-only.
uint64_t pending_offcpu_ns(const ThreadState* s, uint64_t now_ns);

}  // namespace callprof::rt
