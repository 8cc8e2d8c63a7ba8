#!/usr/bin/env bash
# Allocation-metrics overhead benchmark. See bench/README.md ("alloc/").
#
#   bench/alloc/run.sh [BUILD_DIR]        (default: the repository's build/)
#
# Compiles alloc_pairs.cpp (-O2 -finstrument-functions) with $CXX (default c++) and runs
# it plain, with libcallprof-alloc.so preloaded but nothing recorded (the interposer's
# forwarding alone), under `callprof record` and under `callprof record --alloc`,
# interleaved and repeated; prints ns per malloc/free and per new/delete pair (median)
# and the ratios against plain. Needs the targets callprof, callprof-rt, callprof-alloc.
#
# Environment: BENCH_N=10000000 (pairs per run), BENCH_REPEAT=5 (runs per variant),
#              CXX=c++, BENCH_TMP (scratch directory), BENCH_KEEP=0.
# Exit status: 0, or 2 on errors (missing build, failed run).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 10000000
rt=$build/bin/libcallprof-rt.so
alloc=$build/bin/libcallprof-alloc.so
for f in "$callprof" "$rt" "$alloc"; do
  [[ -e $f ]] || die "missing $f (build the targets callprof callprof-rt callprof-alloc in $build)"
done
(( N >= 1000 && REPEAT >= 1 )) || die "bad BENCH_* settings"

tmp=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-alloc-XXXXXX")}
mkdir -p "$tmp"
[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$tmp"' EXIT
prog=$tmp/alloc_pairs
"${CXX:-c++}" -std=c++17 -O2 -finstrument-functions "$script_dir/alloc_pairs.cpp" -o "$prog" || die "cannot compile"

declare -A MF ND
run_one() {
  local variant=$1; shift
  local line
  line=$("$@" | grep -m1 '^pairs=') || die "$variant failed: $*"
  local mf=${line#*malloc_free_ns=}; mf=${mf%% *}
  local nd=${line#*new_delete_ns=}; nd=${nd%% *}
  MF[$variant]+="$mf "
  ND[$variant]+="$nd "
}
calc() { awk "BEGIN { printf \"%.2f\", $* }"; }

echo "callprof allocation-metrics benchmark (bench/alloc/run.sh)"
echo "date:    $(date -Iseconds)   cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "program: alloc_pairs $N (64-byte blocks; ${CXX:-c++} -O2 -finstrument-functions), $REPEAT runs each, median"
echo
for (( r = 1; r <= REPEAT; r++ )); do
  run_one plain "$prog" "$N"
  run_one preloaded env LD_PRELOAD="$rt:$alloc" "$prog" "$N"
  run_one record "$callprof" record -q -o "$tmp/p.callprof" -- "$prog" "$N"
  run_one record_alloc "$callprof" record --alloc -q -o "$tmp/pa.callprof" -- "$prog" "$N"
done

printf '%-38s %12s %8s %8s %12s %8s %8s\n' variant "malloc+free" added ratio "new+delete" added ratio
printf '%-38s %12s %8s %8s %12s %8s %8s\n' "" "ns/pair" ns "" "ns/pair" ns ""
mf0=$(median "${MF[plain]}"); nd0=$(median "${ND[plain]}")
for v in plain preloaded record record_alloc; do
  case $v in
    plain) label="plain" ;;
    preloaded) label="interposer preloaded, not recording" ;;
    record) label="callprof record" ;;
    record_alloc) label="callprof record --alloc" ;;
  esac
  mf=$(median "${MF[$v]}"); nd=$(median "${ND[$v]}")
  printf '%-38s %12.2f %8s %8s %12.2f %8s %8s\n' "$label" "$mf" "$(calc "$mf - $mf0")" "$(calc "$mf / $mf0")x" \
    "$nd" "$(calc "$nd - $nd0")" "$(calc "$nd / $nd0")x"
done
