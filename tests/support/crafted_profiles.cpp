// The crafted files: a streaming zstd frame around generated payload bytes, behind the
// 32-byte container header of docs/format.md.
#include "crafted_profiles.h"

#include <zstd.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string_view>

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

// The same from a position: splitmix64's finaliser, so that noise at regular positions is
// not itself regular (an LCG step from the position would be, and zstd would find it).
uint8_t noise_at(uint64_t position) {
  uint64_t z = position + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return uint8_t((z ^ (z >> 31)) >> 56);
}

constexpr uint64_t kMiB = 1 << 20;

// Protobuf's wire format, enough to write the payloads by hand.
std::string tag(uint32_t field, uint32_t wire_type) {
  std::string out;
  varint(out, (uint64_t(field) << 3) | wire_type);
  return out;
}
// The key and length of a length-delimited field whose `length` bytes follow.
std::string field_head(uint32_t field, uint64_t length) {
  std::string out = tag(field, 2);
  varint(out, length);
  return out;
}
std::string field_bytes(uint32_t field, std::string_view bytes) {
  return field_head(field, bytes.size()).append(bytes);
}
std::string packed(uint32_t field, const std::vector<uint64_t>& values) {
  std::string body;
  for (uint64_t v : values) varint(body, v);
  return field_bytes(field, body);
}
constexpr uint64_t kNone = 4294967295u;                    // no module, no parent, no function
const std::string kNoModule = "\x18\xff\xff\xff\xff\x0f";  // Function.module = kNone

// A payload laid out as pieces: literal bytes and generated runs, a run made only as the
// compressor reads it (a 256 MiB payload is never held whole).
class Pieces {
 public:
  using Byte = std::function<char(uint64_t)>;  // a run's i-th byte
  void literal(std::string bytes) {
    const uint64_t n = bytes.size();
    add(n, [bytes = std::move(bytes)](uint64_t i) { return bytes[i]; });
  }
  void run(uint64_t n, Byte byte) { add(n, std::move(byte)); }
  // `n` bytes of lowercase text: the alphabet over and over, a noise letter every
  // `noise_every` bytes so that zstd's ratio comes out where the file needs it.
  void text(uint64_t n, uint64_t noise_every) {
    const uint64_t seed = size_;
    add(n, [=](uint64_t i) {
      if (i % noise_every != noise_every - 1) return char('a' + i % 26);
      return char('a' + noise_at(seed + i) % 26);
    });
  }
  uint64_t size() const { return size_; }
  // Up to 1 MiB from `offset`.
  void fill(std::string& chunk, uint64_t offset) const {
    const uint64_t end = std::min(size_, offset + kMiB);
    auto at = std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                               [](uint64_t o, const Piece& p) { return o < p.start; }) -
              1;
    for (; offset < end; ++at) {
      const uint64_t to = std::min(at->length, end - at->start);
      for (uint64_t i = offset - at->start; i < to; ++i) chunk.push_back(at->byte(i));
      offset = at->start + to;
    }
  }

 private:
  struct Piece {
    uint64_t start, length;
    Byte byte;
  };
  void add(uint64_t n, Byte byte) {
    if (n) pieces_.push_back(Piece{size_, n, std::move(byte)});
    size_ += n;
  }
  std::vector<Piece> pieces_;
  uint64_t size_ = 0;
};

CraftedFile compressed(std::string name, const Pieces& pieces) {
  return compressed(std::move(name), pieces.size(),
                    [&pieces](std::string& chunk, uint64_t offset) { pieces.fill(chunk, offset); });
}

// A profile's functions named by generated text, `name_bytes` each.
void text_functions(Pieces& out, size_t count, uint64_t name_bytes, uint64_t noise_every) {
  const std::string name_head = field_head(1, name_bytes);
  for (size_t i = 0; i < count; ++i) {
    out.literal(field_head(3, name_head.size() + name_bytes + kNoModule.size()) + name_head);
    out.text(name_bytes, noise_every);
    out.literal(kNoModule);
  }
}

// A thread (tid 1) whose tree calls every one of `functions` from the root, and under each
// of them every other one: functions x functions paths.
std::string thread_calling_all(size_t functions) {
  std::vector<uint64_t> parent = {kNone}, function = {kNone};
  for (size_t f = 0; f < functions; ++f) parent.push_back(0), function.push_back(f);
  for (size_t c = 0; c < functions; ++c)
    for (size_t f = 0; f < functions; ++f)
      if (f != c) parent.push_back(c + 1), function.push_back(f);
  const std::string tree = packed(1, parent) + packed(2, function);
  return field_bytes(5, "\x08\x01\x10\x01" + field_bytes(11, tree));
}

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

