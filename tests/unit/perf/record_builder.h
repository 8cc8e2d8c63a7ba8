// Builds perf ring records byte by byte, as the kernel lays them out, for decoder tests.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace callprof::perf::test {

class RecordBuilder {
 public:
  RecordBuilder(uint32_t type, uint16_t misc = 0) {
    u32(type);
    u16(misc);
    u16(0);  // size, patched by bytes()
  }
  RecordBuilder& u16(uint16_t v) { return raw(&v, 2); }
  RecordBuilder& u32(uint32_t v) { return raw(&v, 4); }
  RecordBuilder& u64(uint64_t v) { return raw(&v, 8); }
  RecordBuilder& u8(uint8_t v) { return raw(&v, 1); }
  // A NUL-terminated string padded to 8 bytes, as in COMM and MMAP2.
  RecordBuilder& str(const std::string& s) {
    raw(s.data(), s.size());
    do u8(0);
    while (out_.size() % 8);
    return *this;
  }
  // sample_id trailer for the formats the session uses: tid, time, cpu, identifier.
  RecordBuilder& sample_id(uint32_t pid, uint32_t tid, uint64_t time, uint64_t id = 7) {
    return u32(pid).u32(tid).u64(time).u32(0).u32(0).u64(id);
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b = out_;
    uint16_t size = uint16_t(b.size());
    std::memcpy(b.data() + 6, &size, 2);
    return b;
  }

 private:
  RecordBuilder& raw(const void* p, size_t n) {
    auto* c = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), c, c + n);
    return *this;
  }
  std::vector<uint8_t> out_;
};

}  // namespace callprof::perf::test
