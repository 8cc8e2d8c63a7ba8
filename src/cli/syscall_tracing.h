// `--syscalls`: the eBPF tracer (src/collect/syscalls) next to a perf session, whose
// records say where each process's code is mapped. Each completed call goes into the same
// record stream as samples (RecordSink::on_syscall), so it is unwound and symbolized by
// the sampling collector and lands on a `[syscall] NAME` leaf of its path.
#pragma once

#include <sys/types.h>

#include <memory>

#include "cli/record_options.h"
#include "collect/sampling/perf_decode.h"
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
  // Hands over what the ring holds now (does not wait).
  void poll(sampling::RecordSink& sink);
  // Hands over everything left, once the traced processes have ended or were detached.
  void finish(sampling::RecordSink& sink);
  // The selection, stack mode and every counter (events, losses) into the metadata.
  void annotate(Metadata& meta) const;
  uint64_t events() const;

 private:
  explicit SyscallTracing(std::unique_ptr<syscalls::SyscallTracer> tracer, const SyscallArgs& args);
  std::unique_ptr<syscalls::SyscallTracer> tracer_;
  SyscallArgs args_;
};

}  // namespace callprof::cli
