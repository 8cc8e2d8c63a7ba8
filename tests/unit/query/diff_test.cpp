// The diff computation (query/diff.h) on crafted profiles whose truth is known: the scale,
// the noise threshold (spread, hook-cost uncertainty, sample counts, calls), the fold level,
// the metric choice and refusals, and function identity (overloads, static duplicates).
#include "query/diff.h"

#include <gtest/gtest.h>

#include <cmath>

#include "diff_fixtures.h"

namespace callprof {
namespace {

using testing::analyse;
using testing::AnalysedPair;
using testing::diff;
using testing::exact_run;
using testing::issue_run;
using testing::stack;

std::vector<std::string> changed_names(const std::vector<DiffRow>& rows) {
  std::vector<std::string> out;
  for (const DiffRow& r : rows)
    if (r.changed()) out.push_back(r.display.back());
  return out;
}

const DiffRow* find_row(const std::vector<DiffRow>& rows, const std::string& display) {
  for (const DiffRow& r : rows)
    if (r.display.back() == display) return &r;
  return nullptr;
}

TEST(Diff, RanksTheSlowedFunctionFirstWhenTheWholeRunTookTwiceAsLong) {
  // Everything 2x (a loaded machine, or twice the input), target 12x on top of that.
  const auto pair = analyse(issue_run(1, 1), issue_run(2, 12));
  const Diff d = diff(pair);
  EXPECT_EQ(d.metric, DiffMetric::Cpu);
  EXPECT_TRUE(d.metric_by_default);
  EXPECT_NEAR(d.scale, 0.5, 1e-3);
  ASSERT_FALSE(d.functions.empty());
  EXPECT_EQ(d.functions[0].display, std::vector<std::string>{"target"});
  EXPECT_NEAR(d.functions[0].next_value / d.functions[0].base_value, 12, 0.01);
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"target"});
  EXPECT_EQ(d.functions_within_noise, 6u);
  ASSERT_FALSE(d.paths.empty());
  EXPECT_EQ(d.paths[0].display, (std::vector<std::string>{"main", "target"}));
  EXPECT_EQ(d.paths[0].names, (std::vector<std::string>{"main", "target"}));

  // Unscaled, every function "changed" and the largest one ranks first: the issue's report.
  DiffOptions none;
  none.scale = DiffScale::None;
  const Diff raw = diff(pair, none);
  EXPECT_EQ(raw.functions[0].display.back(), "parse");
  EXPECT_EQ(raw.functions_changed, 4u) << "parse, render, compress, target";
  // Scaled by the total (--normalize), the slowed function pulls the others down, but still ranks first.
  DiffOptions total;
  total.scale = DiffScale::Total;
  EXPECT_EQ(diff(pair, total).functions[0].display.back(), "target");
}

TEST(Diff, TheSpreadOfANoisyRunWidensTheThreshold) {
  // The wall times of the issue's reproduction (a quiet run, then one on a loaded machine):
  // each function stretched differently (x2.7 to x3.2) and target x28: only target changed
  // beyond the functions' own spread.
  Profile quiet =
      exact_run(stack("main", 673000, 1, 673000) + stack("main;parse", 266000000, 40, 187000000) +
                    stack("main;render", 205000000, 40, 139000000) + stack("main;compress", 154000000, 40, 92900000) +
                    stack("main;target", 9030000, 40, 4880000) + stack("main;checksum", 182000, 40, 182000) +
                    stack("main;checksum;helper", 598000, 800000, 564000),
                "./prog 1");
  Profile noisy =
      exact_run(stack("main", 900000, 1, 900000) + stack("main;parse", 841000000, 40, 187000000) +
                    stack("main;render", 593000000, 40, 139000000) + stack("main;compress", 412000000, 40, 93000000) +
                    stack("main;target", 253000000, 40, 56000000) + stack("main;checksum", 600000, 40, 600000) +
                    stack("main;checksum;helper", 1800000, 800000, 1800000),
                "./prog 12");
  DiffOptions o;
  o.metric = DiffMetric::Self;
  const Diff d = diff(analyse(std::move(quiet), std::move(noisy)), o);
  EXPECT_NEAR(d.typical.ratio, 593.0 / 205, 1e-6) << "render's: the median by share";
  EXPECT_GT(d.typical.spread, 0.2) << "parse x3.16, compress x2.68 around it";
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"target"});
}

