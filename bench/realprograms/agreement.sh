#!/usr/bin/env bash
# Does exact mode say where the CPU goes as sampling the plain build does? (issue 27.6)
# On the Lua interpreter, zstd and SQLite (the builds of run.sh), per compiler, the distance
# between self-time distributions over functions (total variation: half the sum of the
# absolute differences of the shares; 0 = the same ranking and shares, 1 = disjoint)
# between a sampling profile of the plain build (the reference) and:
#   plain      a second sampling profile of the plain build: the noise floor
#   exact      exact mode's self time (wall, compensated)
#   ordered    the same with --ordered-clock
#   samples    samples inside exact mode (record -F: each under its exact node; the
#              runtime's own samples left out), self samples per function
#   samples-all  the same with --auto-fold all (tiny functions folded, their hooks removed)
#   all-noinl  samples-all compared as the issue asks, "--no-inline where the plain build
#              inlines": inlined frames, and the functions the plain build has only as
#              inlined frames, counted in their callers on both sides
#   patch-noinl  all-noinl on the attachable build (-fpatchable-function-entry, no hooks:
#              with GCC, only the calls left after inlining), recorded from its start
# and the cost of those samples: the CPU time exact mode -F 999 adds to exact mode, against
# what sampling mode at 999 Hz adds to the plain build (interleaved rounds, medians).
# Function names are compared with GCC's clone suffixes (.part.N, .isra.N, .constprop.N,
# .cold) removed and every kernel function as one [kernel]: the builds differ in cloning.
# Usage: bench/realprograms/agreement.sh [BUILD_DIR]
#   BENCH_PROGRAMS="lua zstd sqlite"  BENCH_COMPILERS="gcc clang"
#   BENCH_AGREE_HZ=9999        the distributions' sampling rate (more samples, less noise)
#   BENCH_ROUNDS=3             rounds of the cost measurement
#   BENCH_LUA_SCALE=1  BENCH_ZSTD_KIB=16384  BENCH_SQLITE_ROWS=40000  BENCH_CACHE=/var/tmp/callprof-bench  BENCH_FETCH=1
# Exit status: 0 (whatever the numbers), 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
PROGRAMS=${BENCH_PROGRAMS:-lua zstd sqlite}
COMPILERS=${BENCH_COMPILERS:-gcc clang}
HZ=${BENCH_AGREE_HZ:-9999}
ROUNDS=${BENCH_ROUNDS:-3}
LUA_SCALE=${BENCH_LUA_SCALE:-1}
ZSTD_KIB=${BENCH_ZSTD_KIB:-16384}
SQLITE_ROWS=${BENCH_SQLITE_ROWS:-40000}
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
sqlite_input=
[[ " $PROGRAMS " == *" sqlite "* ]] && sqlite_input=$(sqlite_input_of "$SQLITE_ROWS")

