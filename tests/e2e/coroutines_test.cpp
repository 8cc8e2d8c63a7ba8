// End-to-end: coroutines (makecontext/swapcontext/setcontext) keep the shadow stack right.
// Each context's calls sit below its entry function, the creator's frames stay open while
// the coroutines run, and the coroutines' time is not the creator's (issue 14.6).
#include "e2e_support.h"

namespace e2e {
namespace {

class Coroutines : public E2ETest {};
E2E_INSTANTIATE(Coroutines);

constexpr uint64_t kRounds = 1000;  // programs/coroutines.c

void expect_coroutines_followed(const Report& r, const std::string& key) {
  expect_path_calls(r, {{{"main"}, 1},
                        {{"main", "drive"}, 1},
                        {{"main", "drive", "drive_step"}, 2 * kRounds},
                        {{"main", "drive", "after_coroutines"}, 1},
                        {{"ping_body"}, 1},
                        {{"ping_body", "ping_work"}, kRounds},
                        {{"ping_body", "ping_work", "leaf"}, kRounds},
                        {{"ping_body", "yield_ping"}, kRounds},
                        {{"pong_body"}, 1},
                        {{"pong_body", "pong_work"}, kRounds},
                        {{"pong_body", "pong_work", "leaf"}, kRounds},
                        {{"pong_body", "yield_pong"}, kRounds},
                        {{"pong_body", "finish_pong"}, 1}});
  // Nothing anywhere else: every function on exactly the paths above.
  expect_function_calls(r, {{"main", 1},
                            {"drive", 1},
                            {"drive_step", 2 * kRounds},
                            {"after_coroutines", 1},
                            {"ping_body", 1},
                            {"pong_body", 1},
                            {"ping_work", kRounds},
                            {"pong_work", kRounds},
                            {"leaf", 2 * kRounds},
                            {"yield_ping", kRounds},
                            {"yield_pong", kRounds},
                            {"finish_pong", 1}});
  for (const char* f : {"drive", "ping_body", "ping_work", "yield_ping", "drive_step"})
    EXPECT_EQ(r.paths_to(f).size(), 1u) << f << " is on more than one path";
  ASSERT_EQ(r.threads().size(), 1u);
  EXPECT_EQ(u64(r.threads()[0], "dropped_calls"), 0u);
  // The coroutines' 2 x 20 ms of work is theirs: not in drive's (or main's) self time,
  // and drive's total (cum) holds only its own calls.
  const uint64_t work = u64(r.function("ping_work"), "total_ns") + u64(r.function("pong_work"), "total_ns");
  const uint64_t drive_total = u64(r.function("drive"), "total_ns");
  const uint64_t main_self = u64(r.function("main"), "self_ns");
  measured(key + ".coroutine_work_ms", ms(work), "ms");
  measured(key + ".drive_total_ms", ms(drive_total), "ms");
  EXPECT_GE(work, 40'000'000u) << "2 x 20 x 1 ms of work in the coroutines";
  EXPECT_LE(drive_total * 2, work) << "drive's total must not hold the coroutines' time";
  EXPECT_LE(main_self * 4, work) << "main's self time must not hold the coroutines' time";
  expect_report_invariants(r);
}

// The coroutines' stacks lie inside drive's frame: a frame-address check alone took the
// coroutine's first call for a return out of drive and main.
TEST_P(Coroutines, StackInsideTheCreatorsFrame) {
  std::string out;
  const Report r = record_and_report(build("coroutines.c"), {"local"}, &out);
  EXPECT_EQ(out, "rounds 1000\n");
  expect_coroutines_followed(r, compiler_name() + ".coroutines_local");
}

TEST_P(Coroutines, StackOnTheHeap) {
  std::string out;
  const Report r = record_and_report(build("coroutines.c"), {"heap"}, &out);
  EXPECT_EQ(out, "rounds 1000\n");
  expect_coroutines_followed(r, compiler_name() + ".coroutines_heap");
}

// With --libcalls the switches stay unwrapped (they never return in the usual sense) and
// the coroutines are followed all the same.
TEST_P(Coroutines, WithLibraryCalls) {
  const std::string binary = build("coroutines.c");
  const Report r = record_with({"--libcalls"}, binary, {"local"});
  expect_path_calls(r, {{{"main", "drive", "drive_step"}, 2 * kRounds},
                        {{"ping_body", "ping_work", "leaf"}, kRounds},
                        {{"pong_body", "yield_pong"}, kRounds}});
  expect_report_invariants(r);
}

}  // namespace
}  // namespace e2e
