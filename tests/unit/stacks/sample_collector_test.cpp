// The shared stack engine (SampleCollector) on records given directly: frame-pointer
// chains unwound in the address space the mappings describe, addresses named by a fake
// symbolizer and fake kernel symbols (AddressSymbols), trees, threads and processes
// built as the profile model has them. No file is opened, no process is sampled.
#include "collect/stacks/sample_collector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "collect/stacks/function_table.h"
#include "symbols/elf_functions.h"

namespace callprof::stacks {
namespace {

// Runtime addresses of the fake programs. Each function is [start, end).
constexpr uint64_t kApp = 0x401000, kAppEnd = 0x402000;  // /fake/app, bias 0x400000
constexpr uint64_t kMain = 0x401000, kWork = 0x401100, kLeaf = 0x401200, kLeafInline = 0x401280;
constexpr uint64_t kStart = 0x401300, kOuterHelper = 0x401400;
constexpr uint64_t kLibc = 0x7f0000001000, kLibcEnd = 0x7f0000002000;  // /fake/libc.so
constexpr uint64_t kRead = 0x7f0000001000, kStartThread = 0x7f0000001200, kLibcStartMain = 0x7f0000001400;
constexpr uint64_t kLibcNoSymbol = 0x7f0000001800;  // start code of a libc without symbols
constexpr uint64_t kClone3 = 0x7f0000001600;
constexpr uint64_t kOther = 0x501000, kOtherEnd = 0x502000;  // /fake/other (after an exec)
constexpr uint64_t kOtherMain = 0x501000;
constexpr uint64_t kAnon = 0x7e0000000000, kVdso = 0x7fff00000000;
constexpr uint64_t kKernelEntry = 0xffffffff81000000, kKernelPoll = 0xffffffff81000100,
                   kKernelNoName = 0xffffffff8f000000;

struct FakeFunction {
  uint64_t start, end;
  std::string name;
  std::vector<std::string> inlined;  // inlined into it at [start, end), innermost first
};

// Functions by runtime address; kernel names by address range. Counts the questions.
class FakeSymbols : public AddressSymbols {
 public:
  std::vector<FakeFunction> functions = {
      {kMain, kMain + 0x100, "main", {}},
      {kWork, kWork + 0x100, "work", {}},
      {kLeaf, kLeafInline, "leaf", {}},
      {kLeafInline, kLeaf + 0x100, "leaf", {"inner_helper", "outer_helper"}},
      {kStart, kStart + 0x80, "_start", {}},
      {kOuterHelper, kOuterHelper + 0x80, "outer_helper", {}},  // its out-of-line copy
      {kRead, kRead + 0x100, "read", {}},
      {kStartThread, kStartThread + 0x100, "start_thread", {}},
      {kLibcStartMain, kLibcStartMain + 0x100, "__libc_start_main@@GLIBC_2.34", {}},  // as libc6-dbg names it
      {kClone3, kClone3 + 0x100, "clone3", {}},
      {kOtherMain, kOtherMain + 0x100, "other_main", {}},
  };
  std::vector<FakeFunction> kernel = {{kKernelEntry, kKernelEntry + 0x100, "entry_SYSCALL_64", {}},
                                      {kKernelPoll, kKernelPoll + 0x100, "do_sys_poll", {}}};
  std::vector<std::string> image_warnings;
  std::string broken_path;  // its load bias cannot be found
  int load_bias_calls = 0, image_calls = 0;
  std::vector<std::vector<LoadedModule>> layouts;  // as image() got them

  Result<uint64_t> load_bias(const perf::Mapping& m) override {
    ++load_bias_calls;
    if (m.path == broken_path) return Error{"cannot read " + m.path};
    return m.start - m.pgoff;
  }
  std::shared_ptr<ImageSymbols> image(const std::vector<LoadedModule>& modules, std::string&) override {
    ++image_calls;
    layouts.push_back(modules);
    return std::make_shared<Image>(*this, modules);
  }
  std::string kernel_name(uint64_t address) override {
    for (const FakeFunction& f : kernel)
      if (address >= f.start && address < f.end) return f.name;
    return "";
  }

 private:
  class Image : public ImageSymbols {
   public:
    Image(FakeSymbols& fake, std::vector<LoadedModule> modules) : fake_(fake), modules_(std::move(modules)) {}
    std::vector<SymbolInfo> resolve_inlined(uint64_t pc) override {
      SymbolInfo outside;
      for (size_t i = 0; i < modules_.size(); ++i) {
        const LoadedModule& m = modules_[i];
        if (pc < m.start || pc >= m.end) continue;
        SymbolInfo s;
        s.module = int(i);
        s.file_address = pc - m.bias;
        for (const FakeFunction& f : fake_.functions) {
          if (pc < f.start || pc >= f.end) continue;
          std::vector<SymbolInfo> chain;
          for (const std::string& name : f.inlined) {
            chain.push_back(SymbolInfo{});
            chain.back().module = int(i);
            chain.back().name = name;
            chain.back().inlined = true;
          }
          s.name = f.name;
          s.linkage_name = f.name;
          s.offset = pc - (f.name == "leaf" ? kLeaf : f.start);
          chain.push_back(s);
          return chain;
        }
        return {s};  // in the file, without a symbol
      }
      return {outside};
    }
    const std::vector<std::string>& warnings() const override { return fake_.image_warnings; }
    std::string symbols_file(int) const override { return {}; }  // no file: cold parts stay themselves

