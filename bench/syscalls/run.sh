#!/usr/bin/env bash
# System-call tracing overhead (SPEC §6), next to strace, perf trace and bpftrace, in one
# run. See bench/README.md.
#
#   bench/syscalls/run.sh [BUILD_DIR]     (default: the repository's build/)
#
# Builds syscall_loop.c (cc -O2 -g) into a scratch directory. The program makes N cheap
# system calls (8-byte writes to /dev/null, or getppid) and reports the time its loop took
# (elapsed_ns), so the tracers' start-up and writing are left out. Each variant runs
# BENCH_REPEAT times (default 5), interleaved; medians count. Needs root and jq; strace,
# perf (perf trace) and bpftrace are optional: a missing or failing one is reported and
# skipped.
# Environment: BENCH_N (calls, default 200000), BENCH_REPEAT, BENCH_SLOW_DIV (strace and
# perf trace make N/DIV calls, default 10: they take 40-190 µs per call), BENCH_CC (cc).
# Exit status: 0 whatever the timing verdicts; 1 when callprof's profile has the wrong
# count or callprof lost events; 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 200000
[[ -x $callprof ]] || die "build callprof in $build first"
command -v jq >/dev/null || die "needs jq"
(( EUID == 0 )) || die "needs root (eBPF, perf trace, bpftrace)"
slow_n=$(( N / ${BENCH_SLOW_DIV:-10} ))
(( slow_n > 0 )) || die "BENCH_N / BENCH_SLOW_DIV is 0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-syscalls-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prog=$tmp/syscall_loop
"${BENCH_CC:-cc}" -O2 -g "$script_dir/syscall_loop.c" -o "$prog" || die "cannot build syscall_loop.c"
# The same with exact mode's hooks: with --syscalls, its calls are placed by the runtime's
# shadow stack (read by the probe) instead of a copied stack window.
hooked=$tmp/syscall_loop_hooked
"${BENCH_CC:-cc}" -O2 -g -finstrument-functions "$script_dir/syscall_loop.c" -o "$hooked" || die "cannot build syscall_loop.c with hooks"

variants=(plain plain-getppid plain-mixed plain-slow callprof-user callprof-none callprof-full callprof-untraced
          callprof-mixed exact-untraced callprof-exact strace perf-trace bpftrace bpftrace-timed)
declare -A RUNS SEEN LOST MISSED UNAVAILABLE WROTE CALLS BASE
for tool in strace perf bpftrace; do
  command -v $tool >/dev/null && continue
  case $tool in
    perf) UNAVAILABLE[perf-trace]="perf not installed" ;;
    bpftrace) UNAVAILABLE[bpftrace]="not installed" UNAVAILABLE[bpftrace-timed]="not installed" ;;
    *) UNAVAILABLE[$tool]="not installed" ;;
  esac
done

# command_of VARIANT: sets cmd (the command line), n (the calls it makes), base (the
# variant it is compared with) and want (the write calls a tracer should count: the loop's
# and the one of the result line at exit). callprof runs with -q except in round 1, whose
# summary line ("wrote ...: N system calls ..., L lost") is printed at the end.
command_of() {
  local record=("$callprof" record -o "$tmp/$1.data" --mode syscall)
  (( r > 1 )) && record+=(-q)
  n=$N base=plain want=$(( N + 1 ))
  case $1 in
    plain) base= cmd=("$prog" "$N") ;;
    plain-getppid) base= cmd=("$prog" "$N" getppid) ;;
    plain-mixed) base= cmd=("$prog" "$N" mixed) ;;
    plain-slow) base= n=$slow_n cmd=("$prog" "$slow_n") ;;
    callprof-user | callprof-none | callprof-full)
      cmd=("${record[@]}" --syscalls write --syscall-stacks "${1#callprof-}" -- "$prog" "$N") ;;
    callprof-untraced) base=plain-getppid want= cmd=("${record[@]}" --syscalls read -- "$prog" "$N" getppid) ;;
    callprof-mixed) base=plain-mixed want=$(( N / 1000 + 1 )) cmd=("${record[@]}" --syscalls write -- "$prog" "$N" mixed) ;;
    exact-untraced) base= cmd=("$callprof" record -q -o "$tmp/$1.data" -- "$hooked" "$N") ;;
    callprof-exact)  # exact mode's own cost is in its baseline: this is the tracing's
      base=exact-untraced cmd=("$callprof" record -o "$tmp/$1.data" --syscalls write -- "$hooked" "$N")
      if (( r > 1 )); then cmd=("${cmd[@]:0:2}" -q "${cmd[@]:2}"); fi ;;
    strace) base=plain-slow n=$slow_n want=$(( slow_n + 1 )) cmd=(strace -c -f -o "$tmp/strace.txt" "$prog" "$slow_n") ;;
    perf-trace) base=plain-slow n=$slow_n want=$(( slow_n + 1 )) cmd=(perf trace -s -o "$tmp/perf.txt" -e write -- "$prog" "$slow_n") ;;
    bpftrace)
      cmd=(bpftrace -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { @[ustack] = count(); }' -c "$prog $N") ;;
    bpftrace-timed)  # what callprof-user records: the stack at entry and the call's duration
      cmd=(bpftrace -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { @s[tid] = nsecs; @st[tid] = ustack; }
        tracepoint:syscalls:sys_exit_write /pid == cpid && @s[tid]/ { @[@st[tid]] = hist(nsecs - @s[tid]); delete(@s[tid]); }
        END { clear(@s); clear(@st); }' -c "$prog $N") ;;
  esac
}

