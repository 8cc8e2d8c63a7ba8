// The disassembler's return-address check (ProcessUnwinder cuts a stack at a slot whose
// address follows no call): each form of call GCC and Clang emit, and what is no call.
#include "symbols/disassembler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace callprof {
namespace {

// `bytes` as the last of 10 bytes before an address, preceded by filler that decodes to
// no call (int3).
bool ends_with_call(std::vector<uint8_t> bytes) {
  std::vector<uint8_t> before(10 - bytes.size(), 0xcc);
  before.insert(before.end(), bytes.begin(), bytes.end());
  Disassembler d;
  if (!d.ok()) ADD_FAILURE() << d.error();
  return d.ends_with_call(before.data(), before.size());
}

TEST(Disassembler, ReturnAddressesFollowEachFormOfCall) {
  EXPECT_TRUE(ends_with_call({0xe8, 0x10, 0x20, 0x00, 0x00}));                    // call rel32
  EXPECT_TRUE(ends_with_call({0xff, 0xd0}));                                      // call *%rax
  EXPECT_TRUE(ends_with_call({0x41, 0xff, 0xd4}));                                // call *%r12
  EXPECT_TRUE(ends_with_call({0xff, 0x15, 0x10, 0x20, 0x00, 0x00}));              // call *x(%rip): the PLT-less form
  EXPECT_TRUE(ends_with_call({0xff, 0x50, 0x18}));                                // call *0x18(%rax): a virtual call
  EXPECT_TRUE(ends_with_call({0xff, 0x14, 0xc5, 0x00, 0x10, 0x40, 0x00}));        // call *table(,%rax,8)
  EXPECT_TRUE(ends_with_call({0x3e, 0xff, 0xd0}));                                // notrack call *%rax (CET)
  EXPECT_TRUE(ends_with_call({0x41, 0xff, 0x94, 0x24, 0x00, 0x01, 0x00, 0x00}));  // call *0x100(%r12)
}

TEST(Disassembler, LandingPadsAndOtherAddressesFollowNoCall) {
  EXPECT_FALSE(ends_with_call({0x48, 0x83, 0xc4, 0x08, 0xc3}));  // add $8,%rsp; ret: a landing pad after it
  EXPECT_FALSE(ends_with_call({0xeb, 0x10}));                    // jmp
  EXPECT_FALSE(ends_with_call({0xe9, 0x10, 0x20, 0x00, 0x00}));  // jmp rel32
  EXPECT_FALSE(ends_with_call({0xff, 0xe0}));                    // jmp *%rax
  EXPECT_FALSE(ends_with_call({0x0f, 0x1f, 0x44, 0x00, 0x00}));  // a 5-byte nop: a patchable entry
  EXPECT_FALSE(ends_with_call({}));                              // all int3
}

}  // namespace
}  // namespace callprof
