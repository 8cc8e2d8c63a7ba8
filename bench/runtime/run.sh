#!/usr/bin/env bash
# Exact-mode overhead benchmark (SPEC §6). See bench/README.md.
#
#   bench/runtime/run.sh [BUILD_DIR]        (default: the repository's build/)
#
# Runs the call-heavy program plain, with glibc's no-op hooks, with the floor hooks (two
# TSC reads per call), under `callprof record` and under `uftrace record`, interleaved and
# repeated; prints the added nanoseconds per call, the ratios against the SPEC targets,
# the 10x run-length check (profile size and peak memory) and the exact call count.
# Builds nothing: build the targets callheavy, callheavy_plain, floor_hooks, callprof and
# callprof-rt first (the CMake target bench-runtime does both).
#
# Environment:
#   BENCH_N=10000000        iterations of the main loop (10 calls each, so 10^8 calls)
#   BENCH_REPEAT=5          runs of each variant (the median wall time counts)
#   BENCH_UFTRACE_DIV=10    uftrace runs N/DIV iterations (it writes ~32 bytes per call)
#   BENCH_UFTRACE_REPEAT=3  runs of uftrace (and of its plain baseline)
#   BENCH_UFTRACE=1         0: skip uftrace
#   BENCH_TMP=              scratch directory for profiles (default: a new one under TMPDIR)
#   BENCH_KEEP=0            1: keep the scratch directory
#   BENCH_RUNTIME_BEFORE=   another libcallprof-rt.so (e.g. the main branch's build) recorded
#                           in the same run, to compare the hooks' cost before and after a change
#   BENCH_CALLPROF_BEFORE=  the same with another callprof binary and the runtime next to it
#                           (when the runtime's dump format changed, the two go together)
#   BENCH_CASES="recursive manypaths"   the cases of real programs (issue 28) run in the same
#                           rounds, each against its own plain build and the same floor hooks
#                           (empty: none; a case whose binaries are not built is skipped):
#                           recursive (recursive.c: 80 % of the calls in a recursive fib) and
#                           manypaths (manypaths.awk: 512 functions on deep varied paths, a
#                           calling context tree far beyond the caches); with the path floor
#                           hooks beside the floor's (path_floor_hooks.c, when built: the floor
#                           plus one update of the call's path record, informational)
#   BENCH_RECURSIVE_N=2000000  iterations of recursive (31 calls each)
#   BENCH_MANYPATHS_N=4000000  iterations of manypaths (14 calls each)
#   BENCH_MANYPATHS_PATHS=32768 BENCH_MANYPATHS_DEPTH=12   its distinct chains and their depth
#                           (the tree: ~PATHS * (DEPTH - 2) nodes of 64 bytes; 32768: ~20 MB)
# The callprof variants record with --no-auto-fold: the SPEC's bar is the hooks' cost per
# call, and the benchmark's leaf is tiny enough to be folded; 'auto-fold (default)' shows
# what a default recording costs (it folds inlined copies only: the leaf is really called),
# '--auto-fold all' what a call of a folded function costs.
# Exit status: 0 (whatever the timing verdicts: they depend on the machine's load), 1 when
# the profile's call count is wrong, 2 on errors (missing build, a run failed, checksums).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 10000000
UDIV=${BENCH_UFTRACE_DIV:-10}
UREPEAT=${BENCH_UFTRACE_REPEAT:-3}
WITH_UFTRACE=${BENCH_UFTRACE:-1}
RT_BEFORE=${BENCH_RUNTIME_BEFORE:-}
CP_BEFORE=${BENCH_CALLPROF_BEFORE:-}
CASES=${BENCH_CASES-recursive manypaths}
declare -A CASE_N=([recursive]=${BENCH_RECURSIVE_N:-2000000} [manypaths]=${BENCH_MANYPATHS_N:-4000000})
declare -A CASE_ARGS=([recursive]="" [manypaths]="${BENCH_MANYPATHS_PATHS:-32768} ${BENCH_MANYPATHS_DEPTH:-12}")

prog=$build/bench/callheavy
plain_prog=$build/bench/callheavy_plain
floor_lib=$build/bench/libfloor_hooks.so
path_floor_lib=$build/bench/libpath_floor_hooks.so
uftrace=$(command -v uftrace || true)
gnu_time=/usr/bin/time

