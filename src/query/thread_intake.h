// Threads taken as the reader hands them over (model/thread_sink.h), for analyses that read
// only the merged tree (QueryOptions::keep_thread_trees false, threads merged by path): each
// thread is compensated, summarised and merged into the analysed tree as soon as it is
// read, and its own tree dropped. The reader then never holds every thread's tree beside
// the merged one: on a profile of many threads with similar trees that is most of the
// memory, and memory first touched is much of a large view's time (bench/README.md).
#pragma once

#include <optional>
#include <vector>

#include "graph/aggregate.h"
#include "model/lineage.h"
#include "model/thread_sink.h"
#include "model/transform/compensate.h"
#include "query/query.h"

namespace callprof {

class ThreadIntake final : public ThreadSink {
 public:
  explicit ThreadIntake(QueryOptions options) : options_(std::move(options)) {}
  // Whether an analysis with these options can take its threads this way.
  static bool applies(const QueryOptions& options) {
    return !options.keep_thread_trees && options.merge == ThreadMerge::Paths;
  }
  const QueryOptions& options() const { return options_; }
  // What ReadOptions::threads should be: this intake where it applies, else none.
  ThreadSink* sink() { return applies(options_) ? this : nullptr; }

  bool begin(const Profile& head, size_t threads, size_t nodes) override;
  void take(const Profile& head, size_t index, Thread& thread) override;

 private:
  friend class Analysis;  // Analysis::run_intake takes what was gathered

  QueryOptions options_;
  bool began_ = false;  // threads taken one by one (else read as without the intake)
  std::optional<ProcessLookup> processes_;
  size_t nodes_ = 0;  // in all threads: room for the merged tree
  CompensationStats compensation_;
  CompensationStats selected_compensation_;  // of the threads selects() takes
  bool compensated_ = false;
  ThreadSummaries summaries_;
  std::vector<std::vector<FunctionRow>> rows_;  // per selected thread, with options_.thread_rows
  std::optional<CallTree> tree_;                // the selected threads merged
};

}  // namespace callprof
