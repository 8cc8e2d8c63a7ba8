// End-to-end: non-local control flow (C++ exceptions, longjmp, siglongjmp from signal
// handlers) keeps the shadow stack right, and signal handlers' calls are counted.
#include <signal.h>

#include <cstdio>

#include "e2e_support.h"

namespace e2e {
namespace {

class Exceptions : public E2ETest {
  void SetUp() override {
    E2ETest::SetUp();
    require_cxx();
  }
};
class Longjmp : public E2ETest {};
class Signals : public E2ETest {};
E2E_INSTANTIATE(Exceptions);
E2E_INSTANTIATE(Longjmp);
E2E_INSTANTIATE(Signals);

// What the exceptions and longjmp programs share: main calls `landing` 10 times; it
// calls chain[0] -> chain[1] -> ..., control leaves the chain non-locally back into
// `landing`, which then works 2 ms and calls `after` once.
struct Transfer {
  std::string landing;
  std::vector<std::string> chain;
  std::string after;
};

void expect_transfer_accounted(const Report& r, const Transfer& t, const std::string& key) {
  std::vector<CallsOf> counts = {{"main", 1}, {t.landing, 10}, {t.after, 10}};
  for (const auto& f : t.chain) counts.push_back({f, 10});
  expect_function_calls(r, counts);
  // Every function sits where the program put it, and nowhere else: after the transfer,
  // new calls hang below the landing function, not below the abandoned frames.
  std::vector<std::string> path = {"main", t.landing};
  auto expect_only_at = [&](const std::string& f, const std::vector<std::string>& where) {
    const auto paths = r.paths_to(f);
    if (paths.size() == 1 && same_path(paths[0], where)) return;
    std::string listed;
    for (size_t i = 0; i < paths.size() && i < 3; ++i) listed += "\n  " + join_path(paths[i]);
    ADD_FAILURE() << f << " should be at " << join_path(where) << " only; it is on " << paths.size()
                  << " path(s):" << listed << (paths.size() > 3 ? "\n  ..." : "");
  };
  for (const auto& f : t.chain) {
    path.push_back(f);
    expect_only_at(f, path);
  }
  expect_only_at(t.after, {"main", t.landing, t.after});
  // The 10 x 2 ms after the transfer, nearly all of the run, are the landing function's
  // own time; the chain, which does no work, stays small. (Ratios only: the absolute
  // scale is ClockConversion's business.)
  const uint64_t landing_self = u64(r.function(t.landing), "self_ns");
  const uint64_t chain_total = u64(r.function(t.chain.front()), "total_ns");
  const uint64_t main_total = u64(r.function("main"), "total_ns");
  measured(key + "." + t.landing + "_self_ms", ms(landing_self), "ms");
  measured(key + "." + t.chain.front() + "_total_ms", ms(chain_total), "ms");
  EXPECT_GE(double(landing_self), 0.75 * double(main_total))
      << "the work after the transfer is " << t.landing << "'s self time";
  EXPECT_LE(chain_total * 4, landing_self) << t.chain.front() << "'s total must not hold the work after the transfer";
  expect_report_invariants(r);
}

// GCC runs the exit hooks of the unwound frames; Clang does not, and the runtime closes
// them when the catch begins (__cxa_begin_catch).
TEST_P(Exceptions, ThrownThroughThreeFramesWorkAfterCatchBelongsToCatcher) {
  std::string out;
  const Report r = record_and_report(build("exceptions.cpp"), {"frames"}, &out);
  EXPECT_EQ(out, "caught 10\n");
  expect_transfer_accounted(r, {"catcher", {"f1", "f2", "f3"}, "after_catch"}, compiler_name() + ".exceptions");
}

// The first frame thrown through is an instrumented function inlined into the catcher:
// its frame has the catcher's stack pointer, yet it was left all the same.
TEST_P(Exceptions, ThrownOutOfInlinedCalleeWorkAfterCatchBelongsToCatcher) {
  // Clang's plain -finstrument-functions places hooks before inlining and runs no exit
  // hooks while unwinding; at the catch, the inlined callee shares the catcher's stack
  // pointer and nothing tells them apart, so its frame stays open until the catcher
  // returns. docs/modes.md recommends -finstrument-functions-after-inlining for Clang,
  // which has no such frames (see the test below).
  if (compiler_name() == "clang")
    GTEST_SKIP() << "known limitation of clang -finstrument-functions (hooks before inlining) with exceptions "
                    "thrown out of an inlined callee; see docs/modes.md";
  std::string out;
  const Report r = record_and_report(build("exceptions.cpp"), {"inlined"}, &out);
  EXPECT_EQ(out, "caught 10\n");
  expect_transfer_accounted(r, {"catcher_inlined", {"f1_inlined", "f2", "f3"}, "after_catch"},
                            compiler_name() + ".exceptions_inlined");
}

// With the flags docs/modes.md recommends (GCC: hooks off in system headers; Clang: hooks
// after inlining, so the inlined callee has none) the catcher gets the work after the catch.
TEST_P(Exceptions, ThrownOutOfInlinedCalleeWithRecommendedFlags) {
  const bool clang = compiler_name() == "clang";
  std::string out;
  const std::vector<std::string> flags = {clang ? "-finstrument-functions-after-inlining"
                                                : "-finstrument-functions-exclude-file-list=/usr/include"};
  const Report r = record_and_report(build("exceptions.cpp", flags), {"inlined"}, &out);
  EXPECT_EQ(out, "caught 10\n");
  std::vector<std::string> chain = {"f2", "f3"};
  if (!clang) chain.insert(chain.begin(), "f1_inlined");
  expect_transfer_accounted(r, {"catcher_inlined", chain, "after_catch"}, compiler_name() + ".exceptions_recommended");
}

TEST_P(Longjmp, LongjmpOutOfThreeFrames) {
  std::string out;
  const Report r = record_and_report(build("longjmp.c"), {"longjmp"}, &out);
  EXPECT_EQ(out, "jumped 10\n");
  expect_transfer_accounted(r, {"jumper", {"l1", "l2", "l3"}, "after_jump"}, compiler_name() + ".longjmp");
}

TEST_P(Longjmp, SiglongjmpOutOfThreeFrames) {
  std::string out;
  const Report r = record_and_report(build("longjmp.c"), {"siglongjmp"}, &out);
  EXPECT_EQ(out, "jumped 10\n");
  expect_transfer_accounted(r, {"jumper", {"l1", "l2", "l3"}, "after_jump"}, compiler_name() + ".siglongjmp");
}

TEST_P(Longjmp, SiglongjmpFromSignalHandler) {
  std::string out;
  const Report r = record_and_report(build("longjmp.c"), {"signal"}, &out);
  EXPECT_EQ(out, "jumped 10\n");
  expect_transfer_accounted(r, {"jumper", {"l1", "l2", "l3", "on_signal"}, "after_jump"},
                            compiler_name() + ".siglongjmp_from_handler");
}

// The handler runs on a sigaltstack, far from the frames it jumps over.
TEST_P(Longjmp, SiglongjmpFromHandlerOnAlternateStack) {
  std::string out;
  const Report r = record_and_report(build("longjmp.c"), {"altstack"}, &out);
  EXPECT_EQ(out, "jumped 10\n");
  expect_transfer_accounted(r, {"jumper", {"l1", "l2", "l3", "on_signal"}, "after_jump"},
                            compiler_name() + ".siglongjmp_from_altstack");
}

// The first frame jumped over is inlined into jumper: same stack pointer as jumper's.
TEST_P(Longjmp, LongjmpOutOfInlinedCallee) {
  std::string out;
  const Report r = record_and_report(build("longjmp.c"), {"inlined"}, &out);
  EXPECT_EQ(out, "jumped 10\n");
  expect_transfer_accounted(r, {"jumper", {"l1_inlined", "l2", "l3"}, "after_jump"},
                            compiler_name() + ".longjmp_inlined");
}

// SPEC 1.1 "every call is counted", SPEC 6 "call counts exact in every test program":
// a handler that interrupts the program, even inside a hook, is a call like any other.
TEST_P(Signals, HandlerCallsAllCounted) {
  std::string out;
  const Report r = record_and_report(build("signals.c"), {}, &out);
  unsigned long long ticks = 0, tiny = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "ticks %llu tiny %llu", &ticks, &tiny), 2) << out;
  measured(compiler_name() + ".signals.handler_calls_counted_by_program", double(ticks));
  measured(compiler_name() + ".signals.handler_calls_in_profile", double(u64(r.function("on_tick"), "calls")));
  expect_function_calls(r, {{"main", 1}, {"on_tick", ticks}, {"tiny", tiny}});
  expect_report_invariants(r);
}