# first_error: the first line of the failed run's stderr that reads like an error
# (bpftrace's RLIMIT_MEMLOCK complaint comes on every run, successful or not).
first_error() {
  local e; e=$(grep -v RLIMIT_MEMLOCK "$tmp/err" | grep -m1 -i -E 'error|fail|cannot|can.t|not |denied|invalid|unknown' \
    || grep -v RLIMIT_MEMLOCK "$tmp/err" | grep -m1 . || true)
  echo "${e:-exited without output}"
}

# run VARIANT: one run; the program's elapsed_ns, and what the tracer says it saw and lost.
run() {
  local v=$1
  command_of "$v"
  if ! "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" || ! grep -q "^calls=$n .*elapsed_ns=" "$tmp/out"; then
    case $v in
      strace | perf-trace | bpftrace*) UNAVAILABLE[$v]="failed: $(first_error)"; return 0 ;;
      *) cat "$tmp/err" >&2; die "$v failed" ;;
    esac
  fi
  RUNS[$v]+="$(grep -o 'elapsed_ns=[0-9]*' "$tmp/out" | cut -d= -f2) "
  CALLS[$v]=$n BASE[$v]=$base
  local seen=- lost=-
  case $v in
    exact-untraced) ;;
    callprof-*)
      read -r seen lost < <("$callprof" report -i "$tmp/$v.data" --json |
        jq -r '.metadata.syscalls | "\(.events) \(.lost_events)"')
      lost=$(( ${LOST[$v]:-0} + lost ))
      (( r == 1 )) && WROTE[$v]=$(grep -m1 'callprof: wrote' "$tmp/err" | sed "s|$tmp/||" || echo "(no summary line)") ;;
    strace) seen=$(awk '$NF == "write" { print $4 }' "$tmp/strace.txt") ;;
    perf-trace)
      seen=$(awk '$1 == "write" { print $2 }' "$tmp/perf.txt")
      lost=$(( ${LOST[$v]:-0} + $(cat "$tmp/perf.txt" "$tmp/err" | { grep -o -i 'lost [0-9]* events' || true; } |
        awk '{ s += $2 } END { print s + 0 }') )) ;;
    bpftrace) seen=$(awk '/^\]: [0-9]+$/ { s += $2 } END { print s + 0 }' "$tmp/out") ;;
    bpftrace-timed) seen=$(awk '/^\[.*\) +[0-9]+ \|/ { sub(/^[^)]*\) +/, ""); s += $1 } END { print s + 0 }' "$tmp/out") ;;
  esac
  SEEN[$v]=${seen:--} LOST[$v]=$lost
  [[ -n $want && $seen != - ]] && MISSED[$v]=$(( ${MISSED[$v]:-0} + want - seen ))
  return 0
}

