// Decoding hand-built perf records of every kind, wrapped rings, and broken input.
#include "collect/perf/perf_decode.h"

#include <gtest/gtest.h>

#include <random>

#include "collect/perf/perf_events.h"
#include "record_builder.h"

namespace callprof::perf {
namespace {

using test::RecordBuilder;

struct Collect : RecordSink {
  std::vector<Sample> samples;
  std::vector<Mapping> maps;
  std::vector<TaskEvent> tasks;
  std::vector<SwitchEvent> switches;
  std::vector<std::pair<LostEvent, LostKind>> lost;
  void on_sample(Sample&& s) override { samples.push_back(std::move(s)); }
  void on_mapping(Mapping&& m) override { maps.push_back(std::move(m)); }
  void on_task(TaskEvent&& e) override { tasks.push_back(std::move(e)); }
  void on_switch(const SwitchEvent& e) override { switches.push_back(e); }
  void on_lost(const LostEvent& e, LostKind k) override { lost.emplace_back(e, k); }
};

DecodeFormat dwarf_format() {
  SamplingOptions o;
  o.unwind = UnwindMode::Dwarf;
  DecodeFormat f = decode_format(o);
  f.switch_ids = {99};
  return f;
}

// A DWARF-mode sample: kernel chain [k1 k2], user chain [u1], perf regs 100+index, 16-byte
// stack of which 12 are valid.
std::vector<uint8_t> dwarf_sample(uint64_t id = 7, uint16_t misc = PERF_RECORD_MISC_KERNEL) {
  RecordBuilder b(PERF_RECORD_SAMPLE, misc);
  b.u64(id).u64(0xffffffff81000010).u32(10).u32(11).u64(5000).u32(1).u32(0).u64(1001001);
  b.u64(5).u64(uint64_t(PERF_CONTEXT_KERNEL)).u64(0xffffffff81000010).u64(0xffffffff81000020);
  b.u64(uint64_t(PERF_CONTEXT_USER)).u64(0x401000);
  b.u64(PERF_SAMPLE_REGS_ABI_64);
  for (int perf_reg = 0; perf_reg < 24; ++perf_reg)
    if (kPerfRegsMask >> perf_reg & 1) b.u64(100 + perf_reg);
  b.u64(16);
  for (int i = 0; i < 16; ++i) b.u8(uint8_t(i));
  b.u64(12);
  return b.bytes();
}

TEST(PerfDecode, DwarfSampleSplitsChainAndRenumbersRegisters) {
  Collect c;
  DecodeStats st;
  decode_record(dwarf_format(), dwarf_sample(), c, st);
  ASSERT_EQ(c.samples.size(), 1u);
  const Sample& s = c.samples[0];
  EXPECT_EQ(s.pid, 10u);
  EXPECT_EQ(s.tid, 11u);
  EXPECT_EQ(s.time_ns, 5000u);
  EXPECT_EQ(s.period, 1001001u);
  EXPECT_FALSE(s.user);
  EXPECT_FALSE(s.switch_out);
  EXPECT_EQ(s.kernel_chain, (std::vector<uint64_t>{0xffffffff81000010, 0xffffffff81000020}));
  EXPECT_EQ(s.user_chain, (std::vector<uint64_t>{0x401000}));
  ASSERT_TRUE(s.has_user_regs);
  // perf: ax0 bx1 cx2 dx3 si4 di5 bp6 sp7 ip8 r8..r15 16..23; DWARF: ax dx cx bx si di bp sp r8..r15 ip
  EXPECT_EQ(s.regs, (UserRegs{100, 103, 102, 101, 104, 105, 106, 107, 116, 117, 118, 119, 120, 121, 122, 123, 108}));
  EXPECT_EQ(s.stack, std::string("\0\1\2\3\4\5\6\7\10\11\12\13", 12));
  EXPECT_EQ(st.samples, 1u);
  EXPECT_EQ(st.malformed, 0u);
}

TEST(PerfDecode, SwitchSamplerIdMarksSwitchOut) {
  Collect c;
  DecodeStats st;
  decode_record(dwarf_format(), dwarf_sample(99), c, st);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_TRUE(c.samples[0].switch_out);
}

TEST(PerfDecode, KernelThreadSampleHasNoUserRegsOrStack) {
  RecordBuilder b(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
  b.u64(7).u64(0xffffffff81000010).u32(0).u32(0).u64(1).u64(0).u64(1);
  b.u64(2).u64(uint64_t(PERF_CONTEXT_KERNEL)).u64(0xffffffff81000010);
  b.u64(PERF_SAMPLE_REGS_ABI_NONE).u64(0);  // no regs; stack size 0 has no dyn_size
  Collect c;
  DecodeStats st;
  decode_record(dwarf_format(), b.bytes(), c, st);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_FALSE(c.samples[0].has_user_regs);
  EXPECT_TRUE(c.samples[0].stack.empty());
  EXPECT_TRUE(c.samples[0].user_chain.empty());
}

TEST(PerfDecode, FramePointerSampleWithUserChain) {
  DecodeFormat f = decode_format(SamplingOptions{});
  RecordBuilder b(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
  b.u64(7).u64(0x401000).u32(3).u32(4).u64(9).u64(0).u64(1000);
  b.u64(4).u64(uint64_t(PERF_CONTEXT_USER)).u64(0x401000).u64(0x402000).u64(0x403000);
  Collect c;
  DecodeStats st;
  decode_record(f, b.bytes(), c, st);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_TRUE(c.samples[0].user);
  EXPECT_EQ(c.samples[0].user_chain, (std::vector<uint64_t>{0x401000, 0x402000, 0x403000}));
  EXPECT_FALSE(c.samples[0].has_user_regs);
}

TEST(PerfDecode, Mmap2WithAndWithoutBuildId) {
  Collect c;
  DecodeStats st;
  RecordBuilder with(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
  with.u32(10).u32(10).u64(0x400000).u64(0x2000).u64(0x1000);
  with.u8(3).u8(0).u16(0).u8(0xab).u8(0xcd).u8(0x01);
  for (int i = 3; i < 20; ++i) with.u8(0xff);
  with.u32(5).u32(2).str("/usr/bin/prog").sample_id(10, 10, 77);
  RecordBuilder without(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
  without.u32(10).u32(12).u64(0x7f0000).u64(0x1000).u64(0).u32(8).u32(1).u64(1234).u64(0).u32(5).u32(2);
  without.str("/lib/libc.so.6").sample_id(10, 12, 78);
  RecordBuilder old(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
  old.u32(10).u32(10).u64(0x500000).u64(0x100).u64(0).str("/x").sample_id(10, 10, 79);
  for (auto& r : {with.bytes(), without.bytes(), old.bytes()}) decode_record(dwarf_format(), r, c, st);
  ASSERT_EQ(c.maps.size(), 3u);
  EXPECT_EQ(c.maps[0].path, "/usr/bin/prog");
  EXPECT_EQ(c.maps[0].build_id, "abcd01");
  EXPECT_EQ(c.maps[0].start, 0x400000u);
  EXPECT_EQ(c.maps[0].end, 0x402000u);
  EXPECT_EQ(c.maps[0].pgoff, 0x1000u);
  EXPECT_EQ(c.maps[0].time_ns, 77u);
  EXPECT_EQ(c.maps[1].path, "/lib/libc.so.6");
  EXPECT_EQ(c.maps[1].build_id, "");
  EXPECT_EQ(c.maps[2].path, "/x");
  EXPECT_EQ(st.mappings, 3u);
  EXPECT_EQ(st.malformed, 0u);
}

TEST(PerfDecode, TaskRecords) {
  Collect c;
  DecodeStats st;
  auto f = dwarf_format();
  decode_record(f, RecordBuilder(PERF_RECORD_COMM).u32(5).u32(6).str("worker").sample_id(5, 6, 1).bytes(), c, st);
  decode_record(
      f,
      RecordBuilder(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC).u32(5).u32(5).str("prog").sample_id(5, 5, 2).bytes(),
      c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_FORK).u32(5).u32(5).u32(6).u32(5).u64(3).sample_id(5, 6, 3).bytes(), c,
                st);
  decode_record(f, RecordBuilder(PERF_RECORD_EXIT).u32(5).u32(5).u32(6).u32(6).u64(4).sample_id(5, 6, 4).bytes(), c,
                st);
  ASSERT_EQ(c.tasks.size(), 4u);
  EXPECT_EQ(c.tasks[0].kind, TaskEvent::Kind::Comm);
  EXPECT_EQ(c.tasks[0].comm, "worker");
  EXPECT_EQ(c.tasks[0].tid, 6u);
  EXPECT_EQ(c.tasks[1].kind, TaskEvent::Kind::Exec);
  EXPECT_EQ(c.tasks[1].comm, "prog");
  EXPECT_EQ(c.tasks[2].kind, TaskEvent::Kind::Fork);
  EXPECT_EQ(c.tasks[2].ptid, 5u);
  EXPECT_EQ(c.tasks[2].tid, 6u);
  EXPECT_EQ(c.tasks[2].time_ns, 3u);
  EXPECT_EQ(c.tasks[3].kind, TaskEvent::Kind::Exit);
  EXPECT_EQ(c.tasks[3].time_ns, 4u);
  EXPECT_EQ(st.malformed, 0u);
}

TEST(PerfDecode, SwitchLostAndOtherRecords) {
  Collect c;
  DecodeStats st;
  auto f = dwarf_format();
  decode_record(f,
                RecordBuilder(PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
                    .sample_id(5, 6, 10)
                    .bytes(),
                c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_SWITCH).sample_id(5, 6, 20).bytes(), c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_LOST).u64(7).u64(42).sample_id(5, 6, 30).bytes(), c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_LOST_SAMPLES).u64(3).sample_id(5, 6, 31).bytes(), c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_THROTTLE).u64(1).u64(7).u64(7).sample_id(5, 6, 32).bytes(), c, st);
  decode_record(f, RecordBuilder(PERF_RECORD_KSYMBOL).u64(0).u64(0).sample_id(5, 6, 33).bytes(), c, st);
  ASSERT_EQ(c.switches.size(), 2u);
  EXPECT_TRUE(c.switches[0].out);
  EXPECT_TRUE(c.switches[0].preempted);
  EXPECT_EQ(c.switches[0].tid, 6u);
  EXPECT_EQ(c.switches[0].time_ns, 10u);
  EXPECT_FALSE(c.switches[1].out);
  ASSERT_EQ(c.lost.size(), 2u);
  EXPECT_EQ(c.lost[0].first.lost, 42u);
  EXPECT_EQ(c.lost[0].second, LostKind::Records);
  EXPECT_EQ(c.lost[0].first.pid, 5u) << "the sample_id's task, to charge the loss to";
  EXPECT_EQ(c.lost[0].first.tid, 6u);
  EXPECT_EQ(c.lost[1].first.lost, 3u);
  EXPECT_EQ(c.lost[1].second, LostKind::Samples);
  EXPECT_EQ(st.lost_records, 42u);
  EXPECT_EQ(st.lost_samples, 3u);
  EXPECT_EQ(st.throttles, 1u);
  EXPECT_EQ(st.other, 1u);
  EXPECT_EQ(st.records, 6u);
  EXPECT_EQ(st.malformed, 0u);
}

// Lays records into a ring of `size` bytes starting at free-running offset `start`.
std::vector<uint8_t> ring_with(const std::vector<std::vector<uint8_t>>& records, size_t size, uint64_t start,
                               uint64_t& head) {
  std::vector<uint8_t> ring(size, 0xee);
  head = start;
  for (const auto& r : records)
    for (uint8_t byte : r) ring[head++ % size] = byte;
  return ring;
}

TEST(PerfDecode, RingRecordsWrappingAroundTheEnd) {
  auto sample = dwarf_sample();  // 304 bytes
  auto comm = RecordBuilder(PERF_RECORD_COMM).u32(5).u32(6).str("w").sample_id(5, 6, 1).bytes();
  for (uint64_t start : {uint64_t(0), uint64_t(1000), uint64_t(1024 - 8), uint64_t(5 * 1024 + 1020)}) {
    uint64_t head = 0;
    auto ring = ring_with({comm, sample, comm, sample}, 1024, start, head);
    Collect c;
    DecodeStats st;
    EXPECT_EQ(decode_ring(dwarf_format(), ring, start, head, c, st), head);
    ASSERT_EQ(c.samples.size(), 2u) << "start " << start;
    EXPECT_EQ(c.tasks.size(), 2u);
    EXPECT_EQ(c.samples[1].stack.size(), 12u);
    EXPECT_EQ(c.samples[1].regs[kDwarfIp], 108u);
    EXPECT_EQ(st.malformed, 0u);
  }
}

TEST(PerfDecode, RingWithImpossibleHeaderSkipsToHead) {
  auto comm = RecordBuilder(PERF_RECORD_COMM).u32(5).u32(6).str("w").sample_id(5, 6, 1).bytes();
  std::vector<uint8_t> zero_size(16, 0);
  uint64_t head = 0;
  auto ring = ring_with({comm, zero_size, comm}, 256, 100, head);
  Collect c;
  DecodeStats st;
  EXPECT_EQ(decode_ring(dwarf_format(), ring, 100, head, c, st), head);
  EXPECT_EQ(c.tasks.size(), 1u);
  EXPECT_EQ(st.malformed, 1u);
  // head beyond what a ring of this size can hold, and a ring that is not a power of two
  EXPECT_EQ(decode_ring(dwarf_format(), ring, 0, 10000, c, st), 10000u);
  EXPECT_EQ(decode_ring(dwarf_format(), std::span(ring).first(200), 0, 8, c, st), 8u);
  EXPECT_EQ(st.malformed, 3u);
}

TEST(PerfDecode, EveryTruncationIsRejected) {
  auto f = dwarf_format();
  std::vector<std::vector<uint8_t>> records = {
      dwarf_sample(), RecordBuilder(PERF_RECORD_COMM).u32(5).u32(6).str("w").sample_id(5, 6, 1).bytes(),
      RecordBuilder(PERF_RECORD_FORK).u32(5).u32(5).u32(6).u32(5).u64(3).sample_id(5, 6, 3).bytes(),
      RecordBuilder(PERF_RECORD_LOST).u64(7).u64(42).sample_id(5, 6, 30).bytes()};
  for (const auto& full : records) {
    for (size_t n = 0; n < full.size(); ++n) {
      // Cut the bytes (the header still claims the full size) and also claim the cut size.
      std::vector<uint8_t> cut(full.begin(), full.begin() + ptrdiff_t(n));
      Collect c;
      DecodeStats st;
      decode_record(f, cut, c, st);
      if (n >= 8) {
        uint16_t size = uint16_t(n);
        std::memcpy(cut.data() + 6, &size, 2);
        decode_record(f, cut, c, st);
      }
      EXPECT_TRUE(c.samples.empty() && c.tasks.empty() && c.lost.empty()) << "cut at " << n;
      EXPECT_EQ(st.malformed, n >= 8 ? 2u : 1u) << "cut at " << n;
    }
  }
}

TEST(PerfDecode, LyingCountsAndMissingTerminators) {
  auto f = dwarf_format();
  Collect c;
  DecodeStats st;
  RecordBuilder huge_chain(PERF_RECORD_SAMPLE);
  huge_chain.u64(7).u64(1).u32(1).u32(1).u64(1).u64(0).u64(1).u64(uint64_t(1) << 60).u64(1);
  decode_record(f, huge_chain.bytes(), c, st);
  RecordBuilder huge_stack(PERF_RECORD_SAMPLE);
  huge_stack.u64(7).u64(1).u32(1).u32(1).u64(1).u64(0).u64(1).u64(0).u64(PERF_SAMPLE_REGS_ABI_NONE).u64(~0ull);
  decode_record(f, huge_stack.bytes(), c, st);
  RecordBuilder no_nul(PERF_RECORD_COMM);
  no_nul.u32(5).u32(6).u64(0x4141414141414141).sample_id(5, 6, 1);
  decode_record(f, no_nul.bytes(), c, st);
  RecordBuilder wrapping_len(PERF_RECORD_MMAP);
  wrapping_len.u32(1).u32(1).u64(~0ull - 10).u64(100).u64(0).str("/x").sample_id(1, 1, 1);
  decode_record(f, wrapping_len.bytes(), c, st);
  DecodeFormat unsupported = f;
  unsupported.sample_type |= PERF_SAMPLE_RAW;
  decode_record(unsupported, dwarf_sample(), c, st);
  EXPECT_TRUE(c.samples.empty() && c.tasks.empty() && c.maps.empty());
  EXPECT_EQ(st.malformed, 5u);
}

TEST(PerfDecode, RandomBytesNeverCrash) {
  std::mt19937_64 rng(12345);
  auto f = dwarf_format();
  uint64_t decoded = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> ring(512);
    for (auto& b : ring) b = uint8_t(rng());
    // Plausible headers now and then, so decoding gets past the framing.
    for (size_t at = 0; at + 8 <= ring.size(); at += 8 * (1 + rng() % 8)) {
      uint16_t type = uint16_t(1 + rng() % 16), size = uint16_t(8 * (1 + rng() % 40));
      std::memcpy(&ring[at], &type, 2);
      std::memcpy(&ring[at + 6], &size, 2);
    }
    Collect c;
    DecodeStats st;
    uint64_t tail = rng() % 4096, head = tail + rng() % 513;
    EXPECT_EQ(decode_ring(f, ring, tail, head, c, st), head);
    decoded += st.records;
  }
  EXPECT_GT(decoded, 0u);
}

}  // namespace
}  // namespace callprof::perf
