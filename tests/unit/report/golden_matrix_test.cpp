// Golden text outputs of every view for three kinds of profile (exact C++ with STL names,
// sampled, system calls), and of the C++ profile in each name style. Regenerate after an
// intended change, then review the diff of tests/golden/report/:
//   CALLPROF_UPDATE_GOLDEN=1 build/tests/unit/report/report_test --gtest_filter='GoldenMatrix*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fixtures.h"
#include "golden.h"
#include "report/report.h"

namespace callprof {
namespace {

using testing::check_golden;

struct Case {
  std::string kind;  // exact_cpp | sampled | syscalls
  std::string view;  // a view name, optionally "callers-of:REGEX" / "callees-of:REGEX"
  NameStyle names = NameStyle::Short;
};

Profile profile_of(const std::string& kind) {
  if (kind == "sampled") return testing::sampled_profile();
  if (kind == "syscalls") return testing::syscall_profile();
  return testing::cpp_profile();
}

std::string file_name(const Case& c) {
  std::string view = c.view.substr(0, c.view.find(':'));
  return c.kind + "_" + view + "_" + std::string(name_style_name(c.names)) + ".txt";
}

std::string render(const Case& c) {
  ReportOptions o;
  const size_t colon = c.view.find(':');
  o.view = *parse_view(c.view.substr(0, colon));
  if (colon != std::string::npos) o.function = c.view.substr(colon + 1);
  o.query.names = c.names;
  std::ostringstream out;
  Status s = render_report(profile_of(c.kind), o, out);
  return s.ok() ? out.str() : "error: " + s.error().message + "\n";
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const char* views[] = {"flat", "callers", "tree", "summary", "modules", "threads"};
  for (const char* kind : {"exact_cpp", "sampled", "syscalls"})
    for (const char* v : views) out.push_back({kind, v});
  out.push_back({"syscalls", "syscalls"});
  out.push_back({"sampled", "callers-of:memchr"});
  out.push_back({"sampled", "callees-of:compute"});
  for (NameStyle names : {NameStyle::Short, NameStyle::Templates, NameStyle::Full}) {
    for (const char* v : {"flat", "callers", "tree"}) out.push_back({"exact_cpp", v, names});
    out.push_back({"exact_cpp", "callers-of:operator\\[\\]", names});
    out.push_back({"exact_cpp", "callees-of:sort", names});
  }
  // One file per (kind, view, names); the loops above repeat the short-name views.
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return file_name(a) < file_name(b); });
  out.erase(
      std::unique(out.begin(), out.end(), [](const Case& a, const Case& b) { return file_name(a) == file_name(b); }),
      out.end());
  return out;
}

TEST(GoldenMatrix, EveryViewKindAndNameStyle) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(file_name(c));
    check_golden("matrix/" + file_name(c), render(c));
  }
}

}  // namespace
}  // namespace callprof
