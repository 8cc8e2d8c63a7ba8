// Samples inside exact mode (record -F HZ in exact mode): the tracer's CPU-clock ticks of
// the program's threads, each with the node that was on top of the thread's shadow stack,
// summed per thread, node and address as they arrive. The exact profile's builder places
// them (collect/runtime/node_samples.h). A tick in the runtime's own code is the profiler's
// cost: counted apart, in no tree.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "collect/runtime/node_samples.h"
#include "collect/syscalls/syscall_tracer.h"

namespace callprof::record {

class ExactSamples {
 public:
  void add(const syscalls::SampleEvent& e);
  // A process image replaced its code: the node ids of its threads start again.
  void exec(uint32_t pid) { ++images_[pid]; }

  std::vector<NodeSample> samples() const;
  uint64_t total() const { return total_; }
  uint64_t in_runtime() const { return in_runtime_; }  // flagged by the probe (busy word set)

 private:
  struct Key {
    uint32_t pid, tid, image, node;
    uint64_t fn, ip;
    bool in_kernel;
    auto operator<=>(const Key&) const = default;
  };
  struct Sum {
    int64_t first_ns;
    uint64_t count;
  };
  std::map<Key, Sum> sums_;
  std::unordered_map<uint32_t, uint32_t> images_;  // pid -> execs seen
  uint64_t total_ = 0, in_runtime_ = 0;
};

}  // namespace callprof::record
