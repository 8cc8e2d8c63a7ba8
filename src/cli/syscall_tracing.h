// `--syscalls`: the eBPF tracer (src/collect/syscalls) next to a perf session, whose
// records say where each process's code is mapped. Each completed call goes into the same
// collector as the samples (SampleCollector::on_syscall), so it is unwound and symbolized
// like them and lands on a `[syscall] NAME` leaf of its path.
#pragma once

#include <sys/types.h>

#include <memory>

#include "cli/record_options.h"
#include "collect/sampling/sample_collector.h"
#include "model/profile.h"
#include "util/result.h"

namespace callprof::syscalls {
class SyscallTracer;
}

namespace callprof::cli {

class SyscallTracing {
 public:
  // Loads the probe for the selection in `args` (nothing traced until add_process).
  static Result<std::unique_ptr<SyscallTracing>> open(const SyscallArgs& args, bool follow_children);
  ~SyscallTracing();

  Status add_process(pid_t pid);
  // Hands over what the ring holds now (does not wait). Between drains of the perf
  // session, so the mappings the stacks need are known.
  void poll(sampling::SampleCollector& collector);
  // Hands over everything left, once the traced processes have ended or were detached.
  void finish(sampling::SampleCollector& collector);
  // The selection, stack mode and every counter (events, losses) into the metadata.
  void annotate(Metadata& meta) const;
  int ring_fd() const;  // readable when the probe wants the reader

 private:
  explicit SyscallTracing(std::unique_ptr<syscalls::SyscallTracer> tracer, const SyscallArgs& args);
  std::unique_ptr<syscalls::SyscallTracer> tracer_;
  SyscallArgs args_;
  std::vector<uint64_t> chain_;  // scratch: the current event's user chain
};

}  // namespace callprof::cli
