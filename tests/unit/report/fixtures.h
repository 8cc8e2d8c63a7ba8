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
  p.meta.mode = "exact";
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
  p.processes.push_back(Process{.pid = 1, .ppid = 0, .image = 1, .command = "/bin/echo done",
                                .start_ns = 170001000, .end_ns = 171000000});
  p.processes.push_back(Process{.pid = 2, .ppid = 1, .command = "./counter 40", .start_ns = 3000000,
                                .end_ns = 4000000, .death_signal = 9, .complete = false,
                                .hook_inner_ns = 10, .hook_outer_ns = 5});
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
  Metrics& m = c.tree.base(leaf);
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

}  // namespace callprof::testing
