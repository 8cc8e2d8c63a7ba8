// Memory bounded by the input (docs/format.md, Limits), for every command that reads profiles:
// crafted bombs make each view, export, picture and merge fail at once with one line, in
// little memory (peak RSS of the child, from wait4); files that cost much but honestly are
// read within the memory their counts promise, and so is an honest profile when the limit
// is set to exactly its estimate. Before the bounds, bombs took 1-10 GiB and up to minutes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "crafted_profiles.h"
#include "model/profile.h"
#include "trace/container.h"
#include "trace/payload_budget.h"
#include "trace/profile_file.h"

extern char** environ;

namespace {

using callprof::crafted::CraftedFile;

struct Measured {
  int status = -1;
  long max_rss_kib = 0;
  double seconds = 0;
  std::string err;
};

// Runs callprof with `args`, its environment ours without CALLPROF_MEMORY_LIMIT, plus `env`.
// Linux carries a process's memory high-water mark across exec, so the child's peak RSS
// starts at what it shares with the parent when it execs: all of the parent's memory with
// posix_spawn (vfork), the parent's resident pages with fork. Hence fork, from a parent
// that has given its freed memory back (written_files).
Measured run(const std::vector<std::string>& args, const std::string& env = "") {
  const std::string err_path = testing::TempDir() + "/hostile_size_stderr";
  std::vector<char*> argv = {const_cast<char*>(CALLPROF_BIN)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "CALLPROF_MEMORY_LIMIT=", 22) != 0) envp.push_back(*e);
  if (!env.empty()) envp.push_back(const_cast<char*>(env.c_str()));
  envp.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int out = open("/dev/null", O_WRONLY), err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    execve(CALLPROF_BIN, argv.data(), envp.data());
    _exit(127);
  }
  EXPECT_GT(pid, 0);
  Measured m;
  int status = 0;
  rusage usage{};
  EXPECT_EQ(wait4(pid, &status, 0, &usage), pid);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  m.max_rss_kib = usage.ru_maxrss;
  std::ifstream e(err_path);
  m.err.assign(std::istreambuf_iterator<char>(e), {});
  return m;
}

// Every command that reads a profile, on `path`; outputs go to the test's directory. Merge
// reads it twice.
struct Command {
  std::string name;
  std::vector<std::string> args;
  int inputs = 1;
};
std::vector<Command> commands(const std::string& path) {
  const std::string out = testing::TempDir() + "/hostile_size_out";
  return {
      {"report", {"report", "--no-pager", "-i", path}},
      {"report tree", {"report", "--no-pager", "--view", "tree", "-i", path}},
      {"report --json", {"report", "--no-pager", "--json", "-i", path}},
      {"html", {"html", "-i", path, "-o", out + ".html"}},
      {"export pprof", {"export", "-f", "pprof", "-i", path, "-o", out + ".pb.gz"}},
      {"export callgrind", {"export", "-f", "callgrind", "-i", path, "-o", out + ".callgrind"}},
      {"export speedscope", {"export", "-f", "speedscope", "-i", path, "-o", out + ".json"}},
      {"graph", {"graph", "-i", path, "-o", out + ".svg"}},
      {"flame", {"flame", "-i", path, "-o", out + ".flame.svg"}},
      {"merge", {"merge", path, path, "-o", out + ".callprof"}, 2},
  };
}

std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

// The crafted files written out (once: the bombs take seconds to make), bombs or the others,
// with the memory that made them given back to the system.
std::vector<std::string> written_files(bool bombs) {
  static const std::vector<std::pair<std::string, bool>> written = [] {
    std::vector<std::pair<std::string, bool>> files;
    for (const CraftedFile& f : callprof::crafted::all()) files.emplace_back(write(f.name, f.bytes), f.bomb);
    return files;
  }();
  malloc_trim(0);
  std::vector<std::string> paths;
  for (const auto& [path, bomb] : written)
    if (bomb == bombs) paths.push_back(path);
  return paths;
}

std::vector<uint8_t> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// What the reader estimates a file to need (it must be within the default limit).
uint64_t estimate(const std::vector<uint8_t>& file) {
  auto header = callprof::trace::decode_header(file);
  EXPECT_TRUE(header.ok());
  if (!header) return 0;
  auto payload = callprof::trace::decompress_payload(*header, std::span(file).subspan(callprof::trace::kHeaderSize));
  EXPECT_TRUE(payload.ok());
  if (!payload) return 0;
  auto need = callprof::trace::check_payload_budget(
      std::span(reinterpret_cast<const uint8_t*>(payload->data()), payload->size()), file.size());
  EXPECT_TRUE(need.ok()) << need.error().message;
  return need ? *need : 0;
}

void print(const std::string& file, size_t size, const Command& c, const Measured& m) {
  std::printf("%-32s %9zu bytes  %-18s exit %d in %6.2f s, peak RSS %7ld KiB: %s", file.c_str(), size, c.name.c_str(),
              m.status, m.seconds, m.max_rss_kib, m.err.empty() ? "\n" : m.err.c_str());
}