   private:
    FakeSymbols& fake_;
    std::vector<LoadedModule> modules_;
  };
};

// The fake's load bias is start - pgoff: the files below map their text at offset 0x1000.
perf::Mapping mapping(uint32_t pid, uint64_t start, uint64_t end, std::string path, uint64_t pgoff = 0) {
  return perf::Mapping{.pid = pid, .start = start, .end = end, .pgoff = pgoff, .path = std::move(path), .build_id = ""};
}

perf::TaskEvent task(perf::TaskEvent::Kind kind, uint32_t pid, uint32_t tid, uint32_t ppid, std::string comm,
                     uint64_t time_ns) {
  return perf::TaskEvent{
      .kind = kind, .pid = pid, .tid = tid, .ppid = ppid, .ptid = ppid, .comm = std::move(comm), .time_ns = time_ns};
}

// A sample whose user stack the kernel walked by frame pointers: the pc, then return addresses.
perf::Sample sample(uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t period, std::vector<uint64_t> user,
                    std::vector<uint64_t> kernel = {}) {
  perf::Sample s;
  s.pid = pid;
  s.tid = tid;
  s.time_ns = time_ns;
  s.period = period;
  s.ip = kernel.empty() ? user.front() : kernel.front();
  s.user = kernel.empty();
  s.kernel_chain = std::move(kernel);
  s.user_chain = std::move(user);
  return s;
}

// Return addresses inside main (calling work) and work (calling leaf or read); in _start
// (calling main: a stack that ends there is complete).
constexpr uint64_t kRetInMain = kMain + 0x40, kRetInWork = kWork + 0x20, kRetInWork2 = kWork + 0x60;
constexpr uint64_t kRetInStart = kStart + 0x20;

class SampleCollectorTest : public ::testing::Test {
 protected:
  SampleCollectorTest() {
    auto owned = std::make_unique<FakeSymbols>();
    fake = owned.get();
    collector = std::make_unique<SampleCollector>(perf::UnwindMode::FramePointers, std::move(owned));
  }

  // Process 100 runs /fake/app (exec'd as "app") with libc, an anonymous region and a vDSO.
  void start_app(uint32_t pid = 100) {
    collector->on_task(task(perf::TaskEvent::Kind::Exec, pid, pid, 0, "app", 1));
    collector->on_mapping(mapping(pid, kApp, kAppEnd, "/fake/app", 0x1000));
    collector->on_mapping(mapping(pid, kLibc, kLibcEnd, "/fake/libc.so", 0x1000));
    collector->on_mapping(mapping(pid, kAnon, kAnon + 0x1000, ""));
    collector->on_mapping(mapping(pid, kVdso, kVdso + 0x1000, "[vdso]"));
  }

  Profile build() {
    Profile p = collector->build(warnings);
    return p;
  }

  // Every node of a thread's tree: "outer;...;leaf" and its nonzero (min: set) metrics.
  static std::vector<std::string> dump(const Profile& p, const Thread& t) {
    std::vector<std::string> lines;
    for (NodeId n = 1; n < t.tree.size(); ++n) {
      std::string line;
      std::vector<NodeId> nodes;
      for (NodeId at = n; at != kRootNode; at = t.tree.node(at).parent) nodes.insert(nodes.begin(), at);
      for (NodeId at : nodes)
        line += (line.empty() ? "" : ";") + p.functions[t.tree.node(at).function].name +
                (t.tree.node(at).inlined ? " [inlined]" : "");
      const Metrics& m = t.tree.base(n);
      for (size_t i = 0; i < kMetricCount; ++i) {
        const auto metric = Metric(i);
        const bool set = kMetricInfo[i].merge == MergeKind::Min ? m.has_min(metric) : m[metric] != 0;
        if (set) line += " " + std::string(kMetricInfo[i].name) + "=" + std::to_string(m[metric]);
      }
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  static const Thread& thread(const Profile& p, uint32_t tid, size_t nth = 0) {
    for (const Thread& t : p.threads)
      if (t.tid == tid && nth-- == 0) return t;
    throw std::runtime_error("no thread " + std::to_string(tid));
  }

  static const Function& function(const Profile& p, const std::string& name) {
    for (const Function& f : p.functions)
      if (f.name == name) return f;
    throw std::runtime_error("no function " + name);
  }

  FakeSymbols* fake = nullptr;
  std::unique_ptr<SampleCollector> collector;
  std::vector<std::string> warnings;
};

TEST_F(SampleCollectorTest, StacksBuildTheTreeOutermostFirstWithCountsAndPeriods) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));
  // work's last instruction calls leaf: the return address is leaf's first byte, work's call is before it.
  collector->on_sample(sample(100, 100, 20, 1000, {kLeaf + 0x30, kLeaf, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 30, 3000, {kWork + 0x70, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 40, 500, {kMain + 0x08, kRetInStart}));
  const Profile p = build();

  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "_start",
                                       "_start;main wall_ns=500 cpu_ns=500 samples=1",
                                       "_start;main;work wall_ns=3000 cpu_ns=3000 samples=1",
                                       "_start;main;work;leaf wall_ns=2000 cpu_ns=2000 samples=2",
                                   }));
  // Functions are identified by their entry, relative to the file (bias 0x400000).
  const Function& leaf = function(p, "leaf");
  EXPECT_EQ(leaf.address, kLeaf - 0x400000);
  ASSERT_LT(leaf.module, p.modules.size());
  EXPECT_EQ(p.modules[leaf.module].path, "/fake/app");
  EXPECT_EQ(leaf.kind, FunctionKind::Normal);
  EXPECT_EQ(collector->counts().samples, 4u);
  EXPECT_EQ(collector->counts().incomplete_stacks, 4u) << "a frame-pointer chain never proves its root";
  EXPECT_EQ(collector->counts().truncated_stacks, 0u) << "but each reached _start";
  EXPECT_EQ(fake->image_calls, 1);
  EXPECT_EQ(p.threads[0].offcpu, Thread::OffCpu::Off);
}

