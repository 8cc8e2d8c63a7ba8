// Functions folded at run time (graph/folded.h): when their hook calls went, and whether
// their calls since were counted (counting stubs) in every process that removed them.
#include "graph/folded.h"

#include <gtest/gtest.h>

namespace callprof {
namespace {

// `counting`: the runtime counted the calls after the rewrite (0: a file from before
// counting stubs, or --uncounted-folds); `uncounted`: sites made nops all the same.
Process removing(FunctionId f, int64_t at_ns, uint32_t counting, uint32_t uncounted) {
  Process p;
  p.rewritten_sites = counting + uncounted + 1;
  p.counting_sites = counting;
  p.uncounted_sites = uncounted;
  p.counts_unhooked_calls = counting > 0;
  p.removed_hooks = {{f, at_ns}};
  return p;
}

TEST(FoldedFunctions, CountedAfterRemovalOnlyWhereEveryProcessCountedThem) {
  std::vector<FoldedFunction> folded = {{0, 10, 9, {}, false}, {1, 10, 9, {}, false}, {2, 10, 9, {}, false}};
  const std::vector<Process> processes = {
      removing(0, 500, 2, 0),  // counted by stubs
      removing(0, 300, 4, 0),  // ... in a second process too, earlier
      removing(1, 400, 2, 1),  // a site with no stub: not all counted
      removing(2, 200, 0, 0),  // a file from before counting stubs
  };
  add_hook_removals(folded, processes);
  EXPECT_EQ(folded[0].hooks_removed_at_ns, 300);
  EXPECT_TRUE(folded[0].counted_after_removal);
  EXPECT_EQ(folded[1].hooks_removed_at_ns, 400);
  EXPECT_FALSE(folded[1].counted_after_removal);
  EXPECT_EQ(folded[2].hooks_removed_at_ns, 200);
  EXPECT_FALSE(folded[2].counted_after_removal);
}

// record --fold-counts called (the default): the real calls counted, the entries of the
// inlined copies nops. Said of a function whose inlined copy lost its count in any process
// that counted it.
TEST(FoldedFunctions, RealCallsOnlyWhereAnInlinedCopyWentUncounted) {
  std::vector<FoldedFunction> folded = {{0, 10, 9, {}, false}, {1, 10, 9, {}, false}, {2, 10, 9, {}, false}};
  Process copies = removing(0, 500, 2, 0);
  copies.removed_hooks[0].inlined_copies_uncounted = true;
  const Process all = removing(0, 300, 2, 0);  // every entry a stub (--fold-counts all, or no copy)
  Process none = removing(1, 400, 0, 0);
  none.removed_hooks[0].inlined_copies_uncounted = true;
  add_hook_removals(folded, {copies, all, none, removing(2, 200, 2, 0)});
  EXPECT_TRUE(folded[0].counted_after_removal);
  EXPECT_TRUE(folded[0].inlined_copies_uncounted);
  EXPECT_FALSE(folded[1].counted_after_removal);
  EXPECT_FALSE(folded[1].inlined_copies_uncounted) << "none counted says more";
  EXPECT_TRUE(folded[2].counted_after_removal);
  EXPECT_FALSE(folded[2].inlined_copies_uncounted);
}

TEST(FoldedFunctions, ASystemThatRefusedRemovedNothing) {
  std::vector<FoldedFunction> folded = {{0, 10, 9, {}, false}};
  Process p = removing(0, 500, 2, 0);
  p.rewrite_refused_errno = 1;
  add_hook_removals(folded, {p});
  EXPECT_FALSE(folded[0].hooks_removed_at_ns.has_value());
  EXPECT_FALSE(folded[0].counted_after_removal);
}

}  // namespace
}  // namespace callprof
