# Shared by the benchmark drivers (bench/*/run.sh): sourced after `set -euo pipefail`.
#   bench_init [BUILD_DIR]   sets script_dir, build, N (BENCH_N), REPEAT (BENCH_REPEAT), callprof
#   die MESSAGE              one line on stderr, exit 2
#   median "v1 v2 ..."       the median of whitespace-separated numbers
#   minimum "v1 v2 ..."      the smallest of them

die() { echo "run.sh: $*" >&2; exit 2; }

bench_init() {
  script_dir=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  build=$(cd "${1:-$script_dir/../../build}" 2>/dev/null && pwd) || die "no build directory ${1:-$script_dir/../../build}"
  N=${BENCH_N:-$2}
  REPEAT=${BENCH_REPEAT:-5}
  callprof=$build/bin/callprof
}

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { tr ' ' '\n' <<<"$1" | grep . | sort -g | head -n1; }
maximum() { tr ' ' '\n' <<<"$1" | grep . | sort -g | tail -n1; }
