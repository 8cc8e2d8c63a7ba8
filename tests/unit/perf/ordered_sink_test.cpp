// The ordering buffer between the per-CPU rings and the collector: records in time order,
// samples and switches newer than the round's safe time held for the next round.
#include "collect/perf/ordered_sink.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace callprof::perf {
namespace {

class Log : public RecordSink {
 public:
  void on_sample(Sample&& s) override { seen.push_back("sample@" + std::to_string(s.time_ns)); }
  void on_mapping(Mapping&& m) override { seen.push_back("mapping@" + std::to_string(m.time_ns)); }
  void on_task(TaskEvent&& t) override { seen.push_back("task@" + std::to_string(t.time_ns)); }
  void on_switch(const SwitchEvent& e) override { seen.push_back("switch@" + std::to_string(e.time_ns)); }
  std::vector<std::string> seen;
};

Sample sample_at(uint64_t t) {
  Sample s;
  s.time_ns = t;
  return s;
}

TEST(OrderedSink, PassesRecordsOnInTimeOrder) {
  Log log;
  OrderedSink sink(log);
  sink.on_sample(sample_at(30));
  sink.on_mapping(Mapping{.time_ns = 10});
  sink.on_switch(SwitchEvent{.time_ns = 20});
  sink.flush();
  EXPECT_EQ(log.seen, (std::vector<std::string>{"mapping@10", "switch@20", "sample@30"}));
}

// A thread's hit read from one ring in this round and an older one of the same thread that
// another ring only shows next round: the newer one waits, so the two come in order.
TEST(OrderedSink, HoldsSamplesAndSwitchesNewerThanTheSafeTime) {
  Log log;
  OrderedSink sink(log);
  sink.on_sample(sample_at(100));
  sink.on_switch(SwitchEvent{.time_ns = 120});
  sink.on_task(TaskEvent{.time_ns = 130});
  sink.on_sample(sample_at(50));
  sink.flush(90);
  EXPECT_EQ(log.seen, (std::vector<std::string>{"sample@50", "task@130"})) << "tasks and mappings always go";
  sink.on_sample(sample_at(95));  // the next round's older record
  sink.flush(200);
  EXPECT_EQ(log.seen, (std::vector<std::string>{"sample@50", "task@130", "sample@95", "sample@100", "switch@120"}));
}

}  // namespace
}  // namespace callprof::perf
