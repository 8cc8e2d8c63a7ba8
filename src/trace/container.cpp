// The file container: the fixed header and the single zstd frame after it. Every field of
// the header is checked, and the frame must be exactly what the writer produces.
#include "trace/container.h"

#include <fmt/format.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

#include "trace/profile_file.h"
#include "util/huge_pages.h"

namespace callprof::trace {
namespace {

constexpr int kCompressionLevel = 3;
constexpr size_t kSmallPayload = 128 * 1024;
constexpr int kSmallPayloadTableLog = 12;
constexpr int kSmallPayloadLevel = 1;
constexpr std::array<uint8_t, 4> kZstdFrameMagic = {0x28, 0xB5, 0x2F, 0xFD};
// Frame header descriptor bits (RFC 8878, 3.1.1.1.1) that our frames must show.
constexpr uint8_t kDictionaryIdBits = 0x03;
constexpr uint8_t kChecksumBit = 0x04;
constexpr uint8_t kUnusedBit = 0x10;  // zstd ignores it; we never set it, so a set bit is damage

void put_le(uint8_t* at, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) at[i] = uint8_t(value >> (8 * i));
}

uint64_t get_le(const uint8_t* at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t(at[i]) << (8 * i);
  return value;
}

std::string count_bytes(uint64_t n) { return fmt::format("{} byte{}", n, n == 1 ? "" : "s"); }

Error corrupted(std::string_view detail) { return make_error(fmt::format("corrupted ({})", detail)); }

Error zstd_error(size_t code) { return corrupted(fmt::format("zstd: {}", ZSTD_getErrorName(code))); }

struct FreeDCtx {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct FreeCCtx {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// Rejects frames our writer would not produce, before any decompression work.
Status check_frame_header(const FileHeader& header, std::span<const uint8_t> frame) {
  if (frame.size() < 5 || !std::equal(kZstdFrameMagic.begin(), kZstdFrameMagic.end(), frame.begin()))
    return corrupted("payload is not a zstd frame");
  const uint8_t descriptor = frame[4];
  if (!(descriptor & kChecksumBit)) return corrupted("zstd frame has no content checksum");
  if (descriptor & kDictionaryIdBits) return corrupted("zstd frame needs a dictionary");
  if (descriptor & kUnusedBit) return corrupted("zstd frame header has an unused bit set");
  const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return corrupted("zstd frame header is invalid");
  if (declared == ZSTD_CONTENTSIZE_UNKNOWN) return corrupted("zstd frame does not declare its size");
  if (declared != header.uncompressed_size)
    return corrupted(fmt::format("zstd frame holds {} bytes, header says {}", declared, header.uncompressed_size));
  const size_t frame_size = ZSTD_findFrameCompressedSize(frame.data(), frame.size());
  if (ZSTD_isError(frame_size)) return zstd_error(frame_size);
  if (frame_size != frame.size())
    return corrupted(fmt::format("{} follow the zstd frame", count_bytes(frame.size() - frame_size)));
  return Ok{};
}

}  // namespace

Result<FileHeader> decode_header(std::span<const uint8_t> bytes) {
  const size_t magic_part = std::min(bytes.size(), kMagic.size());
  if (!std::equal(bytes.begin(), bytes.begin() + magic_part, kMagic.begin()))
    return make_error("not a callprof profile (bad magic)");
  if (bytes.size() < kHeaderSize)
    return make_error(
        fmt::format("truncated (file has {} bytes, the header alone needs {})", bytes.size(), kHeaderSize));
  const uint8_t* at = bytes.data();
  FileHeader h{uint32_t(get_le(at + 8, 4)), uint32_t(get_le(at + 12, 4)), get_le(at + 16, 8), get_le(at + 24, 8)};
  if (h.version > kProfileFormatVersion)
    return make_error(fmt::format("newer format version {} (this callprof reads up to {}; upgrade callprof)", h.version,
                                  kProfileFormatVersion));
  if (h.version == 0) return corrupted("format version 0 does not exist");
  if (h.flags != 0) return corrupted(fmt::format("unknown header flags {:#x}", h.flags));
  if (h.uncompressed_size > kMaxPayloadSize)
    return corrupted(fmt::format("header declares a payload of {} bytes, above the limit of {}", h.uncompressed_size,
                                 kMaxPayloadSize));
  // The writer's frames never exceed zstd's bound, so a larger claim is damage, and refusing
  // it keeps a reader from loading a huge file on the header's word.
  if (h.uncompressed_size > h.compressed_size * kMaxCompressionRatio + kRatioAllowance)
    return corrupted(
        fmt::format("header declares a payload of {} bytes from {} compressed: a ratio above the limit "
                    "of {} (docs/format.md, Limits)",
                    h.uncompressed_size, h.compressed_size, kMaxCompressionRatio));
  if (h.compressed_size > ZSTD_compressBound(h.uncompressed_size))
    return corrupted(
        fmt::format("header declares {} compressed bytes for {} uncompressed", h.compressed_size, h.uncompressed_size));
  return h;
}

Status check_payload_length(const FileHeader& header, uint64_t available) {
  if (available < header.compressed_size)
    return make_error(
        fmt::format("truncated (header says {} bytes of payload, file has {})", header.compressed_size, available));
  if (available > header.compressed_size)
    return corrupted(fmt::format("{} after the {}-byte payload the header declares",
                                 count_bytes(available - header.compressed_size), header.compressed_size));
  return Ok{};
}

namespace {

// Room for n bytes, on huge pages before it is first touched (a large payload's page faults
// cost more than decompressing it; util/huge_pages.h).
void reserve_huge(std::string& out, size_t n) {
  if (n <= out.capacity()) return;
  out.reserve(n);
  advise_huge_pages(out.data(), out.capacity());
}

// out.resize(n), new room on huge pages.
void resize_huge(std::string& out, size_t n) {
  reserve_huge(out, n);
  out.resize(n);
}

}  // namespace

Result<std::string> decompress_payload(const FileHeader& header, std::span<const uint8_t> frame) {
  if (Status s = check_frame_header(header, frame); !s) return s.error();
  std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx(ZSTD_createDCtx());
  if (!dctx) return make_error("out of memory (zstd decompression context)");
  const uint64_t expected = header.uncompressed_size;
  // Start near the compressed size and double as output really appears: the header's size
  // was checked against the frame, but a tiny frame may still claim a huge payload.
  // The room for all of it is only reserved (address space, bounded by the header's checked
  // ratio): memory is touched as output appears, and growing never copies what was decoded.
  std::string out;
  reserve_huge(out, expected);
  resize_huge(out, std::min<uint64_t>(expected, std::max<uint64_t>(frame.size() * 4, 1 << 20)));
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  ZSTD_outBuffer sink{out.data(), out.size(), 0};
  for (;;) {
    const size_t in_before = in.pos, out_before = sink.pos;
    const size_t hint = ZSTD_decompressStream(dctx.get(), &sink, &in);
    if (ZSTD_isError(hint)) return zstd_error(hint);
    if (hint == 0) break;  // frame complete, checksum verified
    if (sink.pos == sink.size && sink.size < expected) {
      resize_huge(out, std::min<uint64_t>(expected, out.size() * 2 + 1));
      sink = ZSTD_outBuffer{out.data(), out.size(), sink.pos};
      continue;
    }
    if (in.pos == in_before && sink.pos == out_before)
      return corrupted(in.pos == in.size ? "zstd frame ends early" : "zstd frame holds more than it declares");
  }
  if (sink.pos != expected || in.pos != in.size)
    return corrupted(fmt::format("zstd frame decoded to {} bytes, header says {}", sink.pos, expected));
  out.resize(sink.pos);
  return out;
}

Result<ByteBuffer> wrap_payload_buffer(std::span<const uint8_t> payload) {
  if (payload.size() > kMaxPayloadSize)
    return make_error(fmt::format("profile too large for the file format ({} bytes, the limit is {})", payload.size(),
                                  kMaxPayloadSize));
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> cctx(ZSTD_createCCtx());
  if (!cctx) return make_error("out of memory (zstd compression context)");
  const bool small = payload.size() < kSmallPayload;
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, small ? kSmallPayloadLevel : kCompressionLevel);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1);
  // A small profile gets small match tables: level 3's for inputs up to 128 KiB take 768 KiB,
  // zeroed first, which was most of compressing a short recording's 43 KB (0.34 ms against
  // 0.19, for a file 0.6 % larger); and level 1's single hash (1.0 M instructions instead
  // of 1.2 M there, for a file 5 % larger: 12.6 KB instead of 12.0).
  if (small) {
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_hashLog, kSmallPayloadTableLog);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_chainLog, kSmallPayloadTableLog);
  }
  // Room for the worst case, uninitialised: only the bytes zstd writes are ever touched.
  const size_t bound = ZSTD_compressBound(payload.size());
  ByteBuffer file;
  uint8_t* header = file.extend(kHeaderSize + bound);
  const size_t frame_size = ZSTD_compress2(cctx.get(), header + kHeaderSize, bound, payload.data(), payload.size());
  if (ZSTD_isError(frame_size))
    return make_error(fmt::format("cannot compress the profile: {}", ZSTD_getErrorName(frame_size)));
  if (payload.size() > frame_size * kMaxCompressionRatio + kRatioAllowance)
    return make_error(
        fmt::format("profile compresses {}-fold, above the {}-fold a reader accepts (docs/format.md, Limits)",
                    payload.size() / std::max<size_t>(frame_size, 1), kMaxCompressionRatio));
  file.truncate(kHeaderSize + frame_size);
  std::copy(kMagic.begin(), kMagic.end(), header);
  put_le(header + 8, kProfileFormatVersion, 4);
  put_le(header + 12, 0, 4);
  put_le(header + 16, payload.size(), 8);
  put_le(header + 24, frame_size, 8);
  return file;
}

Result<std::vector<uint8_t>> wrap_payload(std::span<const uint8_t> payload) {
  Result<ByteBuffer> file = wrap_payload_buffer(payload);
  if (!file) return file.error();
  return std::vector<uint8_t>(file->bytes().begin(), file->bytes().end());
}

}  // namespace callprof::trace
