// Writes this process image's raw dump (wire/raw_dump.h) into the output directory that
// `callprof record` gave us. Runs at exit, so it may use system calls, but it calls
// nothing the program may define (the program's allocator may be torn down, and its own
// write or open would be profiled): raw system calls, no stdio. It also runs in a crash
// handler, perhaps on a small alternate stack of the program's: its buffers are static
// (dumps are serialised by lock_dumps), its stack frames small.
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>

#include "clock.h"
#include "closed_modules.h"
#include "code_patch.h"
#include "context_store.h"
#include "hook_removal.h"
#include "libcalls.h"
#include "module_walk.h"
#include "near_code.h"
#include "patched_sites.h"
#include "path_text.h"
#include "process.h"
#include "raw_syscall.h"
#include "snapshots.h"

namespace callprof::rt {
namespace {

constexpr uint64_t kOutputBytes = 8192;
char g_output_buffer[kOutputBytes];  // one dump at a time (lock_dumps)

// Buffered write to a file descriptor; on the first failure it stops writing and remembers.
class Output {
 public:
  explicit Output(int fd) : fd_(fd) {}
  void put(const void* data, uint64_t n) {
    const char* p = static_cast<const char*>(data);
    if (n >= kOutputBytes) {
      flush();
      raw(p, n);
      return;
    }
    if (used_ + n > kOutputBytes) flush();
    memcpy(buf_ + used_, p, n);
    used_ += n;
  }
  void pad_to_8(uint64_t n) {
    static const char zeros[8] = {};
    put(zeros, wire::pad8(n) - n);
  }
  bool finish() {
    flush();
    return ok_;
  }

 private:
  void flush() {
    raw(buf_, used_);
    used_ = 0;
  }
  void raw(const char* p, uint64_t n) {
    while (ok_ && n > 0) {
      const long w = sys::write(fd_, p, n);
      if (w <= 0) {
        ok_ = false;
        return;
      }
      p += w;
      n -= uint64_t(w);
    }
  }
  int fd_;
  bool ok_ = true;
  uint64_t used_ = 0;
  char* buf_ = g_output_buffer;
};

int open_for_writing(const char* path) { return int(sys::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)); }

struct ModuleScan {
  Output* out;
  uint32_t count;
  bool write;
};

bool usable_module(const dl_phdr_info* info) {
  // The vDSO has no file; everything else with a load segment is kept.
  return strstr(info->dlpi_name, "linux-vdso") == nullptr && info->dlpi_phnum > 0;
}

uint32_t build_id_of(const dl_phdr_info* info, const unsigned char** id) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((n->n_namesz + 3) & ~3u);  // note fields are 4-byte aligned
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        *id = reinterpret_cast<const unsigned char*>(desc);
        return n->n_descsz;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 0;
}

}  // namespace

wire::DumpModule describe_module(const dl_phdr_info* info, const unsigned char** build_id) {
  wire::DumpModule m{};
  m.bias = info->dlpi_addr;
  m.start = UINT64_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uint64_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
    if (lo < m.start) m.start = lo;
    if (hi > m.end) m.end = hi;
  }
  m.build_id_bytes = build_id_of(info, build_id);
  return m;
}

