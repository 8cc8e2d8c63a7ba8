#!/usr/bin/env bash
# Probe-mode overhead (issue 13 item 7): the cost per uprobe hit of callprof's probe mode
# next to bpftrace and perf probe, in one run. See bench/README.md.
#
#   bench/probes/run.sh [BUILD_DIR]     (default: the repository's build/)
#
# Builds probe_loop.c (cc -O2 -g) into a scratch directory: N calls of fn(), timed by the
# program itself (elapsed_ns). Each variant runs BENCH_REPEAT times (default 3),
# interleaved; medians count. Needs root and jq; bpftrace and perf are optional (a missing
# or failing one is reported and skipped).
# Environment: BENCH_N (calls, default 200000), BENCH_REPEAT, BENCH_CC (cc).
# Exit status: 0 whatever the timing verdicts; 1 when callprof's profile has the wrong
# call count; 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 200000
REPEAT=${BENCH_REPEAT:-3}
[[ -x $callprof ]] || die "build callprof in $build first"
command -v jq >/dev/null || die "needs jq"
(( EUID == 0 )) || die "needs root (uprobes, bpftrace, perf probe)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-probes-XXXXXX")
perf_event=
cleanup() {
  [[ -n $perf_event ]] && perf probe -q -d "$perf_event" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
prog=$tmp/probe_loop
"${BENCH_CC:-cc}" -O2 -g "$script_dir/probe_loop.c" -o "$prog" || die "cannot build probe_loop.c"

# Hits per call: callprof probes fn's entry and returns through a uretprobe (fn is a
# leaf), or with --no-return-probes probes its `ret`; bpftrace-timed adds a uretprobe.
# The -framed variants call fn_framed, whose first instruction (push %rbp) is emulated.
variants=(plain callprof callprof-exits bpftrace bpftrace-count bpftrace-timed perf-probe
  plain-framed callprof-framed callprof-framed-exits bpftrace-count-framed)
declare -A RUNS SEEN UNAVAILABLE HITS COST
HITS=([plain]=0 [callprof]=2 [callprof-exits]=2 [bpftrace]=1 [bpftrace-count]=1 [bpftrace-timed]=2 [perf-probe]=1
  [plain-framed]=0 [callprof-framed]=2 [callprof-framed-exits]=2 [bpftrace-count-framed]=1)
declare -A FN=([callprof]=fn [callprof-exits]=fn [callprof-framed]=fn_framed [callprof-framed-exits]=fn_framed)
command -v bpftrace >/dev/null || UNAVAILABLE[bpftrace]="not installed" UNAVAILABLE[bpftrace-count]="not installed" \
  UNAVAILABLE[bpftrace-timed]="not installed" UNAVAILABLE[bpftrace-count-framed]="not installed"
if ! command -v perf >/dev/null; then
  UNAVAILABLE[perf-probe]="perf not installed"
elif out=$(perf probe -x "$prog" -a fn 2>&1); then
  perf_event=$(grep -o -m1 'probe_[A-Za-z0-9_]*:fn' <<<"$out" || true)
  [[ -n $perf_event ]] || UNAVAILABLE[perf-probe]="perf probe named no event: $(head -1 <<<"$out")"
else
  UNAVAILABLE[perf-probe]="perf probe -a failed: $(grep -m1 . <<<"$out")"
fi

command_of() {
  case $1 in
    plain) cmd=("$prog" "$N") ;;
    plain-framed) cmd=("$prog" "$N" framed) ;;
    callprof) cmd=("$callprof" record -q -o "$tmp/callprof.data" --mode probe --probe-budget 0 --probe '^fn$' -- "$prog" "$N") ;;
    callprof-exits)  # every exit probed, as before return probes: fn's entry and its ret, single-stepped
      cmd=("$callprof" record -q -o "$tmp/callprof.data" --mode probe --probe-budget 0 --no-return-probes --probe '^fn$' -- "$prog" "$N") ;;
    callprof-framed)
      cmd=("$callprof" record -q -o "$tmp/callprof.data" --mode probe --probe-budget 0 --probe '^fn_framed$' -- "$prog" "$N" framed) ;;
    callprof-framed-exits)
      cmd=("$callprof" record -q -o "$tmp/callprof.data" --mode probe --probe-budget 0 --no-return-probes --probe '^fn_framed$' --
        "$prog" "$N" framed) ;;
    bpftrace-count-framed) cmd=(bpftrace -e "uprobe:$prog:fn_framed { @ = count(); }" -c "$prog $N framed") ;;
    bpftrace) cmd=(bpftrace -e "uprobe:$prog:fn { @[ustack] = count(); }" -c "$prog $N") ;;
    bpftrace-count) cmd=(bpftrace -e "uprobe:$prog:fn { @ = count(); }" -c "$prog $N") ;;
    bpftrace-timed)  # what callprof records, in bpftrace: the stack and the duration of every call
      cmd=(bpftrace -e "uprobe:$prog:fn { @s[tid] = nsecs; @st[tid] = ustack; }
        uretprobe:$prog:fn /@s[tid]/ { @[@st[tid]] = sum(nsecs - @s[tid]); @n = count(); delete(@s[tid]); }
        END { clear(@s); clear(@st); }" -c "$prog $N") ;;
    perf-probe) cmd=(perf record -q -e "$perf_event" -o "$tmp/perf.data" -- "$prog" "$N") ;;
  esac
}