// Every command reads the file (exit 0) in at most its estimate (merge: one per input), in
// under `seconds`.
void expect_within(const std::string& path, uint64_t estimate_bytes, const std::string& env, double seconds) {
  const size_t size = read(path).size();
  malloc_trim(0);
  std::printf("%s: the reader's estimate is %llu KiB\n", path.c_str(), (unsigned long long)(estimate_bytes >> 10));
  for (const Command& c : commands(path)) {
    SCOPED_TRACE(c.name);
    const Measured m = run(c.args, env);
    print(path.substr(path.rfind('/') + 1), size, c, m);
    EXPECT_EQ(m.status, 0) << m.err;
    EXPECT_LE(uint64_t(m.max_rss_kib) * 1024, c.inputs * estimate_bytes) << "peak RSS above the estimate";
    EXPECT_LT(m.seconds, seconds);
  }
}

TEST(HostileSize, BombsAreRefusedAtOnceInLittleMemoryByEveryCommand) {
  for (const std::string& path : written_files(true)) {
    SCOPED_TRACE(path);
    const size_t size = read(path).size();
    for (const Command& c : commands(path)) {
      SCOPED_TRACE(c.name);
      const Measured m = run(c.args);
      print(path.substr(path.rfind('/') + 1), size, c, m);
      EXPECT_EQ(m.status, 2);
      EXPECT_EQ(m.err.rfind("callprof: error: " + path + ": ", 0), 0u) << m.err;
      EXPECT_EQ(std::count(m.err.begin(), m.err.end(), '\n'), 1) << m.err;
      // Wide margins: the files are at most ~8 MB; before the bounds they took 1-10 GiB.
      EXPECT_LT(m.max_rss_kib, 200 * 1024) << "peak RSS";
      EXPECT_LT(m.seconds, 10.0);
    }
  }
}

// A refusal names what costs most and how to raise the limit; a limit that is not a size
// is one line too.
TEST(HostileSize, ARefusalSaysWhatCostsMostAndHowToRaiseTheLimit) {
  const std::string path = write("node_bomb.callprof", callprof::crafted::node_bomb().bytes);
  const Measured m = run({"report", "--no-pager", "-i", path});
  EXPECT_NE(m.err.find("too large (reading and showing it would take about"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("its 16777216 call tree nodes"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("set CALLPROF_MEMORY_LIMIT=10G"), std::string::npos) << m.err;
  const Measured bad = run({"report", "--no-pager", "-i", path}, "CALLPROF_MEMORY_LIMIT=lots");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("CALLPROF_MEMORY_LIMIT: 'lots' is not a memory size"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(HostileSize, CostlyButHonestFilesAreReadWithinTheirEstimate) {
  for (const std::string& path : written_files(false)) {
    SCOPED_TRACE(path);
    expect_within(path, estimate(read(path)), "", 60.0);
  }
}

// An honest node-heavy profile (threads of a C++ program, 240,000 paths) with the limit set
// to exactly its estimate: one byte less refuses it, and at the limit every command stays
// within it.
callprof::Profile honest_profile() {
  using namespace callprof;
  Profile p;
  p.meta.command = "server";
  p.meta.mode = RecordingMode::Exact;
  p.meta.duration_ns = 1'000'000'000;
  Process process;
  process.pid = 1;
  process.command = "server";
  process.end_ns = 1'000'000'000;
  p.processes = {process};
  for (int f = 0; f < 3000; ++f)
    p.functions.push_back({"ns" + std::to_string(f % 37) + "::Handler<std::string>::step" + std::to_string(f) +
                               "(std::vector<int> const&)",
                           "", kNoModule, uint64_t(0x1000 + f), "server.cpp", uint32_t(f), FunctionKind::Normal});
  uint64_t state = 1;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull, state >> 33; };
  for (uint32_t t = 0; t < 8; ++t) {
    Thread th;
    th.tid = t + 1;
    th.pid = 1;
    th.name = "worker";
    th.finished = true;
    std::vector<NodeId> open = {kRootNode};
    for (int n = 0; n < 30'000; ++n) {  // a random walk, 1 to 30 frames deep
      const NodeId parent = open[next() % open.size()];
      const NodeId node = th.tree.child(parent, FunctionId(next() % 3000));
      th.tree.base(node)[Metric::Calls] = 1 + next() % 100;
      th.tree.base(node)[Metric::WallNs] = 1000 + next() % 100'000;
      th.tree.base(node)[Metric::CpuNs] = 500 + next() % 50'000;
      if (open.size() < 30)
        open.push_back(node);
      else
        open[next() % open.size()] = node;
    }
    p.threads.push_back(std::move(th));
  }
  return p;
}

TEST(HostileSize, AnHonestProfileAtTheEdgeOfItsLimitStaysWithinIt) {
  const std::string path = testing::TempDir() + "/honest_edge.callprof";
  ASSERT_TRUE(callprof::write_profile(honest_profile(), path).ok());
  const uint64_t need = estimate(read(path));
  ASSERT_GT(need, 0u);
  const Measured under = run({"report", "--no-pager", "-i", path}, "CALLPROF_MEMORY_LIMIT=" + std::to_string(need - 1));
  EXPECT_EQ(under.status, 2);
  EXPECT_NE(under.err.find("too large"), std::string::npos) << under.err;
  // The limit the message suggests is enough.
  const size_t at = under.err.find("set CALLPROF_MEMORY_LIMIT=");
  ASSERT_NE(at, std::string::npos) << under.err;
  const std::string suggested = under.err.substr(at + 4, under.err.find(';', at) - at - 4);
  EXPECT_EQ(run({"report", "--no-pager", "-i", path}, suggested).status, 0) << suggested;
  expect_within(path, need, "CALLPROF_MEMORY_LIMIT=" + std::to_string(need), 60.0);
}

}  // namespace
