#!/bin/sh
# browser.flame: write flame graphs (`callprof flame`) and drive each SVG in headless Chromium
# (flame.test.mjs): examples/wordfreq (flame, icicle, and a diff against a smaller run), a C
# program whose symbols are hostile markup (flame_hostile.c, built here with cc and hooks),
# and, when given, the web report's profile of hostile names (newlines, escapes, a
# 10,000-character name). The expected numbers come from `report --json`, not from the SVG.
# Usage: run_flame.sh CALLPROF WORDFREQ FLAME_HOSTILE_C OUTPUT_DIR [HOSTILE_PROFILE_TOOL]
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# cc or the npm packages (`npm ci --prefix tests/browser`) are missing; never a silent pass.
. "$(dirname "$0")/common.sh"
need_args $# "CALLPROF WORDFREQ FLAME_HOSTILE_C OUTPUT_DIR [HOSTILE_PROFILE_TOOL]"
callprof=$1
wordfreq=$2
hostile_source=$3
out=$4
hostile_tool=${5:-}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

fresh_dir "$out"
"$callprof" record -q -o "$out/wordfreq.callprof" -- "$wordfreq" 200000 >"$out/wordfreq.stdout"

# The command's errors, before any browser: one line, non-zero status, an old output kept.
echo old >"$out/kept.svg"
if "$callprof" flame -i "$out/wordfreq.callprof" --metric allocs -o "$out/kept.svg" 2>"$out/error.log"; then
  fail "--metric allocs succeeded on a profile without allocations"
fi
[ "$(wc -l <"$out/error.log")" -eq 1 ] && grep -q '^callprof: error: --metric allocs (allocations) was not measured in this profile (measured: self, cpu,[a-z, ]* calls)$' "$out/error.log" ||
  fail "unexpected error output: $(cat "$out/error.log")"
[ "$(cat "$out/kept.svg")" = old ] || fail "a failed flame replaced its output file"
"$callprof" flame -i "$out/wordfreq.callprof" --metric bogus >/dev/null 2>&1 && fail "--metric bogus succeeded"
"$callprof" flame -i "$out/missing.callprof" >/dev/null 2>&1 && fail "a missing profile succeeded"
ls "$out"/*.tmp.* >/dev/null 2>&1 && fail "a temporary file was left behind"

# The browser's prerequisites only now: the checks above run without them.
require_browser
require_tool cc "needed for the hostile-names program"

# flame NAME PROFILE [OPTIONS...]: the SVG, and callprof's note (frames, size) beside it.
flame() {
  name=$1 profile=$2
  shift 2
  logged "$out/$name.log" "$callprof" flame -i "$profile" -o "$out/$name.svg" "$@"
  cat "$out/$name.log"
}

"$callprof" record -q -o "$out/wordfreq-small.callprof" -- "$wordfreq" 50000 >"$out/wordfreq-small.stdout"
"$callprof" report -i "$out/wordfreq.callprof" --json --no-pager >"$out/wordfreq.expected.json"
flame wordfreq "$out/wordfreq.callprof"
flame wordfreq-icicle "$out/wordfreq.callprof" --icicle
flame wordfreq-diff "$out/wordfreq.callprof" --diff "$out/wordfreq-small.callprof"

cc -O1 -finstrument-functions "$hostile_source" -o "$out/flame_hostile"
"$callprof" record -q -o "$out/hostile.callprof" -- "$out/flame_hostile" >"$out/flame_hostile.stdout"
flame hostile "$out/hostile.callprof"
if [ -n "$hostile_tool" ]; then
  "$hostile_tool" "$out/hostile-names.callprof"
  flame hostile-names "$out/hostile-names.callprof"
fi

export CALLPROF_FLAME_DIR="$out"
run_node_test flame.test.mjs
