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
#include <iterator>
#include <optional>

#include "scoped_env.h"
#include "scratch_dir.h"

namespace callprof {
namespace {

namespace fs = std::filesystem;

class StaleTempDirs : public ::testing::Test {
 protected:
  // A run's directory with its lock file (and a dump in it).
  fs::path run_dir(const std::string& name) {
    const fs::path d = parent_ / name;
    fs::create_directory(d);
    std::ofstream(d / ".lock") << "";
    std::ofstream(d / "dump.1234") << "data";
    return d;
  }
  const test_support::ScratchDir scratch_;
  const fs::path parent_ = scratch_.path();
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
  const test_support::ScopedEnv tmpdir("TMPDIR", parent_.string());
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
}

// Recordings under TMPDIR = parent_ with the user's cache in parent_/cache: the markers.
class TempDirMarkers : public StaleTempDirs {
 protected:
  const test_support::ScopedEnv tmpdir_{"TMPDIR", parent_.string()};
  const test_support::ScopedEnv cache_home_{"XDG_CACHE_HOME", (parent_ / "cache").string()};
  const fs::path markers_ = parent_ / "cache" / "callprof" / "running";
  static std::string host() {
    char h[256] = {};
    gethostname(h, sizeof h - 1);
    return h;
  }
  // The marker a run on `host` would have left for `dir`.
  void mark(const fs::path& dir, const std::string& on_host = host()) {
    fs::create_directories(markers_);
    std::ofstream(markers_ / (on_host + "-" + dir.filename().string())) << dir.string();
  }
  size_t marker_count() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(markers_)) n += e.is_regular_file();
    return n;
  }
};

TEST_F(TempDirMarkers, ARecordingIsMarkedWhileItLives) {
  std::string path;
  {
    auto dir = TempDir::create();
    ASSERT_TRUE(dir.ok()) << dir.error().message;
    path = dir->path();
    const fs::path marker = markers_ / (host() + "-" + fs::path(path).filename().string());
    ASSERT_TRUE(fs::exists(marker));
    std::ifstream in(marker);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), path);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(marker_count(), 0u) << "the marker goes with the directory";
}

TEST_F(TempDirMarkers, TheNextRecordingRemovesWhatTheMarkersNameOnly) {
  const fs::path killed = run_dir("callprof-kill99");
  mark(killed);
  const fs::path live = run_dir("callprof-live00");
  mark(live);
  const int held = open((live / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX | LOCK_NB), 0);
  const fs::path unmarked = run_dir("callprof-nomark");  // ended, but no marker names it
  const fs::path elsewhere = run_dir("callprof-other0");
  mark(elsewhere, "another-host");    // another machine's, sharing the home directory
  mark(parent_ / "callprof-gone00");  // its directory is gone already
  std::ofstream(markers_ / (host() + "-callprof-wrong0")) << killed.string();  // names another
  const fs::path planted = parent_ / "callprof-link01";                        // a link where the directory was
  fs::create_directory_symlink(live, planted);
  mark(planted);

  auto dir = TempDir::create();
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_FALSE(fs::exists(killed)) << "a killed run's directory";
  EXPECT_TRUE(fs::exists(live / "dump.1234")) << "its lock is held";
  EXPECT_TRUE(fs::exists(unmarked)) << "$TMPDIR was read, not the markers";
  EXPECT_TRUE(fs::exists(elsewhere));
  EXPECT_FALSE(fs::exists(markers_ / (host() + "-callprof-kill99")));
  EXPECT_FALSE(fs::exists(markers_ / (host() + "-callprof-gone00")));
  EXPECT_FALSE(fs::exists(markers_ / (host() + "-callprof-wrong0")));
  EXPECT_FALSE(fs::exists(markers_ / (host() + "-callprof-link01"))) << "not a directory: its marker goes";
  EXPECT_TRUE(fs::is_symlink(planted));
  EXPECT_TRUE(fs::exists(markers_ / (host() + "-callprof-live00")));
  EXPECT_TRUE(fs::exists(markers_ / "another-host-callprof-other0"));
  close(held);
}

// A run marks its directory before it makes it, and locks it after: one killed in between
// leaves a marked directory without a lock (or with the lock file not yet named), which is
// a run starting while it is young and an ended one after an hour.
TEST_F(TempDirMarkers, AMarkedDirectoryWithoutItsLockGoesOnlyOnceOld) {
  ASSERT_TRUE(TempDir::create().ok());  // markers from now on
  const fs::path starting = parent_ / "callprof-start0";
  fs::create_directory(starting);
  std::ofstream(starting / ".lock.new") << "";
  mark(starting);
  const fs::path killed = parent_ / "callprof-start1";
  fs::create_directory(killed);
  std::ofstream(killed / ".lock.new") << "";
  mark(killed);
  fs::last_write_time(killed, fs::file_time_type::clock::now() - std::chrono::hours(2));

  auto dir = TempDir::create();
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_TRUE(fs::exists(starting / ".lock.new")) << "a run still starting";
  EXPECT_TRUE(fs::exists(markers_ / (host() + "-callprof-start0")));
  EXPECT_FALSE(fs::exists(killed)) << "killed before its lock, an hour ago";
  EXPECT_FALSE(fs::exists(markers_ / (host() + "-callprof-start1")));
}

// The marker is written before the directory is made: when it cannot be made, the marker
// goes too, and the error says where.
TEST_F(TempDirMarkers, ADirectoryThatCannotBeMadeLeavesNoMarker) {
  ASSERT_TRUE(TempDir::create().ok());  // markers from now on
  const test_support::ScopedEnv missing("TMPDIR", (parent_ / "missing").string());
  auto dir = TempDir::create();
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("cannot create a temporary directory in " + (parent_ / "missing").string()),
            std::string::npos)
      << dir.error().message;
  EXPECT_EQ(marker_count(), 0u);
}

TEST_F(TempDirMarkers, TheFirstRecordingWithMarkersReadsTmpdirOnce) {
  const fs::path unmarked = run_dir("callprof-old001");  // left before markers were kept
  {
    auto first = TempDir::create();
    ASSERT_TRUE(first.ok()) << first.error().message;
  }
  EXPECT_FALSE(fs::exists(unmarked));
  const fs::path later = run_dir("callprof-old002");
  auto second = TempDir::create();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(fs::exists(later)) << "markers from now on";
}

TEST_F(TempDirMarkers, WithoutACacheTmpdirIsRead) {
  const fs::path ended = run_dir("callprof-nocach");
  auto dir = [] {
    const test_support::ScopedEnv no_cache_home("XDG_CACHE_HOME", std::nullopt), no_home("HOME", std::nullopt);
    return TempDir::create();
  }();
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_FALSE(fs::exists(ended));
}

}  // namespace
}  // namespace callprof
