// The hooks' fast paths (ThreadProfile::enter_fast/exit_fast, hook_path.h) against the
// general ones: the same calls, made through both, must leave the same tree, to the last
// counter, whatever the settings. The fast paths only take the common case and hand every
// other to enter()/exit(); a case they took wrongly shows here as a difference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "program.h"

namespace callprof::rt {
namespace {

struct Settings {
  const char* name;
  ThreadLimits limits;
  AutoFold fold;
  uint32_t timeline = 0;
  uint32_t node_capacity = 1 << 16;
  bool inlined = false;
  bool fork_midway = false;
  bool filters = false;  // D filtered out, F a checkpoint
};

uint64_t g_checkpoints = 0;
uint32_t classify(uint64_t fn) { return fn == D ? wire::kNodeExcluded : fn == F ? wire::kNodeCheckpoint : 0; }
void count_checkpoint(uint64_t) { ++g_checkpoints; }

// A program as real ones are, repetitive with exceptions, reproducible: each function calls
// its two callees in turn, each from its own call site, down to a random depth; now and
// then from another site, a third callee, or an exception that leaves two frames without
// their returns (the next call releases them). Calls of every length, zero ticks included,
// and a clock that now and then steps back (a core whose clock is behind).
class RandomProgram {
 public:
  RandomProgram(Program& prog, uint32_t seed) : prog_(prog), rng_(seed) {}

  // How many frames were open at the fork (0: none).
  uint32_t run(bool fork_midway) {
    prog_.call(MAIN, t_);
    for (int round = 0; round < 400; ++round) {
      if (fork_midway && round == 200) forking_ = true;
      execute(0, 1 + pick(5));
    }
    prog_.ret(MAIN, ++t_);
    return frames_at_fork_;
  }

 private:
  static constexpr uint64_t kFns[] = {A, B, C, D, F, G};
  uint32_t pick(uint32_t n) { return uint32_t(rng_() % n); }

  // Runs the callees of kFns[caller]; how many more frames an exception leaves.
  uint32_t execute(uint32_t caller, uint32_t depth) {
    for (uint32_t i = 0; i < 2 + (pick(10) == 0); ++i) {
      const uint32_t callee = (caller + 1 + 2 * i) % 6;
      const uint64_t site = 0x9000 + 0x100 * callee + 16 * (pick(20) == 0 ? 1 + pick(2) : 0);
      t_ += pick(3);
      prog_.call_from(kFns[callee], site, t_);
      if (forking_) {  // a fork while frames are open: they are the parent's in the child
        prog_.p.restart(t_);
        frames_at_fork_ = prog_.p.inherited_frames();
        forking_ = false;
      }
      uint32_t unwinding = depth > 1 ? execute(callee, depth - 1) : 0;
      if (unwinding == 0 && pick(300) == 0) unwinding = 2;
      if (unwinding > 0) {
        prog_.abandon(1);
        return unwinding - 1;
      }
      t_ += pick(3);
      if (pick(200) == 0) t_ -= 3;  // a thread moved to a core whose clock is behind
      prog_.ret(kFns[callee], t_);
    }
    return 0;
  }

  Program& prog_;
  std::mt19937 rng_;
  uint64_t t_ = 1;
  bool forking_ = false;
  uint32_t frames_at_fork_ = 0;
};

void expect_same_trees(const ThreadProfile& fast, const ThreadProfile& general) {
  ASSERT_EQ(fast.node_count(), general.node_count());
  for (uint32_t i = 0; i < fast.node_count(); ++i) {
    const DumpNode& f = fast.nodes()[i];
    const DumpNode& g = general.nodes()[i];
    SCOPED_TRACE("node " + std::to_string(i));
    EXPECT_EQ(f.parent, g.parent);
    EXPECT_EQ(f.fn, g.fn);
    EXPECT_EQ(f.callsite, g.callsite);
    EXPECT_EQ(f.calls, g.calls);
    EXPECT_EQ(f.self_ticks, g.self_ticks);
    EXPECT_EQ(f.min_self_ticks, g.min_self_ticks);
    EXPECT_EQ(f.max_self_ticks, g.max_self_ticks);
    EXPECT_EQ(f.flags, g.flags);
  }
  ASSERT_EQ(fast.call_site_count(), general.call_site_count());
  for (uint32_t i = 0; i < fast.call_site_count(); ++i) {
    EXPECT_EQ(fast.call_sites()[i].node, general.call_sites()[i].node);
    EXPECT_EQ(fast.call_sites()[i].calls, general.call_sites()[i].calls);
    EXPECT_EQ(fast.call_sites()[i].ticks, general.call_sites()[i].ticks);
  }
  EXPECT_EQ(fast.depth(), general.depth());
  EXPECT_EQ(fast.dropped_calls(), general.dropped_calls());
  EXPECT_EQ(fast.depth_limited_calls(), general.depth_limited_calls());
  EXPECT_EQ(fast.short_calls(), general.short_calls());
  EXPECT_EQ(fast.unmatched_exits(), general.unmatched_exits());
  EXPECT_EQ(fast.timeline_count(), general.timeline_count());
  EXPECT_EQ(fast.timeline_dropped(), general.timeline_dropped());
  EXPECT_EQ(fast.folded_node_count(), general.folded_node_count());
}

uint32_t folded_nodes(const ThreadProfile& p) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p.node_count(); ++i) n += (p.nodes()[i].flags & wire::kNodeAutoFolded) != 0;
  return n;
}