CraftedFile string_bomb() {
  Pieces p;
  text_functions(p, 64, 4 * kMiB, 5200);
  p.literal(thread_calling_all(64));
  return compressed("string_bomb.callprof", p);
}

CraftedFile name_heavy() {
  Pieces p;
  text_functions(p, 16, 3 * kMiB, 48);
  p.literal(thread_calling_all(16));
  return compressed("name_heavy.callprof", p);
}

CraftedFile extra_bomb() {
  constexpr uint64_t kValue = 4 * kMiB;
  std::vector<std::string> heads;  // each entry's bytes before its value's text
  uint64_t metadata = 0;
  for (int i = 0; i < 64; ++i) {
    const std::string key = field_bytes(1, "key" + std::to_string(i)), value_head = field_head(2, kValue);
    heads.push_back(field_head(8, key.size() + value_head.size() + kValue) + key + value_head);
    metadata += heads.back().size() + kValue;
  }
  Pieces p;
  p.literal(field_head(1, metadata));
  for (std::string& head : heads) {
    p.literal(std::move(head));
    p.text(kValue, 5800);
  }
  return compressed("extra_bomb.callprof", p);
}

namespace {

// One million functions with distinct names of 10 letters, and one thread whose tree calls
// each from its root (`called`) or is the root alone.
CraftedFile function_flood(std::string name, bool called) {
  constexpr size_t kFunctions = 1'000'000;
  std::string payload;
  uint64_t state = 3;
  for (size_t i = 0; i < kFunctions; ++i) {
    std::string function_name = "f_";
    for (int c = 0; c < 8; ++c) function_name.push_back(char('a' + noise(state) % 26));
    payload += field_bytes(3, field_bytes(1, function_name) + kNoModule);
  }
  std::vector<uint64_t> parent = {kNone}, function = {kNone};
  for (size_t f = 0; called && f < kFunctions; ++f) parent.push_back(0), function.push_back(f);
  payload += field_bytes(5, "\x08\x01\x10\x01" + field_bytes(11, packed(1, parent) + packed(2, function)));
  const uint64_t size = payload.size();
  CraftedFile f = compressed(
      std::move(name), size,
      [payload = std::move(payload)](std::string& chunk, uint64_t offset) { chunk.assign(payload, offset, kMiB); });
  f.bomb = called;
  return f;
}

}  // namespace

CraftedFile function_flood() { return function_flood("function_flood.callprof", false); }

CraftedFile called_function_flood() { return function_flood("called_function_flood.callprof", true); }

CraftedFile timeline_bomb() {
  constexpr uint64_t kEvents = 1 << 24, kNodes = 128;
  std::string functions, head;
  for (uint64_t f = 0; f + 1 < kNodes; ++f)
    functions += field_bytes(3, field_bytes(1, "f" + std::to_string(f)) + kNoModule);
  std::vector<uint64_t> parent = {kNone}, function = {kNone};
  for (uint64_t n = 1; n < kNodes; ++n) parent.push_back(0), function.push_back(n - 1);
  const std::string tree = field_bytes(11, packed(1, parent) + packed(2, function));
  // Timeline (field 19): node, start_ns and duration_ns packed, kEvents one-byte varints each.
  const uint64_t timeline = 3 * (field_head(1, kEvents).size() + kEvents);
  const std::string thread_head = "\x08\x01\x10\x01" + tree + field_head(19, timeline);
  Pieces p;
  p.literal(functions + field_head(5, thread_head.size() + timeline) + thread_head + field_head(1, kEvents));
  p.run(kEvents, [](uint64_t i) {  // nodes: mostly 1, another one every 800 events
    return i % 800 == 799 ? char(1 + noise_at(i) % (kNodes - 1)) : '\x01';
  });
  p.literal(field_head(2, kEvents));
  p.run(kEvents, [](uint64_t) { return '\0'; });
  p.literal(field_head(3, kEvents));
  p.run(kEvents, [](uint64_t) { return '\0'; });
  return compressed("timeline_bomb.callprof", p);
}

std::vector<CraftedFile> all() {
  return {ratio_bomb(), thread_bomb(), node_bomb(),      overlong_column(),       string_bomb(),
          name_heavy(), extra_bomb(),  function_flood(), called_function_flood(), timeline_bomb()};
}

}  // namespace callprof::crafted
