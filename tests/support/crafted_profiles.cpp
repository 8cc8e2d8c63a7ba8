// The crafted files: a streaming zstd frame around generated payload bytes, behind the
// 32-byte container header of docs/format.md.
#include "crafted_profiles.h"

#include <zstd.h>

#include <functional>
#include <stdexcept>

namespace callprof::crafted {
namespace {

void put_le(std::vector<uint8_t>& out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(0x80 | (v & 0x7f)));
    v >>= 7;
  }
  out.push_back(char(v));
}

// `size` payload bytes produced by `fill(chunk, offset)` (up to 1 MiB at a time), compressed
// as one frame with content size and checksum, behind the header.
CraftedFile compressed(std::string name, uint64_t size, const std::function<void(std::string&, uint64_t)>& fill) {
  CraftedFile f{std::move(name), {}, size};
  f.bytes = {'C', 'A', 'L', 'L', 'P', 'R', 'O', 'F'};
  put_le(f.bytes, 1, 4);
  put_le(f.bytes, 0, 4);
  put_le(f.bytes, size, 8);
  put_le(f.bytes, 0, 8);  // compressed size, patched below
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setPledgedSrcSize(cctx, size);
  std::vector<uint8_t> out(ZSTD_CStreamOutSize());
  std::string chunk;
  for (uint64_t offset = 0;;) {
    chunk.clear();
    if (offset < size) fill(chunk, offset);
    if (chunk.size() > size - offset) chunk.resize(size - offset);
    offset += chunk.size();
    const bool last = offset >= size;
    ZSTD_inBuffer in{chunk.data(), chunk.size(), 0};
    for (;;) {
      ZSTD_outBuffer sink{out.data(), out.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx, &sink, &in, last ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(left)) throw std::runtime_error(ZSTD_getErrorName(left));
      f.bytes.insert(f.bytes.end(), out.begin(), out.begin() + ptrdiff_t(sink.pos));
      if (last ? left == 0 : in.pos == in.size) break;
    }
    if (last) break;
  }
  ZSTD_freeCCtx(cctx);
  const uint64_t frame = f.bytes.size() - 32;
  for (int i = 0; i < 8; ++i) f.bytes[24 + i] = uint8_t(frame >> (8 * i));
  return f;
}

// Deterministic noise, so the files are the same on every run.
uint8_t noise(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return uint8_t(state >> 56);
}

constexpr uint64_t kMiB = 1 << 20;

}  // namespace

CraftedFile ratio_bomb() {
  return compressed("ratio_bomb.callprof", 512 * kMiB, [](std::string& chunk, uint64_t) {
    for (size_t i = 0; i < kMiB / 2; ++i) chunk += std::string("\x2a\x00", 2);  // field 5 (threads), empty
  });
}

CraftedFile thread_bomb() {
  // Units of 4,096 empty threads and one unknown field of 32 noise bytes (top-level field
  // 15), which protobuf keeps and ignores: 8,226 bytes, ~40 of them incompressible.
  constexpr size_t kUnit = 4096 * 2 + 2 + 32, kUnits = 32 * kMiB / kUnit;
  uint64_t state = 1;
  return compressed("thread_bomb.callprof", kUnit * kUnits, [state](std::string& chunk, uint64_t) mutable {
    for (size_t u = 0; u < kMiB / kUnit; ++u) {
      for (int i = 0; i < 4096; ++i) chunk += std::string("\x2a\x00", 2);
      chunk += "\x7a\x20";
      for (int i = 0; i < 32; ++i) chunk.push_back(char(noise(state)));
    }
  });
}

CraftedFile node_bomb() {
  constexpr uint64_t kNodes = 16 * kMiB;
  // parent: the root's 4294967295, then 0s; function: the root's 4294967295, then 0s with
  // a noise byte below 128 every 256 nodes (so that zstd's ratio looks honest).
  std::string parent_head, function_head;
  varint(parent_head, 4294967295u);
  const uint64_t column = parent_head.size() + kNodes - 1;
  std::string tree;
  tree += '\x0a';
  varint(tree, column);
  std::string tree_tail_head;  // after the parent column: the function column's key and length
  tree_tail_head += '\x12';
  varint(tree_tail_head, column);
  const uint64_t tree_len = tree.size() + column + tree_tail_head.size() + column;
  std::string thread = "\x08\x01\x10\x01";  // tid 1, pid 1
  thread += '\x5a';
  varint(thread, tree_len);
  std::string head;
  for (int i = 0; i < 128; ++i) head += "\x1a\x06\x18\xff\xff\xff\xff\x0f";  // 128 functions without a module
  head += "\x2a";
  varint(head, thread.size() + tree_len);
  head += thread + tree;
  // The payload: head, parent_head, zeros, tree_tail_head, parent_head, zeros-with-noise.
  const uint64_t a = head.size() + parent_head.size(), b = a + kNodes - 1,
                 c = b + tree_tail_head.size() + parent_head.size(), total = c + kNodes - 1;
  const std::string middle = tree_tail_head + parent_head;
  return compressed("node_bomb.callprof", total, [=](std::string& chunk, uint64_t offset) {
    uint64_t state = offset + 7;
    const uint64_t end = std::min(total, offset + kMiB);
    const std::string start = head + parent_head;
    for (uint64_t at = offset; at < end; ++at) {
      if (at < a)
        chunk.push_back(start[at]);
      else if (at < b)
        chunk.push_back('\0');
      else if (at < c)
        chunk.push_back(middle[at - b]);
      else
        chunk.push_back(at % 256 == 0 ? char(noise(state) & 0x7f) : '\0');
    }
  });
}

CraftedFile overlong_column() {
  std::string payload = "\x2a";
  std::string thread = "\x08\x01\x5a";
  std::string tree = "\x0a";
  varint(tree, 1ull << 30);
  tree += std::string("\xff\xff\xff\xff\x0f\x00\x00", 7);
  varint(thread, tree.size());
  thread += tree;
  varint(payload, thread.size());
  payload += thread;
  return compressed("overlong_column.callprof", payload.size(),
                    [payload](std::string& chunk, uint64_t) { chunk = payload; });
}

std::vector<CraftedFile> all() { return {ratio_bomb(), thread_bomb(), node_bomb(), overlong_column()}; }

}  // namespace callprof::crafted