for f in "$prog" "$plain_prog" "$floor_lib" "$callprof" "$build/bin/libcallprof-rt.so"; do
  [[ -e $f ]] || die "missing $f (build the targets callheavy callheavy_plain floor_hooks callprof callprof-rt in $build)"
done
[[ -x $gnu_time ]] || die "needs GNU time at $gnu_time (apt-get install time)"
command -v jq >/dev/null || die "needs jq"
if [[ $WITH_UFTRACE == 1 && -z $uftrace ]]; then
  echo "run.sh: uftrace not found, skipping it" >&2
  WITH_UFTRACE=0
fi
(( N >= 10 && UDIV >= 1 && REPEAT >= 1 && UREPEAT >= 1 )) || die "bad BENCH_* settings"
cases=()
for c in $CASES; do
  [[ -n ${CASE_N[$c]:-} ]] || die "unknown case $c in BENCH_CASES (recursive, manypaths)"
  if [[ -x $build/bench/$c && -x $build/bench/${c}_plain ]]; then cases+=("$c")
  else echo "run.sh: case $c skipped: build the targets $c ${c}_plain in $build" >&2; fi
done
# Floating-point work goes through awk.
calc() { awk "BEGIN { printf \"%.6g\", $* }"; }
fmt() { awk -v v="$2" "BEGIN { printf \"$1\", v }"; }

