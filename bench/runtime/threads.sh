#!/usr/bin/env bash
# What exact mode adds per thread started: bench/runtime/thread_starts.c (N threads one
# after the other, one hooked call each), plain and under `callprof record`, interleaved,
# REPEAT times; the loop's time as the program measures it, medians. With
# BENCH_RUNTIME_BEFORE=path/to/libcallprof-rt.so the same runs with that runtime too.
#
#   bench/runtime/threads.sh [BUILD_DIR]    (BENCH_N threads, default 3000; BENCH_REPEAT 5)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 3000
[[ -x $callprof ]] || die "missing $callprof (build the callprof and callprof-rt targets)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-threads-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc=${BENCH_CC:-cc}
"$cc" -O2 -pthread -finstrument-functions -o "$tmp/hooked" "$script_dir/thread_starts.c" || die "cannot build"
"$cc" -O2 -pthread -o "$tmp/plain" "$script_dir/thread_starts.c" || die "cannot build"

loop_ns() { sed -n 's/.*elapsed_ns=\([0-9]*\).*/\1/p'; }
declare -A T
variants=(plain callprof)
[[ -n ${BENCH_RUNTIME_BEFORE:-} ]] && variants+=(before)
for (( r = 0; r < REPEAT; r++ )); do
  T[plain]+="$("$tmp/plain" "$N" | loop_ns) "
  T[callprof]+="$("$callprof" record -q -o "$tmp/p.callprof" -- "$tmp/hooked" "$N" | loop_ns) "
  if [[ -n ${BENCH_RUNTIME_BEFORE:-} ]]; then
    T[before]+="$(CALLPROF_RUNTIME=$BENCH_RUNTIME_BEFORE "$callprof" record -q -o "$tmp/b.callprof" -- "$tmp/hooked" "$N" | loop_ns) "
  fi
done
echo "thread start cost (bench/runtime/threads.sh): $N threads, $REPEAT runs each interleaved, load $(cut -d' ' -f1 /proc/loadavg)"
plain=$(median "${T[plain]}")
printf '  %-9s %9s %12s\n' variant "loop ms" "added us/thread"
for v in "${variants[@]}"; do
  m=$(median "${T[$v]}")
  printf '  %-9s %9.1f %12.1f\n' "$v" "$(awk "BEGIN { print $m / 1e6 }")" "$(awk "BEGIN { print ($m - $plain) / 1e3 / $N }")"
done
"$callprof" report -i "$tmp/p.callprof" --json | jq -e --argjson n "$N" '[.functions[] | select(.name == "work") | .calls] | add == $n' >/dev/null \
  || { echo "  work's call count is not $N" >&2; exit 1; }
echo "  work called $N times in the profile: EXACT"
