// The reader's pieces: a message split at one field, packed varints counted and decoded
// in place (trace/message_parts.h).
#include "trace/message_parts.h"

#include <gtest/gtest.h>

#include <array>

namespace callprof::trace {
namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

TEST(PackedVarints, CountsEveryValueAndRefusesACutOne) {
  EXPECT_EQ(packed_varint_count(""), 0u);
  // 0, 1, 127, 128 (2 bytes), 2^63 (10 bytes), and ten single-byte values past the
  // eight-byte blocks.
  std::string packed =
      std::string("\x00\x01\x7f\x80\x01", 5) + std::string(9, '\x80') + '\x01' + std::string(10, '\x05');
  EXPECT_EQ(packed_varint_count(packed), 15u);
  std::array<uint64_t, 15> values{};
  ASSERT_TRUE(decode_packed_varints(packed, values));
  EXPECT_EQ(values[0], 0u);
  EXPECT_EQ(values[1], 1u);
  EXPECT_EQ(values[2], 127u);
  EXPECT_EQ(values[3], 128u);
  EXPECT_EQ(values[4], uint64_t(1) << 63);
  EXPECT_EQ(values[14], 5u);
  EXPECT_EQ(packed_varint_count(packed + '\x81'), std::nullopt) << "ends inside a value";
}

TEST(PackedVarints, DecodingRefusesAnOverlongOrMissingValue) {
  std::array<uint64_t, 1> one{};
  EXPECT_FALSE(decode_packed_varints(std::string(10, '\xff') + '\x01', one)) << "eleven bytes";
  std::array<uint64_t, 2> two{};
  EXPECT_FALSE(decode_packed_varints("\x05", two)) << "one value where two are read";
}

TEST(SplitMessage, TakesOneFieldOutAndTheRestParsesWithoutIt) {
  file::Thread thread;
  thread.set_tid(7);
  thread.mutable_tree()->add_parent(4294967295u);
  thread.mutable_tree()->add_function(4294967295u);
  thread.set_short_calls(3);  // a field after the tree
  const std::string bytes = thread.SerializeAsString();
  const std::optional<MessageParts> parts = split_message(bytes_of(bytes), file::Thread::kTreeFieldNumber);
  ASSERT_TRUE(parts);
  ASSERT_EQ(parts->field.size(), 1u);
  file::Thread rest;
  ASSERT_TRUE(rest.ParseFromString(parts->rest));
  EXPECT_EQ(rest.tid(), 7u);
  EXPECT_EQ(rest.short_calls(), 3u);
  EXPECT_FALSE(rest.has_tree());

  const std::optional<ThreadMessage> message = parse_thread_message(bytes_of(bytes));
  ASSERT_TRUE(message);
  EXPECT_EQ(message->thread.tid(), 7u);
  EXPECT_EQ(message->tree.parent_size(), 1);
}

TEST(SplitMessage, BytesThatAreNoMessageAreRefused) {
  file::Thread thread;
  thread.set_tid(7);
  const std::string bytes = thread.SerializeAsString();
  EXPECT_FALSE(split_message(bytes_of(bytes + '\0'), 11)) << "a zero tag before the end";
  EXPECT_FALSE(split_message(bytes_of(bytes + '\x5a'), 11)) << "the field's length missing";
  EXPECT_FALSE(split_message(bytes_of(bytes + "\x5a\x05\x01"), 11)) << "the field longer than the bytes";
  EXPECT_FALSE(parse_thread_message(bytes_of(bytes + "\x5a\x02\x08\x80"))) << "a tree that is no message";
}

TEST(ThreadNodeCount, CountsTheTreesParentsWithoutParsingIt) {
  file::Thread thread;
  thread.set_tid(7);
  for (uint32_t parent : {4294967295u, 0u, 1u, 1u, 300u}) thread.mutable_tree()->add_parent(parent);
  thread.set_short_calls(3);
  const std::string bytes = thread.SerializeAsString();
  EXPECT_EQ(thread_node_count(bytes_of(bytes)), 5u);
  // A tree given twice merges (protobuf's rule for a message field): its parents add up.
  file::Thread more;
  more.mutable_tree()->add_parent(2u);
  EXPECT_EQ(thread_node_count(bytes_of(bytes + more.SerializeAsString())), 6u);
  // Unpacked parents (a writer may send a repeated scalar either way) count one each.
  const std::string unpacked("\x5a\x04\x08\x01\x08\x02", 6);  // tree (field 11) { parent: 1 parent: 2 }
  EXPECT_EQ(thread_node_count(bytes_of(unpacked)), 2u);
  EXPECT_EQ(thread_node_count(bytes_of(file::Thread().SerializeAsString())), 0u) << "no tree";
  EXPECT_FALSE(thread_node_count(bytes_of(bytes + '\x5a'))) << "not a message";
}

}  // namespace
}  // namespace callprof::trace
