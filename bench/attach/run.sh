#!/usr/bin/env bash
# Attaching exact mode to a running program (issue 31): its cost while attached against
# `record`'s in the same run, its speed before, during and after, how long every thread is
# stopped (the pause) and the borrowed thread held, and BENCH_CYCLES attach/detach cycles
# in a row. See bench/README.md.
#
#   bench/attach/run.sh [BUILD_DIR]       (default: the repository's build/)
#
# Environment: BENCH_THREADS=8 (the program's threads), BENCH_CYCLES=100, BENCH_WINDOW=2
# (seconds attached for the rates), BENCH_ROUNDS=3 (windows attached, each followed by as
# long a run under record: interleaved, as this VM's speed drifts), BENCH_CC=cc,
# BENCH_BUILD=hooks (the program built with the exact-mode hook flags) or patchable (built
# with -fpatchable-function-entry=5, attached by patching its entries: docs/attach.md; the
# plain build runs first for as long, for the idle cost; record runs the hooks build),
# BENCH_KEEP=0.
# Exit status: 0, 1 when the program's own check failed or it died, 2 on errors.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
callprof=$build/bin/callprof
THREADS=${BENCH_THREADS:-8}
CYCLES=${BENCH_CYCLES:-100}
WINDOW=${BENCH_WINDOW:-2}
ROUNDS=${BENCH_ROUNDS:-3}
die() { echo "run.sh: $*" >&2; exit 2; }
[[ -x $callprof ]] || die "missing $callprof (build callprof and callprof-rt first)"
command -v jq >/dev/null || die "needs jq"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-attach-XXXXXX")
[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$tmp"; [[ -n ${pid:-} ]] && kill -9 "$pid" 2>/dev/null || true' EXIT
BUILD=${BENCH_BUILD:-hooks}
cc=${BENCH_CC:-cc}
$cc -O2 -g -finstrument-functions "$here/attach_loop.c" -o "$tmp/loop" -lpthread || die "cannot build"
case $BUILD in
  hooks) target=$tmp/loop ;;
  patchable)
    target=$tmp/loop-patchable
    $cc -O2 -g -fpatchable-function-entry=5 "$here/attach_loop.c" -o "$target" -lpthread || die "cannot build"
    $cc -O2 -g "$here/attach_loop.c" -o "$tmp/loop-plain" -lpthread || die "cannot build" ;;
  *) die "BENCH_BUILD: hooks or patchable, not $BUILD" ;;
esac

# The median of the "rate" lines the program printed from line $1 on.
median_rate() { tail -n +"$1" "$tmp/out" | awk '/^rate/ {print $2}' | sort -n | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : 0}'; }
lines() { wc -l < "$tmp/out"; }

echo "attach exact mode (bench/attach/run.sh): $(date -Is), load $(cut -d' ' -f1-3 /proc/loadavg), $THREADS threads, $BUILD build"
plain=0
if [[ $BUILD == patchable ]]; then  # the plain build alone, for the idle cost
  "$tmp/loop-plain" "$THREADS" "$((WINDOW + 3))" > "$tmp/out"
  plain=$(median_rate 13)  # past its first 3 s, as below
fi
"$target" "$THREADS" > "$tmp/out" &
pid=$!
sleep 3
from=$(lines); sleep "$WINDOW"; before=$(median_rate "$((from + 1))")
# The profile's calls over its process's recorded time: the program's own lines mix in the
# time before the attach and after the detach.
profile_rate() { "$callprof" report -i "$1" --json | jq '.summary.calls / ((.processes[0].end_ns - .processes[0].start_ns) / 1e9)'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : 0}'; }
# Interleaved rounds: a window attached to the running program, then, the program stopped
# (SIGSTOP), the same program under record for as long.
attached_rates=()
recorded_rates=()
for ((r = 0; r < ROUNDS; ++r)); do
  "$callprof" attach "$pid" --mode exact -d "$WINDOW" -o "$tmp/window.callprof" 2> "$tmp/attach.err" || { cat "$tmp/attach.err"; die "attach failed"; }
  if ((r == 0)); then
    held=$(sed -n 's/.*held \([0-9.]*\) ms.*/\1/p' "$tmp/attach.err")
    stopped=$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$tmp/attach.err")
    window_calls=$("$callprof" report -i "$tmp/window.callprof" --json | jq '.summary.calls')
  fi
  attached_rates+=("$(profile_rate "$tmp/window.callprof")")
  kill -STOP "$pid"
  "$callprof" record -q -o "$tmp/record.callprof" -- "$tmp/loop" "$THREADS" "$WINDOW" > "$tmp/record.out" 2>&1
  recorded_rates+=("$(profile_rate "$tmp/record.callprof")")
  kill -CONT "$pid"
  sleep 0.5