TEST_F(SampleCollectorTest, SampleWeightReplacesThePeriodOfHardwareEvents) {
  start_app();
  collector->set_sample_weight_ns(250);
  collector->on_sample(sample(100, 100, 10, 123456, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 20, 654321, {kWork + 0x10, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]),
            (std::vector<std::string>{"_start", "_start;main", "_start;main;work wall_ns=500 cpu_ns=500 samples=2"}));
}

TEST_F(SampleCollectorTest, KernelFramesGoBelowUserFramesNamedByKernelSymbols) {
  start_app();
  // Innermost first: the sampled kernel pc, then return addresses (looked up at - 1).
  collector->on_sample(sample(100, 100, 10, 1000, {kRead + 0x10, kRetInWork2, kRetInMain, kRetInStart},
                              {kKernelPoll + 0x10, kKernelPoll, kKernelNoName + 1}));  // entry's call ends it
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]),
            (std::vector<std::string>{
                "_start",
                "_start;main",
                "_start;main;work",
                "_start;main;work;read",
                "_start;main;work;read;[kernel]",
                "_start;main;work;read;[kernel];entry_SYSCALL_64",
                "_start;main;work;read;[kernel];entry_SYSCALL_64;do_sys_poll wall_ns=1000 cpu_ns=1000 samples=1",
            }));
  const Function& k = function(p, "do_sys_poll");
  EXPECT_EQ(k.kind, FunctionKind::Kernel);
  EXPECT_EQ(p.modules.at(k.module).path, "[kernel.kallsyms]");
  EXPECT_EQ(function(p, "[kernel]").kind, FunctionKind::Kernel);
}

TEST_F(SampleCollectorTest, ThreadsAndProcessesForkExecAndComm) {
  start_app();
  // A thread of 100, renamed; then a child process forked from 100 that later runs another program.
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 100, 101, 100, "", 5));
  collector->on_task(task(perf::TaskEvent::Kind::Comm, 100, 101, 0, "worker", 6));
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 200, 200, 100, "", 7));
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 101, 11, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(
      sample(200, 200, 12, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));  // parent's mappings
  collector->on_task(task(perf::TaskEvent::Kind::Exec, 200, 200, 0, "other", 20));
  collector->on_mapping(mapping(200, kOther, kOtherEnd, "/fake/other", 0x1000));
  collector->on_sample(sample(200, 200, 30, 2000, {kOtherMain + 0x10}));
  collector->on_task(task(perf::TaskEvent::Kind::Exit, 200, 200, 0, "", 40));
  collector->on_task(task(perf::TaskEvent::Kind::Exit, 100, 100, 0, "", 50));
  const Profile p = build();

  ASSERT_EQ(p.processes.size(), 3u);  // 100 as exec'd; 200 as forked; 200 after its exec
  EXPECT_EQ(p.processes[0].pid, 100u);
  EXPECT_EQ(p.processes[0].image, 1u);
  EXPECT_EQ(p.processes[0].ppid, 0u);
  EXPECT_EQ(p.processes[0].command, "app");
  EXPECT_EQ(p.processes[0].start_ns, 1);
  EXPECT_EQ(p.processes[0].end_ns, 50);
  EXPECT_EQ(p.processes[1].pid, 200u);
  EXPECT_EQ(p.processes[1].image, 0u);
  EXPECT_EQ(p.processes[1].ppid, 100u);
  EXPECT_EQ(p.processes[2].pid, 200u);
  EXPECT_EQ(p.processes[2].image, 1u);
  EXPECT_EQ(p.processes[2].ppid, 100u);
  EXPECT_EQ(p.processes[2].command, "other");

  ASSERT_EQ(p.threads.size(), 4u);
  const Thread& worker = thread(p, 101);
  EXPECT_EQ(worker.pid, 100u);
  EXPECT_EQ(worker.name, "worker");
  EXPECT_EQ(worker.start_ns, 5);
  EXPECT_EQ(worker.end_ns, 11);
  EXPECT_TRUE(worker.finished);
  EXPECT_EQ(dump(p, worker), (std::vector<std::string>{"_start", "_start;main", "_start;main;work",
                                                       "_start;main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1"}));
  EXPECT_EQ(dump(p, thread(p, 100)),
            (std::vector<std::string>{"_start", "_start;main", "_start;main;work wall_ns=1000 cpu_ns=1000 samples=1"}));
  // The forked child symbolizes with its parent's modules; after exec, only its new program's
  // (whose pc alone, with no caller, is a truncated stack).
  EXPECT_EQ(dump(p, thread(p, 200, 0)),
            (std::vector<std::string>{"_start", "_start;main", "_start;main;work",
                                      "_start;main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1"}));
  EXPECT_EQ(dump(p, thread(p, 200, 1)),
            (std::vector<std::string>{"[truncated]", "[truncated];other_main wall_ns=2000 cpu_ns=2000 samples=1"}));
  ASSERT_EQ(fake->layouts.size(), 3u);
  EXPECT_EQ(fake->layouts[0].size(), 2u);  // app and libc: the anonymous region and the vDSO are no files
  EXPECT_EQ(fake->layouts[1].size(), 2u);
  ASSERT_EQ(fake->layouts[2].size(), 1u);
  EXPECT_EQ(fake->layouts[2][0].path, "/fake/other");
  EXPECT_EQ(fake->layouts[2][0].bias, kOther - 0x1000);
  EXPECT_EQ(fake->load_bias_calls, 3) << "the child's copies of its parent's mappings are not looked up again";
}