tmp=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-XXXXXX")}
mkdir -p "$tmp"
[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------------------
# One measured run. Results go to global associative arrays, keyed by "variant".
#   run_one VARIANT ITERATIONS PROFILE_PATH_OR_- COMMAND...
# Records: wall seconds (EPOCHREALTIME, µs), peak RSS of the whole command tree (GNU time
# %M, KiB), the program's own peak RSS and call count and checksum (its output line) and
# the size of the profile (file or directory) when one is written.
declare -A WALLS CPUS RSS_ALL RSS_PROG SIZE CALLS ITERS CHECKSUM LOOP_CPUS
run_one() {
  local variant=$1 iters=$2 profile=$3; shift 3
  local out=$tmp/out.txt tf=$tmp/time.txt
  [[ $profile == - ]] || rm -rf "$profile"
  local t0=${EPOCHREALTIME/,/.}
  if ! "$gnu_time" -f '%e %M %U %S' -o "$tf" "$@" >"$out" 2>"$tmp/err.txt"; then
    cat "$out" "$tmp/err.txt" >&2
    die "$variant failed: $*"
  fi
  local t1=${EPOCHREALTIME/,/.}
  local wall; wall=$(calc "${t1/./} / 1e6 - ${t0/./} / 1e6")
  local line; line=$(grep -m1 '^iterations=' "$out") || die "$variant: no result line from the program"
  local calls=${line#*calls=}; calls=${calls%% *}
  local sum=${line#*checksum=}; sum=${sum%% *}
  local rss=${line#*maxrss_kb=}; rss=${rss%% *}
  WALLS[$variant]+="$wall "
  local e m u sy; read -r e m u sy <"$tf"
  RSS_ALL[$variant]+="$m "
  CPUS[$variant]+="$(calc "$u + $sy") "
  RSS_PROG[$variant]+="$rss "
  CALLS[$variant]=$calls
  ITERS[$variant]=$iters
  if [[ $line == *loop_cpu_ns=* ]]; then
    local lc=${line#*loop_cpu_ns=}; lc=${lc%% *}
    LOOP_CPUS[$variant]+="$(calc "$lc / 1e9") "
  fi
  CHECKSUM[$variant]=$sum
  if [[ $profile != - ]]; then
    SIZE[$variant]+="$(du -sb "$profile" | cut -f1) "
  fi
}

n_small=$(( N / 10 ))
n_uftrace=$(( N / UDIV ))
cp_profile=$tmp/callheavy.callprof
cp_profile_small=$tmp/callheavy-small.callprof
uf_dir=$tmp/uftrace.data

# ---------------------------------------------------------------------------------------
echo "callprof exact-mode overhead benchmark (bench/runtime/run.sh)"
echo "date:    $(date -Iseconds)   host: $(hostname)   cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min) at start; busy machines give noisy numbers"
echo "program: $prog (-O2 -finstrument-functions), baseline $plain_prog (same source and flags, no hooks)"
echo "         N=$N iterations x 10 calls + main; each variant $REPEAT times interleaved, median wall time"
(( N >= 10000000 )) || echo "note:    N below the default 10000000: start-up costs weigh on the per-call figures"
[[ $WITH_UFTRACE == 1 ]] && echo "uftrace: $($uftrace --version 2>&1 | head -1 | cut -d' ' -f1-2), run at N/$UDIV=$n_uftrace iterations ($UREPEAT times), against plain at the same N, scaled per call"
(( ${#cases[@]} )) && echo "cases:   $(for c in "${cases[@]}"; do printf '%s %s %s  ' "$c" "${CASE_N[$c]}" "${CASE_ARGS[$c]}"; done)(issue 28: program arguments; in the same rounds)"
echo

# Warm-up (page cache, CPU frequency), not measured.
"$plain_prog" 1000 >/dev/null
"$callprof" record -q -o "$tmp/warm.callprof" -- "$prog" 1000 >/dev/null

for (( r = 1; r <= REPEAT; r++ )); do
  [[ -t 2 ]] && printf '\rround %d/%d ...' "$r" "$REPEAT" >&2
  # Start-up and post-processing alone (0 iterations), for the 'fixed' column.
  run_one plain_0 0 - "$plain_prog" 0
  run_one callprof_0 0 "$tmp/zero.callprof" "$callprof" record -q --no-auto-fold -o "$tmp/zero.callprof" -- "$prog" 0
  [[ $WITH_UFTRACE == 1 ]] && run_one uftrace_0 0 "$tmp/uftrace0.data" "$uftrace" record -d "$tmp/uftrace0.data" "$prog" 0
  run_one plain "$N" - "$plain_prog" "$N"
  run_one nop "$N" - "$prog" "$N"
  run_one floor "$N" - env LD_PRELOAD="$floor_lib" "$prog" "$N"
  run_one callprof "$N" "$cp_profile" "$callprof" record -q --no-auto-fold -o "$cp_profile" -- "$prog" "$N"
  run_one callprof_nooff "$N" "$tmp/nooff.callprof" "$callprof" record -q --no-auto-fold --no-offcpu -o "$tmp/nooff.callprof" -- "$prog" "$N"
  run_one callprof_excl "$N" "$tmp/excl.callprof" "$callprof" record -q --no-auto-fold --include '^main$' -o "$tmp/excl.callprof" -- "$prog" "$N"
  run_one callprof_tl "$N" "$tmp/tl.callprof" "$callprof" record -q --no-auto-fold --timeline -o "$tmp/tl.callprof" -- "$prog" "$N"
  run_one callprof_tl0 "$N" "$tmp/tl0.callprof" "$callprof" record -q --no-auto-fold --timeline --timeline-min-duration 0 -o "$tmp/tl0.callprof" -- "$prog" "$N"
  run_one callprof_fold "$N" "$tmp/fold.callprof" "$callprof" record -q -o "$tmp/fold.callprof" -- "$prog" "$N"
  run_one callprof_fold_all "$N" "$tmp/foldall.callprof" "$callprof" record -q --auto-fold all -o "$tmp/foldall.callprof" -- "$prog" "$N"
  run_one callprof_ordered "$N" "$tmp/ordered.callprof" "$callprof" record -q --no-auto-fold --ordered-clock -o "$tmp/ordered.callprof" -- "$prog" "$N"
  [[ -n $RT_BEFORE ]] && run_one callprof_before "$N" "$tmp/before.callprof" env CALLPROF_RUNTIME="$RT_BEFORE" "$callprof" record -q --no-auto-fold -o "$tmp/before.callprof" -- "$prog" "$N"
  [[ -n $CP_BEFORE ]] && run_one callprof_before "$N" "$tmp/before.callprof" "$CP_BEFORE" record -q -o "$tmp/before.callprof" -- "$prog" "$N"
  run_one plain_small "$n_small" - "$plain_prog" "$n_small"
  run_one callprof_small "$n_small" "$cp_profile_small" "$callprof" record -q --no-auto-fold -o "$cp_profile_small" -- "$prog" "$n_small"
  if [[ $WITH_UFTRACE == 1 && r -le UREPEAT ]]; then
    if (( n_uftrace != n_small )); then run_one plain_uftrace "$n_uftrace" - "$plain_prog" "$n_uftrace"; fi
    run_one uftrace "$n_uftrace" "$uf_dir" "$uftrace" record -d "$uf_dir" "$prog" "$n_uftrace"
    # Its trace is written back to disk after it exits: not its time, and not the next run's.
    rm -rf "$uf_dir"; sync
  fi
  for c in "${cases[@]}"; do
    cn=${CASE_N[$c]}
    read -r -a ca <<<"${CASE_ARGS[$c]}"
    run_one "$c:plain" "$cn" - "$build/bench/${c}_plain" "$cn" "${ca[@]}"
    run_one "$c:nop" "$cn" - "$build/bench/$c" "$cn" "${ca[@]}"
    run_one "$c:floor" "$cn" - env LD_PRELOAD="$floor_lib" "$build/bench/$c" "$cn" "${ca[@]}"
    [[ -e $path_floor_lib ]] && run_one "$c:pathfloor" "$cn" - env LD_PRELOAD="$path_floor_lib" "$build/bench/$c" "$cn" "${ca[@]}"
    run_one "$c:callprof" "$cn" "$tmp/$c.callprof" "$callprof" record -q --no-auto-fold -o "$tmp/$c.callprof" -- "$build/bench/$c" "$cn" "${ca[@]}"
    run_one "$c:default" "$cn" "$tmp/$c-default.callprof" "$callprof" record -q -o "$tmp/$c-default.callprof" -- "$build/bench/$c" "$cn" "${ca[@]}"
    [[ -n $RT_BEFORE ]] && run_one "$c:before" "$cn" "$tmp/$c-before.callprof" env CALLPROF_RUNTIME="$RT_BEFORE" "$callprof" record -q --no-auto-fold -o "$tmp/$c-before.callprof" -- "$build/bench/$c" "$cn" "${ca[@]}"
  done
done
[[ -t 2 ]] && printf '\r%*s\r' 30 '' >&2

# ---------------------------------------------------------------------------------------
# Checks: same checksum as the plain run of the same size (the hooks did not change what
# the program computed).
for v in "${!CHECKSUM[@]}"; do
  if [[ $v == *:* ]]; then
    [[ ${CHECKSUM[$v]} == "${CHECKSUM[${v%%:*}:plain]}" ]] || die "$v: checksum ${CHECKSUM[$v]} differs from ${v%%:*}:plain's ${CHECKSUM[${v%%:*}:plain]}"
    continue
  fi
  for base in plain plain_small plain_uftrace; do
    [[ -n ${CHECKSUM[$base]:-} && ${ITERS[$base]} == "${ITERS[$v]}" ]] || continue
    [[ ${CHECKSUM[$v]} == "${CHECKSUM[$base]}" ]] || die "$v: checksum ${CHECKSUM[$v]} differs from $base's ${CHECKSUM[$base]}"
  done
done

declare -A WALL ADDED CPU ADDED_CPU CPU_MIN ADDED_CPU_MIN
for v in "${!WALLS[@]}"; do
  WALL[$v]=$(median "${WALLS[$v]}"); CPU[$v]=$(median "${CPUS[$v]}"); CPU_MIN[$v]=$(minimum "${CPUS[$v]}")
done
baseline_of() {
  case $1 in
    plain|nop|floor|callprof|callprof_nooff|callprof_excl|callprof_tl|callprof_tl0|callprof_fold|callprof_fold_all|callprof_ordered|callprof_before) echo plain ;;
    plain_0|callprof_0|uftrace_0) echo plain_0 ;;
    plain_small|callprof_small) echo plain_small ;;
    uftrace) (( n_uftrace == n_small )) && echo plain_small || echo plain_uftrace ;;
    plain_uftrace) echo plain_uftrace ;;
    *:*) echo "${1%%:*}:plain" ;;   # a case (BENCH_CASES): its own plain build
  esac
}
for v in "${!WALL[@]}"; do
  b=$(baseline_of "$v")
  ADDED[$v]=$(calc "(${WALL[$v]} - ${WALL[$b]}) * 1e9 / ${CALLS[$v]}")
  ADDED_CPU[$v]=$(calc "(${CPU[$v]} - ${CPU[$b]}) * 1e9 / ${CALLS[$v]}")
  ADDED_CPU_MIN[$v]=$(calc "(${CPU_MIN[$v]} - ${CPU_MIN[$b]}) * 1e9 / ${CALLS[$v]}")
done
# Fixed cost: the variant's run with 0 iterations minus the plain run with 0 iterations.
fixed_of() {
  case $1 in
    callprof|callprof_small|callprof_nooff|callprof_excl|callprof_tl|callprof_tl0|callprof_fold|callprof_fold_all|callprof_ordered|callprof_before) calc "(${WALL[callprof_0]} - ${WALL[plain_0]}) * 1e3" ;;
    uftrace) calc "(${WALL[uftrace_0]} - ${WALL[plain_0]}) * 1e3" ;;
    *) echo - ;;
  esac
}

