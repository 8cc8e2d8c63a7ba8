// The file container (internal): a fixed 32-byte little-endian header, then exactly one
// zstd frame holding the protobuf payload. Error messages here carry no file name: the
// public functions prefix it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "trace/byte_buffer.h"
#include "util/result.h"

namespace callprof::trace {

inline constexpr std::array<uint8_t, 8> kMagic = {'C', 'A', 'L', 'L', 'P', 'R', 'O', 'F'};
inline constexpr size_t kHeaderSize = 32;  // magic, u32 version, u32 flags, u64 x2 sizes
// The hard cap on a payload (docs/format.md, "Limits"): 1 GiB, about 20 million call paths,
// well under protobuf's 2 GiB.
inline constexpr uint64_t kMaxPayloadSize = 1ull << 30;
// And what its compressed size allows: zstd compresses honest profiles 3-50x (identical
// threads more); a file claiming more is a decompression bomb, refused from its header.
inline constexpr uint64_t kMaxCompressionRatio = 1024;
inline constexpr uint64_t kRatioAllowance = 1ull << 20;  // small files: up to 1 MiB whatever the ratio

struct FileHeader {
  uint32_t version = 0;
  uint32_t flags = 0;
  uint64_t uncompressed_size = 0;  // bytes of protobuf payload
  uint64_t compressed_size = 0;    // bytes of zstd frame following the header
};

// Checks everything the header alone can tell. `bytes` is the start of the file, and may
// be shorter than a header (then the file is truncated, or not a profile at all).
Result<FileHeader> decode_header(std::span<const uint8_t> bytes);

// Compares the header's compressed size with the bytes that follow the header.
Status check_payload_length(const FileHeader& header, uint64_t available);

// Verifies and decompresses the zstd frame that follows the header. Memory grows with the
// output actually produced, never just with what the header claims.
Result<std::string> decompress_payload(const FileHeader& header, std::span<const uint8_t> frame);

// Header plus zstd frame (level 3, content size and checksum recorded) around `payload`.
Result<ByteBuffer> wrap_payload_buffer(std::span<const uint8_t> payload);
// The same in a vector.
Result<std::vector<uint8_t>> wrap_payload(std::span<const uint8_t> payload);

}  // namespace callprof::trace