class FastPaths : public ::testing::TestWithParam<Settings> {};

TEST_P(FastPaths, LeaveTheTreeTheGeneralPathsLeave) {
  const Settings& s = GetParam();
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ProgramOptions o;
    o.node_capacity = s.node_capacity;
    o.timeline = s.timeline;
    o.inlined = s.inlined;
    Program fast(o);
    o.fast_paths = false;
    Program general(o);
    uint32_t frames_at_fork = 0;
    uint64_t checkpoints[2] = {};
    for (Program* prog : {&fast, &general}) {
      prog->p.set_limits(s.limits);
      prog->p.set_auto_fold(s.fold);
      if (s.filters) prog->p.set_callbacks(classify, count_checkpoint);
      g_checkpoints = 0;
      frames_at_fork = RandomProgram(*prog, seed).run(s.fork_midway);
      checkpoints[prog == &general] = g_checkpoints;
    }
    EXPECT_EQ(checkpoints[0], checkpoints[1]);
    expect_same_trees(fast.p, general.p);
    if (HasFailure()) return;
    // The fast paths took calls (most of them, but with a few nodes or a low depth limit),
    // and what the settings are there for happened.
    EXPECT_GT(fast.fast_enters, 20u);
    EXPECT_GT(fast.fast_exits, 20u);
    if (s.node_capacity >= 1024 && s.limits.max_depth == UINT32_MAX) {
      EXPECT_GT(fast.fast_enters, 4000u);
    }
    if (s.fold.max_self_ticks > 0) {
      EXPECT_GT(folded_nodes(fast.p), 0u);
    }
    if (s.limits.max_depth < UINT32_MAX) {
      EXPECT_GT(fast.p.depth_limited_calls(), 0u);
    }
    if (s.limits.min_ticks > 0) {
      EXPECT_GT(fast.p.short_calls(), 0u);
    }
    if (s.timeline > 0) {
      EXPECT_GT(fast.p.timeline_count(), 0u);
    }
    if (s.node_capacity < 1024) {
      EXPECT_GT(fast.p.dropped_calls(), 0u);
    }
    if (s.fork_midway) {
      EXPECT_GT(frames_at_fork, 1u);
    }
    if (s.filters) {
      EXPECT_GT(checkpoints[0], 0u);
    }
    if (s.timeline > 0) {
      EXPECT_GT(fast.p.timeline_dropped(), 0u);
    }
  }
}

AutoFold folding(bool wrappers) {
  AutoFold f;
  f.max_self_ticks = 2;
  f.check_every = 8;
  f.inlined_only = false;
  f.leaves_only = !wrappers;
  return f;
}

ThreadLimits limits(uint32_t max_depth, uint64_t min_ticks, uint64_t timeline_min_ticks = UINT64_MAX) {
  ThreadLimits l;
  l.max_depth = max_depth;
  l.min_ticks = min_ticks;
  l.timeline_min_ticks = timeline_min_ticks;
  return l;
}

INSTANTIATE_TEST_SUITE_P(ThreadProfile, FastPaths,
                         ::testing::Values(Settings{"defaults", {}, {}}, Settings{"depth_limit", limits(6, 0), {}},
                                           Settings{"short_calls_dropped", limits(UINT32_MAX, 2), {}},
                                           Settings{"timeline", limits(UINT32_MAX, 0, 3), {}, 64},
                                           Settings{"auto_fold", {}, folding(false)},
                                           Settings{"auto_fold_wrappers", {}, folding(true)},
                                           Settings{"inlined_copies", {}, folding(false), 0, 1 << 16, true},
                                           Settings{"few_nodes", {}, {}, 0, 96},
                                           Settings{"after_fork", {}, {}, 0, 1 << 16, false, true},
                                           Settings{"filters", {}, {}, 0, 1 << 16, false, false, true}),
                         [](const ::testing::TestParamInfo<Settings>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace callprof::rt
