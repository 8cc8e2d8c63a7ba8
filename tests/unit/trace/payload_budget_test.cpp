// Counting a payload's elements and text on the wire, the memory limit a file's size (or
// CALLPROF_MEMORY_LIMIT) allows, and the refusals' messages.
#include "trace/payload_budget.h"

#include <gtest/gtest.h>

#include <cstdlib>

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
  EXPECT_EQ(c->payload_bytes, payload.size());
  EXPECT_TRUE(trace::check_payload_budget(bytes_of(payload), 100).ok());
}

TEST(PayloadBudget, MillionsOfEmptyThreadsInAFewBytesAreRefused) {
  std::string payload;
  for (int i = 0; i < 1'000'000; ++i) payload += std::string("\x2a\x00", 2);
  auto c = trace::count_payload(bytes_of(payload));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->threads, 1'000'000u);
  // As if zstd had packed these 2 MB into 1 KB: 64 MiB + 1 MiB allowed, ~1 GiB needed.
  const auto s = trace::check_payload_budget(bytes_of(payload), 1024);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("its 1000000 threads"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("set CALLPROF_MEMORY_LIMIT=995M"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
}

// A payload of `functions` functions named `name`, and one thread whose root calls each and,
// under each, every other one.
std::string named_payload(int functions, const std::string& name) {
  file::Profile p;
  for (int f = 0; f < functions; ++f) {
    file::Function* fn = p.add_functions();
    fn->set_name(name);
    fn->set_module(4294967295u);
  }
  file::CallTree* tree = p.add_threads()->mutable_tree();
  tree->add_parent(4294967295u);
  tree->add_function(4294967295u);
  for (int f = 0; f < functions; ++f) tree->add_parent(0), tree->add_function(uint32_t(f));
  for (int c = 0; c < functions; ++c)
    for (int f = 0; f < functions; ++f)
      if (f != c) tree->add_parent(uint32_t(c + 1)), tree->add_function(uint32_t(f));
  return p.SerializeAsString();
}

TEST(PayloadBudget, TextIsMeasuredEscapedAndNamesCountOnEachCallerCalleePair) {
  auto plain = trace::count_payload(bytes_of(named_payload(4, std::string(1000, 'a'))));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->function_text, 4000u);
  EXPECT_EQ(plain->called_functions, 4u);
  EXPECT_EQ(plain->called_text, 4000u);
  // 4 pairs from the root (its side names nothing) and 12 between functions.
  EXPECT_EQ(plain->edge_text, 4 * 1000u + 12 * 2000u);
  EXPECT_EQ(plain->thread_function_rows, 4u);
  // Bytes that escaping widens (control bytes, markup, non-ASCII) count 6 each.
  auto wide = trace::count_payload(bytes_of(named_payload(4, std::string(1000, '<'))));
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->function_text, 6 * 4000u);
  EXPECT_EQ(wide->edge_text, 6 * plain->edge_text);
}

TEST(PayloadBudget, FunctionsNoNodeCallsAreCostedButNotCalled) {
  file::Profile p;
  for (int f = 0; f < 1000; ++f) p.add_functions()->set_name("f" + std::to_string(f));
  auto c = trace::count_payload(bytes_of(p.SerializeAsString()));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->functions, 1000u);
  EXPECT_EQ(c->called_functions, 0u);
  EXPECT_GT(c->estimated_bytes(), 1000u * 512);
}

TEST(PayloadBudget, UnknownFieldsAreSmallItems) {
  // Top-level field 15 (unknown) twice, as a number and as text, and a thread's field 30
  // (unknown): protobuf keeps each.
  const std::string payload("\x78\x01\x7a\x02hi\x2a\x03\xf0\x01\x05", 11);
  auto c = trace::count_payload(bytes_of(payload));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->small_items, 3u);
  EXPECT_EQ(c->other_text, 2u);
}

TEST(PayloadBudget, TheHeaderAloneRefusesAPayloadTwiceTheLimit) {
  // 64 MiB + 512 x 1000 bytes allowed: a 33 MiB payload would take 66 MiB at least.
  EXPECT_TRUE(trace::check_header_budget(32ull << 20, 1000).ok());
  const Status s = trace::check_header_budget(33ull << 20, 1000);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("too large (its header declares a 34603008-byte payload", 0), 0u)
      << s.error().message;
}

TEST(PayloadBudget, SizesAreBytesOrBinaryMultiples) {
  EXPECT_EQ(trace::parse_memory_size("1048576").value(), 1048576u);
  EXPECT_EQ(trace::parse_memory_size("512M").value(), 512ull << 20);
  EXPECT_EQ(trace::parse_memory_size("4g").value(), 4ull << 30);
  EXPECT_EQ(trace::parse_memory_size("1.5GiB").value(), 3ull << 29);
  EXPECT_EQ(trace::parse_memory_size("64KB").value(), 64ull << 10);
  EXPECT_EQ(trace::parse_memory_size("2T").value(), 2ull << 40);
  for (const char* bad : {"", "G", "0", "-1G", "1.2.3M", "12X", "1e9", "4 G", "99999999999T"}) {
    auto r = trace::parse_memory_size(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("is not a memory size"), std::string::npos);
  }
}

TEST(PayloadBudget, TheVariableSetsTheLimitWhateverTheFileSize) {
  EXPECT_EQ(trace::memory_limit(1000).value(), (64ull << 20) + 512 * 1000);
  ASSERT_EQ(setenv("CALLPROF_MEMORY_LIMIT", "100M", 1), 0);
  EXPECT_EQ(trace::memory_limit(1000).value(), 100ull << 20);
  EXPECT_EQ(trace::memory_limit(1ull << 30).value(), 100ull << 20);
  const Status s = trace::check_header_budget(60ull << 20, 1000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("CALLPROF_MEMORY_LIMIT=100M allows 100 MiB"), std::string::npos)
      << s.error().message;
  ASSERT_EQ(setenv("CALLPROF_MEMORY_LIMIT", "much", 1), 0);
  auto bad = trace::memory_limit(1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "CALLPROF_MEMORY_LIMIT: 'much' is not a memory size (bytes, or a number with K, M, G or T: 512M, 4G)");
  unsetenv("CALLPROF_MEMORY_LIMIT");
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