label() {
  case $1 in
    plain) echo "plain (no hooks)" ;;
    nop) echo "glibc no-op hooks" ;;
    floor) echo "floor (2x rdtsc)" ;;
    callprof) echo "callprof record" ;;
    callprof_nooff) echo "  --no-offcpu" ;;
    callprof_excl) echo "  all but main excluded" ;;
    callprof_tl) echo "  --timeline" ;;
    callprof_tl0) echo "  --timeline, min 0" ;;
    callprof_fold) echo "  auto-fold (default)" ;;
    callprof_fold_all) echo "  --auto-fold all" ;;
    callprof_ordered) echo "  --ordered-clock" ;;
    callprof_before) echo "  runtime before" ;;
    plain_small) echo "plain N/10" ;;
    callprof_small) echo "callprof record N/10" ;;
    plain_uftrace) echo "plain N/$UDIV" ;;
    uftrace) echo "uftrace record N/$UDIV" ;;
  esac
}
spread() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1; v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; s = 0; if (m > 0) s = (hi - lo) / m * 100; printf "%.0f%%", s }'; }
hdr='%-22s %10s %7s %6s %7s %6s %7s %7s %6s %6s %6s %6s %10s\n'
printf "$hdr" "" "" "wall" "" "added" "" "cpu" "added" "" "fixed" "prog" "peak" "profile"
printf "$hdr" variant calls "s" spread "ns/call" "xfloor" "s" "ns/call" "xfloor" "ms" "RSS" "RSS" "bytes"
order=(plain nop floor callprof callprof_nooff callprof_excl callprof_tl callprof_tl0 callprof_fold callprof_fold_all callprof_ordered)
[[ -n $RT_BEFORE || -n $CP_BEFORE ]] && order+=(callprof_before)
order+=(plain_small callprof_small)
[[ $WITH_UFTRACE == 1 ]] && { (( n_uftrace != n_small )) && order+=(plain_uftrace); order+=(uftrace); }
for v in "${order[@]}"; do
  added=$(fmt '%.2f' "${ADDED[$v]}"); ratio=$(fmt '%.2f' "$(calc "${ADDED[$v]} / ${ADDED[floor]}")")
  cadded=$(fmt '%.2f' "${ADDED_CPU[$v]}"); cratio=$(fmt '%.2f' "$(calc "${ADDED_CPU[$v]} / ${ADDED_CPU[floor]}")")
  case $v in plain|plain_small|plain_uftrace) added=-; ratio=-; cadded=-; cratio=- ;; esac
  size=-; [[ -n ${SIZE[$v]:-} ]] && size=$(median "${SIZE[$v]}")
  fixed=$(fixed_of "$v"); [[ $fixed == - ]] || fixed=$(fmt '%.0f' "$fixed")
  printf "$hdr" "$(label "$v")" "${CALLS[$v]}" "$(fmt '%.3f' "${WALL[$v]}")" "$(spread "${WALLS[$v]}")" "$added" "$ratio" \
    "$(fmt '%.3f' "${CPU[$v]}")" "$cadded" "$cratio" "$fixed" "$(median "${RSS_PROG[$v]}")" "$(median "${RSS_ALL[$v]}")" "$size"
