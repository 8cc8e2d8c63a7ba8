// process_synth: writes a profile of many short processes (a build system, a test runner, a
// shell script), for the views' cost per process (bench/analysis/processes.sh and the CLI
// test ManyProcesses).
//
//   process_synth --processes N [--threads-per-process T] -o PATH
//
// Process i (pid 1000 + i) was forked by a random earlier one; every tenth exec'd once (a
// second image of the same pid). Each image has T threads, thread k > 0 created by thread
// k - 1 from `spawn`, each with a small tree (main -> work -> leaf_i%50).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/profile.h"
#include "trace/profile_file.h"

using namespace callprof;

namespace {

struct Options {
  uint64_t processes = 1000;
  uint32_t threads = 2;
  std::string output = "processes.callprof";
};

[[noreturn]] void usage(const char* why) {
  if (why) std::fprintf(stderr, "process_synth: %s\n", why);
  std::fprintf(stderr, "usage: process_synth --processes N [--threads-per-process T] -o PATH\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--processes")
      o.processes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--threads-per-process")
      o.threads = uint32_t(std::strtoul(argv[i + 1], nullptr, 10));
    else if (a == "-o")
      o.output = argv[i + 1];
    else
      usage("unknown option");
  }
  if (argc % 2 == 0) usage("options take one value each");
  if (o.processes < 1 || o.processes > 1'000'000 || o.threads < 1 || o.threads > 64) usage("out of range");
  return o;
}

// A deterministic pseudo-random parent: the same options give the same file.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Thread make_thread(uint32_t pid, uint32_t tid, uint32_t creator, int64_t start, uint64_t seed) {
  Thread t;
  t.pid = pid;
  t.tid = tid;
  t.creator_tid = creator;
  if (creator) t.creator_path = {0, 2};
  t.start_routine = creator ? 1 : kNoFunction;
  t.name = creator ? "worker" : "job";
  t.start_ns = start;
  t.end_ns = start + 1'000'000;
  t.finished = true;
  const NodeId main = t.tree.child(kRootNode, creator ? 1 : 0);
  const NodeId leaf = t.tree.child(t.tree.child(main, 2), FunctionId(3 + seed % 50));
  for (NodeId n : {main, leaf}) {
    t.tree.base(n)[Metric::Calls] = 1 + seed % 7;
    t.tree.base(n)[Metric::WallNs] = 1000 + seed % 100'000;
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Profile p;
  p.meta.command = "make -j8";
  p.meta.mode = RecordingMode::Exact;
  p.meta.duration_ns = int64_t(o.processes) * 1'000'000;
  p.meta.callprof_version = "bench";
  p.modules = {{"/usr/bin/job", ""}};
  for (std::string name : {"main", "worker_main", "spawn"}) p.functions.push_back({name, name, 0, 0, "", 0});
  for (int i = 0; i < 50; ++i) p.functions.push_back({"leaf_" + std::to_string(i), "", 0, 0, "", 0});
  uint32_t next_tid = 1'000'000;
  for (uint64_t i = 0; i < o.processes; ++i) {
    const uint32_t pid = uint32_t(1000 + i);
    const uint32_t ppid = i == 0 ? 0 : uint32_t(1000 + mix(i) % i);
    const int64_t start = int64_t(i) * 1000;
    for (uint32_t image = 0; image <= (i % 10 == 9 ? 1u : 0u); ++image) {
      const int64_t image_start = start + image * 500;
      p.processes.push_back({.pid = pid,
                             .ppid = ppid,
                             .image = image,
                             .command = "job " + std::to_string(i),
                             .start_ns = image_start,
                             .end_ns = image_start + 2'000'000});
      uint32_t creator = 0;
      for (uint32_t k = 0; k < o.threads; ++k) {
        const uint32_t tid = k == 0 ? pid : next_tid++;
        p.threads.push_back(make_thread(pid, tid, creator, image_start + k, mix(i * 64 + k)));
        creator = tid;
      }
    }
  }
  if (Status s = write_profile(p, o.output); !s) {
    std::fprintf(stderr, "process_synth: %s\n", s.error().message.c_str());
    return 1;
  }
  return 0;
}
