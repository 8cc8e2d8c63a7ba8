// Placeholder until the pprof writer lands.
#include "export/export.h"

namespace callprof {

Status write_pprof(const Analysis&, std::ostream&) { return make_error("the pprof export is not built yet"); }

}  // namespace callprof
