// The pprof export read back with the classes generated from pprof's own schema: sample
// types, one sample per node and thread with the node's self values, leaf-first locations,
// labels, mappings and functions, and strings that always parse (invalid UTF-8 replaced).
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "export/export.h"
#include "fixtures.h"
#include "proto/profile.pb.h"

namespace callprof {
namespace {

namespace pb = perftools::profiles;

Analysis analyse(Profile p, QueryOptions options = {}) {
  auto a = Analysis::run(std::move(p), options);
  if (!a) throw std::runtime_error(a.error().message);
  return std::move(*a);
}

std::string export_bytes(const Analysis& a) {
  std::ostringstream out;
  Status s = write_pprof(a, out);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return out.str();
}

// Gunzips and parses as protobuf's C++ runtime does (which rejects invalid UTF-8 in strings).
pb::Profile parse(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 2u);
  EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b") << "gzip magic";
  google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
  google::protobuf::io::GzipInputStream gunzip(&raw, google::protobuf::io::GzipInputStream::GZIP);
  pb::Profile p;
  EXPECT_TRUE(p.ParseFromZeroCopyStream(&gunzip)) << "the export does not parse";
  return p;
}

// A profile read back, with lookups by name.
struct Readback {
  pb::Profile p;

  const std::string& str(int64_t i) const { return p.string_table(int(i)); }
  std::vector<std::string> types() const {
    std::vector<std::string> out;
    for (const auto& t : p.sample_type()) out.push_back(str(t.type()) + "/" + str(t.unit()));
    return out;
  }
  int column(std::string_view type) const {
    for (int i = 0; i < p.sample_type_size(); ++i)
      if (str(p.sample_type(i).type()) == type) return i;
    ADD_FAILURE() << "no sample type " << type;
    return 0;
  }
  const pb::Location& location(uint64_t id) const {
    for (const auto& l : p.location())
      if (l.id() == id) return l;
    throw std::runtime_error("no location " + std::to_string(id));
  }
  const pb::Function& function(uint64_t id) const {
    for (const auto& f : p.function())
      if (f.id() == id) return f;
    throw std::runtime_error("no function " + std::to_string(id));
  }
  const pb::Function& function_named(std::string_view name) const {
    for (const auto& f : p.function())
      if (str(f.name()) == name) return f;
    throw std::runtime_error("no function " + std::string(name));
  }
  const pb::Mapping* mapping(uint64_t id) const {
    for (const auto& m : p.mapping())
      if (m.id() == id) return &m;
    return nullptr;
  }
  // The sample's frames by name, leaf first as stored (a location's lines innermost first).
  std::vector<std::string> frames(const pb::Sample& s) const {
    std::vector<std::string> out;
    for (uint64_t id : s.location_id()) {
      const pb::Location& l = location(id);
      EXPECT_GE(l.line_size(), 1);
      for (const pb::Line& line : l.line()) out.push_back(str(function(line.function_id()).name()));
    }
    return out;
  }
  std::optional<int64_t> num_label(const pb::Sample& s, std::string_view key) const {
    for (const auto& l : s.label())
      if (str(l.key()) == key) return l.num();
    return std::nullopt;
  }
  std::optional<std::string> str_label(const pb::Sample& s, std::string_view key) const {
    for (const auto& l : s.label())
      if (str(l.key()) == key && l.str() != 0) return str(l.str());
    return std::nullopt;
  }
  // The sample of a path (root first) in the thread, nullptr when none.
  const pb::Sample* sample(uint32_t tid, std::vector<std::string> path) const {
    std::reverse(path.begin(), path.end());
    for (const auto& s : p.sample())
      if (num_label(s, "tid") == int64_t(tid) && frames(s) == path) return &s;
    return nullptr;
  }
};

Readback read_back(const Analysis& a) { return Readback{parse(export_bytes(a))}; }

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(Pprof, ExactProfileSampleTypes) {
  const Readback r = read_back(analyse(testing::counter_example_profile()));
  EXPECT_EQ(r.types(),
            (std::vector<std::string>{"calls/count", "wall/nanoseconds", "cpu/nanoseconds", "offcpu/nanoseconds"}));
  EXPECT_EQ(r.str(r.p.default_sample_type()), "wall");
  EXPECT_EQ(r.p.string_table(0), "");
  EXPECT_EQ(r.p.duration_nanos(), 170000000);
  EXPECT_EQ(r.p.period(), 0) << "exact profiles are not sampled";
  std::vector<std::string> comments;
  for (int64_t c : r.p.comment()) comments.push_back(r.str(c));
  EXPECT_EQ(comments, (std::vector<std::string>{"command: ./counter 40", "mode: exact", "host: testhost"}));
}

TEST(Pprof, OneSamplePerNodeWithItsSelfValues) {
  const Analysis a = analyse(testing::counter_example_profile());
  const Readback r = read_back(a);
  const int calls = r.column("calls"), wall = r.column("wall"), cpu = r.column("cpu"), off = r.column("offcpu");
  size_t expected = 0;
  for (size_t t : a.threads()) {
    const Thread& thread = a.profile().threads[t];
    for (NodeId n = 1; n < thread.tree.size(); ++n) {
      const Metrics& b = thread.tree.base(n);
      if (!b[Metric::Calls] && !b[Metric::WallNs] && !b[Metric::CpuNs] && !b[Metric::OffCpuNs]) continue;
      ++expected;
      std::vector<std::string> path;
      for (FunctionId f : thread.tree.path_to(n)) path.emplace_back(a.full_name(f));
      const pb::Sample* s = r.sample(thread.tid, path);
      ASSERT_NE(s, nullptr) << "no sample for a node of thread " << thread.tid;
      EXPECT_EQ(uint64_t(s->value(calls)), b[Metric::Calls]);
      EXPECT_EQ(uint64_t(s->value(wall)), b[Metric::WallNs]);
      EXPECT_EQ(uint64_t(s->value(cpu)), b[Metric::CpuNs]);
      EXPECT_EQ(uint64_t(s->value(off)), b[Metric::OffCpuNs]);
    }
  }
  EXPECT_EQ(size_t(r.p.sample_size()), expected);
  uint64_t wall_sum = 0, d_calls = 0;
  for (const auto& s : r.p.sample()) {
    wall_sum += uint64_t(s.value(wall));
    if (r.frames(s).front() == "D") d_calls += uint64_t(s.value(calls));
  }
  EXPECT_EQ(wall_sum, a.grand_total_ns());
  EXPECT_EQ(d_calls, 80u);
  // The counter-example's truth: D's 40 calls under B took 120 ms, under C 40 ms.
  ASSERT_NE(r.sample(100, {"main", "A", "B", "D"}), nullptr);
  EXPECT_EQ(r.sample(100, {"main", "A", "B", "D"})->value(wall), 120000000);
  ASSERT_NE(r.sample(100, {"main", "A", "C", "D"}), nullptr);
  EXPECT_EQ(r.sample(100, {"main", "A", "C", "D"})->value(wall), 40000000);
}

TEST(Pprof, LocationsLeafFirstAndLabels) {
  const Readback r = read_back(analyse(testing::counter_example_profile()));
  const pb::Sample* bd = r.sample(100, {"main", "A", "B", "D"});
  ASSERT_NE(bd, nullptr);
  EXPECT_EQ(r.frames(*bd), (std::vector<std::string>{"D", "B", "A", "main"}));
  EXPECT_EQ(r.num_label(*bd, "pid"), 1);
  EXPECT_EQ(r.num_label(*bd, "tid"), 100);
  EXPECT_EQ(r.str_label(*bd, "thread"), "counter");
  EXPECT_EQ(r.str_label(*bd, "host"), "testhost");
  const pb::Sample* e = r.sample(101, {"worker", "E"});
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(r.str_label(*e, "thread"), "worker");
  EXPECT_EQ(r.num_label(*e, "tid"), 101);
  for (const auto& s : r.p.sample()) EXPECT_EQ(s.label_size(), 4);
}

TEST(Pprof, MappingsFunctionsAndAddresses) {
  Profile p = testing::counter_example_profile();
  p.modules[0].build_id = "abcdef0123";
  for (Function& f : p.functions) f.address = 0x1000 + 0x10 * (&f - p.functions.data());
  const Analysis a = analyse(std::move(p));
  const Readback r = read_back(a);
  ASSERT_EQ(r.p.mapping_size(), 2);
  EXPECT_EQ(r.str(r.p.mapping(0).filename()), "/opt/app/counter") << "the main binary comes first";
  EXPECT_EQ(r.str(r.p.mapping(0).build_id()), "abcdef0123");
  EXPECT_EQ(r.str(r.p.mapping(1).filename()), "/usr/lib/libd.so.1");
  EXPECT_FALSE(r.p.mapping(0).has_filenames());
  EXPECT_TRUE(r.p.mapping(1).has_filenames());
  EXPECT_TRUE(r.p.mapping(1).has_line_numbers());
  for (const auto& m : r.p.mapping()) {
    EXPECT_TRUE(m.has_functions());
    EXPECT_LT(m.memory_start(), m.memory_limit());
  }
  EXPECT_LE(r.p.mapping(0).memory_limit(), r.p.mapping(1).memory_start()) << "disjoint ranges";
  // Each function is one location (its entry) with one line.
  EXPECT_EQ(r.p.location_size(), r.p.function_size());
  const pb::Function& d = r.function_named("D");
  EXPECT_EQ(r.str(d.filename()), "d.c");
  EXPECT_EQ(d.start_line(), 12);
  for (const auto& l : r.p.location()) {
    if (l.line(0).function_id() != d.id()) continue;
    const pb::Mapping* m = r.mapping(l.mapping_id());
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(r.str(m->filename()), "/usr/lib/libd.so.1");
    const Function* fn = nullptr;
    for (const Function& f : a.profile().functions)
      if (f.name == "D") fn = &f;
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(l.address(), m->memory_start() + fn->address);
    EXPECT_EQ(l.line(0).line(), 12);
  }
}

// A sampled profile's first top-level node may be the dynamic loader's start-up or
// [truncated]: the profiled program is main's module all the same.
TEST(Pprof, TheMainBinaryIsMainsModule) {
  Profile p = testing::folded(
      "[truncated];_dl_relocate_object@/lib/ld-linux-x86-64.so.2 1000 samples=1\n"
      "_start@/usr/bin/app;main@/usr/bin/app;work@/usr/bin/app 9000 samples=9\n");
  p.meta.mode = RecordingMode::Sample;
  const Readback r = read_back(analyse(std::move(p)));
  ASSERT_EQ(r.p.mapping_size(), 2);
  EXPECT_EQ(r.str(r.p.mapping(0).filename()), "/usr/bin/app");
}

TEST(Pprof, InvalidUtf8BecomesReplacementCharacters) {
  Profile p = testing::counter_example_profile();
  for (Function& f : p.functions)
    if (f.name == "B") f.name = "B\xff\xfe<\xc3(>\xed\xa0\x80";  // stray bytes, a cut sequence, a surrogate
  p.threads[0].name = "th\x80read";
  p.meta.command = "./counter \xe2\x82";
  const Readback r = read_back(analyse(std::move(p)));
  for (const std::string& s : r.p.string_table()) EXPECT_TRUE(valid_utf8(s)) << s;
  const pb::Function& b = r.function_named("B\uFFFD\uFFFD<\uFFFD(>\uFFFD\uFFFD\uFFFD");
  EXPECT_NE(b.id(), 0u);
  const pb::Sample* bd = r.sample(100, {"main", "A", "B\uFFFD\uFFFD<\uFFFD(>\uFFFD\uFFFD\uFFFD", "D"});
  ASSERT_NE(bd, nullptr);
  EXPECT_EQ(r.str_label(*bd, "thread"), "th\uFFFDread");
  // Valid multi-byte text is kept as it is.
  Profile q = testing::counter_example_profile();
  q.threads[0].name = "Größe €𝄞";
  const Readback rq = read_back(analyse(std::move(q)));
  EXPECT_EQ(rq.str_label(*rq.sample(100, {"main", "A", "B", "D"}), "thread"), "Größe €𝄞");
}

TEST(Pprof, AllocationsAddTheirSampleTypes) {
  Profile p = testing::exact_profile();
  const Analysis a = analyse(std::move(p));
  ASSERT_TRUE(a.stats().present[size_t(Metric::AllocCalls)]) << "the fixture records allocations";
  const Readback r = read_back(a);
  EXPECT_EQ(r.types(), (std::vector<std::string>{"calls/count", "wall/nanoseconds", "cpu/nanoseconds",
                                                 "offcpu/nanoseconds", "alloc_calls/count", "alloc_bytes/bytes"}));
  uint64_t alloc_calls = 0, alloc_bytes = 0, expected_calls = 0, expected_bytes = 0;
  for (const auto& s : r.p.sample()) {
    alloc_calls += uint64_t(s.value(r.column("alloc_calls")));
    alloc_bytes += uint64_t(s.value(r.column("alloc_bytes")));
  }
  for (NodeId n = 1; n < a.tree().size(); ++n) {
    expected_calls += a.tree().base(n)[Metric::AllocCalls];
    expected_bytes += a.tree().base(n)[Metric::AllocBytes];
  }
  EXPECT_GT(expected_calls, 0u);
  EXPECT_EQ(alloc_calls, expected_calls);
  EXPECT_EQ(alloc_bytes, expected_bytes);
}

TEST(Pprof, SampledProfile) {
  const Analysis a = analyse(testing::sampled_profile());
  const Readback r = read_back(a);
  EXPECT_EQ(r.types(), (std::vector<std::string>{"samples/count", "cpu/nanoseconds"}));
  EXPECT_EQ(r.str(r.p.default_sample_type()), "cpu");
  EXPECT_EQ(r.str(r.p.period_type().type()), "cpu");
  EXPECT_EQ(r.str(r.p.period_type().unit()), "nanoseconds");
  EXPECT_EQ(r.p.period(), 1000000) << "1 kHz";
  uint64_t samples = 0, cpu = 0;
  for (const auto& s : r.p.sample()) {
    samples += uint64_t(s.value(0));
    cpu += uint64_t(s.value(1));
  }
  EXPECT_EQ(samples, 1000u);
  EXPECT_EQ(cpu, a.grand_total_ns());
  // Synthetic frames keep their names and have no mapping.
  const pb::Sample* kernel = r.sample(1, {"main", "compute", "[kernel]"});
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(r.location(kernel->location_id(0)).mapping_id(), 0u);
  EXPECT_EQ(kernel->value(0), 20);
  const pb::Sample* truncated = r.sample(1, {"[truncated]", "hot_leaf"});
  ASSERT_NE(truncated, nullptr);
  EXPECT_EQ(r.location(truncated->location_id(1)).mapping_id(), 0u);
  EXPECT_NE(r.location(truncated->location_id(0)).mapping_id(), 0u);
  EXPECT_EQ(r.str(r.p.mapping(0).filename()), "/usr/bin/app");
}

// offcpu is all the time not running (blocked + waiting for a CPU), as perf and offcputime
// count it; preempted, where some node waited, is the part of it spent waiting for a CPU.
TEST(Pprof, OffCpuIncludesTheWaitForACpuWhichIsAlsoItsOwnType) {
  const Analysis a =
      analyse(testing::folded("main;work 1000 cpu=500 off=300 preempted=200\n"
                              "main;crowded 400 cpu=100 preempted=300\n"));
  const Readback r = read_back(a);
  EXPECT_EQ(r.types(), (std::vector<std::string>{"calls/count", "wall/nanoseconds", "cpu/nanoseconds",
                                                 "offcpu/nanoseconds", "preempted/nanoseconds"}));
  const int wall = r.column("wall"), cpu = r.column("cpu"), off = r.column("offcpu"), pre = r.column("preempted");
  const pb::Sample* work = r.sample(1, {"main", "work"});
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->value(off), 500);
  EXPECT_EQ(work->value(pre), 200);
  const pb::Sample* crowded = r.sample(1, {"main", "crowded"});
  ASSERT_NE(crowded, nullptr);
  EXPECT_EQ(crowded->value(off), 300) << "all of it waiting for a CPU";
  EXPECT_EQ(crowded->value(pre), 300);
  for (const auto& s : r.p.sample()) EXPECT_EQ(s.value(cpu) + s.value(off), s.value(wall)) << "cpu + offcpu = wall";
}

