#!/usr/bin/env bash
# Installs what callprof needs to build, test and benchmark, from Debian 12's packages.
# Idempotent and non-interactive; apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config gcc g++ clang libclang-rt-14-dev
  libdw-dev libelf-dev libzstd-dev protobuf-compiler libprotobuf-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libbpf-dev bpftool libseccomp-dev libre2-dev libiberty-dev libabsl-dev
  # probe mode: exits of a probed function are found by disassembling it (capstone)
  libcapstone-dev
  uftrace time jq linux-perf strace bpftrace
  # scripts/check-deps.py and the graph test's XML check
  python3
  # the tools exports are checked with: go tool pprof (and pprof's schema), callgrind_annotate
  golang-go golang-github-google-pprof-dev valgrind
  # util-linux's script gives the pager test a terminal; the browser tests run Debian's chromium
  bsdutils chromium nodejs
  # the call graph's layout: Graphviz's library (libgvc, libcgraph)
  libgraphviz-dev
  # the flame graph tests parse the SVG as XML (expat)
  libexpat1-dev
  # the man pages are generated from --help (help2man); the install test renders them (man, groff)
  help2man man-db
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs comes without npm (its own package); other node builds include it.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "callprof: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
