// Sample profiles and comparison helpers shared by the profile file tests.
#include "test_profiles.h"

#include <gtest/gtest.h>

#include "trace/container.h"
#include "trace/proto_convert.h"

namespace callprof::test {
namespace {

void set_metrics(CallTree& tree, NodeId node, uint64_t calls, uint64_t wall, uint64_t min, uint64_t max) {
  MetricRowRef m = tree.base(node);
  m[Metric::Calls] = calls;
  m[Metric::WallNs] = wall;
  m[Metric::MinWallNs] = min;
  m[Metric::MaxWallNs] = max;
  m[Metric::CpuNs] = wall / 2;
  m[Metric::OffCpuNs] = wall - wall / 2;
}

Thread main_thread() {
  Thread t = make_thread(100, 100);
  t.name = "main";
  t.start_ns = 1'000;
  t.end_ns = 9'000'000'000;
  t.finished = true;
  CallTree& tree = t.tree;
  // main -> fib -> fib -> fib (direct recursion), main -> even -> odd -> even (mutual)
  const NodeId main = tree.child(kRootNode, 0);
  const NodeId fib1 = tree.child(main, 1), fib2 = tree.child(fib1, 1), fib3 = tree.child(fib2, 1);
  const NodeId even1 = tree.child(main, 2), odd = tree.child(even1, 3), even2 = tree.child(odd, 2);
  set_metrics(tree, main, 1, 5'000, 5'000, 5'000);
  set_metrics(tree, fib1, 3, 300, 90, 110);
  set_metrics(tree, fib2, 6, 600, 1, UINT64_MAX - 1);
  set_metrics(tree, fib3, 12, 1'200, 0, 1'000'000'000'000);
  set_metrics(tree, even1, 2, 20, 10, 10);
  tree.base(odd)[Metric::Calls] = 2;  // min stays unset: an open activation
  tree.base(even2)[Metric::Samples] = 7;
  tree.base(kRootNode)[Metric::Samples] = 3;  // samples whose stack could not be attributed
  return t;
}

Thread worker_thread(uint32_t tid) {
  Thread t = make_thread(tid, 100);
  t.name = "wörker-" + std::to_string(tid);
  t.creator_tid = 100;
  t.creator_path = {0, 2, 3};
  t.start_routine = 4;
  t.start_ns = 2'000;
  t.end_ns = -5;
  t.dropped_calls = 12345678901234ull;
  const NodeId routine = t.tree.child(kRootNode, 4);
  const NodeId fib = t.tree.child(routine, 1);
  set_metrics(t.tree, routine, 1, 77, 77, 77);
  set_metrics(t.tree, fib, 1, 1, 1, 1);
  return t;
}

}  // namespace

Thread make_thread(uint32_t tid, uint32_t pid) {
  Thread t;
  t.tid = tid;
  t.pid = pid;
  return t;
}

Profile rich_profile() {
  Profile p;
  p.meta = Metadata{.command = "./app --size 10 'ü'",
                    .mode = RecordingMode::Exact,
                    .hostname = "höst",
                    .clock = "CLOCK_MONOTONIC",
                    .start_realtime_ns = 1'700'000'000'000'000'000,
                    .duration_ns = -1,
                    .callprof_version = "0.1.0",
                    .extra = {{"filter", "^fib$"}, {"", "empty key"}, {"日本", "\xff\xfe"}}};
  p.modules = {{"/usr/bin/äpp", "0123456789abcdef"}, {"/lib/x86_64-linux-gnu/libc.so.6", ""}};
  p.functions = {
      {"main", "main", 0, 0x1130, "/src/app.cc", 10},
      {"fib(int)", "_Z3fibi", 0, 0x1200, "/src/app.cc", 3},
      {"even(unsigned)", "_Z4evenj", 0, 0x1300, "", 0},
      {"odd(unsigned)", "_Z3oddj", 0, 0xffff'ffff'ffff'ffffull, "/src/日本.cc", 4'000'000'000u},
      {"worker \xc3\x28 invalid utf-8", "", kNoModule, 0, "", 0},
      {"memcpy", "memcpy", 1, 0x9f000, "", 0},
  };
  p.processes = {{.pid = 100, .ppid = 1, .command = "./app --size 10", .start_ns = 500, .end_ns = 9'500'000'000},
                 {.pid = 101, .ppid = 100, .command = "", .start_ns = -7, .end_ns = 0}};
  p.threads.push_back(main_thread());
  p.threads.push_back(worker_thread(101));
  p.threads.push_back(worker_thread(102));
  p.threads.push_back(make_thread(103, 101));  // only a root: nothing was recorded
  return p;
}

Profile small_profile() {
  Profile p;
  p.meta.command = "small";
  p.functions = {{"main", "main", kNoModule, 0x10, "", 0}, {"leaf", "leaf", kNoModule, 0x20, "", 0}};
  Thread t = make_thread(7, 7);
  t.name = "small";
  const NodeId leaf = t.tree.path(std::vector<FunctionId>{0, 1});
  t.tree.base(leaf)[Metric::Calls] = 3;
  t.tree.base(leaf)[Metric::MinWallNs] = 4;
  p.threads.push_back(std::move(t));
  return p;
}

void expect_same_profile(const Profile& expected, const Profile& actual) {
  const Metadata &e = expected.meta, &a = actual.meta;
  EXPECT_EQ(e.command, a.command);
  EXPECT_EQ(e.mode, a.mode);
  EXPECT_EQ(e.hostname, a.hostname);
  EXPECT_EQ(e.clock, a.clock);
  EXPECT_EQ(e.start_realtime_ns, a.start_realtime_ns);
  EXPECT_EQ(e.duration_ns, a.duration_ns);
  EXPECT_EQ(e.callprof_version, a.callprof_version);
  EXPECT_EQ(e.extra, a.extra);
  ASSERT_EQ(expected.modules.size(), actual.modules.size());
  for (size_t i = 0; i < expected.modules.size(); ++i) {
    EXPECT_EQ(expected.modules[i].path, actual.modules[i].path);
    EXPECT_EQ(expected.modules[i].build_id, actual.modules[i].build_id);
  }
  ASSERT_EQ(expected.functions.size(), actual.functions.size());
  for (size_t i = 0; i < expected.functions.size(); ++i) {
    const Function &ef = expected.functions[i], &af = actual.functions[i];
    EXPECT_EQ(ef.name, af.name);
    EXPECT_EQ(ef.linkage_name, af.linkage_name);
    EXPECT_EQ(ef.module, af.module);
    EXPECT_EQ(ef.address, af.address);
    EXPECT_EQ(ef.file, af.file);
    EXPECT_EQ(ef.line, af.line);
  }
  ASSERT_EQ(expected.processes.size(), actual.processes.size());
  for (size_t i = 0; i < expected.processes.size(); ++i) {
    const Process &ep = expected.processes[i], &ap = actual.processes[i];
    EXPECT_EQ(ep.pid, ap.pid);
    EXPECT_EQ(ep.ppid, ap.ppid);
    EXPECT_EQ(ep.command, ap.command);
    EXPECT_EQ(ep.start_ns, ap.start_ns);
    EXPECT_EQ(ep.end_ns, ap.end_ns);
    EXPECT_EQ(ep.image, ap.image);
    EXPECT_EQ(ep.death_signal, ap.death_signal);
    EXPECT_EQ(ep.complete, ap.complete);
    EXPECT_EQ(ep.hook_inner_ns, ap.hook_inner_ns);
    EXPECT_EQ(ep.hook_outer_ns, ap.hook_outer_ns);
    EXPECT_EQ(ep.excluded_hook_ns, ap.excluded_hook_ns);
    EXPECT_EQ(ep.hook_removal, ap.hook_removal);
    EXPECT_EQ(ep.rewritten_sites, ap.rewritten_sites);
    EXPECT_EQ(ep.rewrite_refused_errno, ap.rewrite_refused_errno);
    EXPECT_EQ(ep.counting_sites, ap.counting_sites);
    EXPECT_EQ(ep.uncounted_sites, ap.uncounted_sites);
    EXPECT_EQ(ep.counts_unhooked_calls, ap.counts_unhooked_calls);
    ASSERT_EQ(ep.removed_hooks.size(), ap.removed_hooks.size());
    for (size_t k = 0; k < ep.removed_hooks.size(); ++k) {
      EXPECT_EQ(ep.removed_hooks[k].function, ap.removed_hooks[k].function);
      EXPECT_EQ(ep.removed_hooks[k].at_ns, ap.removed_hooks[k].at_ns);
      EXPECT_EQ(ep.removed_hooks[k].inlined_copies_uncounted, ap.removed_hooks[k].inlined_copies_uncounted);
    }
  }
  ASSERT_EQ(expected.threads.size(), actual.threads.size());
  for (size_t i = 0; i < expected.threads.size(); ++i) {
    const Thread &et = expected.threads[i], &at = actual.threads[i];
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_EQ(et.tid, at.tid);
    EXPECT_EQ(et.pid, at.pid);
    EXPECT_EQ(et.name, at.name);
    EXPECT_EQ(et.creator_tid, at.creator_tid);
    EXPECT_EQ(et.creator_path, at.creator_path);
    EXPECT_EQ(et.start_routine, at.start_routine);
    EXPECT_EQ(et.start_ns, at.start_ns);
    EXPECT_EQ(et.end_ns, at.end_ns);
    EXPECT_EQ(et.finished, at.finished);
    EXPECT_EQ(et.dropped_calls, at.dropped_calls);
    EXPECT_EQ(et.syscalls, at.syscalls);
    EXPECT_EQ(et.depth_limited_calls, at.depth_limited_calls);
    EXPECT_EQ(et.short_calls, at.short_calls);
    EXPECT_EQ(et.lost_events, at.lost_events);
    EXPECT_EQ(et.prunes, at.prunes);
    EXPECT_EQ(et.offcpu, at.offcpu);
    ASSERT_EQ(et.tree.size(), at.tree.size());
    for (NodeId n = 0; n < et.tree.size(); ++n) {
      const CallNode &en = et.tree.node(n), &an = at.tree.node(n);
      SCOPED_TRACE("node " + std::to_string(n));
      EXPECT_EQ(en.parent, an.parent);
      EXPECT_EQ(en.function, an.function);
      EXPECT_EQ(en.first_child, an.first_child);
      EXPECT_EQ(en.next_sibling, an.next_sibling);
      EXPECT_EQ(et.tree.base(n).metrics(), at.tree.base(n).metrics());
      EXPECT_EQ(en.inlined, an.inlined);
      if (n != kRootNode) {
        EXPECT_EQ(at.tree.find_child(an.parent, an.function, an.inlined), n);
      }
    }
  }
}

void expect_error(const Result<Profile>& result, std::string_view name, std::string_view needle) {
  ASSERT_FALSE(result.ok()) << "expected an error containing '" << needle << "'";
  const std::string& message = result.error().message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind(std::string(name) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(needle), std::string::npos) << "'" << message << "' lacks '" << needle << "'";
}

std::vector<uint8_t> file_with_payload(const file::Profile& payload) {
  const std::string bytes = payload.SerializeAsString();
  Result<std::vector<uint8_t>> file =
      trace::wrap_payload(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  EXPECT_TRUE(file.ok());
  return file.ok() ? *file : std::vector<uint8_t>{};
}

file::Profile minimal_payload() {
  Profile p;
  p.modules = {{"/bin/app", ""}};
  p.functions = {{"main", "main", 0, 0, "", 0}};
  Thread t = make_thread(1, 1);
  t.tree.base(t.tree.child(kRootNode, 0))[Metric::Calls] = 1;
  p.threads.push_back(std::move(t));
  return trace::to_proto(p);
}

}  // namespace callprof::test