done
echo "  wall s: median wall time; spread: (max - min) / median over the runs. added ns/call: (median - median of"
echo "  plain at the same N) / calls; xfloor: added / the floor's added. cpu: the same with user+sys CPU time of the"
echo "  whole command (less disturbed by other load on the machine; counts uftrace's writer in parallel too)."
echo "  fixed: start-up and post-processing alone (0 iterations, minus plain's); included in 'added', spread over"
echo "  the calls. prog RSS: the program's own peak in KiB (getrusage at the end of main); peak RSS: the whole"
echo "  command's (GNU time %M: max over the recorder and the program)."
[[ $WITH_UFTRACE == 1 && $UDIV != 1 ]] && echo "  uftrace ran N/$UDIV iterations (it writes a record per entry and exit, ~32 bytes per call: GBs at full N);" \
  && echo "  its cost is per call, against plain at the same N."
echo

verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "MISS" }'; }
echo "Targets (SPEC §6): verdict on median wall time; [median cpu time; least disturbed run: minimum cpu time]"
r1=$(calc "${ADDED[callprof]} / ${ADDED[floor]}"); c1=$(calc "${ADDED_CPU[callprof]} / ${ADDED_CPU[floor]}")
m1=$(calc "${ADDED_CPU_MIN[callprof]} / ${ADDED_CPU_MIN[floor]}")
printf '  callprof added / floor added   = %5.3f  (target <= 1.30)  %s   %.2f vs %.2f ns/call   [cpu %.3f %s; min cpu %.3f %s]\n' \
  "$r1" "$(verdict "$r1" '<=' 1.3)" "${ADDED[callprof]}" "${ADDED[floor]}" "$c1" "$(verdict "$c1" '<=' 1.3)" \
  "$m1" "$(verdict "$m1" '<=' 1.3)"
