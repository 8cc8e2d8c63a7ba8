#!/usr/bin/env bash
# Analysis benchmark: how long each `callprof report` view takes on profiles with 1 M
# calling-context-tree nodes (target: under 1 s per view), next to `uftrace report` and
# `uftrace graph` on a comparable recording, in one run. See bench/README.md.
#
#   bench/analysis/run.sh [BUILD_DIR]     (default: the repository's build/)
#
# 1. profile_synth writes a 1 M-node exact profile and a 1 M-node sampled one (4 threads,
#    5000 functions with C++ names, depth up to 40). Every view of each is timed
#    BENCH_REPEAT times (interleaved), `callprof report -i P --view V -w --no-pager` to
#    /dev/null: best and median wall time, median CPU time (user + sys), peak RSS, PASS/MISS
#    of the best run against the target. Why the best: on this VM, memory fresh to a process
#    costs about 2.8 ms per MB (the host takes back free guest pages, and hands them again
#    on first touch) after another process has freed some, and a view touches 150-350 MB:
#    a run then takes up to 0.7 s longer for reasons outside callprof, which only add. The
#    median beside it shows how often that happened (bench/README.md, "Fresh memory"). "read only" (`--view summary --limit 1`) shows what reading and preparing
#    the profile costs before any view.
# 2. The peer: manypaths.c (cc -O2 -finstrument-functions) makes ~2 M calls on ~1 M distinct
#    call paths. The same binary is recorded by `callprof record` and by `uftrace record
#    --no-libcall`; callprof's views and uftrace's nearest commands are timed on the two
#    recordings, and the ratio callprof / uftrace is printed per view.
# Builds nothing but manypaths (into the scratch directory): build the targets callprof,
# callprof-rt and profile_synth first (the CMake target bench-analysis does both).
#
# Environment:
#   BENCH_NODES=1000000     nodes of the synthetic profiles (all threads together)
#   BENCH_THREADS=4         threads of the synthetic profiles
#   BENCH_FUNCTIONS=5000    functions of the synthetic profiles
#   BENCH_SEED=1            profile_synth's seed
#   BENCH_REPEAT=3          runs of each command (the best counts; the median is shown)
#   BENCH_TARGET=1.0        seconds per view
#   BENCH_FLAME_NODES=350000  call paths of the flame and call graphs' profile (`callprof flame`,
#                           `callprof graph`, target 2 s each; the graph also on the web report's
#                           manypaths recording)
#   BENCH_DEPTH=12          manypaths: call depth (about 2.5^DEPTH calls per walk)
#   BENCH_ROUNDS=2          manypaths: walks per thread (calls grow, paths do not)
#   BENCH_MP_THREADS=2      manypaths: threads
#   BENCH_UFTRACE=1         0: skip the peer comparison
#   BENCH_COLD_PAUSE=6      seconds of idle before each cold run (manypaths' heaviest views)
#   BENCH_PERF=0            1: `perf record -g` the slowest view of the exact profile, print the top
#   BENCH_CC=cc, BENCH_TMP= (scratch directory, default a new one under TMPDIR), BENCH_KEEP=0
# Exit status: 0 whatever the timing verdicts (they depend on the machine's load); 1 when
# callprof's recording of manypaths has the wrong call count; 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
REPEAT=${BENCH_REPEAT:-3}
NODES=${BENCH_NODES:-1000000}
THREADS=${BENCH_THREADS:-4}
FUNCTIONS=${BENCH_FUNCTIONS:-5000}
SEED=${BENCH_SEED:-1}
TARGET=${BENCH_TARGET:-1.0}
DEPTH=${BENCH_DEPTH:-12}
ROUNDS=${BENCH_ROUNDS:-2}
MP_THREADS=${BENCH_MP_THREADS:-2}
WITH_UFTRACE=${BENCH_UFTRACE:-1}
synth=$build/bench/profile_synth
gnu_time=/usr/bin/time
for f in "$callprof" "$build/bin/libcallprof-rt.so" "$synth"; do
  [[ -e $f ]] || die "missing $f (build the targets callprof callprof-rt profile_synth in $build)"
