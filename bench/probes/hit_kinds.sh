#!/usr/bin/env bash
# Where a uprobe hit's time goes (docs/probes.md, "Placing the probes"): the cost of one
# hit by the probed instruction — single-stepped by the kernel or emulated — and by how
# the probe is consumed: a perf event counting (perf stat), a perf event sampling
# registers, 512 bytes of stack and the callchain as callprof's entries do (perf record),
# a BPF program (bpftrace); and what a uretprobe adds to an entry probe.
#
#   bench/probes/hit_kinds.sh        (root; perf; bpftrace optional)
#
# Builds hit_kinds.c + hit_kinds.S into a scratch directory; defines its uprobes through
# tracefs (group callprof_hitkinds, removed at exit). Each measure is the median over
# BENCH_REPEAT (5) runs of BENCH_N (20000) calls of (loop time with the probe − without) / N.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=${BENCH_N:-20000} REPEAT=${BENCH_REPEAT:-5}
(( EUID == 0 )) || { echo "hit_kinds.sh: needs root" >&2; exit 2; }
command -v perf >/dev/null || { echo "hit_kinds.sh: needs perf" >&2; exit 2; }
tracefs=/sys/kernel/tracing
[[ -w $tracefs/uprobe_events ]] || { echo "hit_kinds.sh: needs tracefs at $tracefs" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-hitkinds-XXXXXX")
group=callprof_hitkinds
cleanup() {
  grep -o "^[pr]:$group/[a-z0-9_]*" "$tracefs/uprobe_events" 2>/dev/null | sed 's/^[pr]:/-:/' |
    while read -r e; do echo "$e" >>"$tracefs/uprobe_events"; done
  rm -rf "$tmp"
}
trap cleanup EXIT
bin=$tmp/hit_kinds
cc -O2 "$script_dir/hit_kinds.c" "$script_dir/hit_kinds.S" -o "$bin"
address() { printf '0x%x' $(( 0x$(nm "$bin" | awk -v f="$1" '$3 == f { print $1 }') + ${2:-0} )); }

# site: label function offset kind
sites=("lea f_lea 0 single-stepped" "ret f_lea 4 single-stepped" "endbr64 f_endbr 0 single-stepped"
  "mov_rdi_rdi f_movrr 0 single-stepped" "nop f_nop 0 emulated" "push_rbx f_push 0 emulated"
  "nopl3 f_nopl 0 emulated" "jmp_rel8 f_jmp 0 emulated" "nopl5 f_nop5 0 optimized")
for s in "${sites[@]}"; do
  read -r label fn off kind <<<"$s"
  echo "p:$group/$label $bin:$(address "$fn" "$off")" >>"$tracefs/uprobe_events"
done
for fn in f_lea f_nop f_push; do  # a uretprobe beside an entry probe
  echo "r:$group/ret_$fn $bin:$(address "$fn")" >>"$tracefs/uprobe_events"
done

elapsed() { grep -o 'elapsed_ns=[0-9]*' | cut -d= -f2; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A R
# measure KEY FUNCTION COMMAND...: one run, added ns per call over the plain loop
measure() {
  local key=$1 fn=$2; shift 2
  local plain probed
  plain=$("$bin" "$fn" "$N" | elapsed)
  probed=$("$@" 2>/dev/null | elapsed) || true
  [[ -n $probed ]] && R[$key]+="$(( (probed - plain) / N )) "
  return 0
}
have_bpftrace=; command -v bpftrace >/dev/null && have_bpftrace=1
echo "hit kinds: $N calls, $REPEAT runs each, medians; kernel $(uname -r), load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for (( r = 0; r < REPEAT; r++ )); do
  for s in "${sites[@]}"; do
    read -r label fn off kind <<<"$s"
    measure "stat $label" "$fn" perf stat -e "$group:$label" -- "$bin" "$fn" "$N"
    measure "record $label" "$fn" perf record -q -o "$tmp/perf.data" -e "$group:$label" --call-graph dwarf,512 -- "$bin" "$fn" "$N"
    [[ -n $have_bpftrace && $off == 0 ]] &&
      measure "bpf $label" "$fn" bpftrace -e "uprobe:$bin:$fn { @ = count(); }" -c "$bin $fn $N"
  done
  for fn in f_lea f_nop f_push; do
    label=$(awk -v f="$fn" '$2 == f && $3 == 0 { print $1 }' < <(printf '%s\n' "${sites[@]}"))
    measure "entry+ret $fn" "$fn" perf stat -e "$group:$label,$group:ret_$fn" -- "$bin" "$fn" "$N"
  done
done
printf '%-14s %-15s %14s %14s %14s\n' site kernel "perf stat ns" "perf record ns" "bpftrace ns"
for s in "${sites[@]}"; do
  read -r label fn off kind <<<"$s"
  printf '%-14s %-15s %14s %14s %14s\n' "$label" "$kind" "$(median "${R[stat $label]:-}")" \
    "$(median "${R[record $label]:-}")" "$(median "${R[bpf $label]:-}")"
done
for fn in f_lea f_nop f_push; do
  label=$(awk -v f="$fn" '$2 == f && $3 == 0 { print $1 }' < <(printf '%s\n' "${sites[@]}"))
  printf 'entry probe + uretprobe on %-7s (%s): %s ns per call, the entry alone %s\n' "$fn" "$label" \
    "$(median "${R[entry+ret $fn]:-}")" "$(median "${R[stat $label]:-}")"
done
