// The perf session's source: samples, probe hits' stacks and system calls' entry stacks,
// unwound and symbolized as they arrive by the sample collector (collect/stacks) and built
// into one profile. In sample, syscall and probe modes it builds the recording's trees; in
// exact mode (with --syscalls or -F) its session only says where code is mapped, and the
// system calls no exact-mode caller claimed hang into the exact trees by identity
// (model/transform/attach_syscalls.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collect/perf/perf_session.h"
#include "collect/stacks/sample_collector.h"
#include "record/options.h"
#include "record/reporter.h"
#include "record/source.h"

namespace callprof::record {

class StackSource final : public Source {
 public:
  // `unwind_reason`: why --call-graph auto chose what it chose ("" when the user chose).
  StackSource(const RecordArgs& args, Mode mode, Reporter& reporter, std::string unwind_reason);

  stacks::SampleCollector& collector() { return *collector_; }
  // The session's options for the mode (probe sites are added by ProbeSource::configure).
  perf::SamplingOptions options() const;
  // The perf session, once the target is launched or attached (none in exact mode attached).
  void use(perf::PerfSession session);
  perf::PerfSession* perf() { return perf_ ? &*perf_ : nullptr; }
  const std::string& unwind_reason() const { return unwind_reason_; }

  void contribute(Assembly& a) override;
  std::string written(const Profile& p, const std::string& path, bool final) const override;
  std::vector<std::string> details() const override;

 private:
  void build(Assembly& a);
  void attach_to_exact(Assembly& a);
  void stamp_sampling(Profile& p) const;

  const RecordArgs& args_;
  Mode mode_;
  Reporter& reporter_;
  std::string unwind_reason_;
  std::unique_ptr<stacks::SampleCollector> collector_;
  std::optional<perf::PerfSession> perf_;
};

}  // namespace callprof::record
