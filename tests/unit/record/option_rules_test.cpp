// Which options apply to which mode: each mode accepts its own options and refuses the
// others' with the option, its owner and the mode in one line.
#include "record/option_rules.h"

#include <gtest/gtest.h>

namespace callprof::record {
namespace {

std::string refusal(std::vector<std::string> given, Mode mode, const std::string& why = "") {
  RecordArgs a;
  a.given = std::move(given);
  Status s = check_options_apply(a, mode, why);
  return s ? "" : s.error().message;
}

TEST(OptionRules, EachModeTakesItsOwnOptions) {
  EXPECT_EQ(
      refusal({"--alloc", "--include", "--max-depth", "--checkpoint", "--timeline", "-o", "--syscalls"}, Mode::Exact),
      "");
  EXPECT_EQ(refusal({"--freq", "--event", "--off-cpu", "--no-kernel", "--no-inline", "--timeline", "--children"},
                    Mode::Sample),
            "");
  EXPECT_EQ(refusal({"--children", "--timeline", "--timeline-events", "--syscall-stacks", "--syscall-stack-bytes"},
                    Mode::Syscall),
            "");
  EXPECT_EQ(refusal({"--children"}, Mode::Exact), "");
}

// -F in exact mode samples inside it (docs/modes.md, "Samples inside exact mode"), with
// record and with attach; only when given.
TEST(OptionRules, ExactModeSamplesWhenGivenAFrequency) {
  EXPECT_EQ(refusal({"--freq", "--syscalls"}, Mode::Exact), "");
  RecordArgs attached;
  attached.pid = 42;
  attached.given = {"--freq"};
  EXPECT_TRUE(check_options_apply(attached, Mode::Exact, ""));
  RecordArgs a;
  a.sampling.frequency = 1234;
  EXPECT_EQ(a.exact_sample_hz(), 0u) << "not given: no samples";
  a.given = {"--freq"};
  EXPECT_EQ(a.exact_sample_hz(), 1234u);
}

// --no-inline names the addresses of sampled stacks: exact mode's calls have no inline chains.
TEST(OptionRules, NoInlineIsASamplingOption) {
  EXPECT_EQ(refusal({"--no-inline", "--probe"}, Mode::Probe), "probe mode needs --probe REGEX (the functions to probe)")
      << "accepted: only the missing pattern is refused";
  EXPECT_EQ(refusal({"--no-inline"}, Mode::Exact),
            "--no-inline is a sampling option, but this recording is in exact mode");
  EXPECT_EQ(refusal({"--no-inline"}, Mode::Syscall),
            "--no-inline is a sampling option, but this recording is in syscall mode");
}

// Probe mode takes its own options, sampling's (-F adds samples) and --no-compensation,
// and needs a --probe; its options mean nothing elsewhere.
TEST(OptionRules, ProbeModeOptions) {
  RecordArgs a;
  a.probes.functions = {"^f$"};
  a.given = {"--probe", "--probe-module", "--probe-limit",     "--no-return-probes",
             "--freq",  "--call-graph",   "--no-compensation", "--syscalls"};
  EXPECT_TRUE(check_options_apply(a, Mode::Probe, ""));
  a.given = {"--alloc"};
  EXPECT_EQ(check_options_apply(a, Mode::Probe, "").error().message,
            "--alloc is an exact-mode option, but this recording is in probe mode");
  EXPECT_EQ(refusal({"--probe"}, Mode::Exact), "--probe is a probe-mode option, but this recording is in exact mode");
  EXPECT_EQ(refusal({"--probe-module"}, Mode::Sample),
            "--probe-module is a probe-mode option, but this recording is in sample mode");
  EXPECT_EQ(refusal({"--no-return-probes"}, Mode::Sample),
            "--no-return-probes is a probe-mode option, but this recording is in sample mode");
  EXPECT_EQ(refusal({}, Mode::Probe), "probe mode needs --probe REGEX (the functions to probe)");
}

TEST(OptionRules, AnotherModesOptionIsRefusedWithTheReason) {
  EXPECT_EQ(refusal({"--alloc"}, Mode::Sample, "./p has no -finstrument-functions hooks"),
            "--alloc is an exact-mode option, but this recording is in sample mode (./p has no "
            "-finstrument-functions hooks)");
  EXPECT_EQ(refusal({"--event"}, Mode::Exact), "--event is a sampling option, but this recording is in exact mode");
  EXPECT_EQ(refusal({"--timeline-min-duration"}, Mode::Syscall),
            "--timeline-min-duration is an exact-mode option, but this recording is in syscall mode");
  EXPECT_NE(refusal({"--snapshot-signal"}, Mode::Syscall), "");
  RecordArgs attached;
  attached.pid = 42;
  attached.given = {"--call-graph"};
  EXPECT_EQ(check_options_apply(attached, Mode::Syscall, "").error().message,
            "--call-graph is a sampling option, but attach records in syscall mode");
}

TEST(OptionRules, OptionsThatDependOnAnother) {
  RecordArgs a;
  a.given = {"--stack-bytes"};
  EXPECT_TRUE(check_options_apply(a, Mode::Sample, "")) << "auto may choose dwarf";
  a.sampling.call_graph = perf::UnwindMode::FramePointers;
  EXPECT_NE(check_options_apply(a, Mode::Sample, "").error().message.find("--call-graph dwarf"), std::string::npos);
  a.sampling.call_graph = perf::UnwindMode::Dwarf;
  EXPECT_TRUE(check_options_apply(a, Mode::Sample, ""));
  a.given = {"--syscall-stacks"};
  EXPECT_NE(check_options_apply(a, Mode::Sample, "").error().message.find("add --syscalls"), std::string::npos);
  a.syscalls.selection = "read";
  EXPECT_TRUE(check_options_apply(a, Mode::Sample, ""));
}

TEST(OptionRules, ModeNames) {
  auto automatic = parse_mode("auto");
  EXPECT_EQ(*automatic, std::nullopt);
  for (Mode m : {Mode::Exact, Mode::Sample, Mode::Syscall, Mode::Probe}) {
    auto parsed = parse_mode(std::string(mode_name(m)));
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_EQ(parse_mode("uprobe").error().message, "unknown mode 'uprobe' (auto, exact, sample, syscall or probe)");
}

}  // namespace
}  // namespace callprof::record
