// The JSON document: every section and key of docs/json.md, values for the
// counter-example, selection by thread and filter, and hostile names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"
#include "report/json_stream.h"
#include "report/report.h"

namespace callprof {
namespace {

using json = nlohmann::json;
// Keeps the document's key order; only for shallow documents, since ordered_json deep-copies
// nested values while parsing (it would overflow the stack on the deep-tree test).
using ordered = nlohmann::ordered_json;

std::string report_text(const Profile& p, std::optional<uint32_t> thread = {}, std::string filter = "",
                        JsonLayout layout = JsonLayout::Nested) {
  ReportOptions o;
  o.json = true;
  o.json_layout = layout;
  o.query.tid = thread;
  o.filter = std::move(filter);
  std::ostringstream out;
  Status s = render_report(p, o, out);
  EXPECT_TRUE(s.ok());
  return out.str();
}

json report_json(const Profile& p, std::optional<uint32_t> thread = {}, std::string filter = "") {
  return json::parse(report_text(p, thread, std::move(filter)));
}

const json& by(const json& array, const char* key, const json& value) {
  for (const json& item : array)
    if (item.at(key) == value) return item;
  throw std::runtime_error("not found: " + value.dump());
}

const json& edge(const json& doc, const json& caller, const char* callee) {
  for (const json& e : doc.at("edges"))
    if (e.at("caller") == caller && e.at("callee") == callee) return e;
  throw std::runtime_error("no edge");
}

std::vector<std::string> keys(const ordered& j) {
  std::vector<std::string> k;
  for (auto& [key, v] : j.items()) k.push_back(key);
  return k;
}

using V = std::vector<std::string>;

TEST(Json, TopLevelSectionsAndKeys) {
  const ordered d = ordered::parse(report_text(testing::counter_example_profile()));
  EXPECT_EQ(keys(d), (V{"schema_version", "compensated", "compensation", "auto_fold", "selection", "metadata",
                        "summary", "functions", "edges", "tree", "threads", "processes", "modules", "syscalls",
                        "by_process", "by_thread"}));
  EXPECT_EQ(d["schema_version"], 3);
  EXPECT_EQ(d["compensated"], false);  // the fixture has no measured hook costs
  EXPECT_EQ(keys(d["selection"]), (V{"thread", "pid", "filter", "focus", "hide", "raw", "threads", "names"}));
  EXPECT_EQ(keys(d["metadata"]),
            (V{"command", "mode", "hostname", "clock", "start_realtime_ns", "duration_ns", "callprof_version",
               "snapshot", "exact", "sampling", "syscalls", "probes", "extra", "warnings"}));
  EXPECT_EQ(keys(d["functions"][0]), (V{"id", "name", "short_name", "kind", "module", "file", "line", "calls",
                                        "recursive_calls", "indirect_calls", "self_ns", "total_ns", "min_self_ns",
                                        "max_self_ns", "cpu_ns", "offcpu_ns", "total_cpu_ns", "total_offcpu_ns"}));
  EXPECT_EQ(keys(d["edges"][0]), (V{"caller", "callee", "caller_id", "callee_id", "calls", "recursive_calls", "self_ns",
                                    "total_ns", "cpu_ns", "offcpu_ns", "total_cpu_ns", "total_offcpu_ns"}));
  EXPECT_EQ(keys(d["tree"][0]),
            (V{"name", "function_id", "calls", "self_ns", "total_ns", "min_self_ns", "max_self_ns", "cpu_ns",
               "offcpu_ns", "total_cpu_ns", "total_offcpu_ns", "recursion_level", "children"}));
  EXPECT_EQ(keys(d["threads"][0]), (V{"tid",
                                      "pid",
                                      "host",
                                      "name",
                                      "creator_tid",
                                      "creator_path",
                                      "start_routine",
                                      "start_ns",
                                      "end_ns",
                                      "finished",
                                      "dropped_calls",
                                      "depth_limited_calls",
                                      "short_calls",
                                      "lost_events",
                                      "prunes",
                                      "folded_functions",
                                      "timeline_events",
                                      "timeline_dropped",
                                      "offcpu",
                                      "calls",
                                      "total_ns",
                                      "cpu_ns",
                                      "offcpu_ns",
                                      "preempted_ns"}));
  EXPECT_EQ(keys(d["processes"][0]), (V{"pid",
                                        "host",
                                        "ppid",
                                        "image",
                                        "command",
                                        "start_ns",
                                        "end_ns",
                                        "death_signal",
                                        "complete",
                                        "hook_inner_ns",
                                        "hook_outer_ns",
                                        "excluded_hook_ns",
                                        "hook_caller_ns",
                                        "hook_recursive_ns",
                                        "folded_hook_ns",
                                        "hook_compiler",
                                        "auto_fold_ns",
                                        "hook_removal",
                                        "rewritten_sites",
                                        "rewrite_refused_errno",
                                        "counting_sites",
                                        "uncounted_sites",
                                        "counts_unhooked_calls",
                                        "removed_hooks"}));
  EXPECT_EQ(keys(d["modules"][0]), (V{"id", "path", "build_id", "calls", "self_ns", "functions"}));
  EXPECT_TRUE(d["syscalls"].is_array() && d["syscalls"].empty());
}

// Schema 3: offcpu_ns is blocked time only, and the wait for a CPU is preempted_ns wherever
// offcpu_ns is (threads, the breakdowns, the columns layout), so that cpu + offcpu +
// preempted = self in every section, as it is in the model.
TEST(Json, TheWaitForACpuIsNextToOffCpuInEverySection) {
  const Profile p = testing::folded(
      "main 100 cpu=100\n"
      "main;work 1000 cpu=500 off=300 preempted=200\n"
      "main;crowded 400 cpu=100 preempted=300\n");
  const json d = report_json(p);
  const json& t = d["threads"][0];
  EXPECT_EQ(t["cpu_ns"], 700);
  EXPECT_EQ(t["offcpu_ns"], 300);
  EXPECT_EQ(t["preempted_ns"], 500);
  EXPECT_EQ(t["total_ns"], 1500);
  for (const char* section : {"by_thread", "by_process"})
    for (const json& row : d[section][0]["functions"]) {
      ASSERT_TRUE(row.contains("preempted_ns")) << section << " " << row.dump();
      EXPECT_EQ(row["cpu_ns"].get<uint64_t>() + row["offcpu_ns"].get<uint64_t>() + row["preempted_ns"].get<uint64_t>(),
                row["self_ns"].get<uint64_t>())
          << section << " " << row.dump();
    }
  const json& crowded = by(d["functions"], "name", "crowded");
  EXPECT_EQ(crowded["offcpu_ns"], 0);
  EXPECT_EQ(crowded["preempted_ns"], 300);
  const json columns = json::parse(report_text(p, {}, "", JsonLayout::Columns));
  const json &n = columns["nodes"], &e = columns["edges"];
  ASSERT_TRUE(n["preempted_ns"].is_array());
  for (size_t i = 0; i < n["count"].get<size_t>(); ++i)
    EXPECT_EQ(n["cpu_ns"][i].get<uint64_t>() + n["offcpu_ns"][i].get<uint64_t>() + n["preempted_ns"][i].get<uint64_t>(),
              n["self_ns"][i].get<uint64_t>())
        << "node " << i;
  ASSERT_TRUE(e["preempted_ns"].is_array());
  for (size_t i = 0; i < e["count"].get<size_t>(); ++i)
    EXPECT_EQ(e["cpu_ns"][i].get<uint64_t>() + e["offcpu_ns"][i].get<uint64_t>() + e["preempted_ns"][i].get<uint64_t>(),
              e["self_ns"][i].get<uint64_t>())
        << "edge " << i;
  // Not measured: null, like cpu_ns.
  const json plain = report_json(testing::sampled_profile());
  EXPECT_TRUE(plain["threads"][0]["preempted_ns"].is_null());
}

TEST(Json, CounterExampleValues) {
  const json d = report_json(testing::counter_example_profile());
  const json& D = by(d["functions"], "name", "D");
  EXPECT_EQ(D["calls"], 80);
  EXPECT_EQ(D["self_ns"], 160000000);
  EXPECT_EQ(D["total_ns"], 160000000);
  EXPECT_EQ(D["min_self_ns"], 900000);
  EXPECT_EQ(D["max_self_ns"], 3100000);
  EXPECT_EQ(D["cpu_ns"], 140000000);
  EXPECT_EQ(D["offcpu_ns"], 20000000);
  EXPECT_EQ(D["module"], "/usr/lib/libd.so.1");
  EXPECT_EQ(D["file"], "d.c");
  EXPECT_EQ(D["line"], 12);
  EXPECT_EQ(edge(d, "B", "D")["total_ns"], 120000000);
  EXPECT_EQ(edge(d, "C", "D")["total_ns"], 40000000);
  EXPECT_EQ(by(d["functions"], "name", "B")["total_ns"], 121000000);
  EXPECT_EQ(edge(d, nullptr, "main")["caller_id"], nullptr);
  EXPECT_EQ(d["summary"]["total_ns"], 167050000);
  const json& main = d["tree"][0];
  EXPECT_EQ(main["name"], "main");
  EXPECT_EQ(main["children"][0]["children"][0]["children"][0]["name"], "D");
  EXPECT_EQ(main["children"][0]["children"][0]["children"][0]["total_ns"], 120000000);
  const json& w = by(d["threads"], "tid", 101);
  EXPECT_EQ(w["creator_tid"], 100);
  EXPECT_EQ(w["creator_path"], json::array({"main", "spawn"}));
  EXPECT_EQ(w["start_routine"], "worker");
  EXPECT_EQ(w["finished"], false);
  EXPECT_EQ(w["dropped_calls"], 3);
  EXPECT_EQ(w["calls"], 6);
  EXPECT_EQ(by(d["threads"], "tid", 100)["creator_tid"], nullptr);
  EXPECT_EQ(d["processes"][0]["ppid"], nullptr);
  EXPECT_EQ(d["metadata"]["extra"]["compensation"], "on");
  EXPECT_EQ(d["selection"]["thread"], nullptr);
}

TEST(Json, ThreadAndFilterSelectFunctionsEdgesAndTree) {
  const Profile p = testing::counter_example_profile();
  const json t = report_json(p, 101);
  EXPECT_EQ(t["functions"].size(), 2u);
  EXPECT_EQ(t["tree"].size(), 1u);
  EXPECT_EQ(t["tree"][0]["name"], "worker");
  EXPECT_EQ(t["threads"].size(), 2u);  // threads are always all listed
  EXPECT_EQ(t["selection"]["thread"], 101);
  const json f = report_json(p, {}, "^C$");
  EXPECT_EQ(f["functions"].size(), 1u);
  EXPECT_EQ(f["edges"].size(), 2u);  // A > C and C > D
  const json& a = f["tree"][0]["children"][0];
  ASSERT_EQ(a["children"].size(), 1u);
  EXPECT_EQ(a["children"][0]["name"], "C");
  EXPECT_EQ(a["children"][0]["children"][0]["name"], "D");
}

TEST(Json, RecursionSamplesAndUnsetMinMax) {
  Profile p = testing::folded("main;f;f 0 samples=2\nmain;f 0 samples=1\n");
  for (NodeId i = 1; i < p.threads[0].tree.size(); ++i) {  // sampled: no single call timed
    p.threads[0].tree.base(i)[Metric::MinWallNs] = Metrics::kUnset;
    p.threads[0].tree.base(i)[Metric::MaxWallNs] = 0;
  }
  const json d = report_json(p);
  const json& f = by(d["functions"], "name", "f");
  EXPECT_EQ(f["samples"], 3);
  EXPECT_EQ(f["total_samples"], 3);
  EXPECT_EQ(f["recursive_calls"], 1);
  EXPECT_EQ(f["min_self_ns"], nullptr);
  EXPECT_EQ(f["max_self_ns"], nullptr);
  const json& inner = d["tree"][0]["children"][0]["children"][0];
  EXPECT_EQ(inner["recursion_level"], 1);
  EXPECT_EQ(inner["samples"], 2);
  EXPECT_TRUE(d["summary"]["sampled"]);
  EXPECT_EQ(d["summary"]["deepest_recursion"]["function"], "f");
}

// Inlined frames: a boolean per node once any node is one (absent otherwise, as in every
// exact profile), in all three layouts; the function is one function.
TEST(Json, InlinedNodesAndTruncatedStacks) {
  const json d = report_json(testing::inlined_profile());
  const json& main = by(d["tree"], "name", "main");
  EXPECT_EQ(main["inlined"], false);
  const json& compute = by(main["children"], "name", "compute");
  EXPECT_EQ(by(compute["children"], "name", "squares")["inlined"], true);
  EXPECT_EQ(by(main["children"], "name", "squares")["inlined"], false);
  EXPECT_EQ(by(d["functions"], "name", "squares")["samples"], 250);
  EXPECT_EQ(d["metadata"]["sampling"]["truncated_stacks"], 7);
  EXPECT_EQ(d["metadata"]["sampling"]["inlined_frames"], true);
  const json flat = json::parse(report_text(testing::inlined_profile(), {}, "", JsonLayout::Flat));
  size_t inlined = 0;
  for (const json& n : flat["nodes"]) inlined += n["inlined"] == true;
  EXPECT_EQ(inlined, 1u);
  const json columns = json::parse(report_text(testing::inlined_profile(), {}, "", JsonLayout::Columns));
  ASSERT_TRUE(columns["nodes"]["inlined"].is_array());
  EXPECT_EQ(columns["nodes"]["inlined"].size(), columns["nodes"]["count"].get<size_t>());
  const json exact = report_json(testing::counter_example_profile());
  EXPECT_FALSE(exact["tree"][0].contains("inlined"));
  EXPECT_TRUE(
      json::parse(report_text(testing::counter_example_profile(), {}, "", JsonLayout::Columns))["nodes"]["inlined"]
          .is_null());
}

TEST(Json, HostileAndInvalidNamesStayValidJson) {
  Profile p = testing::folded("main;evil 10\nmain;bad 1\n");
  p.functions[1].name = "evil\nname\x1b[2J\"";
  p.functions[2].name = "bad\xff\xfe";
  const json d = report_json(p);
  EXPECT_EQ(by(d["functions"], "id", 1)["name"], "evil\nname\x1b[2J\"");
  EXPECT_EQ(by(d["functions"], "id", 2)["name"], "bad\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Json, DeepTreesStream) {
  std::string stack = "main";
  for (int i = 0; i < 5000; ++i) stack += ";f";
  const json d = report_json(testing::folded(stack + " 1\n"));
  const json* n = &d["tree"][0];
  size_t depth = 1;
  while (!(*n)["children"].empty()) {
    n = &(*n)["children"][0];
    ++depth;
  }
  // The nested tree stops at kMaxJsonTreeDepth levels, marked with what it leaves out.
  EXPECT_EQ(depth, kMaxJsonTreeDepth);
  EXPECT_EQ((*n)["recursion_level"], kMaxJsonTreeDepth - 2);
  EXPECT_EQ((*n)["children_cut"], 5001 - kMaxJsonTreeDepth);
  // The flat layout has every node, each with its parent's id.
  const json flat = json::parse(report_text(testing::folded(stack + " 1\n"), {}, "", JsonLayout::Flat));
  ASSERT_EQ(flat["nodes"].size(), 5001u);
  EXPECT_TRUE(flat["nodes"][0]["parent"].is_null());
  EXPECT_EQ(flat["nodes"][5000]["parent"], 4999);
  EXPECT_EQ(flat["nodes"][5000]["recursion_level"], 4999);
  EXPECT_FALSE(flat.contains("tree"));
}

}  // namespace
}  // namespace callprof
