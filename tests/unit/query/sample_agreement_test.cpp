// Where exact mode's self CPU time and the samples inside it disagree: the samples of nodes
// only samples reached belong to the exact node above them; a difference within the
// samples' error (3 sqrt(n) periods) or under the floor is not one.
#include "query/sample_agreement.h"

#include <gtest/gtest.h>

#include <cmath>

#include "folded_profile.h"

namespace callprof {
namespace {

// 1 ms per sample. work measured 400 ms on CPU, but 200 of its samples are in folded tiny's
// code (a node with the calls counted before the fold); memcpy, which exact mode does not
// see (no calls), is work's too; agree measured what its samples say.
constexpr const char* kProfile =
    "main;work 400000000 calls=100 cpu=400000000 samples=150\n"
    "main;work;tiny 1000000 calls=1024 cpu=1000000 samples=200\n"
    "main;work;memcpy 0 samples=50\n"
    "main;agree 300000000 calls=10 cpu=300000000 samples=290\n"
    "main;agree;[kernel] 0 samples=20\n";

// The fixture gives every node a call; nodes only samples reached have none.
Profile profile() {
  Profile p = testing::folded(kProfile);
  CallTree& t = p.threads[0].tree;
  for (NodeId n = 1; n < t.size(); ++n)
    if (p.functions[t.nodes()[n].function].name == "memcpy" || p.functions[t.nodes()[n].function].name == "[kernel]")
      t.base(n)[Metric::Calls] = 0;
  return p;
}

TEST(SampleAgreement, FoldedTimeIsTheCallersAndUnseenCalleesCountForTheirCaller) {
  const Profile p = profile();
  const std::vector<SampleDisagreement> d = sample_disagreements(p.threads[0].tree, 1e6, true);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].function, testing::function_named(p, "work")) << "largest difference first";
  EXPECT_EQ(d[0].exact_ns, 400'000'000u);
  EXPECT_EQ(d[0].sampled_ns, 200'000'000u) << "its own 150 and memcpy's 50";
  EXPECT_EQ(d[0].error_ns, uint64_t(3 * std::sqrt(200.0) * 1e6 + 0.5));
  EXPECT_EQ(d[1].function, testing::function_named(p, "tiny"));
  EXPECT_EQ(d[1].sampled_ns, 200'000'000u);
  // agree: 300 ms measured, 310 samples (with the kernel's): within 3 sqrt(310) = 53 ms.
}

TEST(SampleAgreement, SmallDifferencesAreNotReported) {
  const Profile p = profile();
  EXPECT_EQ(sample_disagreements(p.threads[0].tree, 1e6, true, 0.5).size(), 0u) << "under half of all samples' time";
  const Profile none = testing::folded("main;work 100 calls=1 cpu=100\n");
  EXPECT_TRUE(sample_disagreements(none.threads[0].tree, 1e6, true).empty()) << "no samples, nothing to compare";
}

}  // namespace
}  // namespace callprof
