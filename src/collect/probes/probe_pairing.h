// Probe mode's pairing of entry and exit hits into calls, per thread. A frame opens at a
// function's entry and closes at the exit hit whose stack pointer is the entry's (both
// point at the return address). A frame the thread left another way — a longjmp, an
// exception, a tail call into an unprobed function — is closed by the thread's first later
// hit above it (a higher stack pointer, or the same one at an entry), at that hit's time:
// an upper bound, counted as `unwound`. Pure: no clock, no kernel, driven by tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace callprof::probes {

// What a probe hit is, for its cost: the kernel single-stepped its instruction, emulated
// it, or it is a return probe's (the trampoline and the uretprobe system call).
enum class HitKind : uint8_t { SingleStepped, Emulated, Return };

// The probes' own time in measured times, from the calibration (probe_calibration.h): what
// a hit costs by kind, and how much of a call's probes falls between its entry's timestamp
// and its exit's — inside its measured time — measured for three pairs of kinds. The rest
// of its hits' cost falls in its caller's self time.
struct HitCosts {
  uint64_t hit_ns[3] = {0, 0, 0};          // by HitKind
  uint64_t inside_stepped_ns = 0;          // single-stepped entry, single-stepped exit (a ret)
  uint64_t inside_stepped_return_ns = 0;   // single-stepped entry, return probe
  uint64_t inside_emulated_return_ns = 0;  // emulated entry, return probe
  uint64_t hit(HitKind k) const { return hit_ns[size_t(k)]; }
  // An exit of kind `exit`; none (the frame was left without one): half of what one would add.
  uint64_t inside(HitKind entry, const HitKind* exit) const;
  uint64_t outside(HitKind entry, const HitKind* exit) const;
};

struct OpenFrame {
  uint32_t function = 0;                // index of the probed function
  uint32_t path = 0;                    // the caller's id of this call's path (calling context)
  uint64_t sp = 0;                      // stack pointer at entry: where its return address is
  uint64_t entry_ip = 0;                // where the function is mapped in this process
  uint64_t start_ns = 0, child_ns = 0;  // child_ns: time in probed calls made from it
  uint32_t children = 0;                // probed calls made from it
  HitKind entry_kind = HitKind::SingleStepped;
  // Compensation: the probes' time in the calls it made that fell in its own time (the
  // parts of their entry hits before the timestamp and of their exits after it).
  uint64_t child_probe_ns = 0;
  // The return address at `sp`, as the entry hit saw it: while the call runs, a return probe
  // keeps its trampoline there instead, which no unwinder knows (0: not known).
  uint64_t return_address = 0;
};

// One call's times, as measured, with what the probes put in them (zeros without set_costs).
struct CallTimes {
  uint64_t total_ns = 0;  // entry to exit
  uint64_t self_ns = 0;   // minus the probed calls it made
  uint64_t probe_ns = 0;  // of self_ns, the probes' own time (HitCosts), which the sink subtracts
  uint64_t hits_ns = 0;   // what its own entry and exit hits cost in all: the scale of the error
};

class CallSink {
 public:
  virtual ~CallSink() = default;
  virtual void on_call(uint32_t tid, const OpenFrame& frame, const CallTimes& times) = 0;
};

class ProbePairing {
 public:
  explicit ProbePairing(CallSink& sink) : sink_(sink) {}
  // Tell the sink the probes' own time in each call (HitCosts); not called: raw times.
  void set_costs(const HitCosts& costs) {
    costs_ = costs;
    compensate_ = true;
  }

  // An entry hit, step 1: closes the frames the thread has left, and returns the innermost
  // frame still open (the probed caller of the new call), or null.
  const OpenFrame* enter(uint32_t tid, uint64_t time_ns, uint64_t sp);
  // Step 2: opens the new frame (after the caller chose its path from the parent's).
  void open(uint32_t tid, const OpenFrame& frame);
  // An exit hit (a ret or tail jump of some probed function, or a return probe's hit with
  // the stack pointer the function had at entry).
  void exit(uint32_t tid, uint64_t time_ns, uint64_t sp, HitKind kind = HitKind::SingleStepped);
  // The thread ended, or the recording did: what is still open closes at time_ns.
  void end_thread(uint32_t tid, uint64_t time_ns);
  void end_all(uint64_t time_ns);
  // The probes of `function` were removed at time_ns: its open frames, and the probed calls
  // inside them, close then (`cut`); no exit of theirs will come.
  void close_function(uint32_t function, uint64_t time_ns);

  struct Counts {
    uint64_t calls = 0;            // closed frames, all kinds
    uint64_t unwound = 0;          // closed by a hit above them (longjmp, exception, tail call)
    uint64_t unfinished = 0;       // still open when their thread or the recording ended
    uint64_t unmatched_exits = 0;  // exits with no frame at their stack pointer (entered before attach)
    uint64_t cut = 0;              // open when their function's probes (or a caller's) were removed
  };
  const Counts& counts() const { return counts_; }
  size_t open_frames(uint32_t tid) const;
  std::vector<OpenFrame> frames(uint32_t tid) const;          // outermost first
  std::span<const OpenFrame> open_stack(uint32_t tid) const;  // the same, not copied

 private:
  // exit: the kind of the exit hit that closes it, none when it was left without one.
  void close_top(uint32_t tid, std::vector<OpenFrame>& stack, uint64_t time_ns, const HitKind* exit = nullptr);
  CallSink& sink_;
  HitCosts costs_;
  bool compensate_ = false;
  std::unordered_map<uint32_t, std::vector<OpenFrame>> threads_;
  Counts counts_;
};

}  // namespace callprof::probes
