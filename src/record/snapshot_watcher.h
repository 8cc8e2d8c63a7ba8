// While an exact-mode program runs, every snapshot the runtime writes becomes the output
// profile: a thread compares the snapshot files' fingerprint every 200 ms and calls
// `on_change` when it moved. Stops (and joins) when destroyed.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace callprof::record {

class SnapshotWatcher {
 public:
  SnapshotWatcher(std::function<std::string()> fingerprint, std::function<void()> on_change);
  ~SnapshotWatcher();

 private:
  void run();
  std::function<std::string()> fingerprint_;
  std::function<void()> on_change_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace callprof::record
