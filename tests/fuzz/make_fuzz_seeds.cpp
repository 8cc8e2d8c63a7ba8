// Writes the fuzzer's seed corpus into the directory given as argv[1]: a few valid profile
// files, the bare protobuf payload of each (the fuzzer also tries inputs as payloads), and
// the crafted hostile files of tests/support/crafted_profiles.h.
#include <cstdio>
#include <fstream>
#include <string>

#include "crafted_profiles.h"
#include "trace/profile_file.h"
#include "trace/proto_convert.h"

namespace callprof {
namespace {

Profile threaded_profile() {
  Profile p;
  p.meta.command = "./seed --threads 2";
  p.meta.mode = RecordingMode::Exact;
  p.meta.extra = {{"filter", "fib"}};
  p.modules = {{"/bin/seed", "abcdef"}};
  p.functions = {{"main", "main", 0, 0x1000, "seed.c", 1},
                 {"fib", "fib", 0, 0x1100, "seed.c", 9},
                 {"worker", "worker", kNoModule, 0, "", 0}};
  Process proc;
  proc.pid = 10;
  proc.ppid = 1;
  proc.command = "./seed";
  proc.start_ns = 1;
  proc.end_ns = 2;
  proc.death_signal = 9;
  proc.complete = false;
  proc.hook_inner_ns = 10.5;
  proc.hook_outer_ns = 12.25;
  p.processes = {proc};
  for (uint32_t tid : {10u, 11u}) {
    Thread t;
    t.tid = tid;
    t.pid = 10;
    t.name = "t" + std::to_string(tid);
    t.start_routine = tid == 10 ? kNoFunction : 2;
    t.offcpu = Thread::OffCpu::Measured;
    t.prunes = tid == 11 ? 2 : 0;
    if (tid == 11) t.creator_path = {0};
    const std::vector<FunctionId> path = {tid == 10 ? 0u : 2u, 1, 1, 1};
    for (size_t depth = 1; depth <= path.size(); ++depth) {
      const NodeId node = t.tree.path(std::span(path).first(depth));
      MetricRowRef m = t.tree.base(node);
      m[Metric::Calls] = depth;
      m[Metric::WallNs] = 100 * depth;
      m[Metric::MinWallNs] = depth;
      m[Metric::MaxWallNs] = 50 * depth;
      m[Metric::CpuNs] = 60 * depth;
      m[Metric::OffCpuNs] = 40 * depth;
      m[Metric::AllocCalls] = depth;
      m[Metric::AllocBytes] = 64 * depth;
      m[Metric::ExcludedCalls] = depth / 2;
    }
    // Source lines: samples at an instruction of fib, and fib's call site in its caller.
    LocationTable locations(p);
    const NodeId fib = t.tree.path(std::span(path).first(2));
    t.code.instructions.push_back({fib, locations.add(1, 0x1108, "seed.c", 10), 3, 3000});
    t.code.call_sites.push_back({fib, locations.add(path[0], 0x1010, "seed.c", 4)});
    p.threads.push_back(std::move(t));
  }
  return p;
}

Profile sampled_profile() {
  Profile p;
  p.meta.mode = RecordingMode::Sample;
  p.functions = {{"a", "", kNoModule, 0, "", 0}, {"b", "", kNoModule, 0, "", 0}};
  Thread t;
  t.tid = 1;
  t.tree.base(t.tree.path(std::vector<FunctionId>{0, 1}))[Metric::Samples] = 9;
  t.tree.base(t.tree.path(std::vector<FunctionId>{1, 0}))[Metric::Samples] = 4;
  p.threads.push_back(std::move(t));
  return p;
}

// System calls traced: a `[syscall]` leaf and the thread's statistics with errnos and a
// histogram, so the fuzzer starts from those fields too.
Profile syscall_profile() {
  Profile p;
  p.meta.mode = RecordingMode::Syscall;
  p.functions = {{"main", "", kNoModule, 0, "", 0}, {"[syscall] write", "", kNoModule, 0, "", 0}};
  Thread t;
  t.tid = 1;
  MetricRowRef leaf = t.tree.base(t.tree.path(std::vector<FunctionId>{0, 1}));
  leaf[Metric::Calls] = leaf[Metric::Syscalls] = 3;
  leaf[Metric::SyscallNs] = leaf[Metric::WallNs] = 4500;
  leaf[Metric::SyscallErrors] = 1;
  SyscallStats s;
  s.name = "write";
  s.number = 1;
  s.add(1000, 0);
  s.add(1500, 0);
  s.add(2000, 9);
  t.syscalls.push_back(s);
  p.threads.push_back(std::move(t));
  return p;
}

bool write_bytes(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), std::streamsize(size));
  return bool(out);
}

bool write_seed(const std::string& dir, const std::string& name, const Profile& profile) {
  Result<std::vector<uint8_t>> file = serialize_profile(profile);
  const std::string payload = trace::to_proto(profile).SerializeAsString();
  return file.ok() && write_bytes(dir + "/" + name + ".callprof", file->data(), file->size()) &&
         write_bytes(dir + "/" + name + ".payload", payload.data(), payload.size());
}

}  // namespace
}  // namespace callprof

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = callprof::write_seed(dir, "empty", callprof::Profile{});
  ok = ok && callprof::write_seed(dir, "threaded", callprof::threaded_profile());
  ok = ok && callprof::write_seed(dir, "sampled", callprof::sampled_profile());
  ok = ok && callprof::write_seed(dir, "syscalls", callprof::syscall_profile());
  // The crafted hostile files (bombs, huge counts) of the bounded-memory test, as they are,
  // but for the floods of a million functions (5-8 MB): files the reader accepts and takes
  // seconds over under the sanitizers, which would spend the fuzzer's time on them alone.
  for (const callprof::crafted::CraftedFile& f : callprof::crafted::all())
    if (f.bytes.size() <= (1u << 20))
      ok = ok && callprof::write_bytes(dir + "/" + f.name, f.bytes.data(), f.bytes.size());
  if (!ok) std::fprintf(stderr, "make_fuzz_seeds: cannot write seeds into %s\n", dir.c_str());
  return ok ? 0 : 1;
}
