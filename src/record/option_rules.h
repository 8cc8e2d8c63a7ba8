// Which options apply to which mode: an option the user gave that the recording's mode
// would ignore is refused with one line before anything runs, never silently dropped
// (docs/modes.md, "Options and modes").
#pragma once

#include <string>
#include <vector>

#include "record/options.h"
#include "util/result.h"

namespace callprof::record {

// `given`: long option names ("--alloc"). `why_mode`: how the mode was chosen, for the
// message ("" when the user chose it). Ok, or the first option that does not apply.
Status check_options_apply(const RecordArgs& args, Mode mode, const std::string& why_mode);

}  // namespace callprof::record
