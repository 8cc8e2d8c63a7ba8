// Names of recording modes and unwinding choices (see recording_mode.h).
#include "model/recording_mode.h"

#include <algorithm>

namespace callprof {

std::string_view recording_mode_name(RecordingMode m) {
  switch (m) {
    case RecordingMode::Exact:
      return "exact";
    case RecordingMode::Sample:
      return "sample";
    case RecordingMode::Syscall:
      return "syscall";
    case RecordingMode::Probe:
      return "probe";
  }
  return "?";
}

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

std::string_view unwinding_name(Unwinding u) {
  switch (u) {
    case Unwinding::Unknown:
      return "";
    case Unwinding::FramePointers:
      return "fp";
    case Unwinding::Dwarf:
      return "dwarf";
    case Unwinding::ShadowStack:
      return "shadow-stack";
    case Unwinding::Mixed:
      return "mixed";
  }
  return "";
}

Unwinding parse_unwinding(std::string_view name) {
  for (Unwinding u : {Unwinding::FramePointers, Unwinding::Dwarf, Unwinding::ShadowStack, Unwinding::Mixed})
    if (name == unwinding_name(u)) return u;
  return Unwinding::Unknown;
}

}  // namespace callprof
