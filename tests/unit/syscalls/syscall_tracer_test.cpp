// The tracer on real child processes whose calls are known by construction: exact counts per
// call, return values, durations of calls that block, threads, followed children, exec.
#include "collect/syscalls/syscall_tracer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tracer_test_util.h"

namespace callprof::syscalls {
namespace {

using test::Collector;

constexpr uint32_t kRead = 0, kWrite = 1, kClone = 56, kExit = 60, kWait4 = 61, kExitGroup = 231, kClone3 = 435;
constexpr uint32_t kExecve = 59, kGetppid = 110;
constexpr int kDevNullWrites = 300, kBadWrites = 100, kBlockingReads = 50, kGrandchildWrites = 20;
constexpr uint64_t kReadBlockNs = 2'000'000;

SyscallSet select(std::initializer_list<uint32_t> numbers) {
  SyscallSet s;
  for (uint32_t n : numbers) s.set(n);
  return s;
}

void sleep_ns(uint64_t ns) {
  timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  nanosleep(&ts, nullptr);
}

// The return address of its write calls is what the stack window must contain.
__attribute__((noinline)) void write_devnull(int fd, int n) {
  char c = 'x';
  for (int i = 0; i < n; ++i)
    if (write(fd, &c, 1) != 1) _exit(10);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void write_closed(int fd, int n) {
  char c = 'x';
  for (int i = 0; i < n; ++i)
    if (write(fd, &c, 1) != -1 || errno != EBADF) _exit(11);
  asm volatile("" ::: "memory");
}

// Each read waits for a feeder thread that writes one byte 2 ms after the reader announced
// the read (through memory and sched_yield, so the handshake adds no selected calls).
void blocking_reads(int n) {
  int p[2];
  if (pipe(p) != 0) _exit(12);
  std::atomic<int> reading{-1};
  std::thread feeder([&] {
    for (int i = 0; i < n; ++i) {
      while (reading.load(std::memory_order_acquire) != i) sched_yield();
      sleep_ns(kReadBlockNs);
      if (write(p[1], "x", 1) != 1) _exit(13);
    }
  });
  char c;
  for (int i = 0; i < n; ++i) {
    reading.store(i, std::memory_order_release);
    if (read(p[0], &c, 1) != 1) _exit(14);
  }
  feeder.join();
}

// What every traced child does; numbers above are its truth.
void workload() {
  int devnull = open("/dev/null", O_WRONLY);
  int closed = dup(devnull);
  close(closed);
  write_devnull(devnull, kDevNullWrites);
  write_closed(closed, kBadWrites);
  blocking_reads(kBlockingReads);
  for (int i = 0; i < 10; ++i) getppid();  // not selected
  pid_t grandchild = fork();
  if (grandchild == 0) {
    write_devnull(devnull, kGrandchildWrites);
    _exit(0);
  }
  int status;
  if (waitpid(grandchild, &status, 0) != grandchild || status != 0) _exit(15);
}

std::map<uint32_t, int> count_by_nr(const Collector& c, uint32_t pid) {
  std::map<uint32_t, int> n;
  for (const auto& e : c.calls)
    if (e.pid == pid) ++n[e.nr];
  return n;
}

const ProcessEvent* find_process_event(const Collector& c, ProcessEvent::Kind kind, uint32_t pid) {
  for (const auto& p : c.processes)
    if (p.kind == kind && p.pid == pid) return &p;
  return nullptr;
}

bool in_libc(uint64_t address) {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(address), &info) && info.dli_fname &&
         std::string(info.dli_fname).find("libc.so") != std::string::npos;
}

bool returns_into(uint64_t address, const void* function) {
  auto start = reinterpret_cast<uint64_t>(function);
  return address > start && address - start < 512;
}

bool window_holds_return_into(const std::vector<uint8_t>& window, const void* function) {
  for (size_t i = 0; i + 8 <= window.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, window.data() + i, 8);
    if (returns_into(word, function)) return true;
  }
  return false;
}

TracerOptions workload_options(bool follow) {
  TracerOptions o;
  o.selected = select({kRead, kWrite, kClone, kClone3, kExit, kExitGroup, kWait4});
  o.follow_children = follow;
  return o;
}

void check_child_calls(const Collector& got, uint32_t pid) {
  auto n = count_by_nr(got, pid);
  EXPECT_EQ(n[kWrite], kDevNullWrites + kBadWrites + kBlockingReads);  // the feeder's writes too
  EXPECT_EQ(n[kRead], kBlockingReads);
  EXPECT_EQ(n[kClone3], 2);  // pthread_create: the parent's return and the new thread's
  EXPECT_EQ(n[kClone], 1);   // fork, the parent's return
  EXPECT_EQ(n[kWait4], 1);
  EXPECT_EQ(n[kExit], 1);  // the feeder thread
  EXPECT_EQ(n[kExitGroup], 1);
  EXPECT_EQ(n.count(kGetppid), 0u);
  for (const auto& e : got.calls) EXPECT_TRUE(workload_options(true).selected.test(e.nr)) << e.nr;

  const ProcessEvent* thread = find_process_event(got, ProcessEvent::ThreadStart, pid);
  ASSERT_TRUE(thread);
  uint32_t feeder = thread->child;
  EXPECT_NE(feeder, pid);
  ASSERT_TRUE(find_process_event(got, ProcessEvent::ThreadExit, pid));
  EXPECT_EQ(find_process_event(got, ProcessEvent::ThreadExit, pid)->tid, feeder);
  const ProcessEvent* exit = find_process_event(got, ProcessEvent::ProcessExit, pid);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 0);

