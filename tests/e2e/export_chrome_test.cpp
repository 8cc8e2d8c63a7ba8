// The timeline (record --timeline) through the Chrome trace export: for a program whose call
// durations are set by construction (programs/timeline.c), the trace's complete events
// name the calls, nest as the program nested them, last what they were designed to (wide
// margins: the machine is shared), and sit on the right, named threads; every event has
// ph/ts/pid/tid; calls below the minimum duration stay off; a full ring counts its drops
// in the trace and in the report; sample mode's timeline puts the samples' spans inside their callers.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_support.h"

namespace e2e {
namespace {

struct Call {
  std::string name;
  double ts = 0, dur = 0;  // microseconds
  uint64_t tid = 0;
  double end() const { return ts + dur; }
  // Times are µs with ns as three decimals: sums of doubles compare within half a ns.
  bool inside(const Call& outer) const { return ts >= outer.ts - kHalfNs && end() <= outer.end() + kHalfNs; }
  static constexpr double kHalfNs = 0.0005;
};

class ChromeExportTest : public E2ETest {
 protected:
  json export_chrome() {
    const RunResult r =
        run({E2E_CALLPROF, "export", "-i", "profile.callprof", "-f", "chrome", "-o", "trace.json"}, dir());
    if (r.exit != exited(0)) throw std::runtime_error("callprof export failed: " + r.err);
    std::ifstream in(dir() / "trace.json");
    return json::parse(in);
  }
};

// The structural rules every consumer relies on: each event has ph, ts, pid and tid; the
// complete events of one track nest (none overlaps another without containing it).
void expect_well_formed(const json& trace) {
  std::map<std::pair<uint64_t, uint64_t>, std::vector<Call>> tracks;
  for (const json& e : trace.at("traceEvents")) {
    for (const char* key : {"ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << key << " missing: " << e.dump();
    if (e.value("ph", "") != "X") continue;
    EXPECT_GE(e.at("dur").get<double>(), 0.0) << e.dump();
    tracks[{e.at("pid"), e.at("tid")}].push_back({e.at("name"), e.at("ts"), e.at("dur"), e.at("tid")});
  }
  for (auto& [track, calls] : tracks) {
    std::sort(calls.begin(), calls.end(),
              [](const Call& a, const Call& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
    std::vector<Call> open;
    for (const Call& c : calls) {
      while (!open.empty() && open.back().end() <= c.ts + Call::kHalfNs) open.pop_back();
      if (!open.empty()) EXPECT_TRUE(c.inside(open.back())) << c.name << " overlaps " << open.back().name;
      open.push_back(c);
    }
  }
}

std::vector<Call> calls_named(const json& trace, const std::string& name) {
  std::vector<Call> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "X" && same_function(e.at("name").get<std::string>(), name))
      out.push_back({e.at("name"), e.at("ts"), e.at("dur"), e.at("tid")});
  return out;
}

std::map<uint64_t, std::string> thread_names(const json& trace) {
  std::map<uint64_t, std::string> out;
  for (const json& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") out[e.at("tid")] = e.at("args").at("name");
  return out;
}

TEST_P(ChromeExportTest, CallsNestAndLastWhatTheProgramMadeThemLast) {
  const std::string bin = build("timeline.c", {"-pthread"});
  const Report report = record_with({"--timeline"}, bin);
  const json trace = export_chrome();
  expect_well_formed(trace);

  const auto mains = calls_named(trace, "main"), outers = calls_named(trace, "outer"),
             inners = calls_named(trace, "inner"), works = calls_named(trace, "work"),
             workers = calls_named(trace, "worker_main");
  ASSERT_EQ(mains.size(), 1u);
  ASSERT_EQ(outers.size(), 2u);
  ASSERT_EQ(inners.size(), 4u);
  ASSERT_EQ(works.size(), 1u);
  ASSERT_EQ(workers.size(), 1u);
  // Durations: at least the designed work (the clocks agree to well under 1 %), at most
  // ten times it (a loaded machine stretches sleeps, never shortens them).
  for (const Call& c : outers) {
    EXPECT_GE(c.dur, 20000 * 0.99) << "outer";
    EXPECT_LE(c.dur, 20000 * 10.0) << "outer";
    EXPECT_TRUE(c.inside(mains[0])) << "outer outside main";
    EXPECT_EQ(c.tid, mains[0].tid);
  }
  for (const Call& c : inners) {
    EXPECT_GE(c.dur, 5000 * 0.99) << "inner";
    EXPECT_LE(c.dur, 5000 * 10.0) << "inner";
    const auto in_outer = std::count_if(outers.begin(), outers.end(), [&](const Call& o) { return c.inside(o); });
    EXPECT_EQ(in_outer, 1) << "inner at " << c.ts << " is not inside exactly one outer";
  }
  EXPECT_GE(works[0].dur, 20000 * 0.99);
  EXPECT_TRUE(works[0].inside(workers[0]));
  EXPECT_NE(works[0].tid, mains[0].tid);
  // 1000 calls of a few ns: none should reach 10 us, a few may if preempted.
  EXPECT_LE(calls_named(trace, "tiny").size(), 20u);
  EXPECT_EQ(u64(report.function("tiny"), "calls"), 1000u);

  const auto names = thread_names(trace);
  ASSERT_TRUE(names.count(works[0].tid));
  EXPECT_EQ(names.at(works[0].tid), "tl-worker");
  ASSERT_TRUE(names.count(mains[0].tid));
  EXPECT_EQ(names.at(mains[0].tid), std::filesystem::path(bin).filename().string().substr(0, 15));
  EXPECT_EQ(trace.at("otherData").at("timeline_dropped_events"), 0);
  EXPECT_EQ(trace.at("otherData").at("timeline_min_duration_ns"), 10000);
}

TEST_P(ChromeExportTest, AFullRingKeepsTheLatestCallsAndCountsTheRest) {
  const std::string bin = build("timeline.c", {"-pthread"});
  const Report report = record_with({"--timeline", "--timeline-events", "2"}, bin);
  const json trace = export_chrome();
  expect_well_formed(trace);
  // main's thread: six calls of outer and inner returned; the ring kept two of them (and
  // main, if it was still open at the dump).
  EXPECT_LE(calls_named(trace, "inner").size() + calls_named(trace, "outer").size(), 2u);
  EXPECT_GE(trace.at("otherData").at("timeline_dropped_events").get<uint64_t>(), 4u);
  bool shown = false;
  for (const json& e : trace.at("traceEvents"))
    shown |= e.value("ph", "") == "i" && e.at("name").get<std::string>().find("dropped") != std::string::npos;
  EXPECT_TRUE(shown) << "no instant event says events were dropped";
  uint64_t in_report = 0;
  for (const json& t : report.threads()) in_report += t.value("timeline_dropped", uint64_t(0));
  EXPECT_EQ(in_report, trace.at("otherData").at("timeline_dropped_events").get<uint64_t>());
}

TEST_P(ChromeExportTest, AProfileWithoutATimelineIsRefusedWithOneLine) {
  const std::string bin = build("timeline.c", {"-pthread"});
  record_with({}, bin);
  const RunResult r = run({E2E_CALLPROF, "export", "-i", "profile.callprof", "-f", "chrome"}, dir());
  EXPECT_EQ(r.exit, exited(2));
  EXPECT_NE(r.err.find("--timeline"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_P(ChromeExportTest, SampleModeTimelineShowsWhereTheSamplesFell) {
  // sampled.c: work() calls heavy() (30 ms of CPU) and light() (10 ms) ten times each.
  const std::string bin = build_plain("sampled.c", {"-fno-omit-frame-pointer"});
  const Report report = record_with({"--mode", "sample", "--timeline"}, bin);
  const json trace = export_chrome();
  expect_well_formed(trace);
  EXPECT_EQ(trace.at("otherData").at("mode"), "sample");
  const auto heavy = calls_named(trace, "heavy"), light = calls_named(trace, "light"),
             works = calls_named(trace, "work");
  ASSERT_FALSE(heavy.empty());
  ASSERT_FALSE(works.empty());
  double heavy_us = 0, light_us = 0;
  for (const Call& c : heavy) {
    heavy_us += c.dur;
    const auto in_work = std::count_if(works.begin(), works.end(), [&](const Call& w) { return c.inside(w); });
    EXPECT_EQ(in_work, 1) << "heavy at " << c.ts << " is not inside a work span";
  }
  for (const Call& c : light) light_us += c.dur;
  // The spans stand for the samples' time: about 300 ms and 100 ms (wide margins).
  EXPECT_GT(heavy_us, 300000 * 0.5);
  EXPECT_LT(heavy_us, 300000 * 2.0);
  EXPECT_GT(heavy_us, light_us * 1.5);
  uint64_t kept = 0;
  for (const json& t : report.threads()) kept += t.value("timeline_events", uint64_t(0));
  // Every sample with a stack is on the timeline (the ring of 65536 is far from full).
  const uint64_t samples = u64(report.doc().at("metadata").at("sampling"), "samples");
  EXPECT_GE(double(kept), 0.9 * double(samples));
  EXPECT_LE(kept, samples);
}

TEST_P(ChromeExportTest, AttachKeepsTheTimelineOfARunningProcess) {
  const std::string bin = build_plain("sampled.c", {"-fno-omit-frame-pointer"});
  attach_to_running({bin, "forever"}, {"--duration", "1", "--call-graph", "fp", "--timeline"}, 200);
  const json trace = export_chrome();
  expect_well_formed(trace);
  EXPECT_EQ(trace.at("otherData").at("mode"), "sample");
  const auto heavy = calls_named(trace, "heavy"), works = calls_named(trace, "work");
  ASSERT_FALSE(heavy.empty());
  double heavy_us = 0, first = 1e300, last = 0;
  for (const Call& c : heavy) {
    heavy_us += c.dur;
    first = std::min(first, c.ts);
    last = std::max(last, c.end());
    EXPECT_EQ(std::count_if(works.begin(), works.end(), [&](const Call& w) { return c.inside(w); }), 1)
        << "heavy at " << c.ts << " is not inside a work span";
  }
  // One second of a program that works three quarters of its time in heavy(): the spans
  // cover a good part of that second, and spread over most of it (wide margins).
  EXPECT_GT(heavy_us, 1e6 * 0.3);
  EXPECT_LT(heavy_us, 1e6 * 1.2);
  EXPECT_GT(last - first, 1e6 * 0.5);
}

TEST_P(ChromeExportTest, AttachRefusesExactModesTimelineBound) {
  const RunResult r =
      run({E2E_CALLPROF, "attach", "--timeline", "--timeline-min-duration", "1ms", "--duration", "1", "1"}, dir());
  EXPECT_EQ(r.exit, exited(2));
  EXPECT_NE(r.err.find("--timeline-min-duration"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

E2E_INSTANTIATE(ChromeExportTest);

}  // namespace
}  // namespace e2e
