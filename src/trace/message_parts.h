// Taking a payload apart without holding it whole: a message split at one field, a thread
// message with its tree's metric values still encoded, and those values counted and
// decoded in place (trace/profile.proto, PackedCallTree).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/profile.pb.h"

namespace callprof::trace {

// A message's bytes split at one length-delimited field: that field's occurrences (spans
// of the input) and the other fields' bytes, tags included, joined: they parse as the
// message without that field.
struct MessageParts {
  std::string rest;
  std::vector<std::span<const uint8_t>> field;
};
// nullopt when the bytes are not a message.
std::optional<MessageParts> split_message(std::span<const uint8_t> bytes, uint32_t field_number);

// A file::Thread's bytes as the thread without its tree, and its tree as a PackedCallTree;
// nullopt when they are not a Thread message.
struct ThreadMessage {
  file::Thread thread;
  file::PackedCallTree tree;
};
std::optional<ThreadMessage> parse_thread_message(std::span<const uint8_t> bytes);

// How many nodes a file::Thread's tree has (its parent entries), counted without parsing
// it; nullopt when the bytes are not a Thread message.
std::optional<size_t> thread_node_count(std::span<const uint8_t> bytes);

// How many varints packed `bytes` hold; nullopt when the last one is cut off.
std::optional<size_t> packed_varint_count(std::string_view bytes);
// The first out.size() varints of `bytes` into `out`; false when one is malformed (longer
// than ten bytes) or missing.
bool decode_packed_varints(std::string_view bytes, std::span<uint64_t> out);

}  // namespace callprof::trace
