// The callgrind export opened with a real consumer, valgrind's callgrind_annotate: for the
// gprof counter-example and for direct and mutual recursion, every function's self and
// inclusive (--inclusive=yes) Time, Calls, Cpu and OffCpu as callgrind_annotate prints them
// equal `callprof report --json` exactly, every caller's call count (--tree=caller) is the
// report's edge count, and nothing is negative: recursion is never counted twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

// callgrind_annotate on PATH (Debian's valgrind), "" when there is none.
std::string find_callgrind_annotate() { return find_on_path("callgrind_annotate"); }

// One function's row of callgrind_annotate's table, and (with --tree=caller) its callers.
struct Row {
  std::map<std::string, int64_t> value;     // by event name
  std::map<std::string, uint64_t> callers;  // "file:function" -> calls ("(40x)")
};

// callgrind_annotate's function table, keyed by "file:function" (the module left out).
// Rows: one number per shown event ("1,234", or "." for none), then the name; with
// --tree=caller, "< caller (Nx)" lines come before the function's own "* function" line.
std::map<std::string, Row> parse_annotate(const std::string& out) {
  std::vector<std::string> events;
  std::map<std::string, Row> rows;
  std::map<std::string, uint64_t> pending_callers;
  std::istringstream in(out);
  bool table = false;
  const std::regex number(R"(-?[0-9][0-9,]*|\.)");
  const std::regex times(R"( \(([0-9,]+)x\)$)");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Events shown:")) {
      std::istringstream ws(line.substr(13));
      for (std::string e; ws >> e;) events.push_back(e);
      continue;
    }
    if (!table) {
      table = line.find("file:function") != std::string::npos;
      continue;
    }
    std::istringstream fields(line);
    std::vector<int64_t> values;
    std::string token;
    for (size_t i = 0; i < events.size() && fields >> token; ++i) {
      if (!std::regex_match(token, number)) break;
      EXPECT_NE(token[0], '-') << "a negative cost: " << line;
      token.erase(std::remove(token.begin(), token.end(), ','), token.end());
      values.push_back(token == "." ? 0 : std::stoll(token));
    }
    if (values.size() != events.size()) continue;  // a separator or an empty line
    std::string rest;
    std::getline(fields >> std::ws, rest);
    char kind = ' ';
    if (rest.size() > 2 && (rest[0] == '*' || rest[0] == '<' || rest[0] == '>') && rest[1] == ' ') {
      kind = rest[0];
      rest.erase(0, rest.find_first_not_of(' ', 1));
    }
    if (rest.ends_with("]")) rest.erase(rest.rfind(" ["));  // the module
    uint64_t count = 0;
    if (std::smatch m; std::regex_search(rest, m, times)) {
      std::string digits = m[1].str();
      digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
      count = std::stoull(digits);
      rest.erase(size_t(m.position(0)));
    }
    if (kind == '<') {
      pending_callers[rest] += count;
      continue;
    }
    if (kind == '>') continue;
    Row& row = rows[rest];
    for (size_t i = 0; i < events.size(); ++i) row.value[events[i]] = values[i];
    row.callers = std::move(pending_callers);
    pending_callers.clear();
  }
  if (!table || events.empty()) throw std::runtime_error("no table in callgrind_annotate's output:\n" + out);
  return rows;
}

// The row whose "file:function" ends in ":name" (exactly one).
const Row* find_row(const std::map<std::string, Row>& rows, const std::string& name) {
  const Row* found = nullptr;
  for (const auto& [key, row] : rows)
    if (key.size() > name.size() && key.ends_with(":" + name)) {
      EXPECT_EQ(found, nullptr) << "two rows for " << name;
      found = &row;
    }
  EXPECT_NE(found, nullptr) << "no row for " << name;
  return found;
}

// Calls made within each function's outermost instances, itself included: the report
// tree's calls summed over the subtrees of recursion level 0 nodes (what the Calls event
// reads back as inclusive cost). Also the sum of every node's calls.
uint64_t subtree_calls(const json& node, std::map<std::string, uint64_t>& total, uint64_t& all) {
  uint64_t sum = u64(node, "calls");
  all += sum;
  for (const json& child : node.at("children")) sum += subtree_calls(child, total, all);
  if (node.at("recursion_level") == 0) total[node.at("name").get<std::string>()] += sum;
  return sum;
}

