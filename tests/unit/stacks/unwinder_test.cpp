// Unwinder on real samples: programs built like distribution binaries (no frame
// pointers) are sampled with perf_event_open and their stacks unwound and symbolized.
#include "collect/stacks/unwinder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "collect/stacks/unwinder_elf.h"
#include "symbols/symbolizer.h"
#include "unwinder_capture.h"
#include "unwinder_programs.h"

namespace callprof::stacks {
namespace {

using test_support::Capture;

// The compiled programs live in one temporary directory per test process.
const std::string& program_dir() {
  struct Dir {
    std::string path;
    Dir() {
      std::string pattern = (std::filesystem::temp_directory_path() / "unwinder_test.XXXXXX").string();
      if (::mkdtemp(pattern.data()) != nullptr) path = pattern;
    }
    ~Dir() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
  };
  static const Dir dir;
  return dir.path;
}

const test_support::TestPrograms& programs() { return test_support::test_programs(program_dir()); }

// Samples each program once per test run; later tests reuse the capture.
const Capture& captured(const std::string& program) {
  static std::map<std::string, Capture> captures;
  auto it = captures.find(program);
  if (it == captures.end()) it = captures.emplace(program, test_support::capture_samples(program, 200)).first;
  return it->second;
}

#define CAPTURE_OR_SKIP(var, program)                            \
  ASSERT_EQ(programs().error, "");                               \
  const Capture& var = captured(program);                        \
  if (!var.skip_reason.empty()) GTEST_SKIP() << var.skip_reason; \
  ASSERT_EQ(var.error, "");

// Names frames the way a report will: the Symbolizer over the mappings' files, each
// frame looked up at lookup_address(), inline frames expanded (innermost first).
class Names {
 public:
  explicit Names(const std::vector<perf::Mapping>& mappings) {
    ::unsetenv("DEBUGINFOD_URLS");
    std::vector<LoadedModule> modules;
    std::set<std::string> seen;
    for (const perf::Mapping& m : mappings) {
      if (m.path.empty() || m.path[0] != '/' || !seen.insert(m.path).second) continue;
      Result<uint64_t> bias = mapping_load_bias(m);
      EXPECT_TRUE(bias.ok()) << bias.error().message;
      if (bias.ok()) modules.push_back(LoadedModule{m.path, bias.value(), 0, 0, ""});
    }
    auto created = Symbolizer::create(std::move(modules));
    EXPECT_TRUE(created.ok());
    if (created.ok()) symbolizer_ = std::move(created).value();
  }

  // Function names without parameters ("c", "main"); templates keep their full name.
  std::vector<std::string> of(const UserStack& stack, bool with_inlined = false) {
    std::vector<std::string> names;
    for (const UserFrame& frame : stack.frames) {
      if (with_inlined) {
        for (const SymbolInfo& info : symbolizer_->resolve_inlined(frame.lookup_address())) {
          names.push_back(short_name(info.name));
        }
      } else {
        names.push_back(short_name(symbolizer_->resolve(frame.lookup_address()).name));
      }
    }
    return names;
  }

 private:
  static std::string short_name(const std::string& name) {
    size_t paren = name.find('(');
    if (name.find('<') < paren) return name;
    return name.substr(0, paren);
  }
  std::unique_ptr<Symbolizer> symbolizer_;
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " <- ") + name;
  return out;
}

bool starts_with(const std::vector<std::string>& names, const std::vector<std::string>& prefix) {
  return names.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), names.begin());
}

std::unique_ptr<Unwinder> unwinder_for(const Capture& capture, UnwindOptions options = {}) {
  auto unwinder = std::make_unique<Unwinder>(options);
  for (const perf::Mapping& m : capture.mappings) unwinder->add_mapping(m);
  return unwinder;
}