echo "system-call tracing overhead: $prog $N (loop time as measured by the program), $REPEAT runs each, medians"
echo "strace and perf trace make $slow_n calls (N/${BENCH_SLOW_DIV:-10}), compared with plain-slow"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r), load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for (( r = 1; r <= REPEAT; r++ )); do
  for v in "${variants[@]}"; do
    [[ -n ${UNAVAILABLE[$v]:-} ]] || run "$v"
  done
done

added() {  # added VARIANT: ns per call over its baseline
  local b=${BASE[$1]}
  awk -v m="$(median "${RUNS[$1]}")" -v b="$(median "${RUNS[$b]}")" -v n="${CALLS[$1]}" -v nb="${CALLS[$b]}" \
    'BEGIN { printf "%.1f", (m / n - b / nb) }'
}
bpf_added=
[[ -n ${RUNS[bpftrace]:-} ]] && bpf_added=$(added bpftrace)
printf '%-18s %7s %9s %-14s %10s %11s %12s %7s %5s\n' variant calls "loop ms" baseline "added ns" "x bpftrace" "writes seen" missed lost
for v in "${variants[@]}"; do
  if [[ -z ${RUNS[$v]:-} ]]; then printf '%-18s %s\n' "$v" "unavailable: ${UNAVAILABLE[$v]:-no runs}"; continue; fi
  a=- x=-
  if [[ -n ${BASE[$v]} ]]; then
    a=$(added "$v")
    [[ -n $bpf_added ]] && x=$(awk -v a="$a" -v b="$bpf_added" 'BEGIN { printf "%.2f", a / b }')
  fi
  printf '%-18s %7s %9.1f %-14s %10s %11s %12s %7s %5s\n' "$v" "${CALLS[$v]}" "$(awk -v m="$(median "${RUNS[$v]}")" 'BEGIN { print m / 1e6 }')" \
    "${BASE[$v]:--}" "$a" "$x" "${SEEN[$v]}" "${MISSED[$v]:--}" "${LOST[$v]}"
done
echo "  added: ns per call, (median loop time / calls) - (its baseline's median / calls); x bpftrace: added / bpftrace's added."
echo "  writes seen: write calls the tracer counted in its last run (the loop's and the program's result line at"
echo "  exit; callprof: all traced calls, syscall_events); missed: writes made but not counted, summed over the"
echo "  runs; lost: events the tracer says it lost, summed over the runs (callprof's syscall_lost_events, perf"
echo "  trace's LOST lines; strace stops the tracee instead, bpftrace counts in a map)."
echo "  bpftrace-timed (for information): what callprof-user records, in bpftrace: stack at entry, duration histogram."
echo "callprof's own summary line (round 1, without -q):"
for v in "${variants[@]}"; do [[ -n ${WROTE[$v]:-} ]] && printf '  %-18s %s\n' "$v" "${WROTE[$v]#callprof: }"; done

status=0
echo "Target (SPEC §6): callprof-user added cost per traced call <= bpftrace's (count by user stack); no lost events"
if [[ -n $bpf_added ]]; then
  u=$(added callprof-user)
  echo "  callprof-user $u ns vs bpftrace $bpf_added ns per traced call: $(awk -v u="$u" -v b="$bpf_added" 'BEGIN { print u <= b ? "PASS" : "MISS" }')"
else
  echo "  bpftrace unavailable (${UNAVAILABLE[bpftrace]:-}): cost target not judged"
fi
lost=0
for v in "${variants[@]}"; do [[ $v == callprof-* ]] && lost=$(( lost + ${LOST[$v]:-0} )); done
echo "  callprof lost events over all runs: $lost: $( (( lost == 0 )) && echo PASS || echo MISS)"
(( lost == 0 )) || status=1
# Correctness: the loop's writes, on the path through main, are exactly N; the one more
# write is stdio flushing the result line at exit.
read -r loop total < <("$callprof" report -i "$tmp/callprof-user.data" --json | jq -r '[.syscalls[] | select(.name == "write")] as $w
  | "\([$w[].paths[] | select(.path | index("main")) | .calls] | add // 0) \([$w[].calls] | add // 0)"')
verdict=MISS; [[ $loop == "$N" ]] && verdict=PASS
echo "Count: callprof-user's profile has $loop write calls on the loop's path (main → write), $total in all: $verdict (expected $N; +1 is the result line flushed at exit)"
[[ $verdict == PASS ]] || status=1
exit $status
