// Where the probes go: which instructions the kernel emulates (no single step), how far
// the entry probe may move to reach one, and which functions are leaves (a return probe
// instead of exit probes). Hand-assembled x86-64; the emulated set is the kernel's
// (arch/x86/kernel/uprobes.c) and was measured on the project VM (bench/README.md).
#include "collect/probes/probe_placement.h"

#include <gtest/gtest.h>

#include <vector>

namespace callprof::probes {
namespace {

bool emulates(std::vector<uint8_t> bytes) { return uprobe_emulates(bytes.data(), bytes.size()); }

TEST(UprobeEmulates, PushOfARegister) {
  EXPECT_TRUE(emulates({0x55}));                     // push %rbp
  EXPECT_TRUE(emulates({0x53}));                     // push %rbx
  EXPECT_TRUE(emulates({0x41, 0x57}));               // push %r15
  EXPECT_FALSE(emulates({0x48, 0x55}));              // rex.W push %rbp: only 0x41 is taken
  EXPECT_FALSE(emulates({0x6a, 0x01}));              // push $1
  EXPECT_FALSE(emulates({0xff, 0x35, 0, 0, 0, 0}));  // push mem
}

TEST(UprobeEmulates, NopsTheKernelKnows) {
  EXPECT_TRUE(emulates({0x90}));
  EXPECT_TRUE(emulates({0x66, 0x90}));
  EXPECT_TRUE(emulates({0x0f, 0x1f, 0x00}));
  EXPECT_TRUE(emulates({0x0f, 0x1f, 0x44, 0x00, 0x00}));
  EXPECT_TRUE(emulates({0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}));
  EXPECT_FALSE(emulates({0xf3, 0x90}));                                            // pause
  EXPECT_FALSE(emulates({0x41, 0x90}));                                            // xchg %r8,%rax
  EXPECT_FALSE(emulates({0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}));  // cs nopw: refused
  EXPECT_FALSE(emulates({0xf3, 0x0f, 0x1e, 0xfa}));                                // endbr64: single-stepped (measured)
  EXPECT_FALSE(emulates({0x48, 0x89, 0xff}));  // mov %rdi,%rdi: only 6.18+ insn_is_nop()
}

TEST(UprobeEmulates, RelativeBranches) {
  EXPECT_TRUE(emulates({0xeb, 0x10}));                          // jmp rel8
  EXPECT_TRUE(emulates({0xe9, 0x00, 0x01, 0x00, 0x00}));        // jmp rel32
  EXPECT_TRUE(emulates({0xe8, 0x00, 0x01, 0x00, 0x00}));        // call rel32
  EXPECT_TRUE(emulates({0x74, 0x05}));                          // je rel8
  EXPECT_TRUE(emulates({0x0f, 0x85, 0x00, 0x01, 0x00, 0x00}));  // jne rel32
  EXPECT_TRUE(emulates({0xf2, 0xe9, 0x00, 0x01, 0x00, 0x00}));  // bnd jmp
  EXPECT_FALSE(emulates({0x66, 0xe8, 0x00, 0x01}));             // callw: refused to emulate
  EXPECT_FALSE(emulates({0x3e, 0x74, 0x05}));                   // ds je: refused to probe
  EXPECT_FALSE(emulates({0xff, 0xe0}));                         // jmp *%rax
  EXPECT_FALSE(emulates({0xc3}));                               // ret
  EXPECT_FALSE(emulates({0x48, 0x8d, 0x47, 0x01}));             // lea 1(%rdi),%rax
}

Placement place(std::vector<uint8_t> code, const ColdParts& cold = {}, const std::vector<uint64_t>& entries = {}) {
  return place_probes(code.data(), code.size(), 0x1000, cold, entries);
}

TEST(PlaceProbes, AnEmulatedFirstInstructionStays) {
  const Placement pl = place({0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3});  // push rbp; mov rsp,rbp; pop rbp; ret
  EXPECT_EQ(pl.entry, 0u);
  EXPECT_TRUE(pl.entry_emulated);
  EXPECT_EQ(pl.exits, (std::vector<uint64_t>{5}));
  EXPECT_EQ(pl.exits_emulated, (std::vector<bool>{false}));
}

TEST(PlaceProbes, TheEntryMovesPastEndbrToThePush) {
  const Placement pl = place({0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x5d, 0xc3});  // endbr64; push rbp; pop rbp; ret
  EXPECT_EQ(pl.entry, 4u);
  EXPECT_TRUE(pl.entry_emulated);
}

TEST(PlaceProbes, TheEntryMovesPastRegisterOnlyCodeToABranch) {
  // 0: mov %rdi,%rax; 3: xor %ecx,%ecx; 5: test %rdi,%rdi; 8: je +1; a: ret; b: ret
  const Placement pl = place({0x48, 0x89, 0xf8, 0x31, 0xc9, 0x48, 0x85, 0xff, 0x74, 0x01, 0xc3, 0xc3});
  EXPECT_EQ(pl.entry, 8u);
  EXPECT_TRUE(pl.entry_emulated);
  EXPECT_TRUE(pl.leaf);
}

TEST(PlaceProbes, NotPastWhatChangesTheStackOrCalleeSavedRegisters) {
  // sub $8,%rsp; push %rbx; ...
  EXPECT_EQ(place({0x48, 0x83, 0xec, 0x08, 0x53, 0x5b, 0x48, 0x83, 0xc4, 0x08, 0xc3}).entry, 0u);
  // endbr64; mov %rdi,%rbx; push %rbp: rbx is the caller's until saved
  const Placement rbx = place({0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x89, 0xfb, 0x55, 0x5d, 0xc3});
  EXPECT_EQ(rbx.entry, 0u);
  EXPECT_FALSE(rbx.entry_emulated);
}

TEST(PlaceProbes, NotPastMemoryAccesses) {
  // mov (%rdi),%rax; push %rbp: the load may fault before the call is counted
  EXPECT_EQ(place({0x48, 0x8b, 0x07, 0x55, 0x5d, 0xc3}).entry, 0u);
  // lea 8(%rdi),%rax and lea 0x10(%rip),%rax compute an address without reading it
  EXPECT_EQ(place({0x48, 0x8d, 0x47, 0x08, 0x55, 0x5d, 0xc3}).entry, 4u);
  EXPECT_EQ(place({0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00, 0x55, 0x5d, 0xc3}).entry, 7u);
}

TEST(PlaceProbes, NotPastAnInstructionSomethingJumpsTo) {
  // 0: endbr64; 4: xor %eax,%eax; 6: push %rbp; 7: pop %rbp; 8: jmp 4 (back into the prefix)
  const std::vector<uint8_t> loop = {0xf3, 0x0f, 0x1e, 0xfa, 0x31, 0xc0, 0x55, 0x5d, 0xeb, 0xfa, 0xc3};
  EXPECT_EQ(place(loop).entry, 0u);
  // The same without the loop moves; another function starting inside it, or a cold part
  // jumping into it, pins it again.
  const std::vector<uint8_t> straight = {0xf3, 0x0f, 0x1e, 0xfa, 0x31, 0xc0, 0x55, 0x5d, 0xc3};
  EXPECT_EQ(place(straight).entry, 6u);
  EXPECT_EQ(place(straight, {}, {0x1004}).entry, 0u);
  EXPECT_EQ(place(straight, {}, {0x1006}).entry, 0u);  // an entry at the probe itself
  EXPECT_EQ(place(straight, {}, {0x1007, 0x0fff}).entry, 6u);
}

TEST(PlaceProbes, NotMovedWhenAnIndirectJumpCouldGoAnywhere) {
  // endbr64; push %rbp; pop %rbp; jmp *%rax
  EXPECT_EQ(place({0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x5d, 0xff, 0xe0}).entry, 0u);
}

TEST(PlaceProbes, NoFurtherThanTheFirstInstructionsAndNotPastARet) {
  std::vector<uint8_t> long_prefix;
  for (int i = 0; i < 12; ++i) long_prefix.insert(long_prefix.end(), {0x48, 0x89, 0xf8});  // mov %rdi,%rax
  long_prefix.insert(long_prefix.end(), {0x55, 0x5d, 0xc3});
  EXPECT_EQ(place(long_prefix).entry, 0u);
  EXPECT_EQ(place({0x48, 0x89, 0xf8, 0xc3, 0x55, 0xc3}).entry, 0u);  // mov; ret; push: the ret stops it
}

TEST(PlaceProbes, LeavesCallNothingAndLeaveOnlyByRet) {
  EXPECT_TRUE(place({0x48, 0x8d, 0x47, 0x01, 0xc3}).leaf);                    // lea; ret
  EXPECT_TRUE(place({0x85, 0xff, 0x74, 0x01, 0xc3, 0x31, 0xc0, 0xc3}).leaf);  // test; je (inside); ret; xor; ret
  EXPECT_FALSE(place({0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3}).leaf);             // call
  EXPECT_FALSE(place({0xff, 0xd0, 0xc3}).leaf);                               // call *%rax
  EXPECT_FALSE(place({0x90, 0xe9, 0x00, 0x10, 0x00, 0x00}).leaf);             // nop; jmp out (tail call)
  EXPECT_FALSE(place({0x90, 0xff, 0xe0}).leaf);                               // nop; jmp *%rax
  EXPECT_FALSE(place({0x0f, 0x05, 0xc3}).leaf);                               // syscall; ret
  EXPECT_FALSE(place({0x0f, 0x0b}).leaf);                                     // ud2
  // jne to a cold part, which may call (a throw, an abort)
  EXPECT_FALSE(place({0x85, 0xff, 0x0f, 0x85, 0xf8, 0x0f, 0x00, 0x00, 0xc3}, {{0x2000, 0x2040}}).leaf);
  // a function that is only `jmp other` is its own exit: no leaf
  const Placement jmp_only = place({0xe9, 0x00, 0x10, 0x00, 0x00});
  EXPECT_TRUE(jmp_only.entry_exits);
  EXPECT_FALSE(jmp_only.leaf);
}

// add %rdi,%rdi; jmp other: the entry moves to the tail jump, which is then its exit too
// (one probe there, not two).
TEST(PlaceProbes, AnEntryMovedOntoATailJumpIsAlsoTheExit) {
  const Placement pl = place({0x48, 0x01, 0xff, 0xe9, 0x00, 0x10, 0x00, 0x00});
  EXPECT_EQ(pl.entry, 3u);
  EXPECT_TRUE(pl.entry_emulated);
  EXPECT_TRUE(pl.entry_exits);
  EXPECT_TRUE(pl.exits.empty());
  EXPECT_FALSE(pl.leaf);
}

TEST(BranchTargets, DirectJumpsAndCallsOnly) {
  // 0: jmp +2 (to 4); 2: jmp *%rax; 4: call 0x1000 (rel -9); 9: ret
  const uint8_t code[] = {0xeb, 0x02, 0xff, 0xe0, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0xc3};
  EXPECT_EQ(branch_targets(code, sizeof code, 0x1000), (std::vector<uint64_t>{0x1000, 0x1004}));
}

}  // namespace
}  // namespace callprof::probes
