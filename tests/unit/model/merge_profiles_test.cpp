// Merging profiles of several runs or hosts: tables unified by identity, records kept apart
// with their host, metrics adding up exactly, and the merge associative and commutative.
#include "model/transform/merge_profiles.h"

#include <gtest/gtest.h>

#include "folded_profile.h"
#include "graph/aggregate.h"
#include "model/transform/merge.h"

namespace callprof {
namespace {

Profile run(const char* host, const char* folded, uint32_t pid) {
  Profile p = testing::folded(folded);
  p.meta.command = "/opt/app/server --port 80";
  p.meta.mode = RecordingMode::Exact;
  p.meta.hostname = host;
  p.meta.duration_ns = 1000;
  p.modules = {Module{"/opt/app/server", "abcd"}};
  for (Function& f : p.functions) f.module = 0;
  p.processes = {Process{.pid = pid, .command = p.meta.command}};
  for (Thread& t : p.threads) t.pid = pid;
  return p;
}

Profile a() { return run("alpha", "main;handle;parse 100 calls=10\nmain;handle;reply 50 calls=10\n", 10); }
Profile b() { return run("beta", "main;handle;parse 300 calls=30\nmain;idle 7\n", 10); }
Profile c() { return run("gamma", "main;handle;reply 20 calls=2\nmain;log 1\n", 11); }

Profile merged(std::vector<Profile> ps) {
  auto m = merge_profiles(std::move(ps), {});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(m).value() : Profile{};
}

// Everything a report can show, as text: tables, records, trees node by node.
std::string dump(const Profile& p) {
  std::string s =
      p.meta.command + "|" + p.meta.mode.text() + "|" + p.meta.hostname + "|" + std::to_string(p.meta.duration_ns);
  for (const auto& [k, v] : p.meta.extra) s += "|" + k + "=" + v;
  for (const Module& m : p.modules) s += "\nmodule " + m.path + " " + m.build_id;
  for (const Function& f : p.functions) s += "\nfunction " + f.name + " " + std::to_string(f.module);
  for (const Process& pr : p.processes) s += "\nprocess " + pr.host + " " + std::to_string(pr.pid);
  for (const Thread& t : p.threads) {
    s += "\nthread " + t.host + " " + std::to_string(t.pid) + " " + std::to_string(t.tid);
    for (NodeId i = 1; i < t.tree.size(); ++i) {
      const CallNode& n = t.tree.node(i);
      s += "\n  " + std::to_string(n.parent) + " " + std::to_string(n.function);
      for (size_t k = 0; k < kMetricCount; ++k) s += " " + std::to_string(t.tree.base(i)[Metric(k)]);
    }
  }
  return s;
}

// A process's removed hooks name functions of its own table: renumbered with them.
TEST(MergeProfiles, RemovedHooksFollowTheirFunctions) {
  Profile first = c(), second = a();
  auto id_of = [](const Profile& p, const char* name) {
    for (FunctionId f = 0; f < p.functions.size(); ++f)
      if (p.functions[f].name == name) return f;
    return kNoFunction;
  };
  second.processes[0].removed_hooks = {{id_of(second, "parse"), 40}, {id_of(second, "reply"), 50}};
  const Profile m = merged({std::move(first), std::move(second)});
  const Process* alpha = nullptr;
  for (const Process& pr : m.processes)
    if (pr.host == "alpha") alpha = &pr;
  ASSERT_NE(alpha, nullptr);
  ASSERT_EQ(alpha->removed_hooks.size(), 2u);
  EXPECT_EQ(m.functions[alpha->removed_hooks[0].function].name, "parse");
  EXPECT_EQ(alpha->removed_hooks[0].at_ns, 40);
  EXPECT_EQ(m.functions[alpha->removed_hooks[1].function].name, "reply");
}

// The timeline names nodes of its thread's tree: after the merge renumbers functions and
// nodes, each event still names the same call path.
TEST(MergeProfiles, TimelinesFollowTheirNodes) {
  Profile first = b(), second = a();
  auto path_of = [](const Profile& p, const Thread& t, NodeId n) {
    std::string s;
    for (FunctionId f : t.tree.path_to(n)) s += p.functions[f].name + ";";
    return s;
  };
  Thread& t = second.threads[0];
  std::vector<std::string> before;
  for (NodeId n = 1; n < t.tree.size(); ++n) {
    t.timeline.events.push_back({n, int64_t(n) * 100, 50});
    before.push_back(path_of(second, t, n));
  }
  t.timeline.dropped = 3;
  const Profile m = merged({std::move(first), std::move(second)});
  const Thread* alpha = nullptr;
  for (const Thread& th : m.threads)
    if (th.host == "alpha") alpha = &th;
  ASSERT_NE(alpha, nullptr);
  ASSERT_EQ(alpha->timeline.events.size(), before.size());
  EXPECT_EQ(alpha->timeline.dropped, 3u);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(path_of(m, *alpha, alpha->timeline.events[i].node), before[i]) << "event " << i;
    EXPECT_EQ(alpha->timeline.events[i].start_ns, int64_t(i + 1) * 100);
  }
}

// Source lines (model/code_lines.h): locations renumbered into one table (their functions
// and files by identity), samples and call sites still on the same paths and lines.
TEST(MergeProfiles, CodeCostsFollowTheirNodesAndLocations) {
  auto located = [](Profile p, uint32_t line, uint64_t samples) {
    Thread& t = p.threads[0];
    LocationTable table(p);
    const NodeId handle = t.tree.find_child(t.tree.find_child(kRootNode, 0), 1);
    const NodeId parse = t.tree.find_child(handle, 2);
    t.code.instructions.push_back({parse, table.add(2, 0x300 + line, "parse.c", line), samples, samples * 10});
    t.code.call_sites.push_back({parse, table.add(1, 0x200, "handle.c", 7)});
    return p;
  };
  // a's functions main, handle, parse, reply; b's main, handle, parse, idle: parse is 2 in both.
  const Profile m = merged({located(b(), 40, 5), located(a(), 41, 3)});
  ASSERT_EQ(m.source_files.size(), 2u);
  ASSERT_EQ(m.locations.size(), 3u);  // parse.c:40, handle.c:7 (shared), parse.c:41
  for (const Thread& t : m.threads) {
    ASSERT_EQ(t.code.instructions.size(), 1u);
    ASSERT_EQ(t.code.call_sites.size(), 1u);
    const CodeLocation& at = m.locations[t.code.instructions[0].location];
    EXPECT_EQ(m.functions[at.function].name, "parse");
    EXPECT_EQ(m.functions[t.tree.node(t.code.instructions[0].node).function].name, "parse");
    EXPECT_EQ(at.line, t.host == "alpha" ? 41u : 40u);
    EXPECT_EQ(t.code.instructions[0].samples, t.host == "alpha" ? 3u : 5u);
    const CodeLocation& site = m.locations[t.code.call_sites[0].location];
    EXPECT_EQ(m.functions[site.function].name, "handle");
    EXPECT_EQ(m.source_files[site.file], "handle.c");
  }
}

TEST(MergeProfiles, MetricsAddUpAndRecordsKeepTheirHost) {
  const Profile m = merged({a(), b(), c()});
  EXPECT_EQ(m.functions.size(), 6u) << "main, handle, parse, reply, idle, log: unified across runs";
  EXPECT_EQ(m.modules.size(), 1u) << "one build id";
  ASSERT_EQ(m.threads.size(), 3u);
  EXPECT_EQ(m.threads[0].host, "alpha");
  EXPECT_EQ(m.threads[1].host, "beta");
  EXPECT_EQ(m.processes[2].host, "gamma");
  EXPECT_EQ(m.meta.hostname, "alpha,beta,gamma");
  EXPECT_EQ(m.meta.duration_ns, 3000);
  EXPECT_EQ(m.meta.extra.at("merged_profiles"), "3");
  const std::vector<FunctionRow> rows = function_rows(merged_tree(m));
  auto row = [&](const char* name) {
    for (const FunctionRow& r : rows)
      if (m.functions[r.function].name == name) return r;
    return FunctionRow{};
  };
  EXPECT_EQ(row("parse").calls, 40u);
  EXPECT_EQ(row("parse").self_ns, 400u);
  EXPECT_EQ(row("reply").calls, 12u);
  EXPECT_EQ(row("handle").total_ns, 470u);
}

TEST(MergeProfiles, AssociativeAndCommutative) {
  const std::string abc = dump(merged({a(), b(), c()}));
  EXPECT_EQ(dump(merged({merged({a(), b()}), c()})), abc);
  EXPECT_EQ(dump(merged({a(), merged({b(), c()})})), abc);
  EXPECT_EQ(dump(merged({c(), b(), a()})), abc);
  EXPECT_EQ(dump(merged({merged({c(), a()}), b()})), abc);
}

// Record options that differ between runs cannot describe the merge: they read "mixed";
// the same options in every input are kept, and counts add up either way.
TEST(MergeProfiles, ExactModeOptionsThatDifferReadMixed) {
  Profile x = a(), y = b(), z = c();
  for (Profile* p : {&x, &y, &z}) p->meta.exact = ExactFacts{.ordered_clock = true, .unmatched_exits = 1};
  const Profile same = merged({x, y});
  ASSERT_TRUE(same.meta.exact);
  EXPECT_TRUE(same.meta.exact->ordered_clock);
  EXPECT_EQ(same.meta.exact->include, "");
  EXPECT_EQ(same.meta.exact->unmatched_exits, 2u);
  z.meta.exact->ordered_clock = false;  // one run recorded without --ordered-clock
  const Profile mixed = merged({x, y, z});
  ASSERT_TRUE(mixed.meta.exact);
  EXPECT_FALSE(mixed.meta.exact->ordered_clock);
  EXPECT_EQ(mixed.meta.exact->include, "mixed");
  EXPECT_EQ(mixed.meta.exact->unmatched_exits, 3u);
}

TEST(MergeProfiles, MismatchedInputsNeedForce) {
  Profile other = c();
  other.meta.command = "/usr/bin/other";
  auto r = merge_profiles({a(), other}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "profiles of different programs ('server' and 'other'): --force merges them anyway, "
            "functions by name");
  Profile sampled = c();
  sampled.meta.mode = RecordingMode::Sample;
  EXPECT_NE(merge_profiles({a(), sampled}, {}).error().message.find("different modes"), std::string::npos);
  // By name: `parse` of another build (another build id) becomes the same function.
  other.modules[0].build_id = "ffff";
  auto forced = merge_profiles({a(), other}, {.force = true});
  ASSERT_TRUE(forced.ok());
  size_t parses = 0;
  for (const Function& f : forced->functions) parses += f.name == "parse";
  EXPECT_EQ(parses, 1u);
  Profile compensated = b();
  compensated.meta.compensated = true;
  EXPECT_FALSE(merge_profiles({a(), compensated}, {.force = true}).ok());
}

// The nodes of the thread of `host` whose function is named `name`.
std::vector<NodeId> nodes_named(const Profile& p, const char* host, const char* name) {
  std::vector<NodeId> out;
  for (const Thread& t : p.threads)
    for (NodeId n = 1; t.host == host && n < t.tree.size(); ++n)
      if (p.functions[t.tree.node(n).function].name == name) out.push_back(n);
  return out;
}

// Two functions of one input can become one (--force: same name, other modules): their
// paths then become one node whose metrics add up, and the timeline follows.
TEST(MergeProfiles, FunctionsThatBecomeOneMergeTheirPaths) {
  auto input = [] {
    Profile p = a();
    p.modules.push_back(Module{"/opt/app/libparse.so", "ef01"});
    Function other_parse;
    other_parse.name = "parse";
    other_parse.module = 1;
    p.functions.push_back(other_parse);
    Thread& t = p.threads[0];
    const NodeId handle = t.tree.node(nodes_named(p, "", "parse").at(0)).parent;
    const NodeId other = t.tree.child(handle, FunctionId(p.functions.size() - 1));
    t.tree.base(other)[Metric::Calls] = 5;
    t.timeline.events = {{other, 100, 10}, {kRootNode, 200, 10}};
    return p;
  };
  const Profile apart = merged({input(), b()});
  EXPECT_EQ(nodes_named(apart, "alpha", "parse").size(), 2u) << "other modules: other functions";
  auto forced = merge_profiles({input(), b()}, {.force = true});
  ASSERT_TRUE(forced.ok());
  const std::vector<NodeId> parse = nodes_named(*forced, "alpha", "parse");
  ASSERT_EQ(parse.size(), 1u);
  const Thread& alpha = forced->threads[0];
  ASSERT_EQ(alpha.host, "alpha");
  EXPECT_EQ(alpha.tree.base(parse[0])[Metric::Calls], 15u);
  ASSERT_EQ(alpha.timeline.events.size(), 1u) << "the event on the root is dropped";
  EXPECT_EQ(alpha.timeline.events[0].node, parse[0]);
  EXPECT_EQ(alpha.timeline.dropped, 1u);
  // The same input alone (nothing unified) keeps both events' fate: the root's is dropped too.
  EXPECT_EQ(apart.threads[0].timeline.dropped, 1u);
}

TEST(MergeProfiles, SameProgramOtherBuildStaysApart) {
  Profile rebuilt = b();
  rebuilt.modules[0].build_id = "ef01";
  const Profile m = merged({a(), rebuilt});
  EXPECT_EQ(m.modules.size(), 2u);
  size_t parses = 0;
  for (const Function& f : m.functions) parses += f.name == "parse";
  EXPECT_EQ(parses, 2u) << "functions of different builds are different functions unless --force";
}

}  // namespace
}  // namespace callprof
