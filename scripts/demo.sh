#!/usr/bin/env bash
# Quick start, step one: install what running callprof needs, build callprof, and profile
# the bundled example (examples/wordfreq.cpp, built with -finstrument-functions) on its
# default input, print two reports and write its web report (build/wordfreq.html). What
# only the tests need (browser, Go, valgrind, peers, the test suite) is scripts/test.sh's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" run
"$root/scripts/build.sh" run >/dev/null
cd "$root/build"
bin/callprof record -o wordfreq.callprof -- bin/wordfreq
echo
bin/callprof report -i wordfreq.callprof --view flat --limit 15 --no-pager
echo
bin/callprof report -i wordfreq.callprof --view tree --limit 25 --no-pager
echo
# Prints where the page is ("callprof: wrote wordfreq.html ...: open file://..."): open it in a browser.
bin/callprof html -i wordfreq.callprof -o wordfreq.html
