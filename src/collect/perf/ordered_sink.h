// Records arrive in time order per CPU ring only. This sink keeps one drain's worth of
// records and passes them on sorted by time, so that a mapping precedes the samples that
// need it and a thread's switch-out precedes its switch-in even across CPUs (perf's
// "ordered events", per drain round).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "collect/perf/perf_decode.h"

namespace callprof::perf {

class OrderedSink : public RecordSink {
 public:
  explicit OrderedSink(RecordSink& next) : next_(next) {}

  void on_sample(Sample&& s) override { push(s.time_ns, std::move(s)); }
  void on_mapping(Mapping&& m) override { push(m.time_ns, std::move(m)); }
  void on_task(TaskEvent&& t) override { push(t.time_ns, std::move(t)); }
  void on_switch(const SwitchEvent& e) override { push(e.time_ns, e); }
  void on_lost(const LostEvent& e, LostKind kind) override { next_.on_lost(e, kind); }

  // Passes on what is held, oldest first (stable: equal times keep ring order). Samples
  // and switches newer than `up_to_ns` stay for the next round: a ring drained early in
  // this round may still receive older ones of the same thread (it moved to another CPU),
  // and a thread's hits and switches must stay in order. Mappings and tasks always go, as
  // the system calls traced beside the session need them now.
  void flush(uint64_t up_to_ns = UINT64_MAX) {
    // Sorted by reference (time, index), not by moving the records (a sample is ~250 bytes
    // and its buffers): in probe mode every hit is a record, and moving them through the
    // sort's buffer and a fresh vector each round was a fifth of the reader's time. Stable:
    // equal times keep ring order. What stays goes to the spare vector, in time order; the
    // two swap, keeping their capacity from round to round.
    order_.resize(held_.size());
    for (uint32_t i = 0; i < held_.size(); ++i) order_[i] = {held_[i].time, i};
    std::stable_sort(order_.begin(), order_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [time, i] : order_) {
      Held& h = held_[i];
      const bool orderable = std::holds_alternative<Sample>(h.record) || std::holds_alternative<SwitchEvent>(h.record);
      if (orderable && h.time > up_to_ns)
        spare_.push_back(std::move(h));
      else if (auto* s = std::get_if<Sample>(&h.record))
        next_.on_sample(std::move(*s));
      else if (auto* m = std::get_if<Mapping>(&h.record))
        next_.on_mapping(std::move(*m));
      else if (auto* t = std::get_if<TaskEvent>(&h.record))
        next_.on_task(std::move(*t));
      else
        next_.on_switch(std::get<SwitchEvent>(h.record));
    }
    held_.swap(spare_);
    spare_.clear();
  }

 private:
  struct Held {
    uint64_t time;
    std::variant<Sample, Mapping, TaskEvent, SwitchEvent> record;
  };
  template <typename R>
  void push(uint64_t time, R&& r) {
    held_.push_back(Held{time, std::forward<R>(r)});
  }

  RecordSink& next_;
  std::vector<Held> held_, spare_;
  std::vector<std::pair<uint64_t, uint32_t>> order_;  // (time, index in held_)
};

}  // namespace callprof::perf