# The distance between two profiles' self distributions: tv A METRIC_A B METRIC_B [inline]
# With "inline", the comparison is the issue's "--no-inline where the plain build inlines":
# per tree node, self samples go to the nearest caller that is neither an inlined frame nor
# a function that B (the plain build) has only as inlined frames, on both sides; GCC's
# instrumented build keeps out of line some functions the plain build inlines.
tv() {
  python3 - "$callprof" "$@" <<'PY'
import json, re, subprocess, sys
callprof = sys.argv[1]
def load(path):
    return json.loads(subprocess.run([callprof, "report", "-i", path, "--json"], capture_output=True, text=True,
                                     check=True).stdout)
def namer(doc):
    functions = {f["name"]: f for f in doc["functions"]}
    def name(n):
        f = functions.get(n, {})
        if n == "[kernel]" or f.get("kind") == "kernel" or (f.get("module") or "").startswith("[kernel"):
            return "[kernel]"
        return re.sub(r"(\.(part|isra|constprop|cold|lto_priv)(\.\d+)?)+$", "", n)
    return name
def by_function(doc, metric):
    name, out = namer(doc), {}
    for f in doc["functions"]:
        out[name(f["name"])] = out.get(name(f["name"]), 0) + (f.get(metric) or 0)
    return out
def only_inlined(doc):
    name, inl, out = namer(doc), set(), set()
    def walk(nodes):
        for n in nodes:
            (inl if n.get("inlined") else out).add(name(n["name"]))
            walk(n["children"])
    walk(doc["tree"])
    return inl - out
def by_owner(doc, fold):
    name, out = namer(doc), {}
    def walk(nodes, owner):
        for n in nodes:
            me = name(n["name"])
            if owner is not None and me != "[kernel]" and (n.get("inlined") or me in fold): me = owner
            out[me] = out.get(me, 0) + (n.get("samples") or 0)
            walk(n["children"], me)
    walk(doc["tree"], None)
    return out
def shares(d):
    total = sum(d.values())
    return {k: v / total for k, v in d.items()} if total else {}
a, b = load(sys.argv[2]), load(sys.argv[4])
if len(sys.argv) > 6 and sys.argv[6] == "inline":
    plain_inlined = only_inlined(b)
    x, y = shares(by_owner(a, plain_inlined)), shares(by_owner(b, set()))
else:
    x, y = shares(by_function(a, sys.argv[3])), shares(by_function(b, sys.argv[5]))
print(f"{0.5 * sum(abs(x.get(k, 0) - y.get(k, 0)) for k in set(x) | set(y)):.3f}")
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
row='%-12s %6s %6s %6s %6s %8s %9s %11s %11s   %10s %10s\n'
# shellcheck disable=SC2059
printf "$row" program plain exact ordered samples samp-all all-noinl patch-noinl samples/run "+samples" "+sampling"
for p in $PROGRAMS; do
  for c in $COMPILERS; do
    plain=$(build "$p" "$c" plain); instr=$(build "$p" "$c" instr); patch=$(build "$p" "$c" patch)
    # shellcheck disable=SC2046
    {
      record "$tmp/ref.callprof" --mode sample -F "$HZ" -- $(workload "$p" "$plain")
      record "$tmp/ref2.callprof" --mode sample -F "$HZ" -- $(workload "$p" "$plain")
      record "$tmp/exact.callprof" -- $(workload "$p" "$instr")
      record "$tmp/ordered.callprof" --ordered-clock -- $(workload "$p" "$instr")
      record "$tmp/samples.callprof" -F "$HZ" -- $(workload "$p" "$instr")
      record "$tmp/all.callprof" -F "$HZ" --auto-fold all -- $(workload "$p" "$instr")
      record "$tmp/patch.callprof" -F "$HZ" --auto-fold all -- $(workload "$p" "$patch")
    }
    in_tree=$("$callprof" report -i "$tmp/samples.callprof" --json | python3 -c \
      'import json,sys; s=json.load(sys.stdin)["metadata"]["sampling"]; print(s["samples"]-s["runtime_samples"]-s["unplaced_samples"])')
    d_plain=$(tv "$tmp/ref2.callprof" samples "$tmp/ref.callprof" samples)
    d_exact=$(tv "$tmp/exact.callprof" self_ns "$tmp/ref.callprof" samples)
    d_ordered=$(tv "$tmp/ordered.callprof" self_ns "$tmp/ref.callprof" samples)
    d_samples=$(tv "$tmp/samples.callprof" samples "$tmp/ref.callprof" samples)
    d_all=$(tv "$tmp/all.callprof" samples "$tmp/ref.callprof" samples)
    d_all_ni=$(tv "$tmp/all.callprof" samples "$tmp/ref.callprof" samples inline)
    d_patch=$(tv "$tmp/patch.callprof" samples "$tmp/ref.callprof" samples inline)
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
    # shellcheck disable=SC2059
    printf "$row" "$p/$c" "$d_plain" "$d_exact" "$d_ordered" "$d_samples" "$d_all" "$d_all_ni" "$d_patch" "$in_tree" \
      "$add_samples" "$add_sampling"
    echo "             CPU medians: plain ${pl}s, sampled ${sa}s, exact ${ex}s, exact -F 999 ${ef}s" >&2
  done
done
echo
echo "plain: a second sampling profile of the plain build (noise); exact, ordered: exact mode's self time;"
echo "samples, samp-all: samples inside exact mode (default auto-fold, --auto-fold all); all-noinl: samp-all with inlined"
echo "frames and the functions the plain build only inlines counted in their callers, on both sides; patch-noinl: the same"
echo "for the attachable build (-fpatchable-function-entry) recorded from its start; samples/run: the program's"
echo "samples of the 'samples' run (the runtime's own left out); +samples: CPU exact -F 999 adds to exact mode;"
echo "+sampling: CPU sampling mode at 999 Hz adds to the plain build"
