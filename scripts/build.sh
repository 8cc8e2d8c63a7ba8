#!/usr/bin/env bash
# Configures and builds callprof into build/ (Release with debug info): everything, tests
# included (the default, scripts/test.sh), or with `run` only what profiling needs: the
# program, its runtime and allocation interposer, and the bundled example (scripts/demo.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-all}" in
  run)
    cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCALLPROF_TESTS=OFF >/dev/null
    cmake --build "$root/build" -j"$(nproc)" --target callprof callprof-rt callprof-alloc wordfreq ;;
  all)
    cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCALLPROF_TESTS=ON >/dev/null
    cmake --build "$root/build" -j"$(nproc)" ;;
  *) echo "usage: $0 [all|run]" >&2; exit 2 ;;
esac
