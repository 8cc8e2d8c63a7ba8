// Which function of one profile is which of the other (diff's identity, overloads kept
// apart as report keeps them), and the fold level both are compared at: a function folded
// into its callers in one run (auto-fold, a record filter) is folded in the other too.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "query/query.h"

namespace callprof {

// One numbering of the functions of both sides. The identity is the full name (parameters
// included, so overloads stay apart, and other builds' files and addresses do not matter)
// and the kind; a full name that several functions of one profile share (static functions
// of two files, two libraries) also carries the module, then the source file, so they stay
// apart as report keeps them.
class FunctionKeys {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // The key of every FunctionId of each side's function table, interned.
  std::pair<std::vector<uint32_t>, std::vector<uint32_t>> add_sides(const Analysis& base, const Analysis& next);
  // The key of a function outside the table (a damaged file's node), by its name.
  uint32_t unknown(const Analysis& a, FunctionId f);
  const std::string& full_name(uint32_t key) const { return full_[key]; }
  // Display names in `style` over both sides' functions: unique where identities differ.
  std::vector<std::string> display_names(NameStyle style) const;

 private:
  uint32_t intern(std::string identity, std::string_view full, std::string_view linkage, std::string qualifier);
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> full_, linkage_, qualifier_;
};

// How a function is compared at the same fold level on both sides.
enum class FoldMode : uint8_t {
  Kept,     // a node of its own on both sides
  Folded,   // auto-fold folded it in some run: its time is its callers' on both, its calls stay
  Dropped,  // a record filter excluded it from one run: it is transparent on both, no row
};

// A function folded on both sides to compare at one level, for the header.
struct LeveledFunction {
  uint32_t key = FunctionKeys::kNone;
  FoldMode mode = FoldMode::Folded;
  bool in_base = false, in_new = false;  // where the runtime (or a filter) had folded it
};

struct FoldLevel {
  std::vector<FoldMode> base, next;        // by FunctionId of each side
  std::vector<LeveledFunction> functions;  // by key; those folded in one run only first
  std::vector<std::string> warnings;       // a filter that could not be applied, one line each
};

// The fold level of `base` and `next`, whose functions have keys `base_keys`/`next_keys`.
FoldLevel fold_level(const Analysis& base, const std::vector<uint32_t>& base_keys, const Analysis& next,
                     const std::vector<uint32_t>& next_keys);

}  // namespace callprof
