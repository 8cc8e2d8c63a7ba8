// Unwinder pieces on made-up input: frame-pointer chains and stacks, mapping changes
// (replacement, fork, exec), anonymous code, load biases. No perf_event needed.
#include <gtest/gtest.h>
#include <link.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collect/stacks/unwinder.h"
#include "collect/stacks/unwinder_address_space.h"
#include "collect/stacks/unwinder_elf.h"
#include "collect/stacks/unwinder_frame_pointers.h"

namespace callprof::stacks {
namespace {

constexpr uint32_t kPid = 10;
constexpr uint64_t kPerfContextUser = uint64_t(-512);

perf::Mapping code(uint64_t start, uint64_t end, const std::string& path = "//anon", uint32_t pid = kPid) {
  perf::Mapping m;
  m.pid = pid;
  m.start = start;
  m.end = end;
  m.path = path;
  return m;
}

std::vector<uint64_t> pcs(const UserStack& stack) {
  std::vector<uint64_t> out;
  for (const UserFrame& f : stack.frames) out.push_back(f.pc);
  return out;
}

UserStack by_chain(Unwinder& unwinder, std::vector<uint64_t> chain, uint32_t pid = kPid) {
  perf::Sample sample;
  sample.pid = sample.tid = pid;
  sample.user_chain = std::move(chain);
  UserStack stack;
  unwinder.unwind(sample, perf::UnwindMode::FramePointers, stack);
  return stack;
}

TEST(UnwinderChainTest, KeepsTheChainUpToItsFirstNonCodeEntry) {
  Unwinder unwinder;
  unwinder.add_mapping(code(0x1000, 0x2000));
  UserStack ok = by_chain(unwinder, {kPerfContextUser, 0x1100, 0x1200, 0x1300, 0});
  EXPECT_EQ(pcs(ok), (std::vector<uint64_t>{0x1100, 0x1200, 0x1300}));
  EXPECT_EQ(ok.end, StackEnd::ChainEnd);
  EXPECT_FALSE(ok.frames[0].return_address);
  EXPECT_TRUE(ok.frames[1].return_address);

  UserStack garbage = by_chain(unwinder, {0x1100, 0x1200, 0x7fff0000, 0x1300});
  EXPECT_EQ(pcs(garbage), (std::vector<uint64_t>{0x1100, 0x1200}));
  EXPECT_EQ(garbage.end, StackEnd::BadFramePointer);

  // The sampled ip is kept even outside known code (it is not read through a pointer).
  EXPECT_EQ(pcs(by_chain(unwinder, {0x9000, 0x1100})), (std::vector<uint64_t>{0x9000, 0x1100}));
  EXPECT_EQ(by_chain(unwinder, {}).end, StackEnd::NoData);
}

TEST(UnwinderChainTest, FrameLimitAppliesToChains) {
  Unwinder unwinder(UnwindOptions{.max_frames = 2});
  unwinder.add_mapping(code(0x1000, 0x2000));
  UserStack stack = by_chain(unwinder, {0x1100, 0x1200, 0x1300});
  EXPECT_EQ(stack.frames.size(), 2u);
  EXPECT_EQ(stack.end, StackEnd::FrameLimit);
}

TEST(UnwinderChainTest, NewMappingReplacesWhatItOverlaps) {
  AddressSpace space(kPid);
  space.add(code(0x1000, 0x4000, "/lib/a.so"));
  space.add(code(0x2000, 0x3000, "/lib/b.so"));
  EXPECT_TRUE(space.executable(0x1800));
  EXPECT_TRUE(space.executable(0x2800));
  EXPECT_TRUE(space.executable(0x3800));
  EXPECT_FALSE(space.executable(0x4000));
  EXPECT_FALSE(space.executable(0x0fff));
}

TEST(UnwinderChainTest, ForkSharesMappingsUntilExec) {
  Unwinder unwinder;
  unwinder.add_mapping(code(0x1000, 0x2000));
  unwinder.fork_process(kPid, kPid + 1);
  EXPECT_EQ(by_chain(unwinder, {0x1100, 0x1200}, kPid + 1).frames.size(), 2u);
  unwinder.add_mapping(code(0x5000, 0x6000, "//anon", kPid + 1));  // the child's own
  EXPECT_EQ(by_chain(unwinder, {0x1100, 0x5100}, kPid).end, StackEnd::BadFramePointer);
  EXPECT_EQ(by_chain(unwinder, {0x1100, 0x5100}, kPid + 1).end, StackEnd::ChainEnd);
  unwinder.exec_process(kPid + 1);
  EXPECT_EQ(by_chain(unwinder, {0x1100, 0x1200}, kPid + 1).end, StackEnd::BadFramePointer);
}

// A stack copy with frame records at the given offsets from sp: {next bp, return address}.
struct FakeStack {
  static constexpr uint64_t kSp = 0x7ff000;
  std::string bytes = std::string(256, '\0');
  void record(uint64_t at, uint64_t next_bp, uint64_t ret) {
    std::memcpy(&bytes[at - kSp], &next_bp, 8);
    std::memcpy(&bytes[at - kSp + 8], &ret, 8);
  }
  StackCopy copy() const { return StackCopy{kSp, bytes.data(), bytes.size()}; }
};

TEST(UnwinderChainTest, WalksFramePointersThroughTheStackCopy) {
  AddressSpace space(kPid);
  space.add(code(0x1000, 0x2000));
  FakeStack stack;
  const uint64_t sp = FakeStack::kSp;
  stack.record(sp + 0x10, sp + 0x40, 0x1100);
  stack.record(sp + 0x40, 0, 0x1200);
  std::vector<UserFrame> frames;
  EXPECT_EQ(walk_frame_pointers(stack.copy(), sp + 0x10, sp, space, 16, frames), StackEnd::ChainEnd);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].pc, 0x1200u);
  EXPECT_TRUE(frames[1].by_frame_pointer && frames[1].return_address);

