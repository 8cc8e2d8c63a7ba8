#!/usr/bin/env bash
# Does exact mode say where the CPU goes as sampling the plain build does? (issue 27.6)
# On the Lua interpreter and zstd (the builds of run.sh), per compiler, the distance
# between self-time distributions over functions (total variation: half the sum of the
# absolute differences of the shares; 0 = the same ranking and shares, 1 = disjoint)
# between a sampling profile of the plain build (the reference) and:
#   plain      a second sampling profile of the plain build: the noise floor
#   exact      exact mode's self time (wall, compensated)
#   ordered    the same with --ordered-clock
#   samples    samples inside exact mode (record -F: each under its exact node; the
#              runtime's own samples left out), self samples per function
#   samples-all  the same with --auto-fold all (tiny functions folded, their hooks removed)
# and the cost of those samples: the CPU time exact mode -F 999 adds to exact mode, against
# what sampling mode at 999 Hz adds to the plain build (interleaved rounds, medians).
# Function names are compared with GCC's clone suffixes (.part.N, .isra.N, .constprop.N,
# .cold) removed and every kernel function as one [kernel]: the builds differ in cloning.
# Usage: bench/realprograms/agreement.sh [BUILD_DIR]
#   BENCH_PROGRAMS="lua zstd"  BENCH_COMPILERS="gcc clang"
#   BENCH_AGREE_HZ=9999        the distributions' sampling rate (more samples, less noise)
#   BENCH_ROUNDS=3             rounds of the cost measurement
#   BENCH_LUA_SCALE=1  BENCH_ZSTD_KIB=16384  BENCH_CACHE=/var/tmp/callprof-bench  BENCH_FETCH=1
# Exit status: 0 (whatever the numbers), 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
PROGRAMS=${BENCH_PROGRAMS:-lua zstd}
COMPILERS=${BENCH_COMPILERS:-gcc clang}
HZ=${BENCH_AGREE_HZ:-9999}
ROUNDS=${BENCH_ROUNDS:-3}
LUA_SCALE=${BENCH_LUA_SCALE:-1}
ZSTD_KIB=${BENCH_ZSTD_KIB:-16384}
cache=${BENCH_CACHE:-/var/tmp/callprof-bench}
jobs=$(nproc)
[[ -x $callprof && -e $build/bin/libcallprof-rt.so ]] || die "build callprof and callprof-rt in $build first"
mkdir -p "$cache/src" "$cache/build" "$cache/input"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-agreement-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$script_dir/builds.sh"

fetch_sources
helper=$cache/build/cputime
if [[ ! -x $helper || $script_dir/cputime.c -nt $helper ]]; then
  cc -O2 -o "$helper" "$script_dir/cputime.c" || die "cannot build cputime.c"
fi
zstd_input=
[[ " $PROGRAMS " == *" zstd "* ]] && zstd_input=$(input_of "$ZSTD_KIB")

