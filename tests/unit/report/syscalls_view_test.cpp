// The system-call view and JSON section on a hand-built profile: statistics merged over
// threads (errnos, percentiles), direct vs inclusive counts per function, the inverted
// paths, the filter, and a profile without traced calls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "folded_profile.h"
#include "report/report.h"

namespace callprof {
namespace {

using nlohmann::json;

// Thread 1: main > f1 > [syscall] write (30 calls, 3 µs), main > f2 > g > [syscall] write
// (10 calls, 1 µs, 4 EBADF), main > f2 > [syscall] read (5 calls, 50 µs); thread 2 makes
// 2 writes under worker (200 ns).
Profile traced_profile() {
  Profile p = testing::folded(
      "main;f1;[syscall]_write 3000 calls=30\n"
      "main;f2;g;[syscall]_write 1000 calls=10\n"
      "main;f2;[syscall]_read 50000 calls=5\n"
      "@thread 2\n"
      "worker;[syscall]_write 200 calls=2\n");
  p.meta.mode = "syscall";
  for (Function& f : p.functions)  // folded lines cannot hold the space
    if (f.name.starts_with("[syscall]_")) f.name[9] = ' ';
  for (Thread& t : p.threads)
    for (NodeId n = 1; n < t.tree.size(); ++n) {
      Metrics& m = t.tree.base(n);
      if (!p.functions[t.tree.node(n).function].name.starts_with("[syscall]")) continue;
      m[Metric::Syscalls] = m[Metric::Calls];
      m[Metric::SyscallNs] = m[Metric::WallNs];
      if (m[Metric::Calls] == 10) m[Metric::SyscallErrors] = 4;
    }
  SyscallStats write, read, write2;
  write.name = write2.name = "write", write.number = write2.number = 1;
  read.name = "read";
  for (int i = 0; i < 30; ++i) write.add(100, 0);
  for (int i = 0; i < 10; ++i) write.add(100, i < 4 ? 9 : 0);
  for (int i = 0; i < 5; ++i) read.add(10000, 0);
  write2.add(100, 0);
  write2.add(100, 0);
  p.threads[0].syscalls = {read, write};
  p.threads[1].syscalls = {write2};
  return p;
}

std::string render(const ReportOptions& o, const Profile& p = traced_profile()) {
  std::ostringstream out;
  Status s = render_report(p, o, out);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return out.str();
}

ReportOptions syscalls_view() {
  ReportOptions o;
  o.view = View::Syscalls;
  return o;
}

TEST(SyscallsView, StatisticsAreMergedOverThreadsWithErrnos) {
  ReportOptions o = syscalls_view();
  o.json = true;
  const json d = json::parse(render(o));
  ASSERT_EQ(d["syscalls"].size(), 2u);
  const json& read = d["syscalls"][0];  // most time first
  EXPECT_EQ(read["name"], "read");
  EXPECT_EQ(read["calls"], 5);
  EXPECT_EQ(read["p50_ns"], 10000);
  const json& write = d["syscalls"][1];
  EXPECT_EQ(write["calls"], 42);
  EXPECT_EQ(write["errors"], 4);
  EXPECT_EQ(write["errnos"]["EBADF"], 4);
  EXPECT_EQ(write["total_ns"], 4200);
  ASSERT_EQ(write["paths"].size(), 3u);
  EXPECT_EQ(write["paths"][0]["path"], json({"main", "f1"}));
  EXPECT_EQ(write["paths"][0]["calls"], 30);
  EXPECT_EQ(write["paths"][1]["path"], json({"main", "f2", "g"}));
  EXPECT_EQ(write["paths"][1]["errors"], 4);
  EXPECT_EQ(write["paths"][2]["path"], json({"worker"}));
}

TEST(SyscallsView, ThreadSelectionNarrowsStatisticsAndPaths) {
  ReportOptions o = syscalls_view();
  o.json = true;
  o.query.tid = 2;
  const json d = json::parse(render(o));
  ASSERT_EQ(d["syscalls"].size(), 1u);
  EXPECT_EQ(d["syscalls"][0]["calls"], 2);
  EXPECT_EQ(d["syscalls"][0]["paths"].size(), 1u);
}

TEST(SyscallsView, TextShowsStatisticsFunctionsAndInvertedPaths) {
  const std::string text = render(syscalls_view());
  EXPECT_NE(text.find("EBADF 4"), std::string::npos) << text;
  // f2 makes 5 reads itself and 10 writes through g: direct 5, inclusive 15.
  EXPECT_NE(text.find("     5       50.0µs         15      51.0µs  f2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Paths to write"), std::string::npos);
  const size_t paths = text.find("Paths to write");
  const size_t f1 = text.find("    f1\n", paths), main = text.find("      main\n", paths);
  EXPECT_TRUE(f1 != std::string::npos && main != std::string::npos && f1 < main) << "callers below the call:\n" << text;
}

TEST(SyscallsView, FilterPicksSystemCallsByName) {
  ReportOptions o = syscalls_view();
  o.filter = "^read$";
  const std::string text = render(o);
  EXPECT_NE(text.find("Paths to read"), std::string::npos);
  EXPECT_EQ(text.find("Paths to write"), std::string::npos) << text;
}

TEST(SyscallsView, WithoutTracedCallsSaysHowToGetThem) {
  Profile p = testing::folded("main;f 100\n");
  EXPECT_NE(render(syscalls_view(), p).find("record with --syscalls"), std::string::npos);
}

}  // namespace
}  // namespace callprof