  int bad = 0, window_hits = 0, devnull_writes = 0, long_reads = 0;
  uint64_t read_ns = 0;
  for (size_t i = 0; i < got.calls.size(); ++i) {
    const SyscallEvent& e = got.calls[i];
    if (e.pid != pid) continue;
    EXPECT_GE(e.end_ns, e.start_ns);
    EXPECT_EQ(e.no_return, e.nr == kExit || e.nr == kExitGroup);
    if (e.nr == kExit) {
      EXPECT_EQ(e.tid, feeder);
    }
    if (e.nr == kExitGroup) {
      EXPECT_EQ(e.tid, pid);
    }
    if (e.nr == kRead) {
      EXPECT_EQ(e.tid, pid);
      EXPECT_EQ(e.ret, 1);
      // The reader enters read right after announcing it; allow a few to be late.
      long_reads += e.end_ns - e.start_ns >= kReadBlockNs * 9 / 10;
      read_ns += e.end_ns - e.start_ns;
    }
    if (e.nr == kWrite && e.tid == feeder) {
      EXPECT_EQ(e.ret, 1);
    }
    if (e.nr == kWrite && e.tid == pid) {
      bad += e.ret == -EBADF;
      if (e.ret == 1) {
        ++devnull_writes;
        window_hits += window_holds_return_into(got.windows[i], reinterpret_cast<const void*>(&write_devnull));
      }
      EXPECT_TRUE(e.ret == 1 || e.ret == -EBADF) << e.ret;
      EXPECT_TRUE(in_libc(e.ip)) << std::hex << e.ip;
      EXPECT_EQ(got.windows[i].size(), 256u);
      EXPECT_EQ(e.sp % 8, 0u);
      // The probe's frame-pointer walk starts at write_devnull's frame record, so its first
      // return address is into workload (write_devnull itself is the window's to find).
      const std::vector<uint64_t>& frames = got.frames[i];
      ASSERT_FALSE(frames.empty());
      EXPECT_TRUE(returns_into(frames[0], reinterpret_cast<const void*>(&workload))) << std::hex << frames[0];
      EXPECT_LT(e.kernel_stack, 0);  // user mode takes no kernel stacks
    }
    if (e.nr == kClone3) {
      EXPECT_EQ(e.ret, e.tid == pid ? int64_t(feeder) : 0);
    }
  }
  EXPECT_EQ(bad, kBadWrites);
  EXPECT_EQ(devnull_writes, kDevNullWrites);
  EXPECT_EQ(window_hits, kDevNullWrites);
  EXPECT_GE(long_reads, kBlockingReads * 9 / 10);
  EXPECT_GE(read_ns, kBlockingReads * kReadBlockNs * 9 / 10);
}