class ExportCallgrind : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    if (IsSkipped()) return;
    annotate_ = find_callgrind_annotate();
    if (annotate_.empty())
      GTEST_SKIP() << "callgrind_annotate (Debian package valgrind) is not on PATH: the callgrind export "
                   << "cannot be opened with its consumer";
  }

  RunResult callprof(std::vector<std::string> args) {
    args.insert(args.begin(), E2E_CALLPROF);
    return run(args, dir());
  }

  // Records `binary`, exports it, and checks what callgrind_annotate reads back against
  // the JSON report, function by function; returns the inclusive table for more checks.
  std::map<std::string, Row> check(const std::string& binary) {
    RunResult rec = record(binary);
    EXPECT_EQ(rec.exit, exited(0)) << rec.err;
    RunResult ex = callprof({"export", "-i", "profile.callprof", "-f", "callgrind", "-o", "out.callgrind"});
    EXPECT_EQ(ex.exit, exited(0)) << ex.err;
    std::ifstream file(dir() / "out.callgrind");
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_TRUE(text.str().starts_with("# callgrind format\n")) << text.str();
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
      EXPECT_EQ(line.find('-'), std::string::npos) << "a negative cost: " << line;
    }

    const std::vector<std::string> common = {annotate_, "--threshold=100", "--auto=no", "--show-percs=no"};
    std::vector<std::string> inclusive_argv = common, self_argv = common;
    inclusive_argv.insert(inclusive_argv.end(), {"--inclusive=yes", "--tree=caller", "out.callgrind"});
    self_argv.push_back("out.callgrind");
    RunResult inc = run(inclusive_argv, dir());
    EXPECT_EQ(inc.exit, exited(0)) << inc.err;
    EXPECT_EQ(inc.err, "") << "callgrind_annotate warned";
    RunResult self = run(self_argv, dir());
    EXPECT_EQ(self.exit, exited(0)) << self.err;
    EXPECT_EQ(self.err, "") << "callgrind_annotate warned";
    std::cout << "[ annotate ] callgrind_annotate --inclusive=yes --tree=caller:\n" << inc.out;
    const auto inclusive_rows = parse_annotate(inc.out);
    const auto self_rows = parse_annotate(self.out);

    const Report r = report();
    std::map<std::string, uint64_t> total_calls;
    uint64_t all_calls = 0;
    for (const json& top : r.doc().at("tree")) subtree_calls(top, total_calls, all_calls);
    EXPECT_EQ(all_calls, u64(r.doc().at("summary"), "calls")) << "the report's tree is complete";
    for (const json& f : r.doc().at("functions")) {
      const std::string name = f.at("name");
      SCOPED_TRACE(name);
      const Row* inc_row = find_row(inclusive_rows, name);
      const Row* self_row = find_row(self_rows, name);
      if (!inc_row || !self_row) continue;
      EXPECT_EQ(self_row->value.at("Time"), int64_t(u64(f, "self_ns")));
      EXPECT_EQ(inc_row->value.at("Time"), int64_t(u64(f, "total_ns")));
      EXPECT_EQ(self_row->value.at("Calls"), int64_t(u64(f, "calls")));
      EXPECT_EQ(inc_row->value.at("Calls"), int64_t(total_calls[name]));
      if (!f.at("cpu_ns").is_null()) {
        // callgrind's OffCpu is all the time not running: blocked + waiting for a CPU
        // (docs/interop.md, "Off-CPU time"); the report keeps the two apart.
        const auto value = [&](const char* key) { return f.contains(key) ? int64_t(u64(f, key)) : 0; };
        EXPECT_EQ(self_row->value.at("Cpu"), int64_t(u64(f, "cpu_ns")));
        EXPECT_EQ(self_row->value.at("OffCpu"), value("offcpu_ns") + value("preempted_ns"));
        EXPECT_EQ(inc_row->value.at("Cpu"), int64_t(u64(f, "total_cpu_ns")));
        EXPECT_EQ(inc_row->value.at("OffCpu"), value("total_offcpu_ns") + value("total_preempted_ns"));
        if (self_row->value.count("Preempted")) {
          EXPECT_EQ(self_row->value.at("Preempted"), value("preempted_ns"));
          EXPECT_EQ(inc_row->value.at("Preempted"), value("total_preempted_ns"));
        }
      }
      // Each caller with the report's exact call count.
      for (const json& e : r.doc().at("edges")) {
        if (e.at("callee") != name || e.at("caller").is_null()) continue;
        const std::string caller = e.at("caller");
        uint64_t seen = 0;
        for (const auto& [key, calls] : inc_row->callers)
          if (key.ends_with(":" + caller)) seen += calls;
        EXPECT_EQ(seen, u64(e, "calls")) << caller << " -> " << name;
      }
    }
    return inclusive_rows;
  }

  std::string annotate_;
};

TEST_P(ExportCallgrind, CounterExampleReadsBackExactly) {
  const auto rows = check(build("gprof_split.c"));
  const Row* d = find_row(rows, "D");
  ASSERT_NE(d, nullptr);
  uint64_t b = 0, c = 0;
  for (const auto& [key, calls] : d->callers) {
    if (key.ends_with(":B")) b = calls;
    if (key.ends_with(":C")) c = calls;
  }
  EXPECT_EQ(b, 40u);
  EXPECT_EQ(c, 40u);
}

TEST_P(ExportCallgrind, RecursionIsCountedOnce) {
  const auto rows = check(build("recursion.c"));
  // depth: 105 calls, 100 of them by itself; its inclusive time ~ 5 ms of work, not 21x.
  const Row* depth = find_row(rows, "depth");
  ASSERT_NE(depth, nullptr);
  uint64_t by_itself = 0, by_run = 0;
  for (const auto& [key, calls] : depth->callers) {
    if (key.ends_with(":depth")) by_itself = calls;
    if (key.ends_with(":run_depth")) by_run = calls;
  }
  EXPECT_EQ(by_itself, 100u);
  EXPECT_EQ(by_run, 5u);
  EXPECT_EQ(depth->value.at("Calls"), 105) << "calls made within depth, itself included";
  const Row* odd = find_row(rows, "is_odd");
  const Row* even = find_row(rows, "is_even");
  ASSERT_TRUE(odd && even);
  EXPECT_LE(odd->value.at("Time"), even->value.at("Time"));
  EXPECT_EQ(even->value.at("Calls"), 55) << "30 is_even + 25 is_odd";
}

E2E_INSTANTIATE(ExportCallgrind);

}  // namespace
}  // namespace e2e
