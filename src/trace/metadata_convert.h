// Model <-> payload for the recording's metadata and function kinds (internal), including
// files written before the facts were typed: their string keys are read into the fields.
#pragma once

#include "model/profile.h"
#include "trace/profile.pb.h"

namespace callprof::trace {

void put_metadata(const Metadata& meta, file::Metadata* out);
Metadata take_metadata(const file::Metadata& in);

file::FunctionKind to_proto(FunctionKind kind);
// An unspecified kind (older files) is inferred from the name's synthetic prefix; values
// of a newer writer read as Normal.
FunctionKind take_kind(file::FunctionKind kind, std::string_view name);

}  // namespace callprof::trace