TEST(SyscallTracer, CountsTimesAndStacksOfAKnownChild) {
  TracerOptions options = workload_options(true);
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child(workload);
  ASSERT_GT(child.pid, 0);
  ASSERT_TRUE(tracer.add_process(uint32_t(child.pid)));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  uint32_t pid = uint32_t(child.pid);
  check_child_calls(got, pid);

  // The grandchild is followed: its own events, its return from fork, its exit.
  const ProcessEvent* fork = find_process_event(got, ProcessEvent::Fork, pid);
  ASSERT_TRUE(fork);
  uint32_t grandchild = fork->child;
  auto n = count_by_nr(got, grandchild);
  EXPECT_EQ(n[kWrite], kGrandchildWrites);
  EXPECT_EQ(n[kClone], 1);
  EXPECT_EQ(n[kExitGroup], 1);
  EXPECT_EQ(n.size(), 3u);
  for (const auto& e : got.calls) {
    if (e.nr == kClone && e.pid == pid) {
      EXPECT_EQ(e.ret, int64_t(grandchild));
    }
    if (e.nr == kClone && e.pid == grandchild) {
      EXPECT_EQ(e.ret, 0);
    }
    if (e.nr == kWait4) {
      EXPECT_EQ(e.ret, int64_t(grandchild));
    }
    if (e.pid == grandchild) {
      EXPECT_EQ(e.tid, grandchild);
    }
  }
  EXPECT_TRUE(find_process_event(got, ProcessEvent::ProcessExit, grandchild));

  TracerCounts counts = tracer.counts();
  EXPECT_EQ(counts.events, got.calls.size());
  EXPECT_EQ(counts.process_events, got.processes.size());
  EXPECT_EQ(counts.lost_events, 0u);
  EXPECT_EQ(counts.unpaired_exits, 0u);
  EXPECT_EQ(counts.pending_failures, 0u);
  EXPECT_EQ(counts.window_failures, 0u);
  EXPECT_EQ(counts.malformed_records, 0u);
  EXPECT_EQ(counts.stack_failures + counts.stack_collisions, 0u);
}

TEST(SyscallTracer, ChildrenAreNotFollowedWhenAskedNotTo) {
  TracerOptions options = workload_options(false);
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child(workload);
  ASSERT_GT(child.pid, 0);
  ASSERT_TRUE(tracer.add_process(uint32_t(child.pid)));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  check_child_calls(got, uint32_t(child.pid));
  const ProcessEvent* fork = find_process_event(got, ProcessEvent::Fork, uint32_t(child.pid));
  ASSERT_TRUE(fork);  // the fork is reported, the grandchild is not traced
  for (const auto& e : got.calls) EXPECT_EQ(e.pid, uint32_t(child.pid));
  EXPECT_FALSE(find_process_event(got, ProcessEvent::ProcessExit, fork->child));
  EXPECT_EQ(tracer.counts().lost_events, 0u);
}

TEST(SyscallTracer, UntracedProcessesAndUnselectedCallsProduceNothing) {
  TracerOptions options;
  options.selected = select({kGetppid});
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto untraced = test::start_child([] {
    for (int i = 0; i < 100; ++i) getppid();
  });
  EXPECT_EQ(test::finish(tracer, got, untraced), 0);
  EXPECT_TRUE(got.calls.empty());
  EXPECT_TRUE(got.processes.empty());

  auto traced = test::start_child([] {
    int devnull = open("/dev/null", O_WRONLY);
    write_devnull(devnull, 100);
  });
  ASSERT_TRUE(tracer.add_process(uint32_t(traced.pid)));
  EXPECT_EQ(test::finish(tracer, got, traced), 0);
  EXPECT_TRUE(got.calls.empty());
  ASSERT_EQ(got.processes.size(), 1u);
  EXPECT_EQ(got.processes[0].kind, ProcessEvent::ProcessExit);
  EXPECT_EQ(tracer.counts().events, 0u);
}

