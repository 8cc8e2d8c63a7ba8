// Placeholder until the speedscope writer lands.
#include "export/export.h"

namespace callprof {

Status write_speedscope(const Analysis&, std::ostream&) { return make_error("the speedscope export is not built yet"); }

}  // namespace callprof
