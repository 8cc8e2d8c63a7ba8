#!/usr/bin/env bash
# Usage: make-man-pages.sh HELP2MAN CALLPROF OUTDIR COMMAND...
# Writes OUTDIR/callprof.1 and OUTDIR/callprof-COMMAND.1 from `callprof --help` and
# `callprof COMMAND --help`, so the pages list exactly the options the program accepts,
# with the DESCRIPTION and EXAMPLES (and ENVIRONMENT) of packaging/man/PAGE.h2m, which
# every page has, and a SEE ALSO naming the other pages.
set -euo pipefail
help2man=$1 callprof=$2 out=$3
shift 3
includes=$(cd "$(dirname "$0")" && pwd)/man
mkdir -p "$out"
version=$("$callprof" --version | awk '{print $2; exit}')
# The one-line summary of each command, from the "Subcommands:" list of callprof --help.
summary() { "$callprof" --help | awk -v c="$1" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }'; }
common=(--no-info --section=1 --manual="callprof manual" --source="callprof $version")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CLI11 prints argv[0] in its usage lines: run it as plain "callprof", not the build path;
# "-o,--output" becomes "-o, --output", the separator help2man recognizes; the one-line
# summary above "Usage:" (the page's NAME) and the help's "Example:" line (the page has
# EXAMPLES) are left out.
cat >"$work/callprof" <<WRAPPER
#!/usr/bin/env bash
set -o pipefail
(exec -a callprof $(printf %q "$callprof") "\$@") |
  sed -E -e 's/^  (-[^ ,]+),--/  \\1, --/' -e '1{/^Usage:/!d}' -e '/^Example: /d'
WRAPPER
chmod +x "$work/callprof"
callprof=$work/callprof
# SEE ALSO of the page PAGE: the other callprof pages, perf and pprof, the documentation.
see_also() {
  local page=$1 first=1 other
  echo "[SEE ALSO]"
  echo ".nh"
  for other in callprof "${commands[@]/#/callprof-}"; do
    [ "$other" != "$page" ] || continue
    [ $first = 1 ] || echo ","
    printf '.BR %s (1)' "${other//-/\\-}"
    first=0
  done
  printf ',\n.BR perf (1),\n.BR perf\\-record (1),\n.B pprof\n(https://github.com/google/pprof).\n.hy\n'
  printf '.PP\nREADME.md and docs/ in the callprof sources explain the modes, views, formats and numbers.\n'
}
commands=("$@")
# The pages' own DESCRIPTION and EXAMPLES: every page must have them.
for page in callprof "${commands[@]/#/callprof-}"; do
  [ -f "$includes/$page.h2m" ] || { echo "make-man-pages.sh: $includes/$page.h2m is missing" >&2; exit 1; }
done

see_also callprof >"$work/callprof.see-also"
"$help2man" "${common[@]}" --include="$includes/callprof.h2m" --include="$work/callprof.see-also" \
  --name="exact, sampling, probe and system-call profiling for native programs" \
  --version-string="callprof $version" --output="$out/callprof.1" "$callprof"
for command in "$@"; do
  name=$(summary "$command")
  [ -n "$name" ] || { echo "make-man-pages.sh: callprof --help does not list '$command'" >&2; exit 1; }
  see_also "callprof-$command" >"$work/$command.see-also"
  "$help2man" "${common[@]}" --include="$includes/callprof-$command.h2m" --include="$work/$command.see-also" \
    --name="$name" --help-option="$command --help" --version-string="callprof-$command $version" \
    --output="$out/callprof-$command.1" "$callprof"
done