TEST_F(SampleCollectorTest, OffCpuSamplesWeighSwitchOutToSwitchIn) {
  start_app();
  perf::Sample out = sample(100, 100, 1000, 0, {kRead + 0x10, kRetInWork2, kRetInMain, kRetInStart});
  out.switch_out = true;
  collector->on_sample(std::move(out));
  collector->on_switch(perf::SwitchEvent{.pid = 100, .tid = 100, .time_ns = 1000, .out = true});  // ignored
  collector->on_switch(perf::SwitchEvent{.pid = 100, .tid = 100, .time_ns = 1700, .out = false});
  collector->on_switch(perf::SwitchEvent{.pid = 100, .tid = 100, .time_ns = 9000, .out = false});  // nothing pending
  collector->on_sample(sample(100, 100, 2000, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "_start",
                                       "_start;main",
                                       "_start;main;work wall_ns=1000 cpu_ns=1000 samples=1",
                                       "_start;main;work;read wall_ns=700 offcpu_ns=700",
                                   }));
  EXPECT_EQ(p.threads[0].offcpu, Thread::OffCpu::Measured);
  EXPECT_EQ(collector->counts().off_cpu_samples, 1u);
  EXPECT_EQ(collector->counts().samples, 1u);
}

TEST_F(SampleCollectorTest, LostRecordsAreChargedToTheThread) {
  start_app();
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 100, 101, 100, "", 5));
  collector->on_sample(sample(100, 101, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_lost(perf::LostEvent{.lost = 7, .time_ns = 12, .pid = 100, .tid = 101}, perf::LostKind::Records);
  collector->on_lost(perf::LostEvent{.lost = 2, .time_ns = 13, .pid = 100, .tid = 101}, perf::LostKind::Samples);
  collector->on_lost(perf::LostEvent{.lost = 5, .time_ns = 14, .pid = 0, .tid = 0},
                     perf::LostKind::Records);  // no thread
  const Profile p = build();
  EXPECT_EQ(thread(p, 101).lost_events, 9u);
  EXPECT_EQ(thread(p, 100).lost_events, 0u);
  EXPECT_EQ(thread(p, 101).end_ns, 13);
  EXPECT_EQ(collector->counts().lost_records, 12u);
  EXPECT_EQ(collector->counts().lost_samples, 2u);
}

perf::SyscallSample system_call(uint32_t tid, uint64_t time_ns, const std::vector<uint64_t>& user, uint32_t nr,
                                std::string_view name, uint64_t duration_ns, int error = 0,
                                const std::vector<uint64_t>& kernel = {}) {
  perf::SyscallSample c;
  c.pid = 100;
  c.tid = tid;
  c.time_ns = time_ns;
  c.ip = user.front();
  c.user_chain = user;
  c.kernel_chain = kernel;
  c.nr = nr;
  c.name = name;
  c.duration_ns = duration_ns;
  c.error = error;
  return c;
}

TEST_F(SampleCollectorTest, SystemCallsBecomeLeavesWithCountsErrorsMinAndMax) {
  start_app();
  const std::vector<uint64_t> via_read = {kRead + 0x20, kRetInWork2, kRetInMain};
  const std::vector<uint64_t> from_main = {kRead + 0x20, kRetInMain};
  collector->on_syscall(system_call(100, 100, via_read, 0, "read", 300));
  collector->on_syscall(system_call(100, 500, via_read, 0, "read", 100, 11));
  collector->on_syscall(system_call(100, 900, via_read, 0, "read", 200));
  collector->on_syscall(system_call(100, 1200, from_main, 0, "read", 50));
  collector->on_syscall(system_call(100, 1300, via_read, 1, "write", 40, 0, {kKernelEntry + 8}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]),
            (std::vector<std::string>{
                "main",
                "main;read",
                "main;read;[syscall] read calls=1 min_wall_ns=50 max_wall_ns=50 syscalls=1 syscall_ns=50",
                "main;work",
                "main;work;read",
                "main;work;read;[syscall] read calls=3 min_wall_ns=100 max_wall_ns=300 syscalls=3 syscall_ns=600 "
                "syscall_errors=1",
                "main;work;read;entry_SYSCALL_64",
                "main;work;read;entry_SYSCALL_64;[syscall] write calls=1 min_wall_ns=40 max_wall_ns=40 syscalls=1 "
                "syscall_ns=40",
            }));
  EXPECT_EQ(function(p, "[syscall] read").kind, FunctionKind::Syscall);
  const std::vector<SyscallStats>& stats = p.threads[0].syscalls;
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "read");
  EXPECT_EQ(stats[0].calls, 4u);
  EXPECT_EQ(stats[0].errors, 1u);
  EXPECT_EQ(stats[0].total_ns, 650u);
  EXPECT_EQ(stats[0].min_ns, 50u);
  EXPECT_EQ(stats[0].max_ns, 300u);
  EXPECT_EQ(stats[1].name, "write");
  EXPECT_EQ(stats[1].number, 1u);
  EXPECT_EQ(p.threads[0].end_ns, 1340) << "the last call's exit";
  EXPECT_EQ(collector->counts().syscalls, 5u);
  EXPECT_EQ(collector->counts().syscall_paths, 3u);
}