// Fraction of samples whose stack satisfies check; prints one failing stack.
double fraction(const Capture& capture, perf::UnwindMode method, Names& names,
                const std::function<bool(const UserStack&, const std::vector<std::string>&)>& check,
                bool with_inlined = false) {
  auto unwinder = unwinder_for(capture);
  UserStack stack;
  size_t good = 0;
  bool shown = false;
  for (const perf::Sample& sample : capture.samples) {
    unwinder->unwind(sample, method, stack);
    std::vector<std::string> list = names.of(stack, with_inlined);
    if (check(stack, list)) {
      ++good;
    } else if (!shown) {
      shown = true;
      std::printf("  e.g. (%s): %s\n", to_string(stack.end), joined(list).c_str());
    }
  }
  return double(good) / double(capture.samples.size());
}

TEST(UnwinderTest, DwarfUnwindsProgramWithoutFramePointersToItsRoot) {
  CAPTURE_OR_SKIP(capture, programs().chain);
  Names names(capture.mappings);
  double ok = fraction(capture, perf::UnwindMode::Dwarf, names, [](const UserStack& s, const auto& list) {
    return starts_with(list, {"c", "b", "a", "main"}) && s.complete() && list.back() == "_start";
  });
  EXPECT_GE(ok, 0.9);
}

TEST(UnwinderTest, FramePointersFailWithoutThemAndWorkWithThem) {
  CAPTURE_OR_SKIP(without, programs().chain);
  CAPTURE_OR_SKIP(with, programs().chain_fp);
  auto chain = [](const UserStack&, const auto& list) { return starts_with(list, {"c", "b", "a", "main"}); };
  Names names_without(without.mappings), names_with(with.mappings);
  EXPECT_LE(fraction(without, perf::UnwindMode::FramePointers, names_without, chain), 0.1);
  EXPECT_GE(fraction(with, perf::UnwindMode::FramePointers, names_with, chain), 0.9);
  EXPECT_GE(fraction(with, perf::UnwindMode::Dwarf, names_with, chain), 0.9);
}

TEST(UnwinderTest, DwarfUnwindsThroughStdSortToTheComparatorsCaller) {
  CAPTURE_OR_SKIP(capture, programs().sort);
  Names names(capture.mappings);
  double ok = fraction(
      capture, perf::UnwindMode::Dwarf, names,
      [](const UserStack& s, const std::vector<std::string>& list) {
        auto caller = std::find(list.begin(), list.end(), "sort_all");
        bool std_between = std::any_of(list.begin(), caller, [](const std::string& n) {
          return n.find("std::__introsort_loop") != std::string::npos ||
                 n.find("std::__insertion_sort") != std::string::npos ||
                 n.find("std::__unguarded_linear_insert") != std::string::npos;
        });
        return !list.empty() && list.front() == "spin_less" && std_between && caller != list.end() &&
               caller + 1 != list.end() && caller[1] == "nest" && std::count(caller, list.end(), "nest") == 6 &&
               std::find(caller, list.end(), "main") != list.end() && s.complete();
      },
      /*with_inlined=*/true);
  EXPECT_GE(ok, 0.9);
}

TEST(UnwinderTest, DwarfUnwindsThroughOurSharedLibrary) {
  CAPTURE_OR_SKIP(capture, programs().library);
  Names names(capture.mappings);
  double ok = fraction(capture, perf::UnwindMode::Dwarf, names, [](const UserStack& s, const auto& list) {
    return starts_with(list, {"c", "lib_b", "a", "main"}) && s.complete();
  });
  EXPECT_GE(ok, 0.9);
}

// The vDSO has no file; the unwinder reads its CFI from this process's own copy.
TEST(UnwinderTest, DwarfUnwindsOutOfTheVdso) {
  CAPTURE_OR_SKIP(capture, programs().vdso);
  auto vdso = std::find_if(capture.mappings.begin(), capture.mappings.end(),
                           [](const perf::Mapping& m) { return m.path == "[vdso]"; });
  if (vdso == capture.mappings.end()) GTEST_SKIP() << "the program has no vDSO";
  Names names(capture.mappings);
  auto unwinder = unwinder_for(capture);
  UserStack stack;
  size_t in_vdso = 0, good = 0;
  for (const perf::Sample& sample : capture.samples) {
    if (sample.regs[perf::kDwarfIp] < vdso->start || sample.regs[perf::kDwarfIp] >= vdso->end) continue;
    ++in_vdso;
    unwinder->unwind(sample, perf::UnwindMode::Dwarf, stack);
    std::vector<std::string> list = names.of(stack);
    bool by_cfi =
        std::none_of(stack.frames.begin(), stack.frames.end(), [](const UserFrame& f) { return f.by_frame_pointer; });
    if (stack.complete() && by_cfi && std::find(list.begin(), list.end(), "a") != list.end()) ++good;
  }
  ASSERT_GE(in_vdso, 10u) << "too few samples in the vDSO to judge";
  EXPECT_GE(double(good) / double(in_vdso), 0.9);
}

