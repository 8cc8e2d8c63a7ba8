#!/bin/sh
# Regenerates the README's and docs' pictures (docs/images/*.png) from a real recording of
# examples/wordfreq: the call graph as `callprof graph` draws it (PNG through Graphviz), the
# flame graph SVG and the web report's tabs in headless Chromium (readme_images.mjs), and the
# web report of the hostile-names profile. Not a test: it writes into the source tree; look
# at the pictures, then commit them.
# Usage: readme_images.sh CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL [IMAGES_DIR]
#   e.g. tests/browser/readme_images.sh build/bin/callprof build/bin/wordfreq build/tests/browser/html_hostile_profile
# Needs node, Chromium (CALLPROF_CHROMIUM, default /usr/bin/chromium) and the npm packages
# (`npm ci --prefix tests/browser`).
set -eu

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: $0 CALLPROF WORDFREQ HOSTILE_PROFILE_TOOL [IMAGES_DIR]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
callprof=$(realpath "$1")
wordfreq=$(realpath "$2")
hostile=$(realpath "$3")
images=$(realpath "${4:-$here/../../docs/images}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A stable command line in the pictures: the example run from its own directory.
cp "$wordfreq" "$work/wordfreq"
(cd "$work" && "$callprof" record -q -o wordfreq.callprof -- ./wordfreq 200000 >/dev/null)
"$callprof" graph -i "$work/wordfreq.callprof" -o "$images/graph.png"
"$callprof" graph -i "$work/wordfreq.callprof" -o "$work/graph.svg"
"$callprof" flame -i "$work/wordfreq.callprof" -o "$work/flame.svg"
"$callprof" html -i "$work/wordfreq.callprof" -o "$work/wordfreq.html"
# The Source tab needs samples: exact mode with -F (the kernel probe; root or CAP_BPF).
(cd "$work" && "$callprof" record -q -F 4999 -o lines.callprof -- ./wordfreq 2000000 >/dev/null)
"$callprof" html -i "$work/lines.callprof" -o "$work/wordfreq-lines.html"
"$hostile" "$work/hostile.callprof"
"$callprof" html -i "$work/hostile.callprof" -o "$work/hostile.html"

cd "$here"
CALLPROF_CHROMIUM=${CALLPROF_CHROMIUM:-/usr/bin/chromium} node readme_images.mjs "$work" "$images"