// A sampled profile whose off-CPU samples were all taken at involuntary switches (waiting for
// a CPU): it keeps its offcpu and wall types (before, they went with the blocked-only metric).
TEST(Pprof, SampledOffCpuTimeThatWasAllPreemptedKeepsItsTypes) {
  Profile p = testing::folded(
      "main;compute 3000000 cpu=3000000 samples=3\n"
      "main;compute 5000000 preempted=5000000\n");
  p.meta.mode = RecordingMode::Sample;
  const Readback r = read_back(analyse(std::move(p)));
  EXPECT_EQ(r.types(), (std::vector<std::string>{"samples/count", "cpu/nanoseconds", "offcpu/nanoseconds",
                                                 "preempted/nanoseconds", "wall/nanoseconds"}));
  const pb::Sample* compute = r.sample(1, {"main", "compute"});
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->value(r.column("cpu")), 3000000);
  EXPECT_EQ(compute->value(r.column("offcpu")), 5000000);
  EXPECT_EQ(compute->value(r.column("wall")), 8000000);
}

// An inlined frame is a line of its caller's location, as pprof represents inlining: compute's
// loop (squares inlined) is one location with the lines squares, compute (innermost first).
TEST(Pprof, InlinedFramesAreLinesOfTheirCallersLocation) {
  const Readback r = read_back(analyse(testing::inlined_profile()));
  const pb::Sample* inlined = nullptr;
  for (const auto& s : r.p.sample())
    if (s.value(0) == 200) inlined = &s;
  ASSERT_NE(inlined, nullptr);
  ASSERT_EQ(inlined->location_id_size(), 2) << "(squares, compute) and main";
  const pb::Location& chain = r.location(inlined->location_id(0));
  ASSERT_EQ(chain.line_size(), 2);
  EXPECT_EQ(r.str(r.function(chain.line(0).function_id()).name()), "squares");
  EXPECT_EQ(r.str(r.function(chain.line(1).function_id()).name()), "compute");
  EXPECT_EQ(chain.mapping_id(), r.location(inlined->location_id(1)).mapping_id()) << "compute's, in the app";
  EXPECT_EQ(r.str(r.function(r.location(inlined->location_id(1)).line(0).function_id()).name()), "main");
  // squares called from main, and compute's own samples: locations of one line each, and
  // one pprof function per callprof function.
  EXPECT_NE(r.sample(1, {"main", "squares"}), nullptr);
  EXPECT_NE(r.sample(1, {"main", "compute"}), nullptr);
  int squares = 0;
  for (const auto& f : r.p.function()) squares += r.str(f.name()) == "squares";
  EXPECT_EQ(squares, 1);
}

