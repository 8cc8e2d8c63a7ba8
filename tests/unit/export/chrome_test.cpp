// The Chrome trace export read back as JSON (nlohmann, as Perfetto's and speedscope's
// importers read it): calls become complete events nested per thread, samples become spans
// of the frames consecutive samples share, system calls a track of their own; hostile
// names stay intact strings; --hide and --focus select spans; drops are shown; a pid seen
// on two hosts of a merged profile gets two trace pids.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "export/export.h"

namespace callprof {
namespace {

using nlohmann::json;

struct Built {
  Profile p;
  // Adds a thread whose tree has one path per given call (function ids from the root) and
  // a timeline event per call.
  struct Call {
    std::vector<FunctionId> path;
    int64_t start;
    uint64_t duration;
  };
  Thread& thread(uint32_t tid, const std::vector<Call>& calls, std::string host = "") {
    Thread t;
    t.tid = tid;
    t.pid = 100;
    t.host = std::move(host);
    t.name = "t" + std::to_string(tid);
    for (const Call& c : calls) {
      const NodeId n = t.tree.path(c.path);
      t.tree.base(n)[Metric::Calls] += 1;
      t.timeline.events.push_back({n, c.start, c.duration});
    }
    p.threads.push_back(std::move(t));
    return p.threads.back();
  }
};

Built profile_with(std::vector<std::string> names, const std::string& mode = "exact") {
  Built b;
  for (auto& n : names) b.p.functions.push_back(Function{.name = n});
  b.p.meta.mode = RecordingModes::from_text(mode);
  b.p.meta.timeline = TimelineFacts{.min_duration_ns = 0, .capacity = 16};
  b.p.processes.push_back(Process{.pid = 100, .command = "prog \"quoted\""});
  return b;
}

json export_json(Profile p, QueryOptions q = {}) {
  auto a = Analysis::run(std::move(p), q);
  if (!a) throw std::runtime_error(a.error().message);
  std::ostringstream out;
  Status s = write_chrome(*a, out);
  if (!s) throw std::runtime_error(s.error().message);
  return json::parse(out.str());
}

// X events as (name, ts µs, dur µs, tid).
struct X {
  std::string name;
  double ts, dur;
  uint64_t tid;
  bool operator==(const X&) const = default;
};
std::vector<X> complete_events(const json& trace) {
  std::vector<X> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X") out.push_back({e["name"], e["ts"], e["dur"], e["tid"]});
  return out;
}

TEST(ChromeExport, CallsAreNestedCompleteEventsInMicroseconds) {
  Built b = profile_with({"main", "a", "b"});
  b.thread(7, {{{0}, 1000, 10000}, {{0, 1}, 2000, 3000}, {{0, 1, 2}, 2500, 500}, {{0, 2}, 6000, 1500}});
  const json trace = export_json(b.p);
  EXPECT_EQ(complete_events(trace),
            (std::vector<X>{{"main", 0, 10, 7}, {"a", 1, 3, 7}, {"b", 1.5, 0.5, 7}, {"b", 5, 1.5, 7}}));
  EXPECT_EQ(trace["otherData"]["time_origin_ns"], 1000);
  EXPECT_EQ(trace["otherData"]["timeline_dropped_events"], 0);
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  for (const json& e : trace["traceEvents"])
    for (const char* key : {"ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << e.dump();
}

TEST(ChromeExport, ACallEndingWithItsCallerEndsJustBeforeIt) {
  // Frames closed together (thread exit) end at the same ns: consumers that pair begin and
  // end by time need the inner one to end first.
  Built b = profile_with({"main", "a"});
  b.thread(7, {{{0}, 0, 10000}, {{0, 1}, 4000, 6000}});
  EXPECT_EQ(complete_events(export_json(b.p)), (std::vector<X>{{"main", 0, 10, 7}, {"a", 4, 5.999, 7}}));
}

TEST(ChromeExport, HostileNamesAreJsonStringsAndProcessesAndThreadsAreNamed) {
  Built b = profile_with({"ma\"in\n\x01", std::string("bad\xff utf8")});
  b.thread(7, {{{0}, 0, 100}, {{0, 1}, 10, 10}});
  const json trace = export_json(b.p);
  const auto x = complete_events(trace);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].name, "ma\"in\n\x01");
  EXPECT_EQ(x[1].name, "bad\xEF\xBF\xBD utf8");  // invalid UTF-8 replaced by U+FFFD
  std::vector<std::string> meta;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "M") meta.push_back(e["name"].get<std::string>() + "=" + e["args"]["name"].get<std::string>());
  EXPECT_EQ(meta, (std::vector<std::string>{"process_name=prog \"quoted\"", "thread_name=t7"}));
}

TEST(ChromeExport, SamplesBecomeSpansOfTheFramesConsecutiveSamplesShare) {
  Built b = profile_with({"main", "a", "b"}, "sample");
  // Samples every 1 ms standing for 1 ms: main>a, main>a, main>b, then a gap, main.
  b.thread(7, {{{0, 1}, 0, 1000000}, {{0, 1}, 1000000, 1000000}, {{0, 2}, 2000000, 1000000}, {{0}, 9000000, 1000000}});
  EXPECT_EQ(
      complete_events(export_json(b.p)),
      (std::vector<X>{{"main", 0, 3000, 7}, {"a", 0, 2000, 7}, {"b", 2000, 999.999, 7}, {"main", 9000, 1000, 7}}));
}

TEST(ChromeExport, SystemCallsGoOnATrackOfTheirOwn) {
  Built b = profile_with({"main", "[syscall] read"}, "sample");
  b.p.functions[1].kind = FunctionKind::Syscall;
  b.thread(7, {{{0}, 0, 1000000}, {{0, 1}, 500000, 2000000}});
  const json trace = export_json(b.p);
  const auto x = complete_events(trace);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[1].name, "[syscall] read");
  EXPECT_NE(x[1].tid, 7u);
  bool named = false;
  for (const json& e : trace["traceEvents"])
    named |= e["ph"] == "M" && e["tid"] == x[1].tid && e["args"]["name"] == "t7 [syscalls]";
  EXPECT_TRUE(named);
}

