#!/usr/bin/env bash
# Usage: make-man-pages.sh HELP2MAN CALLPROF OUTDIR COMMAND...
# Writes OUTDIR/callprof.1 and OUTDIR/callprof-COMMAND.1 from `callprof --help` and
# `callprof COMMAND --help`, so the pages list exactly the options the program accepts.
set -euo pipefail
help2man=$1 callprof=$2 out=$3
shift 3
mkdir -p "$out"
version=$("$callprof" --version | awk '{print $2; exit}')
# The one-line summary of each command, from the "Subcommands:" list of callprof --help.
summary() { "$callprof" --help | awk -v c="$1" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }'; }
common=(--no-info --section=1 --manual="callprof manual" --source="callprof $version")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CLI11 prints argv[0] in its usage lines: run it as plain "callprof", not the build path;
# and "-o,--output" becomes "-o, --output", the separator help2man recognizes.
cat >"$work/callprof" <<WRAPPER
#!/usr/bin/env bash
set -o pipefail
(exec -a callprof $(printf %q "$callprof") "\$@") | sed -E 's/^  (-[^ ,]+),--/  \\1, --/'
WRAPPER
chmod +x "$work/callprof"
callprof=$work/callprof
see_also=$work/see-also.h2m
{
  echo "[SEE ALSO]"
  printf '.nh\n.BR callprof (1)'
  for command in "$@"; do printf ',\n.BR callprof\\-%s (1)' "$command"; done
  printf '\n.hy\n.PP\nREADME.md and docs/ in the callprof sources explain the modes, views and formats.\n'
} >"$see_also"

"$help2man" "${common[@]}" --include="$see_also" \
  --name="exact, sampling, probe and system-call profiling for native programs" \
  --version-string="callprof $version" --output="$out/callprof.1" "$callprof"
for command in "$@"; do
  name=$(summary "$command")
  [ -n "$name" ] || { echo "make-man-pages.sh: callprof --help does not list '$command'" >&2; exit 1; }
  "$help2man" "${common[@]}" --include="$see_also" --name="$name" \
    --help-option="$command --help" --version-string="callprof-$command $version" \
    --output="$out/callprof-$command.1" "$callprof"
done
