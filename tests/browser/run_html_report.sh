#!/bin/sh
# browser.html_report: write the web report (`callprof html`) of four profiles and drive each
# page in headless Chromium (html_report.test.mjs): examples/wordfreq, an STL-heavy C++
# program (tests/e2e/programs/stl_heavy.cpp, built here with g++ and hooks on the STL too),
# a sampled recording of tests/e2e/programs/lines.c (gcc -O2 -g: known hot lines, for the
# Source panel) and a profile of hostile names (html_hostile_profile). The expected numbers
# come from `report --json` (the default, nested document), not from the page's own copy.
# Usage: run_html_report.sh CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL STL_HEAVY_CPP LINES_C OUTPUT_DIR
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# g++ or the npm packages (`npm ci --prefix tests/browser`) are missing; never a silent pass.
# Where sampling is not allowed (perf_event_paranoid), the Source test alone says it skipped.
. "$(dirname "$0")/common.sh"
need_args $# "CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL STL_HEAVY_CPP LINES_C OUTPUT_DIR"
callprof=$1
wordfreq=$2
hostile=$3
stl_source=$4
lines_source=$5
out=$6

require_browser
require_tool g++ "needed for the STL-heavy program"
require_tool gcc "needed for the source-lines program"
fresh_dir "$out"

# report NAME: the page and the expected numbers of NAME.callprof.
report() {
  logged "$out/$1.html.log" "$callprof" html -i "$out/$1.callprof" -o "$out/$1.html"
  "$callprof" report -i "$out/$1.callprof" --json --no-pager >"$out/$1.expected.json"
}

# Measured, not taken from the cache: its cost is checked again at the exit (the summary says how far it moved).
"$callprof" record -q --recalibrate -o "$out/wordfreq.callprof" -- "$wordfreq" 200000 >"$out/wordfreq.stdout"
report wordfreq

# No exclude list: the STL's own functions get hooks, so their long names are in the profile.
g++ -O1 -finstrument-functions "$stl_source" -o "$out/stl_heavy"
"$callprof" record -q -o "$out/stl_heavy.callprof" -- "$out/stl_heavy" >"$out/stl_heavy.stdout"
report stl_heavy

# Sampling mode puts the samples on hot()'s lines (the heavy loop's ~90 %). A kernel that
# refuses perf events leaves lines.skipped, which the test reports.
gcc -O2 -g -I"$(dirname "$lines_source")" "$lines_source" -o "$out/lines"
# With its system calls: their leaves have no source line, so some function always has none
# (the source tab's message for it); kernel frames had made one only in most runs.
if "$callprof" record -q --mode sample -F 4999 --syscalls all -o "$out/lines.callprof" -- "$out/lines" \
  >"$out/lines.stdout" 2>"$out/lines.record.log"; then
  report lines
else
  cp "$out/lines.record.log" "$out/lines.skipped"
fi

# The hostile profile's source file is written beside it (hostile_profile.cpp).
"$hostile" "$out/hostile.callprof"
report hostile

export CALLPROF_HTML_DIR="$out"
run_node_test html_report.test.mjs
