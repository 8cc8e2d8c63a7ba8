// Per thread, what Analysis::run does to the whole profile: compensate, summarise, merge.
#include "query/thread_intake.h"

#include "model/transform/merge.h"
#include "model/transform/sampled_time.h"

namespace callprof {

// With two threads, both trees exist at once whichever way they are read, and reading them
// together is faster; from three on, a thread's tree is gone before the third is read.
bool ThreadIntake::begin(const Profile& head, size_t threads, size_t nodes) {
  began_ = threads > 2;
  if (!began_) return false;
  processes_.emplace(head);
  nodes_ = nodes;
  return true;
}

void ThreadIntake::take(const Profile& head, size_t, Thread& thread) {
  if (options_.sampled_time) {
    if (auto period = sample_period_ns(head)) use_sampled_time(thread.tree, *period);
  } else if (!options_.raw) {
    CompensationStats own;
    compensated_ |= compensate_thread(head, processes_->of(thread), thread, own);
    compensation_.add(own);
    if (selects(options_, thread)) selected_compensation_.add(own);
  }
  summaries_.add(thread.tree);
  if (selects(options_, thread)) {
    if (options_.thread_rows) rows_.push_back(function_rows(thread.tree));
    if (!tree_) {
      tree_ = std::move(thread.tree);
      tree_->reserve(nodes_);  // an upper bound: equal paths merge
    } else {
      merge_into(*tree_, thread.tree);
    }
  }
  thread.tree = CallTree();
}

}  // namespace callprof
