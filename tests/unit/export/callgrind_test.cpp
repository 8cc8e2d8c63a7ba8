// The callgrind export read back by the rules of its two consumers: self costs from the
// cost lines, exact `calls=` counts per edge, and inclusive costs as callgrind_annotate
// --inclusive=yes and KCachegrind compute them (a called function: the sum of the calls
// into it; an uncalled one: its self cost plus its calls out), which must equal callprof's
// totals, recursion included. Plus names the line-based format cannot hold, and a golden.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "export/export.h"
#include "fixtures.h"
#include "golden.h"

namespace callprof {
namespace {

Analysis analyse(Profile p, QueryOptions options = {}) {
  auto a = Analysis::run(std::move(p), options);
  if (!a) throw std::runtime_error(a.error().message);
  return std::move(*a);
}

std::string export_text(const Analysis& a) {
  std::ostringstream out;
  Status s = write_callgrind(a, out);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return out.str();
}

using Costs = std::vector<int64_t>;

void add(Costs& to, const Costs& c) {
  if (to.size() < c.size()) to.resize(c.size(), 0);
  for (size_t i = 0; i < c.size(); ++i) to[i] += c[i];
}

// A callgrind file parsed strictly: any line that is not one of the format's kinds fails.
struct Readback {
  std::map<std::string, std::string> header;  // "cmd", "events", "summary", "totals", ...
  std::vector<std::string> events;
  std::map<std::string, std::string> object, file;  // by function
  std::map<std::string, Costs> self, out_sum, in_sum;
  std::map<std::pair<std::string, std::string>, uint64_t> calls;
  std::map<std::pair<std::string, std::string>, Costs> call_cost;
  std::set<std::string> called;
  std::map<std::string, std::set<std::string>> callee_object, callee_file;  // as the calls give them

  explicit Readback(const std::string& text) { parse(text); }

