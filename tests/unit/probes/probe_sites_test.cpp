// The exits disassembly finds: every ret, and jumps out of the function (tail calls), in
// hand-written machine code and in functions of this test executable.
#include "collect/probes/probe_sites.h"

#include <gtest/gtest.h>

#include <filesystem>

extern "C" {
__attribute__((noinline)) int probes_test_leaf(int x) {
  asm volatile("" : "+r"(x));
  return x + 1;
}
// Two returns: the early one and the end.
__attribute__((noinline)) int probes_test_two_returns(int x) {
  asm volatile("" : "+r"(x));
  if (x > 10) return x;
  return probes_test_leaf(x) * 2;
}
// With a frame pointer: it starts with `push %rbp`, which the kernel emulates.
__attribute__((noinline, optimize("no-omit-frame-pointer"))) int probes_test_framed(int x) {
  asm volatile("" : "+r"(x));
  return probes_test_leaf(x) + 3;
}
}

namespace callprof::probes {
namespace {

TEST(FindExits, RetAndTailJumpsOut) {
  // 0: push rbp; 1: test edi,edi; 3: je +1 (to 6); 5: ret; 6: pop rbp; 7: jmp -0x100 (out); c: ret
  const uint8_t code[] = {0x55, 0x85, 0xff, 0x74, 0x01, 0xc3, 0x5d, 0xe9, 0x00, 0xff, 0xff, 0xff, 0xc3};
  EXPECT_EQ(place_probes(code, sizeof code, 0x1000).exits, (std::vector<uint64_t>{5, 7, 12}));
}

TEST(FindExits, JumpsInsideTheFunctionAreNotExits) {
  // 0: jmp +0 (to 2, inside); 2: nop; 3: ret
  const uint8_t code[] = {0xeb, 0x00, 0x90, 0xc3};
  EXPECT_EQ(place_probes(code, sizeof code, 0x1000).exits, (std::vector<uint64_t>{3}));
}

TEST(FindExits, RetWithImmediateAndRepRet) {
  const uint8_t code[] = {0xc2, 0x08, 0x00, 0xf3, 0xc3};  // ret 8; rep ret
  const Placement pl = place_probes(code, sizeof code, 0);
  EXPECT_TRUE(pl.entry_exits);  // the first instruction leaves: the entry is also an exit
  EXPECT_EQ(pl.exits, (std::vector<uint64_t>{3}));
  EXPECT_FALSE(pl.leaf);  // an entry that exits needs no return probe
}

TEST(FindExits, UndecodableBytesEndTheScan) {
  const uint8_t code[] = {0x90, 0xc3, 0x0f, 0xff};  // nop; ret; then no instruction
  const Placement pl = place_probes(code, sizeof code, 0);
  EXPECT_EQ(pl.exits, (std::vector<uint64_t>{1}));
  EXPECT_FALSE(pl.leaf);  // what the rest does is unknown
}

TEST(FindProbeFunctions, FindsOwnFunctionsWithEntryAndExits) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  auto pattern = Pattern::compile("^probes_test_", "--probe");
  ASSERT_TRUE(pattern);
  auto found = find_probe_functions(self, *pattern);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 3u);
  for (const ProbeFunction& f : *found) {
    EXPECT_GE(f.entry_site, f.entry_offset) << f.name;
    if (f.name == "probes_test_framed") {
      EXPECT_TRUE(f.entry_emulated);
    }
    EXPECT_EQ(f.module, self);
    EXPECT_GT(f.size, 0u);
    // The leaf returns through a return probe; the other calls a function: exit probes.
    EXPECT_EQ(f.returns, f.name == "probes_test_leaf") << f.name;
    EXPECT_EQ(f.exit_offsets.empty(), f.returns) << f.name;
    EXPECT_EQ(f.exit_emulated.size(), f.exit_offsets.size()) << f.name;
    for (uint64_t exit : f.exit_offsets) {
      EXPECT_GT(exit, f.entry_offset) << f.name;
      EXPECT_LT(exit, f.entry_offset + f.size) << f.name;
    }
  }
}

// --no-return-probes: a leaf keeps probes on its rets.
TEST(FindProbeFunctions, WithoutReturnProbesALeafGetsExitProbes) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  auto pattern = Pattern::compile("^probes_test_leaf$", "--probe");
  ASSERT_TRUE(pattern);
  auto found = find_probe_functions(self, *pattern, false);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->size(), 1u);
  EXPECT_FALSE(found->front().returns);
  EXPECT_FALSE(found->front().exit_offsets.empty());
}

TEST(FindProbeFunctions, MatchesDemangledNamesAndSkipsColdParts) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  auto pattern = Pattern::compile("FindExits", "--probe");  // the test classes' methods, demangled
  ASSERT_TRUE(pattern);
  auto found = find_probe_functions(self, *pattern);
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->empty());
  for (const ProbeFunction& f : *found) EXPECT_EQ(f.name.find(".cold"), std::string::npos) << f.name;
}

TEST(FindProbeFunctions, NotAnElfFileIsAnError) {
  auto pattern = Pattern::compile(".", "--probe");
  ASSERT_TRUE(pattern);
  auto found = find_probe_functions("/proc/self/status", *pattern);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().message.find("not an ELF file"), std::string::npos);
}

}  // namespace
}  // namespace callprof::probes

namespace callprof::probes {
namespace {

TEST(FindExits, AJumpIntoAColdPartStaysInTheFunction) {
  // 0: jmp 0x2000 (a cold part of this function); 5: jmp 0x3000 (another function); a: ret
  const uint8_t code[] = {0xe9, 0xfb, 0x0f, 0x00, 0x00, 0xe9, 0xf6, 0x1f, 0x00, 0x00, 0xc3};
  EXPECT_EQ(place_probes(code, sizeof code, 0x1000, {{0x2000, 0x2040}}).exits, (std::vector<uint64_t>{5, 10}));
  const Placement pl = place_probes(code, sizeof code, 0x1000);
  EXPECT_EQ(pl.exits, (std::vector<uint64_t>{5, 10}));
  EXPECT_TRUE(pl.entry_exits);
}

}  // namespace
}  // namespace callprof::probes
