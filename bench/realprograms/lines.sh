#!/usr/bin/env bash
# Source lines on real programs (issue 27.4; docs/annotate.md): on the Lua interpreter and
# zstd (the builds of run.sh), per compiler, for a sampling profile of the plain build and
# exact mode with samples (record -F) of the instrumented one:
#   what the lines cost   the profile's size against the same recording without lines
#                         (CALLPROF_NO_LINES=1) and the time callprof spends building the
#                         profile (symbolizing), with and without lines
#   what they cost to show  `callprof annotate TOP` (text, --disasm) and `export -f pprof`
#                         against the peer, `go tool pprof -list TOP` on that export
#   whether they agree    the hottest line of the hottest function by annotate and by pprof
# TOP: the function with the most self samples. Times are medians of BENCH_REPEAT runs.
# Usage: bench/realprograms/lines.sh [BUILD_DIR]
#   BENCH_PROGRAMS="lua zstd"  BENCH_COMPILERS="gcc clang"  BENCH_HZ=999  BENCH_REPEAT=3
#   BENCH_LUA_SCALE=1  BENCH_ZSTD_KIB=16384  BENCH_CACHE=/var/tmp/callprof-bench  BENCH_FETCH=1
# Exit status: 0 (whatever the numbers), 2 on errors.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_init "${1:-}" 0
PROGRAMS=${BENCH_PROGRAMS:-lua zstd}
for p in $PROGRAMS; do
  case $p in lua|zstd) ;; *) die "lines.sh: no sources of $p to annotate (lua, zstd; SQLite's amalgamation is made at build time and not kept)" ;; esac
done
COMPILERS=${BENCH_COMPILERS:-gcc clang}
HZ=${BENCH_HZ:-999}
REPEAT=${BENCH_REPEAT:-3}
LUA_SCALE=${BENCH_LUA_SCALE:-1}
ZSTD_KIB=${BENCH_ZSTD_KIB:-16384}
cache=${BENCH_CACHE:-/var/tmp/callprof-bench}
jobs=$(nproc)
[[ -x $callprof && -e $build/bin/libcallprof-rt.so ]] || die "build callprof and callprof-rt in $build first"
go=$(command -v go || true)
[[ -n $go ]] || die "go (Debian: golang-go) is needed for the peer, go tool pprof"
mkdir -p "$cache/src" "$cache/build" "$cache/input"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-bench-lines-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$script_dir/builds.sh"

fetch_sources
zstd_input=
[[ " $PROGRAMS " == *" zstd "* ]] && zstd_input=$(input_of "$ZSTD_KIB")

# record PROFILE OPTIONS... -- COMMAND... ; prints the ms callprof says it spent building.
record() {
  local out=$1; shift
  "$callprof" record -o "$out" "$@" >/dev/null 2>"$tmp/err" || { tail -n 5 "$tmp/err" >&2; die "callprof record $* failed"; }
  sed -n 's/.*building \([0-9.]*\) ms.*/\1/p' "$tmp/err" | tail -n1
}
# ms COMMAND... -> the median wall time of REPEAT runs, in ms (output to /dev/null)
ms() {
  local runs=()
  for (( r = 0; r < REPEAT; r++ )); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>"$tmp/err" || { tail -n 5 "$tmp/err" >&2; die "$* failed"; }
    t1=$(date +%s%N)
    runs+=("$(( (t1 - t0) / 1000000 ))")
  done
  median "${runs[*]}"
}
gopprof() { env HOME="$tmp" GOCACHE="$tmp/gocache" GOTOOLCHAIN=local "$go" tool pprof "$@"; }
# The sources, as the builds saw them (builds.sh deletes its copy): PROGRAM -> directory. The
# recorded paths are BUILD_DIR/src/...: pprof trims that prefix and searches here; callprof
# annotate finds them by their last components (--source-path).
sources_of() {
  local dir=$tmp/sources/$1 tarball
  case $1 in lua) tarball=$lua_tarball ;; zstd) tarball=$zstd_tarball ;; esac
  [[ -d $dir ]] || { mkdir -p "$dir" && tar -xf "$tarball" -C "$dir" --strip-components=1; }
  echo "$dir"
}
# The function with the most self samples, as a regex.
top_function() {
  "$callprof" report -i "$1" --json | python3 -c '
import json, re, sys
fs = [f for f in json.load(sys.stdin)["functions"] if f.get("kind") == "function"]
f = max(fs, key=lambda f: f.get("samples") or 0)
print("^" + re.escape(f["name"]) + "$")'
}
# The hottest known line of `callprof annotate --json`, and of `go tool pprof -list` (flat
# samples; it lists no unknown line: Clang gives line 0 to code merged from several lines).
hot_line_callprof() {
  "$callprof" annotate -i "$1" --json --limit 1 "$2" "${@:3}" | python3 -c '
import json, sys
ls = [l for l in json.load(sys.stdin)["functions"][0]["lines"] if l["line"]]
print(max(ls, key=lambda l: l["samples"])["line"] if ls else 0)'
}
hot_line_pprof() {
  gopprof -list "$2" -sample_index=samples "${@:3}" "$1" 2>/dev/null | python3 -c '
import re, sys
best, line = -1, 0
for text in sys.stdin:
    m = re.match(r"\s*(\S+)\s+\S+\s+(\d+):", text)
    if m and m.group(1) != ".":
        v = float(re.sub(r"[^0-9.]", "", m.group(1)) or 0)
        if v > best: best, line = v, int(m.group(2))
print(line)'
}

