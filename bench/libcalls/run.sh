#!/usr/bin/env bash
# Library-call overhead benchmark (bench/README.md "libcalls/").
#
#   bench/libcalls/run.sh [BUILD_DIR]        (default: the repository's build/)
#
# Builds strlen_loop.c (-O2 -finstrument-functions -fno-builtin) with cc into a scratch
# directory and runs, interleaved and repeated: strlen plain, under `callprof record`
# (library calls not recorded) and under `callprof record` with library calls
# (CALLPROF_LIBCALLS=1); and for reference an instrumented own_strlen plain and under
# `callprof record` (a call the compiler hooks). Prints the added ns per call, by wall and
# by user+sys CPU time (less disturbed by other load).
# Environment: BENCH_N (10000000 calls), BENCH_REPEAT (5 runs each; the median counts),
# BENCH_CC (cc). Exit status: 0, or 2 on errors (missing build, failed run, wrong profile).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 10000000
[[ -x $callprof && -e $build/bin/libcallprof-rt.so ]] || die "build callprof and callprof-rt in $build first"
command -v jq >/dev/null || die "needs jq"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-libcalls-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prog=$tmp/strlen_loop
"${BENCH_CC:-cc}" -O2 -fno-omit-frame-pointer -finstrument-functions -fno-builtin "$script_dir/strlen_loop.c" -o "$prog" \
  || die "cannot build strlen_loop.c"

calc() { awk "BEGIN { printf \"%.6g\", $* }"; }
declare -A WALLS CPUS
timed() {  # timed VARIANT COMMAND...: wall and CPU seconds appended to WALLS/CPUS[VARIANT]
  local variant=$1; shift
  local t0=${EPOCHREALTIME/,/.}
  /usr/bin/time -f '%U %S' -o "$tmp/time.txt" "$@" >"$tmp/out.txt" || die "$variant failed: $*"
  local t1=${EPOCHREALTIME/,/.}
  grep -q "^calls=$N " "$tmp/out.txt" || die "$variant: unexpected output $(cat "$tmp/out.txt")"
  WALLS[$variant]+="$(calc "${t1/./} / 1e6 - ${t0/./} / 1e6") "
  local u s; read -r u s <"$tmp/time.txt"
  CPUS[$variant]+="$(calc "$u + $s") "
}
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"

echo "callprof library-call overhead (bench/libcalls/run.sh): $N calls from one instrumented function"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
"$prog" 1000 >/dev/null
record=("$callprof" record -q -o "$tmp/p.callprof" --)
for (( r = 1; r <= REPEAT; r++ )); do
  timed plain "$prog" "$N"
  timed hooks "${record[@]}" "$prog" "$N"
  timed libcalls env CALLPROF_LIBCALLS=1 "$callprof" record -q -o "$tmp/libcalls.callprof" -- "$prog" "$N"
  timed own_plain "$prog" "$N" own
  timed own "${record[@]}" "$prog" "$N" own
done

calls=$("$callprof" report -i "$tmp/libcalls.callprof" --json | jq '[.functions[] | select(.name == "strlen") | .calls] | add // 0')
[[ $calls == "$N" ]] || die "the profile has $calls strlen calls, not $N"
added() { calc "($(median "$1") - $(median "$2")) * 1e9 / $N"; }
row() {  # row LABEL VARIANT BASELINE
  local w; w=$(median "${WALLS[$2]}")
  if [[ -z $3 ]]; then printf '%-46s %8.3f %10s %10s\n' "$1" "$w" - -; return; fi
  printf '%-46s %8.3f %10.2f %10.2f\n' "$1" "$w" "$(added "${WALLS[$2]}" "${WALLS[$3]}")" "$(added "${CPUS[$2]}" "${CPUS[$3]}")"
}
printf '%-46s %8s %10s %10s\n' variant "wall s" "added ns" "added ns"
printf '%-46s %8s %10s %10s\n' "" "" "(wall)" "(cpu)"
row "strlen, plain" plain ""
row "strlen, callprof record (not recorded)" hooks plain
row "strlen, callprof record, library calls" libcalls plain
row "own_strlen (instrumented), plain" own_plain ""
row "own_strlen (instrumented), callprof record" own own_plain
echo "  added: (median - median of the plain run) / $N calls; medians of $REPEAT runs. The profile counts $calls strlen calls."
