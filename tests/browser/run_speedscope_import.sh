#!/bin/sh
# browser.speedscope_import: record examples/wordfreq, export it as speedscope JSON and as
# collapsed stacks, take callprof's own numbers from `report --json`, and have speedscope
# (in headless Chromium) import both files (speedscope_import.test.mjs). Then record it
# tests/e2e/programs/timeline.c with a timeline of every call and have speedscope import
# the Chrome trace export, against `report --raw --json` of that recording.
# Usage: run_speedscope_import.sh CALLPROF WORDFREQ OUTPUT_DIR
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a "skipped: ..." line when node, Chromium,
# jq, a C compiler (CC, default cc) or the npm packages (`npm ci --prefix tests/browser`) are
# missing; never a silent pass.
. "$(dirname "$0")/common.sh"
need_args $# "CALLPROF WORDFREQ OUTPUT_DIR"
callprof=$1
wordfreq=$2
out=$3

require_browser node_modules/speedscope/dist/release/index.html
require_tool jq
fresh_dir "$out"
profile=$out/wordfreq.callprof
"$callprof" record -q -o "$profile" -- "$wordfreq" 2000 >"$out/wordfreq.stdout"
"$callprof" export -i "$profile" -f speedscope -o "$out/wordfreq.speedscope.json"
# No file name hint for this one: speedscope must recognise collapsed stacks by their content.
"$callprof" export -i "$profile" -f collapsed -o "$out/wordfreq.folded"

# The timeline: a small two-thread program of the e2e tests (speedscope's trace importer needs
# ~30 s here for wordfreq's 155 k calls), every call kept.
cc=${CC:-cc}
require_tool "$cc" "needed to build the timeline program; CC names another compiler"
"$cc" -O2 -finstrument-functions -pthread -I"$here/../e2e/programs" "$here/../e2e/programs/timeline.c" -o "$out/timeline"
"$callprof" record -q -o "$out/timeline.callprof" --timeline --timeline-min-duration 0 -- "$out/timeline" >/dev/null
"$callprof" export -i "$out/timeline.callprof" -f chrome -o "$out/timeline.trace.json"

# callprof's numbers: the grand total, every function with time on some path (those are the
# frames a consumer sees), and each thread's total and functions.
expected_numbers() {
  jq '
  (.functions | map({key: (.id | tostring), value: .name}) | from_entries) as $names
  | {
      total_ns: .summary.total_ns,
      functions: [.functions[] | select(.total_ns > 0) | {name, file, line, self_ns, total_ns}],
      threads: [.threads[] as $t | {
        tid: $t.tid, name: $t.name, total_ns: $t.total_ns, calls: $t.calls,
        functions: [.by_thread[] | select(.tid == $t.tid and .pid == $t.pid) | .functions[]
                    | select(.total_ns > 0) | {name: $names[.id | tostring], self_ns, total_ns, calls}]
      }]
    }'
}
"$callprof" report -i "$profile" --json --no-pager | expected_numbers >"$out/expected.json"
"$callprof" report -i "$out/timeline.callprof" --json --raw --no-pager | expected_numbers >"$out/expected-raw.json"

export CALLPROF_SPEEDSCOPE="$out/wordfreq.speedscope.json" \
  CALLPROF_COLLAPSED="$out/wordfreq.folded" \
  CALLPROF_EXPECTED="$out/expected.json" \
  CALLPROF_ARTIFACTS="$out" \
  CALLPROF_CHROME="$out/timeline.trace.json" \
  CALLPROF_EXPECTED_RAW="$out/expected-raw.json"
run_node_test speedscope_import.test.mjs
