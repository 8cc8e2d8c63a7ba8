#include "target/inject/load_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cerrno>
#include <fstream>
#include <thread>

#include "target/inject/hook_slots.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/open_frames.h"
#include "target/inject/patched_code.h"
#include "target/inject/process_memory.h"
#include "target/inject/process_unwinder.h"
#include "target/inject/remote_call.h"
#include "target/inject/return_addresses.h"
#include "target/inject/safe_point.h"
#include "target/inject/stopped_process.h"
#include "target/thread_times.h"
#include "wire/attach_frames.h"
#include "wire/attach_state.h"

namespace callprof::inject {
namespace {

constexpr int kCallTimeoutMs = 10000;  // dlopen and the runtime's start (its calibration: ~10 ms)

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}

// A thread of `pid` at a safe point (safe_point.h), held; each thread is tried in turn,
// let go at once when it is not, until one is or the time is up.
Result<PtraceThread> borrow_thread(pid_t pid, ProcessUnwinder& unwinder, int timeout_ms) {
  const uint64_t until = now_ns() + uint64_t(timeout_ms) * 1000000u;
  std::string last = "it has no thread";
  for (;;) {
    auto system = system_code_of(pid);
    if (!system) return system.error();
    for (pid_t tid : threads_of(pid)) {
      auto t = PtraceThread::seize(pid, tid, 1000);
      if (!t) {
        last = t.error().message;
        continue;
      }
      const std::vector<uint64_t> frames = code_addresses(unwinder.frames(tid, 128));
      const bool waiting = waiting_in_blocking_call(t->saved_regs()) ||
                           waiting_on_program_object(t->saved_regs(), called_from_program(frames, *system, unwinder));
      if (safe_to_borrow(frames, *system, waiting)) return t;
      last = "its threads were inside libc or the loader";
    }
    if (now_ns() >= until)
      return make_error("no thread reached a safe point within " + std::to_string(timeout_ms) + " ms (" + last + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// The runtime's own threads (runtime_thread.cpp names them "callprof-..." as it starts
// them) run none of the program's code; one just started may not even unwind yet.
bool runtime_thread(pid_t pid, pid_t tid) { return read_thread_name(pid, tid).rfind("callprof-", 0) == 0; }

// Real-time priority for this thread while the process is stopped (where the system allows
// it): each thread let go would otherwise preempt callprof before it let the next one go
// (64 busy threads on 2 cores: 35-55 ms to let them all go, against 0.3 ms). callprof never
// spins meanwhile: it sleeps whenever it waits for the process's threads.
class RealTimePriority {
 public:
  RealTimePriority() {
    pthread_getschedparam(pthread_self(), &policy_, &param_);
    const sched_param fifo{1};
    raised_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
  }
  ~RealTimePriority() {
    if (raised_) pthread_setschedparam(pthread_self(), policy_, &param_);
  }
  RealTimePriority(const RealTimePriority&) = delete;
  RealTimePriority& operator=(const RealTimePriority&) = delete;

 private:
  int policy_ = SCHED_OTHER;
  sched_param param_{};
  bool raised_ = false;
};

using ThreadFrames = std::vector<std::pair<pid_t, std::vector<OpenFrame>>>;

// The frames file the runtime reads (wire/attach_frames.h).
Status write_frames(const std::string& path, const ThreadFrames& threads) {
  std::vector<wire::AttachFrame> entries;
  for (const auto& [tid, frames] : threads)
    for (const OpenFrame& f : frames) entries.push_back({uint32_t(tid), 0, f.returns, f.fn, f.callsite, f.sp});
  const wire::AttachFramesHeader h{wire::kAttachFramesMagic, wire::kAttachFramesVersion, uint32_t(entries.size())};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(entries.data()), std::streamsize(entries.size() * sizeof entries[0]));
  out.close();
  if (!out) return make_error("cannot write " + path);
  return Ok{};
}

// For a program with hooks, the kernel's count of each thread's time as the window begins
// (just after: they run again): a thread the runtime never meets is shown from it.
void write_times_at_start(const std::string& frames_path, pid_t pid, const ThreadFrames& threads) {
  std::vector<ThreadTime> times;
  for (const auto& [tid, frames] : threads)
    if (!frames.empty())
      if (auto t = read_thread_time(pid, tid)) times.push_back(*t);
  (void)write_thread_times(frames_path + ".times", times);  // without it, such threads are left out
}

// What the window's start needs to know of the program's code and of the runtime's.
struct WindowCode {
  HookedCode& hooked;
  const PatchedCode& patched;
  std::vector<std::pair<uint64_t, uint64_t>> runtime_code;  // the runtime's executable mappings
  uint64_t begin = 0;                                       // callprof_attach_begin
  bool patching() const { return hooked.empty() && !patched.empty(); }
};

constexpr int kInsideRuntimeTries = 50;  // stops found a thread inside the runtime: 2 ms apart
constexpr int kUnwindingTries = 5;       // stops found a thread walking its stack

// Whether a program thread stopped inside the runtime's code (a patched program's
// trampoline, a hook of a dormant runtime): its return stack may be half updated.
bool inside_runtime(const StoppedProcess& stopped, const WindowCode& code) {
  for (const PtraceThread& t : stopped.threads()) {
    if (runtime_thread(t.pid(), t.tid())) continue;
    for (const auto& [start, end] : code.runtime_code)
      if (t.saved_regs().rip >= start && t.saved_regs().rip < end) return true;
  }
  return false;
}

// The frames open on each stopped program thread's stack; `unwinding` set when a patched
// program's thread is inside libgcc's unwinder, walking its stack.
ThreadFrames open_frames_of(const StoppedProcess& stopped, ProcessUnwinder& unwinder, const WindowCode& code,
                            bool* unwinding) {
  ThreadFrames out;
  for (const PtraceThread& t : stopped.threads())
    if (!runtime_thread(t.pid(), t.tid()))
      out.emplace_back(t.tid(), code.patching() ? code.patched.open_frames(unwinder, t.tid(), unwinding)
                                                : code.hooked.open_frames(unwinder, t.tid(), t.saved_regs()));
  return out;
}

// Every thread of `pid` but `held` stopped (since `start`) at a moment when none of a
// patched program's is inside the runtime's code or, when `frames` is given (they are
// read then), walking its stack in the unwinder: a thread that is gets a little while to
// leave, and the process is stopped again. After the last try, a thread still walking its
// stack gets its frames' trampolines at its catch (wire::AttachFrame::returns 2).
Result<StoppedProcess> stop_at_clean_moment(pid_t pid, pid_t held, ProcessUnwinder* unwinder, const WindowCode& code,
                                            uint64_t& start, ThreadFrames* frames) {
  for (int tries = 1;; ++tries) {
    start = now_ns();
    auto stopped = StoppedProcess::stop(pid, held, 1000);
    if (!stopped) return stopped;
    bool busy = code.patching() && inside_runtime(*stopped, code);
    if (busy && tries == kInsideRuntimeTries)
      return make_error("the process's threads stayed inside callprof's runtime");
    if (!busy && frames) {
      bool unwinding = false;
      *frames = open_frames_of(*stopped, *unwinder, code, &unwinding);
      busy = unwinding && tries < kUnwindingTries;
    }
    if (!busy) return stopped;
    stopped->release();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// A patched program's threads, all stopped (the borrowed one too: a thread that stood in
// code of the program's own is at a safe point): one standing inside a site's nops is
// moved past them, since they are about to become a call.
Status move_past_nops(PtraceThread& borrowed, StoppedProcess& stopped, const WindowCode& code) {
  std::vector<PtraceThread*> all{&borrowed};
  for (PtraceThread& t : stopped.threads()) all.push_back(&t);
  for (PtraceThread* t : all)
    if (const uint64_t to = code.patched.past_nops(t->saved_regs().rip))
      if (Status s = t->move_pc(to); !s) return s;
  return Ok{};
}

// A runtime an earlier attach loaded: its window must have ended (wire/attach_state.h). A
// killed callprof's ends a little after its death (21-25 ms measured on a two-thread
// program); one still open after a second is another callprof's. Nothing is held meanwhile.
constexpr int kWindowEndWaitMs = 1000;
std::string another_window_open(pid_t pid) {
  return "process " + std::to_string(pid) + " is being recorded by another callprof attach: one window at a time";
}
Status wait_for_earlier_window(pid_t pid, const MappedModule& runtime) {
  auto state_at = data_address(runtime, wire::kAttachStateSymbol);
  if (!state_at) return Ok{};  // a runtime without it: its start says
  for (int waited_ms = 0;; waited_ms += 5) {
    int32_t state = wire::kAttachNever;
    if (!read_process_memory(pid, *state_at, &state, sizeof state) || state != wire::kAttachOpen) return Ok{};
    if (waited_ms >= kWindowEndWaitMs) return make_error(another_window_open(pid));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// A patched program attached before: the return addresses the earlier window left
// replaced are given back (return_addresses.h), every thread stopped meanwhile.
Status restore_earlier_returns(pid_t pid, const MappedModule& runtime, const WindowCode& code) {
  auto head = data_address(runtime, "callprof_return_stacks");
  if (!head) return head.error();
  uint64_t start = 0;
  auto stopped = stop_at_clean_moment(pid, 0, nullptr, code, start, nullptr);
  if (!stopped) return stopped.error();
  auto restored = restore_return_addresses(pid, *head, code.runtime_code);
  if (!restored) return restored.error();
  return Ok{};
}

// The window begins: every other thread stopped, the frames open on every stack listed,
// the program's hooks pointed at the runtime (or its sites patched) on the borrowed thread,
// everything let go.
Status begin_window(PtraceThread& borrowed, std::vector<OpenFrame> borrowed_frames, ProcessUnwinder& unwinder,
                    const WindowCode& code, const std::string& frames_path, LoadedRuntime& out) {
  const RealTimePriority priority;
  uint64_t start = 0;
  ThreadFrames threads;
  auto stopped = stop_at_clean_moment(borrowed.pid(), borrowed.tid(), &unwinder, code, start, &threads);
  if (!stopped) return stopped.error();
  if (code.patching())
    if (Status s = move_past_nops(borrowed, *stopped, code); !s) return s;
  threads.emplace(threads.begin(), borrowed.tid(), std::move(borrowed_frames));
  for (const auto& [tid, frames] : threads) {
    out.open_frames += frames.size();
    out.threads_with_open_frames += !frames.empty();
  }
  out.stopped_threads = threads.size();
  if (Status s = write_frames(frames_path, threads); !s) return s;
  auto status = remote_call(borrowed, code.begin, {kStackData}, frames_path, kCallTimeoutMs);
  if (!status) return status.error();
  if (int64_t(*status) != 0)
    return make_error("the runtime could not start the window (code " + std::to_string(int64_t(*status)) + ")");
  stopped->release();
  out.stop_ns = now_ns() - start;
  // Once they run again: read while they are stopped, a read of /proc per thread would hold them all.
  if (!code.patching()) write_times_at_start(frames_path, borrowed.pid(), threads);
  return Ok{};
}

// What dlerror says in the process, after a dlopen there failed.
std::string remote_dlerror(PtraceThread& t, const MappedModule& libc) {
  auto fn = function_address(libc, "dlerror");
  if (!fn) return "";
  auto text = remote_call(t, *fn, {}, "", kCallTimeoutMs);
  if (!text || *text == 0) return "";
  char buf[512] = {};
  if (!t.read_memory(*text, buf, sizeof buf - 1)) return "";
  return buf;
}

}  // namespace

std::vector<wire::AttachFrame> read_attach_frames(const std::string& frames_path) {
  std::ifstream in(frames_path, std::ios::binary);
  wire::AttachFramesHeader h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || h.magic != wire::kAttachFramesMagic ||
      h.version != wire::kAttachFramesVersion || h.count > (1u << 24))
    return {};
  std::vector<wire::AttachFrame> frames(h.count);
  if (!in.read(reinterpret_cast<char*>(frames.data()), std::streamsize(frames.size() * sizeof frames[0]))) return {};
  return frames;
}

Result<LoadedRuntime> load_runtime(pid_t pid, const std::string& runtime, const std::string& settings,
                                   const std::string& frames_path, int timeout_ms) {
  auto modules = mapped_modules(pid);
  if (!modules) return modules.error();
  const MappedModule* libc = find_module(*modules, "libc.so");
  if (!libc) return make_error("process " + std::to_string(pid) + " has no libc mapped");
  auto dlopen_at = function_address(*libc, "dlopen");
  if (!dlopen_at) return dlopen_at.error();
  // Read before any thread is held: the hooked modules' code, the process's modules (the
  // runtime's own, loaded by an earlier window, calls the hooks: it is not the program's).
  const MappedModule* loaded = find_module(*modules, runtime);
  std::vector<MappedModule> program;
  for (const MappedModule& m : *modules)
    if (&m != loaded) program.push_back(m);
  HookedCode hooked(pid, program);
  const PatchedCode patched(pid, program);
  WindowCode code{hooked, patched, {}, 0};
  if (loaded) {
    if (Status s = wait_for_earlier_window(pid, *loaded); !s) return s.error();
    if (code.patching()) {
      code.runtime_code = code_ranges(pid, loaded->path);
      if (Status s = restore_earlier_returns(pid, *loaded, code); !s) return s.error();
    }
  }
  ProcessUnwinder unwinder(pid);

  const uint64_t start = now_ns();
  auto thread = borrow_thread(pid, unwinder, timeout_ms);
  if (!thread) return thread.error();
  LoadedRuntime out;
  out.borrowed_tid = thread->tid();
  const uint64_t held = now_ns();
  out.waited_ns = held - start;
  std::vector<OpenFrame> borrowed_frames =  // before its registers change
      code.patching() ? patched.open_frames(unwinder, thread->tid())
                      : hooked.open_frames(unwinder, thread->tid(), thread->saved_regs());

  auto handle = remote_call(*thread, *dlopen_at, {kStackData, RTLD_NOW | RTLD_LOCAL}, runtime, kCallTimeoutMs);
  if (!handle) return handle.error();
  if (*handle == 0) {
    const std::string why = remote_dlerror(*thread, *libc);
    return make_error("the process's loader could not load " + runtime + (why.empty() ? "" : ": " + why));
  }
  auto after = mapped_modules(pid);
  if (!after) return after.error();
  const MappedModule* rt = find_module(*after, runtime);
  if (!rt) return make_error(runtime + " is not mapped in process " + std::to_string(pid) + " after dlopen");
  auto entry = function_address(*rt, "callprof_attach");
  if (!entry) return entry.error();
  auto begin = function_address(*rt, "callprof_attach_begin");
  if (!begin) return begin.error();
  code.runtime_code = code_ranges(pid, rt->path);
  code.begin = *begin;
  // Loaded last, the runtime's own calls of the hooks (its calibration's) bound to glibc's
  // empty ones: its slots are swapped with the program's.
  auto own = hook_slots_of(rt->file, rt->bias);
  if (!own) return own.error();
  {
    std::ofstream out(settings, std::ios::app);
    for (const HookSlot& s : *own)
      if (s.hook()) out << settings_line(s) << '\n';  // its own pthread_create is libc's
    if (!out) return make_error("cannot write " + settings);
  }
  auto status = remote_call(*thread, *entry, {kStackData}, settings, kCallTimeoutMs);
  if (!status) return status.error();
  if (int64_t(*status) == -EBUSY)  // another callprof readied a window since the check above
    return make_error(another_window_open(pid));
  if (int64_t(*status) != 0)
    return make_error("the runtime refused to start in process " + std::to_string(pid) + " (code " +
                      std::to_string(int64_t(*status)) + ")");
  if (Status s = begin_window(*thread, std::move(borrowed_frames), unwinder, code, frames_path, out); !s)
    return s.error();
  if (Status s = thread->release(); !s) return s.error();
  out.held_ns = now_ns() - held;
  return out;
}

}  // namespace callprof::inject
