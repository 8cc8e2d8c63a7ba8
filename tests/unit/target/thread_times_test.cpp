// The kernel's count of a thread's time, and the file it is kept in across an attach.
#include "target/thread_times.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace callprof {
namespace {

TEST(ThreadTimes, ParsesSchedstatAndRefusesWhatIsNotIt) {
  const auto t = parse_schedstat(5, "258129 1200 2\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->tid, 5);
  EXPECT_EQ(t->on_cpu_ns, 258129u);
  EXPECT_EQ(t->waiting_ns, 1200u);
  EXPECT_FALSE(parse_schedstat(5, ""));
  EXPECT_FALSE(parse_schedstat(5, "12 x 3"));
}

TEST(ThreadTimes, ReadsALiveThreadAndNotAGoneOne) {
  const auto self = read_thread_time(getpid(), gettid());
  ASSERT_TRUE(self) << "this kernel has no schedstat";
  volatile uint64_t spin = 0;
  for (int i = 0; i < 20000000; ++i) spin = spin + 1;
  const auto later = read_thread_time(getpid(), gettid());
  ASSERT_TRUE(later);
  EXPECT_GT(later->on_cpu_ns, self->on_cpu_ns) << "the spin ran on a CPU";
  EXPECT_FALSE(read_thread_time(getpid(), 0x7ffffff0));
  EXPECT_FALSE(read_thread_name(getpid(), gettid()).empty());
  EXPECT_EQ(read_thread_name(getpid(), 0x7ffffff0), "");
}

TEST(ThreadTimes, AFileKeepsThemAndSkipsLinesThatAreNotThem) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("thread_times_" + std::to_string(getpid()))).string();
  ASSERT_TRUE(write_thread_times(path, {{3, 100, 7}, {4, 200, 0}}));
  std::ofstream(path, std::ios::app) << "junk\n0 1 2\n";
  const std::vector<ThreadTime> back = read_thread_times(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].tid, 4);
  EXPECT_EQ(back[1].on_cpu_ns, 200u);
  EXPECT_EQ(back[0].waiting_ns, 7u);
  std::filesystem::remove(path);
  EXPECT_TRUE(read_thread_times(path).empty());
}

}  // namespace
}  // namespace callprof
