// The annotate view (report/annotate.h) on the counter-example profile with source lines:
// D's samples on lines 15 and 20 of its source, its callers' calls of it on their lines;
// golden text and JSON, the source found under a --source-path directory by its last
// components, the source's own escape sequence made inert. Regenerate after an intended change (then review the diff):
//   CALLPROF_UPDATE_GOLDEN=1 build/tests/unit/report/report_test --gtest_filter='Annotate*'
#include "report/annotate.h"

#include <gtest/gtest.h>

#include <sstream>

#include "fixtures.h"
#include "golden.h"

namespace callprof {
namespace {

FunctionId id_of(const Profile& p, const char* name) {
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == name) return f;
  return kNoFunction;
}

// D (recorded at "/build/app/src/d.c", first line 12) with samples on lines 15 and 20 under
// both of its callers, which call it from b.c:7 and c.c:9.
Profile located_profile() {
  Profile p = testing::counter_example_profile();
  const FunctionId d = id_of(p, "D"), b = id_of(p, "B"), c = id_of(p, "C"), a = id_of(p, "A");
  p.functions[d].file = "/build/app/src/d.c";
  LocationTable locations(p);
  CallTree& t = p.threads[0].tree;
  const NodeId main = t.find_child(kRootNode, id_of(p, "main")), na = t.find_child(main, a);
  const NodeId under_b = t.find_child(t.find_child(na, b), d), under_c = t.find_child(t.find_child(na, c), d);
  t.base(under_b)[Metric::Samples] = 70;
  t.base(under_c)[Metric::Samples] = 30;
  const LocationId l15 = locations.add(d, 0x215, "/build/app/src/d.c", 15);
  const LocationId l20 = locations.add(d, 0x220, "/build/app/src/d.c", 20);
  p.threads[0].code.instructions = {{under_b, l15, 60, 0}, {under_b, l20, 10, 0}, {under_c, l15, 30, 0}};
  // B's call of D from b.c:7, C's from c.c:9.
  p.threads[0].code.call_sites = {{under_b, locations.add(b, 0x107, "/build/app/src/b.c", 7)},
                                  {under_c, locations.add(c, 0x109, "/build/app/src/c.c", 9)}};
  return p;
}

std::string annotate(const std::string& function, bool json) {
  auto analysis = Analysis::run(located_profile(), QueryOptions{});
  EXPECT_TRUE(analysis.ok());
  SourceText sources({std::string(CALLPROF_GOLDEN_DIR) + "/annotate_source"});
  AnnotateOptions o;
  o.function = function;
  o.json = json;
  std::ostringstream out;
  const Status s = render_annotate(*analysis, sources, o, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  // The source is found under this checkout: its path is the machine's.
  std::string text = out.str();
  const std::string dir = CALLPROF_GOLDEN_DIR;
  for (size_t at; (at = text.find(dir)) != std::string::npos;) text.replace(at, dir.size(), "<golden>");
  return text;
}

TEST(Annotate, GoldenText) {
  const std::string text = annotate("^D$", false);
  testing::check_golden("annotate_D.txt", text);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "the source's escape sequence is shown escaped";
  EXPECT_NE(text.find("\\x1b[2J"), std::string::npos);
}

TEST(Annotate, GoldenJson) { testing::check_golden("annotate_D.json", annotate("^D$", true)); }

TEST(Annotate, CallsOnTheCallersLines) {
  const std::string text = annotate("^B$", false);
  EXPECT_NE(text.find("-> D (40 calls"), std::string::npos) << text;
  EXPECT_NE(text.find("b.c  (source not found"), std::string::npos) << text;
}

TEST(Annotate, NoMatchAndNothingLocatedAreOneLineErrors) {
  auto analysis = Analysis::run(located_profile(), QueryOptions{});
  ASSERT_TRUE(analysis.ok());
  SourceText sources;
  std::ostringstream out;
  AnnotateOptions o;
  o.function = "^nothing$";
  const Status none = render_annotate(*analysis, sources, o, out);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no function matches '^nothing$'");
  o.function = "^spawn$";
  const Status unlocated = render_annotate(*analysis, sources, o, out);
  ASSERT_FALSE(unlocated.ok());
  EXPECT_NE(unlocated.error().message.find("nothing located in '^spawn$'"), std::string::npos);
}

}  // namespace
}  // namespace callprof