TEST(SyscallTracer, ExecveReturnsInTheNewImage) {
  TracerOptions options;
  options.selected = select({kExecve, kExitGroup});
  OPEN_TRACER_OR_SKIP(tracer, options);
  ASSERT_EQ(access("/bin/true", X_OK), 0);
  Collector got;
  auto child = test::start_child([] {
    char* argv[] = {const_cast<char*>("true"), nullptr};
    execv("/nonexistent/callprof-test", argv);
    execv("/bin/true", argv);
    _exit(20);
  });
  uint32_t pid = uint32_t(child.pid);
  ASSERT_TRUE(tracer.add_process(pid));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  ASSERT_EQ(got.calls.size(), 3u);
  EXPECT_EQ(got.calls[0].nr, kExecve);
  EXPECT_EQ(got.calls[0].ret, -ENOENT);
  EXPECT_EQ(got.calls[1].nr, kExecve);
  EXPECT_EQ(got.calls[1].ret, 0);  // sys_exit fires, in the new image
  EXPECT_FALSE(got.calls[1].no_return);
  EXPECT_EQ(got.calls[2].nr, kExitGroup);
  EXPECT_TRUE(got.calls[2].no_return);
  for (const auto& e : got.calls) EXPECT_EQ(e.tid, pid);
  const ProcessEvent* exec = find_process_event(got, ProcessEvent::Exec, pid);
  ASSERT_TRUE(exec);
  EXPECT_EQ(exec->old_tid, pid);
  EXPECT_GT(exec->time_ns, got.calls[1].start_ns);
  EXPECT_LT(exec->time_ns, got.calls[1].end_ns);
  EXPECT_TRUE(find_process_event(got, ProcessEvent::ProcessExit, pid));
}

TEST(SyscallTracer, ExecFromAThreadReportsTheLeadersTid) {
  TracerOptions options;
  options.selected = select({kExecve});
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child([] {
    std::thread([] {
      char* argv[] = {const_cast<char*>("true"), nullptr};
      execv("/bin/true", argv);
      _exit(21);
    }).join();
    _exit(22);
  });
  uint32_t pid = uint32_t(child.pid);
  ASSERT_TRUE(tracer.add_process(pid));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  const ProcessEvent* exec = find_process_event(got, ProcessEvent::Exec, pid);
  ASSERT_TRUE(exec);
  EXPECT_EQ(exec->tid, pid);
  EXPECT_NE(exec->old_tid, pid);  // the thread that called execve took over the leader's tid
  ASSERT_EQ(got.calls.size(), 1u);
  EXPECT_EQ(got.calls[0].ret, 0);
  EXPECT_EQ(got.calls[0].tid, pid);
  EXPECT_EQ(tracer.counts().unpaired_exits, 0u);
}

void on_signal(int) {}

TEST(SyscallTracer, SignalReturnIsPairedWithItsEntry) {
  constexpr uint32_t kRtSigreturn = 15;
  TracerOptions options;
  options.selected = select({kRtSigreturn});
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child([] {
    signal(SIGUSR1, on_signal);
    for (int i = 0; i < 5; ++i) raise(SIGUSR1);
  });
  uint32_t pid = uint32_t(child.pid);
  ASSERT_TRUE(tracer.add_process(pid));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  // rt_sigreturn sets orig_ax to -1 before sys_exit; the probe still pairs it.
  ASSERT_EQ(got.calls.size(), 5u);
  for (const auto& e : got.calls) EXPECT_EQ(e.nr, kRtSigreturn);
  EXPECT_EQ(tracer.counts().unpaired_exits, 0u);
}

// Ranges [start, next symbol) of the kernel text symbols with these names (/proc/kallsyms).
std::vector<std::pair<uint64_t, uint64_t>> kernel_symbol_ranges(const std::vector<std::string>& wanted) {
  std::ifstream in("/proc/kallsyms");
  std::vector<std::pair<uint64_t, std::string>> symbols;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    if (type == "t" || type == "T") symbols.emplace_back(std::stoull(address, nullptr, 16), name);
  }
  std::sort(symbols.begin(), symbols.end());
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (size_t i = 0; i + 1 < symbols.size(); ++i)
    if (symbols[i].first != 0 && std::find(wanted.begin(), wanted.end(), symbols[i].second) != wanted.end())
      ranges.emplace_back(symbols[i].first, symbols[i + 1].first);
  return ranges;
}

