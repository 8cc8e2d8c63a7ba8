#!/bin/sh
# browser.pictures: the call graph SVG (`callprof graph`) and the web report (`callprof html`)
# of examples/wordfreq and of a deep program with recursion (deep_calls.c, built here with
# hooks), opened in headless Chromium (pictures.test.mjs): the SVG fits the window with its
# legend clear of every node and each box's text inside its box; the report's flame graph
# opens with its roots in view and its call graph fitted to the panel; focus and hide typed
# in the page give the numbers of `report --json --focus/--hide`. Screenshots stay in
# OUTPUT_DIR.
# Usage: run_pictures.sh CALLPROF WORDFREQ DEEP_CALLS_C OUTPUT_DIR
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# cc or the npm packages (`npm ci --prefix tests/browser`) are missing; never a silent pass.
set -eu

if [ $# -ne 4 ]; then
  echo "usage: $0 CALLPROF WORDFREQ DEEP_CALLS_C OUTPUT_DIR" >&2
  exit 2
fi
callprof=$1
wordfreq=$2
deep_source=$3
out=$4
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CALLPROF_CHROMIUM:-/usr/bin/chromium}

skip() {
  echo "skipped: $*"
  exit 77
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -x "$chromium" ] || skip "no Chromium at $chromium (set CALLPROF_CHROMIUM to another binary)"
[ -f "$here/node_modules/playwright-core/package.json" ] ||
  skip "the npm packages are not installed: run 'npm ci --prefix tests/browser'"
command -v cc >/dev/null 2>&1 || skip "cc is not installed (needed for the deep program)"

rm -rf "$out"
mkdir -p "$out"

# name PROFILE FOCUS HIDE: the page, the call graph, and the expected numbers (whole, focused,
# hidden) of one profile.
pictures() {
  name=$1 profile=$2 focus=$3 hide=$4
  "$callprof" html -i "$profile" -o "$out/$name.html" 2>"$out/$name.log" || { cat "$out/$name.log" >&2; exit 1; }
  "$callprof" graph -i "$profile" -o "$out/$name.svg" 2>>"$out/$name.log" || { cat "$out/$name.log" >&2; exit 1; }
  "$callprof" graph -i "$profile" -o "$out/$name.dot" 2>>"$out/$name.log" || { cat "$out/$name.log" >&2; exit 1; }
  "$callprof" report -i "$profile" --json --no-pager >"$out/$name.expected.json"
  "$callprof" report -i "$profile" --json --no-pager --focus "$focus" >"$out/$name.focus.json"
  "$callprof" report -i "$profile" --json --no-pager --hide "$hide" >"$out/$name.hide.json"
  "$callprof" report -i "$profile" --json --no-pager --hide "$hide" --focus "$focus" >"$out/$name.both.json"
  printf '{"focus": "%s", "hide": "%s"}\n' "$focus" "$hide" >"$out/$name.view.json"
}

"$callprof" record -q -o "$out/wordfreq.callprof" -- "$wordfreq" 200000 >"$out/wordfreq.stdout"
pictures wordfreq "$out/wordfreq.callprof" count_words generate_corpus

cc -O1 -finstrument-functions "$deep_source" -o "$out/deep_calls"
"$callprof" record -q -o "$out/deep.callprof" -- "$out/deep_calls" >"$out/deep.stdout"
pictures deep "$out/deep.callprof" is_odd descend

cd "$here"
CALLPROF_PICTURES_DIR="$out" CALLPROF_CHROMIUM="$chromium" \
  exec node --test --test-reporter=spec pictures.test.mjs