// A timeout by timer signal and siglongjmp: the signal often lands inside a hook, and the
// jump leaves that hook for good. Recording must go on for the rest of the program.
TEST_P(Signals, SiglongjmpOutOfTimerHandlerKeepsRecording) {
  std::string out;
  const Report r = record_and_report(build("timeout.c"), {}, &out);
  unsigned long long tiny = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "rounds 200 tiny %llu", &tiny), 1) << out;
  expect_function_calls(r, {{"main", 1}, {"one_round", 200}});
  // A timer that fires inside busy_loop's own entry hook jumps out before the call is
  // recorded (docs/modes.md: at most the call being entered is lost per jump); seen once
  // in CI: 199.
  const uint64_t busy = u64(r.function("busy_loop"), "calls");
  EXPECT_LE(busy, 200u);
  EXPECT_GE(busy, 195u);
  const json* f = r.find_function("tiny");
  ASSERT_TRUE(f);
  measured(compiler_name() + ".timeout.tiny_calls_counted_by_program", double(tiny));
  measured(compiler_name() + ".timeout.tiny_calls_in_profile", double(u64(*f, "calls")));
  EXPECT_NEAR(double(u64(*f, "calls")), double(tiny), 200.0) << "calls of tiny, give or take one per round";
  expect_report_invariants(r);
}

