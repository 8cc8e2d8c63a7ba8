// Attaching traced system-call leaves to an exact-mode profile: frames matched by identity,
// uninstrumented frames skipped, time moved out of the caller (off-CPU first, clamped),
// unknown threads appended with remapped ids, statistics and metadata merged.
// Designated initializers name only the fields a test is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "model/transform/attach_syscalls.h"

#include <gtest/gtest.h>

#include "folded_profile.h"

namespace callprof {
namespace {

// A folded profile whose `[syscall]_NAME` frames (folded names cannot hold spaces) become
// traced leaves `[syscall] NAME`: Syscalls = Calls, SyscallNs = WallNs.
Profile traced(std::string_view folded) {
  Profile p = testing::folded(folded);
  for (Function& f : p.functions)
    if (f.name.starts_with("[syscall]_")) f.name[9] = ' ';
  for (Thread& t : p.threads)
    for (NodeId i = 1; i < t.tree.size(); ++i) {
      MetricRowRef m = t.tree.base(i);
      if (!p.functions[t.tree.node(i).function].name.starts_with(kSyscallLeafPrefix)) {
        m = Metrics();  // callers only carry the path
        continue;
      }
      m[Metric::Syscalls] = m[Metric::Calls];
      m[Metric::SyscallNs] = m[Metric::WallNs];
    }
  p.meta.mode = RecordingMode::Syscall;
  return p;
}

// The node at a path of function names, kNoNode when there is none.
NodeId at(const Profile& p, const CallTree& t, const std::vector<std::string>& path) {
  NodeId n = kRootNode;
  for (const std::string& name : path) {
    NodeId found = kNoNode;
    for (NodeId c : t.children(n))
      if (p.functions[t.node(c).function].name == name) found = c;
    if (found == kNoNode) return kNoNode;
    n = found;
  }
  return n;
}

uint64_t get(const Profile& p, const std::vector<std::string>& path, Metric m, size_t thread = 0) {
  const CallTree& t = p.threads[thread].tree;
  const NodeId n = at(p, t, path);
  if (n == kNoNode) {
    ADD_FAILURE() << "no node at " << ::testing::PrintToString(path);
    return 0;
  }
  return t.base(n)[m];
}

uint64_t cum(const Profile& p, const std::vector<std::string>& path, Metric m, size_t thread = 0) {
  const CallTree& t = p.threads[thread].tree;
  const NodeId n = at(p, t, path);
  return n == kNoNode ? 0 : cumulative(t)[n][m];
}

const std::vector<std::string> kWrite1 = {"main", "f1", "[syscall] write"};

TEST(AttachSyscalls, LeafHangsUnderTheDeepestInstrumentedCaller) {
  Profile exact = testing::folded("main 100\nmain;f1 1000\n");
  const Profile t = traced("_start;__libc_start_call_main;main;f1;write;[syscall]_write 300 calls=3 min=50 max=150\n");
  attach_syscalls(exact, t);
  ASSERT_NE(at(exact, exact.threads[0].tree, kWrite1), kNoNode);
  EXPECT_EQ(get(exact, kWrite1, Metric::Calls), 3u);
  EXPECT_EQ(get(exact, kWrite1, Metric::Syscalls), 3u);
  EXPECT_EQ(get(exact, kWrite1, Metric::SyscallNs), 300u);
  EXPECT_EQ(get(exact, kWrite1, Metric::MinWallNs), 50u);
  EXPECT_EQ(get(exact, kWrite1, Metric::MaxWallNs), 150u);
  EXPECT_EQ(exact.threads[0].tree.size(), 4u) << "root, main, f1 and the leaf: no libc frames";
  ASSERT_EQ(exact.functions.size(), 3u) << "only the system call's function is added";
  EXPECT_EQ(exact.functions[2].name, "[syscall] write");
  EXPECT_EQ(exact.functions[2].module, kNoModule);
}

TEST(AttachSyscalls, EachCallerGetsItsOwnLeafAndSkippedFramesShareOne) {
  Profile exact = testing::folded("main 100\nmain;f1 1000\nmain;f2 1000\nmain;cmp 500\n");
  Profile t = traced(
      "_start;main;f1;write;[syscall]_write 30 calls=3\n"
      "_start;main;f2;write;[syscall]_write 50 calls=5\n"
      "_start;main;f1;fwrite;_IO_file_write;write;[syscall]_write 20 calls=2\n"
      "_start;main;qsort;cmp;[syscall]_getpid 7 calls=1\n");
  CallTree& tt = t.threads[0].tree;
  tt.base(at(t, tt, {"_start", "main", "f2", "write", "[syscall] write"}))[Metric::SyscallErrors] = 4;
  attach_syscalls(exact, t);
  EXPECT_EQ(get(exact, kWrite1, Metric::Syscalls), 5u) << "two traced paths differing in libc frames";
  EXPECT_EQ(get(exact, kWrite1, Metric::SyscallNs), 50u);
  EXPECT_EQ(get(exact, kWrite1, Metric::SyscallErrors), 0u);
  EXPECT_EQ(get(exact, {"main", "f2", "[syscall] write"}, Metric::Syscalls), 5u);
  EXPECT_EQ(get(exact, {"main", "f2", "[syscall] write"}, Metric::SyscallErrors), 4u);
  EXPECT_EQ(get(exact, {"main", "cmp", "[syscall] getpid"}, Metric::Calls), 1u) << "qsort skipped";
  EXPECT_EQ(at(exact, exact.threads[0].tree, {"main", "[syscall] write"}), kNoNode);
  EXPECT_EQ(cum(exact, {}, Metric::Syscalls), 11u);
}

// Two static functions of one name in one program (two files): the traced frame is matched
// by its module file and entry address, not by the name they share.
TEST(AttachSyscalls, FramesMatchByIdentityNotByName) {
  const auto table = [](Profile& p) {
    p.modules = {{"/bin/app", "ab12"}};
    p.functions = {{.name = "main", .module = 0, .address = 0x10},
                   {.name = "helper", .module = 0, .address = 0x100, .file = "a.c"},
                   {.name = "helper", .module = 0, .address = 0x200, .file = "b.c"}};
  };
  Profile exact;
  table(exact);
  exact.meta.mode = RecordingMode::Exact;
  Thread e;
  e.tid = e.pid = 1;
  const NodeId main = e.tree.child(kRootNode, 0), in_a = e.tree.child(main, 1), in_b = e.tree.child(main, 2);
  for (NodeId n : {main, in_a, in_b}) e.tree.base(n)[Metric::WallNs] = 1000;
  exact.threads.push_back(std::move(e));
  Profile traced;
  table(traced);
  traced.functions.erase(traced.functions.begin() + 1);  // its table: main, b.c's helper, the leaf
  traced.functions.push_back({.name = "[syscall] write", .kind = FunctionKind::Syscall});
  Thread t;
  t.tid = t.pid = 1;
  const NodeId leaf = t.tree.path(std::vector<FunctionId>{0, 1, 2});
  MetricRowRef m = t.tree.base(leaf);
  m[Metric::Calls] = m[Metric::Syscalls] = 1;
  m[Metric::SyscallNs] = m[Metric::WallNs] = 100;
  traced.threads.push_back(std::move(t));
  attach_syscalls(exact, traced);
  const CallTree& tree = exact.threads[0].tree;
  EXPECT_TRUE(tree.children(in_a).empty()) << "a.c's helper made no system call";
  ASSERT_EQ(tree.children(in_b).size(), 1u);
  EXPECT_EQ(exact.functions[tree.node(tree.children(in_b)[0]).function].name, "[syscall] write");
  EXPECT_EQ(tree.base(in_b)[Metric::WallNs], 900u);
  EXPECT_EQ(exact.functions.size(), 4u) << "only the leaf's function was added";
}

TEST(AttachSyscalls, TimeMovesOutOfTheCallerKeepingCum) {
  Profile exact = testing::folded("main 100\nmain;f1 1000\nmain;f1;g 400\n");
  const uint64_t root_before = cum(exact, {}, Metric::WallNs);
  attach_syscalls(exact, traced("main;f1;write;[syscall]_write 300 calls=3\n"));
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::WallNs), 700u);
  EXPECT_EQ(get(exact, kWrite1, Metric::WallNs), 300u);
  EXPECT_EQ(cum(exact, {"main", "f1"}, Metric::WallNs), 1400u);
  EXPECT_EQ(cum(exact, {}, Metric::WallNs), root_before);
  EXPECT_EQ(get(exact, {"main"}, Metric::WallNs), 100u);
  EXPECT_EQ(get(exact, {"main", "f1", "g"}, Metric::WallNs), 400u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::Calls), 1u) << "the caller's calls stay";
}