# The distance between two profiles' self distributions: tv A METRIC_A B METRIC_B
tv() {
  python3 - "$callprof" "$@" <<'PY'
import json, re, subprocess, sys
callprof = sys.argv[1]
def shares(path, metric):
    doc = json.loads(subprocess.run([callprof, "report", "-i", path, "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    out = {}
    for f in doc["functions"]:
        kernel = f.get("kind") == "kernel" or (f.get("module") or "").startswith("[kernel")
        name = "[kernel]" if kernel else re.sub(r"(\.(part|isra|constprop|cold|lto_priv)(\.\d+)?)+$", "", f["name"])
        out[name] = out.get(name, 0) + (f.get(metric) or 0)
    total = sum(out.values())
    return {k: v / total for k, v in out.items()} if total else {}
a, b = shares(sys.argv[2], sys.argv[3]), shares(sys.argv[4], sys.argv[5])
print(f"{0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)):.3f}")
PY
}

record() {  # record PROFILE OPTIONS... -- COMMAND...
  local out=$1; shift
  "$callprof" record -q -o "$out" "$@" >/dev/null 2>"$tmp/err" || { tail -n 5 "$tmp/err" >&2; die "callprof record $* failed"; }
}
cpu_of() {  # cpu_of COMMAND... -> CPU seconds
  "$helper" "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/err" || { tail -n 5 "$tmp/err" >&2; die "$* failed"; }
  cut -d' ' -f1 "$tmp/time.txt"
}

echo "exact mode against sampling the plain build (bench/realprograms/agreement.sh)"
echo "date:     $(date -Iseconds)   host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "callprof: $callprof ($(git -C "$script_dir" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "distributions sampled at $HZ Hz; cost: $ROUNDS interleaved rounds at 999 Hz, CPU time (user+sys, all processes)"
echo
printf '%-12s %6s %6s %6s %6s %8s %11s   %10s %10s\n' program plain exact ordered samples samp-all samples/run \
  "+samples" "+sampling"
for p in $PROGRAMS; do
  for c in $COMPILERS; do
    plain=$(build "$p" "$c" plain); instr=$(build "$p" "$c" instr)
    # shellcheck disable=SC2046
    {
      record "$tmp/ref.callprof" --mode sample -F "$HZ" -- $(workload "$p" "$plain")
      record "$tmp/ref2.callprof" --mode sample -F "$HZ" -- $(workload "$p" "$plain")
      record "$tmp/exact.callprof" -- $(workload "$p" "$instr")
      record "$tmp/ordered.callprof" --ordered-clock -- $(workload "$p" "$instr")
      record "$tmp/samples.callprof" -F "$HZ" -- $(workload "$p" "$instr")
      record "$tmp/all.callprof" -F "$HZ" --auto-fold all -- $(workload "$p" "$instr")
    }
    in_tree=$("$callprof" report -i "$tmp/samples.callprof" --json | python3 -c \
      'import json,sys; s=json.load(sys.stdin)["metadata"]["sampling"]; print(s["samples"]-s["runtime_samples"]-s["unplaced_samples"])')
    d_plain=$(tv "$tmp/ref2.callprof" samples "$tmp/ref.callprof" samples)
    d_exact=$(tv "$tmp/exact.callprof" self_ns "$tmp/ref.callprof" samples)
    d_ordered=$(tv "$tmp/ordered.callprof" self_ns "$tmp/ref.callprof" samples)
    d_samples=$(tv "$tmp/samples.callprof" samples "$tmp/ref.callprof" samples)
    d_all=$(tv "$tmp/all.callprof" samples "$tmp/ref.callprof" samples)
    # The cost of samples: exact -F 999 over exact, sampling mode over plain, same rounds.
    declare -A cpu=()
    for (( r = 1; r <= ROUNDS; r++ )); do
      # shellcheck disable=SC2046
      {
        cpu[plain]+="$(cpu_of $(workload "$p" "$plain")) "
        cpu[sampled]+="$(cpu_of "$callprof" record -q --mode sample -F 999 -o "$tmp/c.callprof" -- $(workload "$p" "$plain")) "
        cpu[exact]+="$(cpu_of "$callprof" record -q -o "$tmp/c.callprof" -- $(workload "$p" "$instr")) "
        cpu[exactF]+="$(cpu_of "$callprof" record -q -F 999 -o "$tmp/c.callprof" -- $(workload "$p" "$instr")) "
      }
    done
    pl=$(median "${cpu[plain]}"); sa=$(median "${cpu[sampled]}"); ex=$(median "${cpu[exact]}"); ef=$(median "${cpu[exactF]}")
    add_samples=$(awk -v a="$ef" -v b="$ex" 'BEGIN { printf "%+.0f ms", (a - b) * 1000 }')
    add_sampling=$(awk -v a="$sa" -v b="$pl" 'BEGIN { printf "%+.0f ms", (a - b) * 1000 }')
    printf '%-12s %6s %6s %6s %6s %8s %11s   %10s %10s\n' "$p/$c" "$d_plain" "$d_exact" "$d_ordered" "$d_samples" \
      "$d_all" "$in_tree" "$add_samples" "$add_sampling"
    echo "             CPU medians: plain ${pl}s, sampled ${sa}s, exact ${ex}s, exact -F 999 ${ef}s" >&2
  done
done
echo
echo "plain: a second sampling profile of the plain build (noise); exact, ordered: exact mode's self time;"
echo "samples, samp-all: samples inside exact mode (default auto-fold, --auto-fold all); samples/run: the program's"
echo "samples of the 'samples' run (the runtime's own left out); +samples: CPU exact -F 999 adds to exact mode;"
echo "+sampling: CPU sampling mode at 999 Hz adds to the plain build"
