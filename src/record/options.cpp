#include "record/options.h"

namespace callprof::record {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::Exact:
      return "exact";
    case Mode::Sample:
      return "sample";
    case Mode::Syscall:
      return "syscall";
    case Mode::Probe:
      return "probe";
  }
  return "?";
}

Result<std::optional<Mode>> parse_mode(const std::string& name) {
  if (name == "auto") return std::optional<Mode>();
  for (Mode m : {Mode::Exact, Mode::Sample, Mode::Syscall, Mode::Probe})
    if (name == mode_name(m)) return std::optional<Mode>(m);
  return make_error("unknown mode '" + name + "' (auto, exact, sample, syscall or probe)");
}

}  // namespace callprof::record
