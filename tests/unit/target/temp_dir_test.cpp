// The recording's private directory: created locked, removed with its contents, and the
// directories of runs that died (kill -9) removed by the next one, never a live run's,
// another name's or something that is not a directory.
#include "target/temp_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace callprof {
namespace {

namespace fs = std::filesystem;

class StaleTempDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/callprof-temp-dir-test-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    parent_ = name;
  }
  void TearDown() override { fs::remove_all(parent_); }
  // A run's directory with its lock file (and a dump in it).
  fs::path run_dir(const std::string& name) {
    const fs::path d = parent_ / name;
    fs::create_directory(d);
    std::ofstream(d / ".lock") << "";
    std::ofstream(d / "dump.1234") << "data";
    return d;
  }
  fs::path parent_;
};

TEST_F(StaleTempDirs, OnlyEndedRunsDirectoriesGo) {
  const fs::path ended = run_dir("callprof-aB3xQ9");
  const fs::path live = run_dir("callprof-Zz0000");
  const int held = open((live / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX | LOCK_NB), 0);  // a running recording holds its lock
  const fs::path other_name = run_dir("callprof-short");
  const fs::path lockless_new = parent_ / "callprof-new000";
  fs::create_directory(lockless_new);
  const fs::path lockless_old = parent_ / "callprof-old000";
  fs::create_directory(lockless_old);
  fs::last_write_time(lockless_old, fs::file_time_type::clock::now() - std::chrono::hours(2));
  const fs::path file = parent_ / "callprof-file00";
  std::ofstream(file) << "not a directory";
  fs::create_directory_symlink(ended, parent_ / "callprof-link00");

  EXPECT_EQ(remove_stale_temp_dirs(parent_.string()), 2);
  EXPECT_FALSE(fs::exists(ended));
  EXPECT_FALSE(fs::exists(lockless_old)) << "an older callprof's, without a lock, over an hour old";
  EXPECT_TRUE(fs::exists(live / "dump.1234"));
  EXPECT_TRUE(fs::exists(other_name));
  EXPECT_TRUE(fs::exists(lockless_new));
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(fs::is_symlink(parent_ / "callprof-link00"));
  close(held);
  EXPECT_EQ(remove_stale_temp_dirs(parent_.string()), 1) << "its run ended";
  EXPECT_EQ(remove_stale_temp_dirs((parent_ / "missing").string()), 0);
}

TEST_F(StaleTempDirs, ARecordingsDirectoryIsLockedAndGoesWithItsContents) {
  const char* saved = getenv("TMPDIR");
  const std::string saved_tmpdir = saved ? saved : "";
  setenv("TMPDIR", parent_.c_str(), 1);
  std::string path;
  {
    auto dir = TempDir::create();
    ASSERT_TRUE(dir.ok()) << dir.error().message;
    path = dir->path();
    EXPECT_EQ(fs::path(path).parent_path(), parent_);
    std::ofstream(fs::path(path) / "dump.1") << "x";
    EXPECT_EQ(remove_stale_temp_dirs(parent_.string()), 0) << "its lock is held";
  }
  EXPECT_FALSE(fs::exists(path));
  if (saved)
    setenv("TMPDIR", saved_tmpdir.c_str(), 1);
  else
    unsetenv("TMPDIR");
}

}  // namespace
}  // namespace callprof