TEST(Diff, HookCostUncertaintyGrowsWithTheCallsCompensated) {
  // checksum gains 2 ms of self time in the new run: 40 calls of its own but 800,000 of
  // helper compensated out of it (10% of 20 ns each, both runs: 3.2 ms) -- within noise.
  // The same 2 ms on target (40 calls) is a change.
  Profile base = exact_run(stack("main", 1000000, 1, 1000000) + stack("main;target", 100000000, 40, 100000000) +
                               stack("main;checksum", 4000000, 40, 4000000) +
                               stack("main;checksum;helper", 8000000, 800000, 8000000),
                           "a");
  Profile next = exact_run(stack("main", 1000000, 1, 1000000) + stack("main;target", 102000000, 40, 102000000) +
                               stack("main;checksum", 6000000, 40, 6000000) +
                               stack("main;checksum;helper", 8000000, 800000, 8000000),
                           "b");
  DiffOptions o;
  o.scale = DiffScale::None;
  o.min_change = 0;
  o.all = true;
  const Diff d = diff(analyse(std::move(base), std::move(next)), o);
  EXPECT_NEAR(d.noise.hook_ns_base, 2.0, 1e-9);
  const DiffRow* checksum = find_row(d.functions, "checksum");
  ASSERT_NE(checksum, nullptr);
  EXPECT_EQ(checksum->base.hooked_self, 40u + 800000u);
  EXPECT_FALSE(checksum->changed()) << checksum->noise;
  EXPECT_GT(checksum->noise, 2 * 800040 * 2.0);
  const DiffRow* target = find_row(d.functions, "target");
  ASSERT_NE(target, nullptr);
  EXPECT_FALSE(target->changed()) << "2 % of 100 ms is within the 5 % spread";
  // The raw profile (no compensation): no hook uncertainty, checksum's +50 % is a change.
  AnalysedPair raw = analyse(exact_run(stack("main;checksum", 4000000, 40, 4000000), "a"),
                             exact_run(stack("main;checksum", 6000000, 40, 6000000), "b"));
  EXPECT_TRUE(diff(raw, o).functions[0].changed());
}

TEST(Diff, SampleCountsBoundTheChangeOfASampledProfile) {
  auto sampled = [](uint64_t a, uint64_t b) {
    Profile p = testing::folded(stack("main;big", 1000000000, 0, 0) + stack("main;rare", a * 1000000, 0, 0) +
                                stack("main;other", b * 1000000, 0, 0));
    for (Thread& t : p.threads)
      for (NodeId n = 1; n < t.tree.size(); ++n) {
        t.tree.base(n)[Metric::Samples] = t.tree.base(n)[Metric::WallNs] / 1000000;
        t.tree.base(n)[Metric::Calls] = 0;
      }
    p.meta.mode = RecordingMode::Sample;
    return p;
  };
  DiffOptions o;
  o.metric = DiffMetric::Samples;
  o.all = true;
  o.min_change = 0;
  // rare: 5 -> 9 samples is counting noise; other: 50 -> 200 is not.
  const Diff d = diff(analyse(sampled(5, 50), sampled(9, 200)), o);
  EXPECT_TRUE(d.noise.sampled_base && d.noise.sampled_next);
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"other"});
  // Sampled profiles count no calls.
  o.metric = DiffMetric::Calls;
  auto refused =
      diff_analyses(analyse(sampled(5, 50), sampled(9, 200)).base, analyse(sampled(5, 50), sampled(9, 200)).next, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "--metric calls: the base profile counts no calls (a sampled profile): use --metric samples or self");
}

TEST(Diff, CallsAreExactAndNeverScaled) {
  Profile base = exact_run(stack("main;a", 1000, 40, 1000) + stack("main;b", 2000, 10, 2000), "a");
  Profile next = exact_run(stack("main;a", 9000, 41, 9000) + stack("main;b", 4000, 10, 4000), "b");
  DiffOptions o;
  o.metric = DiffMetric::Calls;
  const Diff d = diff(analyse(std::move(base), std::move(next)), o);
  EXPECT_EQ(d.scale, 1.0);
  EXPECT_EQ(d.scale_method, DiffScale::None);
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"a"});
  EXPECT_EQ(d.functions[0].calls_delta(), 1);
  EXPECT_EQ(d.functions[0].noise, 0);
}