namespace {

int write_module(dl_phdr_info* info, size_t, void* data) {
  auto* scan = static_cast<ModuleScan*>(data);
  if (!usable_module(info)) return 0;
  ++scan->count;
  if (!scan->write) return 0;
  const unsigned char* id = nullptr;
  wire::DumpModule m = describe_module(info, &id);
  // The main program has an empty name; the kernel knows its path.
  static char exe[4096];
  const char* path = info->dlpi_name;
  if (!*path) {
    const long n = sys::readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    path = exe;
  }
  m.path_bytes = uint32_t(strlen(path));
  scan->out->put(&m, sizeof m);
  scan->out->put(path, m.path_bytes);
  scan->out->put(id, m.build_id_bytes);
  scan->out->pad_to_8(m.path_bytes + m.build_id_bytes);
  return 0;
}

// The runtime's code near the modules (near_code.h), as modules named wire::kStubModulePath.
void write_stub_modules(Output& out, const NearCodeArea* areas, uint32_t count) {
  const uint32_t path_bytes = sizeof wire::kStubModulePath - 1;
  for (uint32_t i = 0; i < count; ++i) {
    const wire::DumpModule m{0, areas[i].start, areas[i].end, path_bytes, 0};
    out.put(&m, sizeof m);
    out.put(wire::kStubModulePath, path_bytes);
    out.pad_to_8(path_bytes);
  }
}

// Does a loaded object cover any of [start, end)?
struct Overlap {
  uint64_t start, end;
  bool found;
};
int overlaps_live(dl_phdr_info* info, size_t, void* data) {
  auto* o = static_cast<Overlap*>(data);
  if (!usable_module(info)) return 0;
  const unsigned char* id = nullptr;
  const wire::DumpModule m = describe_module(info, &id);
  if (m.start < o->end && o->start < m.end) o->found = true;
  return o->found ? 1 : 0;
}

// Libraries unloaded so far whose addresses no loaded object has taken since: flags in
// `keep` (one per closed module, at most `cap`), and how many.
uint32_t kept_closed_modules(bool* keep, uint32_t cap) {
  uint32_t n = 0;
  const uint32_t closed = closed_module_count();
  for (uint32_t i = 0; i < closed && i < cap; ++i) {
    Overlap o{closed_module(i).module.start, closed_module(i).module.end, false};
    walk_modules(overlaps_live, &o);
    keep[i] = !o.found;
    n += keep[i];
  }
  for (uint32_t i = closed; i < cap; ++i) keep[i] = false;
  return n;
}

// The retired copies of the closed modules (closed_modules.h): where their nodes went.
uint32_t write_retired_modules(Output* out, uint32_t closed) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < closed; ++i) {
    wire::DumpModule m;
    if (!retired_module(i, &m)) continue;
    ++n;
    if (!out) continue;
    const ClosedModule& c = closed_module(i);
    out->put(&m, sizeof m);
    out->put(c.path, m.path_bytes);
    out->put(c.build_id, m.build_id_bytes);
    out->pad_to_8(m.path_bytes + m.build_id_bytes);
  }
  return n;
}

void write_closed_modules(Output& out, const bool* keep, uint32_t cap) {
  for (uint32_t i = 0; i < cap; ++i) {
    if (!keep[i]) continue;
    const ClosedModule& c = closed_module(i);
    out.put(&c.module, sizeof c.module);
    out.put(c.path, c.module.path_bytes);
    out.put(c.build_id, c.module.build_id_bytes);
    out.pad_to_8(c.module.path_bytes + c.module.build_id_bytes);
  }
}