// The tracer's ring is read apart from perf's: a child's call can come before the record of
// its fork. It waits for a record of its process at or after its time (here the exit),
// and is unwound with the mappings the child took from its parent.
TEST_F(SampleCollectorTest, ACallBeforeItsProcesssForkRecordWaitsForIt) {
  start_app();
  const auto of = [](uint32_t pid, perf::SyscallSample c) {
    c.pid = c.tid = pid;
    return c;
  };
  collector->on_syscall(of(200, system_call(200, 100, {kRead + 0x20, kRetInWork2, kRetInMain}, 0, "read", 30)));
  EXPECT_EQ(collector->counts().syscalls, 0u) << "not yet: process 200 has no mappings";
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 200, 200, 100, "", 50));
  EXPECT_EQ(collector->counts().syscalls, 0u) << "its fork came before the call, which may need later mappings";
  collector->on_syscall(of(200, system_call(200, 120, {kRead + 0x20, kRetInMain}, 0, "read", 10)));
  EXPECT_EQ(collector->counts().syscalls, 1u) << "a call of a known process is added at once";
  collector->on_task(task(perf::TaskEvent::Kind::Exit, 200, 200, 100, "", 150));
  EXPECT_EQ(collector->counts().syscalls, 2u);
  collector->on_syscall(of(300, system_call(300, 200, {kRead + 0x20, kRetInMain}, 0, "read", 10)));
  const Profile p = build();
  EXPECT_EQ(collector->counts().syscalls, 3u) << "build() adds what still waits";
  EXPECT_EQ(dump(p, thread(p, 200)),
            (std::vector<std::string>{
                "main",
                "main;read",
                "main;read;[syscall] read calls=1 min_wall_ns=10 max_wall_ns=10 syscalls=1 syscall_ns=10",
                "main;work",
                "main;work;read",
                "main;work;read;[syscall] read calls=1 min_wall_ns=30 max_wall_ns=30 syscalls=1 syscall_ns=30",
            }));
}

// A system call's entry stack that stops short of the root (here at main) continues as the
// rooted samples' stacks through the same return address do: one tree for both. A pc the
// samples reach from two different callers gives no prefix.
TEST_F(SampleCollectorTest, SystemCallStacksContinueAsTheRootedSamplesDo) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kLibcStartMain + 0x40}));
  collector->on_syscall(system_call(100, 20, {kRead + 0x20, kRetInWork2, kRetInMain}, 0, "read", 30));
  collector->on_sample(sample(100, 100, 30, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain, kLibcStartMain + 0x40}));
  collector->on_sample(sample(100, 100, 40, 1000, {kLeaf + 0x10, kRetInWork, kStartThread + 0x40}));
  collector->on_syscall(system_call(100, 50, {kRead + 0x20, kRetInWork}, 0, "read", 5));
  const Profile p = build();
  EXPECT_EQ(dump(p, thread(p, 100)),
            (std::vector<std::string>{
                "__libc_start_main@@GLIBC_2.34",
                "__libc_start_main@@GLIBC_2.34;main",
                "__libc_start_main@@GLIBC_2.34;main;work wall_ns=1000 cpu_ns=1000 samples=1",
                "__libc_start_main@@GLIBC_2.34;main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                "__libc_start_main@@GLIBC_2.34;main;work;read",
                "__libc_start_main@@GLIBC_2.34;main;work;read;[syscall] read calls=1 min_wall_ns=30 max_wall_ns=30 "
                "syscalls=1 syscall_ns=30",
                "start_thread",
                "start_thread;work",
                "start_thread;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                "work",
                "work;read",
                "work;read;[syscall] read calls=1 min_wall_ns=5 max_wall_ns=5 syscalls=1 syscall_ns=5",
            }));
}

// Without samples, a call whose entry stack reached the root gives its frames to one cut
// short through the same return address.
TEST_F(SampleCollectorTest, SystemCallStacksContinueAsRootedCallsDo) {
  start_app();
  collector->on_syscall(system_call(100, 10, {kRead + 0x20, kRetInMain, kLibcStartMain + 0x40}, 0, "read", 7));
  collector->on_syscall(system_call(100, 20, {kRead + 0x20, kRetInWork2, kRetInMain}, 0, "read", 30));
  const Profile p = build();
  EXPECT_EQ(dump(p, thread(p, 100)),
            (std::vector<std::string>{
                "__libc_start_main@@GLIBC_2.34",
                "__libc_start_main@@GLIBC_2.34;main",
                "__libc_start_main@@GLIBC_2.34;main;read",
                "__libc_start_main@@GLIBC_2.34;main;read;[syscall] read calls=1 min_wall_ns=7 max_wall_ns=7 "
                "syscalls=1 syscall_ns=7",
                "__libc_start_main@@GLIBC_2.34;main;work",
                "__libc_start_main@@GLIBC_2.34;main;work;read",
                "__libc_start_main@@GLIBC_2.34;main;work;read;[syscall] read calls=1 min_wall_ns=30 max_wall_ns=30 "
                "syscalls=1 syscall_ns=30",
            }));
}

TEST_F(SampleCollectorTest, SystemCallTimeIsWallWhenTracedAlone) {
  start_app();
  collector->set_syscall_time_is_wall(true);
  collector->on_syscall(system_call(100, 100, {kRead + 0x20, kRetInMain}, 0, "read", 300));
  collector->on_syscall(system_call(100, 500, {kRead + 0x20, kRetInMain}, 0, "read", 100));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(
      dump(p, p.threads[0]),
      (std::vector<std::string>{
          "main",
          "main;read",
          "main;read;[syscall] read calls=2 wall_ns=400 min_wall_ns=100 max_wall_ns=300 syscalls=2 syscall_ns=400",
      }));
}

