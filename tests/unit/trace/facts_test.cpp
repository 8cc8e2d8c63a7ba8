// The typed recording facts and the function kinds survive a round trip, and files written
// before they were typed (string keys in `extra`, no kind) read into the same fields.
#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

Profile round_trip(const Profile& profile) {
  Result<std::vector<uint8_t>> bytes = serialize_profile(profile);
  EXPECT_TRUE(bytes.ok());
  Result<Profile> back = parse_profile(*bytes, "mem");
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message);
  return back.ok() ? std::move(back).value() : Profile{};
}

TEST(Facts, TypedFactsRoundTrip) {
  Profile p = test::small_profile();
  p.meta.exact = ExactFacts{.offcpu = false,
                            .alloc = true,
                            .ordered_clock = true,
                            .auto_fold = "all",
                            .include = "^f",
                            .max_depth = 7,
                            .unmatched_exits = 3,
                            .calibration = "measured",
                            .calibration_change_at_exit = -0.024,
                            .attached = true,
                            .frames_open_at_attach = 7,
                            .threads_open_at_attach = 3,
                            .threads_without_hooks = 2};
  p.meta.sampling = SamplingFacts{.event = "cycles",
                                  .frequency_hz = 4999,
                                  .unwind = Unwinding::Dwarf,
                                  .samples = 12,
                                  .lost_records = 2,
                                  .lost_samples = 1ull << 40,
                                  .truncated_stacks = 5,
                                  .inlined_frames = false};
  p.meta.syscalls = SyscallFacts{.selection = "file,!close", .stacks = "full", .events = 9, .unpaired_exits = 1};
  p.meta.compensated = true;
  p.meta.snapshot = true;
  const Profile back = round_trip(p);
  ASSERT_TRUE(back.meta.exact && back.meta.sampling && back.meta.syscalls);
  EXPECT_FALSE(back.meta.exact->offcpu);
  EXPECT_TRUE(back.meta.exact->alloc);
  EXPECT_TRUE(back.meta.exact->ordered_clock);
  EXPECT_EQ(back.meta.exact->auto_fold, "all");
  EXPECT_EQ(back.meta.exact->include, "^f");
  EXPECT_EQ(back.meta.exact->max_depth, 7u);
  EXPECT_EQ(back.meta.exact->unmatched_exits, 3u);
  EXPECT_TRUE(back.meta.exact->attached);
  EXPECT_EQ(back.meta.exact->frames_open_at_attach, 7u);
  EXPECT_EQ(back.meta.exact->threads_open_at_attach, 3u);
  EXPECT_EQ(back.meta.exact->threads_without_hooks, 2u);
  EXPECT_EQ(back.meta.exact->calibration_change_at_exit, -0.024);
  p.meta.exact->calibration_change_at_exit.reset();
  EXPECT_FALSE(round_trip(p).meta.exact->calibration_change_at_exit) << "not checked again: none, not 0";
  EXPECT_EQ(back.meta.sampling->event, "cycles");
  EXPECT_EQ(back.meta.sampling->frequency_hz, 4999u);
  EXPECT_EQ(back.meta.sampling->lost_samples, 1ull << 40);
  EXPECT_EQ(back.meta.sampling->truncated_stacks, 5u);
  EXPECT_FALSE(back.meta.sampling->inlined_frames);
  EXPECT_EQ(back.meta.syscalls->selection, "file,!close");
  EXPECT_EQ(back.meta.syscalls->unpaired_exits, 1u);
  EXPECT_TRUE(back.meta.compensated);
  EXPECT_TRUE(back.meta.snapshot);
}

// Files written before --no-inline existed showed inlined frames.
TEST(Facts, SamplingFactsWithoutTheNewFieldsShowInlinedFrames) {
  Profile p = test::small_profile();
  p.meta.sampling = SamplingFacts{};
  const Profile back = round_trip(p);
  ASSERT_TRUE(back.meta.sampling);
  EXPECT_TRUE(back.meta.sampling->inlined_frames);
  EXPECT_EQ(back.meta.sampling->truncated_stacks, 0u);
}

TEST(Facts, AbsentFactsStayAbsent) {
  const Profile back = round_trip(test::small_profile());
  EXPECT_FALSE(back.meta.exact || back.meta.sampling || back.meta.syscalls);
  EXPECT_FALSE(back.meta.compensated);
}

TEST(Facts, LegacyStringKeysBecomeTypedFields) {
  file::Profile payload = trace::to_proto(test::small_profile());
  auto add = [&](const char* k, const char* v) {
    file::ExtraEntry* e = payload.mutable_metadata()->add_extra();
    e->set_key(k);
    e->set_value(v);
  };
  add("frequency_hz", "999");
  add("samples", "123");
  add("unwind", "fp");
  add("lost_records", "\x1b]0;title\x07");  // not a number: reads as 0, never reaches a terminal
  add("syscall_events", "5");
  add("syscalls", "write");
  add("compensated", "yes");
  add("user_note", "kept");
  Result<Profile> p = parse_profile(test::file_with_payload(payload), "old");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->meta.sampling);
  EXPECT_EQ(p->meta.sampling->frequency_hz, 999u);
  EXPECT_EQ(p->meta.sampling->samples, 123u);
  EXPECT_EQ(p->meta.sampling->event, "cpu-clock");
  EXPECT_EQ(p->meta.sampling->lost_records, 0u);
  ASSERT_TRUE(p->meta.syscalls);
  EXPECT_EQ(p->meta.syscalls->events, 5u);
  EXPECT_EQ(p->meta.syscalls->selection, "write");
  EXPECT_TRUE(p->meta.compensated);
  EXPECT_EQ(p->meta.extra, (std::map<std::string, std::string>{{"user_note", "kept"}}));
}

TEST(Facts, FunctionKindsRoundTripAndOldFilesInferThem) {
  Profile p = test::small_profile();
  for (auto [name, kind] : {std::pair{"[syscall] write", FunctionKind::Syscall},
                            {"schedule", FunctionKind::Kernel},
                            {"[pruned]", FunctionKind::Pruned}}) {
    Function f;
    f.name = name;
    f.kind = kind;
    p.functions.push_back(f);
  }
  const size_t n = p.functions.size();
  const Profile back = round_trip(p);
  EXPECT_EQ(back.functions[n - 3].kind, FunctionKind::Syscall);
  EXPECT_EQ(back.functions[n - 2].kind, FunctionKind::Kernel);
  EXPECT_EQ(back.functions[n - 1].kind, FunctionKind::Pruned);
  EXPECT_EQ(back.functions[0].kind, FunctionKind::Normal);

  file::Profile old = trace::to_proto(p);
  for (file::Function& f : *old.mutable_functions()) f.clear_kind();
  old.mutable_functions(int(n - 2))->set_name("[thread] worker");
  Result<Profile> read = parse_profile(test::file_with_payload(old), "old");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->functions[n - 3].kind, FunctionKind::Syscall);
  EXPECT_EQ(read->functions[n - 2].kind, FunctionKind::ThreadGroup);
  EXPECT_EQ(read->functions[n - 1].kind, FunctionKind::Pruned);
  EXPECT_EQ(read->functions[0].kind, FunctionKind::Normal);
}

TEST(Facts, KindFromANewerWriterReadsAsNormal) {
  file::Profile payload = trace::to_proto(test::small_profile());
  payload.mutable_functions(0)->set_kind(file::FunctionKind(99));
  Result<Profile> p = parse_profile(test::file_with_payload(payload), "new");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->functions[0].kind, FunctionKind::Normal);
}

}  // namespace
}  // namespace callprof
