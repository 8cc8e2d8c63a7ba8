// End-to-end: honest stacks in sampling mode (SPEC §1.2, issue 15). A stack that did not reach
// the program's or its thread's start hangs under [truncated] and is counted; PLT stubs are
// named "labs@plt"; inlined frames are marked, and --no-inline gives their time to the
// function they were inlined into. Programs: programs/stacks.c.
#include <algorithm>
#include <functional>

#include "e2e_support.h"

namespace e2e {
namespace {

class Stacks : public E2ETest {
 protected:
  // Debian's flags (-O2 -g, no frame pointers) unless `frame_pointers`; -fno-builtin keeps
  // labs() a call.
  std::string build_stacks(bool frame_pointers) {
    std::vector<std::string> flags = {"-fno-builtin"};
    if (frame_pointers) flags.push_back("-fno-omit-frame-pointer");
    return build_plain("stacks.c", flags);
  }
};
E2E_INSTANTIATE(Stacks);

const json& sampling(const Report& r) { return r.doc().at("metadata").at("sampling"); }

double truncated_share(const Report& r) {
  const json& s = sampling(r);
  const double all = double(u64(s, "samples") + u64(s, "off_cpu_samples"));
  return all > 0 ? double(u64(s, "truncated_stacks")) / all : 0;
}

// Samples on the paths through `name`'s outermost nodes, under a top-level [truncated] node
// and elsewhere.
struct Split {
  uint64_t truncated = 0, rooted = 0;
};
Split samples_of(const Report& r, std::string_view name) {
  Split out;
  std::function<void(const json&, bool)> walk = [&](const json& nodes, bool under_truncated) {
    for (const json& n : nodes) {
      if (same_function(n.at("name").get<std::string>(), name)) {
        (under_truncated ? out.truncated : out.rooted) += u64(n, "total_samples");
        continue;
      }
      walk(n.at("children"), under_truncated);
    }
  };
  for (const json& top : r.doc().at("tree")) {
    if (top.at("name") == "[truncated]")
      walk(top.at("children"), true);
    else
      walk(json::array({top}), false);
  }
  return out;
}

// The top-level nodes: where each stack began.
std::vector<std::string> roots(const Report& r) {
  std::vector<std::string> out;
  for (const json& top : r.doc().at("tree")) out.push_back(top.at("name").get<std::string>());
  return out;
}

// A program without frame pointers unwound by frame pointers: the chain breaks at once, so its
// hottest function's samples hang under [truncated] instead of being a root with its callers
// silently gone. DWARF unwinding of the same program reaches the thread's start.
TEST_P(Stacks, FramePointerUnwindingWithoutFramePointersIsTruncated) {
  const std::string binary = build_stacks(false);
  const Report fp = record_with({"--call-graph", "fp"}, binary, {"thread"});
  measured("fp_without_frame_pointers_truncated_percent", 100 * truncated_share(fp));
  EXPECT_GT(truncated_share(fp), 0.9);
  const Split in_fp = samples_of(fp, "thread_hot");
  EXPECT_GT(in_fp.truncated, 150u) << "about 300 samples of thread_hot";
  EXPECT_EQ(in_fp.rooted, 0u) << "thread_hot is no root of its own";
  for (const std::string& root : roots(fp)) EXPECT_NE(root, "thread_hot");

  const Report dwarf = record_with({"--call-graph", "dwarf"}, binary, {"thread"});
  measured("dwarf_truncated_percent", 100 * truncated_share(dwarf));
  EXPECT_LT(truncated_share(dwarf), 0.05);
  const Split in_dwarf = samples_of(dwarf, "thread_hot");
  EXPECT_GT(in_dwarf.rooted, 150u);
  EXPECT_LE(in_dwarf.truncated, in_dwarf.rooted / 20);
  for (const auto& path : dwarf.paths_to("thread_hot")) {
    EXPECT_TRUE(std::find(path.begin(), path.end(), "start_thread") != path.end()) << join_path(path);
    EXPECT_NE(path.front(), "[truncated]") << join_path(path);
  }
}

// With frame pointers, frame-pointer stacks end in the C library's start code and thread
// start (which keep none): those are roots, not truncation.
TEST_P(Stacks, FramePointerStacksOfAProgramWithFramePointersReachTheirRoots) {
  const std::string binary = build_stacks(true);
  for (const char* mode : {"thread", "inline"}) {
    SCOPED_TRACE(mode);
    const Report r = record_with({"--call-graph", "fp"}, binary, {mode});
    measured(std::string("fp_with_frame_pointers_truncated_percent_") + mode, 100 * truncated_share(r));
    EXPECT_LT(truncated_share(r), 0.05);
    const Split split = samples_of(r, mode == std::string("thread") ? "thread_hot" : "outer");
    EXPECT_GT(split.rooted, 150u);
    EXPECT_LE(split.truncated, split.rooted / 20);
  }
}

// A stack deeper than the 8 KiB copy of --call-graph dwarf: the unwinder runs out of stack
// bytes in the middle of the recursion, which is truncation too; a copy large enough reaches
// _start.
TEST_P(Stacks, DwarfStacksDeeperThanTheStackCopyAreTruncated) {
  const std::string binary = build_stacks(false);
  const Report small = record_with({"--call-graph", "dwarf"}, binary, {"deep"});
  measured("deep_8k_truncated_percent", 100 * truncated_share(small));
  EXPECT_GT(truncated_share(small), 0.8);
  const Split cut = samples_of(small, "deep_hot");
  EXPECT_GT(cut.truncated, 150u);
  EXPECT_EQ(cut.rooted, 0u);

  const Report large = record_with({"--call-graph", "dwarf", "--stack-bytes", "65000"}, binary, {"deep"});
  measured("deep_64k_truncated_percent", 100 * truncated_share(large));
  EXPECT_LT(truncated_share(large), 0.05);
  const Split whole = samples_of(large, "deep_hot");
  EXPECT_GT(whole.rooted, 150u);
  for (const auto& path : large.paths_to("deep_hot"))
    EXPECT_GE(path.size(), 45u) << "_start, libc, main and the whole recursion";
}

// A sample in a PLT stub is named after the function the stub jumps to, not after the symbol
// before the PLT (_init).
TEST_P(Stacks, SamplesInPltStubsAreNamedAfterTheirTarget) {
  const Report r = record_with({"--call-graph", "dwarf"}, build_stacks(false), {"plt"});
  const json* stub = r.find_function("labs@plt");
  ASSERT_NE(stub, nullptr) << "no sample in the stub";
  measured("labs_plt_samples", double(u64(*stub, "samples")));
  EXPECT_GE(u64(*stub, "samples"), 2u) << "6-10 % of some 300 samples here";
  EXPECT_EQ(r.find_function("_init"), nullptr);
  bool from_spin = false;
  for (const auto& path : r.paths_to("labs@plt"))
    from_spin |= path.size() >= 2 && same_function(path.end()[-2], "spin_plt");
  EXPECT_TRUE(from_spin) << "spin_plt calls the stub";
}

// squares() is always inlined into outer(): its frames are marked inlined in the tree, and it
// is one function in the flat profile. With --no-inline its time is outer's, as perf
// --no-inline attributes it.
TEST_P(Stacks, InlinedFramesAreMarkedAndNoInlineGivesTheirTimeToTheCaller) {
  const std::string binary = build_stacks(false);
  const Report r = record_with({"--call-graph", "dwarf"}, binary, {"inline"});
  EXPECT_EQ(sampling(r).at("inlined_frames"), true);
  const auto paths = r.paths_to("squares");
  ASSERT_FALSE(paths.empty());
  for (const auto& path : paths) {
    ASSERT_GE(path.size(), 2u);
    EXPECT_TRUE(same_function(path.end()[-2], "outer")) << join_path(path);
    EXPECT_EQ(r.node(path).at("inlined"), true) << join_path(path);
    EXPECT_EQ(r.node({path.begin(), path.end() - 1}).at("inlined"), false) << "outer was called";
  }
  const double squares = double(u64(r.function("squares"), "samples"));
  const double outer = double(u64(r.function("outer"), "total_samples"));
  measured("squares_self_share_percent", 100 * squares / outer);
  EXPECT_GT(squares, 0.7 * outer) << "the loop is squares'";

  const Report flat = record_with({"--call-graph", "dwarf", "--no-inline"}, binary, {"inline"});
  EXPECT_EQ(sampling(flat).at("inlined_frames"), false);
  EXPECT_EQ(flat.find_function("squares"), nullptr);
  const json& outer_flat = flat.function("outer");
  EXPECT_GT(double(u64(outer_flat, "samples")), 0.7 * double(u64(outer_flat, "total_samples")));
}

}  // namespace
}  // namespace e2e