TEST_F(SampleCollectorTest, ProbeModeMeasuredPathsAndEntryFrames) {
  start_app();
  perf::Sample entry = sample(100, 100, 10, 0, {kLeaf, kRetInWork, kRetInMain, kRetInStart});
  const std::vector<uint64_t> frames = collector->entry_frames(entry);
  EXPECT_EQ(frames, (std::vector<uint64_t>{kLeaf, kRetInWork - 1, kRetInMain - 1, kRetInStart - 1}));
  EXPECT_EQ(collector->image_of(100), 1u);
  std::vector<uint64_t> pcs(frames.rbegin(), frames.rend());  // outermost first
  collector->add_measured(
      {.pid = 100, .tid = 100, .image = 1, .pcs = pcs, .calls = 3, .self_ns = 900, .min_ns = 200, .max_ns = 400});
  collector->add_measured({.pid = 100,
                           .tid = 100,
                           .image = 1,
                           .pcs = {kRetInStart - 1, kRetInMain - 1, kWork},
                           .calls = 1,
                           .self_ns = 50,
                           .min_ns = 50,
                           .max_ns = 50});
  collector->add_measured(
      {.pid = 100, .tid = 100, .image = 1, .pcs = pcs, .calls = 1, .self_ns = 1000, .min_ns = 1000, .max_ns = 1000});
  // An entry stack that stopped short of the program's start: under [truncated], counted.
  collector->add_measured({.pid = 100,
                           .tid = 100,
                           .image = 1,
                           .pcs = {kRetInWork - 1, kLeaf},
                           .calls = 2,
                           .self_ns = 80,
                           .min_ns = 40,
                           .max_ns = 40});
  collector->note_hit(100, 100, 77);
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "[truncated]",
                                       "[truncated];work",
                                       "[truncated];work;leaf calls=2 wall_ns=80 min_wall_ns=40 max_wall_ns=40",
                                       "_start",
                                       "_start;main",
                                       "_start;main;work calls=1 wall_ns=50 min_wall_ns=50 max_wall_ns=50",
                                       "_start;main;work;leaf calls=4 wall_ns=1900 min_wall_ns=200 max_wall_ns=1000",
                                   }));
  EXPECT_EQ(p.threads[0].end_ns, 77);
  EXPECT_EQ(collector->counts().truncated_measured_calls, 2u);
  EXPECT_EQ(collector->counts().truncated_stacks, 0u) << "samples' count, not calls'";
}

TEST_F(SampleCollectorTest, InlineFramesComeBetweenTheFunctionAndThePc) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kLeafInline + 4, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 20, 1000, {kLeaf + 4, kRetInWork, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(
      dump(p, p.threads[0]),
      (std::vector<std::string>{
          "_start",
          "_start;main",
          "_start;main;work",
          "_start;main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
          "_start;main;work;leaf;outer_helper [inlined]",
          "_start;main;work;leaf;outer_helper [inlined];inner_helper [inlined] wall_ns=1000 cpu_ns=1000 samples=1",
      }));
  // Both pcs of leaf are one function (its entry), the inline frames are known by name.
  EXPECT_EQ(std::count_if(p.functions.begin(), p.functions.end(), [](const Function& f) { return f.name == "leaf"; }),
            1);
  EXPECT_EQ(function(p, "inner_helper").address, 0u);
}

TEST_F(SampleCollectorTest, AddressesOutsideEveryFileAreNamedAfterTheirRegion) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1, {kAnon + 0x10, kRetInMain, kRetInStart}));    // JIT code
  collector->on_sample(sample(100, 100, 20, 2, {kVdso + 0x10, kRetInMain, kRetInStart}));    // the vDSO
  collector->on_sample(sample(100, 100, 30, 4, {0x12345, kRetInMain, kRetInStart}));         // no mapping
  collector->on_sample(sample(100, 100, 40, 8, {kAppEnd - 0x10, kRetInMain, kRetInStart}));  // no symbol
  collector->on_sample(sample(100, 100, 50, 16, {kWork + 8, 0x999999, kRetInMain}));         // chain leaves the code
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "[truncated]",
                                       "[truncated];work wall_ns=16 cpu_ns=16 samples=1",
                                       "_start",
                                       "_start;main",
                                       "_start;main;[anonymous] wall_ns=1 cpu_ns=1 samples=1",
                                       "_start;main;[unknown] wall_ns=4 cpu_ns=4 samples=1",
                                       "_start;main;[vdso] wall_ns=2 cpu_ns=2 samples=1",
                                       "_start;main;app+0x1ff0 wall_ns=8 cpu_ns=8 samples=1",
                                   }));
}

TEST_F(SampleCollectorTest, WarningsOfLoadBiasesAndImagesAreGivenOnce) {
  fake->broken_path = "/fake/libc.so";
  fake->image_warnings = {"fake: no debug info"};
  start_app();
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 200, 200, 100, "", 7));
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_sample(sample(200, 200, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  const Profile p = build();
  EXPECT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), "cannot read /fake/libc.so"), 2)
      << "one per image that has the file (repeated for a forked child today)";
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), "fake: no debug info"), 1);
}

