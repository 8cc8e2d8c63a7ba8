// JSON of a 65,534-level recursion, read by real consumers: jq (refuses documents deeper than
// 256 levels) and Python's json module (recursion limit 1000). The nested `tree` stops at
// 80 node levels with a "children_cut" marker; the flat layout (`--json-layout flat`) has
// every node with its parent id.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "trace/profile_file.h"

namespace callprof {
namespace {

constexpr size_t kDepth = 65534;

std::string deep_profile() {
  Profile p;
  p.meta.command = "recurse";
  p.meta.mode = RecordingMode::Exact;
  p.functions = {{"main", "main", kNoModule, 0, "", 0}, {"recurse", "recurse", kNoModule, 0, "", 0}};
  Thread t;
  t.tid = t.pid = 1;
  NodeId at = t.tree.child(kRootNode, 0);
  t.tree.base(at)[Metric::Calls] = 1;
  for (size_t d = 1; d < kDepth; ++d) {
    at = t.tree.child(at, 1);
    t.tree.base(at)[Metric::Calls] = 1;
    t.tree.base(at)[Metric::WallNs] = 10;
  }
  p.threads.push_back(std::move(t));
  const std::string path = testing::TempDir() + "/deep.callprof";
  EXPECT_TRUE(write_profile(p, path).ok());
  return path;
}

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " >/dev/null").c_str()) == 0; }

std::string report(const std::string& profile, const std::string& layout) {
  const std::string out = testing::TempDir() + "/deep_" + layout + ".json";
  const std::string cmd =
      std::string(CALLPROF_BIN) + " report --no-pager --json --json-layout " + layout + " -i " + profile + " > " + out;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  EXPECT_EQ(status, 0) << cmd << ": " << out;
  return out;
}

TEST(DeepJson, JqAndPythonReadBothLayouts) {
  if (!have("jq") || !have("python3")) GTEST_SKIP() << "needs jq and python3";
  const std::string profile = deep_profile();
  const std::string nested = report(profile, "nested"), flat = report(profile, "flat");
  // Nested: 80 levels, the last one marked with the nodes it leaves out.
  EXPECT_EQ(run("jq '[.tree[0] | recurse(.children[]) ] | length' " + nested), "80\n");
  EXPECT_EQ(run("jq '[.tree[0] | recurse(.children[]) | select(.children_cut) | .children_cut] | .[0]' " + nested),
            std::to_string(kDepth - 80) + "\n");
  // Flat: every node, each with its parent.
  EXPECT_EQ(run("jq '.nodes | length' " + flat), std::to_string(kDepth) + "\n");
  EXPECT_EQ(run("jq '.nodes[-1].parent' " + flat), std::to_string(kDepth - 2) + "\n");
  const std::string py = "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d[sys.argv[2]]))' ";
  EXPECT_EQ(run(py + nested + " tree"), "1\n");
  EXPECT_EQ(run(py + flat + " nodes"), std::to_string(kDepth) + "\n");
}

}  // namespace
}  // namespace callprof
