#!/usr/bin/env bash
# Views' cost per process: `callprof report` (threads, flat, tree, summary, json) on profiles
# of 1k .. 20k short processes (process_synth: a fork tree, every tenth process exec'd, two
# threads each). Prints the time of each view per process count, the time per process, and
# the growth against the smallest count: ~1.0 per doubling is linear, ~2.0 quadratic.
#
#   bench/analysis/processes.sh [BUILD_DIR]
#   BENCH_PROCESSES="1000 2000 5000 10000 20000"   process counts
#   BENCH_VIEWS="threads flat tree summary json"  views (json: report --json)
#   BENCH_REPEAT=3                                runs per point (the median is shown)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
REPEAT=${BENCH_REPEAT:-3}
COUNTS=${BENCH_PROCESSES:-1000 2000 5000 10000 20000}
VIEWS=${BENCH_VIEWS:-threads flat tree summary json}
synth=$build/bench/process_synth
for f in "$callprof" "$synth"; do [[ -x $f ]] || die "missing $f (build the targets callprof process_synth)"; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-processes-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

seconds() {  # median wall seconds of `callprof report ARGS` over REPEAT runs
  local runs=""
  for _ in $(seq "$REPEAT"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$callprof" report --no-pager "$@" >/dev/null
    t1=$(date +%s.%N)
    runs+="$(echo "$t1 - $t0" | bc -l) "
  done
  median "$runs"
}

printf '%-8s %8s %10s %14s %12s\n' view processes seconds "us/process" "growth"
for view in $VIEWS; do
  first_n="" first_per=""
  for n in $COUNTS; do
    p=$tmp/p$n.callprof
    [[ -e $p ]] || "$synth" --processes "$n" -o "$p"
    if [[ $view == json ]]; then s=$(seconds -i "$p" --json); else s=$(seconds -i "$p" --view "$view" --percent-limit 0); fi
    per=$(echo "$s * 1000000 / $n" | bc -l)
    [[ -z $first_n ]] && first_n=$n first_per=$per
    # growth: how the time per process changed from the smallest count, per doubling of n
    growth=$(echo "l($per / $first_per) / l(2) / (l($n / $first_n) / l(2) + 0.000001) + 1" | bc -l)
    [[ $n == "$first_n" ]] && growth=1
    printf '%-8s %8d %10.3f %14.1f %12.2f\n' "$view" "$n" "$s" "$per" "$growth"
  done
done
echo "growth: time ~ n^growth (1.0 linear, 2.0 quadratic), from the time per process against the smallest count"
