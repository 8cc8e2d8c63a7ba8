// Semantic checks on a parsed payload (internal). After validate_payload() (or validate_head()
// and validate_thread() of each thread) succeeds, every
// id in the message points at an existing entry and every tree column has one value per
// node, so the model can be built by plain indexing.
#pragma once

#include <string>
#include <string_view>

#include "model/metrics.h"
#include "trace/profile.pb.h"
#include "util/result.h"

namespace callprof::trace {

// Errors read "invalid (<where>: <what>)", without the file name.
Status validate_payload(const file::Profile& payload);
// The same checks in parts, for a payload read one thread at a time: everything but the
// threads, then each thread (its index in the file; the head's function count).
Status validate_head(const file::Profile& head);
// (A thread as the reader takes it: without its tree, and the tree's values still encoded.)
struct TableSizes {  // the head's tables a thread's ids point into
  size_t functions = 0;
  size_t locations = 0;
};
Status validate_thread(const file::Thread& thread, const file::PackedCallTree& tree, size_t index,
                       const TableSizes& tables);

// How errors name a thread: its position in the file and its tid.
std::string thread_label(size_t index, uint32_t tid);

// The metric whose stable name is `name`, or Metric::kCount when this build does not know it.
Metric metric_named(std::string_view name);

}  // namespace callprof::trace
