#!/usr/bin/env bash
# Configures and builds callprof into build/ (Release with debug info): everything, tests
# included (the default, scripts/test.sh), or with `run` only what profiling needs: the
# program, its runtime and allocation interposer, and the bundled example (scripts/demo.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# `run` keeps line tables only (-g1): full debug info is 40 % of the compile time of the
# CLI's files (CLI11 is header-only), and the demo has to be quick on a fresh machine.
# Switching from one to the other rebuilds what the first built.
configure() {  # DEBUG_FLAG TESTS
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 $1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 $1 -DNDEBUG" \
    -DCALLPROF_TESTS="$2" >/dev/null
}
case "${1:-all}" in
  run)
    configure -g1 OFF
    cmake --build "$root/build" -j"$(nproc)" --target callprof callprof-rt callprof-alloc wordfreq ;;
  all)
    configure -g ON
    cmake --build "$root/build" -j"$(nproc)" ;;
  *) echo "usage: $0 [all|run]" >&2; exit 2 ;;
esac
