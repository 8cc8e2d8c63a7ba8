// Reading through a ThreadSink (model/thread_sink.h): threads handed over in order, in
// batches read on another core, their trees taken; a sink that declines, and a bad thread
// in the middle, leave the reader as it is without one.
#include <gtest/gtest.h>

#include "test_profiles.h"
#include "trace/profile_file.h"

namespace callprof {
namespace {

// Threads of `sizes` nodes each (a chain of one function: every node a new path).
Profile profile_of(const std::vector<size_t>& sizes) {
  Profile p;
  p.meta.mode = RecordingMode::Exact;
  p.functions = {{"f", "f"}};
  for (size_t t = 0; t < sizes.size(); ++t) {
    Thread th = test::make_thread(uint32_t(100 + t), 1);
    NodeId at = kRootNode;
    for (size_t n = 1; n < sizes[t]; ++n) {
      at = th.tree.append(at, 0, false);
      th.tree.base(at)[Metric::Calls] = n;
    }
    p.threads.push_back(std::move(th));
  }
  return p;
}

class Recorder : public ThreadSink {
 public:
  explicit Recorder(bool accept) : accept_(accept) {}
  bool begin(const Profile& head, size_t threads, size_t nodes) override {
    EXPECT_TRUE(head.threads.empty());
    threads_ = threads;
    nodes_ = nodes;
    return accept_;
  }
  void take(const Profile& head, size_t index, Thread& thread) override {
    EXPECT_EQ(index, head.threads.size()) << "in order, after the ones before";
    taken_.push_back({thread.tid, thread.tree.size()});
    thread.tree = CallTree();
  }
  bool accept_;
  size_t threads_ = 0, nodes_ = 0;
  std::vector<std::pair<uint32_t, size_t>> taken_;  // tid, nodes
};

TEST(ThreadSink, TakesEveryThreadInOrderAcrossBatches) {
  // Two threads large enough to be a batch each (over 1 MB of message), small ones between.
  const std::vector<size_t> sizes = {5, 300000, 3, 7, 250000, 2};
  auto bytes = serialize_profile(profile_of(sizes));
  ASSERT_TRUE(bytes.ok());
  Recorder sink(true);
  auto read = parse_profile(*bytes, "p", ReadOptions{{}, &sink});
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(sink.threads_, sizes.size());
  size_t nodes = 0;
  for (size_t s : sizes) nodes += s;
  EXPECT_EQ(sink.nodes_, nodes) << "counted from the messages before any is parsed";
  ASSERT_EQ(sink.taken_.size(), sizes.size());
  ASSERT_EQ(read->threads.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(sink.taken_[i], std::make_pair(uint32_t(100 + i), sizes[i]));
    EXPECT_EQ(read->threads[i].tid, 100 + i);
    EXPECT_EQ(read->threads[i].tree.size(), 1u) << "joined the profile as the sink left it";
  }
}

TEST(ThreadSink, ADecliningSinkSeesNoThread) {
  const Profile p = profile_of({4, 6, 8});
  auto bytes = serialize_profile(p);
  ASSERT_TRUE(bytes.ok());
  Recorder sink(false);
  auto read = parse_profile(*bytes, "p", ReadOptions{{}, &sink});
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(sink.taken_.empty());
  test::expect_same_profile(p, *read);
}

TEST(ThreadSink, ABadThreadFailsAsWithoutTheSinkAfterTheOnesBefore) {
  Profile p = profile_of({4, 6, 300000, 8, 5});
  p.threads[3].tree.append(kRootNode, 7, false);  // function 7 of 1
  auto bytes = serialize_profile(p);
  ASSERT_TRUE(bytes.ok());
  const auto whole = parse_profile(*bytes, "p");
  ASSERT_FALSE(whole.ok());
  Recorder sink(true);
  const auto through = parse_profile(*bytes, "p", ReadOptions{{}, &sink});
  ASSERT_FALSE(through.ok());
  EXPECT_EQ(through.error().message, whole.error().message);
  EXPECT_EQ(sink.taken_.size(), 3u) << "the threads before it, and no more";
}

}  // namespace
}  // namespace callprof
