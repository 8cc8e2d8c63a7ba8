// The differential flame graph's other side: for each frame of a layout, the base profile's
// value of the same call path, paths matched by their functions' full names (as src/query/
// diff.h does), so two builds of a program line up.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/flame.h"
#include "query/query.h"

namespace callprof {

struct FlameBase {
  std::vector<uint64_t> value;  // per frame: the base's value of its path (scaled); 0 when absent
  std::vector<bool> present;    // per frame: the base has its path (merged frames: false)
  uint64_t total = 0;           // the base's total (scaled)
  uint64_t only_in_base = 0;    // the base's value on paths the new profile lacks (scaled)
  double scale = 1.0;           // applied to every base value (normalize: new total / base total)
};

// `layout` was laid out from `next`'s tree with `metric` (plus `plus`, unless kCount);
// `normalize` scales the base to next's total (a run that was slower or longer overall).
FlameBase match_flame_base(const Analysis& next, const FlameLayout& layout, const Analysis& base, Metric metric,
                           Metric plus, bool normalize);

}  // namespace callprof
