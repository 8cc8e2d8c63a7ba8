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
}

namespace callprof::probes {
namespace {

TEST(FindExits, RetAndTailJumpsOut) {
  // 0: push rbp; 1: test edi,edi; 3: je +1 (to 6); 5: ret; 6: pop rbp; 7: jmp -0x100 (out); c: ret
  const uint8_t code[] = {0x55, 0x85, 0xff, 0x74, 0x01, 0xc3, 0x5d, 0xe9, 0x00, 0xff, 0xff, 0xff, 0xc3};
  EXPECT_EQ(find_exits(code, sizeof code, 0x1000), (std::vector<uint64_t>{5, 7, 12}));
}

TEST(FindExits, JumpsInsideTheFunctionAreNotExits) {
  // 0: jmp +0 (to 2, inside); 2: nop; 3: ret
  const uint8_t code[] = {0xeb, 0x00, 0x90, 0xc3};
  EXPECT_EQ(find_exits(code, sizeof code, 0x1000), (std::vector<uint64_t>{3}));
}

TEST(FindExits, RetWithImmediateAndRepRet) {
  const uint8_t code[] = {0xc2, 0x08, 0x00, 0xf3, 0xc3};  // ret 8; rep ret
  EXPECT_EQ(find_exits(code, sizeof code, 0).size(), 2u);
}

TEST(FindExits, UndecodableBytesEndTheScan) {
  const uint8_t code[] = {0xc3, 0x0f, 0xff};  // ret; then no instruction
  EXPECT_EQ(find_exits(code, sizeof code, 0), (std::vector<uint64_t>{0}));
}

TEST(FindProbeFunctions, FindsOwnFunctionsWithEntryAndExits) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  auto pattern = Pattern::compile("^probes_test_", "--probe");
  ASSERT_TRUE(pattern);
  auto found = find_probe_functions(self, *pattern);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 2u);
  for (const ProbeFunction& f : *found) {
    EXPECT_EQ(f.module, self);
    EXPECT_GT(f.size, 0u);
    EXPECT_FALSE(f.exit_offsets.empty()) << f.name;
    for (uint64_t exit : f.exit_offsets) {
      EXPECT_GT(exit, f.entry_offset) << f.name;
      EXPECT_LT(exit, f.entry_offset + f.size) << f.name;
    }
  }
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
  EXPECT_EQ(find_exits(code, sizeof code, 0x1000, {{0x2000, 0x2040}}), (std::vector<uint64_t>{5, 10}));
  EXPECT_EQ(find_exits(code, sizeof code, 0x1000), (std::vector<uint64_t>{0, 5, 10}));
}

}  // namespace
}  // namespace callprof::probes
