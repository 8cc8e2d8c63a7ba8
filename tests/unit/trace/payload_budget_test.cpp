// Counting a payload's elements on the wire, and the memory budget a file's size allows.
#include "trace/payload_budget.h"

#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(PayloadBudget, CountsWhatTheMessageHolds) {
  const Profile p = test::rich_profile();
  const std::string payload = trace::to_proto(p).SerializeAsString();
  auto c = trace::count_payload(bytes_of(payload));
  ASSERT_TRUE(c.ok()) << c.error().message;
  size_t nodes = 0;
  for (const Thread& t : p.threads) nodes += t.tree.size();
  EXPECT_EQ(c->threads, p.threads.size());
  EXPECT_EQ(c->nodes, nodes);
  EXPECT_EQ(c->functions, p.functions.size());
  EXPECT_EQ(c->processes, p.processes.size());
  EXPECT_EQ(c->modules, p.modules.size());
  EXPECT_TRUE(trace::check_payload_budget(bytes_of(payload), 100).ok());
}

TEST(PayloadBudget, MillionsOfEmptyThreadsInAFewBytesAreRefused) {
  std::string payload;
  for (int i = 0; i < 1'000'000; ++i) payload += std::string("\x2a\x00", 2);
  auto c = trace::count_payload(bytes_of(payload));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->threads, 1'000'000u);
  // As if zstd had packed these 2 MB into 1 KB: 64 MiB + 1 MiB allowed, ~1 GiB needed.
  const Status s = trace::check_payload_budget(bytes_of(payload), 1024);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("its 1000000 threads"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
}

TEST(PayloadBudget, MalformedWireIsCorrupted) {
  for (const std::string bad : {std::string("\x2a\x05\x00", 3), std::string("\x2a"), std::string("\x00\x00", 2),
                                std::string("\x2a\x03\x5a\x10\x0a", 5)}) {
    auto c = trace::count_payload(bytes_of(bad));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("corrupted"), std::string::npos);
  }
}

}  // namespace
}  // namespace callprof