TEST(Diff, RefusesAMetricOneProfileDoesNotHave) {
  Profile no_cpu = testing::folded("main;a 1000\n");
  no_cpu.meta.mode = RecordingMode::Exact;
  DiffOptions o;
  o.metric = DiffMetric::Cpu;
  auto pair = analyse(issue_run(1, 1), std::move(no_cpu));
  auto cpu = diff_analyses(pair.base, pair.next, o);
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.error().message.rfind("--metric cpu: the new profile did not measure on-CPU time", 0), 0u)
      << cpu.error().message;
  o.metric = DiffMetric::Samples;
  auto samples = diff_analyses(pair.base, pair.next, o);
  ASSERT_FALSE(samples.ok());
  EXPECT_NE(samples.error().message.find("the base profile has no samples"), std::string::npos);
  EXPECT_EQ(samples.error().message.find('\n'), std::string::npos);
  // Without a metric, the one both have.
  EXPECT_EQ(diff(pair).metric, DiffMetric::Self);
}

TEST(Diff, DefaultsToCpuOnlyForARunMostlyOnACpu) {
  EXPECT_EQ(diff(analyse(issue_run(1, 1), issue_run(1, 2))).metric, DiffMetric::Cpu);
  // A program that mostly sleeps: comparing CPU time would miss what it waits for.
  auto sleeper = [](uint64_t sleep) {
    return exact_run(
        "main;wait " + std::to_string(sleep + 1000) + " calls=10 cpu=1000 off=" + std::to_string(sleep) + "\n",
        "./sleeper");
  };
  EXPECT_EQ(diff(analyse(sleeper(5000000), sleeper(9000000))).metric, DiffMetric::Self);
  // Time waiting for a CPU (preempted) is the machine's, not a wait of the program's: still CPU.
  Profile preempted = exact_run("main;wait 5001000 calls=10 cpu=1000\n", "./busy");
  preempted.threads[0].tree.base(2)[Metric::PreemptedNs] = 5000000;
  EXPECT_EQ(diff(analyse(issue_run(1, 1), std::move(preempted))).metric, DiffMetric::Cpu);
}

// step: 2,000,000 tiny calls from work; the runtime folded it in the new run, so its
// time is in work's self there. Compared folded in both: no phantom change of work.
TEST(Diff, AFunctionFoldedInOneRunIsComparedFoldedInBoth) {
  Profile base =
      exact_run(stack("main;work", 5000000, 1, 5000000) + stack("main;work;step", 4000000, 2000000, 4000000) +
                    stack("main;slow", 80000000, 200, 80000000),
                "./tiny");
  Profile next = exact_run(stack("main;work", 9000000, 1, 9000000) + stack("main;work;step", 2000, 2000000, 2000) +
                               stack("main;slow", 80000000, 200, 80000000),
                           "./tiny");
  next.threads[0].tree.base(3)[Metric::FoldedCalls] = 1998976;  // main > work > step
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(std::move(base), std::move(next)), o);
  ASSERT_EQ(d.fold.functions.size(), 1u);
  EXPECT_EQ(d.key_display[d.fold.functions[0].key], "step");
  EXPECT_FALSE(d.fold.functions[0].in_base);
  EXPECT_TRUE(d.fold.functions[0].in_new);
  EXPECT_EQ(d.functions_changed, 0u);
  const DiffRow* work = find_row(d.functions, "work");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->base.self_ns, 9000000u);
  EXPECT_NEAR(work->next_value - work->base_value, 2000, 3000);
  const DiffRow* step = find_row(d.functions, "step");
  ASSERT_NE(step, nullptr);
  EXPECT_TRUE(step->folded);
  EXPECT_EQ(step->base.calls, 2000000u);
  EXPECT_EQ(step->next.calls, 2000000u);
  EXPECT_EQ(step->base_value, 0);
  for (const DiffRow& p : d.paths) EXPECT_NE(p.display.back(), "step") << "a folded function has no path";
  // Hook costs move with the folded function: work is charged its 2,000,000 calls' outer cost.
  EXPECT_GE(work->base.hooked_self, 2000000u);
}

