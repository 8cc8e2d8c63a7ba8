// Reading and writing callprof profile files; the format is specified in docs/format.md.
// Every failure is an Error whose one-line message names the file and says what is wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/profile.h"
#include "model/thread_sink.h"
#include "util/result.h"

namespace callprof {

// The format version this build writes, and the newest one it reads.
inline constexpr uint32_t kProfileFormatVersion = 1;

// The complete file contents for `profile`. Fails only when the profile is too large for
// the format (a payload above 2 GiB - 1) or memory runs out.
Result<std::vector<uint8_t>> serialize_profile(const Profile& profile);

// Writes `profile` to `path` atomically: a temporary file in the same directory, renamed
// over `path` once complete, so readers see the old file or the new one, never a mix.
Status write_profile(const Profile& profile, const std::string& path);

// Whether write_profile could put a file at `path`: its temporary file is created and
// removed. Checked before a recording starts, so that a directory that takes no regular
// files (/proc, /sys) is found before the program runs rather than after.
Status check_profile_writable(const std::string& path);

// What a reader may leave out of the profile it builds.
struct ReadOptions {
  // Metric columns nothing downstream reads: their values are not decoded (still checked),
  // and the profile's trees have no such column (MetricTable::has is false). Except
  // preempted_ns while offcpu_ns is read: the file's offcpu_ns includes the preempted time,
  // which the reader subtracts, so that column is always decoded with it.
  std::vector<Metric> skip_metrics;
  // When set, each thread goes to it as soon as it is read (model/thread_sink.h), and joins
  // the profile as the sink leaves it.
  ThreadSink* threads = nullptr;
};

// Decodes a whole file's contents. `name` is what error messages call the input.
// Errors start with "<name>: " and then one of: "not a callprof profile", "newer format
// version N", "truncated", "corrupted", "invalid" (see docs/format.md, "Errors").
Result<Profile> parse_profile(std::span<const uint8_t> bytes, std::string_view name, const ReadOptions& options = {});

// Reads and decodes the file at `path`; reads no more than its header declares.
Result<Profile> read_profile(const std::string& path, const ReadOptions& options = {});

}  // namespace callprof
