#!/usr/bin/env bash
# What exact mode adds per short process: a shell script that runs callheavy.c (1000
# iterations, some 5,000 hooked calls) BENCH_N times, plain and under `callprof record
# --mode exact --children`, interleaved, BENCH_REPEAT times; CPU time of everything (user +
# sys, the script, its processes and callprof: bench/realprograms/cputime.c), medians. The
# peer: `perf record -F 999` of the plain build's script (sampling, no hooks). With
# BENCH_RUNTIME_BEFORE=path/to/libcallprof-rt.so the same runs with that runtime too (the
# runtime before the calibration was shared measured it in every process). Then one such
# process alone: plain, recorded with the hooks' costs from callprof's calibration cache
# (a cache of this run's own, filled first by three recordings), with `--recalibrate`
# (measured in the recording), with `--no-compensation` (not measured), and under perf;
# and built with `-g`, recorded with its names from callprof's symbol cache (the same
# cache directory) and with `--no-symbol-cache` (read from its DWARF).
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
"$cc" -O2 -g -finstrument-functions -o "$tmp/hooked_g" "$script_dir/callheavy.c" || die "cannot build callheavy.c"
"$cc" -O2 -o "$tmp/cputime" "$script_dir/../realprograms/cputime.c" || die "cannot build cputime.c"
for kind in hooked plain; do
  printf '#!/bin/sh\ni=0\nwhile [ $i -lt %d ]; do %s 1000 >/dev/null || exit 1; i=$((i + 1)); done\n' \
    "$N" "$tmp/$kind" >"$tmp/$kind.sh"
  chmod +x "$tmp/$kind.sh"
done
perf=$(command -v perf || true)
# The calibration cache of this run alone: what it holds does not depend on earlier runs.
export XDG_CACHE_HOME=$tmp/cache
for (( i = 0; i < 3; i++ )); do "$callprof" record -q -o "$tmp/w.callprof" -- "$tmp/hooked" 1000 >/dev/null; done

cpu_of() {  # cpu_of COMMAND... -> CPU seconds of everything it ran
  "$tmp/cputime" "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/err" || { tail -n 3 "$tmp/err" >&2; die "$* failed"; }
  cut -d' ' -f1 "$tmp/time.txt"
}
declare -A C
# The first callprof recording after a `perf record` has exited costs some 60 ms more CPU,
# whatever its options, even 2 s later (measured here: 79-84 ms, then 16-23): the kernel
# work perf left behind. After each perf run an unmeasured recording takes it.
after_perf() { "$callprof" record -q --no-compensation -o "$tmp/x.callprof" -- "$tmp/hooked" 1000 >/dev/null; }
run_one() {  # run_one VARIANT: one process of callheavy 1000, as the variant runs it
  case $1 in
    one-plain) C[$1]+="$(cpu_of "$tmp/plain" 1000) " ;;
    one-cached)
      C[$1]+="$(cpu_of "$callprof" record -q -o "$tmp/o.callprof" -- "$tmp/hooked" 1000) "
      if jq -e '.metadata.exact.calibration == "cached"' <("$callprof" report -i "$tmp/o.callprof" --json) >/dev/null; then
        C[cached-runs]+="1 "
      fi
      ;;
    one-recal) C[$1]+="$(cpu_of "$callprof" record -q --recalibrate -o "$tmp/o.callprof" -- "$tmp/hooked" 1000) " ;;
    one-raw) C[$1]+="$(cpu_of "$callprof" record -q --no-compensation -o "$tmp/o.callprof" -- "$tmp/hooked" 1000) " ;;
    one-g) C[$1]+="$(cpu_of "$callprof" record -q -o "$tmp/o.callprof" -- "$tmp/hooked_g" 1000) " ;;
    one-g-nocache)
      C[$1]+="$(cpu_of "$callprof" record -q --no-symbol-cache -o "$tmp/o.callprof" -- "$tmp/hooked_g" 1000) "
      ;;
    one-perf)
      [[ -n $perf ]] || return 0
      C[$1]+="$(cpu_of "$perf" record -q -F 999 -g -o "$tmp/perf.data" -- "$tmp/plain" 1000) "
      after_perf
      ;;
  esac
}
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
  if [[ -n $perf ]]; then
    C[perf]+="$(cpu_of "$perf" record -q -F 999 -g -o "$tmp/perf.data" -- "$tmp/plain.sh") "
    after_perf
  fi
  # Their order turns each round, so every variant takes each place as often.
  ones=(one-plain one-cached one-recal one-raw one-perf one-g one-g-nocache)
  for (( k = 0; k < ${#ones[@]}; k++ )); do run_one "${ones[(k + r) % ${#ones[@]}]}"; done
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
one=$(median "${C[one-plain]}")
echo "one such process: $REPEAT runs each interleaved, their order turned each round; the hooks' costs from the cache in $(wc -w <<<"${C[cached-runs]:-}") of the $REPEAT 'cache' runs (the rest measured: a refresh due, or the check failed)"
printf '  %-24s %10s %12s %10s\n' variant "cpu ms" "added ms" "x plain"
for v in one-plain one-cached one-recal one-raw one-perf one-g one-g-nocache; do
  [[ -n ${C[$v]:-} ]] || continue
  m=$(median "${C[$v]}")
  case $v in
    one-plain) label=plain ;; one-cached) label="callprof (cache)" ;; one-recal) label="callprof --recalibrate" ;;
    one-raw) label="callprof --no-compensation" ;; one-perf) label="perf record -F 999 -g" ;;
    one-g) label="-g, symbols from cache" ;; one-g-nocache) label="-g, --no-symbol-cache" ;;
  esac
  awk -v v="$label" -v m="$m" -v p="$one" 'BEGIN { printf "  %-24s %10.1f %12.1f %9.2fx\n", v, m * 1000, (m - p) * 1000, m / p }'
done
