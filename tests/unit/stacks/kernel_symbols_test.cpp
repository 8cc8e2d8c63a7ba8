// Kernel function names from kallsyms text: functions only, by containing address.
#include "collect/stacks/kernel_symbols.h"

#include <gtest/gtest.h>

namespace callprof::stacks {
namespace {

TEST(KernelSymbols, NamesTheFunctionContainingAnAddress) {
  const KernelSymbols k = KernelSymbols::parse(
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t do_one\n"
      "ffffffff81000200 D some_data\n"
      "ffffffff81000300 W weak_fn\n"
      "ffffffffc0000000 t mod_fn\t[ext4]\n"
      "0000000000000000 T hidden_when_restricted\n"
      "garbage line\n");
  EXPECT_EQ(k.name(0xffffffff81000000), "_stext");
  EXPECT_EQ(k.name(0xffffffff810001ff), "do_one");
  EXPECT_EQ(k.name(0xffffffff81000250), "do_one") << "data symbols do not end a function";
  EXPECT_EQ(k.name(0xffffffff81000301), "weak_fn");
  EXPECT_EQ(k.name(0xffffffffc0000010), "mod_fn");
  EXPECT_EQ(k.name(0xffffffff80000000), "") << "below every symbol";
}

TEST(KernelSymbols, RestrictedAddressesGiveNoNames) {
  EXPECT_TRUE(KernelSymbols::parse("0000000000000000 T a\n0000000000000000 t b\n").empty());
}

TEST(KernelSymbols, KernelAddressesAreTheUpperHalf) {
  EXPECT_TRUE(is_kernel_address(0xffffffff81000000));
  EXPECT_FALSE(is_kernel_address(0x00007fff12345678));
}

}  // namespace
}  // namespace callprof::stacks
