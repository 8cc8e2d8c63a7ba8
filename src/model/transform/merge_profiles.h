// Profiles of several runs or hosts as one (SPEC §2 merge): modules and functions unified,
// processes and threads kept apart with their host, so every metric adds up exactly.
// The result is canonical (tables and records sorted by their identity), which makes the
// merge associative and commutative: any grouping and order give the same profile.
#pragma once

#include <memory>
#include <vector>

#include "model/profile.h"
#include "util/result.h"

namespace callprof {

struct MergeOptions {
  // Merge profiles of different programs or modes anyway, unifying functions by name alone.
  bool force = false;
};

// Modules unify by build id (by path when they have none); functions by (module, name),
// or by name alone with `force`. Each process and thread gets its input's host when it had
// none. Errors (one line): different programs (the command's executable), different modes,
// compensated and raw profiles mixed.
//
// Inputs are taken one at a time, so a caller can read, add and drop each in turn: only
// their records (the threads' trees: the output itself) are kept, never a whole input.
class ProfileMerger {
 public:
  explicit ProfileMerger(MergeOptions options = {});
  ProfileMerger(ProfileMerger&&) noexcept;
  ProfileMerger& operator=(ProfileMerger&&) noexcept;
  ~ProfileMerger();

  // Takes one input; fails (adding nothing) when it cannot be merged with the first.
  Status add(Profile profile);
  // The merged profile of every input added; the merger is empty afterwards.
  Result<Profile> finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// All of `profiles` merged (as ProfileMerger, in one call).
Result<Profile> merge_profiles(std::vector<Profile> profiles, const MergeOptions& options);

}  // namespace callprof