TEST(UnwinderTest, MarksReturnAddressesForLookupAtPcMinusOne) {
  CAPTURE_OR_SKIP(capture, programs().chain);
  auto unwinder = unwinder_for(capture);
  UserStack stack;
  unwinder->unwind(capture.samples.back(), perf::UnwindMode::Dwarf, stack);
  ASSERT_GE(stack.frames.size(), 4u);
  EXPECT_EQ(stack.frames[0].pc, capture.samples.back().regs[perf::kDwarfIp]);
  EXPECT_FALSE(stack.frames[0].return_address);
  for (size_t i = 1; i < stack.frames.size(); ++i) {
    EXPECT_TRUE(stack.frames[i].return_address) << i;
    EXPECT_EQ(stack.frames[i].lookup_address(), stack.frames[i].pc - 1);
  }
}

TEST(UnwinderTest, ShortStackCopyGivesATruncatedStack) {
  CAPTURE_OR_SKIP(capture, programs().chain);
  auto unwinder = unwinder_for(capture);
  perf::Sample sample = capture.samples.back();
  sample.stack.resize(24);
  UserStack stack;
  unwinder->unwind(sample, perf::UnwindMode::Dwarf, stack);
  EXPECT_EQ(stack.end, StackEnd::StackCopyEnd) << to_string(stack.end);
  EXPECT_FALSE(stack.complete());
  EXPECT_GE(stack.frames.size(), 1u);
}

TEST(UnwinderTest, FrameLimitStopsTheWalk) {
  CAPTURE_OR_SKIP(capture, programs().chain);
  auto unwinder = unwinder_for(capture, UnwindOptions{.max_frames = 2});
  UserStack stack;
  unwinder->unwind(capture.samples.back(), perf::UnwindMode::Dwarf, stack);
  EXPECT_EQ(stack.frames.size(), 2u);
  EXPECT_EQ(stack.end, StackEnd::FrameLimit);
}

TEST(UnwinderTest, UnknownProcessGivesTheSampledPcOnly) {
  CAPTURE_OR_SKIP(capture, programs().chain);
  Unwinder unwinder;  // no mappings at all: as for a pid that was never announced
  UserStack stack;
  unwinder.unwind(capture.samples.back(), perf::UnwindMode::Dwarf, stack);
  ASSERT_EQ(stack.frames.size(), 1u);
  EXPECT_EQ(stack.end, StackEnd::NoModule);
}

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Post-processing speed (issue 4, item 8): the figure is printed, per second of this
// thread's CPU time (other jobs on the machine do not distort it); the bound is only a
// guard against pathological slowness (speed belongs in bench/).
TEST(UnwinderTest, DwarfUnwindRate) {
  CAPTURE_OR_SKIP(capture, programs().sort);
  auto unwinder = unwinder_for(capture);
  UserStack stack;
  size_t unwinds = 0, frames = 0;
  const double start = thread_cpu_seconds();
  double elapsed = 0;
  while (elapsed < 1.0) {
    for (const perf::Sample& sample : capture.samples) {
      unwinder->unwind(sample, perf::UnwindMode::Dwarf, stack);
      frames += stack.frames.size();
    }
    unwinds += capture.samples.size();
    elapsed = thread_cpu_seconds() - start;
  }
  double rate = double(unwinds) / elapsed;
  std::printf("DWARF unwinds: %.0f per CPU second, %.1f frames per stack\n", rate, double(frames) / double(unwinds));
  RecordProperty("dwarf_unwinds_per_second", std::to_string(int64_t(rate)));
  EXPECT_GT(rate, 1000.0);
}

}  // namespace
}  // namespace callprof::stacks