TEST(ChromeExport, HideDropsSpansAndFocusKeepsWhatRanInsideTheFocusedCalls) {
  Built b = profile_with({"main", "a", "b"});
  b.thread(7, {{{0}, 0, 10000}, {{0, 1}, 1000, 3000}, {{0, 1, 2}, 1500, 500}, {{0, 2}, 6000, 1500}});
  EXPECT_EQ(complete_events(export_json(b.p, QueryOptions{.hide = "^b$"})),
            (std::vector<X>{{"main", 0, 10, 7}, {"a", 1, 3, 7}}));
  EXPECT_EQ(complete_events(export_json(b.p, QueryOptions{.focus = "^a$"})),
            (std::vector<X>{{"a", 1, 3, 7}, {"b", 1.5, 0.5, 7}}));
}

TEST(ChromeExport, DropsAreShownOnTheThreadAndCounted) {
  Built b = profile_with({"main"});
  b.thread(7, {{{0}, 5000, 100}}).timeline.dropped = 42;
  const json trace = export_json(b.p);
  EXPECT_EQ(trace["otherData"]["timeline_dropped_events"], 42);
  bool shown = false;
  for (const json& e : trace["traceEvents"])
    shown |= e["ph"] == "i" && e["tid"] == 7 && e["name"].get<std::string>().starts_with("42 earlier timeline events");
  EXPECT_TRUE(shown);
}

TEST(ChromeExport, APidOnTwoHostsGetsTwoTracePids) {
  Built b = profile_with({"main"});
  b.thread(7, {{{0}, 0, 100}}, "alpha");
  b.thread(7, {{{0}, 0, 100}}, "beta");
  const json trace = export_json(b.p);
  std::vector<uint64_t> pids, tids;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X") pids.push_back(e["pid"]), tids.push_back(e["tid"]);
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_NE(pids[0], pids[1]);
  EXPECT_NE(tids[0], tids[1]);
}

TEST(ChromeExport, AProfileWithoutATimelineIsAnError) {
  Built b = profile_with({"main"});
  b.p.meta.timeline.reset();
  auto a = Analysis::run(std::move(b.p), {});
  ASSERT_TRUE(a.ok());
  std::ostringstream out;
  Status s = write_chrome(*a, out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("record --timeline"), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace callprof
