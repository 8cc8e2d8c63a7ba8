// The user's choices for a sampling session (SPEC §1.2): rate, unwinding method, off-CPU
// mode, ring size. Defaults follow `perf record -F 999 [--call-graph fp|dwarf,8192]`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace callprof::perf {

// How a sample's user stack is found: the perf session asks the kernel for it, and the
// unwinder (collect/stacks) reads what came.
enum class UnwindMode : uint8_t {
  FramePointers,  // the kernel walks the user stack (PERF_SAMPLE_CALLCHAIN, user + kernel);
                  // the unwinder cleans the chain
  Dwarf,          // registers and a copy of the user stack, unwound later through the modules'
                  // CFI; kernel chain as above
};
const char* to_string(UnwindMode mode);  // "fp", "dwarf" (--call-graph's names)

// What drives the samples: cpu-clock (a timer, everywhere) or a hardware counter (only
// where the machine has a PMU; virtual machines often have none).
enum class SampleEvent : uint8_t { CpuClock, Cycles, Instructions, CacheMisses, BranchMisses };
const char* to_string(SampleEvent event);

// Probe mode: a uprobe at a file offset of an ELF file (see collect/probes/probe_sites.h).
struct UprobeSite {
  std::string path;
  uint64_t offset = 0;
  bool needs_stack = true;  // false: only the registers (an exit needs its stack pointer)
  bool ret = false;         // a return probe (uretprobe) of the function entered at `offset`
};

struct SamplingOptions {
  SampleEvent event = SampleEvent::CpuClock;
  uint64_t frequency_hz = 999;  // cpu-clock samples per second of CPU time, per thread; 0: none
                                // (only mappings and tasks, for system calls traced alone)
  UnwindMode unwind = UnwindMode::FramePointers;
  uint32_t stack_bytes = 8192;   // DWARF: user stack copied per sample (multiple of 8, <= 65000)
  bool kernel_stacks = true;     // kernel part of the callchain
  bool off_cpu = false;          // also sample every switch-out, with PERF_RECORD_SWITCH pairs
  bool follow_children = false;  // keep records of processes the target forks
  size_t ring_bytes = 0;         // data area per CPU, a power of two; 0: default_ring_bytes()
  // Probe mode: opened wherever a sampler is (per thread and CPU, same rings), with the
  // user callchain and, with DWARF, the registers and stack_bytes of stack at each hit.
  std::vector<UprobeSite> uprobes;
};

// 256 KiB with frame pointers; with DWARF at least 512 KiB and room for 768 samples (8 MiB
// for 8 KiB stacks), so the reader has ~55 ms to run after its wakeup at 10 kHz. Measured
// here: a drained 2 MiB ring overflowed under parallel load (see docs/sampling.md).
size_t default_ring_bytes(const SamplingOptions& options);

}  // namespace callprof::perf