// wrap was kept out of the base run by `record --exclude '^wrap$'` (its time in main's self,
// inner directly under main): the new run, recorded without the filter, is compared with
// wrap transparent too, so neither wrap nor main nor inner shows a change.
TEST(Diff, AFunctionARecordFilterKeptOutOfOneRunIsTransparentInBoth) {
  Profile base = exact_run(stack("main", 3000, 1, 3000) + stack("main;inner", 2000000, 10, 2000000), "./app");
  base.meta.exact->exclude = "^wrap$";
  base.threads[0].tree.base(1)[Metric::ExcludedCalls] = 10;
  Profile next = exact_run(stack("main", 1000, 1, 1000) + stack("main;wrap", 2000, 10, 2000) +
                               stack("main;wrap;inner", 2000000, 10, 2000000),
                           "./app");
  DiffOptions o;
  o.all = true;
  o.min_change = 0;
  const Diff d = diff(analyse(std::move(base), std::move(next)), o);
  ASSERT_EQ(d.fold.functions.size(), 1u);
  EXPECT_EQ(d.fold.functions[0].mode, FoldMode::Dropped);
  EXPECT_TRUE(d.fold.functions[0].in_base);
  EXPECT_EQ(find_row(d.functions, "wrap"), nullptr);
  EXPECT_EQ(d.functions_changed, 0u);
  const DiffRow* main = find_row(d.functions, "main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->base_value, main->next_value);
  ASSERT_EQ(d.paths.size(), 2u);
  for (const DiffRow& p : d.paths) EXPECT_TRUE(p.base.present && p.next.present) << p.display.back();
}

TEST(Diff, OverloadsAndStaticFunctionsOfTheSameNameStayApart) {
  auto run = [](uint64_t slow) {
    Profile p = exact_run(stack("main;work(int)", 1000000, 20, 1000000) + stack("main;work(double)", slow, 20, slow) +
                              stack("main;helper", 500000, 5, 500000) + stack("main;helper2", 500000, 5, 500000),
                          "./over");
    for (Function& f : p.functions) {
      if (f.name == "helper") f.file = "/src/a.c";
      if (f.name == "helper2") f.name = "helper", f.file = "/src/b.c";
    }
    return p;
  };
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(run(100000), run(1200000)), o);
  ASSERT_EQ(d.functions.size(), 5u);
  EXPECT_EQ(d.functions[0].display, std::vector<std::string>{"work(double)"});
  EXPECT_EQ(d.functions[0].names, std::vector<std::string>{"work(double)"});
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"work(double)"});
  for (const char* name : {"work(int)", "helper [a.c]", "helper [b.c]", "main"})
    EXPECT_NE(find_row(d.functions, name), nullptr) << name;
  EXPECT_EQ(find_row(d.functions, "helper [a.c]")->base.calls, 5u) << "not merged with b.c's";
}

// A second static function of the same name in the new run only: both runs' helper of a.c
// are one row (qualified alike), not a "gone" and two "new".
TEST(Diff, ANameSharedInOneRunOnlyIsQualifiedAlikeInBoth) {
  auto run = [](bool second) {
    Profile p = exact_run(
        stack("main;helper", 500000, 5, 500000) + (second ? stack("main;helper2", 300000, 3, 300000) : std::string()),
        "./helpers");
    for (Function& f : p.functions) {
      if (f.name == "helper") f.file = "/src/a.c";
      if (f.name == "helper2") f.name = "helper", f.file = "/src/b.c";
    }
    return p;
  };
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(run(false), run(true)), o);
  const DiffRow* a = find_row(d.functions, "helper [a.c]");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->base.present && a->next.present) << "the same function in both runs";
  EXPECT_EQ(a->base.calls, 5u);
  EXPECT_EQ(a->next.calls, 5u);
  const DiffRow* b = find_row(d.functions, "helper [b.c]");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->base.present);
  EXPECT_EQ(find_row(d.functions, "helper"), nullptr) << "no unqualified row left over";
}