if [[ $WITH_UFTRACE == 1 ]]; then
  r2=$(calc "${ADDED[uftrace]} / ${ADDED[callprof]}"); c2=$(calc "${ADDED_CPU[uftrace]} / ${ADDED_CPU[callprof]}")
  m2=$(calc "${ADDED_CPU_MIN[uftrace]} / ${ADDED_CPU_MIN[callprof]}")
  printf '  uftrace added / callprof added = %5.3f  (target >= 3.00)  %s   %.2f vs %.2f ns/call  [cpu %.3f %s; min cpu %.3f %s]\n' \
    "$r2" "$(verdict "$r2" '>=' 3)" "${ADDED[uftrace]}" "${ADDED[callprof]}" "$c2" "$(verdict "$c2" '>=' 3)" \
    "$m2" "$(verdict "$m2" '>=' 3)"
else
  echo "  uftrace added / callprof added: not measured (BENCH_UFTRACE=0 or no uftrace)"
fi
echo

within() { awk -v a="$1" -v b="$2" 'BEGIN { d = (b - a) / a * 100; printf "%+.1f %%  %s", d, (d <= 10 && d >= -10) ? "PASS" : "MISS" }'; }
echo "Options (added ns/call against the same plain run; median wall [median cpu])"
printf '  off-CPU accounting (callprof - --no-offcpu)  %6.2f ns/call  [%6.2f]\n' \
  "$(calc "${ADDED[callprof]} - ${ADDED[callprof_nooff]}")" "$(calc "${ADDED_CPU[callprof]} - ${ADDED_CPU[callprof_nooff]}")"
printf '  an excluded call (--include ^main$)          %6.2f ns/call  [%6.2f]  = %.2f x the floor\n' \
  "${ADDED[callprof_excl]}" "${ADDED_CPU[callprof_excl]}" "$(calc "${ADDED[callprof_excl]} / ${ADDED[floor]}")"
printf '  --timeline, calls below 10 us (callprof_tl - callprof)   %6.2f ns/call  [%6.2f]\n' \
  "$(calc "${ADDED[callprof_tl]} - ${ADDED[callprof]}")" "$(calc "${ADDED_CPU[callprof_tl]} - ${ADDED_CPU[callprof]}")"
printf '  --timeline-min-duration 0: every call on the ring        %6.2f ns/call  [%6.2f]\n' \
  "$(calc "${ADDED[callprof_tl0]} - ${ADDED[callprof]}")" "$(calc "${ADDED_CPU[callprof_tl0]} - ${ADDED_CPU[callprof]}")"
printf '  a default recording (auto-fold of inlined copies: none here) %6.2f ns/call  [%6.2f]  = %.2f x the floor\n' \
  "${ADDED[callprof_fold]}" "${ADDED_CPU[callprof_fold]}" "$(calc "${ADDED[callprof_fold]} / ${ADDED[floor]}")"
printf '  a call of a folded function (--auto-fold all)           %6.2f ns/call  [%6.2f]  = %.2f x the floor\n' \
  "${ADDED[callprof_fold_all]}" "${ADDED_CPU[callprof_fold_all]}" "$(calc "${ADDED[callprof_fold_all]} / ${ADDED[floor]}")"
printf '  --ordered-clock: an lfence before each return'"'"'s clock read %6.2f ns/call  [%6.2f]  = %.2f x the floor\n' \
  "$(calc "${ADDED[callprof_ordered]} - ${ADDED[callprof]}")" "$(calc "${ADDED_CPU[callprof_ordered]} - ${ADDED_CPU[callprof]}")" \
  "$(calc "${ADDED[callprof_ordered]} / ${ADDED[floor]}")"
