#!/usr/bin/env bash
# What exact mode adds per short process: a shell script that runs callheavy.c (1000
# iterations, some 5,000 hooked calls) BENCH_N times, plain and under `callprof record
# --mode exact --children`, interleaved, BENCH_REPEAT times; CPU time of everything (user +
# sys, the script, its processes and callprof: bench/realprograms/cputime.c), medians. The
# peer: `perf record -F 999` of the plain build's script (sampling, no hooks). With
# BENCH_RUNTIME_BEFORE=path/to/libcallprof-rt.so the same runs with that runtime too (the
# runtime before the calibration was shared measured it in every process).
#
#   bench/runtime/processes.sh [BUILD_DIR]    (BENCH_N processes, default 20; BENCH_REPEAT 5)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 20
[[ -x $callprof ]] || die "missing $callprof (build the callprof and callprof-rt targets)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-processes-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc=${BENCH_CC:-cc}
"$cc" -O2 -finstrument-functions -o "$tmp/hooked" "$script_dir/callheavy.c" || die "cannot build callheavy.c"
"$cc" -O2 -o "$tmp/plain" "$script_dir/callheavy.c" || die "cannot build callheavy.c"
"$cc" -O2 -o "$tmp/cputime" "$script_dir/../realprograms/cputime.c" || die "cannot build cputime.c"
for kind in hooked plain; do
  printf '#!/bin/sh\ni=0\nwhile [ $i -lt %d ]; do %s 1000 >/dev/null || exit 1; i=$((i + 1)); done\n' \
    "$N" "$tmp/$kind" >"$tmp/$kind.sh"
  chmod +x "$tmp/$kind.sh"
done
perf=$(command -v perf || true)

cpu_of() {  # cpu_of COMMAND... -> CPU seconds of everything it ran
  "$tmp/cputime" "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/err" || { tail -n 3 "$tmp/err" >&2; die "$* failed"; }
  cut -d' ' -f1 "$tmp/time.txt"
}
declare -A C
variants=(plain callprof)
[[ -n ${BENCH_RUNTIME_BEFORE:-} ]] && variants+=(before)
[[ -n $perf ]] && variants+=(perf)
for (( r = 0; r < REPEAT; r++ )); do
  C[plain]+="$(cpu_of "$tmp/plain.sh") "
  C[callprof]+="$(cpu_of "$callprof" record -q --mode exact --children -o "$tmp/p.callprof" -- "$tmp/hooked.sh") "
  if [[ -n ${BENCH_RUNTIME_BEFORE:-} ]]; then
    C[before]+="$(CALLPROF_RUNTIME=$BENCH_RUNTIME_BEFORE cpu_of "$callprof" record -q --mode exact --children \
      -o "$tmp/b.callprof" -- "$tmp/hooked.sh") "
  fi
  [[ -n $perf ]] && C[perf]+="$(cpu_of "$perf" record -q -F 999 -g -o "$tmp/perf.data" -- "$tmp/plain.sh") "
done
echo "short processes (bench/runtime/processes.sh): $N processes of callheavy 1000, $REPEAT runs each interleaved," \
  "load $(cut -d' ' -f1 /proc/loadavg)"
[[ -n $perf ]] || echo "  (perf is not installed: no peer column)"
plain=$(median "${C[plain]}")
printf '  %-10s %10s %14s %10s\n' variant "cpu s" "added/process" "x plain"
for v in "${variants[@]}"; do
  m=$(median "${C[$v]}")
  awk -v v="$v" -v m="$m" -v p="$plain" -v n="$N" \
    'BEGIN { printf "  %-10s %10.3f %11.1f ms %9.2fx\n", v, m, (m - p) * 1000 / n, m / p }'
done