  // Separate from the constructor: ASSERT_* returns from a void function.
  void parse(const std::string& text) {
    std::istringstream in(text);
    std::map<std::string, std::map<std::string, std::string>> compressed;  // namespace -> id -> name
    auto uncompress = [&](const std::string& ns, const std::string& value) {
      if (value.size() < 3 || value[0] != '(') return value;
      const size_t close = value.find(')');
      const std::string id = value.substr(1, close - 1);
      if (close + 1 >= value.size()) {
        EXPECT_TRUE(compressed[ns].count(id)) << ns << " id " << id << " used before it was defined";
        return compressed[ns][id];
      }
      EXPECT_EQ(value[close + 1], ' ') << value;
      EXPECT_FALSE(compressed[ns].count(id)) << ns << " id " << id << " defined twice";
      return compressed[ns][id] = value.substr(close + 2);
    };
    std::string ob, fl, fn, cob, cfi, cfn;
    uint64_t pending_calls = 0;
    bool in_call = false, body = false;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t eq = line.find('='), colon = line.find(':');
      if (!body && colon != std::string::npos && (eq == std::string::npos || colon < eq)) {
        const std::string key = line.substr(0, colon);
        const std::string value = line.substr(colon + 2);
        if (key == "event" || key == "desc")
          header[key] += value + "\n";
        else
          header[key] = value;
        if (key == "events") {
          std::istringstream ws(value);
          for (std::string e; ws >> e;) events.push_back(e);
          body = true;
        }
        continue;
      }
      ASSERT_TRUE(body) << "body line before the events line: " << line;
      if (line.starts_with("summary: ") || line.starts_with("totals: ")) {
        header[line.substr(0, colon)] = line.substr(colon + 2);
        continue;
      }
      if (eq != std::string::npos && !std::isdigit(static_cast<unsigned char>(line[0]))) {
        const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        ASSERT_FALSE(in_call) << "calls= must be followed by a cost line: " << line;
        if (key == "ob") {
          ob = uncompress("ob", value);
        } else if (key == "fl") {
          fl = uncompress("fl", value);
        } else if (key == "fn") {
          fn = uncompress("fn", value);
          object[fn] = ob;
          file[fn] = fl;
          self[fn];
        } else if (key == "cob") {
          cob = uncompress("ob", value);
        } else if (key == "cfi" || key == "cfl") {
          cfi = uncompress("fl", value);
        } else if (key == "cfn") {
          cfn = uncompress("fn", value);
        } else if (key == "calls") {
          ASSERT_FALSE(cfn.empty()) << "calls= without cfn=";
          pending_calls = std::stoull(value);
          EXPECT_GT(pending_calls, 0u) << "calls=0 makes callgrind_annotate read the cost as self: " << line;
          in_call = true;
        } else {
          ADD_FAILURE() << "unknown line: " << line;
        }
        continue;
      }
      // A cost line: the position (line), then one number per event at most.
      std::istringstream ws(line);
      std::string position;
      ws >> position;
      ASSERT_FALSE(position.empty());
      for (char c : position) ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(c))) << "position: " << line;
      Costs c;
      for (std::string v; ws >> v;) {
        for (char ch : v) ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(ch))) << "cost: " << line;
        c.push_back(std::stoll(v));
      }
      ASSERT_LE(c.size(), events.size()) << line;
      c.resize(events.size(), 0);
      ASSERT_FALSE(fn.empty()) << "cost line outside a function: " << line;
      if (in_call) {
        // cob/cfi default to the caller's; checked against the callee's block at the end.
        callee_object[cfn].insert(cob.empty() ? ob : cob);
        callee_file[cfn].insert(cfi.empty() ? fl : cfi);
        calls[{fn, cfn}] += pending_calls;
        add(call_cost[{fn, cfn}], c);
        add(out_sum[fn], c);
        add(in_sum[cfn], c);
        called.insert(cfn);
        in_call = false;
        cob.clear();
        cfi.clear();
      } else {
        add(self[fn], c);
      }
    }
    EXPECT_FALSE(in_call) << "the file ends after a calls= line";
    // callgrind_annotate names a callee by its call's file, KCachegrind by its object:
    // both must be the ones of the callee's own block.
    for (const auto& [callee, objects] : callee_object) {
      EXPECT_TRUE(object.count(callee)) << "called but no block: " << callee;
      EXPECT_EQ(objects, std::set<std::string>{object[callee]}) << callee;
      EXPECT_EQ(callee_file[callee], std::set<std::string>{file[callee]}) << callee;
    }
  }

  size_t column(const std::string& event) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i] == event) return i;
    ADD_FAILURE() << "no event " << event;
    return 0;
  }
  int64_t self_cost(const std::string& fn, const std::string& event) const {
    auto it = self.find(fn);
    if (it == self.end()) {
      ADD_FAILURE() << "no function " << fn;
      return -1;
    }
    return it->second.empty() ? 0 : it->second[column(event)];
  }
  // As callgrind_annotate --inclusive=yes and KCachegrind compute it.
  int64_t inclusive(const std::string& fn, const std::string& event) const {
    const size_t k = column(event);
    auto value = [&](const std::map<std::string, Costs>& m) {
      auto it = m.find(fn);
      return it == m.end() || it->second.empty() ? int64_t(0) : it->second[k];
    };
    if (called.count(fn)) return value(in_sum);
    return self_cost(fn, event) + value(out_sum);
  }
  uint64_t calls_on(const std::string& caller, const std::string& callee) const {
    auto it = calls.find({caller, callee});
    return it == calls.end() ? 0 : it->second;
  }
};