if [[ -n $RT_BEFORE || -n $CP_BEFORE ]]; then
  printf '  this runtime without --timeline - the one before        %6.2f ns/call  [%6.2f]  (%s)\n' \
    "$(calc "${ADDED[callprof]} - ${ADDED[callprof_before]}")" "$(calc "${ADDED_CPU[callprof]} - ${ADDED_CPU[callprof_before]}")" "${RT_BEFORE:-$CP_BEFORE}"
fi
echo

echo "Run length 10x (callprof record, N/10=$n_small vs N=$N iterations; target: within +-10 %)"
s_small=$(median "${SIZE[callprof_small]}"); s_big=$(median "${SIZE[callprof]}")
p_small=$(median "${RSS_PROG[callprof_small]}"); p_big=$(median "${RSS_PROG[callprof]}")
a_small=$(median "${RSS_ALL[callprof_small]}"); a_big=$(median "${RSS_ALL[callprof]}")
printf '  profile size         %10s -> %10s bytes  %s\n' "$s_small" "$s_big" "$(within "$s_small" "$s_big")"
printf '  program peak RSS     %10s -> %10s KiB    %s\n' "$p_small" "$p_big" "$(within "$p_small" "$p_big")"
printf '  record peak RSS      %10s -> %10s KiB    %s\n' "$a_small" "$a_big" "$(within "$a_small" "$a_big")"
echo

echo "Exact call count (callprof report --json: summary.calls and the sum of functions[].calls)"
json=$tmp/report.json
status=0   # exit 1 when a call count is wrong (deterministic); timing verdicts never fail the run
for v in callprof_small callprof; do
  f=$cp_profile; [[ $v == callprof_small ]] && f=$cp_profile_small
  "$callprof" report -i "$f" --json >"$json" || die "callprof report failed on $f"
  got=$(jq '.summary.calls' "$json"); got_f=$(jq '[.functions[].calls] | add' "$json")
  truth=${CALLS[$v]}
  dropped=$(jq '[.threads[].dropped_calls] | add' "$json")
  st=MISMATCH; [[ $got == "$truth" && $got_f == "$truth" ]] && st=EXACT
  [[ $st == EXACT ]] || status=1
  printf '  %-21s profile %11s (functions %11s)  truth %11s  dropped %s  %s\n' "$(label "$v")" "$got" "$got_f" "$truth" "$dropped" "$st"
done
# Informational: SPEC §6 compensation bar (main's reported total vs the plain run time).
main_ns=$(jq '[.functions[] | select(.name == "main") | .total_ns] | add // 0' "$json")
plain_s=${WALL[plain]}
echo
echo "Compensation (SPEC §6, informational): main's reported total $(fmt '%.3f' "$(calc "$main_ns / 1e9")") s" \
     "vs plain run $(fmt '%.3f' "$plain_s") s ($(fmt '%+.1f' "$(calc "($main_ns / 1e9 - $plain_s) / $plain_s * 100")") %; target within 15 %)"

