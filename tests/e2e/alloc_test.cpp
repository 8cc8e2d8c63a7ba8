// End-to-end: allocation metrics (`record --alloc`, libcallprof-alloc.so): exact counts and
// bytes per function, each `new` counted once, and a program that behaves identically
// under the interposer (threads, allocations before main, bad_alloc), with GCC and Clang.
#include <cstdio>
#include <sstream>

#include "e2e_support.h"

namespace e2e {
namespace {

class Alloc : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    require_cxx();
  }

  RunResult record_alloc(const std::string& binary) {
    return run({E2E_CALLPROF, "record", "--alloc", "-q", "-o", "profile.callprof", "--", binary}, dir());
  }
};
E2E_INSTANTIATE(Alloc);

struct AllocsOf {
  std::string function;
  uint64_t alloc_calls, alloc_bytes, free_calls;
};

void expect_allocs(const Report& r, const std::vector<AllocsOf>& expected) {
  for (const AllocsOf& e : expected) {
    const json* f = r.find_function(e.function);
    if (!f) {
      ADD_FAILURE() << "function " << e.function << " is not in the report";
      continue;
    }
    EXPECT_EQ(u64(*f, "alloc_calls"), e.alloc_calls) << "alloc_calls of " << e.function;
    EXPECT_EQ(u64(*f, "alloc_bytes"), e.alloc_bytes) << "alloc_bytes of " << e.function;
    EXPECT_EQ(u64(*f, "free_calls"), e.free_calls) << "free_calls of " << e.function;
  }
}

// The output without the lines that start with "truth" (they depend on where realloc
// found room, which the runtime's own allocations change).
std::string without_truth(const std::string& out) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line))
    if (line.rfind("truth", 0) != 0) kept += line + "\n";
  return kept;
}

TEST_P(Alloc, ExactCountsAndBytesPerFunction) {
  const std::string binary = build("alloc.cpp");
  const RunResult rec = record_alloc(binary);
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  EXPECT_EQ(rec.err, "");
  unsigned moves = 0;
  int nonzero = -1;
  ASSERT_EQ(std::sscanf(rec.out.c_str(), "truth realloc_moves=%u calloc_nonzero=%d", &moves, &nonzero), 2) << rec.out;
  EXPECT_EQ(nonzero, 0) << "calloc returned memory that is not zero";
  const Report r = report();
  expect_allocs(r, {{"with_malloc", 1000, 100000, 1000},
                    {"with_new_array", 500, 50000, 500},
                    {"with_new_object", 300, 14400, 300},
                    {"with_aligned_new", 200, 25600, 200},
                    {"with_nothrow_new", 100, 5000, 100},
                    {"with_calloc", 250, 8000, 250},
                    {"with_realloc", 101, 50530, moves + 1},
                    {"with_aligned_c", 40, 13560, 40},
                    {"with_strdup", 7, 49, 7},
                    {"with_null_frees", 0, 0, 0}});
  // main's total covers its callees (printf's buffer is main's own).
  const json& main_row = r.function("main");
  EXPECT_GE(u64(main_row, "total_alloc_calls"), 2498u + u64(main_row, "alloc_calls"));
  expect_report_invariants(r);
}

TEST_P(Alloc, WithoutTheFlagNothingIsCounted) {
  const Report r = record_and_report(build("alloc.cpp"));
  const json& f = r.function("with_malloc");
  EXPECT_EQ(f.value("alloc_calls", uint64_t(0)), 0u);
  EXPECT_EQ(f.value("free_calls", uint64_t(0)), 0u);
}

TEST_P(Alloc, ProgramBehavesIdenticallyUnderTheInterposer) {
  const std::string binary = build("alloc_stress.cpp");
  const RunResult plain = run({binary}, dir());
  ASSERT_EQ(plain.exit, exited(3)) << plain.err;
  const RunResult rec = record_alloc(binary);
  EXPECT_EQ(rec.exit, plain.exit) << rec.err;
  EXPECT_EQ(rec.err, "");
  EXPECT_EQ(without_truth(rec.out), without_truth(plain.out));
  EXPECT_NE(plain.out.find("bad_alloc after 3 new_handler calls"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("before main: 100 words, sum 1225"), std::string::npos) << plain.out;

  unsigned long allocs = 0, bytes = 0, frees = 0;
  const size_t at = rec.out.find("truth ");
  ASSERT_NE(at, std::string::npos) << rec.out;
  ASSERT_EQ(std::sscanf(rec.out.c_str() + at, "truth worker_allocs=%lu worker_bytes=%lu worker_frees=%lu", &allocs,
                        &bytes, &frees),
            3);
  EXPECT_EQ(allocs, 80000u);
  const Report r = report();
  ASSERT_EQ(r.threads().size(), 5u);
  expect_allocs(r, {{"worker", allocs, bytes, frees}, {"before_main", 50, 1275, 50}});
}

}  // namespace
}  // namespace e2e
