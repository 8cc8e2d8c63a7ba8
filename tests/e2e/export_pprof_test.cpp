// The pprof export opened with its real consumer, `go tool pprof`: for the gprof
// counter-example, every function's flat and cum (wall, CPU, off-CPU time, in ns) and its
// call count as pprof reports them equal `callprof report --json` exactly, and so do the
// times D spent on behalf of B and of C (pprof's -peek).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_support.h"

namespace e2e {
namespace {

namespace fs = std::filesystem;

// `go` on PATH (Debian's golang-go), "" when there is none.
std::string find_go() { return find_on_path("go"); }

// pprof's value text, e.g. "327680608ns" or "80" or "0", as an integer.
uint64_t value_of(std::string text, const std::string& unit) {
  if (!unit.empty() && text.size() > unit.size() && text.ends_with(unit)) text.resize(text.size() - unit.size());
  size_t used = 0;
  const uint64_t v = std::stoull(text, &used);
  if (used != text.size()) throw std::runtime_error("not an exact pprof value: " + text);
  return v;
}

struct FlatCum {
  uint64_t flat = 0, cum = 0;
};

// The rows of `pprof -top`: name -> flat, cum. Row: flat flat% sum% cum cum% name.
std::map<std::string, FlatCum> parse_top(const std::string& out, const std::string& unit) {
  std::map<std::string, FlatCum> rows;
  std::istringstream in(out);
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (!table) {
      table = line.find("flat%") != std::string::npos && line.find("cum%") != std::string::npos;
      continue;
    }
    std::istringstream fields(line);
    std::string flat, flat_pct, sum_pct, cum, cum_pct, name;
    if (!(fields >> flat >> flat_pct >> sum_pct >> cum >> cum_pct)) continue;
    std::getline(fields >> std::ws, name);
    rows[name] = {value_of(flat, unit), value_of(cum, unit)};
  }
  if (!table) throw std::runtime_error("no table in pprof's output:\n" + out);
  return rows;
}

// The caller lines of `pprof -peek`: "  VALUE PCT% |   CALLER" above the function's own row.
std::map<std::string, uint64_t> parse_peek_callers(const std::string& out, const std::string& unit) {
  std::map<std::string, uint64_t> callers;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const size_t bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::istringstream left(line.substr(0, bar));
    std::string value, pct, extra;
    if (!(left >> value >> pct) || (left >> extra)) continue;  // the function's own row has more fields
    std::string name = line.substr(bar + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) callers[name] = value_of(value, unit);
  }
  return callers;
}

class ExportPprof : public E2ETest {
 protected:
  void SetUp() override {
    E2ETest::SetUp();
    go_ = find_go();
    if (go_.empty()) GTEST_SKIP() << "go is not installed (Debian: golang-go): go tool pprof cannot read the export";
  }

  // `go tool pprof ARGS p.pb.gz`, with HOME and the build cache in the test's directory (CI
  // may have no HOME). pprof must say nothing about symbolization: the export has it all.
  std::string pprof(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/env",
                                     "HOME=" + dir().string(),
                                     "GOCACHE=" + (dir() / "gocache").string(),
                                     "GOTOOLCHAIN=local",
                                     go_,
                                     "tool",
                                     "pprof"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("p.pb.gz");
    RunResult r = run(argv, dir(), "", 120);
    std::string command;
    for (size_t i = 4; i < argv.size(); ++i) command += (i > 4 ? " " : "") + argv[i];
    EXPECT_EQ(r.exit, exited(0)) << command << "\n" << r.err;
    EXPECT_EQ(r.err.find("symboliz"), std::string::npos) << command << "\n" << r.err;
    std::cout << "$ " << command << "\n" << r.out;
    return r.out;
  }

  std::map<std::string, FlatCum> top(const std::string& sample_index, const std::string& unit) {
    std::vector<std::string> args = {"-top", "-nodecount=1000", "-nodefraction=0", "-edgefraction=0",
                                     "-sample_index=" + sample_index};
    if (unit == "ns") args.push_back("-unit=ns");
    return parse_top(pprof(args), unit);
  }