done
[[ -x $gnu_time ]] || die "needs GNU time at $gnu_time (apt-get install time)"
(( REPEAT >= 1 )) || die "BENCH_REPEAT must be at least 1"
if [[ $WITH_UFTRACE == 1 ]] && ! command -v uftrace >/dev/null; then
  echo "run.sh: uftrace not found, skipping the comparison" >&2
  WITH_UFTRACE=0
fi

tmp=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-analysis-XXXXXX")}
mkdir -p "$tmp"
[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------------------
# timed KEY COMMAND...: one run, output to /dev/null. Appends to WALL[KEY], CPU[KEY] and
# keeps the largest RSS[KEY] (KiB). A failing command marks FAILED[KEY] with its first
# stderr line and is not run again.
declare -A WALL CPU RSS FAILED
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
best() { [[ -n ${WALL[$1]:-} ]] && minimum "${WALL[$1]}" || echo -; }
medcpu() { [[ -n ${CPU[$1]:-} ]] && median "${CPU[$1]}" || echo -; }
mib() { [[ -n ${RSS[$1]:-} ]] && awk -v k="${RSS[$1]}" 'BEGIN { printf "%.0f", k / 1024 }' || echo -; }
verdict() { [[ $1 =~ ^[0-9.]+$ ]] || { echo -; return; }; awk -v t="$1" -v g="${2:-$TARGET}" 'BEGIN { print t < g ? "PASS" : "MISS" }'; }
ratio() { [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] || { echo -; return; }; awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), (b > 0 ? a / b : 0) }'; }
size_of() { du -sh "$1" | cut -f1; }

echo "analysis benchmark: callprof report views on ${NODES}-node profiles, target < ${TARGET} s per view"
echo "$REPEAT runs of each command, interleaved; best and median; output to /dev/null; callprof $build"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cpus, kernel $(uname -r), load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------
# 1. Synthetic profiles.
declare -A MID HOT
for mode in exact sample; do
  p=$tmp/synth-$mode.data
  t0=${EPOCHREALTIME/,/.}
  "$synth" --nodes "$NODES" --threads "$THREADS" --functions "$FUNCTIONS" --mode "$mode" --seed "$SEED" -o "$p" \
    >"$tmp/synth.out" 2>"$tmp/synth.err" || { cat "$tmp/synth.err" >&2; die "profile_synth --mode $mode failed"; }
  t1=${EPOCHREALTIME/,/.}
  MID[$mode]=$(sed -n 's/^mid_function=//p' "$tmp/synth.out")
  HOT[$mode]=$(sed -n 's/^hot_function=//p' "$tmp/synth.out")
  printf '%s (%.1f s, %s)\n' "$(sed 's/^profile_synth: //; s|'"$tmp"'/||' "$tmp/synth.err")" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(size_of "$p")"
  echo "  callers-of: $(sed -n 's/^mid_paths=//p' "$tmp/synth.out") paths of ${MID[$mode]}"
  echo "  hot:        $(sed -n 's/^hot_paths=//p' "$tmp/synth.out") paths of ${HOT[$mode]}"
done

# The views: name and arguments (after `callprof report -i P`). @MID@ and @HOT@ stand for
# the profile's mid-frequency and most frequent function.
views=("read only|--view summary --limit 1"
       "flat|--view flat" "callers|--view callers" "tree|--view tree"
       "tree, all rows|--view tree --percent-limit 0"
       "threads|--view threads" "summary|--view summary" "modules|--view modules"
       "callers-of mid|--view callers-of --function @MID@" "callers-of hot|--view callers-of --function @HOT@"
       "callees-of main|--view callees-of --function ^main\$" "callees-of hot|--view callees-of --function @HOT@"
       "json|--json")
