// callprof's cache directory and its files: where it is, names, replacing a file, and
// keeping only the newest files of a kind.
#include "util/user_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "scoped_env.h"
#include "scratch_dir.h"

namespace callprof {
namespace {

namespace fs = std::filesystem;

class UserCache : public ::testing::Test {
 protected:
  const test_support::ScratchDir scratch_;
  const fs::path dir_ = scratch_.path();
};

TEST_F(UserCache, IsUnderXdgCacheHomeElseHomeAndNeedsAnAbsolutePath) {
  {
    const test_support::ScopedEnv cache_home("XDG_CACHE_HOME", "/x/cache");
    EXPECT_EQ(user_cache_dir(), fs::path("/x/cache/callprof"));
  }
  {
    const test_support::ScopedEnv cache_home("XDG_CACHE_HOME", "relative"), home("HOME", "/home/u");
    EXPECT_EQ(user_cache_dir(), fs::path("/home/u/.cache/callprof"));
  }
  const test_support::ScopedEnv no_cache_home("XDG_CACHE_HOME", std::nullopt), empty_home("HOME", "");
  EXPECT_EQ(user_cache_dir(), std::nullopt);
}

TEST_F(UserCache, NamesAreStableAndDifferByKey) {
  EXPECT_EQ(cache_file_name("symbols", "a key", ".cbor"), cache_file_name("symbols", "a key", ".cbor"));
  EXPECT_NE(cache_file_name("symbols", "a key", ".cbor"), cache_file_name("symbols", "another", ".cbor"));
  EXPECT_EQ(cache_file_name("symbols", "", ".cbor"), "symbols-cbf29ce484222325.cbor");  // FNV-1a's offset basis
}

TEST_F(UserCache, AFileIsReplacedWholeInADirectoryMadeForIt) {
  const fs::path file = dir_ / "deeper" / "k-1.bin";
  EXPECT_EQ(read_whole_file(file), "");
  ASSERT_TRUE(write_cache_file(file, "first", "k", ".bin", 4));
  ASSERT_TRUE(write_cache_file(file, std::string("sec\0nd", 6), "k", ".bin", 4));
  EXPECT_EQ(read_whole_file(file), std::string("sec\0nd", 6));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "deeper")) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "no temporary file left behind";
}

TEST_F(UserCache, OnlyTheNewestFilesOfTheKindAreKept) {
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 5; ++i) {
    const fs::path f = dir_ / ("k-" + std::to_string(i) + ".bin");
    ASSERT_TRUE(write_cache_file(f, "x", "k", ".bin", 100));
    fs::last_write_time(f, now - std::chrono::hours(10 - i));  // 0 oldest
  }
  ASSERT_TRUE(write_cache_file(dir_ / "other-0.bin", "x", "other", ".bin", 100));
  ASSERT_TRUE(write_cache_file(dir_ / "k-new.bin", "x", "k", ".bin", 3));
  EXPECT_TRUE(fs::exists(dir_ / "k-new.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "k-4.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "k-3.bin"));
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(fs::exists(dir_ / ("k-" + std::to_string(i) + ".bin"))) << i;
  EXPECT_TRUE(fs::exists(dir_ / "other-0.bin")) << "another kind is not counted";
}

// Replacing a file adds none: the others stay, however many (the listing is for new files).
TEST_F(UserCache, ReplacingAFileKeepsTheOthers) {
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(write_cache_file(dir_ / ("k-" + std::to_string(i) + ".bin"), "x", "k", ".bin", 100));
  ASSERT_TRUE(write_cache_file(dir_ / "k-3.bin", "y", "k", ".bin", 2));
  EXPECT_EQ(read_whole_file(dir_ / "k-3.bin"), "y");
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(fs::exists(dir_ / ("k-" + std::to_string(i) + ".bin"))) << i;
  ASSERT_TRUE(write_cache_file(dir_ / "k-4.bin", "x", "k", ".bin", 2));
  size_t kinds = 0;
  for (const auto& e : fs::directory_iterator(dir_)) kinds += e.path().filename().string().rfind("k-", 0) == 0;
  EXPECT_EQ(kinds, 2u) << "a new file trims to the newest";
}

TEST_F(UserCache, AFilesIdentityChangesWithItsContentsTime) {
  const fs::path file = dir_ / "module.so";
  std::ofstream(file) << "v1";
  const auto first = file_identity(file.string());
  ASSERT_TRUE(first);
  EXPECT_EQ(file_identity(file.string()), first);
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::nanoseconds(1000));
  EXPECT_NE(file_identity(file.string()), first);
  EXPECT_EQ(file_identity((dir_ / "missing").string()), std::nullopt);
}

TEST_F(UserCache, AFileThatCannotBeWrittenIsNoError) {
  EXPECT_FALSE(write_cache_file("/proc/callprof-cannot/k-1.bin", "x", "k", ".bin", 4));
}

}  // namespace
}  // namespace callprof
