#!/bin/sh
# browser.pictures: the call graph SVG (`callprof graph`) and the web report (`callprof html`)
# of examples/wordfreq and of a deep program with recursion (deep_calls.c, built here with
# hooks), opened in headless Chromium (pictures.test.mjs): the SVG fits the window with its
# legend clear of every node and each box's text inside its box; the report's flame graph
# opens with its roots in view and its call graph fitted to the panel; focus and hide typed
# in the page give the numbers of `report --json --focus/--hide` (each program's focus and
# hide are in pictures.test.mjs, which asks callprof for those). Screenshots stay in
# OUTPUT_DIR.
# Usage: run_pictures.sh CALLPROF WORDFREQ DEEP_CALLS_C OUTPUT_DIR
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# cc or the npm packages (`npm ci --prefix tests/browser`) are missing; never a silent pass.
. "$(dirname "$0")/common.sh"
need_args $# "CALLPROF WORDFREQ DEEP_CALLS_C OUTPUT_DIR"
callprof=$1
wordfreq=$2
deep_source=$3
out=$4

require_browser
require_tool cc "needed for the deep program"
fresh_dir "$out"

# pictures NAME: the page and the call graph (SVG and DOT) of NAME.callprof.
pictures() {
  logged "$out/$1.log" "$callprof" html -i "$out/$1.callprof" -o "$out/$1.html"
  logged "$out/$1.log" "$callprof" graph -i "$out/$1.callprof" -o "$out/$1.svg"
  logged "$out/$1.log" "$callprof" graph -i "$out/$1.callprof" -o "$out/$1.dot"
}

"$callprof" record -q -o "$out/wordfreq.callprof" -- "$wordfreq" 200000 >"$out/wordfreq.stdout"
pictures wordfreq

cc -O1 -finstrument-functions "$deep_source" -o "$out/deep_calls"
"$callprof" record -q -o "$out/deep.callprof" -- "$out/deep_calls" >"$out/deep.stdout"
pictures deep

export CALLPROF="$callprof" CALLPROF_PICTURES_DIR="$out"
run_node_test pictures.test.mjs
