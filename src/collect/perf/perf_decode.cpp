// Record layouts follow include/uapi/linux/perf_event.h. Every read goes through a bounded
// cursor, so a lying size or count ends the record, never the process.
#include "collect/perf/perf_decode.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace callprof::perf {
namespace {

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool u64(uint64_t& v) { return copy(&v, 8); }
  bool u32(uint32_t& v) { return copy(&v, 4); }
  bool bytes(size_t n, std::span<const uint8_t>& out) {
    if (n > remaining()) return false;
    out = bytes_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  bool copy(void* v, size_t n) {
    if (n > remaining()) return false;
    std::memcpy(v, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

// The sample_id fields that end every non-sample record (attr.sample_id_all).
struct SampleId {
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0, id = 0;
};

constexpr uint64_t kSampleIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

// Splits a record body from its sample_id trailer, which is parsed from the end because
// the body may hold a NUL-padded string of any length.
bool split_sample_id(const DecodeFormat& f, std::span<const uint8_t> body, std::span<const uint8_t>& rest,
                     SampleId& id) {
  size_t n = f.sample_id_all ? 8 * size_t(std::popcount(f.sample_type & kSampleIdBits)) : 0;
  if (n > body.size()) return false;
  rest = body.first(body.size() - n);
  Cursor c(body.last(n));
  uint64_t skip = 0;
  if (!f.sample_id_all) return true;
  if (f.sample_type & PERF_SAMPLE_TID) c.u32(id.pid), c.u32(id.tid);
  if (f.sample_type & PERF_SAMPLE_TIME) c.u64(id.time);
  if (f.sample_type & PERF_SAMPLE_ID) c.u64(id.id);
  if (f.sample_type & PERF_SAMPLE_STREAM_ID) c.u64(skip);
  if (f.sample_type & PERF_SAMPLE_CPU) c.u64(skip);
  if (f.sample_type & PERF_SAMPLE_IDENTIFIER) c.u64(id.id);
  return true;
}

// A NUL-terminated string filling (at most) the rest of a body; a missing NUL is malformed.
bool read_string(Cursor& c, std::string& out) {
  std::span<const uint8_t> s;
  if (!c.bytes(c.remaining(), s)) return false;
  auto nul = std::find(s.begin(), s.end(), uint8_t{0});
  if (nul == s.end()) return false;
  out.assign(s.begin(), nul);
  return true;
}

// perf x86 register index -> DWARF register number (-1: not a DWARF GPR).
constexpr int kPerfToDwarf[24] = {0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15};

bool read_user_regs(const DecodeFormat& f, Cursor& c, Sample& s) {
  uint64_t abi = 0;
  if (!c.u64(abi)) return false;
  if (abi == PERF_SAMPLE_REGS_ABI_NONE) return true;  // a kernel thread: no user registers
  int found = 0;
  for (int bit = 0; bit < 64; ++bit) {
    if (!(f.regs_user_mask >> bit & 1)) continue;
    uint64_t v = 0;
    if (!c.u64(v)) return false;
    int dwarf = bit < 24 ? kPerfToDwarf[bit] : -1;
    if (dwarf >= 0) s.regs[size_t(dwarf)] = v, ++found;
  }
  // A 32-bit task's registers would need another numbering; leave it to frame pointers.
  s.has_user_regs = abi == PERF_SAMPLE_REGS_ABI_64 && found == int(kDwarfRegs);
  return true;
}

bool read_user_stack(Cursor& c, Sample& s) {
  uint64_t size = 0, dyn_size = 0;
  std::span<const uint8_t> data;
  if (!c.u64(size)) return false;
  if (size == 0) return true;  // no stack could be copied (no dyn_size follows then)
  if (size > c.remaining() || !c.bytes(size_t(size), data) || !c.u64(dyn_size)) return false;
  data = data.first(size_t(std::min(size, dyn_size)));
  s.stack.assign(data.begin(), data.end());
  return true;
}

// Splits a callchain at its PERF_CONTEXT_* markers; hypervisor and guest frames are dropped.
bool read_callchain(Cursor& c, Sample& s) {
  uint64_t nr = 0;
  if (!c.u64(nr) || nr > c.remaining() / 8) return false;
  std::vector<uint64_t>* to = s.user ? &s.user_chain : &s.kernel_chain;
  for (uint64_t i = 0; i < nr; ++i) {
    uint64_t ip = 0;
    c.u64(ip);
    if (ip >= uint64_t(PERF_CONTEXT_MAX)) {
      to = ip == uint64_t(PERF_CONTEXT_KERNEL) ? &s.kernel_chain
           : ip == uint64_t(PERF_CONTEXT_USER) ? &s.user_chain
                                               : nullptr;
    } else if (to) {
      to->push_back(ip);
    }
  }
  return true;
}

bool decode_sample(const DecodeFormat& f, const perf_event_header& h, Cursor c, RecordSink& sink) {
  Sample s;
  uint64_t t = f.sample_type, id = 0, skip = 0;
  uint16_t mode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s.user = mode == PERF_RECORD_MISC_USER || mode == PERF_RECORD_MISC_GUEST_USER;
  bool ok = true;
  if (t & PERF_SAMPLE_IDENTIFIER) ok &= c.u64(id);
  if (t & PERF_SAMPLE_IP) ok &= c.u64(s.ip);
  if (t & PERF_SAMPLE_TID) ok &= c.u32(s.pid) && c.u32(s.tid);
  if (t & PERF_SAMPLE_TIME) ok &= c.u64(s.time_ns);
  if (t & PERF_SAMPLE_ADDR) ok &= c.u64(skip);
  if (t & PERF_SAMPLE_ID) ok &= c.u64(id);
  if (t & PERF_SAMPLE_STREAM_ID) ok &= c.u64(skip);
  if (t & PERF_SAMPLE_CPU) ok &= c.u64(skip);
  if (t & PERF_SAMPLE_PERIOD) ok &= c.u64(s.period);
  if (ok && (t & PERF_SAMPLE_CALLCHAIN)) ok = read_callchain(c, s);
  if (ok && (t & PERF_SAMPLE_REGS_USER)) ok = read_user_regs(f, c, s);
  if (ok && (t & PERF_SAMPLE_STACK_USER)) ok = read_user_stack(c, s);
  if (!ok) return false;
  s.switch_out = std::find(f.switch_ids.begin(), f.switch_ids.end(), id) != f.switch_ids.end();
  s.id = id;
  sink.on_sample(std::move(s));
  return true;
}

bool decode_mmap(const perf_event_header& h, Cursor c, const SampleId& sid, RecordSink& sink) {
  Mapping m;
  uint32_t tid = 0, prot = 0, flags = 0;
  uint64_t len = 0;
  bool ok = c.u32(m.pid) && c.u32(tid) && c.u64(m.start) && c.u64(len) && c.u64(m.pgoff);
  if (ok && h.type == PERF_RECORD_MMAP2) {
    std::span<const uint8_t> ids;  // maj/min/ino/generation, or the build id
    ok = c.bytes(24, ids) && c.u32(prot) && c.u32(flags);
    if (ok && (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
      static const char* hex = "0123456789abcdef";
      for (size_t i = 0; i < std::min<size_t>(ids[0], 20); ++i) {
        m.build_id += hex[ids[4 + i] >> 4];
        m.build_id += hex[ids[4 + i] & 15];
      }
    }
  }
  if (!ok || !read_string(c, m.path) || m.start + len < m.start) return false;
  m.end = m.start + len;
  m.time_ns = sid.time;
  sink.on_mapping(std::move(m));
  return true;
}

bool decode_task(const perf_event_header& h, Cursor c, const SampleId& sid, RecordSink& sink) {
  TaskEvent e;
  e.time_ns = sid.time;
  if (h.type == PERF_RECORD_COMM) {
    e.kind = (h.misc & PERF_RECORD_MISC_COMM_EXEC) ? TaskEvent::Kind::Exec : TaskEvent::Kind::Comm;
    if (!c.u32(e.pid) || !c.u32(e.tid) || !read_string(c, e.comm)) return false;
  } else {
    e.kind = h.type == PERF_RECORD_FORK ? TaskEvent::Kind::Fork : TaskEvent::Kind::Exit;
    if (!c.u32(e.pid) || !c.u32(e.ppid) || !c.u32(e.tid) || !c.u32(e.ptid) || !c.u64(e.time_ns)) return false;
  }
  sink.on_task(std::move(e));
  return true;
}

// Decodes a non-sample record; false when it is malformed.
bool decode_side_band(const DecodeFormat& f, const perf_event_header& h, std::span<const uint8_t> body,
                      RecordSink& sink, DecodeStats& st) {
  std::span<const uint8_t> rest;
  SampleId sid;
  if (!split_sample_id(f, body, rest, sid)) return false;
  Cursor c(rest);
  uint64_t skip = 0, lost = 0;
  switch (h.type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
      return decode_mmap(h, c, sid, sink) && ++st.mappings;
    case PERF_RECORD_COMM:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      return decode_task(h, c, sid, sink) && ++st.tasks;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      bool out = h.misc & PERF_RECORD_MISC_SWITCH_OUT;
      sink.on_switch({sid.pid, sid.tid, sid.time, out, out && (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)});
      return ++st.switches;
    }
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES: {
      bool records = h.type == PERF_RECORD_LOST;
      if ((records && !c.u64(skip)) || !c.u64(lost)) return false;
      (records ? st.lost_records : st.lost_samples) += lost;
      sink.on_lost({lost, sid.time, sid.pid, sid.tid}, records ? LostKind::Records : LostKind::Samples);
      return true;
    }
    case PERF_RECORD_THROTTLE:
      return ++st.throttles;
    default:
      return ++st.other;
  }
}

}  // namespace

bool format_supported(const DecodeFormat& f) {
  constexpr uint64_t kKnown = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                              PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                              PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                              PERF_SAMPLE_STACK_USER;
  // Fields after the user stack could be ignored, but READ, RAW and BRANCH_STACK sit in between.
  constexpr uint64_t kAfterStack = ~(PERF_SAMPLE_STACK_USER * 2 - 1);
  return (f.sample_type & ~kKnown & ~kAfterStack) == 0;
}

void decode_record(const DecodeFormat& f, std::span<const uint8_t> record, RecordSink& sink, DecodeStats& st) {
  perf_event_header h{};
  if (record.size() < sizeof h) {
    ++st.malformed;
    return;
  }
  std::memcpy(&h, record.data(), sizeof h);
  auto body = record.subspan(sizeof h, std::min<size_t>(h.size, record.size()) - std::min<size_t>(h.size, sizeof h));
  ++st.records;
  bool ok = h.size >= sizeof h && h.size <= record.size() && h.size % 8 == 0;  // the kernel pads to 8
  if (ok && h.type == PERF_RECORD_SAMPLE) {
    ok = format_supported(f) && decode_sample(f, h, Cursor(body), sink);
    st.samples += ok;
  } else if (ok) {
    ok = decode_side_band(f, h, body, sink, st);
  }
  st.malformed += !ok;
}

uint64_t decode_ring(const DecodeFormat& f, std::span<const uint8_t> ring, uint64_t tail, uint64_t head,
                     RecordSink& sink, DecodeStats& st) {
  const size_t size = ring.size();
  if (size == 0 || !std::has_single_bit(size) || head - tail > size) {
    ++st.malformed;  // not a ring, or the kernel's head is beyond what it can have written
    return head;
  }
  std::vector<uint8_t> wrapped;
  while (head - tail >= sizeof(perf_event_header)) {
    auto copy_out = [&](size_t n) {  // the n bytes at tail, contiguous
      size_t off = size_t(tail & (size - 1)), first = std::min(n, size - off);
      if (first == n) return ring.subspan(off, n);
      wrapped.assign(ring.begin() + ptrdiff_t(off), ring.end());
      wrapped.insert(wrapped.end(), ring.begin(), ring.begin() + ptrdiff_t(n - first));
      return std::span<const uint8_t>(wrapped);
    };
    perf_event_header h{};
    std::memcpy(&h, copy_out(sizeof h).data(), sizeof h);
    if (h.size < sizeof h || h.size > head - tail) break;
    decode_record(f, copy_out(h.size), sink, st);
    tail += h.size;
  }
  if (tail != head) ++st.malformed;
  return head;
}

}  // namespace callprof::perf
