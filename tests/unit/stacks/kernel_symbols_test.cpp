// Kernel function names from kallsyms text: functions only, by containing address.
#include "collect/stacks/kernel_symbols.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "scoped_env.h"
#include "scratch_dir.h"

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

// A directory of the test's as the cache (~/.cache/callprof), for the test's life.
class KernelSymbolsCache : public ::testing::Test {
 protected:
  const test_support::ScratchDir scratch_;
  const std::filesystem::path dir_ = scratch_.path();
  const test_support::ScopedEnv cache_home_{"XDG_CACHE_HOME", (dir_ / "cache").string()};
};

// Sorted when parsed, and still in order when read back from the cache.
TEST_F(KernelSymbolsCache, ModulesListedBeforeTheKernelAreInAddressOrder) {
  const std::string file = (dir_ / "kallsyms").string();
  std::ofstream(file) << "ffffffffc0000000 t mod_fn\t[ext4]\n"
                         "ffffffff81000000 T _stext\n"
                         "ffffffff81000100 t do_one\n";
  const KernelSymbols k = KernelSymbols::load(file, "boot 1");
  EXPECT_EQ(k.name(0xffffffff81000050), "_stext");
  EXPECT_EQ(k.name(0xffffffff81000150), "do_one");
  EXPECT_EQ(k.name(0xffffffffc0000001), "mod_fn");
  std::filesystem::remove(file);
  const KernelSymbols again = KernelSymbols::load(file, "boot 1");
  EXPECT_EQ(again.name(0xffffffff81000150), "do_one") << "from the cache";
  EXPECT_EQ(again.name(0xffffffffc0000001), "mod_fn");
}

// A second load under the same key reads the cache, not the file; another key reads the file.
TEST_F(KernelSymbolsCache, LoadedOnceAKey) {
  const std::filesystem::path dir = dir_;
  const std::string file = (dir / "kallsyms").string();
  std::ofstream(file) << "ffffffff81000000 T first_name\n";
  EXPECT_EQ(KernelSymbols::load(file, "boot 1").name(0xffffffff81000001), "first_name");
  std::ofstream(file) << "ffffffff81000000 T second_name\n";
  EXPECT_EQ(KernelSymbols::load(file, "boot 1").name(0xffffffff81000001), "first_name") << "from the cache";
  EXPECT_EQ(KernelSymbols::load(file, "boot 2").name(0xffffffff81000001), "second_name") << "another boot";
  EXPECT_EQ(KernelSymbols::load(file, std::nullopt).name(0xffffffff81000001), "second_name") << "no cache";
  // A cache file cut short is refused: the names come from the file again.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "cache"))
    if (e.is_regular_file() && e.path().filename().string().rfind("kallsyms-", 0) == 0)
      std::filesystem::resize_file(e.path(), e.file_size() - 3);
  EXPECT_EQ(KernelSymbols::load(file, "boot 1").name(0xffffffff81000001), "second_name") << "a cut file";
}

TEST(KernelSymbols, KernelAddressesAreTheUpperHalf) {
  EXPECT_TRUE(is_kernel_address(0xffffffff81000000));
  EXPECT_FALSE(is_kernel_address(0x00007fff12345678));
}

}  // namespace
}  // namespace callprof::stacks
