// The public reader and writer: container, payload and file I/O put together, with the file
// name added to every error and no exception let out (allocation failure becomes an Error).
#include "trace/profile_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <new>

#include "trace/container.h"
#include "trace/file_io.h"
#include "trace/payload_budget.h"
#include "trace/proto_convert.h"
#include "util/analysis_heap.h"

namespace callprof {
namespace {

// What reading a profile and analysing it fill, per byte of payload: 8 to 11 times it on
// the 1 M-node profiles of bench/analysis (the models, the merged tree, a view's rows).
constexpr size_t kHeapPerPayloadByte = 10;

Error named(std::string_view name, const Error& error) {
  return make_error(fmt::format("{}: {}", name, error.message));
}

// Runs `body`, turning any escaping exception (in practice std::bad_alloc from protobuf or
// the model's containers) into an Error that starts with `context`.
template <typename Body>
auto guarded(std::string_view context, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return make_error(fmt::format("{}: out of memory", context));
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: {}", context, e.what()));
  }
}

Result<trace::ByteBuffer> serialize_unguarded(const Profile& profile) {
  trace::ByteBuffer payload;
  if (Status s = trace::serialize_payload(profile, payload); !s) return s.error();
  return trace::wrap_payload_buffer(payload.bytes());
}

// A decompressed payload that is within the memory limit, and what it was estimated to need.
struct CheckedPayload {
  std::string bytes;
  uint64_t estimate = 0;
};

// The payload of a whole file's bytes, decompressed and checked against the memory limit:
// from the header's size before decompressing, then from its counts before anything is
// built, so a small file cannot make the reader allocate much (docs/format.md, Limits).
Result<CheckedPayload> payload_of(std::span<const uint8_t> bytes, std::string_view name) {
  Result<trace::FileHeader> header = trace::decode_header(bytes);
  if (!header) return named(name, header.error());
  const std::span<const uint8_t> frame = bytes.subspan(trace::kHeaderSize);
  if (Status s = trace::check_payload_length(*header, frame.size()); !s) return named(name, s.error());
  if (Status s = trace::check_header_budget(header->uncompressed_size, bytes.size()); !s) return named(name, s.error());
  Result<std::string> payload = trace::decompress_payload(*header, frame);
  if (!payload) return named(name, payload.error());
  Result<uint64_t> estimate = trace::check_payload_budget(
      std::span(reinterpret_cast<const uint8_t*>(payload->data()), payload->size()), bytes.size());
  if (!estimate) return named(name, estimate.error());
  return CheckedPayload{std::move(*payload), *estimate};
}

Result<Profile> parse_payload_of(const std::string& payload, std::string_view name, const ReadOptions& options) {
  Result<Profile> profile =
      trace::parse_payload(std::span(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()),
                           options.skip_metrics, options.threads);
  if (!profile) return named(name, profile.error());
  return profile;
}

Result<Profile> parse_unguarded(std::span<const uint8_t> bytes, std::string_view name, const ReadOptions& options) {
  Result<CheckedPayload> payload = payload_of(bytes, name);
  if (!payload) return payload.error();
  return parse_payload_of(payload->bytes, name, options);
}

Result<Profile> read_unguarded(const std::string& path, const ReadOptions& options) {
  Result<trace::InputFile> file = trace::InputFile::open(path);
  if (!file) return file.error();
  std::vector<uint8_t> bytes;
  if (Status s = file->read_until(bytes, trace::kHeaderSize); !s) return s.error();
  Result<trace::FileHeader> header = trace::decode_header(bytes);
  if (!header) return named(path, header.error());
  // One byte past the declared end, so a longer file is reported rather than loaded.
  if (Status s = file->read_until(bytes, trace::kHeaderSize + header->compressed_size + 1); !s) return s.error();
  Result<CheckedPayload> payload = payload_of(bytes, path);
  if (!payload) return payload.error();
  // Warmed once the payload is counted, no more than its estimate: memory warmed on the
  // header's word was faulted in for files that were then refused.
  warm_heap_ahead(std::min<uint64_t>(payload->estimate, payload->bytes.size() * kHeapPerPayloadByte));
  // The compressed bytes' memory serves the model (`bytes = {}` would keep the capacity).
  std::vector<uint8_t>().swap(bytes);
  return parse_payload_of(payload->bytes, path, options);
}

}  // namespace

Result<std::vector<uint8_t>> serialize_profile(const Profile& profile) {
  return guarded("cannot serialize the profile", [&]() -> Result<std::vector<uint8_t>> {
    Result<trace::ByteBuffer> file = serialize_unguarded(profile);
    if (!file) return file.error();
    return std::vector<uint8_t>(file->bytes().begin(), file->bytes().end());
  });
}

Status write_profile(const Profile& profile, const std::string& path) {
  return guarded("cannot write " + path, [&]() -> Status {
    Result<trace::ByteBuffer> bytes = serialize_unguarded(profile);
    if (!bytes) return make_error(fmt::format("cannot write {}: {}", path, bytes.error().message));
    return trace::write_file_atomically(path, bytes->bytes());
  });
}

Status check_profile_writable(const std::string& path) { return trace::check_writable(path); }

Result<Profile> parse_profile(std::span<const uint8_t> bytes, std::string_view name, const ReadOptions& options) {
  return guarded(name, [&] { return parse_unguarded(bytes, name, options); });
}

Result<Profile> read_profile(const std::string& path, const ReadOptions& options) {
  return guarded(path, [&] { return read_unguarded(path, options); });
}

}  // namespace callprof
