// The system-call view and JSON section on a hand-built profile: statistics merged over
// threads (errnos, percentiles), direct vs inclusive counts per function, the inverted
// paths, the filter, and a profile without traced calls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "report/report.h"

namespace callprof {
namespace {

using nlohmann::json;

Profile traced_profile() { return testing::syscall_profile(); }

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
