// Golden text outputs of every view for the counter-example profile.
// Regenerate after an intended change, then review the diff of tests/golden/report/:
//   CALLPROF_UPDATE_GOLDEN=1 build/tests/unit/report/report_test --gtest_filter='Golden*'
#include "golden.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fixtures.h"
#include "report/report.h"

namespace callprof {
namespace {

using testing::check_golden;

std::string render(const ReportOptions& o, const Profile& p = testing::counter_example_profile()) {
  std::ostringstream out;
  Status s = render_report(p, o, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return out.str();
}

ReportOptions view(const char* name) {
  ReportOptions o;
  o.view = *parse_view(name);
  return o;
}

TEST(Golden, Flat) { check_golden("flat.txt", render(view("flat"))); }
TEST(Golden, Callers) { check_golden("callers.txt", render(view("callers"))); }
TEST(Golden, Tree) { check_golden("tree.txt", render(view("tree"))); }
TEST(Golden, Threads) { check_golden("threads.txt", render(view("threads"))); }
TEST(Golden, Summary) { check_golden("summary.txt", render(view("summary"))); }
TEST(Golden, Json) {
  ReportOptions o;
  o.json = true;
  check_golden("report.json", render(o));
}

// Exact mode in depth: compensated times, CPU/off-CPU, allocation and fault columns, the
// process tree with an exec image and a killed child, a program-wide grafted tree.
TEST(Golden, ExactFlat) { check_golden("exact_flat.txt", render(view("flat"), testing::exact_profile())); }
TEST(Golden, ExactThreads) { check_golden("exact_threads.txt", render(view("threads"), testing::exact_profile())); }
TEST(Golden, ExactGraftedTree) {
  ReportOptions o = view("tree");
  o.query.merge = ThreadMerge::Graft;
  check_golden("exact_tree_graft.txt", render(o, testing::exact_profile()));
}
TEST(Golden, ExactFunctionByThread) {
  ReportOptions o = view("threads");
  o.function = "^(main|D|E)$";
  check_golden("exact_function_threads.txt", render(o, testing::exact_profile()));
}

}  // namespace
}  // namespace callprof
