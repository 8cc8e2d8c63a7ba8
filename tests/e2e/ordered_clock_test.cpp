// record --ordered-clock: the return's clock read waits for the function's own work.
// programs/memory_stalls.c: caller() -> load(), and load's time is four cache misses whose
// values it returns. With the ordered clock, that wait is load's self time, not its
// caller's; the recording says it used the ordered clock (JSON and header).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "e2e_support.h"

namespace e2e {
namespace {

class OrderedClock : public E2ETest {};
E2E_INSTANTIATE(OrderedClock);

constexpr uint64_t kCalls = 400000;

TEST_P(OrderedClock, MemoryStallsStayWithTheFunctionThatWaited) {
  const std::string binary = build("memory_stalls.c");
  const Report r = record_with({"--ordered-clock", "--no-auto-fold"}, binary, {std::to_string(kCalls)});
  EXPECT_TRUE(r.doc().at("metadata").at("exact").at("ordered_clock").get<bool>());
  const json& load = r.function("load");
  const json& caller = r.function("caller");
  EXPECT_EQ(u64(load, "calls"), kCalls);
  EXPECT_EQ(u64(caller, "calls"), kCalls);
  const double load_ns = double(u64(load, "self_ns")) / kCalls, caller_ns = double(u64(caller, "self_ns")) / kCalls;
  measured("load_self_ns_per_call", load_ns);
  measured("caller_self_ns_per_call", caller_ns);
  // Four misses of a 512 MiB array: tens of ns at least; caller() only passes a value on.
  EXPECT_GT(load_ns, 3 * caller_ns) << "load " << load_ns << " ns, caller " << caller_ns << " ns per call";
  EXPECT_GT(load_ns, 20.0);

  const RunResult text = run({E2E_CALLPROF, "report", "-i", "profile.callprof", "--no-pager"}, dir());
  EXPECT_NE(text.out.find("# clock:    returns timed once the function's work completed"), std::string::npos)
      << text.out;
}

TEST_P(OrderedClock, IsAnExactModeOption) {
  const RunResult r = run({E2E_CALLPROF, "record", "--mode", "sample", "--ordered-clock", "--", "/bin/true"}, dir());
  EXPECT_EQ(r.exit, exited(2));
  EXPECT_NE(r.err.find("--ordered-clock"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace e2e
