#!/usr/bin/env bash
# What compensation makes of a caller that has work of its own beside its calls
# (docs/design.md, "Compensation", limits): bench/runtime/overlap.c's host() calls a small
# leaf once per iteration, after W rounds of a dependent chain of multiplies; for each W the
# true self time per iteration of host and leaf (from plain builds with and without the
# leaf: CPU time of the process, medians of REPEAT), and what `callprof record` reports
# (compensated, and raw), with what the hooks really added per call against what the
# calibration subtracts. Prints numbers only; exit 1 when a profile's call count is wrong.
#
#   bench/runtime/overlap.sh [BUILD_DIR]   (BENCH_N iterations, default 10^7; BENCH_REPEAT 5;
#                                          BENCH_OVERLAP_W="0 2 8 32"; BENCH_CC=cc)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 10000000
[[ -x $callprof ]] || die "missing $callprof (build the callprof and callprof-rt targets)"
command -v jq >/dev/null || die "needs jq"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-overlap-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc=${BENCH_CC:-cc}
src=$script_dir/overlap.c
"$cc" -O2 -finstrument-functions -o "$tmp/hooked" "$src" || die "cannot build"
"$cc" -O2 -o "$tmp/plain" "$src" || die "cannot build"
"$cc" -O2 -DNO_LEAF -o "$tmp/noleaf" "$src" || die "cannot build"
"$cc" -O2 -o "$tmp/cputime" "$script_dir/../realprograms/cputime.c" || die "cannot build cputime.c"

# CPU ns of one run of a command (user+sys, microseconds: bench/realprograms/cputime.c).
cpu_ns() { "$tmp/cputime" "$tmp/time" "$@" >/dev/null && awk '{ printf "%.0f", $1 * 1e9 }' "$tmp/time"; }
per() { awk -v a="$1" -v n="$N" 'BEGIN { printf "%.2f", a / n }'; }
# self JSON FUNCTION: the function's self_ns in a report's JSON.
self() { jq --arg f "$2" '[.functions[] | select(.name == $f) | .self_ns] | add' "$1"; }

echo "compensation beside a caller's own work (bench/runtime/overlap.sh): $N iterations, $REPEAT runs, $("$cc" --version | head -n1), load $(cut -d' ' -f1 /proc/loadavg)"
printf '  %3s | %-21s | %-21s | %-21s | %s\n' W "true ns/iteration" "compensated" "raw" "hooks per call: added / subtracted"
printf '  %3s | %10s %10s | %10s %10s | %10s %10s |\n' "" host leaf host leaf host leaf
for w in ${BENCH_OVERLAP_W:-0 2 8 32}; do
  plain='' noleaf=''
  for (( r = 0; r < REPEAT; r++ )); do
    plain+="$(cpu_ns "$tmp/plain" "$N" "$w") "
    noleaf+="$(cpu_ns "$tmp/noleaf" "$N" "$w") "
  done
  plain=$(median "$plain"); noleaf=$(median "$noleaf")
  "$callprof" record -q --no-auto-fold -o "$tmp/p.callprof" -- "$tmp/hooked" "$N" "$w"
  "$callprof" report -i "$tmp/p.callprof" --json >"$tmp/c.json"
  "$callprof" report -i "$tmp/p.callprof" --json --raw >"$tmp/r.json"
  jq -e --argjson n "$N" '[.functions[] | select(.name == "leaf") | .calls] | add == $n' "$tmp/c.json" >/dev/null \
    || { echo "  leaf's call count is not $N" >&2; exit 1; }
  subtracted=$(jq '.processes[0] | .hook_inner_ns + .hook_outer_ns' "$tmp/c.json")
  raw_sum=$(awk -v a="$(self "$tmp/r.json" host)" -v b="$(self "$tmp/r.json" leaf)" 'BEGIN { print a + b }')
  printf '  %3s | %10s %10s | %10s %10s | %10s %10s | %.2f / %.2f\n' "$w" \
    "$(per "$noleaf")" "$(per $((plain - noleaf)))" \
    "$(per "$(self "$tmp/c.json" host)")" "$(per "$(self "$tmp/c.json" leaf)")" \
    "$(per "$(self "$tmp/r.json" host)")" "$(per "$(self "$tmp/r.json" leaf)")" \
    "$(awk -v r="$raw_sum" -v p="$plain" -v n="$N" 'BEGIN { print (r - p) / n }')" "$subtracted"
done
echo "  (true: plain builds, the leaf's column including its call; added: raw host + leaf less the plain build's time)"
