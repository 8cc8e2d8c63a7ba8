// End-to-end: `callprof diff` finds the real change (issue 29.6). One function made 12x
// slower by an argument ranks first when the other run was recorded on a busy machine and
// when the whole run did twice the work; a function folded in one recording only, or kept
// out of one by a record filter, shows no phantom change; overloads are compared apart.
#include <csignal>

#include "e2e_support.h"

namespace e2e {
namespace {

class Diff : public E2ETest {
 protected:
  void record_to(const std::string& profile, const std::vector<std::string>& options, const std::string& binary,
                 const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {E2E_CALLPROF, "record", "-q", "-o", profile};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", binary});
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run(argv, dir());
    ASSERT_EQ(r.exit, exited(0)) << r.err;
  }

  json diff(std::vector<std::string> args) {
    args.insert(args.begin(), {E2E_CALLPROF, "diff", "--json"});
    const RunResult r = run(args, dir());
    if (r.exit != exited(0)) throw std::runtime_error("diff failed: " + r.err);
    return json::parse(r.out);
  }

  // Two busy loops, one per core of this machine, while `record` runs.
  void record_on_a_busy_machine(const std::string& profile, const std::string& binary,
                                const std::vector<std::string>& args) {
    std::vector<Started> loops;
    for (int i = 0; i < 2; ++i) loops.push_back(start({"/bin/sh", "-c", "while :; do :; done"}, dir()));
    record_to(profile, {}, binary, args);
    for (const Started& s : loops) {
      kill(-s.pid, SIGKILL);
      finish(s);
    }
  }
};
E2E_INSTANTIATE(Diff);

std::vector<std::string> changed(const json& rows) {
  std::vector<std::string> names;
  for (const json& r : rows)
    if (r.at("changed").get<bool>()) names.push_back(r.at("display").get<std::string>());
  return names;
}

const json* row(const json& rows, const std::string& display) {
  for (const json& r : rows)
    if (r.at("display") == display) return &r;
  return nullptr;
}

void expect_target_first(const json& d, const std::string& what) {
  SCOPED_TRACE(what + ": " + d.dump(1).substr(0, 4000));
  ASSERT_FALSE(d.at("functions").empty());
  const json& first = d["functions"][0];
  EXPECT_EQ(first["display"], "target");
  EXPECT_TRUE(first["changed"].get<bool>());
  const double ratio = first["new_value"].get<double>() / first["base_value"].get<double>();
  measured(what + "_target_ratio", ratio);
  EXPECT_GT(ratio, 12 * 0.5) << "12x by construction, relative to the others";
  EXPECT_LT(ratio, 12 * 2.0);
  for (const char* same : {"parse", "render", "compress"}) {
    const json* r = row(d["functions"], same);
    EXPECT_TRUE(r == nullptr || !(*r)["changed"].get<bool>()) << same << " did not change";
  }
  EXPECT_EQ(d["paths"][0]["path"], json({"main", "target"}));
  EXPECT_EQ(first["base"]["calls"], 40);
  EXPECT_EQ(first["calls_delta"], 0);
}

TEST_P(Diff, RanksTheSlowedFunctionFirstOnABusyMachineAndInARunOfTwiceTheWork) {
  const std::string binary = build("diff_runs.c");
  record_to("base.callprof", {}, binary, {"1"});
  record_on_a_busy_machine("busy.callprof", binary, {"12"});
  record_to("twice.callprof", {}, binary, {"12", "2"});
  const json busy = diff({"base.callprof", "busy.callprof"});
  EXPECT_EQ(busy["metric"], "cpu") << "the default for a program on a CPU";
  expect_target_first(busy, "busy");
  const json twice = diff({"base.callprof", "twice.callprof"});
  expect_target_first(twice, "twice");
  EXPECT_NEAR(twice["scale"].get<double>(), 0.5, 0.5 * 0.3) << "the typical function did twice the work";
  // Unscaled, the largest function's doubling outranks the slowed one: what diff showed before.
  EXPECT_EQ(diff({"--scale", "none", "base.callprof", "twice.callprof"})["functions"][0]["display"], "parse");
  // The text: the header says what was compared, the first row is target's, with its calls.
  const RunResult text = run({E2E_CALLPROF, "diff", "--no-pager", "base.callprof", "twice.callprof"}, dir());
  ASSERT_EQ(text.exit, exited(0)) << text.err;
  EXPECT_NE(text.out.find("# metric: cpu"), std::string::npos) << text.out;
  const size_t table = text.out.find("by function:");
  ASSERT_NE(table, std::string::npos) << text.out;
  const size_t first_row = text.out.find('\n', text.out.find('\n', table) + 1) + 1;
  const std::string first = text.out.substr(first_row, text.out.find('\n', first_row) - first_row);
  EXPECT_NE(first.find("target"), std::string::npos) << text.out;
  EXPECT_NE(first.find("  40  "), std::string::npos) << "calls columns: " << first;
}

// mix (2,000,000 tiny calls from work) hooked in one recording, folded by `--auto-fold
// all` in the other: compared folded in both, neither work nor mix changed.
TEST_P(Diff, AFunctionFoldedInOneRecordingOnlyShowsNoPhantomChange) {
  const std::string binary = build("diff_fold.c");
  record_to("hooked.callprof", {"--no-auto-fold"}, binary);
  record_to("folded.callprof", {"--auto-fold", "all", "--keep-hooks"}, binary);  // every call counted
  // One function holds the run: compared unscaled, as the header would have it anyway.
  const json d = diff({"--all", "--scale", "none", "hooked.callprof", "folded.callprof"});
  SCOPED_TRACE(d.dump(1));
  ASSERT_EQ(d["folded"].size(), 1u) << "mix is folded in the new run only";
  EXPECT_EQ(d["folded"][0]["name"], "mix");
  EXPECT_EQ(d["folded"][0]["in_base"], false);
  EXPECT_EQ(d["folded"][0]["in_new"], true);
  const json* mix = row(d["functions"], "mix");
  ASSERT_NE(mix, nullptr);
  EXPECT_TRUE((*mix)["folded"].get<bool>());
  EXPECT_EQ((*mix)["base"]["calls"], 2000000);
  EXPECT_EQ((*mix)["new"]["calls"], 2000000);
  EXPECT_FALSE((*mix)["changed"].get<bool>());
  const json* work = row(d["functions"], "work");
  ASSERT_NE(work, nullptr);
  measured("work_delta_ms", (*work)["delta"].get<double>() / 1e6);
  measured("work_noise_ms", (*work)["noise"].get<double>() / 1e6);
  EXPECT_FALSE((*work)["changed"].get<bool>()) << "the same program: work's change is the compensation's";
  for (const json& p : d["paths"]) EXPECT_NE(p["path"].back(), "mix") << "a folded function has no path of its own";
}

// compress kept out of the base recording by `--exclude '^compress$'` (its time in main's
// self there): the new one, recorded without the filter, is compared with compress
// transparent too.
TEST_P(Diff, AFunctionARecordFilterKeptOutOfOneRecordingShowsNoPhantomChange) {
  const std::string binary = build("diff_runs.c");
  record_to("filtered.callprof", {"--exclude", "^compress$"}, binary);
  record_to("all.callprof", {}, binary);
  const json d = diff({"--all", "filtered.callprof", "all.callprof"});
  SCOPED_TRACE(d.dump(1));
  ASSERT_EQ(d["folded"].size(), 1u);
  EXPECT_EQ(d["folded"][0]["name"], "compress");
  EXPECT_EQ(d["folded"][0]["by"], "filter");
  EXPECT_EQ(row(d["functions"], "compress"), nullptr) << "no row: the base has no calls of it by name";
  for (const json& r : d["functions"]) {
    EXPECT_TRUE(r["base"].is_object() && r["new"].is_object()) << r["display"] << " is in both";
    EXPECT_FALSE(r["changed"].get<bool>()) << r["display"];
  }
  const json* main = row(d["functions"], "main");
  const json* parse = row(d["functions"], "parse");
  ASSERT_TRUE(main && parse);
  // compress does half of parse's work; main does nearly nothing of its own.
  EXPECT_GT((*main)["new_value"].get<double>(), 0.3 * (*parse)["new_value"].get<double>())
      << "compress's time is main's in both";
}

TEST_P(Diff, OverloadsAreComparedApart) {
  require_cxx();
  const std::string binary = build("diff_overloads.cpp");
  record_to("one.callprof", {}, binary, {"1"});
  record_to("twelve.callprof", {}, binary, {"12"});
  const json d = diff({"--all", "one.callprof", "twelve.callprof"});
  SCOPED_TRACE(d.dump(1));
  ASSERT_GE(d["functions"].size(), 3u);
  EXPECT_EQ(d["functions"][0]["display"], "work(double)");
  EXPECT_EQ(d["functions"][0]["name"], "work(double)");
  EXPECT_EQ(changed(d["functions"]), std::vector<std::string>{"work(double)"});
  const json* other = row(d["functions"], "work(int)");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ((*other)["base"]["calls"], 20);
  EXPECT_EQ((*other)["new"]["calls"], 20);
}

}  // namespace
}  // namespace e2e