// The calls' own CPU/off-CPU split is not measured: the caller's proportion is used.
TEST(AttachSyscalls, OffCpuIsMovedInTheCallersProportionWhenMeasured) {
  Profile exact = testing::folded("main;f1 1000 cpu=800 off=200\n@thread 2\nmain;f1 1000 cpu=800 off=200\n");
  exact.threads[0].offcpu = Thread::OffCpu::Measured;
  exact.threads[1].offcpu = Thread::OffCpu::Off;
  attach_syscalls(exact, traced("main;f1;read;[syscall]_read 300\n@thread 2\nmain;f1;read;[syscall]_read 300\n"));
  const std::vector<std::string> leaf = {"main", "f1", "[syscall] read"};
  EXPECT_EQ(get(exact, leaf, Metric::OffCpuNs), 60u) << "300 * 200 / 1000";
  EXPECT_EQ(get(exact, leaf, Metric::CpuNs), 240u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::OffCpuNs), 140u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::CpuNs), 560u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::WallNs), 700u);
  // Not measured: the wall time moves, CPU and off-CPU stay where they were.
  EXPECT_EQ(get(exact, leaf, Metric::WallNs, 1), 300u);
  EXPECT_EQ(get(exact, leaf, Metric::OffCpuNs, 1), 0u);
  EXPECT_EQ(get(exact, leaf, Metric::CpuNs, 1), 0u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::OffCpuNs, 1), 200u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::CpuNs, 1), 800u);
}

