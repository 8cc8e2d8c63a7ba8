// libFuzzer entry for sampling mode's record decoder: the first bytes choose the sample
// layout (the bits the sessions use), the rest is decoded as ring contents at an offset,
// so records wrapping around the ring end are exercised too. Nothing may crash or hang.
#include <linux/perf_event.h>

#include <cstdint>
#include <span>
#include <vector>

#include "collect/perf/perf_decode.h"

using namespace callprof::perf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  DecodeFormat format;
  format.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                       PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  if (data[0] & 1) format.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  if (format.sample_type & PERF_SAMPLE_REGS_USER) format.regs_user_mask = 0xff0fff;  // x86 GPRs and ip, sp
  format.sample_id_all = data[0] & 2;
  if (data[0] & 4) format.switch_ids = {1, 7};
  if (!format_supported(format)) return 0;
  RecordSink sink;
  DecodeStats stats;
  std::span<const uint8_t> bytes(data + 2, size - 2);
  decode_record(format, bytes, sink, stats);
  // The same bytes as a ring of the next power of two, read from an offset chosen by data[1].
  size_t ring_size = 8;
  while (ring_size < bytes.size()) ring_size *= 2;
  std::vector<uint8_t> ring(ring_size);
  const uint64_t tail = data[1] % ring_size;
  for (size_t i = 0; i < bytes.size(); ++i) ring[(tail + i) % ring_size] = bytes[i];
  decode_ring(format, ring, tail, tail + bytes.size(), sink, stats);
  return 0;
}
