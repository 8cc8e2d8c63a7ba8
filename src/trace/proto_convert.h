// Conversion between the in-memory Profile and the protobuf payload message (internal).
#pragma once

#include <span>

#include "model/profile.h"
#include "model/thread_sink.h"
#include "trace/byte_buffer.h"
#include "trace/profile.pb.h"
#include "util/result.h"

namespace callprof::trace {

// Trees are written columnar, with only the metric columns that hold a non-default value.
file::Profile to_proto(const Profile& profile);
// Appends the payload's bytes, the same as to_proto(profile) serialised, to `out`, built one
// thread at a time: the whole message, several times the size of the trees, is never held.
// Fails (one line) when the payload would exceed kMaxPayloadSize.
Status serialize_payload(const Profile& profile, ByteBuffer& out);

// Parses the payload's bytes, validates them (validate_head, validate_thread) and rebuilds
// the model, one thread at a time (the whole message is never held). Errors read
// "corrupted (...)" or "invalid (...)", without the file name. The `skip_metrics` columns
// are checked but not decoded: the trees have no such column (preempted_ns excepted while
// offcpu_ns is read: the reader needs it to split the file's off-CPU time). With a `sink`, each thread is
// handed to it as it is read (model/thread_sink.h), the next read meanwhile.
Result<Profile> parse_payload(std::span<const uint8_t> payload, std::span<const Metric> skip_metrics = {},
                              ThreadSink* sink = nullptr);

}  // namespace callprof::trace