TEST(AttachSyscalls, MovedTimeIsClampedAtTheCallersSelf) {
  Profile exact = testing::folded("main;f1 100 cpu=50 off=20\nmain;f1;g 500\n");
  exact.threads[0].offcpu = Thread::OffCpu::Measured;
  attach_syscalls(exact, traced("main;f1;write;[syscall]_write 300 calls=2\n"));
  EXPECT_EQ(get(exact, kWrite1, Metric::WallNs), 100u);
  EXPECT_EQ(get(exact, kWrite1, Metric::SyscallNs), 300u) << "the traced duration is kept";
  EXPECT_EQ(get(exact, kWrite1, Metric::OffCpuNs), 20u);
  EXPECT_EQ(get(exact, kWrite1, Metric::CpuNs), 50u) << "min(100 - 20, 50)";
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::WallNs), 0u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::CpuNs), 0u);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::OffCpuNs), 0u);
  EXPECT_EQ(cum(exact, {"main", "f1"}, Metric::WallNs), 600u);
}

TEST(AttachSyscalls, LeafOfNoMatchingFrameHangsAtTheRootWithItsTime) {
  Profile exact = testing::folded("main 100\n");
  const Metrics main_before = exact.threads[0].tree.base(at(exact, exact.threads[0].tree, {"main"}));
  attach_syscalls(exact, traced("_start;_dl_start;_dl_map_object;[syscall]_mmap 400 calls=4\n"));
  EXPECT_EQ(get(exact, {"[syscall] mmap"}, Metric::WallNs), 400u);
  EXPECT_EQ(get(exact, {"[syscall] mmap"}, Metric::Syscalls), 4u);
  EXPECT_EQ(exact.threads[0].tree.base(at(exact, exact.threads[0].tree, {"main"})), main_before);
  EXPECT_EQ(cum(exact, {}, Metric::WallNs), 500u) << "time exact mode did not see";
}