first_error() {
  local e; e=$(grep -v RLIMIT_MEMLOCK "$tmp/err" | grep -m1 -i -E 'error|fail|cannot|can.t|not |denied|invalid|unknown' \
    || grep -v RLIMIT_MEMLOCK "$tmp/err" | grep -m1 . || true)
  echo "${e:-exited without output}"
}

# run VARIANT: one run; the loop's elapsed_ns, and how many calls the tracer counted.
run() {
  local v=$1 seen=-
  command_of "$v"
  if ! "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" || ! grep -q "^calls=$N .*elapsed_ns=" "$tmp/out"; then
    case $v in
      bpftrace* | perf-probe) UNAVAILABLE[$v]="failed: $(first_error)"; return 0 ;;
      *) cat "$tmp/err" >&2; die "$v failed" ;;
    esac
  fi
  RUNS[$v]+="$(grep -o 'elapsed_ns=[0-9]*' "$tmp/out" | cut -d= -f2) "
  case $v in
    callprof*)
      read -r seen cost < <("$callprof" report -i "$tmp/callprof.data" --json | jq -r --arg fn "${FN[$v]}" \
        '"\([.functions[] | select(.name == $fn) | .calls] | add // 0) \(.metadata.probes.cost_per_hit_ns)"')
      COST[$v]+="$cost " ;;
    bpftrace) seen=$(awk '/^\]: [0-9]+$/ { s += $2 } END { print s + 0 }' "$tmp/out") ;;
    bpftrace-count*) seen=$(awk '/^@: [0-9]+$/ { print $2 }' "$tmp/out") ;;
    bpftrace-timed) seen=$(awk '/^@n: [0-9]+$/ { print $2 }' "$tmp/out") ;;
    perf-probe) seen=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
      rm -f "$tmp/perf.data" ;;
  esac
  SEEN[$v]=${seen:--}
  return 0
}

echo "probe overhead: $prog $N (loop time as measured by the program), $REPEAT runs each, medians"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r), load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for (( r = 1; r <= REPEAT; r++ )); do
  for v in "${variants[@]}"; do
    [[ -n ${UNAVAILABLE[$v]:-} ]] || run "$v"
  done
done