// Every function's self and inclusive costs read back equal callprof's rows, every edge's
// count its EdgeRow's, and no cost is negative.
void expect_reads_back(const Analysis& a, const Readback& r) {
  const bool has_calls = std::find(r.events.begin(), r.events.end(), "Calls") != r.events.end();
  const bool has_cpu = std::find(r.events.begin(), r.events.end(), "Cpu") != r.events.end();
  for (const FunctionRow& row : a.functions()) {
    const std::string name(a.full_name(row.function));
    SCOPED_TRACE(name);
    EXPECT_EQ(r.self_cost(name, "Time"), int64_t(row.self_ns));
    EXPECT_EQ(r.inclusive(name, "Time"), int64_t(row.total_ns));
    if (has_calls) {
      EXPECT_EQ(r.self_cost(name, "Calls"), int64_t(row.calls));
      EXPECT_EQ(r.inclusive(name, "Calls"), int64_t(row.total[Metric::Calls]));
    }
    if (has_cpu) {
      EXPECT_EQ(r.self_cost(name, "Cpu"), int64_t(row.cpu_ns));
      EXPECT_EQ(r.inclusive(name, "Cpu"), int64_t(row.total[Metric::CpuNs]));
      // OffCpu is all the time not running: blocked + waiting for a CPU (docs/interop.md).
      EXPECT_EQ(r.self_cost(name, "OffCpu"), int64_t(row.offcpu_ns + row.preempted_ns));
      EXPECT_EQ(r.inclusive(name, "OffCpu"), int64_t(row.total[Metric::OffCpuNs] + row.total[Metric::PreemptedNs]));
      if (std::find(r.events.begin(), r.events.end(), "Preempted") != r.events.end())
        EXPECT_EQ(r.inclusive(name, "Preempted"), int64_t(row.total[Metric::PreemptedNs]));
    }
  }
  for (const EdgeRow& e : a.edges()) {
    if (e.caller == kNoFunction) continue;
    EXPECT_EQ(r.calls_on(std::string(a.full_name(e.caller)), std::string(a.full_name(e.callee))),
              std::max<uint64_t>(e.calls, 1))
        << a.full_name(e.caller) << " -> " << a.full_name(e.callee);
  }
  for (const auto& [edge, c] : r.call_cost)
    for (int64_t v : c) EXPECT_GE(v, 0) << edge.first << " -> " << edge.second;
  for (const auto& [fn, c] : r.self)
    for (int64_t v : c) EXPECT_GE(v, 0) << fn;
}

TEST(Callgrind, CounterExampleHeaderAndCalls) {
  const Analysis a = analyse(testing::counter_example_profile());
  const std::string text = export_text(a);
  EXPECT_TRUE(text.starts_with("# callgrind format\nversion: 1\ncreator: callprof\n")) << text;
  const Readback r(text);
  EXPECT_EQ(r.header.at("events"), "Time Calls Cpu OffCpu");
  EXPECT_EQ(r.header.at("positions"), "line");
  EXPECT_EQ(r.header.at("cmd"), "./counter 40");
  EXPECT_NE(r.header.at("event").find("Time : Wall time (ns)"), std::string::npos) << r.header.at("event");
  // summary and totals: every self cost (167.05 ms of time; 1+1+1+1+80+1+1+5 calls).
  EXPECT_EQ(r.header.at("summary"), "167050000 91 145000000 20000000");
  EXPECT_EQ(r.header.at("totals"), "167050000 91 145000000 20000000");
  // Exact counts per edge; D's time by caller, measured (75/25, not gprof's 50/50).
  EXPECT_EQ(r.calls_on("B", "D"), 40u);
  EXPECT_EQ(r.calls_on("C", "D"), 40u);
  EXPECT_EQ(r.calls_on("A", "B"), 1u);
  EXPECT_EQ(r.calls_on("worker", "E"), 5u);
  EXPECT_EQ(r.call_cost.at({"B", "D"}), (Costs{120000000, 40, 100000000, 20000000}));
  EXPECT_EQ(r.call_cost.at({"C", "D"}), (Costs{40000000, 40, 40000000, 0}));
  EXPECT_EQ(r.self.at("D"), (Costs{160000000, 80, 140000000, 20000000}));
  EXPECT_EQ(r.inclusive("A", "Time"), 162000000);
  EXPECT_EQ(r.inclusive("main", "Time"), 162050000);
  EXPECT_EQ(r.object.at("D"), "/usr/lib/libd.so.1");
  EXPECT_EQ(r.file.at("D"), "d.c");
  EXPECT_EQ(r.file.at("B"), "???");
  // D's entry line is the target of its calls.
  EXPECT_NE(text.find("cfn=(5) D\ncalls=40 12\n0 120000000 40 100000000 20000000\n"), std::string::npos) << text;
  EXPECT_EQ(r.called.count("main"), 0u);
  EXPECT_EQ(r.called.count("worker"), 0u);
  EXPECT_EQ(r.self.count("<spontaneous>"), 0u) << "no root is also called";
  expect_reads_back(a, r);
}

