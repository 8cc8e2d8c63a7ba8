// Placeholder until the callgrind writer lands.
#include "export/export.h"

namespace callprof {

Status write_callgrind(const Analysis&, std::ostream&) { return make_error("the callgrind export is not built yet"); }

}  // namespace callprof