done
during=$(median "${attached_rates[@]}")
recorded=$(median "${recorded_rates[@]}")
sleep 1
from=$(lines); sleep "$WINDOW"; after=$(median_rate "$((from + 1))")

# Cycles: attach for 0.05 s, detach, again.
pauses=()
holds=()
fails=0
start=$(date +%s.%N)
for ((i = 0; i < CYCLES; ++i)); do
  if "$callprof" attach "$pid" --mode exact -d 0.05 -o "$tmp/cycle.callprof" 2> "$tmp/cycle.err"; then
    pauses+=("$(sed -n 's/.*stopped for \([0-9.]*\) ms.*/\1/p' "$tmp/cycle.err")")
    holds+=("$(sed -n 's/.*held \([0-9.]*\) ms.*/\1/p' "$tmp/cycle.err")")
  else
    fails=$((fails + 1)); sed -n 1p "$tmp/cycle.err"
  fi
  kill -0 "$pid" 2>/dev/null || { echo "the program died at cycle $i"; exit 1; }
done
cycles_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
kill -USR1 "$pid"
wait "$pid" && status=0 || status=$?
pid=
check=$(grep '^check' "$tmp/out" || echo "check: none")

stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {if (NR) printf "median %.1f ms, max %.1f ms", v[int((NR+1)/2)], v[NR]}'; }
awk -v t="$THREADS" -v b="$before" -v d="$during" -v a="$after" -v r="$recorded" -v wc="$window_calls" -v h="$held" -v st="$stopped" -v rn="$ROUNDS" -v p="$plain" -v build="$BUILD" 'BEGIN {
  printf "calls per second (the program'\''s own count, median of 250 ms intervals):\n"
  if (p > 0) printf "  the plain build (no hooks, no nops)      %12.0f\n", p
  printf "  before the attach (%s)  %12.0f%s\n", build == "hooks" ? "glibc'\''s empty hooks" : "the patchable nops  ", b, (p > 0 ? sprintf("   (idle cost: %.3f x the plain build'\''s time per call)", p / b) : "")
  printf "  attached (the profile'\''s calls / window)  %12.0f   median of %d windows, %d calls in the first\n", d, rn, wc
  printf "  after the detach                         %12.0f   (%.3f x before)\n", a, a / b
  printf "  under callprof record (profile / time)   %12.0f   median of %d runs, each after a window\n", r, rn
  na = 1e9 / d - 1e9 / b; nr = 1e9 / r - 1e9 / b
  if (build == "hooks")
    printf "ns added per call over the empty hooks (the whole process, %s threads): attached %.1f, record %.1f: %.2f x record'\''s\n", t, na, nr, na / nr
  else
    printf "ns per call (the whole process, %s threads): attached %.1f (%.1f over the nops), record of the hooks build %.1f: %.2f x record'\''s\n", t, 1e9 / d, na, 1e9 / r, r / d
  printf "first attach: every thread stopped for %s ms; the borrowed thread held %s ms\n", st, h
}'
echo "attach/detach cycles: $CYCLES in ${cycles_s} s, $fails failed; every thread stopped: $(stats "${pauses[@]}"); the borrowed thread held: $(stats "${holds[@]}")"
echo "program after the cycles: exit $status, $check"
[[ $status == 0 && $fails == 0 && $check == "check ok" ]] || exit 1
