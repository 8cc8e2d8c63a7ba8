// Two analysed profiles compared (SPEC §3 diff): by function and by call path, matched by
// full name, so two builds (other files, other addresses) still line up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/query.h"

namespace callprof {

struct DiffSide {
  uint64_t calls = 0;
  uint64_t self_ns = 0;
  uint64_t total_ns = 0;
  bool present = false;
};

struct DiffRow {
  std::vector<std::string> names;  // one name (a function) or the frames of a path, full names
  DiffSide base, next;
  int64_t self_delta() const { return int64_t(next.self_ns) - int64_t(base.self_ns); }
  int64_t total_delta() const { return int64_t(next.total_ns) - int64_t(base.total_ns); }
};

struct Diff {
  uint64_t base_total_ns = 0;
  uint64_t next_total_ns = 0;  // before scaling
  double scale = 1.0;          // applied to every time of the new side (--normalize)
  std::vector<DiffRow> functions;
  std::vector<DiffRow> paths;
};

enum class DiffOrder { SelfDelta, TotalDelta };

// The `limit` rows (0: all) of each kind with the largest absolute delta, largest first
// (ties by name; paths: by first appearance). With `normalize`, the new side's times are
// scaled so that its total equals the base's.
Diff diff_analyses(const Analysis& base, const Analysis& next, bool normalize, DiffOrder order, size_t limit);

}  // namespace callprof
