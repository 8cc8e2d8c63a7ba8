#include "record/snapshot_watcher.h"

#include <chrono>

namespace callprof::record {

SnapshotWatcher::SnapshotWatcher(std::function<std::string()> fingerprint, std::function<void()> on_change)
    : fingerprint_(std::move(fingerprint)), on_change_(std::move(on_change)), thread_([this] { run(); }) {}

SnapshotWatcher::~SnapshotWatcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void SnapshotWatcher::run() {
  std::string seen = fingerprint_();
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
    std::string now = fingerprint_();
    if (now == seen) continue;
    seen = now;
    on_change_();
  }
}

}  // namespace callprof::record
