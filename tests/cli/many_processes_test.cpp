// Views linear in processes: the threads view built each process's thread forest from the
// whole profile's threads, quadratic in processes (1k: 0.16 s, 10k: 14.5 s, 20k: > 60 s).
// Timing with a wide margin: 20,000 processes take ~3 s on a loaded CI machine now.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

TEST(ManyProcesses, ThreadsViewOf20000ProcessesIsFast) {
  const std::string profile = testing::TempDir() + "/many_processes.callprof";
  ASSERT_EQ(std::system((std::string(PROCESS_SYNTH_BIN) + " --processes 20000 -o " + profile).c_str()), 0);
  for (const char* view : {"threads", "flat"}) {
    SCOPED_TRACE(view);
    const auto start = std::chrono::steady_clock::now();
    const std::string cmd = std::string(CALLPROF_BIN) + " report --no-pager --view " + view + " -i " + profile + " > " +
                            testing::TempDir() + "/many_processes.txt";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("report --view %s, 20,000 processes: %.2f s\n", view, seconds);
    EXPECT_LT(seconds, 15.0);
  }
}

}  // namespace
