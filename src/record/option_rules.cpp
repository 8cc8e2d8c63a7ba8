#include "record/option_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace callprof::record {
namespace {

enum ModeBit : unsigned { kExact = 1, kSample = 2, kSyscall = 4, kProbe = 8 };

unsigned bit(Mode mode) {
  switch (mode) {
    case Mode::Exact:
      return kExact;
    case Mode::Sample:
      return kSample;
    case Mode::Syscall:
      return kSyscall;
    case Mode::Probe:
      return kProbe;
  }
  return 0;
}

struct Rule {
  std::string_view option;
  unsigned modes;
  std::string_view owner;  // "an exact-mode option", for the message
};

// Options of every mode (-o, -q, --mode, --syscalls, --children, --timeline and
// --timeline-events: calls, samples or system calls on the timeline) are not listed. Exact mode
// always follows the processes the program starts (the runtime is inherited through
// LD_PRELOAD); there --children says that this is what is wanted.
constexpr Rule kRules[] = {
    {"--no-offcpu", kExact, "an exact-mode option"},
    {"--faults", kExact, "an exact-mode option"},
    {"--alloc", kExact, "an exact-mode option"},
    {"--libcalls", kExact, "an exact-mode option"},
    {"--no-compensation", kExact | kProbe, "an exact- and probe-mode option"},
    {"--recalibrate", kExact, "an exact-mode option"},
    {"--no-auto-fold", kExact, "an exact-mode option"},
    {"--auto-fold", kExact, "an exact-mode option"},
    {"--ordered-clock", kExact, "an exact-mode option"},
    {"--keep-hooks", kExact, "an exact-mode option"},
    {"--uncounted-folds", kExact, "an exact-mode option"},
    {"--fold-counts", kExact, "an exact-mode option"},
    {"--include", kExact, "an exact-mode filter"},
    {"--exclude", kExact, "an exact-mode filter"},
    {"--include-module", kExact, "an exact-mode filter"},
    {"--exclude-module", kExact, "an exact-mode filter"},
    {"--max-depth", kExact, "an exact-mode limit"},
    {"--min-duration", kExact, "an exact-mode limit"},
    {"--max-nodes", kExact, "an exact-mode limit"},
    {"--snapshot-signal", kExact, "an exact-mode snapshot option"},
    {"--snapshot-interval", kExact, "an exact-mode snapshot option"},
    {"--checkpoint", kExact, "an exact-mode snapshot option"},
    {"--timeline-min-duration", kExact, "an exact-mode option"},
    // Probe and exact mode sample too when asked (-F); probe hits' stacks follow --call-graph.
    {"--freq", kSample | kProbe | kExact, "a sampling option"},
    {"--event", kSample | kProbe, "a sampling option"},
    {"--call-graph", kSample | kProbe, "a sampling option"},
    {"--stack-bytes", kSample | kProbe, "a sampling option"},
    {"--off-cpu", kSample | kProbe, "a sampling option"},
    {"--no-kernel", kSample | kProbe, "a sampling option"},
    {"--no-inline", kSample | kProbe, "a sampling option"},
    {"--probe", kProbe, "a probe-mode option"},
    {"--probe-module", kProbe, "a probe-mode option"},
    {"--probe-limit", kProbe, "a probe-mode option"},
    {"--no-return-probes", kProbe, "a probe-mode option"},
    {"--probe-budget", kProbe, "a probe-mode option"},
};

bool has(const std::vector<std::string>& given, std::string_view option) {
  return std::find(given.begin(), given.end(), option) != given.end();
}

std::string mode_phrase(Mode mode, bool attach, const std::string& why) {
  std::string what = attach ? fmt::format("attach records in {} mode", mode_name(mode))
                            : fmt::format("this recording is in {} mode", mode_name(mode));
  return why.empty() ? what : what + " (" + why + ")";
}

}  // namespace

Status check_options_apply(const RecordArgs& args, Mode mode, const std::string& why_mode) {
  const std::vector<std::string>& given = args.given;
  for (const Rule& r : kRules) {
    if (!has(given, r.option) || (r.modes & bit(mode))) continue;
    return make_error(fmt::format("{} is {}, but {}", r.option, r.owner, mode_phrase(mode, args.attach(), why_mode)));
  }
  if (mode == Mode::Probe && args.probes.functions.empty())
    return make_error("probe mode needs --probe REGEX (the functions to probe)");
  if ((mode == Mode::Sample || mode == Mode::Probe) && has(given, "--stack-bytes") &&
      args.sampling.call_graph == perf::UnwindMode::FramePointers)
    return make_error("--stack-bytes sizes the stack copies of --call-graph dwarf, and the call graph is fp");
  if (!args.syscalls.enabled() && mode != Mode::Syscall)
    for (std::string_view o : {"--syscall-stacks", "--syscall-stack-bytes"})
      if (has(given, o)) return make_error(fmt::format("{} applies to traced system calls: add --syscalls NAMES", o));
  return Ok{};
}

}  // namespace callprof::record
