// The outputs that combine or convert recorded profiles: diff of two builds (the slowed
// function ranked first), merge of several runs (call counts add up exactly), and the
// collapsed-stack export (its lines add up to the report's totals).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

class Outputs : public E2ETest {
 protected:
  // The program built with `flags`, renamed so that another build does not replace it.
  std::string build_as(const std::string& name, const std::vector<std::string>& flags) {
    const std::string built = build("two_builds.c", flags);
    const std::string binary = (dir() / name).string();
    fs::rename(built, binary);
    return binary;
  }

  void record_to(const std::string& binary, const std::string& profile) {
    RunResult r = record(binary, {}, "", profile);
    ASSERT_EQ(r.exit, exited(0)) << r.err;
  }

  RunResult callprof(std::vector<std::string> args) {
    args.insert(args.begin(), E2E_CALLPROF);
    return run(args, dir());
  }
};

TEST_P(Outputs, DiffRanksTheSlowedFunctionFirst) {
  record_to(build_as("fast", {}), "base.callprof");
  record_to(build_as("slow", {"-DSLOWER=2"}), "new.callprof");
  RunResult r = callprof({"diff", "base.callprof", "new.callprof", "--json", "--limit", "5"});
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  const json d = json::parse(r.out);
  ASSERT_FALSE(d["functions"].empty());
  EXPECT_EQ(d["functions"][0]["name"], "parse") << d.dump(1);
  const double delta_ms = d["functions"][0]["self_delta_ns"].get<double>() / 1e6;
  EXPECT_GT(delta_ms, 40 * 4 * 0.6) << "40 calls, each 4 ms slower";
  EXPECT_LT(delta_ms, 40 * 4 * 2.0);
  EXPECT_EQ(d["paths"][0]["path"], json({"main", "load", "parse"}));
  // The same profile against itself: nothing changed.
  RunResult same = callprof({"diff", "base.callprof", "base.callprof", "--json", "--all"});
  ASSERT_EQ(same.exit, exited(0)) << same.err;
  const json same_doc = json::parse(same.out);
  EXPECT_EQ(same_doc["functions_changed"], 0);
  ASSERT_FALSE(same_doc["functions"].empty());
  for (const json& f : same_doc["functions"]) EXPECT_EQ(f["self_delta_ns"], 0) << f.dump();
  // Text: the slowed function's row comes first, with its ratio.
  RunResult text = callprof({"diff", "base.callprof", "new.callprof", "--no-pager"});
  ASSERT_EQ(text.exit, exited(0)) << text.err;
  const size_t table = text.out.find("by function:");
  ASSERT_NE(table, std::string::npos) << text.out;
  const size_t first_row = text.out.find('\n', text.out.find('\n', table) + 1) + 1;
  const std::string row = text.out.substr(first_row, text.out.find('\n', first_row) - first_row);
  EXPECT_NE(row.find("parse"), std::string::npos) << text.out;
  EXPECT_NE(row.find("x "), std::string::npos) << "a ratio near 2.00x: " << row;
}

TEST_P(Outputs, MergeAddsCallCountsExactly) {
  const std::string binary = build_as("app", {});
  record_to(binary, "a.callprof");
  record_to(binary, "b.callprof");
  record_to(binary, "c.callprof");
  RunResult m = callprof({"merge", "-q", "-o", "all.callprof", "a.callprof", "b.callprof", "c.callprof"});
  ASSERT_EQ(m.exit, exited(0)) << m.err;
  const Report r = report({}, "all.callprof");
  EXPECT_EQ(u64(r.function("parse"), "calls"), 120u);
  EXPECT_EQ(u64(r.function("render"), "calls"), 120u);
  EXPECT_EQ(u64(r.function("main"), "calls"), 3u);
  EXPECT_EQ(r.doc()["processes"].size(), 3u);
  // Any grouping and order: the same report.
  ASSERT_EQ(callprof({"merge", "-q", "-o", "ab.callprof", "a.callprof", "b.callprof"}).exit, exited(0));
  ASSERT_EQ(callprof({"merge", "-q", "-o", "ab_c.callprof", "c.callprof", "ab.callprof"}).exit, exited(0));
  RunResult one = callprof({"report", "-i", "all.callprof", "--json"});
  RunResult two = callprof({"report", "-i", "ab_c.callprof", "--json"});
  EXPECT_EQ(one.out, two.out);
  // A different program needs --force.
  record_to(build("calls.c"), "other.callprof");
  RunResult refused = callprof({"merge", "-o", "x.callprof", "a.callprof", "other.callprof"});
  EXPECT_EQ(refused.exit, exited(2));
  EXPECT_NE(refused.err.find("different programs"), std::string::npos) << refused.err;
  EXPECT_EQ(callprof({"merge", "-q", "--force", "-o", "x.callprof", "a.callprof", "other.callprof"}).exit, exited(0));
}

TEST_P(Outputs, CollapsedStacksAddUpToTheReport) {
  record_to(build_as("app", {}), "p.callprof");
  RunResult r = callprof({"export", "-i", "p.callprof", "-f", "collapsed", "--value", "calls"});
  ASSERT_EQ(r.exit, exited(0)) << r.err;
  std::map<std::string, uint64_t> by_leaf;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.rfind(' ');
    const std::string stack = line.substr(0, space);
    by_leaf[stack.substr(stack.rfind(';') + 1)] += std::stoull(line.substr(space + 1));
  }
  EXPECT_EQ(by_leaf["parse"], 40u);
  EXPECT_EQ(by_leaf["render"], 40u);
  EXPECT_NE(r.out.find("main;load;parse 40\n"), std::string::npos) << r.out;
}

E2E_INSTANTIATE(Outputs);

}  // namespace
}  // namespace e2e