# ---------------------------------------------------------------------------------------
# The cases of real programs (issue 28), each against its own plain build and the floor
# hooks in the same rounds.
if (( ${#cases[@]} )); then
  echo
  echo "Cases of real programs (issue 28; BENCH_CASES): added ns/call against the case's own plain build, xfloor: over"
  echo "the floor's added on the same case; loop cpu: the program's own CPU time of its loop (leaves out start-up and"
  echo "writing the profile, which a large tree makes long)"
  chdr='%-36s %11s %7s %6s %7s %6s %7s %7s %6s %8s %7s %6s\n'
  for c in "${cases[@]}"; do
    "$callprof" report -i "$tmp/$c.callprof" --json >"$json" || die "callprof report failed on $tmp/$c.callprof"
    got=$(jq '.summary.calls' "$json"); nodes=$(jq '.summary.nodes' "$json")
    truth=${CALLS[$c:callprof]}
    st=MISMATCH; [[ $got == "$truth" ]] && st=EXACT
    [[ $st == EXACT ]] || status=1
    case $c in
      recursive) what="80.6 % of the calls in a recursive fib" ;;
      manypaths) what="512 functions, deep varied paths" ;;
    esac
    echo
    echo "$c ${CASE_N[$c]} ${CASE_ARGS[$c]}: $what; $truth calls; profile: $got calls ($st), $nodes nodes ($(fmt '%.1f' "$(calc "$nodes * 64 / 1048576")") MiB of nodes)"
    printf "$chdr" "" "" "wall" "" "added" "" "cpu" "added" "" "loop cpu" "added" ""
    printf "$chdr" variant calls "s" spread "ns/call" "xfloor" "s" "ns/call" "xfloor" "s" "ns/call" "xfloor"
    variants=(plain nop floor)
    [[ -n ${WALLS[$c:pathfloor]:-} ]] && variants+=(pathfloor)
    variants+=(callprof default)
    [[ -n $RT_BEFORE ]] && variants+=(before)
    for v in "${variants[@]}"; do
      k=$c:$v
      lc=$(median "${LOOP_CPUS[$k]}")
      added=-; ratio=-; cadded=-; cratio=-; ladded=-; lratio=-
      if [[ $v != plain ]]; then
        added=$(fmt '%.2f' "${ADDED[$k]}"); ratio=$(fmt '%.2f' "$(calc "${ADDED[$k]} / ${ADDED[$c:floor]}")")
        cadded=$(fmt '%.2f' "${ADDED_CPU[$k]}"); cratio=$(fmt '%.2f' "$(calc "${ADDED_CPU[$k]} / ${ADDED_CPU[$c:floor]}")")
        la=$(calc "($lc - $(median "${LOOP_CPUS[$c:plain]}")) * 1e9 / ${CALLS[$k]}")
        lf=$(calc "($(median "${LOOP_CPUS[$c:floor]}") - $(median "${LOOP_CPUS[$c:plain]}")) * 1e9 / ${CALLS[$k]}")
        ladded=$(fmt '%.2f' "$la"); lratio=$(fmt '%.2f' "$(calc "$la / $lf")")
      fi
      case $v in
        plain) l="plain (no hooks)" ;; nop) l="glibc no-op hooks" ;; floor) l="floor (2x rdtsc)" ;;
        pathfloor) l="path floor (+ the path's record)" ;;
        callprof) l="callprof record --no-auto-fold" ;; default) l="  callprof record (default options)" ;;
        before) l="  the runtime before, --no-auto-fold" ;;
      esac
      printf "$chdr" "$l" "${CALLS[$k]}" "$(fmt '%.3f' "${WALL[$k]}")" "$(spread "${WALLS[$k]}")" "$added" "$ratio" \
        "$(fmt '%.3f' "${CPU[$k]}")" "$cadded" "$cratio" "$(fmt '%.3f' "$lc")" "$ladded" "$lratio"
    done
  done
  echo
  echo "Cases against the floor (issue 28 target: callprof --no-auto-fold added <= 1.2 x the floor's on every case):"
  for c in "${cases[@]}"; do
    r=$(calc "${ADDED[$c:callprof]} / ${ADDED[$c:floor]}"); rc=$(calc "${ADDED_CPU[$c:callprof]} / ${ADDED_CPU[$c:floor]}")
    lc_p=$(median "${LOOP_CPUS[$c:plain]}")
    rl=$(calc "($(median "${LOOP_CPUS[$c:callprof]}") - $lc_p) / ($(median "${LOOP_CPUS[$c:floor]}") - $lc_p)")
    printf '  %-10s callprof added / floor added = %5.2f  %s   %.2f vs %.2f ns/call   [cpu %.2f %s; loop cpu %.2f %s]\n' \
      "$c" "$r" "$(verdict "$r" '<=' 1.2)" "${ADDED[$c:callprof]}" "${ADDED[$c:floor]}" "$rc" "$(verdict "$rc" '<=' 1.2)" \
      "$rl" "$(verdict "$rl" '<=' 1.2)"
  done
  if [[ -e $path_floor_lib ]]; then
    echo "Cases against the path floor (informational: the floor plus one update of the call's path record, hashed,"
    echo "the least any exact per-path profiler pays; path floor / floor says what the tree's memory costs alone):"
    for c in "${cases[@]}"; do
      r=$(calc "${ADDED[$c:callprof]} / ${ADDED[$c:pathfloor]}"); rc=$(calc "${ADDED_CPU[$c:callprof]} / ${ADDED_CPU[$c:pathfloor]}")
      pf=$(calc "${ADDED[$c:pathfloor]} / ${ADDED[$c:floor]}")
      printf '  %-10s callprof added / path floor added = %5.2f   %.2f vs %.2f ns/call   [cpu %.2f]   path floor / floor = %.2f\n' \
        "$c" "$r" "${ADDED[$c:callprof]}" "${ADDED[$c:pathfloor]}" "$rc" "$pf"
    done
  fi
fi
exit $status
