// Exact mode attached to a running program (docs/attach.md): the settings the launched
// program would get in its environment go to a file, with the hook slots to swap and the
// paths of the control FIFO and the marker the runtime leaves once its data is written.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "record/exact_source.h"
#include "target/inject/hook_slots.h"
#include "target/inject/injector_process.h"
#include "target/inject/load_runtime.h"
#include "target/inject/mapped_modules.h"
#include "target/inject/patched_code.h"
#include "target/inject/ptrace_permission.h"
#include "target/process_check.h"
#include "target/thread_times.h"

namespace callprof::record {

ExactSource::~ExactSource() {
  if (control_fd_ >= 0) close(control_fd_);  // the runtime sees EOF and detaches
}

namespace {

// A program without hooks is attached through its patchable entries (-fpatchable-function-
// entry: runtime/patched_calls.h), each module's section as the settings list it; none for
// a program with hooks. Refused: neither, or a program that may cancel a thread (the
// cancellation's unwinding is libc's own, which the runtime cannot see: it would meet a
// replaced return address).
Result<std::vector<std::pair<uint64_t, uint64_t>>> patchable_ranges(pid_t pid,
                                                                    const std::vector<inject::HookSlot>& slots) {
  const std::string process = "process " + std::to_string(pid);
  if (std::any_of(slots.begin(), slots.end(), [](const inject::HookSlot& s) { return s.hook(); }))
    return std::vector<std::pair<uint64_t, uint64_t>>{};
  auto modules = inject::mapped_modules(pid);
  if (!modules) return modules.error();
  const inject::PatchedCode patched(pid, *modules);
  if (patched.empty())
    return make_error(process +
                      " calls no -finstrument-functions hooks through its GOT and has no -fpatchable-function-entry "
                      "nops: exact mode cannot attach (use --mode sample or --mode probe)");
  if (std::any_of(slots.begin(), slots.end(), [](const inject::HookSlot& s) { return s.function == "pthread_cancel"; }))
    return make_error(process +
                      " calls pthread_cancel, whose unwinding exact mode cannot follow in a patched program: "
                      "attach refused (build it with the hook flags, or use --mode sample)");
  return patched.ranges();
}

// The runtime's tuning variables no option sets (docs/modes.md, "Environment"): a launched
// program inherits them from callprof's environment; an attached one gets them the same
// way, through the settings, since its own environment is never read for CALLPROF_*.
std::vector<std::pair<std::string, std::string>> tuning_from_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* name : {"CALLPROF_AUTO_FOLD_NS", "CALLPROF_STACK_FRAMES", "CALLPROF_RING_PAGES"})
    if (const char* value = std::getenv(name)) out.emplace_back(name, value);
  return out;
}