# report_args MODE VIEW_SPEC: sets args (the argument array).
report_args() {
  local spec=${2#*|} a toks
  read -ra toks <<<"$spec"
  args=()
  for a in "${toks[@]}"; do
    a=${a//@MID@/"${MID[$1]}"}  # quoted: a name's '&' stays literal (bash 5.2 patsub_replacement)
    args+=("${a//@HOT@/"${HOT[$1]}"}")
  done
}
for (( r = 1; r <= REPEAT; r++ )); do
  for mode in exact sample; do
    for v in "${views[@]}"; do
      report_args "$mode" "$v"
      timed "$mode/${v%%|*}" "$callprof" report -i "$tmp/synth-$mode.data" "${args[@]}" -w --no-pager
    done
  done
done

echo
echo "synthetic profiles: seconds (best wall, median wall, median cpu), peak RSS in MiB, verdict of the best against ${TARGET} s"
printf '%-17s %7s %7s %7s %6s %-5s   %7s %7s %7s %6s %-5s   %s\n' view "exact" median cpu MiB "" "sample" median cpu MiB "" "arguments"
miss=() slow=()
for v in "${views[@]}"; do
  name=${v%%|*} line=
  for mode in exact sample; do
    k=$mode/$name
    if [[ -n ${FAILED[$k]:-} ]]; then
      line+=$(printf '%7s %7s %7s %6s %-5s   ' failed - - - -)
      miss+=("$k: failed: ${FAILED[$k]}")
      continue
    fi
    b=$(best "$k") w=$(med "$k") vd=$(verdict "$(best "$k")")
    [[ $vd == MISS ]] && miss+=("$k: best $b s")
    [[ $vd == PASS && $(verdict "$w") == MISS ]] && slow+=("$k: median $w s")
    line+=$(printf '%7s %7s %7s %6s %-5s   ' "$b" "$w" "$(medcpu "$k")" "$(mib "$k")" "$vd")
  done
  printf '%-17s %s%s\n' "$name" "$line" "${v#*|}"
done
echo "  @MID@: the function at the median of the used functions ranked by paths; @HOT@: the one on most paths."
echo "  Each command: callprof report -i PROFILE ARGUMENTS -w --no-pager >/dev/null."
if (( ${#miss[@]} )); then
  echo "Target (${TARGET} s per view): MISS for ${#miss[@]} of $(( 2 * ${#views[@]} )):"
  printf '  %s\n' "${miss[@]}"
else
  echo "Target (${TARGET} s per view): PASS for every view of both profiles"
fi
(( ${#slow[@]} )) && { echo "  Best under the target, median over it (fresh memory, see above):"; printf '    %s\n' "${slow[@]}"; }
# Cold: the two views that touch the most memory, each after COLD_PAUSE s idle, twice.
COLD_PAUSE=${BENCH_COLD_PAUSE:-6}
for (( r = 1; r <= 2; r++ )); do
  for v in "tree, all rows|--view tree --percent-limit 0" "json|--json"; do
    read -ra ca <<<"${v#*|}"
    sleep "$COLD_PAUSE"
    timed "cold-exact/${v%%|*}" "$callprof" report -i "$tmp/synth-exact.data" "${ca[@]}" -w --no-pager
  done
done
for name in "tree, all rows" json; do
  [[ -n ${FAILED[cold-exact/$name]:-} ]] && { echo "  cold exact $name failed: ${FAILED[cold-exact/$name]}"; continue; }
  printf '  cold (after %s s idle), exact: %-15s best %5s s, median %5s s (cpu %5s s, %s MiB) %s\n' "$COLD_PAUSE" \
    "$name" "$(best "cold-exact/$name")" "$(med "cold-exact/$name")" "$(medcpu "cold-exact/$name")" \
    "$(mib "cold-exact/$name")" "$(verdict "$(best "cold-exact/$name")")"
done

if [[ ${BENCH_PERF:-0} == 1 ]] && command -v perf >/dev/null; then
  slow='' slow_t=0
  for v in "${views[@]}"; do
    w=$(med "exact/${v%%|*}")
    [[ $w != - ]] && awk -v a="$w" -v b="$slow_t" 'BEGIN { exit !(a > b) }' && slow=$v slow_t=$w
  done
  if [[ -n $slow ]]; then
    report_args exact "$slow"
    echo
    echo "perf record -g of the slowest view (${slow%%|*}, $slow_t s), perf report --stdio --no-children:"
    perf record -q -g -o "$tmp/perf.data" -- "$callprof" report -i "$tmp/synth-exact.data" "${args[@]}" -w --no-pager \
      >/dev/null 2>"$tmp/perf.err" || true
    { perf report -i "$tmp/perf.data" --stdio --no-children --sort dso,symbol -g none 2>/dev/null || true; } |
      grep -v '^#' | grep . | sed 's/  *$//' | cut -c1-160 | head -40 || true
  fi
fi

# ---------------------------------------------------------------------------------------
# Flame graph: `callprof flame` on a BENCH_FLAME_NODES-path exact profile (target < 2 s), with
# the SVG's size and how many frames it drew (narrow ones are elided at 0.1 px of 1200 px).
FLAME_NODES=${BENCH_FLAME_NODES:-350000}
fp=$tmp/synth-flame.data
"$synth" --nodes "$FLAME_NODES" --threads "$THREADS" --functions "$FUNCTIONS" --mode exact --seed "$SEED" -o "$fp" \
  >/dev/null 2>"$tmp/synth.err" || { cat "$tmp/synth.err" >&2; die "profile_synth for the flame graph failed"; }
for (( r = 1; r <= REPEAT; r++ )); do timed flame "$callprof" flame -i "$fp" -o "$tmp/flame.svg"; done
echo
if [[ -n ${FAILED[flame]:-} ]]; then
  echo "flame graph, ${FLAME_NODES}-path profile: failed: ${FAILED[flame]}"
else
  "$callprof" flame -i "$fp" -o "$tmp/flame.svg" 2>"$tmp/flame.err" >/dev/null || true
  printf 'flame graph, %s-path profile: %s s (cpu %s s), %s MiB peak, %s against 2 s; SVG %s (%s gzipped); %s\n' \
    "$FLAME_NODES" "$(med flame)" "$(medcpu flame)" "$(mib flame)" "$(TARGET=2 verdict "$(med flame)")" \
    "$(size_of "$tmp/flame.svg")" "$(gzip -c "$tmp/flame.svg" | wc -c | awk '{ printf "%.0fK", $1 / 1024 }')" \
    "$(sed -n 's/^callprof: wrote [^:]*: //p' "$tmp/flame.err")"
fi

# ---------------------------------------------------------------------------------------
# Call graph: `callprof graph` on the flame graph's profile (target < 2 s), split in three:
# "read only" (reading and analysing the profile, what every picture shares), `--format dot`
# (+ the graph as data and its DOT text, no layout) and the SVG (+ Graphviz's layout and
# renderer): layout = svg - dot. Then the dense case: --nodes 0 --edges 0 (every function,
# every edge, up to the layout's hard cap). graph_row KEY LABEL prints one line.
graph_row() {
  local key=$1 label=$2
  if [[ -n ${FAILED[$key]:-} ]]; then
    printf '  %-26s failed: %s\n' "$label" "${FAILED[$key]}"
  else
    printf '  %-26s %6s s (cpu %6s s) %5s MiB\n' "$label" "$(med "$key")" "$(medcpu "$key")" "$(mib "$key")"
  fi
}
# graph_shape DOT: "N nodes, M edges" of callprof's DOT (the legend is not a function).
graph_shape() {
  printf '%s functions, %s edges' "$(grep -c '^  n[0-9]* \[' "$1" || true)" "$(grep -c '^  n[0-9]* -> ' "$1" || true)"
}
# graph_layout DOT_KEY SVG_KEY: the layout's median seconds (svg - dot, 0 at least).
graph_layout() { awk -v a="$(med "$2")" -v b="$(med "$1")" 'BEGIN { d = a - b; printf "%.2f", (d > 0 ? d : 0) }'; }
graph_bench() {  # graph_bench PREFIX PROFILE TITLE
  local k=$1 p=$2 title=$3
  for (( r = 1; r <= REPEAT; r++ )); do
    timed "$k/read" "$callprof" report -i "$p" --view summary --limit 1 -w --no-pager
    timed "$k/dot" "$callprof" graph -i "$p" -o "$tmp/$k.dot"
    timed "$k/svg" "$callprof" graph -i "$p" -o "$tmp/$k.svg"
    timed "$k/all-dot" "$callprof" graph -i "$p" --nodes 0 --edges 0 -o "$tmp/$k-all.dot"
    timed "$k/all-svg" "$callprof" graph -i "$p" --nodes 0 --edges 0 -o "$tmp/$k-all.svg"
  done
  "$callprof" graph -i "$p" -o "$tmp/$k.dot" 2>/dev/null || true
  "$callprof" graph -i "$p" --nodes 0 --edges 0 -o "$tmp/$k-all.dot" 2>"$tmp/$k-all.err" || true
  echo
  echo "call graph, $title: seconds (median wall, median cpu), peak RSS"
  graph_row "$k/read" "read only (report summary)"
  graph_row "$k/dot" "graph --format dot"
  graph_row "$k/svg" "graph (SVG)"
  if [[ -z ${FAILED[$k/svg]:-} ]]; then
    printf '  default: %s against 2 s; layout + render %s s (svg - dot); %s; SVG %s\n' \
      "$(TARGET=2 verdict "$(med "$k/svg")")" "$(graph_layout "$k/dot" "$k/svg")" "$(graph_shape "$tmp/$k.dot")" \
      "$(size_of "$tmp/$k.svg")"
  fi
  graph_row "$k/all-dot" "--nodes 0 --edges 0, dot"
  graph_row "$k/all-svg" "--nodes 0 --edges 0, SVG"
  if [[ -z ${FAILED[$k/all-svg]:-} ]]; then
    printf '  every function and edge: layout + render %s s; %s; SVG %s\n' "$(graph_layout "$k/all-dot" "$k/all-svg")" \
      "$(graph_shape "$tmp/$k-all.dot")" "$(size_of "$tmp/$k-all.svg")"
  fi
  sed -n 's/^callprof: note: /  note: /p' "$tmp/$k-all.err"
}
graph_bench graph "$fp" "${FLAME_NODES}-path synthetic profile (${FUNCTIONS} functions)"

# ---------------------------------------------------------------------------------------
# The web report (callprof html) of a many-paths recording: write time, file size and the
# page's time to interactive in headless Chromium (html_interactive.mjs). Targets: < 3 s,
# < 30 MB, < 3 s. BENCH_HTML_DEPTH=11 gives ~400 k call paths; BENCH_HTML=0 skips this.
if [[ ${BENCH_HTML:-1} == 1 ]]; then
  html_depth=${BENCH_HTML_DEPTH:-11}
  "${BENCH_CC:-cc}" -O2 -g -finstrument-functions -pthread "$script_dir/manypaths.c" -o "$tmp/manypaths" || die "cannot build manypaths.c"
  "$callprof" record -q -o "$tmp/html.data" -- "$tmp/manypaths" "$html_depth" 2 2 >/dev/null || die "callprof record (html) failed"
  paths=$("$callprof" report -i "$tmp/html.data" --view summary --no-pager | awk '$1 == "nodes" { print $2; exit }')
  for (( r = 1; r <= REPEAT; r++ )); do timed html "$callprof" html -i "$tmp/html.data" -o "$tmp/report.html"; done
  echo
  echo "web report of manypaths $html_depth 2 2 ($paths call paths): callprof html -i P -o report.html"
  if [[ -n ${FAILED[html]:-} ]]; then
    echo "  failed: ${FAILED[html]}"
  else
    mb=$(awk -v b="$(stat -c %s "$tmp/report.html")" 'BEGIN { printf "%.1f", b / 1e6 }')
    printf '  write: %s s (cpu %s s, %s MiB peak) %s; file: %s MB %s\n' "$(med html)" "$(medcpu html)" "$(mib html)" \
      "$(verdict "$(med html)" 3)" "$mb" "$(awk -v m="$mb" 'BEGIN { print m < 30 ? "PASS" : "MISS" }')"
    if command -v node >/dev/null && [[ -f $script_dir/../../tests/browser/node_modules/playwright-core/package.json ]]; then
      if tti=$(node "$script_dir/html_interactive.mjs" "$tmp/report.html" "$REPEAT" 2>"$tmp/tti.err"); then
        ready=$(sed -n 's/.*ready_ms=\([0-9]*\).*/\1/p' <<<"$tti")
        echo "  in Chromium (ms, medians): $tti; interactive $(awk -v r="$ready" 'BEGIN { print r < 3000 ? "PASS" : "MISS" }')"
      else
        echo "  time to interactive failed: $(head -n1 "$tmp/tti.err")"
      fi
    else
      echo "  time to interactive: skipped (needs node and 'npm ci --prefix tests/browser')"
    fi
  fi
  # The dense case: 300 functions that all call each other.
  graph_bench mpgraph "$tmp/html.data" "manypaths $html_depth 2 2 ($paths call paths, 300 functions calling each other)"
fi

# ---------------------------------------------------------------------------------------
# 2. The peer: one program recorded by callprof and by uftrace.
[[ $WITH_UFTRACE == 1 ]] || exit 0
prog=$tmp/manypaths
"${BENCH_CC:-cc}" -O2 -g -finstrument-functions -pthread "$script_dir/manypaths.c" -o "$prog" || die "cannot build manypaths.c"
mp_args=("$DEPTH" "$ROUNDS" "$MP_THREADS")
want=$("$prog" "${mp_args[@]}" | sed -n 's/^calls=\([0-9]*\).*/\1/p')
[[ -n $want ]] || die "manypaths printed no calls= line"
cp_data=$tmp/manypaths.data uf_data=$tmp/uftrace.data
t0=${EPOCHREALTIME/,/.}
"$callprof" record -o "$cp_data" -- "$prog" "${mp_args[@]}" >/dev/null 2>"$tmp/record.err" || { cat "$tmp/record.err" >&2; die "callprof record failed"; }
t1=${EPOCHREALTIME/,/.}
uftrace record --no-libcall -d "$uf_data" "$prog" "${mp_args[@]}" >/dev/null 2>"$tmp/uftrace.err" || { cat "$tmp/uftrace.err" >&2; die "uftrace record failed"; }
t2=${EPOCHREALTIME/,/.}
echo
echo "peer: manypaths ${mp_args[*]} (depth, rounds, threads): $want calls"
printf '  callprof record: %.1f s, %s, %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(size_of "$cp_data")" \
  "$(grep -m1 'wrote' "$tmp/record.err" | sed 's/^callprof: //; s|'"$tmp"'/||')"
printf '  uftrace record --no-libcall: %.1f s, %s\n' "$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" "$(size_of "$uf_data")"
status=0
got=$("$callprof" report -i "$cp_data" --view summary --no-pager | awk '$1 == "calls" { print $2; exit }')
if [[ $got == "$want" ]]; then
  echo "  callprof's profile: $got calls: PASS (as the program counted)"
else
  echo "  callprof's profile: $got calls, the program made $want: MISS"
  status=1
fi

# Pairs: name | callprof arguments | uftrace command ("-": no counterpart).
pairs=("read only|--view summary --limit 1|-"
       "flat|--view flat|report"
       "callers|--view callers|-"
       "tree|--view tree|graph"
       "tree, all rows|--view tree --percent-limit 0|graph"
       "threads|--view threads|report --task"
       "summary|--view summary|-"
       "modules|--view modules|-"
       "callers-of f_150|--view callers-of --function ^f_150\$|graph f_150"
       "callees-of main|--view callees-of --function ^main\$|graph main"
       "json|--json|dump --flame-graph")
# Each round runs callprof's views as a block, then uftrace's commands, each block starting
# at a different pair: a command run right after the other tool freed hundreds of MB gets
# cold memory on this VM (see the top), and the best of the rounds is then a warm run for
# every command of both tools. The cold cost itself is measured after the rounds.
for (( r = 1; r <= REPEAT; r++ )); do
  unset ran; declare -A ran  # each uftrace command once per round (tree and all rows share one)
  for (( i = 0; i < ${#pairs[@]}; i++ )); do
    IFS='|' read -r name cargs ucmd <<<"${pairs[(i + r - 1) % ${#pairs[@]}]}"
    read -ra ca <<<"$cargs"
    timed "cp/$name" "$callprof" report -i "$cp_data" "${ca[@]}" -w --no-pager
  done
  for (( i = 0; i < ${#pairs[@]}; i++ )); do
    IFS='|' read -r name cargs ucmd <<<"${pairs[(i + r - 1) % ${#pairs[@]}]}"
    if [[ $ucmd != - && -z ${ran[$ucmd]:-} ]]; then
      ran[$ucmd]=1
      read -r sub rest <<<"$ucmd"
      read -ra ua <<<"$rest"
      timed "uf/$ucmd" uftrace "$sub" -d "$uf_data" --no-pager "${ua[@]}"
    fi
  done
done
# Cold: the two views that touch the most memory, each after COLD_PAUSE s idle.
for p in "tree, all rows|--view tree --percent-limit 0" "json|--json"; do
  IFS='|' read -r name cargs <<<"$p"
  read -ra ca <<<"$cargs"
  sleep "$COLD_PAUSE"
  timed "cold/$name" "$callprof" report -i "$cp_data" "${ca[@]}" -w --no-pager
done
echo "seconds (callprof: best and median wall; uftrace: median wall; median cpu), peak RSS in MiB;"
echo "verdict of callprof's best against ${TARGET} s; ratio = callprof / uftrace (median wall, median cpu)"
printf '%-17s %8s %7s %7s %6s %-5s   %-26s %7s %7s %6s %6s %6s\n' view callprof median cpu MiB "" "uftrace" uftrace cpu MiB ratio "(cpu)"
for p in "${pairs[@]}"; do
  IFS='|' read -r name cargs ucmd <<<"$p"
  k=cp/$name cb=$(best "cp/$name") cw=$(med "cp/$name") cc=$(medcpu "cp/$name")
  [[ -n ${FAILED[$k]:-} ]] && cb=failed cw=failed
  uw=- uc=- um=-
  if [[ $ucmd != - ]]; then
    uw=$(med "uf/$ucmd") uc=$(medcpu "uf/$ucmd") um=$(mib "uf/$ucmd")
    [[ -n ${FAILED[uf/$ucmd]:-} ]] && uw=failed
  fi
  printf '%-17s %8s %7s %7s %6s %-5s   %-26s %7s %7s %6s %6s %6s\n' "$name" "$cb" "$cw" "$cc" "$(mib "$k")" \
    "$(verdict "$cb")" "$([[ $ucmd == - ]] && echo - || echo "uftrace $ucmd")" "$uw" "$uc" "$um" "$(ratio "$cw" "$uw")" \
    "$(ratio "$cc" "$uc")"
done
for k in "${!FAILED[@]}"; do [[ $k == cp/* || $k == uf/* || $k == cold/* ]] && echo "  $k failed: ${FAILED[$k]}"; done
for name in "tree, all rows" json; do
  printf '  cold (after %s s idle): %-15s %5s s (cpu %5s s, %s MiB); warm best %s s\n' "$COLD_PAUSE" "$name" \
    "$(med "cold/$name")" "$(medcpu "cold/$name")" "$(mib "cold/$name")" "$(best "cp/$name")"
done
echo "  The difference is the first touch of fresh memory (bench/analysis/fresh_memory.sh measures it alone)."
echo "  uftrace graph prints every path (like tree, all rows); graph FUNC prints its backtraces and its callees;"
echo "  dump --flame-graph writes every path's time (the export next to --json). read only, callers, summary and"
echo "  modules have no uftrace counterpart (uftrace info reads only the header)."
exit $status
