#!/usr/bin/env bash
# What first touching memory costs on this machine, without callprof: a program maps N MiB
# (huge pages advised, as callprof's analysis heap is), writes every byte once and exits.
# "cold" runs after a pause, "warm" right after a run that freed as much. On the project's
# KVM guests the host takes back guest pages that stay free for a few seconds, and the
# next first touch of each costs it again: this is the floor under any view's time that
# touches as much memory (bench/README.md, "Fresh memory").
#
#   bench/analysis/fresh_memory.sh [MIB] [PAUSE_S] [RUNS]    (default 250 6 3)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
mib=${1:-250} pause=${2:-6} runs=${3:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callprof-fresh-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/touch.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char** argv) {
  size_t n = (size_t)atol(argv[1]) << 20;
  char* p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  madvise(p, n, MADV_HUGEPAGE);
  memset(p, 1, n);
  return 0;
}
C
"${BENCH_CC:-cc}" -O2 -o "$tmp/touch" "$tmp/touch.c" || die "cannot build the touch program"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time"
cold= warm=
for (( r = 1; r <= runs; r++ )); do
  sleep "$pause"
  cold+="$(/usr/bin/time -f %e "$tmp/touch" "$mib" 2>&1 >/dev/null) "
  warm+="$(/usr/bin/time -f %e "$tmp/touch" "$mib" 2>&1 >/dev/null) "
done
echo "first touch of $mib MiB (huge pages advised), $runs runs each: cold (after ${pause} s idle) median $(median "$cold") s [$cold], warm median $(median "$warm") s [$warm]"