// The threads that had frames open when the window began, as the kernel counted their
// time in it (unmet_threads.h), read when the runtime's data is written; those gone by then
// ended in the window, when is not known: left out.
std::vector<UnmetThread> threads_with_open_frames(pid_t pid, const std::string& frames_path,
                                                  const std::vector<wire::AttachFrame>& frames) {
  std::vector<UnmetThread> out;
  for (const ThreadTime& start : read_thread_times(frames_path + ".times")) {
    const auto end = read_thread_time(pid, start.tid);
    if (!end) continue;
    UnmetThread t{uint32_t(start.tid),
                  {},
                  end->on_cpu_ns - std::min(end->on_cpu_ns, start.on_cpu_ns),
                  end->waiting_ns - std::min(end->waiting_ns, start.waiting_ns),
                  read_thread_name(pid, start.tid)};
    for (const wire::AttachFrame& f : frames)
      if (f.tid == t.tid) t.frames.push_back(f);
    if (!t.frames.empty()) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Result<inject::LoadedRuntime> ExactSource::attach(pid_t pid, const inject::AttachLock& lock) {
  std::error_code ec;
  const std::string runtime = std::filesystem::canonical(runtime_, ec).string();
  if (ec) return make_error("cannot find the runtime " + runtime_ + ": " + ec.message());
  if (Status s = inject::check_ptrace_allowed(pid); !s) return s.error();
  if (Status s = inject::check_visible_in(pid, runtime); !s) return s.error();
  if (Status s = inject::check_visible_in(pid, dir_.path()); !s) return s.error();
  auto slots = inject::hook_slots(pid, runtime);  // the runtime's own slots: load_runtime adds them
  if (!slots) return slots.error();
  auto patchable = patchable_ranges(pid, *slots);
  if (!patchable) return patchable.error();
  const std::string fifo = dir_.path() + "/control";
  if (mkfifo(fifo.c_str(), 0600) != 0) return make_error("cannot create " + fifo + ": " + std::strerror(errno));
  // Read and write: opening does not wait for the runtime, and our end closing (callprof
  // killed) is the runtime's EOF.
  control_fd_ = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (control_fd_ < 0) return make_error("cannot open " + fifo + ": " + std::strerror(errno));
  const std::string settings = dir_.path() + "/attach.settings";
  {
    std::ofstream out(settings);
    out << "CALLPROF_OUTPUT_DIR=" << dir_.path() << '\n';
    for (const auto& [name, value] : env_) out << name << '=' << value << '\n';
    for (const auto& [name, value] : tuning_from_environment()) out << name << '=' << value << '\n';
    for (const inject::HookSlot& s : *slots)  // the unwinders' entries matter to a patched program only
      if (!patchable->empty() || !s.unwinding()) out << inject::settings_line(s) << '\n';
    for (const auto& [start, end] : *patchable)
      out << std::hex << "patchable " << start << ' ' << end << std::dec << '\n';
    out << "control " << fifo << '\n' << "detached " << dir_.path() << "/detached\n";
    if (args_.sampling.children) out << "children 1\n";
    if (!out) return make_error("cannot write " + settings);
  }
  // The injection runs in a process of its own (injector_process.h): callprof killed, even
  // with kill -9, it still gives the borrowed thread back. Ctrl-C waits for its answer.
  sigset_t ending, before;
  sigemptyset(&ending);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&ending, sig);
  pthread_sigmask(SIG_BLOCK, &ending, &before);
  auto loaded = inject::load_runtime_apart(pid, runtime, settings, dir_.path() + "/attach.frames", 2000, lock.fd());
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (loaded) attached_ = *loaded;
  return loaded;
}

// The children that were forked while attached (--children): "detached.PID.started" each.
std::vector<pid_t> attached_children(const std::string& dir) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("detached.", 0) == 0 && name.size() > 17 && name.ends_with(".started"))
      out.push_back(pid_t(std::atoi(name.c_str() + 9)));
  }
  return out;
}

bool ExactSource::image_ended() const {
  std::error_code ec;
  return std::filesystem::exists(dir_.path() + "/detached", ec);
}

bool ExactSource::detach(pid_t pid, int timeout_ms) {
  if (control_fd_ < 0) return false;
  // An exec wrote the image's data already: the threads now run another image's code.
  const bool exec_ended = image_ended();
  // The end of the FIFO is every attached process's signal: the program's and its children's.
  close(control_fd_);
  control_fd_ = -1;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // Done once it wrote its data (its marker) or ended (it wrote them as it exited).
  auto done = [&](pid_t p, const std::string& marker) {
    std::error_code ec;
    return std::filesystem::exists(marker, ec) || !process_alive(p);
  };
  const std::string marker = dir_.path() + "/detached";
  bool all = true;
  while (!done(pid, marker) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  all = done(pid, marker);
  if (all && !exec_ended) {
    const std::string frames_path = dir_.path() + "/attach.frames";
    attach_frames_ = inject::read_attach_frames(frames_path);
    unmet_threads_ = threads_with_open_frames(pid, frames_path, attach_frames_);
  }
  for (pid_t child : attached_children(dir_.path())) {
    const std::string child_marker = marker + "." + std::to_string(child);
    while (!done(child, child_marker) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    all = all && done(child, child_marker);
  }
  return all;
}

}  // namespace callprof::record
