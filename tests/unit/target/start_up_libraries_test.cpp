// The start-up libraries from callprof's cache: an entry serves only while the program, the
// loader's settings, every library and every directory a library was found in are as they
// were; an entry of another key, cut short or changed is no entry.
#include "target/start_up_libraries.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scoped_env.h"
#include "target/shared_libraries.h"

namespace callprof {
namespace {

namespace fs = std::filesystem;
using namespace start_up_detail;

class StartUpLibraries : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("callprof_startlibs_" + std::to_string(getpid()));
    fs::create_directories(dir_ / "lib");
    lib_ = (dir_ / "lib" / "libfake.so.1").string();
    std::ofstream(lib_) << "not really a library";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string lib_;
};

TEST_F(StartUpLibraries, AnEntryReadsBackWhileNothingChanged) {
  const auto key = key_of("/bin/true");
  ASSERT_TRUE(key);
  const std::vector<std::string> libs = {lib_, "/usr/lib/x86_64-linux-gnu/libc.so.6"};
  EXPECT_EQ(decode(encode(*key, libs), *key), libs);
  EXPECT_FALSE(decode(encode(*key, libs), *key + "x")) << "another key's entry";
  std::string cut = encode(*key, libs);
  cut.resize(cut.rfind("end"));
  EXPECT_FALSE(decode(cut, *key)) << "cut short";
  EXPECT_FALSE(decode(*key + "\nlib garbage\n" + "end\n", *key));
  EXPECT_FALSE(decode("", *key));
}

TEST_F(StartUpLibraries, ALibraryRebuiltOrAFileBesideItIsNoEntry) {
  const std::string key = "k";
  const std::string entry = encode(key, {lib_});
  ASSERT_TRUE(decode(entry, key));
  std::ofstream(lib_, std::ios::app) << " rebuilt";
  EXPECT_FALSE(decode(entry, key)) << "the library changed";
  const std::string again = encode(key, {lib_});
  ASSERT_TRUE(decode(again, key));
  std::ofstream((dir_ / "lib" / "libshadow.so.1").string()) << "x";
  EXPECT_FALSE(decode(again, key)) << "a file added in a directory a library came from";
}

TEST_F(StartUpLibraries, TheKeyFollowsTheLoadersSettings) {
  const auto key_with = [](const std::optional<std::string>& library_path) {
    const test_support::ScopedEnv env("LD_LIBRARY_PATH", library_path);
    return key_of("/bin/true");
  };
  const auto unset = key_with(std::nullopt);
  const auto set = key_with(dir_.string());
  ASSERT_TRUE(unset && set);
  EXPECT_NE(*unset, *set);
  EXPECT_FALSE(key_of((dir_ / "missing").string())) << "a program that cannot be looked at";
}

// The cache in a directory of the test's own: the first answer is the loader's, written;
// the second is the entry's (one rewritten to name another library is what comes back).
TEST_F(StartUpLibraries, TheSecondAnswerComesFromTheCache) {
  std::optional<test_support::ScopedEnv> cache_home(std::in_place, "XDG_CACHE_HOME", (dir_ / "cache").string());
  auto first = start_up_libraries("/bin/true");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_ / "cache" / "callprof"))
    if (e.path().filename().string().rfind("startlibs-", 0) == 0) files.push_back(e.path());
  const auto key = key_of("/bin/true");
  if (files.size() == 1 && key) std::ofstream(files[0], std::ios::trunc) << encode(*key, {lib_});
  auto second = start_up_libraries("/bin/true");
  cache_home.reset();
  ASSERT_TRUE(first.ok() && second.ok() && key);
  ASSERT_EQ(files.size(), 1u);
  auto loader = shared_libraries("/bin/true");
  ASSERT_TRUE(loader.ok());
  EXPECT_EQ(*first, *loader) << "the loader's answer, the first time";
  EXPECT_EQ(*second, std::vector<std::string>{lib_}) << "then the cache's";
}

}  // namespace
}  // namespace callprof