  std::string go_;
};

TEST_P(ExportPprof, GoToolPprofReadsCallprofsNumbersExactly) {
  const std::string binary = build("gprof_split.c");
  RunResult rec = record(binary);
  ASSERT_EQ(rec.exit, exited(0)) << rec.err;
  const Report report = this->report();
  RunResult ex = run({E2E_CALLPROF, "export", "-i", "profile.callprof", "-f", "pprof", "-o", "p.pb.gz"}, dir());
  ASSERT_EQ(ex.exit, exited(0)) << ex.err;
  ASSERT_TRUE(fs::exists(dir() / "p.pb.gz"));

  const std::map<std::string, FlatCum> wall = top("wall", "ns");
  const std::map<std::string, FlatCum> calls = top("calls", "");
  const json& functions = report.doc().at("functions");
  EXPECT_EQ(wall.size(), functions.size()) << "one pprof row per callprof function";
  uint64_t flat_sum = 0;
  for (const json& f : functions) {
    const std::string name = f.at("name");
    SCOPED_TRACE(name);
    ASSERT_TRUE(wall.count(name)) << "pprof has no row for " << name;
    EXPECT_EQ(wall.at(name).flat, u64(f, "self_ns"));
    EXPECT_EQ(wall.at(name).cum, u64(f, "total_ns"));
    ASSERT_TRUE(calls.count(name));
    EXPECT_EQ(calls.at(name).flat, u64(f, "calls"));
    flat_sum += wall.at(name).flat;
  }
  EXPECT_EQ(flat_sum, u64(report.doc().at("summary"), "total_ns"));
  // The program's construction: D 80 calls, B and C one each and 40 calls of D apiece.
  EXPECT_EQ(calls.at("D").flat, 80u);
  EXPECT_EQ(calls.at("B").flat, 1u);
  EXPECT_EQ(calls.at("C").flat, 1u);
  EXPECT_EQ(calls.at("B").cum, 41u);
  EXPECT_EQ(calls.at("C").cum, 41u);

  // CPU and off-CPU time, when the recording measured the split.
  if (!report.function("D").at("cpu_ns").is_null()) {
    const std::map<std::string, FlatCum> cpu = top("cpu", "ns");
    const std::map<std::string, FlatCum> offcpu = top("offcpu", "ns");
    for (const json& f : functions) {
      const std::string name = f.at("name");
      SCOPED_TRACE(name);
      ASSERT_TRUE(cpu.count(name) && offcpu.count(name));
      EXPECT_EQ(cpu.at(name).flat, u64(f, "cpu_ns"));
      EXPECT_EQ(cpu.at(name).cum, u64(f, "total_cpu_ns"));
      // pprof's offcpu is all the time not running: blocked + waiting for a CPU
      // (docs/interop.md, "Off-CPU time"); the report keeps the two apart.
      const auto value = [&](const char* key) { return f.contains(key) ? u64(f, key) : 0; };
      EXPECT_EQ(offcpu.at(name).flat, value("offcpu_ns") + value("preempted_ns"));
      EXPECT_EQ(offcpu.at(name).cum, value("total_offcpu_ns") + value("total_preempted_ns"));
    }
  }

  // D's time per caller, measured (gprof would split it 50/50 by call counts).
  const std::map<std::string, uint64_t> d_callers =
      parse_peek_callers(pprof({"-peek", "^D$", "-sample_index=wall", "-unit=ns"}), "ns");
  ASSERT_EQ(d_callers.size(), 2u);
  EXPECT_EQ(d_callers.at("B"), u64(report.edge("B", "D"), "total_ns"));
  EXPECT_EQ(d_callers.at("C"), u64(report.edge("C", "D"), "total_ns"));
  EXPECT_GT(d_callers.at("B"), 2 * d_callers.at("C")) << "B's calls of D do three times the work";
}

E2E_INSTANTIATE(ExportPprof);

}  // namespace
}  // namespace e2e
