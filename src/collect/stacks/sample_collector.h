// Sampling mode's post-processing (SPEC §1.2): receives the session's records, unwinds
// each sample as it arrives (so the stack copies need not be kept), and at the end turns
// the stacks into the one profile model: per thread a calling context tree whose nodes
// carry sample counts and the time they stand for (cpu-clock periods; off-CPU intervals
// from switch-out to switch-in).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collect/perf/perf_decode.h"
#include "collect/stacks/address_symbols.h"
#include "collect/stacks/unwinder.h"
#include "model/profile.h"
#include "util/result.h"

namespace callprof {
class FunctionTable;
}

namespace callprof::stacks {

class FrameNames;

using LoadBiases = std::map<std::tuple<std::string, uint64_t, uint64_t, std::string>, Result<uint64_t>>;

class SampleCollector : public perf::RecordSink {
 public:
  // `symbols` answers build()'s questions about addresses; null: the files and
  // /proc/kallsyms (file_address_symbols(), made at build()). Tests pass fakes.
  explicit SampleCollector(perf::UnwindMode method, std::unique_ptr<AddressSymbols> symbols = nullptr);
  ~SampleCollector() override;

  // Processes and threads that existed before the session (attach).
  void add_initial(const std::vector<perf::TaskEvent>& threads, const std::vector<perf::Mapping>& mappings);

  void on_sample(perf::Sample&& sample) override;
  void on_mapping(perf::Mapping&& mapping) override;
  void on_task(perf::TaskEvent&& task) override;
  void on_switch(const perf::SwitchEvent& event) override;
  void on_lost(const perf::LostEvent& event, perf::LostKind kind) override;
  // A system call: its path (unwound like a sample) gets a `[syscall] NAME` leaf counting
  // the calls, their time and errors; the thread's statistics get its duration.
  // (sample_collector_syscalls.cpp) The tracer's ring is read apart from perf's, so a call
  // can come before the record of its process's fork: a call of a process without mappings
  // yet waits (copied) until a record of that process at or after its time has come, or
  // until build().
  void on_syscall(const perf::SyscallSample& call);
  // Whether system-call time is the tree's time (wall_ns of the leaves): true when nothing
  // else measured time (system calls traced alone). With sampling the samples already
  // stand for that time, and the leaves carry syscall_ns only.
  void set_syscall_time_is_wall(bool yes) { syscall_time_is_wall_ = yes; }
  // A hardware event's period counts events, not ns: each sample then stands for this
  // much CPU time (1 s / the frequency the kernel adjusts the period to).
  void set_sample_weight_ns(uint64_t ns) { sample_weight_ns_ = ns; }
  // `record --timeline`: keep per thread the times of up to `events` samples and of as
  // many system calls (the most recent; older ones are counted as dropped). 0: none.
  void set_timeline_events(uint32_t events) { timeline_events_ = events; }
  // `record --no-inline`: name each address by the function that ran there only, as
  // perf --no-inline does, without the frames DWARF says were inlined into it.
  void set_inlined_frames(bool yes) { inlined_frames_ = yes; }

  // Probe mode (collect/probes): the callers at a probed function's entry, unwound as a
  // system call's entry stack is (lookup addresses, innermost first: the entry itself first).
  const std::vector<uint64_t>& entry_frames(const perf::Sample& entry);
  // A hit of a probe that needs no stack (an exit): the thread's life spans it.
  void note_hit(uint32_t pid, uint32_t tid, uint64_t time_ns) { thread(pid, tid, time_ns); }
  uint32_t image_of(uint32_t pid) { return images_[pid]; }
  // Calls measured on one path (probe mode), added to the thread's tree when it is built.
  struct MeasuredPath {
    uint32_t pid = 0, tid = 0, image = 0;
    std::vector<uint64_t> pcs;  // lookup addresses, outermost first; the last is the function's entry
    uint64_t calls = 0, self_ns = 0, min_ns = UINT64_MAX, max_ns = 0;  // min, max: self time of one call
  };
  void add_measured(MeasuredPath&& path) { measured_.push_back(std::move(path)); }

  struct Counts {
    uint64_t samples = 0, off_cpu_samples = 0, incomplete_stacks = 0, lost_records = 0, lost_samples = 0;
    // Of the samples (on- and off-CPU), those whose stack did not reach a root: they hang
    // under `[truncated]` (known at build()).
    uint64_t truncated_stacks = 0;
    // Of the measured paths' calls (add_measured), those whose stack reached no root.
    uint64_t truncated_measured_calls = 0;
    uint64_t unwind_ns = 0, build_ns = 0;  // our processing time: unwinding, symbolizing + building
    // System calls, their distinct paths, entry stacks walked by frame rules, and those
    // left to libdwfl.
    uint64_t syscalls = 0, syscall_paths = 0, syscall_fast_walks = 0, syscall_unwinds = 0;
  };
  const Counts& counts() const { return counts_; }

  // Symbolizes every stack and builds the profile; `warnings` gets one line per problem.
  Profile build(std::vector<std::string>& warnings);

