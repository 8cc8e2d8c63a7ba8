// Names of recording modes and unwinding choices (see recording_mode.h).
#include "model/recording_mode.h"

#include <algorithm>
#include <array>

namespace callprof {
namespace {

// By enum value.
constexpr std::array<std::string_view, 4> kModeNames = {"exact", "sample", "syscall", "probe"};
constexpr std::array<std::string_view, 5> kUnwindingNames = {"", "fp", "dwarf", "shadow-stack", "mixed"};

}  // namespace

std::string_view recording_mode_name(RecordingMode m) { return kModeNames.at(size_t(m)); }

std::optional<RecordingMode> parse_recording_mode(std::string_view name) {
  for (RecordingMode m : kRecordingModes)
    if (name == recording_mode_name(m)) return m;
  return std::nullopt;
}

RecordingModes::RecordingModes(RecordingMode m) : bits_(bit(m)), text_(recording_mode_name(m)) {}

RecordingModes RecordingModes::from_text(std::string_view text) {
  RecordingModes out;
  out.text_ = std::string(text);
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('+', at), text.size());
    if (auto m = parse_recording_mode(text.substr(at, end - at))) out.bits_ |= bit(*m);
    at = end + 1;
  }
  return out;
}

std::string_view unwinding_name(Unwinding u) { return kUnwindingNames.at(size_t(u)); }

Unwinding parse_unwinding(std::string_view name) {
  // "" is Unknown too: the first entry.
  const auto it = std::find(kUnwindingNames.begin(), kUnwindingNames.end(), name);
  return it == kUnwindingNames.end() ? Unwinding::Unknown : Unwinding(it - kUnwindingNames.begin());
}

}  // namespace callprof
