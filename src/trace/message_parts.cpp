#include "trace/message_parts.h"

#include <bit>
#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace callprof::trace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

std::optional<MessageParts> split_message(std::span<const uint8_t> bytes, uint32_t field_number) {
  const uint32_t wanted = WireFormatLite::MakeTag(int(field_number), WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  MessageParts parts;
  // Sizes fit an int: the container caps a payload below 2 GiB (kMaxPayloadSize).
  CodedInputStream in(bytes.data(), int(bytes.size()));
  for (;;) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {  // the end, or bytes that are no tag (a zero byte included)
      if (start != int(bytes.size())) return std::nullopt;
      return parts;
    }
    if (tag == wanted) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length) || length > bytes.size() - size_t(in.CurrentPosition())) return std::nullopt;
      parts.field.push_back(bytes.subspan(size_t(in.CurrentPosition()), length));
      if (!in.Skip(int(length))) return std::nullopt;
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
    parts.rest.append(reinterpret_cast<const char*>(bytes.data()) + start, size_t(in.CurrentPosition() - start));
  }
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