echo "source lines on real programs (bench/realprograms/lines.sh)"
echo "date:     $(date -Iseconds)   host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "callprof: $callprof ($(git -C "$script_dir" rev-parse --short HEAD 2>/dev/null || echo '?')); $HZ Hz; medians of $REPEAT"
echo
printf '%-18s %9s %9s %9s %9s %9s %9s %9s %9s %6s\n' profile size no-lines build no-lines annotate disasm export \
  "pprof-l" agree
for p in $PROGRAMS; do
  for c in $COMPILERS; do
    plain=$(build "$p" "$c" plain); instr=$(build "$p" "$c" instr)
    for kind in sample exact; do
      if [[ $kind == sample ]]; then opts=(--mode sample -F "$HZ"); bin=$plain; else opts=(-F "$HZ"); bin=$instr; fi
      # shellcheck disable=SC2046
      b_lines=$(record "$tmp/l.callprof" "${opts[@]}" -- $(workload "$p" "$bin"))
      # shellcheck disable=SC2046
      b_none=$(CALLPROF_NO_LINES=1 record "$tmp/n.callprof" "${opts[@]}" -- $(workload "$p" "$bin"))
      top=$(top_function "$tmp/l.callprof")
      src=(--source-path "$(sources_of "$p")")
      where=(-trim_path "$(dirname "$bin")/src" -source_path "$(sources_of "$p")")
      t_annotate=$(ms "$callprof" annotate -i "$tmp/l.callprof" --no-pager "${src[@]}" "$top")
      t_disasm=$(ms "$callprof" annotate -i "$tmp/l.callprof" --no-pager --disasm "${src[@]}" "$top")
      t_export=$(ms "$callprof" export -i "$tmp/l.callprof" -f pprof -o "$tmp/l.pb.gz")
      t_list=$(ms gopprof -list "$top" -sample_index=samples "${where[@]}" "$tmp/l.pb.gz")
      a=$(hot_line_callprof "$tmp/l.callprof" "$top"); b=$(hot_line_pprof "$tmp/l.pb.gz" "$top" "${where[@]}")
      printf '%-18s %8sK %8sK %7sms %7sms %7sms %7sms %7sms %7sms %6s\n' "$p/$c/$kind" \
        "$(( $(stat -c %s "$tmp/l.callprof") / 1024 ))" "$(( $(stat -c %s "$tmp/n.callprof") / 1024 ))" \
        "${b_lines:-?}" "${b_none:-?}" "$t_annotate" "$t_disasm" "$t_export" "$t_list" \
        "$([[ $a == "$b" ]] && echo "yes" || echo "no:$a/$b")"
      echo "                   top function: $top, hottest line $a" >&2
    done
  done
done
echo
echo "size, no-lines: the profile with source lines and without (CALLPROF_NO_LINES=1); build, no-lines: what callprof"
echo "says it spent symbolizing and building the profile; annotate, disasm: callprof annotate TOP (--disasm);"
echo "export: callprof export -f pprof; pprof-l: go tool pprof -list TOP on that export (the peer); agree: the"
echo "hottest line of TOP by annotate and by pprof -list"
