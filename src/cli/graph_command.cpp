// `callprof graph`: placeholder until the command lands.
#include "cli/commands.h"

namespace callprof::cli {

Run add_graph(CLI::App&) {
  return [] { return fail("graph is not built yet"); };
}

}  // namespace callprof::cli
