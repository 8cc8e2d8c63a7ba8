// The head/tail protocol of perf_event_mmap_page: read data_head with acquire ordering
// (records before it are complete), publish data_tail with release ordering once read.
#include "collect/perf/perf_ring.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace callprof::perf {

Result<PerfRing> PerfRing::map(int fd, size_t data_bytes) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  if (data_bytes < page || !std::has_single_bit(data_bytes))
    return make_error("perf ring size " + std::to_string(data_bytes) + " is not a power of two of at least a page");
  void* base = mmap(nullptr, page + data_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    int err = errno;
    std::string hint = err == EPERM ? " (over perf_event_mlock_kb; run as root or use a smaller ring)" : "";
    return make_error("cannot map a " + std::to_string(data_bytes / 1024) + " KiB perf ring: " + std::strerror(err) +
                      hint);
  }
  PerfRing ring;
  ring.base_ = base;
  ring.data_bytes_ = data_bytes;
  return ring;
}

PerfRing& PerfRing::operator=(PerfRing&& other) noexcept {
  if (this != &other) {
    unmap();
    base_ = std::exchange(other.base_, nullptr);
    data_bytes_ = std::exchange(other.data_bytes_, 0);
  }
  return *this;
}

PerfRing::~PerfRing() { unmap(); }

void PerfRing::unmap() {
  if (base_) munmap(base_, size_t(sysconf(_SC_PAGESIZE)) + data_bytes_);
  base_ = nullptr;
}

size_t PerfRing::drain(const DecodeFormat& format, RecordSink& sink, DecodeStats& stats) {
  if (!base_) return 0;
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;                                                                // only we write it
  size_t offset = meta->data_offset ? size_t(meta->data_offset) : size_t(sysconf(_SC_PAGESIZE));  // < Linux 4.1
  auto* data = static_cast<const uint8_t*>(base_) + offset;
  uint64_t new_tail = decode_ring(format, {data, data_bytes_}, tail, head, sink, stats);
  __atomic_store_n(&meta->data_tail, new_tail, __ATOMIC_RELEASE);
  return size_t(head - tail);
}

}  // namespace callprof::perf