// SPEC 6: the program's signals are never changed. The runtime saves the profile on fatal
// signals, yet the program sees SIG_DFL where it set nothing, and a handler chaining to
// the previous one reaches the default, not the runtime (which looped before).
TEST_P(Signals, RuntimeHandlersAreInvisibleToTheProgram) {
  const std::string binary = build("signal_dispositions.c");
  const RunResult plain = run({binary}, dir());
  ASSERT_EQ(plain.exit, exited(0)) << plain.err;
  std::string out;
  const Report r = record_and_report(binary, {}, &out);
  EXPECT_EQ(out, plain.out) << "the program saw other dispositions under callprof";
  EXPECT_NE(out.find("query 11 SIG_DFL"), std::string::npos) << out;
  EXPECT_NE(out.find("usr1 handled 2 chained to default 2"), std::string::npos) << out;
  EXPECT_NE(out.find("usr1 now on_usr1"), std::string::npos) << out;
  expect_function_calls(r, {{"main", 1}, {"on_usr1", 2}});
}

// Issue 14.4: the other ways to look. A strict ISO C program's signal() is __sysv_signal,
// and ssignal, sigset, __sigaction and the raw system call each see the dispositions
// their own way; SIGUSR1's System V handler chaining to the previous one recursed until
// the stack ran out (the program died of SIGSEGV) when the previous one was ours.
TEST_P(Signals, EveryEntryPointSeesTheProgramsOwnDispositions) {
  const std::string binary = build("signal_entry_points.c", {"-std=c11"});
  const RunResult plain = run({binary}, dir());
  ASSERT_EQ(plain.exit, exited(0)) << plain.err;
  ASSERT_NE(plain.out.find("usr1 handled 2 chained to default 2"), std::string::npos) << plain.out;
  std::string out;
  const Report r = record_and_report(binary, {}, &out);
  EXPECT_EQ(out, plain.out) << "the program saw other dispositions under callprof";
  EXPECT_EQ(out.find("foreign"), std::string::npos) << out;
  expect_function_calls(r, {{"main", 1}, {"on_usr1", 2}});
}

}  // namespace
}  // namespace e2e
