// The exact-mode process and thread fields (images, death signals, snapshots, hook
// constants, loss counters, off-CPU state) and every metric survive a round trip, and
// files written before these fields existed read with the documented defaults.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_profiles.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

Profile exact_profile() {
  Profile p = test::small_profile();
  p.processes = {Process{.pid = 7, .ppid = 1, .image = 0, .command = "./app", .start_ns = 10, .end_ns = 20},
                 Process{.pid = 7,
                         .ppid = 1,
                         .image = 2,
                         .command = "/bin/true x",
                         .start_ns = 20,
                         .end_ns = 30,
                         .death_signal = 9,
                         .complete = false,
                         .hook_inner_ns = 7.25,
                         .hook_outer_ns = 3.5,
                         .excluded_hook_ns = 1.0 / 3,
                         .hook_removal = true,
                         .rewritten_sites = 12,
                         .rewrite_refused_errno = 0,
                         .counting_sites = 3,
                         .uncounted_sites = 1,
                         .counts_unhooked_calls = true,
                         .removed_hooks = {{1, 25, true}, {0, 27}}}};
  Thread& t = p.threads[0];
  t.depth_limited_calls = 11;
  t.short_calls = 1ull << 40;
  t.lost_events = 5;
  t.prunes = 4000000000u;
  t.offcpu = Thread::OffCpu::Measured;
  Thread other = test::make_thread(8, 7);
  other.offcpu = Thread::OffCpu::Unavailable;
  const NodeId leaf = other.tree.path(std::vector<FunctionId>{0, 1});
  for (size_t m = 0; m < kMetricCount; ++m) other.tree.base(leaf)[Metric(m)] = 1000 + m;  // every column
  SyscallStats write;
  write.name = "write";
  write.number = 1;
  write.add(1500, 0);
  write.add(2'000'000'000, 9);
  write.add(70, 9);
  t.syscalls.push_back(write);
  SyscallStats none;  // traced, but no call returned (exit_group)
  none.name = "exit_group";
  none.number = 231;
  t.syscalls.push_back(none);
  p.threads.push_back(std::move(other));
  return p;
}

Profile round_trip(const Profile& profile) {
  Result<std::vector<uint8_t>> bytes = serialize_profile(profile);
  EXPECT_TRUE(bytes.ok());
  Result<Profile> back = parse_profile(*bytes, "mem");
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? std::move(back).value() : Profile{};
}

TEST(ExactFields, RoundTripKeepsProcessAndThreadFieldsAndEveryMetric) {
  const Profile profile = exact_profile();
  test::expect_same_profile(profile, round_trip(profile));
}

TEST(ExactFields, EveryMetricHasItsNamedColumn) {
  const file::Profile payload = trace::to_proto(exact_profile());
  const file::CallTree& tree = payload.threads(1).tree();
  ASSERT_EQ(size_t(tree.metrics_size()), kMetricCount);
  for (size_t m = 0; m < kMetricCount; ++m) EXPECT_EQ(tree.metrics(int(m)).name(), kMetricInfo[m].name);
}

TEST(ExactFields, FilesWithoutTheFieldsReadWithDefaults) {
  // A payload that never sets the new fields: what every file written before them holds.
  file::Profile payload = test::minimal_payload();
  file::Process* process = payload.add_processes();
  process->set_pid(1);
  Result<Profile> profile = parse_profile(test::file_with_payload(payload), "old");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const Process& p = profile->processes[0];
  EXPECT_EQ(p.image, 0u);
  EXPECT_EQ(p.death_signal, 0);
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.hook_inner_ns, 0.0);
  EXPECT_EQ(p.hook_outer_ns, 0.0);
  EXPECT_EQ(p.excluded_hook_ns, 0.0);
  const Thread& t = profile->threads[0];
  EXPECT_EQ(t.offcpu, Thread::OffCpu::Off);
  EXPECT_EQ(t.depth_limited_calls + t.short_calls + t.lost_events + t.prunes, 0u);
}

TEST(ExactFields, CommittedVersion1FileReadsAsCompleteWithoutConstants) {
  Result<Profile> profile = read_profile(std::string(CALLPROF_TRACE_TEST_DATA) + "/v1_rich.bin");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  for (const Process& p : profile->processes) {
    EXPECT_TRUE(p.complete);
    EXPECT_EQ(p.hook_inner_ns + p.hook_outer_ns + p.excluded_hook_ns, 0.0);
  }
  for (const Thread& t : profile->threads) EXPECT_EQ(t.offcpu, Thread::OffCpu::Off);
}

TEST(ExactFields, UnknownOffCpuStateReadsAsUnavailable) {
  file::Profile payload = test::minimal_payload();
  payload.mutable_threads(0)->set_offcpu(file::OffCpu(17));
  Result<Profile> profile = parse_profile(test::file_with_payload(payload), "f");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->threads[0].offcpu, Thread::OffCpu::Unavailable);
}

TEST(ExactFields, ImpossibleHookConstantsAreInvalid) {
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 2e9}) {
    file::Profile payload = test::minimal_payload();
    file::Process* process = payload.add_processes();
    process->set_pid(3);
    process->set_hook_outer_ns(bad);
    test::expect_error(parse_profile(test::file_with_payload(payload), "f"), "f",
                       "invalid (process 0 with pid 3: hook_outer_ns is");
  }
}

TEST(ExactFields, RemovedHooksMustNameAFunction) {
  file::Profile payload = test::minimal_payload();
  file::Process* process = payload.add_processes();
  process->set_pid(3);
  file::RemovedHooks* removed = process->add_removed_hooks();
  removed->set_function(uint32_t(payload.functions_size()));
  test::expect_error(parse_profile(test::file_with_payload(payload), "f"), "f",
                     "invalid (process 0 with pid 3: removed hooks name function 1, but there are 1 functions");
}

// System-call statistics whose counts do not add up would show impossible percentiles or
// error shares: refused with the place named.
TEST(ExactFields, SyscallCountsMustAddUp) {
  auto with = [&](auto&& damage) {
    file::Profile payload = trace::to_proto(exact_profile());
    file::Syscall* s = payload.mutable_threads(0)->mutable_syscalls(0);
    damage(*s);
    return parse_profile(test::file_with_payload(payload), "bad.callprof");
  };
  EXPECT_TRUE(with([](file::Syscall&) {}).ok());
  test::expect_error(with([](file::Syscall& s) { s.set_errors(s.calls() + 1); }), "bad.callprof",
                     "more errors than calls");
  test::expect_error(with([](file::Syscall& s) { s.set_calls(s.calls() + 1); }), "bad.callprof", "do not add up");
  test::expect_error(with([](file::Syscall& s) { s.add_duration_buckets(1); }), "bad.callprof", "unequal columns");
  test::expect_error(with([](file::Syscall& s) { s.set_duration_buckets(1, 0); }), "bad.callprof", "out of order");
  test::expect_error(with([](file::Syscall& s) { s.mutable_errnos(0)->set_calls(5); }), "bad.callprof",
                     "do not add up");
  test::expect_error(with([](file::Syscall& s) { s.set_min_ns(s.max_ns() + 1); }), "bad.callprof", "shortest call");
}

}  // namespace
}  // namespace callprof
