// How a profile's data was collected, typed: its mode(s) and how sampled stacks were unwound.
// The file and JSON keep the stable names ("exact", "fp", ...); code compares the values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace callprof {

// The sources a recording runs (record --mode).
enum class RecordingMode : uint8_t { Exact, Sample, Syscall, Probe };
inline constexpr RecordingMode kRecordingModes[] = {RecordingMode::Exact, RecordingMode::Sample, RecordingMode::Syscall,
                                                    RecordingMode::Probe};
// "exact", "sample", "syscall", "probe".
std::string_view recording_mode_name(RecordingMode m);
std::optional<RecordingMode> parse_recording_mode(std::string_view name);

// Metadata::mode: the modes a profile's data came from, one for a recording, several for a
// merge of different modes (merge --force; written "exact+sample"). Its text is kept as read,
// so a name this build does not know still shows.
class RecordingModes {
 public:
  RecordingModes() = default;
  RecordingModes(RecordingMode m);  // NOLINT(google-explicit-constructor): a recording's one mode
  static RecordingModes from_text(std::string_view text);

  bool has(RecordingMode m) const { return bits_ & bit(m); }
  bool only(RecordingMode m) const { return bits_ == bit(m) && text_ == recording_mode_name(m); }
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  bool operator==(const RecordingModes& o) const { return text_ == o.text_; }

 private:
  static uint8_t bit(RecordingMode m) { return uint8_t(1u << unsigned(m)); }
  uint8_t bits_ = 0;
  std::string text_;
};

// SamplingFacts::unwind: how a sample's stack was found.
enum class Unwinding : uint8_t {
  Unknown,        // "": not said (or a name this build does not know)
  FramePointers,  // "fp"
  Dwarf,          // "dwarf"
  ShadowStack,    // "shadow-stack": samples inside exact mode, under the runtime's shadow stack
  Mixed,          // "mixed": a merge of profiles unwound differently
};
std::string_view unwinding_name(Unwinding u);
Unwinding parse_unwinding(std::string_view name);

}  // namespace callprof
