// Opening and draining the per-thread context-switch ring (see thread_events.h).
#include "thread_events.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "closed_modules.h"
#include "process.h"
#include "raw_syscall.h"

namespace callprof::rt {
namespace {

int perf_event_open(perf_event_attr* attr) {
  return int(sys::call(SYS_perf_event_open, sys::p(attr), 0 /* this thread */, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Records carry only their time (sample_id_all with PERF_SAMPLE_TIME): 16 bytes each.
perf_event_attr base_attr(uint64_t config) {
  perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.sample_type = PERF_SAMPLE_TIME;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.exclude_kernel = 1;  // allowed without privileges; switches are still reported
  a.exclude_hv = 1;
  return a;
}

perf_event_mmap_page* ring_page(const ThreadEvents& e) { return static_cast<perf_event_mmap_page*>(e.page); }

// Copies the record at `offset` (it may wrap around the ring's end) into `out`.
void read_record(const ThreadEvents& e, uint64_t offset, void* out, uint32_t bytes) {
  const char* data = static_cast<const char*>(e.page) + 4096;
  uint64_t at = offset & (e.ring_bytes - 1);
  uint64_t first = e.ring_bytes - at < bytes ? e.ring_bytes - at : bytes;
  memcpy(out, data + at, first);
  memcpy(static_cast<char*>(out) + first, data, bytes - first);
}

struct Record {
  perf_event_header header;
  uint64_t body[6];  // our records are at most 24 bytes after the header
};

// The time a record carries: its sample_id (switch) or the sample (fault), the only field.
uint64_t record_time(const Record& r) { return r.header.size >= sizeof r.header + 8 ? r.body[0] : 0; }

}  // namespace

void open_thread_events(ThreadState* s, const EventOptions& o) {
  ThreadEvents& e = s->events;
  e = ThreadEvents{&e.consumed, 0, nullptr, 0, 0, 0, wire::kOffCpuOff, 0};
  e.head = &e.consumed;
  if (!o.offcpu) return;
  e.state = wire::kOffCpuUnavailable;
  // One event, mapped and then closed: with faults it is the page-fault event, which reports
  // the switches too (a second event redirected into this ring would need its descriptor
  // kept open, and under a low RLIMIT_NOFILE the program would miss it).
  perf_event_attr attr = base_attr(o.faults ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_DUMMY);
  attr.context_switch = 1;
  if (o.faults) attr.sample_period = 1;
  int fd = perf_event_open(&attr);
  if (fd < 0 && o.faults) {  // no fault events here: switches alone
    attr = base_attr(PERF_COUNT_SW_DUMMY);
    attr.context_switch = 1;
    fd = perf_event_open(&attr);
  }
  if (fd < 0) return;
  uint64_t ring = uint64_t(o.ring_pages) * 4096;
  void* m = sys::mmap(nullptr, 4096 + ring, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
  if (!m) {
    sys::close(fd);
    return;
  }
  sys::close(fd);  // the mapping keeps the event alive, and the program keeps its descriptors
  e.page = m;
  e.ring_bytes = ring;
  e.consumed = __atomic_load_n(&ring_page(e)->data_head, __ATOMIC_ACQUIRE);
  e.head = reinterpret_cast<const volatile uint64_t*>(&ring_page(e)->data_head);
  e.state = wire::kOffCpuMeasured;
}

namespace {
const volatile uint64_t g_poked_head = UINT64_MAX;  // no ring offset reaches it
}  // namespace

void poke_thread(ThreadState* s) { __atomic_store_n(&s->events.head, &g_poked_head, __ATOMIC_SEQ_CST); }

void drain_events(ThreadState* s) {
  ThreadEvents& e = s->events;
  if (__atomic_load_n(&e.head, __ATOMIC_SEQ_CST) == &g_poked_head) {
    // Back to the real head first: a poke that comes after this is seen at the next hook.
    const volatile uint64_t* real =
        e.page ? reinterpret_cast<const volatile uint64_t*>(&ring_page(e)->data_head) : &e.consumed;
    __atomic_store_n(&e.head, real, __ATOMIC_SEQ_CST);
    follow_closed_modules(s);
  }
  if (!e.page) return;
  perf_event_mmap_page* pg = ring_page(e);
  const uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
  DumpNodeMetrics* m = s->profile.top_metrics();
  DumpNodeMetrics ignored{};
  if (!m) m = &ignored;
  for (uint64_t at = e.consumed; at < head;) {
    Record r;
    read_record(e, at, &r.header, sizeof r.header);
    if (r.header.size < sizeof r.header) break;  // cannot happen; never loop forever
    read_record(e, at, &r, r.header.size <= sizeof r ? r.header.size : sizeof r);
    at += r.header.size;
    if (r.header.type == PERF_RECORD_SWITCH) {
      uint64_t t = record_time(r);
      if (r.header.misc & PERF_RECORD_MISC_SWITCH_OUT) {
        e.out_ns = t;
        e.out_preempted = (r.header.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        ++m->switches;
      } else if (e.out_ns != 0 && t > e.out_ns) {
        m->offcpu_ns += t - e.out_ns;
        if (e.out_preempted) m->preempted_ns += t - e.out_ns;
        e.out_ns = 0;
      }
    } else if (r.header.type == PERF_RECORD_SAMPLE) {
      ++m->faults;
    } else if (r.header.type == PERF_RECORD_LOST) {
      e.lost += r.body[1];  // {id, lost}
      e.out_ns = 0;         // the pairing is broken
    }
  }
  e.consumed = head;
  __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

void close_thread_events(ThreadState* s, bool drain) {
  ThreadEvents& e = s->events;
  if (drain) drain_events(s);
  if (e.page) sys::munmap(e.page, 4096 + e.ring_bytes);
  e.page = nullptr;
  e.head = &e.consumed;
}

uint64_t pending_offcpu_ns(const ThreadState* s, uint64_t now_ns) {
  const ThreadEvents& e = s->events;
  if (!e.page) return 0;
  const uint64_t head = __atomic_load_n(&ring_page(e)->data_head, __ATOMIC_ACQUIRE);
  uint64_t out = e.out_ns, total = 0;
  for (uint64_t at = e.consumed; at < head;) {
    Record r;
    read_record(e, at, &r.header, sizeof r.header);
    if (r.header.size < sizeof r.header) break;
    read_record(e, at, &r, r.header.size <= sizeof r ? r.header.size : sizeof r);
    at += r.header.size;
    if (r.header.type != PERF_RECORD_SWITCH) continue;
    uint64_t t = record_time(r);
    if (r.header.misc & PERF_RECORD_MISC_SWITCH_OUT)
      out = t;
    else if (out != 0 && t > out)
      total += t - out, out = 0;
  }
  if (out != 0 && now_ns > out) total += now_ns - out;
  return total;
}

}  // namespace callprof::rt
