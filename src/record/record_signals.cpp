#include "record/record_signals.h"

#include <atomic>

#include "target/temp_dir.h"

namespace callprof::record {
namespace {

enum Phase : int { kFinishing, kProgramRunning, kAttached };

std::atomic<int> g_phase{kFinishing};
std::atomic<pid_t> g_program{0};
std::atomic<bool> g_interrupted{false};

// A terminal's signals (Ctrl-C, Ctrl-\, hangup) go to its whole foreground process group,
// the program included; the kernel sends them as SI_KERNEL. A SIGTERM or SIGHUP sent with
// kill (by hand, timeout, a service manager) is passed on, as perf record does: a sender
// that signalled the whole group reaches the program twice, which ends it all the same.
// SIGINT and SIGQUIT sent with kill are left alone: they are the terminal's keys.
bool passed_on(int signal, const siginfo_t* info) {
  return (signal == SIGTERM || signal == SIGHUP) && !(info && info->si_code == SI_KERNEL);
}

void die_of(int signal) {
  remove_live_temp_dirs();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(signal);
}

void on_signal(int signal, siginfo_t* info, void*) {
  switch (g_phase.load()) {
    case kProgramRunning:
      if (passed_on(signal, info)) kill(g_program.load(), signal);
      return;
    case kAttached:
      g_interrupted = true;
      return;
    default:
      die_of(signal);
  }
}

}  // namespace

RecordSignals::RecordSignals() {
  g_phase = kFinishing;
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &sa, &old_[i]);
}

RecordSignals::~RecordSignals() {
  g_phase = kFinishing;
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

void RecordSignals::program_running(pid_t pid) {
  g_program = pid;
  g_phase = kProgramRunning;
}

void RecordSignals::attached_recording() { g_phase = kAttached; }

void RecordSignals::finishing() { g_phase = kFinishing; }

bool RecordSignals::interrupted() { return g_interrupted; }

}  // namespace callprof::record
