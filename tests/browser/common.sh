# common.sh: what the browser tests' run_*.sh share. Sourced first, as
#   . "$(dirname "$0")/common.sh"
# it sets -eu, `here` (this directory, absolute) and `chromium` (CALLPROF_CHROMIUM, default
# /usr/bin/chromium). A missing prerequisite ends the script with exit status 77 (ctest's
# SKIP_RETURN_CODE, tests/browser/CMakeLists.txt) and a "skipped: ..." line: never a silent
# pass.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CALLPROF_CHROMIUM:-/usr/bin/chromium}

# skip WHY...: the test cannot run here.
skip() {
  echo "skipped: $*"
  exit 77
}

# need_args COUNT USAGE: exit status 2 with "usage: SCRIPT USAGE" unless COUNT (the script's $#)
# fits USAGE, whose words in [brackets] are optional.
need_args() {
  given=$1 usage=$2 least=0 most=0
  set -f  # "[NAME]" is a word here, not a pattern
  for word in $usage; do
    most=$((most + 1))
    case $word in \[*) ;; *) least=$((least + 1)) ;; esac
  done
  set +f
  if [ "$given" -lt "$least" ] || [ "$given" -gt "$most" ]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
}

# require_browser [FILE...]: node, Chromium and the npm packages (`npm ci --prefix
# tests/browser`): playwright-core, and each FILE (relative to this directory) another test needs.
require_browser() {
  command -v node >/dev/null 2>&1 || skip "node is not installed"
  [ -x "$chromium" ] || skip "no Chromium at $chromium (set CALLPROF_CHROMIUM to another binary)"
  for file in node_modules/playwright-core/package.json "$@"; do
    [ -f "$here/$file" ] || skip "the npm packages are not installed: run 'npm ci --prefix tests/browser'"
  done
}

# require_tool COMMAND [WHY]: COMMAND is on the PATH (or an executable path).
require_tool() {
  command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed${2:+ ($2)}"
}

# fresh_dir DIR: DIR, empty.
fresh_dir() {
  rm -rf "$1"
  mkdir -p "$1"
}

# logged LOG COMMAND [ARG...]: runs COMMAND with its standard error appended to LOG; when it
# fails, shows LOG and ends the script with status 1.
logged() {
  log=$1
  shift
  "$@" 2>>"$log" || {
    cat "$log" >&2
    exit 1
  }
}

# run_node_test TEST.mjs: node's test runner on TEST.mjs in this directory (where
# node_modules is), reporting each test; its status is the script's. The test reads its
# inputs from variables the script exported, and CALLPROF_CHROMIUM.
run_node_test() {
  cd "$here"
  export CALLPROF_CHROMIUM="$chromium"
  exec node --test --test-reporter=spec "$1"
}