TEST_F(SampleCollectorTest, TimelineKeepsTheMostRecentSamplesAndTheSystemCalls) {
  start_app();
  collector->set_timeline_events(2);
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 20, 2000, {kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 30, 3000, {kWork + 0x10, kRetInMain, kRetInStart}));
  collector->on_syscall(system_call(100, 40, {kRead + 0x20, kRetInMain}, 0, "read", 5));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  const Thread& t = p.threads[0];
  std::vector<std::string> events;
  for (const TimelineEvent& e : t.timeline.events) {
    std::string path;
    for (FunctionId f : t.tree.path_to(e.node)) path += (path.empty() ? "" : ";") + p.functions[f].name;
    events.push_back(path + " @" + std::to_string(e.start_ns) + " +" + std::to_string(e.duration_ns));
  }
  std::sort(events.begin(), events.end());
  // The call's stack, cut at main, continues as the samples' do.
  EXPECT_EQ(events, (std::vector<std::string>{"_start;main;read;[syscall] read @40 +5", "_start;main;work @30 +3000",
                                              "_start;main;work;leaf @20 +2000"}));
  EXPECT_EQ(t.timeline.dropped, 1u) << "the oldest sample";
  ASSERT_TRUE(p.meta.timeline.has_value());
  EXPECT_EQ(p.meta.timeline->capacity, 2u);
}

TEST_F(SampleCollectorTest, NoTimelineUnlessAsked) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_TRUE(p.threads[0].timeline.events.empty());
  EXPECT_FALSE(p.meta.timeline.has_value());
}

// Honest stacks (SPEC §1.2): a stack whose outermost frame is not where a thread begins lost
// its callers; it hangs under one [truncated] node, never as a root of its own.
TEST_F(SampleCollectorTest, StacksThatDoNotReachARootHangUnderTruncated) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 20, 1000, {kLeaf + 0x10, kRetInWork, kRetInMain}));  // main is no root
  collector->on_sample(sample(100, 100, 30, 1000, {kLeaf + 0x10, kRetInWork}));              // a frame without fp
  collector->on_sample(sample(100, 100, 40, 1000, {kLeaf + 0x10}));
  perf::Sample blocked = sample(100, 100, 50, 0, {kWork + 0x10});  // off-CPU stacks count too
  blocked.switch_out = true;
  collector->on_sample(std::move(blocked));
  collector->on_switch(perf::SwitchEvent{.pid = 100, .tid = 100, .time_ns = 80, .out = false});
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "[truncated]",
                                       "[truncated];leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                       "[truncated];main",
                                       "[truncated];main;work",
                                       "[truncated];main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                       "[truncated];work wall_ns=30 offcpu_ns=30",
                                       "[truncated];work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                       "_start",
                                       "_start;main",
                                       "_start;main;work",
                                       "_start;main;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                   }));
  EXPECT_EQ(function(p, "[truncated]").kind, FunctionKind::Truncated);
  EXPECT_EQ(collector->counts().truncated_stacks, 4u);
  EXPECT_EQ(collector->counts().samples + collector->counts().off_cpu_samples, 5u);
}

// A thread begins in the C library's start_thread; a process in the C runtime's start code,
// which a libc without symbols leaves unnamed: the unnamed frame that called main.
TEST_F(SampleCollectorTest, ThreadStartsAndUnnamedStartCodeAreRoots) {
  start_app();
  collector->on_task(task(perf::TaskEvent::Kind::Fork, 100, 101, 100, "", 5));
  collector->on_sample(sample(100, 101, 10, 1000, {kLeaf + 0x10, kRetInWork, kStartThread + 0x40}));
  collector->on_sample(sample(100, 100, 20, 1000, {kWork + 0x10, kRetInMain, kLibcNoSymbol + 0x10}));
  collector->on_sample(sample(100, 100, 30, 1000, {kLeaf + 0x10, kRetInWork, kLibcNoSymbol + 0x10}));  // not main
  collector->on_sample(sample(100, 100, 40, 1000, {kLeaf + 0x10, kRetInWork, kRead + 0x40}));  // named, not a root
  collector->on_sample(sample(100, 100, 45, 1000, {kMain + 0x10, kLibcStartMain + 0x40}));     // a versioned root
  // The kernel has its own start_thread: a stack of kernel frames alone reached no user root.
  fake->kernel.push_back({kKernelNoName, kKernelNoName + 0x100, "start_thread", {}});
  collector->on_sample(sample(100, 100, 50, 1000, {}, {kKernelNoName + 0x10}));
  const Profile p = build();
  EXPECT_EQ(dump(p, thread(p, 101)), (std::vector<std::string>{
                                         "start_thread",
                                         "start_thread;work",
                                         "start_thread;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                     }));
  EXPECT_EQ(dump(p, thread(p, 100)), (std::vector<std::string>{
                                         "[truncated]",
                                         "[truncated];libc.so+0x180f",
                                         "[truncated];libc.so+0x180f;work",
                                         "[truncated];libc.so+0x180f;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                         "[truncated];read",
                                         "[truncated];read;work",
                                         "[truncated];read;work;leaf wall_ns=1000 cpu_ns=1000 samples=1",
                                         "[truncated];start_thread wall_ns=1000 cpu_ns=1000 samples=1",
                                         "__libc_start_main@@GLIBC_2.34",
                                         "__libc_start_main@@GLIBC_2.34;main wall_ns=1000 cpu_ns=1000 samples=1",
                                         "libc.so+0x180f",
                                         "libc.so+0x180f;main",
                                         "libc.so+0x180f;main;work wall_ns=1000 cpu_ns=1000 samples=1",
                                     }));
  EXPECT_EQ(collector->counts().truncated_stacks, 3u);
}

// A frame-pointer chain can run on past the program's entry through whatever the start code
// left in rbp: what it shows outside an entry function (or outside the unnamed start code
// that called main) is garbage and dropped. clone is no such entry: a program calls it.
TEST_F(SampleCollectorTest, FramesReadPastTheEntryAreDropped) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kWork + 0x10, kRetInMain, kRetInStart, kRead + 0x40}));
  collector->on_sample(sample(100, 100, 20, 1000, {kWork + 0x10, kRetInMain, kLibcNoSymbol + 0x10, kRead + 0x40}));
  collector->on_sample(sample(100, 100, 30, 1000, {kClone3 + 0x10, kRetInWork, kRead + 0x40}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]), (std::vector<std::string>{
                                       "[truncated]",
                                       "[truncated];read",
                                       "[truncated];read;work",
                                       "[truncated];read;work;clone3 wall_ns=1000 cpu_ns=1000 samples=1",
                                       "_start",
                                       "_start;main",
                                       "_start;main;work wall_ns=1000 cpu_ns=1000 samples=1",
                                       "libc.so+0x180f",
                                       "libc.so+0x180f;main",
                                       "libc.so+0x180f;main;work wall_ns=1000 cpu_ns=1000 samples=1",
                                   }));
  EXPECT_EQ(collector->counts().truncated_stacks, 1u);
}