// Two builds of one program under different names (./fast, ./slow): each function is one
// function in each run, so the module's name does not part them.
TEST(Diff, AFunctionWhoseModuleWasRenamedIsStillOneFunction) {
  auto run = [](const char* module, uint64_t t) {
    return exact_run(stack(std::string("main@") + module + ";parse@" + module, t, 40, t), module);
  };
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(run("/bin/fast", 40000000), run("/bin/slow", 80000000)), o);
  const DiffRow* parse = find_row(d.functions, "parse");
  ASSERT_NE(parse, nullptr);
  EXPECT_TRUE(parse->base.present && parse->next.present);
  EXPECT_EQ(parse->base.calls, 40u);
}

TEST(Diff, AProfileAgainstItselfHasNoChange) {
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(issue_run(1, 3), issue_run(1, 3)), o);
  EXPECT_EQ(d.functions_changed, 0u);
  EXPECT_EQ(d.paths_changed, 0u);
  EXPECT_EQ(d.functions.size(), 7u);
  for (const DiffRow& r : d.functions) EXPECT_EQ(r.delta(), 0) << r.display.back();
  EXPECT_EQ(d.scale, 1.0);
  // Without --all, the rows within noise are only counted.
  const Diff quiet = diff(analyse(issue_run(1, 3), issue_run(1, 3)));
  EXPECT_TRUE(quiet.functions.empty());
  EXPECT_EQ(quiet.functions_within_noise, 7u);
}

TEST(Diff, LimitKeepsTheLargestChanges) {
  DiffOptions o;
  o.scale = DiffScale::None;
  o.limit = 2;
  const Diff d = diff(analyse(issue_run(1, 1), issue_run(2, 1)), o);
  ASSERT_EQ(d.functions.size(), 2u);
  EXPECT_EQ(d.functions[0].display.back(), "parse");
  EXPECT_EQ(d.functions[1].display.back(), "render");
  EXPECT_GT(d.functions_changed, 2u);
}

TEST(DiffNoise, TheTypicalChangeIgnoresTheFewFunctionsThatChanged) {
  const ValuePair functions[] = {{400, 800}, {300, 600}, {200, 400}, {10, 240}};
  const TypicalChange t = typical_change(functions, kMinSpread);
  EXPECT_DOUBLE_EQ(t.ratio, 2);
  EXPECT_EQ(t.spread, kMinSpread);
  EXPECT_EQ(t.functions, 4u);
  const ValuePair spread[] = {{266, 841}, {205, 593}, {154, 412}};
  const TypicalChange s = typical_change(spread, kMinSpread);
  EXPECT_NEAR(s.ratio, 593.0 / 205, 1e-9);
  // The pairs' differences: render-compress 0.078, parse-render 0.089, parse-compress 0.167;
  // by weight, parse-render's is the median.
  EXPECT_NEAR(s.spread, std::exp(3 * std::log(841.0 / 266 / (593.0 / 205))) - 1, 1e-9);
  EXPECT_EQ(typical_change({}, kMinSpread).ratio, 1);
}

