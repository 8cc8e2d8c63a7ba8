// Runtime start-up, per-thread memory, the thread registry and fork handling.
#include "process.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"

namespace callprof::rt {

__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

ProcessInfo g_process;
ThreadState* g_threads = nullptr;   // lock-free push-only list
pthread_key_t g_exit_key;
uint32_t g_node_capacity = 1u << 20;
uint32_t g_frame_capacity = 1u << 16;
// Signal handlers that interrupt a hook are rare and shallow: a small second tree.
constexpr uint32_t kInterruptNodes = 1u << 14;
constexpr uint32_t kInterruptFrames = 1u << 10;
int g_init_state = 0;               // 0 none, 1 running, 2 done

uint32_t env_u32(const char* name, uint32_t fallback, uint32_t lo, uint32_t hi) {
  const char* v = getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long n = strtoul(v, &end, 10);
  if (*end || n < lo || n > hi) return fallback;
  return uint32_t(n);
}

void on_thread_exit(void* p) { finish_thread(static_cast<ThreadState*>(p), true); }

void after_fork_in_child() {
  ThreadState* self = t_state;
  uint64_t now = ticks();
  // Other threads do not exist in the child; their memory is the parent's copy.
  for (ThreadState* s = g_threads; s; s = s->next)
    if (s != self) munmap(s->mapping, s->mapping_bytes);
  g_threads = nullptr;
  g_process.ppid = g_process.pid;
  g_process.pid = uint32_t(getpid());
  calibration_pair(CLOCK_MONOTONIC, &g_process.tsc_start, &g_process.mono_start_ns);
  g_process.realtime_start_ns = int64_t(clock_ns(CLOCK_REALTIME));
  if (!self) return;
  self->profile.restart(now);
  self->interrupts.restart(now);
  self->start_tsc = now;
  self->tid = uint32_t(gettid());
  self->creator_tid = 0;
  self->creator_node = UINT32_MAX;
  self->next = nullptr;
  g_threads = self;
}

void initialize() {
  const char* dir = getenv("CALLPROF_OUTPUT_DIR");
  g_process.enabled = dir && *dir && strlen(dir) < sizeof g_process.output_dir;
  if (!g_process.enabled) return;
  strcpy(g_process.output_dir, dir);
  g_node_capacity = env_u32("CALLPROF_MAX_NODES", g_node_capacity, 1024, 1u << 28);  // index: 2^29 slots max
  g_frame_capacity = env_u32("CALLPROF_MAX_DEPTH", g_frame_capacity, 64, 1u << 24);
  g_process.pid = uint32_t(getpid());
  g_process.ppid = uint32_t(getppid());
  calibration_pair(CLOCK_MONOTONIC, &g_process.tsc_start, &g_process.mono_start_ns);
  g_process.realtime_start_ns = int64_t(clock_ns(CLOCK_REALTIME));
  pthread_key_create(&g_exit_key, on_thread_exit);
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
}

uint64_t page_round(uint64_t n) { return (n + 4095) & ~uint64_t(4095); }

}  // namespace

const ProcessInfo& process() { return g_process; }
ThreadState* first_thread() { return __atomic_load_n(&g_threads, __ATOMIC_ACQUIRE); }

void ensure_initialized() {
  int expected = 0;
  if (__atomic_compare_exchange_n(&g_init_state, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    initialize();
    __atomic_store_n(&g_init_state, 2, __ATOMIC_RELEASE);
  }
  while (__atomic_load_n(&g_init_state, __ATOMIC_ACQUIRE) != 2) sched_yield();
}

namespace {

// Carves one thread profile's memory out of a reservation; returns the bytes used.
uint64_t carve(char* at, uint32_t nodes, uint32_t frames, ThreadMemory* mem) {
  uint64_t slots = slot_count_for(nodes);
  uint64_t frame_bytes = page_round(frames * sizeof(Frame));
  uint64_t slot_bytes = page_round(slots * sizeof(NodeSlot));
  if (mem) {
    *mem = ThreadMemory{reinterpret_cast<DumpNode*>(at + frame_bytes + slot_bytes), nodes,
                        reinterpret_cast<NodeSlot*>(at + frame_bytes), uint32_t(slots),
                        reinterpret_cast<Frame*>(at), frames};
  }
  return frame_bytes + slot_bytes + page_round(nodes * sizeof(DumpNode));
}

// A thread's reservation holds: its state, the interrupt tree, then the main tree (frames,
// index, nodes last so that a finished thread can give back everything after them).
uint64_t main_tree_offset() {
  return page_round(sizeof(ThreadState)) + carve(nullptr, kInterruptNodes, kInterruptFrames, nullptr);
}

}  // namespace

ThreadState* attach_thread() {
  ensure_initialized();
  if (!g_process.enabled) return nullptr;
  const uint64_t main_tree = main_tree_offset();
  uint64_t bytes = main_tree + carve(nullptr, g_node_capacity, g_frame_capacity, nullptr);
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(m);
  ThreadState* s = reinterpret_cast<ThreadState*>(base);
  ThreadMemory main_mem, interrupt_mem;
  carve(base + page_round(sizeof(ThreadState)), kInterruptNodes, kInterruptFrames, &interrupt_mem);
  carve(base + main_tree, g_node_capacity, g_frame_capacity, &main_mem);

  s->start_tsc = ticks();
  s->profile.init(main_mem, s->start_tsc);
  s->interrupts.init(interrupt_mem, s->start_tsc);
  s->tid = uint32_t(gettid());
  s->creator_node = UINT32_MAX;
  s->mapping = m;
  s->mapping_bytes = bytes;
  s->next = __atomic_load_n(&g_threads, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&g_threads, &s->next, s, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
  pthread_setspecific(g_exit_key, s);
  t_state = s;
  return s;
}

void finish_thread(ThreadState* s, bool release) {
  if (!s) return;
  s->busy = 1;
  uint64_t now = ticks();
  s->profile.unwind_all(now);
  s->interrupts.unwind_all(now);
  s->end_tsc = now;
  prctl(PR_GET_NAME, s->name, 0, 0, 0);
  __atomic_store_n(&s->finished, 1u, __ATOMIC_RELEASE);
  if (release && t_state == s) {
    // Keep the nodes (the dump needs them) and give back the main stack and index pages.
    t_state = nullptr;
    pthread_setspecific(g_exit_key, nullptr);
    char* base = static_cast<char*>(s->mapping);
    char* frames = base + main_tree_offset();
    const char* nodes = reinterpret_cast<const char*>(s->profile.nodes());
    madvise(frames, uint64_t(nodes - frames), MADV_DONTNEED);
    char* nodes_end = base + page_round(uint64_t(nodes - base) + s->profile.node_count() * sizeof(DumpNode));
    if (nodes_end < base + s->mapping_bytes) munmap(nodes_end, uint64_t(base + s->mapping_bytes - nodes_end));
    s->mapping_bytes = uint64_t(nodes_end - base);
  }
  s->busy = 0;
}

}  // namespace callprof::rt
