#!/usr/bin/env bash
# Usage: generated_test.sh completion COMPLETION_SCRIPT
#        generated_test.sh man MAN_DIR COMMAND...
# The bash completion and the man pages as the build generates them (packaging/), checked
# without installing: what install_test.sh checks of the installed copies, and more.
set -euo pipefail
fail() { echo "generated_test: FAIL: $*" >&2; exit 1; }
what=$1
shift

if [ "$what" = completion ]; then
  script=$1
  [ -f "$script" ] || fail "$script was not generated (build the callprof-docs target)"
  completion_script=$script
  source "$(dirname "$0")/completion_checks.sh"
  offers() {  # offers WORD... -- COMMAND LINE: each WORD is a candidate
    local words=() got
    while [ "$1" != -- ]; do words+=("$1"); shift; done
    shift
    got="|$(complete_words "$@")|"
    for w in "${words[@]}"; do [[ $got == *"|$w|"* ]] || fail "completing '$*': '$w' not in '$got'"; done
    [[ $got != *REQUIRED* ]] || fail "completing '$*': CLI11's REQUIRED marker offered: '$got'"
  }
  expect "pprof|callgrind|collapsed|speedscope|chrome" callprof export -f ""
  expect "pprof" callprof export --format pp
  expect "pprof|callgrind|collapsed|speedscope|chrome" callprof export -i p.callprof --format = ""
  expect "self|cpu|offcpu|samples|calls" callprof export --value ""
  offers calls self self% sum% total total% avg cpu cputotal allocbytestotal module name tid start duration dropped \
    -- callprof report --sort ""
  expect "self|self%" callprof report -s sel
  expect "cpu|self|total|calls|samples" callprof diff --sort ""
  expect "flat|callers|tree|callers-of|callees-of|modules|threads|syscalls|summary" callprof report --view ""
  expect "short|templates|full" callprof flame --names ""
  expect "" callprof export --na
  offers self cpu offcpu samples calls allocs allocbytes syscalls syscalltime -- callprof flame --metric ""
  expect "cpu-clock|cycles|instructions|cache-misses|branch-misses" callprof record -e ""
  expect "auto|sample|exact|syscall|probe" callprof attach --mode ""
  expect "auto|exact|sample|syscall|probe" callprof record --mode ""
  expect "off|inlined|all|wrappers" callprof record --auto-fold ""
  expect "none|called|all" callprof record --fold-counts ""
  expect "none|user|full" callprof record --syscall-stacks ""
  expect "svg|dot|png" callprof graph --format ""
  expect "nested|flat|columns" callprof report --json-layout ""
  expect "--limit" callprof report --lim
  expect "--percent-limit" callprof report --perc
  echo "generated_test: completion ok"
  exit 0
fi

[ "$what" = man ] || fail "unknown check '$what'"
dir=$1
shift
pages=(callprof "${@/#/callprof-}")
for page in "${pages[@]}"; do
  file=$dir/$page.1
  [ -f "$file" ] || fail "$file was not generated (build the callprof-docs target)"
  warnings=$(groff -man -Tutf8 -ww -z "$file" 2>&1) || fail "groff on $page.1"
  [ -z "$warnings" ] || fail "groff warns on $page.1: $warnings"
  text=$(MANPAGER=cat MANWIDTH=100 man -l "$file" 2>/dev/null) || fail "man -l $page.1"
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "SEE ALSO"; do
    grep -q "^$section\$" <<<"$text" || fail "$page.1 has no $section section"
  done
  # The DESCRIPTION says what the command does in a paragraph of its own, before the options.
  description=$(sed -n '/^DESCRIPTION$/,/^[A-Z]/p' <<<"$text" | wc -w)
  [ "$description" -ge 40 ] || fail "$page.1: a DESCRIPTION of $description words"
  command=${page#callprof-}
  [ "$page" = callprof ] && command=record
  sed -n '/^EXAMPLES$/,/^SEE ALSO$/p' <<<"$text" | grep -q "callprof $command" ||
    fail "$page.1: no example of callprof $command"
  see_also=$(sed -n '/^SEE ALSO$/,$p' <<<"$text")
  for other in "${pages[@]}"; do
    if [ "$other" = "$page" ]; then
      ! grep -q "$other(1)" <<<"$see_also" || fail "$page.1 refers to itself in SEE ALSO"
    else
      grep -q "$other(1)" <<<"$see_also" || fail "$page.1: SEE ALSO does not name $other(1)"
    fi
  done
  grep -q "perf(1)" <<<"$see_also" && grep -q "pprof" <<<"$see_also" || fail "$page.1: SEE ALSO without perf(1), pprof"
done
echo "generated_test: ${#pages[@]} man pages ok"
