// `callprof html`: placeholder until the command lands.
#include "cli/commands.h"

namespace callprof::cli {

Run add_html(CLI::App&) {
  return [] { return fail("html is not built yet"); };
}

}  // namespace callprof::cli
