#include "record/options.h"

namespace callprof::record {

Result<std::optional<Mode>> parse_mode(const std::string& name) {
  if (name == "auto") return std::optional<Mode>();
  if (auto m = parse_recording_mode(name)) return std::optional<Mode>(*m);
  return make_error("unknown mode '" + name + "' (auto, exact, sample, syscall or probe)");
}

}  // namespace callprof::record
