#!/usr/bin/env bash
# Export and merge benchmark (issue "Exports read by the tools people already use"):
#   1. every export format of a 1 M-node exact profile (target: < 3 s each): median wall and
#      CPU time, peak RSS, output size, and the ratio to reading the same profile alone
#      (`report --view summary --limit 1`, the floor every command pays). The chrome format
#      needs a timeline: its profile is the same one with a 1 M-event timeline (one call per
#      node, profile_synth --timeline).
#   2. `callprof merge` of 100 profiles of 50,000 paths each (target: < 10 s): the same
#      program, other runs (profile_synth --variant); time, peak RSS, output size, and the
#      ratio to reading the 100 inputs one by one.
#
#   bench/analysis/exports.sh [BUILD_DIR]     (default: the repository's build/)
#
# Environment: BENCH_NODES=1000000, BENCH_THREADS=4, BENCH_FUNCTIONS=5000, BENCH_SEED=1,
# BENCH_REPEAT=3, BENCH_MERGE_INPUTS=100, BENCH_MERGE_NODES=50000, BENCH_TMP=, BENCH_KEEP=0,
# BENCH_ONLY= (exports or merge: run that part alone).
# Needs callprof and profile_synth built. Exit status 0 whatever the verdicts; 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
REPEAT=${BENCH_REPEAT:-3}
NODES=${BENCH_NODES:-1000000}
THREADS=${BENCH_THREADS:-4}
FUNCTIONS=${BENCH_FUNCTIONS:-5000}
SEED=${BENCH_SEED:-1}
ONLY=${BENCH_ONLY:-}
[[ -z $ONLY || $ONLY == exports || $ONLY == merge ]] || die "BENCH_ONLY must be exports or merge, not '$ONLY'"
INPUTS=${BENCH_MERGE_INPUTS:-100}
MERGE_NODES=${BENCH_MERGE_NODES:-50000}
synth=$build/bench/profile_synth
gnu_time=/usr/bin/time
for f in "$callprof" "$synth"; do [[ -e $f ]] || die "missing $f (build the targets callprof profile_synth in $build)"; done
[[ -x $gnu_time ]] || die "needs GNU time at $gnu_time (apt-get install time)"

