// Conversion between the in-memory Profile and the protobuf payload message (internal).
#pragma once

#include "model/profile.h"
#include "trace/profile.pb.h"
#include "util/result.h"

namespace callprof::trace {

// Trees are written columnar, with only the metric columns that hold a non-default value.
file::Profile to_proto(const Profile& profile);

// Validates the message (validate_payload) and rebuilds the model. Errors read
// "invalid (...)", without the file name.
Result<Profile> from_proto(const file::Profile& payload);

}  // namespace callprof::trace