bool stack_passes(const std::vector<uint64_t>& stack, const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  return std::any_of(stack.begin(), stack.end(), [&](uint64_t a) {
    return std::any_of(ranges.begin(), ranges.end(), [&](auto& r) { return a >= r.first && a < r.second; });
  });
}

TEST(SyscallTracer, FullModeTakesTheKernelStackWhereTheCallSlept) {
  TracerOptions options;
  options.selected = select({kRead, kWrite});
  options.stacks = StackMode::Full;
  options.window_bytes = 0;
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child([] {
    int devnull = open("/dev/null", O_WRONLY);
    write_devnull(devnull, 20);
    blocking_reads(20);
  });
  uint32_t pid = uint32_t(child.pid);
  ASSERT_TRUE(tracer.add_process(pid));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  auto vfs_read = kernel_symbol_ranges({"vfs_read"});
  auto pipe_read = kernel_symbol_ranges({"pipe_read", "anon_pipe_read"});  // renamed in 6.15
  int reads = 0, through_pipe_read = 0;
  for (const auto& e : got.calls) {
    EXPECT_EQ(e.pid, pid);
    if (e.nr == kWrite && e.tid == pid) {
      EXPECT_LT(e.kernel_stack, 0);  // /dev/null never sleeps
    }
    if (e.nr != kRead) continue;
    ++reads;
    ASSERT_GE(e.kernel_stack, 0);
    auto stack = tracer.kernel_stack(e.kernel_stack);
    ASSERT_FALSE(stack.empty());
    for (uint64_t a : stack) EXPECT_GE(a, 0xffff800000000000u);
    through_pipe_read += stack_passes(stack, vfs_read) && stack_passes(stack, pipe_read);
  }
  EXPECT_EQ(reads, 20);
  if (vfs_read.empty() || pipe_read.empty())
    GTEST_SKIP() << "/proc/kallsyms has no vfs_read and pipe_read (or hides addresses): frames not checked";
  EXPECT_EQ(through_pipe_read, 20);
}

TEST(SyscallTracer, NoStacksNoWindowGivesCompactEvents) {
  TracerOptions options;
  options.selected = select({kWrite});
  options.stacks = StackMode::None;
  options.window_bytes = 0;
  OPEN_TRACER_OR_SKIP(tracer, options);
  Collector got;
  auto child = test::start_child([] {
    int devnull = open("/dev/null", O_WRONLY);
    write_devnull(devnull, 50);
  });
  ASSERT_TRUE(tracer.add_process(uint32_t(child.pid)));
  EXPECT_EQ(test::finish(tracer, got, child), 0);
  ASSERT_EQ(got.calls.size(), 50u);
  for (size_t i = 0; i < got.calls.size(); ++i) {
    EXPECT_TRUE(got.frames[i].empty());
    EXPECT_TRUE(got.windows[i].empty());
    EXPECT_NE(got.calls[i].ip, 0u);
  }
  EXPECT_TRUE(tracer.kernel_stack(0).empty());
}

TEST(SyscallTracer, RejectsBadOptionsAndProcesses) {
  TracerOptions options;
  auto empty = SyscallTracer::open(options);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no system calls selected"), std::string::npos);
  options.selected = select({kWrite});
  options.window_bytes = 12;
  auto odd = SyscallTracer::open(options);
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("multiple of 8"), std::string::npos) << odd.error().message;
  options.window_bytes = 8200;  // above CALLPROF_SYSCALL_MAX_WINDOW
  EXPECT_FALSE(SyscallTracer::open(options));
  options.window_bytes = 256;
  options.ring_bytes = 3 << 20;
  auto ring = SyscallTracer::open(options);
  ASSERT_FALSE(ring);
  EXPECT_NE(ring.error().message.find("power of two"), std::string::npos) << ring.error().message;

  options.ring_bytes = 1 << 20;
  OPEN_TRACER_OR_SKIP(tracer, options);
  auto missing = tracer.add_process(999999999);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no such process"), std::string::npos) << missing.error().message;
  std::thread t([&] {
    auto thread = tracer.add_process(uint32_t(gettid()));
    ASSERT_FALSE(thread);
    EXPECT_NE(thread.error().message.find("thread of process"), std::string::npos) << thread.error().message;
  });
  t.join();
}

}  // namespace
}  // namespace callprof::syscalls