TEST(AttachSyscalls, UnknownThreadIsAppendedWithRemappedFunctionsAndItsProcess) {
  Profile exact = testing::folded("main@/bin/app;f1@/bin/app 1000\n");
  exact.processes = {Process{.pid = 1, .command = "app"}};
  Profile t = traced(
      "@thread 7 worker pid=2\n_start@/lib/ld.so;main@/bin/app;g@/bin/app;read;[syscall]_read 50\n"
      "@thread 9 other pid=1\nmain@/bin/app;[syscall]_close 5\n");
  t.processes = {Process{.pid = 2, .command = "child"}, Process{.pid = 1, .command = "traced app"}};
  t.threads[0].start_routine = 2;      // g
  t.threads[0].creator_path = {1, 2};  // main, g
  t.threads[0].syscalls = {SyscallStats{.name = "read", .calls = 1}};
  attach_syscalls(exact, t);

  ASSERT_EQ(exact.threads.size(), 3u);
  const Thread& w = exact.threads[1];
  EXPECT_EQ(w.tid, 7u);
  EXPECT_EQ(w.pid, 2u);
  EXPECT_EQ(w.name, "worker");
  EXPECT_NE(at(exact, w.tree, {"_start", "main", "g", "read", "[syscall] read"}), kNoNode);
  EXPECT_EQ(get(exact, {"_start", "main", "g", "read", "[syscall] read"}, Metric::SyscallNs, 1), 50u);
  EXPECT_EQ(get(exact, {"_start", "main", "g", "read", "[syscall] read"}, Metric::WallNs, 1), 50u);
  EXPECT_EQ(w.tree.node(at(exact, w.tree, {"_start", "main"})).function, 0u) << "exact's main reused";
  EXPECT_EQ(exact.functions[w.start_routine].name, "g");
  ASSERT_EQ(w.creator_path.size(), 2u);
  EXPECT_EQ(w.creator_path[0], 0u);
  EXPECT_EQ(w.creator_path[1], w.start_routine);
  ASSERT_EQ(exact.modules.size(), 2u);
  EXPECT_EQ(exact.modules[0].path, "/bin/app");
  EXPECT_EQ(exact.modules[1].path, "/lib/ld.so");
  EXPECT_EQ(exact.functions[w.start_routine].module, 0u);
  EXPECT_EQ(exact.functions[w.tree.node(at(exact, w.tree, {"_start"})).function].module, 1u);
  EXPECT_EQ(w.syscalls.size(), 1u);

  ASSERT_EQ(exact.processes.size(), 2u) << "pid 2 added, pid 1 kept as exact recorded it";
  EXPECT_EQ(exact.processes[0].command, "app");
  EXPECT_EQ(exact.processes[1].pid, 2u);
  EXPECT_EQ(exact.processes[1].command, "child");
  EXPECT_EQ(exact.threads[2].tid, 9u);
  EXPECT_NE(at(exact, exact.threads[2].tree, {"main", "[syscall] close"}), kNoNode);
  EXPECT_EQ(get(exact, {"main", "f1"}, Metric::WallNs), 1000u) << "a different tid: thread 1 untouched";
}

TEST(AttachSyscalls, ThreadsMatchByPidAndTid) {
  Profile exact = testing::folded("@thread 5 pid=1\nmain 100\n@thread 5 pid=2\nmain 100\n");
  attach_syscalls(exact, traced("@thread 5 pid=2\nmain;[syscall]_write 10\n"));
  ASSERT_EQ(exact.threads.size(), 2u);
  EXPECT_EQ(at(exact, exact.threads[0].tree, {"main", "[syscall] write"}), kNoNode);
  EXPECT_EQ(get(exact, {"main", "[syscall] write"}, Metric::WallNs, 1), 10u);
  EXPECT_EQ(get(exact, {"main"}, Metric::WallNs, 1), 90u);
}

TEST(AttachSyscalls, SyscallStatisticsMergeByName) {
  Profile exact = testing::folded("main 100\n");
  SyscallStats write{.name = "write", .number = 1};
  write.add(10, 0);
  write.add(30, 9);
  exact.threads[0].syscalls = {write};
  Profile t = traced("main;[syscall]_write 60 calls=3\nmain;[syscall]_read 5\n");
  SyscallStats more{.name = "write", .number = 1}, read{.name = "read", .number = 0};
  more.add(20, 0);
  more.add(20, 0);
  more.add(20, 9);
  read.add(5, 0);
  t.threads[0].syscalls = {read, more};
  attach_syscalls(exact, t);
  const std::vector<SyscallStats>& s = exact.threads[0].syscalls;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "write");
  EXPECT_EQ(s[0].calls, 5u);
  EXPECT_EQ(s[0].total_ns, 100u);
  EXPECT_EQ(s[0].min_ns, 10u);
  EXPECT_EQ(s[0].errnos.at(9), 2u);
  EXPECT_EQ(s[1].name, "read");
  EXPECT_EQ(s[1].calls, 1u);
}

TEST(AttachSyscalls, MetadataGetsTheSyscallFacts) {
  Profile exact = testing::folded("main 100\n");
  exact.meta.compensated = true;
  exact.meta.extra = {{"note", "kept"}};
  Profile t = traced("main;[syscall]_write 10\n");
  t.meta.syscalls = SyscallFacts{.selection = "write,read", .stacks = "user", .events = 12, .lost_events = 1};
  t.meta.extra = {{"pid", "9"}};
  attach_syscalls(exact, t);
  ASSERT_TRUE(exact.meta.syscalls);
  EXPECT_EQ(exact.meta.syscalls->selection, "write,read");
  EXPECT_EQ(exact.meta.syscalls->events, 12u);
  EXPECT_EQ(exact.meta.syscalls->lost_events, 1u);
  EXPECT_TRUE(exact.meta.compensated);
  EXPECT_EQ(exact.meta.extra, (std::map<std::string, std::string>{{"note", "kept"}}));
}

}  // namespace
}  // namespace callprof
