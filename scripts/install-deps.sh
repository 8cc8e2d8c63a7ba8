#!/usr/bin/env bash
# Installs what callprof needs from Debian 12's packages: `run` what building and running it
# needs (the demo), `test` (the default) also what the tests and benchmarks need.
# Idempotent and non-interactive; apt-get runs only when something is missing.
set -euo pipefail

# What building and running callprof needs (scripts/demo.sh, scripts/build.sh run).
run_packages=(
  build-essential cmake ninja-build pkg-config gcc g++ python3
  libdw-dev libelf-dev libzstd-dev protobuf-compiler libprotobuf-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libseccomp-dev libre2-dev libiberty-dev libabsl-dev
  # the archives of what libdw and libelf need, linked in with them (cmake/static_deps.cmake)
  libbz2-dev liblzma-dev zlib1g-dev
  # the system-call tracer's eBPF program is compiled with clang and bpftool at build time
  clang libbpf-dev bpftool
  # probe mode: exits of a probed function are found by disassembling it (capstone)
  libcapstone-dev
  # the call graph's layout: Graphviz's library (libgvc, libcgraph)
  libgraphviz-dev
  # pprof's profile.proto, compiled into the pprof export (Go sources only, no Go toolchain)
  golang-github-google-pprof-dev
)
# What the tests and benchmarks add (scripts/test.sh): the test frameworks, the peers and
# the real consumers of the exports, the browser, the fuzzers' runtime.
test_packages=(
  libgtest-dev libgmock-dev libbenchmark-dev libclang-rt-14-dev
  uftrace time jq linux-perf strace bpftrace
  # bench/realprograms makes SQLite's amalgamation from its sources with tclsh
  tcl
  # the tools exports are checked with: go tool pprof, callgrind_annotate
  golang-go valgrind
  # util-linux's script gives the pager test a terminal; the browser tests run Debian's chromium
  bsdutils chromium nodejs
  # the flame graph tests parse the SVG as XML (expat)
  libexpat1-dev
  # the man pages are generated from --help (help2man); the install test renders them (man, groff)
  help2man man-db
  # the debug-info tests serve a stripped program's debug file from a real debuginfod server
  debuginfod
  # every C and C++ file is checked against .clang-format (scripts/check-format.sh)
  clang-format
)

case "${1:-test}" in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 [run|test]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs comes without npm (its own package); other node builds include it.
[ "${1:-test}" = run ] || command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "callprof: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