  stack.record(sp + 0x40, sp + 0x10, 0x1200);  // a loop back down the stack
  frames.clear();
  EXPECT_EQ(walk_frame_pointers(stack.copy(), sp + 0x10, sp, space, 16, frames), StackEnd::BadFramePointer);
  stack.record(sp + 0x40, sp + 0x1000, 0x1200);  // a caller above the copy
  frames.clear();
  EXPECT_EQ(walk_frame_pointers(stack.copy(), sp + 0x10, sp, space, 16, frames), StackEnd::StackCopyEnd);
}

// JIT-like code: no file, so no CFI; DWARF mode continues by frame pointer.
TEST(UnwinderChainTest, DwarfFallsBackToFramePointersWhereThereIsNoCfi) {
  Unwinder unwinder;
  unwinder.add_mapping(code(0x1000, 0x2000));
  FakeStack stack;
  const uint64_t sp = FakeStack::kSp;
  stack.record(sp + 0x20, 0, 0x1200);
  perf::Sample sample;
  sample.pid = sample.tid = kPid;
  sample.has_user_regs = true;
  sample.regs[perf::kDwarfIp] = 0x1100;
  sample.regs[perf::kDwarfSp] = sp;
  sample.regs[perf::kDwarfBp] = sp + 0x20;
  sample.stack = stack.bytes;
  UserStack out;
  unwinder.unwind(sample, perf::UnwindMode::Dwarf, out);
  EXPECT_EQ(pcs(out), (std::vector<uint64_t>{0x1100, 0x1200}));
  EXPECT_TRUE(out.frames[1].by_frame_pointer);
  EXPECT_EQ(out.end, StackEnd::ChainEnd);

  Unwinder strict(UnwindOptions{.frame_pointer_fallback = false});
  strict.add_mapping(code(0x1000, 0x2000));
  strict.unwind(sample, perf::UnwindMode::Dwarf, out);
  EXPECT_EQ(out.frames.size(), 1u);
  EXPECT_EQ(out.end, StackEnd::NoModule);
}

// The bias computed from a mapping agrees with what the dynamic loader used.
TEST(UnwinderChainTest, LoadBiasOfThisTestMatchesTheLoader) {
  uint64_t loader_bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;  // the first entry is the program
      },
      &loader_bias);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  size_t checked = 0;
  while (std::getline(maps, line)) {
    if (line.find(self) == std::string::npos || line.find(" r-xp ") == std::string::npos) continue;
    perf::Mapping m = code(0, 0, self);
    std::sscanf(line.c_str(), "%lx-%lx r-xp %lx", reinterpret_cast<unsigned long*>(&m.start),
                reinterpret_cast<unsigned long*>(&m.end), reinterpret_cast<unsigned long*>(&m.pgoff));
    Result<uint64_t> bias = mapping_load_bias(m);
    ASSERT_TRUE(bias.ok()) << bias.error().message;
    EXPECT_EQ(bias.value(), loader_bias);
    ++checked;
  }
  EXPECT_EQ(checked, 1u);
}

}  // namespace
}  // namespace callprof::stacks
