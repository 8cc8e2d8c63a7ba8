#!/bin/sh
# browser.html_report: write the web report (`callprof html`) of three profiles and drive each
# page in headless Chromium (html_report.test.mjs): examples/wordfreq, an STL-heavy C++
# program (tests/e2e/programs/stl_heavy.cpp, built here with g++ and hooks on the STL too),
# and a profile of hostile names (html_hostile_profile). The expected numbers come from
# `report --json` (the default, nested document), not from the page's own copy.
# Usage: run_html_report.sh CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL STL_HEAVY_CPP OUTPUT_DIR
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# g++ or the npm packages (`npm ci --prefix tests/browser`) are missing; never a silent pass.
set -eu

if [ $# -ne 5 ]; then
  echo "usage: $0 CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL STL_HEAVY_CPP OUTPUT_DIR" >&2
  exit 2
fi
callprof=$1
wordfreq=$2
hostile=$3
stl_source=$4
out=$5
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
command -v g++ >/dev/null 2>&1 || skip "g++ is not installed (needed for the STL-heavy program)"

rm -rf "$out"
mkdir -p "$out"

# name PROFILE: the page and the expected numbers of one profile.
report() {
  "$callprof" html -i "$2" -o "$out/$1.html" 2>"$out/$1.html.log" || { cat "$out/$1.html.log" >&2; exit 1; }
  "$callprof" report -i "$2" --json --no-pager >"$out/$1.expected.json"
}

"$callprof" record -q -o "$out/wordfreq.callprof" -- "$wordfreq" 200000 >"$out/wordfreq.stdout"
report wordfreq "$out/wordfreq.callprof"

# No exclude list: the STL's own functions get hooks, so their long names are in the profile.
g++ -O1 -finstrument-functions "$stl_source" -o "$out/stl_heavy"
"$callprof" record -q -o "$out/stl_heavy.callprof" -- "$out/stl_heavy" >"$out/stl_heavy.stdout"
report stl_heavy "$out/stl_heavy.callprof"

"$hostile" "$out/hostile.callprof"
report hostile "$out/hostile.callprof"

cd "$here"
CALLPROF_HTML_DIR="$out" CALLPROF_CHROMIUM="$chromium" \
  exec node --test --test-reporter=spec html_report.test.mjs
