// The file keeps offcpu_ns inclusive of the wait for a CPU (docs/format.md), the model keeps
// them apart (model/time_split.h): the writer stores blocked + preempted, also for a tree whose
// switched-out time was all preempted, and the reader gives back both parts, also when asked
// to skip preempted_ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "test_profiles.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

// One thread, root -> f (a node whose self time splits three ways) -> g (on the CPU only).
Profile split_profile(uint64_t blocked, uint64_t preempted) {
  Profile p;
  p.meta.mode = RecordingMode::Exact;
  p.functions.resize(2);
  p.functions[0].name = "f";
  p.functions[1].name = "g";
  Thread t = test::make_thread(1, 1);
  t.offcpu = Thread::OffCpu::Measured;
  const NodeId f = t.tree.child(kRootNode, 0), g = t.tree.child(f, 1);
  MetricRowRef m = t.tree.base(f);
  m[Metric::Calls] = 1;
  m[Metric::WallNs] = 1000 + blocked + preempted;
  m[Metric::CpuNs] = 1000;
  m[Metric::OffCpuNs] = blocked;
  m[Metric::PreemptedNs] = preempted;
  t.tree.base(g)[Metric::Calls] = 1;
  t.tree.base(g)[Metric::WallNs] = 50;
  t.tree.base(g)[Metric::CpuNs] = 50;
  p.threads.push_back(std::move(t));
  return p;
}

// The stored column `name` of the only thread's tree, as the file holds it; nullopt: none.
std::optional<std::vector<uint64_t>> stored_column(const Profile& p, std::string_view name) {
  const file::Profile message = trace::to_proto(p);
  EXPECT_EQ(message.threads_size(), 1);
  for (const file::MetricColumn& c : message.threads(0).tree().metrics())
    if (c.name() == name) return std::vector<uint64_t>(c.values().begin(), c.values().end());
  return std::nullopt;
}

Profile read_back(const Profile& p, const ReadOptions& options = {}) {
  Result<std::vector<uint8_t>> bytes = serialize_profile(p);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  Result<Profile> back = parse_profile(*bytes, "mem", options);
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? std::move(back).value() : Profile{};
}

TEST(OffCpuSplit, TheFileStoresBlockedPlusPreemptedAndTheReaderSplitsIt) {
  const Profile p = split_profile(300, 200);
  const auto offcpu = stored_column(p, "offcpu_ns");
  ASSERT_TRUE(offcpu.has_value());
  EXPECT_EQ(*offcpu, (std::vector<uint64_t>{0, 500, 0})) << "root, f, g: f's 300 blocked + 200 preempted";
  const auto preempted = stored_column(p, "preempted_ns");
  ASSERT_TRUE(preempted.has_value());
  EXPECT_EQ(*preempted, (std::vector<uint64_t>{0, 200, 0}));
  const Profile back = read_back(p);
  ASSERT_EQ(back.threads.size(), 1u);
  const MetricRow f = back.threads[0].tree.base(1);
  EXPECT_EQ(f[Metric::OffCpuNs], 300u);
  EXPECT_EQ(f[Metric::PreemptedNs], 200u);
  EXPECT_EQ(f[Metric::CpuNs] + f[Metric::OffCpuNs] + f[Metric::PreemptedNs], f[Metric::WallNs]);
  test::expect_same_profile(p, back);
}

// The bug this guards against: the writer judged the model's (blocked-only) column empty
// before adding the preempted time, so such a tree had no offcpu_ns column and a reader that
// knows nothing of preempted_ns saw no off-CPU time at all.
TEST(OffCpuSplit, ATreeWhoseOffCpuTimeWasAllPreemptedKeepsItsOffCpuColumn) {
  const Profile p = split_profile(0, 600);
  ASSERT_FALSE(p.threads[0].tree.base_table().has(Metric::OffCpuNs)) << "no blocked time in the model";
  const auto offcpu = stored_column(p, "offcpu_ns");
  ASSERT_TRUE(offcpu.has_value()) << "the file's off-CPU time includes the preempted time";
  EXPECT_EQ(*offcpu, (std::vector<uint64_t>{0, 600, 0}));
  EXPECT_EQ(stored_column(p, "preempted_ns"), (std::vector<uint64_t>{0, 600, 0}));
  const Profile back = read_back(p);
  ASSERT_EQ(back.threads.size(), 1u);
  const MetricRow f = back.threads[0].tree.base(1);
  EXPECT_EQ(f[Metric::OffCpuNs], 0u);
  EXPECT_EQ(f[Metric::PreemptedNs], 600u);
  EXPECT_EQ(f[Metric::CpuNs] + f[Metric::OffCpuNs] + f[Metric::PreemptedNs], f[Metric::WallNs]);
}

TEST(OffCpuSplit, NoSwitchedOutTimeWritesNoOffCpuColumn) {
  const Profile p = split_profile(0, 0);
  EXPECT_FALSE(stored_column(p, "offcpu_ns").has_value());
  EXPECT_FALSE(stored_column(p, "preempted_ns").has_value());
}

// ReadOptions::skip_metrics may name preempted_ns (a view that shows no preempted column):
// the reader still needs it to take it out of the file's offcpu_ns, and decodes it.
TEST(OffCpuSplit, SkippingPreemptedNeverLeavesItInTheOffCpuTime) {
  const Profile p = split_profile(300, 200);
  const Profile back = read_back(p, ReadOptions{.skip_metrics = {Metric::PreemptedNs, Metric::MinWallNs}});
  ASSERT_EQ(back.threads.size(), 1u);
  const MetricTable& base = back.threads[0].tree.base_table();
  EXPECT_EQ(base.get(1, Metric::OffCpuNs), 300u) << "blocked only";
  EXPECT_EQ(base.get(1, Metric::PreemptedNs), 200u);
  // Skipping both is skipping both: nothing is left to split.
  const Profile neither = read_back(p, ReadOptions{.skip_metrics = {Metric::OffCpuNs, Metric::PreemptedNs}});
  ASSERT_EQ(neither.threads.size(), 1u);
  EXPECT_FALSE(neither.threads[0].tree.base_table().has(Metric::OffCpuNs));
  EXPECT_FALSE(neither.threads[0].tree.base_table().has(Metric::PreemptedNs));
  // Skipping off-CPU alone keeps the wait for a CPU, which needs nothing else.
  const Profile wait = read_back(p, ReadOptions{.skip_metrics = {Metric::OffCpuNs}});
  ASSERT_EQ(wait.threads.size(), 1u);
  EXPECT_FALSE(wait.threads[0].tree.base_table().has(Metric::OffCpuNs));
  EXPECT_EQ(wait.threads[0].tree.base_table().get(1, Metric::PreemptedNs), 200u);
}

}  // namespace
}  // namespace callprof