uint32_t read_cmdline(char* buf, uint32_t cap) {
  const int fd = int(sys::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return 0;
  const long n = sys::read(fd, buf, cap);
  sys::close(fd);
  return n > 0 ? uint32_t(n) : 0;
}

void read_thread_name(const ThreadState& s, char* name, uint32_t cap);

// A thread's calls through counting stubs, read once (its stubs may go on counting while
// the dump is written): one dump at a time (lock_dumps). Attached, the counts as the window
// closed; a thread that had none then (its state made since) made its calls after it.
wire::DumpUnhookedCalls g_unhooked[kExclusionSlots];
uint32_t read_unhooked_calls(const ThreadState& s) {
  const bool closed = __atomic_load_n(&s.unhooked_closed, __ATOMIC_ACQUIRE) != 0;
  if (!closed && __atomic_load_n(&g_window_closing, __ATOMIC_ACQUIRE)) return 0;
  uint32_t n = 0;
  for (uint32_t i = 0, removed = removed_function_count(); i < removed; ++i) {
    const uint64_t fn = removed_function(i).fn;
    const uint64_t calls = !fn      ? 0
                           : closed ? s.unhooked_at_close[i]
                                    : __atomic_load_n(&s.unhooked_calls[i], __ATOMIC_RELAXED);
    if (calls != 0) g_unhooked[n++] = {fn, calls};
  }
  return n;
}

// `own`: the calling thread's state (no other thread tears it down; if this dump
// interrupted its own teardown, its ring is left alone).
void write_thread(Output& out, ThreadState& s, uint64_t now, uint64_t now_ns, bool final, bool own) {
  const ThreadProfile& p = s.profile;
  wire::DumpThread t{};
  bool exited_before = __atomic_load_n(&s.finished, __ATOMIC_ACQUIRE);
  const bool ring_usable = !exited_before && !__atomic_load_n(&s.tearing_down, __ATOMIC_ACQUIRE);
  if (own && ring_usable) drain_events(&s);
  // A thread that ended has no next hook to move its nodes of closed libraries; dumps are
  // written one at a time, so here nobody else touches them.
  if (own || exited_before) follow_closed_modules(&s);
  memcpy(t.name, s.name, sizeof t.name);
  if (!exited_before) read_thread_name(s, t.name, sizeof t.name);
  t.tid = s.tid;
  t.creator_tid = s.creator_tid;
  t.creator_node = s.creator_node;
  t.node_count = p.node_count();
  t.open_frames = p.depth();
  // Attached, the window's dump is no image's end: a thread still running, or one that
  // ended while the window closed (its last calls no longer counted), was running at the
  // window's end.
  const bool detached = g_window_end_tsc != 0;
  const bool ended_in_window = exited_before && (!detached || s.end_tsc <= g_window_end_tsc);
  t.finished = final && !detached ? 1 : ended_in_window;  // an exit dump: running threads end with the process
  t.start_routine = s.start_routine;
  t.start_tsc = s.start_tsc;
  t.end_tsc = ended_in_window ? s.end_tsc : now;
  t.dropped_calls = p.dropped_calls();
  t.unmatched_exits = uint32_t(p.unmatched_exits() < UINT32_MAX ? p.unmatched_exits() : UINT32_MAX);
  // Interrupt-tree frames still open belong to a handler of another thread that is still
  // running; its completed calls are kept, the open ones are not.
  t.interrupt_node_count = s.interrupts.node_count() > 1 ? s.interrupts.node_count() : 0;
  t.pending_offcpu_ns = own || !ring_usable ? 0 : pending_offcpu_ns(&s, now_ns);
  t.depth_limited_calls = p.depth_limited_calls();
  t.short_calls = p.short_calls();
  t.lost_events = s.events.lost;
  t.prunes = p.prunes();
  t.offcpu_state = s.events.state;
  t.folded_node_count = p.folded_node_count();
  t.auto_fold_refused = p.fold_refused();
  t.call_site_count = p.call_site_count();
  t.call_sites_lost = uint32_t(p.call_sites_lost() < UINT32_MAX ? p.call_sites_lost() : UINT32_MAX);
  t.unhooked_count = read_unhooked_calls(s);
  out.put(&t, sizeof t);
  out.put(p.nodes(), uint64_t(t.node_count) * sizeof(wire::DumpNode));
  for (uint32_t i = 0; i < t.open_frames; ++i) {
    const Frame& f = p.open_frames()[i];
    wire::DumpOpenFrame o{f.node, i < p.inherited_frames() ? wire::kOpenFrameInherited : 0u, f.entry_tsc,
                          f.child_ticks};
    out.put(&o, sizeof o);
  }
  out.put(s.interrupts.nodes(), uint64_t(t.interrupt_node_count) * sizeof(wire::DumpNode));
  if (process().config.node_metrics()) out.put(p.metrics(), uint64_t(t.node_count) * sizeof(wire::DumpNodeMetrics));
  if (process().config.timeline_events > 0) {
    wire::DumpTimeline tl{p.timeline_count(), p.timeline_capacity(), p.timeline_dropped(), p.timeline_min_ticks(), 0};
    out.put(&tl, sizeof tl);
    for (uint32_t i = 0; i < tl.count; ++i) out.put(&p.timeline_event(i), sizeof(wire::DumpTimelineEvent));
  }
  out.put(p.folded_nodes(), uint64_t(t.folded_node_count) * sizeof(wire::DumpFoldedNode));
  out.put(p.call_sites(), uint64_t(t.call_site_count) * sizeof(wire::DumpCallSite));
  out.put(g_unhooked, uint64_t(t.unhooked_count) * sizeof(wire::DumpUnhookedCalls));
}

void write_libcalls(Output& out) {
  for (uint32_t i = 0; i < libcall_count(); ++i) {
    LibCallInfo info = libcall_info(i);
    wire::DumpLibCall c{info.id, info.target, uint32_t(strlen(info.name)), 0};
    out.put(&c, sizeof c);
    out.put(info.name, c.name_bytes);
    out.pad_to_8(c.name_bytes);
  }
}

// A running thread's name as it is now; `name` keeps what it held if the thread is gone.
void read_thread_name(const ThreadState& s, char* name, uint32_t cap) {
  Path path;
  path.add("/proc/self/task/").add(s.tid).add("/comm");
  const int fd = int(sys::open(path.text, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return;
  char got[16] = {};
  const long n = sys::read(fd, got, sizeof got - 1 < cap - 1 ? sizeof got - 1 : cap - 1);
  sys::close(fd);
  if (n <= 0) return;
  if (got[n - 1] == '\n') got[n - 1] = 0;
  memset(name, 0, cap);
  memcpy(name, got, uint64_t(n));
}

// Files of one process image share "<dir>/<pid>-<image>": an exec'd image of the same pid
// takes the next free image number.
uint32_t g_image_pid = 0;
uint32_t g_image = 0;

uint32_t image_number() {
  const ProcessInfo& p = process();
  if (g_image_pid == p.pid) return g_image;
  for (g_image = 0; g_image < 1000; ++g_image) {
    Path path;
    path.add(p.config.output_dir).add("/").add(p.pid).add("-").add(g_image).add(".cpraw");
    if (sys::exists(path.text) != 0) break;
  }
  g_image_pid = p.pid;
  return g_image;
}

Path image_path(const char* suffix) {
  Path path;
  path.add(process().config.output_dir).add("/").add(process().pid).add("-").add(image_number()).add(suffix);
  return path;
}

uint32_t g_dumped_pid = 0;  // once per process image: exit() runs our destructor, _exit may follow
Path g_dump_path;

// Writes the whole image to `fd`; false when something could not be written.
bool write_image(int fd, uint64_t now, const wire::DumpHeader& header_in) {
  const ProcessInfo& p = process();
  wire::DumpHeader h = header_in;
  memcpy(h.magic, wire::kDumpMagic, sizeof h.magic);
  h.version = wire::kDumpVersion;
  h.header_bytes = sizeof h;
  h.pid = p.pid;
  h.ppid = p.ppid;
  h.tsc_start = p.tsc_start;
  h.mono_start_ns = p.mono_start_ns;
  calibration_pair(CLOCK_MONOTONIC, &h.tsc_end, &h.mono_end_ns);
  h.realtime_start_ns = p.realtime_start_ns;
  h.flags = (p.config.node_metrics() ? wire::kDumpHasNodeMetrics : 0) |
            (p.config.timeline_events ? wire::kDumpHasTimeline : 0) |
            (counts_unhooked_calls() ? wire::kDumpCountsUnhookedCalls : 0);
  for (uint32_t i = 0; i < wire::kHookSets; ++i) h.hook_costs[i] = p.hook_costs[i];
  h.auto_fold_ticks = p.auto_fold.max_self_ticks;
  const RewriteCounts rewrites = rewrite_counts();
  h.rewritten_sites = rewrites.done;
  h.entries_patched = p.patch_status;
  h.patch_step = p.patch_step;
  h.rewrite_refused_errno = rewrites.refused_errno;
  h.removed_functions = removed_function_count();
  const StubSites stub_calls = stub_sites();
  h.counted_sites = stub_calls.counted;
  h.uncounted_sites = stub_calls.uncounted;
  h.hook_removal = g_remove_hooks ? 1 : 0;
  h.libcall_count = libcall_count();
  h.runtime_tid = snapshot_thread_id();
  ModuleScan count{nullptr, 0, false};
  walk_modules(write_module, &count);
  static bool keep_closed[1024];
  const uint32_t closed = closed_module_count();  // one count for both passes
  const uint32_t retired = write_retired_modules(nullptr, closed);
  const NearCodeArea* stubs = nullptr;
  const uint32_t stub_count = near_code_areas(&stubs);
  h.module_count = count.count + kept_closed_modules(keep_closed, 1024) + retired + stub_count;
  for (ThreadState* s = first_thread(); s; s = s->next) ++h.thread_count;
  static char cmdline[4096];
  h.cmdline_bytes = read_cmdline(cmdline, sizeof cmdline);

  Output out(fd);
  out.put(&h, sizeof h);
  out.put(cmdline, h.cmdline_bytes);
  out.pad_to_8(h.cmdline_bytes);
  ModuleScan scan{&out, 0, true};
  walk_modules(write_module, &scan);
  write_closed_modules(out, keep_closed, 1024);
  const bool retired_written = write_retired_modules(&out, closed) == retired;
  write_stub_modules(out, stubs, stub_count);
  write_libcalls(out);
  for (uint32_t i = 0; i < h.removed_functions; ++i) {
    const wire::DumpRemovedFunction r = removed_function(i);
    out.put(&r, sizeof r);
  }
  uint32_t threads = 0;
  const uint32_t me = sys::gettid();
  for (ThreadState* s = first_thread(); s && threads < h.thread_count; s = s->next, ++threads) {
    const bool own = s->tid == me;
    if (!own) hold_thread(s);  // its teardown must not release what is being read
    write_thread(out, *s, now, h.mono_end_ns, h.snapshot_seq == 0, own);
    if (!own) release_thread(s);
  }
  return out.finish() && scan.count == count.count && retired_written && threads == h.thread_count;
}

}  // namespace

void discard_dump() {
  if (g_dumped_pid == 0) return;
  sys::unlink(g_dump_path.text);
  g_dumped_pid = 0;
}

void allow_another_dump() { g_dumped_pid = 0; }

void write_dump(int death_signal) {
  // A vfork child shares our memory and had no fork handler: it must not write (or mark
  // as written) the parent's data when it calls exec or _exit. A process that recorded no
  // thread has nothing to say, unless its entries could not be patched: the dump says why.
  const bool says_why = process().patch_status < 0;
  if (g_dumped_pid == process().pid || (!first_thread() && !says_why) || sys::getpid() != process().pid) return;
  if (!lock_dumps(death_signal != 0)) return;
  g_dumped_pid = process().pid;
  ThreadState* self = t_state;
  uint32_t was_busy = self ? self->busy : 0;
  if (self) self->busy = 1;  // our own calls must not be profiled
  uint64_t now = ticks();
  // After `now`: the check's time is no open frame's. Not in a crash.
  if (death_signal == 0) check_costs_at_exit();
  if (self) self->interrupts.unwind_all(now);  // exit() called from a signal handler
  // Coroutines still suspended end with the image, as of when they were suspended.
  if (self) close_all_saved(static_cast<ContextStore*>(self->contexts), self->profile);

  wire::DumpHeader h{};
  h.death_signal = uint32_t(death_signal);
  g_dump_path = image_path(".cpraw");
  const int fd = open_for_writing(g_dump_path.text);
  if (fd >= 0) {
    bool ok = write_image(fd, now, h);
    sys::close(fd);
    // A dump that could not be written whole is marked so the reader can say so.
    if (!ok) {
      Path incomplete;
      sys::rename(g_dump_path.text, incomplete.add(g_dump_path.text).add(".incomplete").text);
    }
    sys::unlink(image_path(".snapshot.cpraw").text);  // superseded
  }
  if (self) self->busy = was_busy;
  unlock_dumps();
}

void write_snapshot(uint32_t seq) {
  if (g_dumped_pid == process().pid || !first_thread() || sys::getpid() != process().pid) return;
  lock_dumps(false);
  ThreadState* self = t_state;
  uint32_t was_busy = self ? self->busy : 0;
  if (self) self->busy = 1;
  const Path tmp = image_path(".snapshot.tmp");
  const int fd = open_for_writing(tmp.text);
  if (fd >= 0) {
    wire::DumpHeader h{};
    h.snapshot_seq = seq;
    bool ok = write_image(fd, ticks(), h);
    sys::close(fd);
    if (ok)
      sys::rename(tmp.text,
                  image_path(".snapshot.cpraw").text);  // readers see the previous snapshot or this one, whole
    else
      sys::unlink(tmp.text);
  }
  if (self) self->busy = was_busy;
  unlock_dumps();
}

}  // namespace callprof::rt