// Off-CPU is blocked + waiting for a CPU, as perf counts it; the wait for a CPU is an event
// of its own where some node waited. Before, OffCpu was blocked only once the model kept the
// wait apart, so Cpu + OffCpu fell short of Time on a busy machine.
TEST(Callgrind, OffCpuIsAllTheTimeNotRunningAndPreemptedItsOwnEvent) {
  const Analysis a =
      analyse(testing::folded("main 100 cpu=100\n"
                              "main;work 1000 cpu=500 off=300 preempted=200\n"
                              "main;crowded 400 cpu=100 preempted=300\n"));
  const Readback r(export_text(a));
  EXPECT_EQ(r.header.at("events"), "Time Calls Cpu OffCpu Preempted");
  EXPECT_EQ(r.self.at("work"), (Costs{1000, 1, 500, 500, 200}));
  EXPECT_EQ(r.self.at("crowded"), (Costs{400, 1, 100, 300, 300}));
  EXPECT_EQ(r.header.at("summary"), "1500 3 700 800 500");
  EXPECT_EQ(r.inclusive("main", "OffCpu"), 800);
  expect_reads_back(a, r);
  // Without any wait for a CPU, no Preempted event.
  const Readback quiet(export_text(analyse(testing::folded("main;work 1000 cpu=700 off=300\n"))));
  EXPECT_EQ(quiet.header.at("events"), "Time Calls Cpu OffCpu");
}

TEST(Callgrind, CounterExampleGolden) {
  testing::check_golden("counter.callgrind", export_text(analyse(testing::counter_example_profile())));
}

// Direct recursion (f), mutual recursion (a -> b -> a) and a recursive function reached
// from two callers: the inclusive cost read back is callprof's total, never the sum over
// nested instances, and recursive edges keep their counts with zero cost.
TEST(Callgrind, RecursionReadsBackTotals) {
  const Analysis a =
      analyse(testing::folded("main;f 100 calls=2\n"
                              "main;f;f 200 calls=6\n"
                              "main;f;f;f 400 calls=4\n"
                              "main;f;f;f;g 50 calls=4\n"
                              "main;a 10 calls=3\n"
                              "main;a;b 20 calls=3\n"
                              "main;a;b;a 30 calls=5\n"
                              "main;a;b;a;b 40 calls=5\n"
                              "main;a;b;a;b;g 7 calls=2\n"
                              "main;h;f;f 1000 calls=1\n"
                              "main;h;f 9 calls=1\n"));
  const Readback r(export_text(a));
  expect_reads_back(a, r);
  EXPECT_EQ(r.inclusive("f", "Time"), int64_t(a.row(1)->total_ns));
  EXPECT_EQ(r.inclusive("f", "Time"), 100 + 200 + 400 + 50 + 1000 + 9);
  EXPECT_EQ(r.inclusive("a", "Time"), 10 + 20 + 30 + 40 + 7);
  EXPECT_EQ(r.inclusive("b", "Time"), 20 + 30 + 40 + 7);
  EXPECT_EQ(r.calls_on("f", "f"), 11u);
  EXPECT_EQ(r.call_cost.at({"f", "f"}), (Costs{0, 0}));
  EXPECT_EQ(r.calls_on("b", "a"), 5u);
  EXPECT_EQ(r.call_cost.at({"b", "a"}), (Costs{0, 0}));
  EXPECT_EQ(r.calls_on("a", "b"), 8u);
  EXPECT_EQ(r.call_cost.at({"a", "b"}), (Costs{97, 15}));
}

