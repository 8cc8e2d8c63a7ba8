// The metadata of a merged profile (SPEC §2 merge): what every input shares kept, what
// differs joined or marked "mixed", counts added. Independent of the inputs' order and
// grouping, as the merge itself.
#pragma once

#include <vector>

#include "model/profile.h"

namespace callprof {

// The merged metadata of inputs with metadata `metas` (at least one).
Metadata merged_metadata(const std::vector<Metadata>& metas);

}  // namespace callprof