TEST(Pprof, FocusAndThreadSelectionApply) {
  QueryOptions focus;
  focus.focus = "^C$";
  const Readback r = read_back(analyse(testing::counter_example_profile(), focus));
  ASSERT_GT(r.p.sample_size(), 0);
  for (const auto& s : r.p.sample()) EXPECT_EQ(r.frames(s).back(), "C") << "re-rooted at C";
  QueryOptions worker;
  worker.tid = 101;
  const Readback w = read_back(analyse(testing::counter_example_profile(), worker));
  ASSERT_GT(w.p.sample_size(), 0);
  for (const auto& s : w.p.sample()) EXPECT_EQ(w.num_label(s, "tid"), 101);
}

TEST(Pprof, ManySamplesSpanBatches) {
  // Wider than one batch of samples: the concatenated parts still read as one profile.
  Profile p = testing::counter_example_profile();
  Thread& t = p.threads[0];
  const FunctionId main = 0;
  for (uint32_t i = 0; i < 10000; ++i) {
    Function f;
    f.name = "leaf" + std::to_string(i);
    f.module = 0;
    p.functions.push_back(f);
    t.tree.base(t.tree.path(std::vector<FunctionId>{main, FunctionId(p.functions.size() - 1)}))[Metric::WallNs] = 1;
  }
  const Analysis a = analyse(std::move(p));
  const Readback r = read_back(a);
  EXPECT_EQ(r.p.sample_size(), 10000 + 9) << "the leaves and the counter-example's 9 nodes";
  EXPECT_EQ(r.p.sample_type_size(), 4) << "the header's scalars and types are not repeated";
  uint64_t wall = 0;
  for (const auto& s : r.p.sample()) wall += uint64_t(s.value(1));
  EXPECT_EQ(wall, a.grand_total_ns());
}

}  // namespace
}  // namespace callprof