tmp=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-exports-XXXXXX")}
mkdir -p "$tmp"
[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$tmp"' EXIT

declare -A WALL CPU RSS FAILED
# timed KEY COMMAND...: one run, stdout to /dev/null (as run.sh).
timed() {
  local key=$1; shift
  [[ -n ${FAILED[$key]:-} ]] && return 0
  if ! "$gnu_time" -f '%e %M %U %S' -o "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/err.txt"; then
    FAILED[$key]=$(grep -v -e '^Command exited' -e '^Command terminated' "$tmp/err.txt" | grep -m1 . || echo "exit status != 0")
    return 0
  fi
  local e m u s
  read -r e m u s < <(tail -n1 "$tmp/time.txt")
  WALL[$key]+="$e "
  CPU[$key]+="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') "
  (( m > ${RSS[$key]:-0} )) && RSS[$key]=$m
  return 0
}
med() { [[ -n ${WALL[$1]:-} ]] && median "${WALL[$1]}" || echo -; }
medcpu() { [[ -n ${CPU[$1]:-} ]] && median "${CPU[$1]}" || echo -; }
mib() { [[ -n ${RSS[$1]:-} ]] && awk -v k="${RSS[$1]}" 'BEGIN { printf "%.0f", k / 1024 }' || echo -; }
verdict() { [[ $1 =~ ^[0-9.]+$ ]] || { echo -; return; }; awk -v t="$1" -v g="$2" 'BEGIN { print t < g ? "PASS" : "MISS" }'; }
ratio() { [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] || { echo -; return; }; awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.1f" : "-"), (b > 0 ? a / b : 0) }'; }
size_of() { du -h "$1" | cut -f1; }

echo "export and merge benchmark: $REPEAT runs of each command, medians; callprof $build"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cpus, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------
# 1. Exports of a 1 M-node profile.
if [[ $ONLY != merge ]]; then
plain=$tmp/synth.data timeline=$tmp/synth-timeline.data
"$synth" --nodes "$NODES" --threads "$THREADS" --functions "$FUNCTIONS" --seed "$SEED" -o "$plain" >/dev/null 2>"$tmp/synth.err" ||
  { cat "$tmp/synth.err" >&2; die "profile_synth failed"; }
"$synth" --nodes "$NODES" --threads "$THREADS" --functions "$FUNCTIONS" --seed "$SEED" --timeline -o "$timeline" \
  >/dev/null 2>"$tmp/synth.err" || { cat "$tmp/synth.err" >&2; die "profile_synth --timeline failed"; }
echo "profiles: $NODES nodes, $THREADS threads, $FUNCTIONS functions: $(size_of "$plain"); with a $NODES-event timeline: $(size_of "$timeline")"

formats=(pprof callgrind collapsed speedscope chrome)
input_of() { [[ $1 == chrome ]] && echo "$timeline" || echo "$plain"; }
for (( r = 1; r <= REPEAT; r++ )); do
  timed "read" "$callprof" report -i "$plain" --view summary --limit 1 --no-pager
  timed "read-timeline" "$callprof" report -i "$timeline" --view summary --limit 1 --no-pager
  for f in "${formats[@]}"; do
    timed "$f" "$callprof" export -i "$(input_of "$f")" -f "$f" -o "$tmp/out.$f"
    timed "$f-null" "$callprof" export -i "$(input_of "$f")" -f "$f"
  done
done
# The disk's share: the same number of bytes written by dd to the same directory (a 2 GB
# collapsed file takes seconds to write whoever writes it).
declare -A DD
for f in "${formats[@]}"; do
  [[ -f $tmp/out.$f ]] || continue
  bytes=$(stat -c %s "$tmp/out.$f")
  t0=${EPOCHREALTIME/,/.}
  dd if=/dev/zero of="$tmp/dd.out" bs=1M count=$(( (bytes + 1048575) / 1048576 )) status=none
  t1=${EPOCHREALTIME/,/.}
  DD[$f]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  rm -f "$tmp/dd.out"
done

echo
echo "exports of the ${NODES}-node profile: seconds (median wall, cpu), peak RSS, output, ratio to reading alone, verdict against 3 s;"
echo "  to-null: the same export to /dev/null (no disk); dd: dd writing as many bytes to the same directory"
printf '%-12s %7s %7s %7s %9s %7s %7s %6s  %s\n' format wall cpu MiB output ratio to-null dd verdict
printf '%-12s %7s %7s %7s %9s %7s\n' "(read)" "$(med read)" "$(medcpu read)" "$(mib read)" - 1.0
printf '%-12s %7s %7s %7s %9s %7s\n' "(read, tl)" "$(med read-timeline)" "$(medcpu read-timeline)" "$(mib read-timeline)" - 1.0
miss=0
for f in "${formats[@]}"; do
  if [[ -n ${FAILED[$f]:-} ]]; then
    printf '%-12s failed: %s\n' "$f" "${FAILED[$f]}"
    miss=$((miss + 1))
    continue
  fi
  base=read
  [[ $f == chrome ]] && base=read-timeline
  v=$(verdict "$(med "$f")" 3)
  [[ $v == PASS ]] || miss=$((miss + 1))
  printf '%-12s %7s %7s %7s %9s %7s %7s %6s  %s\n' "$f" "$(med "$f")" "$(medcpu "$f")" "$(mib "$f")" "$(size_of "$tmp/out.$f")" \
    "$(ratio "$(med "$f")" "$(med "$base")")" "$(med "$f-null")" "${DD[$f]:--}" "$v"
done
echo "  Each: callprof export -i PROFILE -f FORMAT -o FILE (chrome: the profile with a timeline)."
(( miss == 0 )) && echo "Target (3 s per format): PASS for every format" || echo "Target (3 s per format): MISS for $miss format(s)"
fi
[[ $ONLY == exports ]] && exit 0

# ---------------------------------------------------------------------------------------
# 2. Merge of many runs.
inputs=()
t0=${EPOCHREALTIME/,/.}
for (( i = 1; i <= INPUTS; i++ )); do
  p=$tmp/run-$i.data
  "$synth" --nodes "$MERGE_NODES" --threads "$THREADS" --functions "$FUNCTIONS" --seed "$SEED" --variant "$i" -o "$p" \
    >/dev/null 2>"$tmp/synth.err" || { cat "$tmp/synth.err" >&2; die "profile_synth --variant $i failed"; }
  inputs+=("$p")
done
t1=${EPOCHREALTIME/,/.}
printf '\nmerge inputs: %d profiles of %d paths (%s in all; made in %.1f s)\n' "$INPUTS" "$MERGE_NODES" \
  "$(du -ch "${inputs[@]}" | tail -n1 | cut -f1)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
for (( r = 1; r <= REPEAT; r++ )); do
  timed merge "$callprof" merge -q -o "$tmp/merged.data" "${inputs[@]}"
done
# The floor: each input read once (one process per input, as merge reads them in one).
t0=${EPOCHREALTIME/,/.}
for p in "${inputs[@]}"; do "$callprof" report -i "$p" --view summary --limit 1 --no-pager >/dev/null; done
t1=${EPOCHREALTIME/,/.}
reads=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
if [[ -n ${FAILED[merge]:-} ]]; then
  echo "merge: failed: ${FAILED[merge]}"
else
  paths=$("$callprof" report -i "$tmp/merged.data" --view summary --no-pager | awk '$1 == "nodes" { print $2; exit }')
  printf 'merge: %s s (cpu %s s), %s MiB peak, output %s (%s paths); reading the inputs one by one: %s s (ratio %s); %s against 10 s\n' \
    "$(med merge)" "$(medcpu merge)" "$(mib merge)" "$(size_of "$tmp/merged.data")" "${paths:-?}" "$reads" \
    "$(ratio "$(med merge)" "$reads")" "$(verdict "$(med merge)" 10)"
fi
