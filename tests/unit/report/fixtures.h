// Report test fixtures: the SPEC §1.1 counter-example as a complete two-thread profile.
#pragma once

#include "folded_profile.h"

namespace callprof::testing {

// Thread 100 runs the counter-example (B's 40 calls of D take 3 ms each, C's 1 ms);
// thread 101, created by 100 in main > spawn, runs worker > E.
inline Profile counter_example_profile() {
  // A frame's module is given where the function first appears.
  Profile p = folded(
      "@thread 100 counter\n"
      "main@/opt/app/counter;A@/opt/app/counter;B@/opt/app/counter 1000000\n"
      "main;A;C@/opt/app/counter 1000000\n"
      "main;A;B;D@/usr/lib/libd.so.1 120000000 calls=40 min=2900000 max=3100000"
      " cpu=100000000 off=20000000\n"
      "main;A;C;D 40000000 calls=40 min=900000 max=1100000 cpu=40000000\n"
      "main;spawn@/opt/app/counter 50000\n"
      "@thread 101 worker creator=100\n"
      "worker@/opt/app/counter;E@/opt/app/counter 5000000 calls=5 min=800000 max=1200000"
      " cpu=5000000\n");
  p.meta.command = "./counter 40";
  p.meta.mode = RecordingMode::Exact;
  p.meta.hostname = "testhost";
  p.meta.duration_ns = 170000000;
  p.meta.callprof_version = "0.1.0";
  p.meta.extra["compensation"] = "on";
  auto id = [&](const char* name) {
    for (FunctionId f = 0; f < p.functions.size(); ++f)
      if (p.functions[f].name == name) return f;
    return kNoFunction;
  };
  p.functions[id("D")].file = "d.c";
  p.functions[id("D")].line = 12;
  p.processes.push_back(Process{.pid = 1, .ppid = 0, .command = "./counter 40", .start_ns = 1000, .end_ns = 170001000});
  Thread& main = p.threads[0];
  main.start_ns = 1000;
  main.end_ns = 170001000;
  Thread& worker = p.threads[1];
  worker.creator_path = {id("main"), id("spawn")};
  worker.start_routine = id("worker");
  worker.start_ns = 2001000;
  worker.end_ns = 9001000;
  worker.finished = false;
  worker.dropped_calls = 3;
  return p;
}

// The counter-example as exact mode records it in depth: measured hook costs (10 ns inner,
// 5 ns outer per call), off-CPU measured, allocations and page faults on B > D, an exec
// image of pid 1, and a forked child (pid 2) killed by SIGKILL before its final dump.
inline Profile exact_profile() {
  Profile p = counter_example_profile();
  p.processes[0].hook_inner_ns = 10;
  p.processes[0].hook_outer_ns = 5;
  p.processes.push_back(Process{
      .pid = 1, .ppid = 0, .image = 1, .command = "/bin/echo done", .start_ns = 170001000, .end_ns = 171000000});
  p.processes.push_back(Process{.pid = 2,
                                .ppid = 1,
                                .command = "./counter 40",
                                .start_ns = 3000000,
                                .end_ns = 4000000,
                                .death_signal = 9,
                                .complete = false,
                                .hook_inner_ns = 10,
                                .hook_outer_ns = 5});
  for (Thread& t : p.threads) t.offcpu = Thread::OffCpu::Measured;
  Profile child = folded("@thread 2 child pid=2\nmain@/opt/app/counter;child_work 1000000 cpu=1000000\n");
  Thread c = child.threads[0];
  const FunctionId work = FunctionId(p.functions.size());
  Function child_work;
  child_work.name = "child_work";
  p.functions.push_back(child_work);
  c.tree = CallTree();
  const FunctionId main = 0;
  const NodeId leaf = c.tree.path(std::vector<FunctionId>{main, work});
  c.tree.base(c.tree.node(leaf).parent)[Metric::Calls] = 1;
  MetricRowRef m = c.tree.base(leaf);
  m[Metric::Calls] = 1;
  m[Metric::WallNs] = m[Metric::CpuNs] = 1000000;
  m[Metric::MinWallNs] = m[Metric::MaxWallNs] = 1000000;
  c.start_ns = 3000000;
  c.end_ns = 4000000;
  c.offcpu = Thread::OffCpu::Measured;
  p.threads.push_back(c);
  Thread& main_thread = p.threads[0];
  const NodeId d = main_thread.tree.path(std::vector<FunctionId>{0, 1, 2, 4});  // main > A > B > D
  main_thread.tree.base(d)[Metric::AllocCalls] = 40;
  main_thread.tree.base(d)[Metric::AllocBytes] = 40960;
  main_thread.tree.base(d)[Metric::FreeCalls] = 40;
  main_thread.tree.base(d)[Metric::PageFaults] = 3;
  return p;
}

// A C++ program's profile with the names a demangler gives (templates, parameters, return
// types, operators, lambdas, overloads) over the counter-example's shape.
inline Profile cpp_profile() {
  Profile p = counter_example_profile();
  const char* names[][2] = {
      {"A",
       "void std::sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > > >("
       "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, "
       "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >)"},
      {"B",
       "Index<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >::find("
       "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) const"},
      {"C", "Index<int>::find(int const&) const"},
      {"D",
       "std::map<int, long, std::less<int>, std::allocator<std::pair<int const, long> > >::operator[](int const&)"},
      {"E", "(anonymous namespace)::worker_loop(int)::{lambda(int)#1}::operator()(int) const"},
      {"spawn", "spawn(int)"},
      {"worker", "spawn(double)"},
  };
  for (auto& [from, to] : names)
    for (Function& f : p.functions)
      if (f.name == from) f.name = to;
  return p;
}

// A sampled recording (cpu-clock at 1 kHz, DWARF unwinding) with a kernel frame and a
// stack that could not be unwound to its root.
inline Profile sampled_profile() {
  Profile p = folded(
      "main@/usr/bin/app;parse@/usr/bin/app 300000000 samples=300\n"
      "main;parse;memchr@/lib/libc.so.6 120000000 samples=120\n"
      "main;compute@/usr/bin/app 450000000 samples=450\n"
      "main;compute;sqrt@/lib/libm.so.6 100000000 samples=100\n"
      "main;compute;[kernel] 20000000 samples=20\n"
      "main;log 3000000 samples=3\n"
      "[truncated];hot_leaf@/usr/bin/app 7000000 samples=7\n");
  for (Thread& t : p.threads)
    for (NodeId n = 1; n < t.tree.size(); ++n) {
      MetricRowRef m = t.tree.base(n);
      m[Metric::Calls] = 0;  // sampling counts no calls and times no single call
      m[Metric::MinWallNs] = Metrics::kUnset;
      m[Metric::MaxWallNs] = 0;
      m[Metric::CpuNs] = 0;
    }
  p.meta.command = "/usr/bin/app --input big.txt";
  p.meta.mode = RecordingMode::Sample;
  p.meta.hostname = "testhost";
  p.meta.duration_ns = 1000000000;
  p.meta.sampling =
      SamplingFacts{.event = "cpu-clock", .frequency_hz = 1000, .unwind = Unwinding::Dwarf, .samples = 1000};
  p.processes.push_back(Process{.pid = 1, .command = p.meta.command, .start_ns = 1000, .end_ns = 1000001000});
  return p;
}

// A sampled recording whose compute() loop is squares(), inlined into it (200 samples), while
// main also calls squares (50 samples); 7 of its 1000 stacks did not reach their root.
inline Profile inlined_profile() {
  Profile p = folded(
      "main@/usr/bin/app;compute@/usr/bin/app 450000000 samples=450\n"
      "main;squares@/usr/bin/app 50000000 samples=50\n"
      "[truncated];hot_leaf@/usr/bin/app 7000000 samples=7\n");
  CallTree& t = p.threads[0].tree;
  FunctionId squares = kNoFunction;
  for (FunctionId f = 0; f < p.functions.size(); ++f)
    if (p.functions[f].name == "squares") squares = f;
  const NodeId compute = t.find_child(t.find_child(kRootNode, 0), 1);
  MetricRowRef inlined = t.base(t.child(compute, squares, true));
  inlined[Metric::WallNs] = 200000000;
  inlined[Metric::Samples] = 200;
  for (NodeId n = 1; n < t.size(); ++n) {
    t.base(n)[Metric::Calls] = 0;
    t.base(n)[Metric::MinWallNs] = Metrics::kUnset;
    t.base(n)[Metric::MaxWallNs] = 0;
  }
  p.meta.mode = RecordingMode::Sample;
  p.meta.sampling = SamplingFacts{.event = "cpu-clock",
                                  .frequency_hz = 1000,
                                  .unwind = Unwinding::FramePointers,
                                  .samples = 707,
                                  .truncated_stacks = 7};
  return p;
}

// Thread 1: main > f1 > [syscall] write (30 calls, 3 µs), main > f2 > g > [syscall] write
// (10 calls, 1 µs, 4 EBADF), main > f2 > [syscall] read (5 calls, 50 µs); thread 2 makes
// 2 writes under worker (200 ns).
inline Profile syscall_profile() {
  Profile p = testing::folded(
      "main;f1;[syscall]_write 3000 calls=30\n"
      "main;f2;g;[syscall]_write 1000 calls=10\n"
      "main;f2;[syscall]_read 50000 calls=5\n"
      "@thread 2\n"
      "worker;[syscall]_write 200 calls=2\n");
  p.meta.mode = RecordingMode::Syscall;
  for (Thread& t : p.threads)
    for (NodeId n = 1; n < t.tree.size(); ++n) {
      MetricRowRef m = t.tree.base(n);
      if (!p.functions[t.tree.node(n).function].name.starts_with("[syscall]")) continue;
      m[Metric::Syscalls] = m[Metric::Calls];
      m[Metric::SyscallNs] = m[Metric::WallNs];
      if (m[Metric::Calls] == 10) m[Metric::SyscallErrors] = 4;
    }
  SyscallStats write, read, write2;
  write.name = write2.name = "write", write.number = write2.number = 1;
  read.name = "read";
  for (int i = 0; i < 30; ++i) write.add(100, 0);
  for (int i = 0; i < 10; ++i) write.add(100, i < 4 ? 9 : 0);
  for (int i = 0; i < 5; ++i) read.add(10000, 0);
  write2.add(100, 0);
  write2.add(100, 0);
  p.threads[0].syscalls = {read, write};
  p.threads[1].syscalls = {write2};
  return p;
}

}  // namespace callprof::testing