// An inlined function is the same function as its out-of-line copy (one id: per-function
// views add both up); its nodes say they were inlined, and where they were called they do not.
TEST_F(SampleCollectorTest, InlinedFramesAreMarkedAndShareTheirFunctionsId) {
  start_app();
  collector->on_sample(sample(100, 100, 10, 1000, {kLeafInline + 4, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(
      sample(100, 100, 20, 1000, {kOuterHelper + 4, kLeaf + 0x10, kRetInWork, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(
      dump(p, p.threads[0]),
      (std::vector<std::string>{
          "_start",
          "_start;main",
          "_start;main;work",
          "_start;main;work;leaf",
          "_start;main;work;leaf;outer_helper [inlined]",
          "_start;main;work;leaf;outer_helper [inlined];inner_helper [inlined] wall_ns=1000 cpu_ns=1000 samples=1",
          "_start;main;work;leaf;outer_helper wall_ns=1000 cpu_ns=1000 samples=1",
      }));
  EXPECT_EQ(
      std::count_if(p.functions.begin(), p.functions.end(), [](const Function& f) { return f.name == "outer_helper"; }),
      1);
  EXPECT_EQ(function(p, "outer_helper").address, kOuterHelper - 0x400000) << "the out-of-line copy's entry";
}

// record --no-inline: as perf --no-inline, an address is its function's, whatever was inlined there.
TEST_F(SampleCollectorTest, WithoutInlinedFramesTheEnclosingFunctionGetsTheTime) {
  start_app();
  collector->set_inlined_frames(false);
  collector->on_sample(sample(100, 100, 10, 1000, {kLeafInline + 4, kRetInWork, kRetInMain, kRetInStart}));
  collector->on_sample(sample(100, 100, 20, 1000, {kLeaf + 4, kRetInWork, kRetInMain, kRetInStart}));
  const Profile p = build();
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(dump(p, p.threads[0]),
            (std::vector<std::string>{"_start", "_start;main", "_start;main;work",
                                      "_start;main;work;leaf wall_ns=2000 cpu_ns=2000 samples=2"}));
  for (const Function& f : p.functions) EXPECT_NE(f.name, "inner_helper");
}

// A cold part's owner comes from the module file's own symbols: this test's binary, where GCC
// split functions (NAME.cold); any other symbol, or a cold name at another address, has none.
TEST(FunctionTableColdParts, AColdPartsOwnerIsTheFunctionItWasSplitFrom) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const std::vector<std::pair<uint64_t, uint64_t>> parts = cold_part_owners(self);
  if (parts.empty()) GTEST_SKIP() << self << " has no cold parts (built by a compiler that does not split functions)";
  Profile p;
  FunctionTable table(p);
  const ModuleId m = table.module(self, "");
  SymbolInfo inside;
  inside.linkage_name = "split_function.cold";  // what names a part; its address says whose
  inside.file_address = parts.front().first + 3;
  inside.offset = 3;
  const auto file = [&] { return self; };
  uint64_t asked = 0;
  const auto resolve = [&](uint64_t address) {
    asked = address;
    SymbolInfo s;
    s.name = s.linkage_name = "split_function";
    s.file_address = address - 0x1000;  // loaded 0x1000 above its file addresses
    return s;
  };
  const uint64_t pc = inside.file_address + 0x1000;
  const std::optional<SymbolInfo> owner = table.cold_part_owner(m, inside, pc, file, resolve);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(asked, parts.front().second + 0x1000) << "the owner's entry, at the part's load bias";
  EXPECT_EQ(owner->file_address, parts.front().second);
  SymbolInfo not_a_part = inside;
  not_a_part.linkage_name = "main";
  EXPECT_EQ(table.cold_part_owner(m, not_a_part, pc, file, resolve), std::nullopt);
  SymbolInfo elsewhere = inside;
  elsewhere.file_address = 1, elsewhere.offset = 0;
  EXPECT_EQ(table.cold_part_owner(m, elsewhere, 0x1001, file, resolve), std::nullopt);
  EXPECT_EQ(table.cold_part_owner(kNoModule, inside, pc, file, resolve), std::nullopt);
  const auto unnamed = [](uint64_t) { return SymbolInfo{}; };
  EXPECT_EQ(table.cold_part_owner(m, inside, pc, file, unnamed), std::nullopt) << "no function at the entry";
}

}  // namespace
}  // namespace callprof::stacks
