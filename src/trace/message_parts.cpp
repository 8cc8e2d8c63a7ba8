#include "trace/message_parts.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <bit>
#include <cstring>

namespace callprof::trace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

namespace {

// Calls visit(start, tag, value, end) for each field of the message in `bytes`: [start,
// end) are the field's bytes, tag included, `value` a length-delimited field's contents
// (empty for other wire types). false when the bytes are not a message or visit returns
// false.
template <typename Visit>
bool walk_fields(std::span<const uint8_t> bytes, Visit&& visit) {
  // Sizes fit an int: the container caps a payload below 2 GiB (kMaxPayloadSize).
  CodedInputStream in(bytes.data(), int(bytes.size()));
  for (;;) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return start == int(bytes.size());  // the end, or bytes that are no tag (a zero byte included)
    std::span<const uint8_t> value;
    if (WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length) || length > bytes.size() - size_t(in.CurrentPosition())) return false;
      value = bytes.subspan(size_t(in.CurrentPosition()), length);
      if (!in.Skip(int(length))) return false;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
    if (!visit(size_t(start), tag, value, size_t(in.CurrentPosition()))) return false;
  }
}

uint32_t length_delimited(uint32_t field_number) {
  return WireFormatLite::MakeTag(int(field_number), WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

}  // namespace

std::optional<MessageParts> split_message(std::span<const uint8_t> bytes, uint32_t field_number) {
  const uint32_t wanted = length_delimited(field_number);
  MessageParts parts;
  const bool ok = walk_fields(bytes, [&](size_t start, uint32_t tag, std::span<const uint8_t> value, size_t end) {
    if (tag == wanted)
      parts.field.push_back(value);
    else
      parts.rest.append(reinterpret_cast<const char*>(bytes.data()) + start, end - start);
    return true;
  });
  if (!ok) return std::nullopt;
  return parts;
}

std::optional<size_t> thread_node_count(std::span<const uint8_t> bytes) {
  const uint32_t tree_tag = length_delimited(file::Thread::kTreeFieldNumber);
  const uint32_t packed_parents = length_delimited(file::PackedCallTree::kParentFieldNumber);
  const uint32_t one_parent =
      WireFormatLite::MakeTag(file::PackedCallTree::kParentFieldNumber, WireFormatLite::WIRETYPE_VARINT);
  size_t nodes = 0;
  auto count_parents = [&](size_t, uint32_t tag, std::span<const uint8_t> value, size_t) {
    if (tag == one_parent) ++nodes;
    if (tag != packed_parents) return true;
    const std::optional<size_t> n =
        packed_varint_count(std::string_view(reinterpret_cast<const char*>(value.data()), value.size()));
    nodes += n.value_or(0);
    return n.has_value();
  };
  const bool ok = walk_fields(bytes, [&](size_t, uint32_t tag, std::span<const uint8_t> tree, size_t) {
    return tag != tree_tag || walk_fields(tree, count_parents);
  });
  if (!ok) return std::nullopt;
  return nodes;
}

std::optional<ThreadMessage> parse_thread_message(std::span<const uint8_t> bytes) {
  std::optional<MessageParts> parts = split_message(bytes, file::Thread::kTreeFieldNumber);
  if (!parts) return std::nullopt;
  ThreadMessage message;
  if (!message.thread.ParseFromString(parts->rest)) return std::nullopt;
  // A field given more than once merges, as protobuf reads any message field.
  for (std::span<const uint8_t> tree : parts->field) {
    CodedInputStream in(tree.data(), int(tree.size()));
    if (!message.tree.MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) return std::nullopt;
  }
  return message;
}

std::optional<size_t> packed_varint_count(std::string_view bytes) {
  if (!bytes.empty() && (uint8_t(bytes.back()) & 0x80)) return std::nullopt;
  // A varint ends at each byte without the continuation bit: count them eight at a time.
  size_t ends = 0, at = 0;
  for (; at + 8 <= bytes.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + at, 8);
    ends += 8 - size_t(std::popcount(word & 0x8080808080808080u));
  }
  for (; at < bytes.size(); ++at) ends += (uint8_t(bytes[at]) & 0x80) == 0;
  return ends;
}

bool decode_packed_varints(std::string_view bytes, std::span<uint64_t> out) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
  for (uint64_t& value : out)
    if (!in.ReadVarint64(&value)) return false;
  return true;
}

}  // namespace callprof::trace