// programs/two_builds.c on a loaded machine: parse 2x by construction, render 15 % off by
// the machine (its sleeps woke late). parse holds almost half of the weight: judged by the
// spread of all three it would hide in the band it widens itself; judged by the others', it
// is the change and render is not.
TEST(DiffNoise, EachFunctionIsJudgedByTheOthersSpread) {
  const ValuePair functions[] = {{47.8, 85.3}, {41.2, 41.2}, {34.5, 29.3}};  // parse, check, render
  const TypicalChange t = typical_change(functions, kMinSpread);
  EXPECT_NEAR(t.ratio, 1, 1e-9) << "the functions scatter too much to tell: not scaled";
  EXPECT_GT(t.spread, 1.0) << "over all: a pair with parse is the median";
  const Spreads s = spreads_among(functions, {true, true, true}, kMinSpread);
  ASSERT_EQ(s.without.size(), 3u);
  EXPECT_NEAR(s.without[0], std::exp(3 * std::log(34.5 / 29.3)) - 1, 1e-9) << "without parse: check-render";
  EXPECT_LT(s.without[0], 85.3 / 47.8 - 1) << "parse's change is beyond it";
  EXPECT_GT(s.without[2], 1.0) << "without render: parse-check";
  // Once parse is known to have changed, the others are judged by their own spread.
  EXPECT_NEAR(spreads_among(functions, {false, true, true}, kMinSpread).all, s.without[0], 1e-12);
  // On the diff of two such runs (self time: the program sleeps), parse alone changed.
  auto run = [](uint64_t parse, uint64_t render) {
    return exact_run(stack("main;load;parse", parse, 40, parse / 10, parse - parse / 10) +
                         stack("main;load;check", 41200000, 40, 4000000, 37200000) +
                         stack("main;render", render, 40, render / 10, render - render / 10),
                     "./two_builds");
  };
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(run(47800000, 34500000), run(85300000, 29300000)), o);
  EXPECT_EQ(d.metric, DiffMetric::Self) << "mostly asleep";
  EXPECT_EQ(changed_names(d.functions), std::vector<std::string>{"parse"});
  EXPECT_EQ(changed_names(d.paths), std::vector<std::string>{"parse"});
}

// programs/two_builds.c again, with main's self 37 ms in the base run (start-up, once) and
// nothing in the new: two outliers among five functions. Peeled off round by round, parse
// is the change beside main's, and check and render are not.
TEST(Diff, ChangedFunctionsArePeeledOffTheSpread) {
  auto run = [](uint64_t main, uint64_t parse, uint64_t render) {
    return exact_run(stack("main", main, 1, main) + stack("main;load", 15000, 1, 15000) +
                         stack("main;load;parse", parse, 40, parse / 10, parse - parse / 10) +
                         stack("main;load;check", 41000000, 40, 4000000, 37000000) +
                         stack("main;render", render, 40, render / 10, render - render / 10),
                     "./two_builds");
  };
  DiffOptions o;
  o.all = true;
  const Diff d = diff(analyse(run(36900000, 40700000, 21800000), run(67000, 80200000, 20200000)), o);
  EXPECT_EQ(changed_names(d.functions), (std::vector<std::string>{"parse", "main"}));
}

TEST(DiffNoise, ThresholdAddsItsParts) {
  NoiseModel n{.hook_ns_base = 2, .hook_ns_next = 3, .scale = 0.5, .min_change = 1};
  // The spread of the smaller side; the new side's errors scaled with it.
  EXPECT_DOUBLE_EQ(n.threshold({.base = 100, .next = 200, .spread = 0.1, .hooked_base = 10, .hooked_next = 10}),
                   10 + 2 * 10 + 0.5 * 3 * 10);
  EXPECT_DOUBLE_EQ(n.threshold({}), 1);
  n.sampled_base = n.sampled_next = true;
  // 4 samples: +-3 x 4/sqrt(4); the new side (9 scaled from 18, 9 samples): 0.5 x 3 x 18/sqrt(9).
  EXPECT_NEAR(n.threshold({.base = 4, .next = 9, .spread = 0.1, .samples_base = 4, .samples_next = 9}), 0.4 + 6 + 9,
              1e-9);
  n.sampled_base = n.sampled_next = false;
  n.switch_sigma_ns = 100;
  EXPECT_NEAR(n.threshold({.base = 1000, .next = 1000, .switches_base = 2, .switches_next = 8}),
              3 * 100 * std::sqrt(2) + 0.5 * 3 * 100 * std::sqrt(8), 1e-9);
  // As a log error: each side's error over its value.
  EXPECT_NEAR(n.log_error({.base = 1000, .next = 2000, .switches_base = 1, .switches_next = 4}),
              300.0 / 1000 + 600.0 / 2000, 1e-9);
  EXPECT_DOUBLE_EQ(hook_uncertainty_ns(20, 21), 2);
  EXPECT_DOUBLE_EQ(hook_uncertainty_ns(20, 28), 8);
  EXPECT_DOUBLE_EQ(hook_uncertainty_ns(0, 28), 0);
}

}  // namespace
}  // namespace callprof
