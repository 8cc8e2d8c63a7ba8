#!/usr/bin/env bash
# Quick start, step two: install what is needed, build, and run every test: unit tests,
# end-to-end tests (GCC and Clang), the exports read by their real consumers (go tool pprof,
# callgrind_annotate, speedscope in headless Chromium), and time-boxed libFuzzer runs of the
# profile reader, the runtime's raw dump reader and the perf record decoder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" test
# The browser tests' packages (speedscope, playwright-core), exactly as locked.
(cd "$root/tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
"$root/scripts/build.sh" all
failed=0
(cd "$root/build" && ctest --output-on-failure -j2 -LE timing) || failed=1
# The tests that hold a profile's times against the program's own clocks measure the two
# at different moments, on machines whose hosts move their speed in spells (shared VMs):
# a failed one runs once more and fails the suite when it fails twice (its first failure
# is printed above the second run, and named again at the end of the run).
timing_log="$root/build/timing-tests.log"
(cd "$root/build" && ctest --output-on-failure -L timing --repeat until-pass:2 | tee "$timing_log") || failed=1

# The fuzz target needs clang's libFuzzer, so it has its own build tree.
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCALLPROF_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build-fuzz" -j"$(nproc)" --target profile_reader_fuzz make_fuzz_seeds perf_decode_fuzz raw_dump_fuzz \
  symbol_cache_fuzz
(cd "$root/build-fuzz" && ctest --output-on-failure -R fuzz) || failed=1
# A timing test that failed once and then passed is no failure, but it is said.
if grep -q '\*\*\*Failed' "$timing_log"; then
  echo "timing tests that failed once (each passed or failed again above):"
  grep '\*\*\*Failed' "$timing_log" | sed -E 's/^.*Test +#[0-9]+: ([^ ]+).*$/  \1/' | sort -u
fi
exit "$failed"
