// Call classification from the bytes before a return address.
#include "collect/runtime/call_kind.h"

#include <gtest/gtest.h>

#include <vector>

namespace callprof {
namespace {

CallKind kind(std::vector<uint8_t> bytes) { return classify_call(bytes); }

TEST(CallKind, DirectRel32) {
  EXPECT_EQ(kind({0x48, 0x89, 0xc7, 0xe8, 0x10, 0x20, 0x00, 0x00}), CallKind::Direct);
  EXPECT_EQ(kind({0xe8, 0xf0, 0xff, 0xff, 0xff}), CallKind::Direct);  // backwards
}

TEST(CallKind, IndirectThroughARegister) {
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0xff, 0xd0}), CallKind::Indirect);  // call *%rax
  EXPECT_EQ(kind({0x90, 0x90, 0x41, 0xff, 0xd4}), CallKind::Indirect);  // call *%r12
}

TEST(CallKind, IndirectThroughMemory) {
  EXPECT_EQ(kind({0x90, 0xff, 0x15, 0x10, 0x20, 0x30, 0x00}), CallKind::Indirect);        // call *disp(%rip)
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0xff, 0x50, 0x18}), CallKind::Indirect);              // call *0x18(%rax)
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0xff, 0x14, 0xc5, 0, 0, 0, 0}), CallKind::Indirect);  // call *0(,%rax,8)
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0x90, 0xff, 0x10}), CallKind::Indirect);              // call *(%rax)
}

TEST(CallKind, OtherBytesAreUnknown) {
  EXPECT_EQ(kind({}), CallKind::Unknown);
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0x90, 0x90, 0x90}), CallKind::Unknown);
  EXPECT_EQ(kind({0x90, 0x90, 0x90, 0xff, 0xe0}), CallKind::Unknown);  // jmp *%rax (FF /4)
}

}  // namespace
}  // namespace callprof