 private:
  using Image = std::pair<uint32_t, uint32_t>;  // pid, exec count
  struct Stack {
    uint32_t pid, tid, image;
    uint64_t weight_ns;     // cpu-clock period, or the off-CPU interval (set at switch-in)
    uint32_t first, count;  // frames in pcs_: lookup addresses, outermost first
    bool off_cpu;
    uint64_t time_ns;        // when it was taken (an off-CPU sample: the switch-out)
    bool root;               // the unwinder proved the outermost frame has no caller (CFI)
    bool preempted = false;  // off-CPU, switched out involuntarily: waiting for a CPU
  };
  // A bounded ring of timeline entries: the most recent `capacity`, the others counted.
  template <typename T>
  struct Ring {
    std::vector<T> items;
    size_t next = 0;
    uint64_t dropped = 0;
    void push(const T& x, size_t capacity) {
      if (items.size() < capacity) return items.push_back(x);
      items[next] = x;
      next = (next + 1) % capacity;
      ++dropped;
    }
  };
  struct SyscallCall {
    uint32_t path;  // index into syscall_paths_
    uint64_t time_ns, duration_ns;
  };
  uint32_t timeline_events_ = 0;
  std::map<uint32_t, Ring<SyscallCall>> syscall_calls_;  // by tid
  void add_timeline(const Image& image, const std::vector<const Stack*>& stacks,
                    const std::vector<NodeId>& syscall_nodes, const std::vector<NodeId>& stack_nodes,
                    size_t first_thread, Profile& p) const;
  struct ThreadInfo {
    uint32_t pid = 0;
    std::string name;
    uint64_t first_ns = 0, last_ns = 0;
    int64_t pending_off_cpu = -1;  // stack waiting for this thread's switch-in
    uint64_t switched_out_ns = 0;
    bool out_preempted = false;  // the last switch-out was involuntary
    uint64_t lost = 0;           // records lost while this thread was writing (see LostEvent)
  };
  ThreadInfo& thread(uint32_t pid, uint32_t tid, uint64_t time_ns);

  Unwinder unwinder_;
  perf::UnwindMode method_;
  UserStack scratch_;
  std::vector<uint64_t> pcs_;
  std::vector<Stack> stacks_;
  std::map<uint32_t, ThreadInfo> threads_;
  // build() in two passes over the images: every address named first (so an inlined frame
  // can take the id of its function's out-of-line copy in any image), then the trees.
  size_t name_image(const Image& image, const std::vector<const Stack*>& stacks, FrameNames& names,
                    FunctionTable& table, AddressSymbols& symbols, std::vector<std::string>& warnings);
  void build_image(const Image& image, size_t names_index, const std::vector<const Stack*>& stacks,
                   const FrameNames& names, FunctionTable& table, Profile& p);
  bool inlined_frames_ = true;
  static bool inside_measured_call(const CallTree& tree, NodeId node);
  using RootedPrefixes = std::unordered_map<uint64_t, std::span<const uint64_t>>;
  RootedPrefixes rooted_prefixes(const Image& image, const std::vector<const Stack*>& stacks, const FrameNames& names,
                                 size_t names_index, const Profile& p) const;

  // System calls, aggregated per (thread, image, path, call) as they arrive: a program
  // can make millions, each path only needs its sums.
  struct SyscallPath {
    uint32_t pid, tid, image;
    uint32_t first, count;  // frames in pcs_, outermost first
    std::string_view name;
    SyscallSums sums;
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using StringMap = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;
  std::vector<SyscallPath> syscall_paths_;
  StringMap syscall_path_index_;  // key: tid, image, nr, kernel chain, user frames
  // Entry stacks unwound by libdwfl (where the fast walk could not), memoized.
  std::unordered_map<std::string, std::vector<uint64_t>, StringHash, std::equal_to<>> user_frames_;
  std::string key_;               // scratch, so keys cost no allocation
  std::vector<uint64_t> frames_;  // scratch: the fast walk's frames
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint32_t, SyscallStats>>
      syscall_stats_;  // (tid, image) -> nr -> stats
  bool syscall_time_is_wall_ = false;
  uint64_t sample_weight_ns_ = 0;  // 0: the sample's period (cpu-clock: ns)
  const std::vector<uint64_t>& syscall_user_frames(const perf::SyscallSample& call, uint32_t image);
  void add_syscall(const perf::SyscallSample& call, uint32_t image);
  struct WaitingSyscall {
    perf::SyscallSample call;  // its spans are set from the vectors below when it is added
    std::vector<uint64_t> user_chain, kernel_chain;
    std::vector<uint8_t> window;
  };
  std::vector<WaitingSyscall> waiting_syscalls_;
  // A record of `pid` at `time_ns` came in order: its calls up to then can be added.
  void caught_up(uint32_t pid, uint64_t time_ns);
  bool walk_syscall_entry(const perf::SyscallSample& call, std::vector<uint64_t>& out);
  void unwind_syscall_entry(const perf::SyscallSample& call, std::vector<uint64_t>& out);

  std::vector<MeasuredPath> measured_;
  std::unique_ptr<AddressSymbols> symbols_;               // null: file_address_symbols() at build()
  LoadBiases load_biases_;                                // by path, start, file offset and build id
  std::map<Image, std::vector<perf::Mapping>> mappings_;  // executable mappings, for symbolization
  std::map<uint32_t, uint32_t> images_;                   // pid -> current exec count
  std::map<uint32_t, uint32_t> parents_;                  // pid -> parent pid (fork)
  Counts counts_;
};

}  // namespace callprof::stacks
