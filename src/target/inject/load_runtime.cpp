#include "target/inject/load_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <fstream>
#include <thread>

#include "target/inject/hook_slots.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/open_frames.h"
#include "target/inject/process_unwinder.h"
#include "target/inject/remote_call.h"
#include "target/inject/safe_point.h"
#include "target/inject/stopped_process.h"
#include "wire/attach_frames.h"

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
bool runtime_thread(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name.rfind("callprof-", 0) == 0;
}

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

// The frames file the runtime reads (wire/attach_frames.h).
Status write_frames(const std::string& path, const std::vector<std::pair<pid_t, std::vector<OpenFrame>>>& threads) {
  std::vector<wire::AttachFrame> entries;
  for (const auto& [tid, frames] : threads)
    for (const OpenFrame& f : frames) entries.push_back({uint32_t(tid), 0, f.fn, f.callsite, f.sp});
  const wire::AttachFramesHeader h{wire::kAttachFramesMagic, wire::kAttachFramesVersion, uint32_t(entries.size())};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(entries.data()), std::streamsize(entries.size() * sizeof entries[0]));
  out.close();
  if (!out) return make_error("cannot write " + path);
  return Ok{};
}

// The window begins: every other thread stopped, the frames open on every stack listed,
// the program's hooks pointed at the runtime on the borrowed thread, everything let go.
Status begin_window(PtraceThread& borrowed, std::vector<OpenFrame> borrowed_frames, ProcessUnwinder& unwinder,
                    HookedCode& hooked, uint64_t begin, const std::string& frames_path, LoadedRuntime& out) {
  const RealTimePriority priority;
  const uint64_t start = now_ns();
  auto stopped = StoppedProcess::stop(borrowed.pid(), borrowed.tid(), 1000);
  if (!stopped) return stopped.error();
  std::vector<std::pair<pid_t, std::vector<OpenFrame>>> threads{{borrowed.tid(), std::move(borrowed_frames)}};
  for (const PtraceThread& t : stopped->threads())
    if (!runtime_thread(t.pid(), t.tid()))
      threads.emplace_back(t.tid(), hooked.open_frames(unwinder, t.tid(), t.saved_regs()));
  for (const auto& [tid, frames] : threads) {
    out.open_frames += frames.size();
    out.threads_with_open_frames += !frames.empty();
  }
  out.stopped_threads = threads.size();
  if (Status s = write_frames(frames_path, threads); !s) return s;
  auto status = remote_call(borrowed, begin, {kStackData}, frames_path, kCallTimeoutMs);
  if (!status) return status.error();
  if (int64_t(*status) != 0)
    return make_error("the runtime could not start the window (code " + std::to_string(int64_t(*status)) + ")");
  stopped->release();
  out.stop_ns = now_ns() - start;
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

Result<LoadedRuntime> load_runtime(pid_t pid, const std::string& runtime, const std::string& settings,
                                   const std::string& frames_path, int timeout_ms) {
  auto modules = mapped_modules(pid);
  if (!modules) return modules.error();
  const MappedModule* libc = find_module(*modules, "libc.so");
  if (!libc) return make_error("process " + std::to_string(pid) + " has no libc mapped");
  auto dlopen_at = function_address(*libc, "dlopen");
  if (!dlopen_at) return dlopen_at.error();
  // Read before any thread is held: the hooked modules' code, the process's modules.
  HookedCode hooked(pid, *modules);
  ProcessUnwinder unwinder(pid);

  const uint64_t start = now_ns();
  auto thread = borrow_thread(pid, unwinder, timeout_ms);
  if (!thread) return thread.error();
  LoadedRuntime out;
  out.borrowed_tid = thread->tid();
  const uint64_t held = now_ns();
  out.waited_ns = held - start;
  std::vector<OpenFrame> borrowed_frames =
      hooked.open_frames(unwinder, thread->tid(), thread->saved_regs());  // before its registers change

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
  if (int64_t(*status) != 0)
    return make_error("the runtime refused to start in process " + std::to_string(pid) + " (code " +
                      std::to_string(int64_t(*status)) + ")");
  if (Status s = begin_window(*thread, std::move(borrowed_frames), unwinder, hooked, *begin, frames_path, out); !s)
    return s.error();
  if (Status s = thread->release(); !s) return s.error();
  out.held_ns = now_ns() - held;
  return out;
}

}  // namespace callprof::inject
