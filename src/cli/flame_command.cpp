// `callprof flame`: placeholder until the command lands.
#include "cli/commands.h"

namespace callprof::cli {

Run add_flame(CLI::App&) {
  return [] { return fail("flame is not built yet"); };
}

}  // namespace callprof::cli