per_call() {  # per_call VARIANT: added ns per call over plain (plain-framed for the -framed ones)
  local base=plain
  [[ $1 == *-framed ]] && base=plain-framed
  awk -v m="$(median "${RUNS[$1]}")" -v b="$(median "${RUNS[$base]}")" -v n="$N" 'BEGIN { printf "%.0f", (m - b) / n }'
}
bpf=
[[ -n ${RUNS[bpftrace]:-} ]] && bpf=$(per_call bpftrace)
printf '%-15s %9s %5s %12s %11s %12s %12s\n' variant "loop ms" hits "added ns/call" "ns/hit" "x bpftrace" "calls seen"
for v in "${variants[@]}"; do
  if [[ -z ${RUNS[$v]:-} ]]; then printf '%-15s %s\n' "$v" "unavailable: ${UNAVAILABLE[$v]:-no runs}"; continue; fi
  loop=$(awk -v m="$(median "${RUNS[$v]}")" 'BEGIN { printf "%.1f", m / 1e6 }')
  if [[ $v == plain* ]]; then printf '%-15s %9s %5s %12s %11s %12s %12s\n' "$v" "$loop" 0 - - - -; continue; fi
  a=$(per_call "$v")
  h=$(awk -v a="$a" -v k="${HITS[$v]}" 'BEGIN { printf "%.0f", a / k }')
  x=-
  [[ -n $bpf ]] && x=$(awk -v a="$a" -v b="$bpf" 'BEGIN { printf "%.2f", a / b }')
  printf '%-15s %9s %5s %12s %11s %12s %12s\n' "$v" "$loop" "${HITS[$v]}" "$a" "$h" "$x" "${SEEN[$v]}"
done
echo "  added ns/call: (median loop time - plain's) / calls; ns/hit: that / hits per call; x bpftrace: added"
echo "  per call / bpftrace's (uprobe, count by user stack). calls seen: as counted by the tool (last run)."
echo "  callprof probes the entry of fn (single-stepped: lea) and returns through a uretprobe (fn is a leaf),"
echo "  2 hits per call, and times every call; callprof-exits (--no-return-probes) probes fn's ret instead"
echo "  (single-stepped too); bpftrace and bpftrace-count one uprobe per call, no timing; bpftrace-timed a"
echo "  uprobe and a uretprobe (stack, duration); perf-probe one uprobe per call, each a sample written to"
echo "  perf.data. The -framed variants probe fn_framed (push %rbp first: emulated), over plain-framed;"
echo "  callprof-framed-exits probes its entry and its ret (single-stepped)."
for v in callprof callprof-exits callprof-framed callprof-framed-exits; do
  [[ -n ${COST[$v]:-} ]] || continue
  echo "$v: its own measure of a hit (meta.probes.cost_per_hit_ns, mean over the hits of their kinds' costs" \
    "calibrated at start), per run: ${COST[$v]}ns; median $(median "${COST[$v]}") ns"
done

status=0
echo "Target (issue 13): callprof's added cost per call (2 hits, timed) <= bpftrace-count's (1 hit, count only)"
if [[ -n ${RUNS[bpftrace-count]:-} ]]; then
  c=$(per_call callprof) b=$(per_call bpftrace-count)
  echo "  callprof $c ns vs bpftrace-count $b ns per call: $(awk -v c="$c" -v b="$b" 'BEGIN { print c <= b ? "PASS" : "MISS" }')"
else
  echo "  bpftrace-count unavailable (${UNAVAILABLE[bpftrace-count]:-}): not judged"
fi
if [[ -n ${RUNS[bpftrace-count-framed]:-} && -n ${RUNS[callprof-framed]:-} ]]; then
  c=$(per_call callprof-framed) b=$(per_call bpftrace-count-framed)
  echo "  framed: callprof $c ns vs bpftrace-count $b ns per call: $(awk -v c="$c" -v b="$b" 'BEGIN { print c <= b ? "PASS" : "MISS" }')"
fi
for v in callprof callprof-exits callprof-framed callprof-framed-exits; do
  verdict=MISS; [[ ${SEEN[$v]:-} == "$N" ]] && verdict=PASS
  echo "Count: $v's profile has ${SEEN[$v]:-no} calls of ${FN[$v]}: $verdict (expected $N)"
  [[ $verdict == PASS ]] || status=1
done
exit $status