// A function that is a root (a thread's start) and also called: its root part arrives
// as a call from <spontaneous>, else both readers (which take a called function's
// inclusive cost from its callers) would lose it.
TEST(Callgrind, SpontaneousAndCalledKeepsItsRootPart) {
  const Analysis a =
      analyse(testing::folded("main;work 10 calls=2\n"
                              "main;work;leaf 5\n"
                              "@thread 2\n"
                              "work 100\n"
                              "work;leaf 50 calls=3\n"
                              "@thread 3\n"
                              "solo;solo 4\n"));
  const std::string text = export_text(a);
  const Readback r(text);
  expect_reads_back(a, r);
  EXPECT_EQ(r.inclusive("work", "Time"), 165);
  EXPECT_EQ(r.calls_on("<spontaneous>", "work"), 1u);
  EXPECT_EQ(r.calls_on("<spontaneous>", "solo"), 1u) << "a recursive root is called by itself";
  EXPECT_EQ(r.calls_on("<spontaneous>", "main"), 0u);
  EXPECT_EQ(r.inclusive("solo", "Time"), 4);
  EXPECT_EQ(r.inclusive("<spontaneous>", "Time"), 150 + 4);
}

// Line breaks and other control characters are escaped (the format is line based), an
// empty name becomes ???, and names that come out equal are told apart.
TEST(Callgrind, NamesTheFormatCannotHoldAreEscaped) {
  Profile p = testing::counter_example_profile();
  for (Function& f : p.functions) {
    if (f.name == "spawn") f.name = "spawn\nsecond line";
    if (f.name == "E") f.name = "tab\there\r\x1b";
    if (f.name == "C") f.name = "B";  // two functions named B
    if (f.name == "worker") f.name = "";
    if (f.name == "D") f.file = "d\n.c";
  }
  p.meta.command = "./counter\n40";
  const Analysis a = analyse(std::move(p));
  const std::string text = export_text(a);
  EXPECT_NE(text.find("fn=(6) spawn\\nsecond line\n"), std::string::npos) << text;
  EXPECT_NE(text.find("=(8) tab\\there\\r\\x1b\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fn=(7) ???\n"), std::string::npos) << text;
  EXPECT_NE(text.find("=(4) B [2]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("=(2) d\\n.c\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cmd: ./counter\\n40\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nsecond line"), std::string::npos);
  const Readback r(text);  // every line still one of the format's kinds
  EXPECT_EQ(r.calls_on("B [2]", "D"), 40u);
  EXPECT_EQ(r.calls_on("B", "D"), 40u);
  EXPECT_EQ(r.inclusive("B [2]", "Time"), 41000000);
  EXPECT_EQ(r.inclusive("???", "Time"), 5000000);
}

// Sampling counts no calls: no Calls event, a Samples event, and each edge written with
// calls=1 so that both readers still take its cost as a call's.
TEST(Callgrind, SampledProfileHasSamplesAndNoCallCounts) {
  const Analysis a = analyse(testing::sampled_profile());
  const Readback r(export_text(a));
  EXPECT_EQ(r.header.at("events"), "Time Samples");
  EXPECT_EQ(r.calls_on("main", "compute"), 1u);
  EXPECT_EQ(r.call_cost.at({"main", "compute"}), (Costs{570000000, 570}));
  for (const FunctionRow& row : a.functions()) {
    const std::string name(a.full_name(row.function));
    EXPECT_EQ(r.inclusive(name, "Time"), int64_t(row.total_ns)) << name;
    EXPECT_EQ(r.inclusive(name, "Samples"), int64_t(row.total_samples)) << name;
    EXPECT_EQ(r.self_cost(name, "Samples"), int64_t(row.self_samples)) << name;
  }
}

// --focus and --hide reshape the tree before the export: the file follows the analysis.
TEST(Callgrind, FollowsTheAnalysisSelection) {
  QueryOptions focus;
  focus.focus = "^B$";
  const Analysis a = analyse(testing::counter_example_profile(), focus);
  const Readback r(export_text(a));
  expect_reads_back(a, r);
  EXPECT_EQ(r.self.count("C"), 0u);
  EXPECT_EQ(r.inclusive("B", "Time"), 121000000);
}

}  // namespace
}  // namespace callprof
