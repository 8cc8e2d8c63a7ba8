// Memory bounded by the input: crafted small files that claim huge payloads or millions of
// elements make `report` fail at once with one line, in little memory (peak RSS of the
// child, from wait4). Before the bounds, these took gigabytes and tens of seconds.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "crafted_profiles.h"

extern char** environ;

namespace {

struct Measured {
  int status = -1;
  long max_rss_kib = 0;
  double seconds = 0;
  std::string err;
};

Measured run_report(const std::string& path) {
  const std::string err_path = testing::TempDir() + "/hostile_size_stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const char* argv[] = {CALLPROF_BIN, "report", "--no-pager", "-i", path.c_str(), nullptr};
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(posix_spawn(&pid, CALLPROF_BIN, &actions, nullptr, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  Measured m;
  int status = 0;
  rusage usage{};
  EXPECT_EQ(wait4(pid, &status, 0, &usage), pid);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  m.max_rss_kib = usage.ru_maxrss;
  std::ifstream e(err_path);
  m.err.assign(std::istreambuf_iterator<char>(e), {});
  return m;
}

TEST(HostileSize, CraftedFilesFailFastInLittleMemory) {
  for (const callprof::crafted::CraftedFile& f : callprof::crafted::all()) {
    SCOPED_TRACE(f.name);
    const std::string path = testing::TempDir() + "/" + f.name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(f.bytes.data()), std::streamsize(f.bytes.size()));
    const Measured m = run_report(path);
    std::printf("%-26s %8zu bytes, payload %10llu: exit %d in %.2f s, peak RSS %ld KiB: %s", f.name.c_str(),
                f.bytes.size(), (unsigned long long)f.payload_bytes, m.status, m.seconds, m.max_rss_kib, m.err.c_str());
    EXPECT_EQ(m.status, 2);
    EXPECT_EQ(m.err.rfind("callprof: error: " + path + ": ", 0), 0u) << m.err;
    EXPECT_EQ(std::count(m.err.begin(), m.err.end(), '\n'), 1) << m.err;
    // Wide margins: the files are at most ~200 KB; before the bounds they took 1-5 GiB.
    EXPECT_LT(m.max_rss_kib, 200 * 1024) << "peak RSS";
    EXPECT_LT(m.seconds, 10.0);
  }
}

}  // namespace
