#!/usr/bin/env bash
# Checks that every tracked C and C++ file is formatted as .clang-format says, with Debian
# 12's clang-format (14: another version formats some constructs differently). `--fix`
# formats them instead. Lists the files that are off and exits 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
format=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$format" ]; then
  echo "check-format: clang-format is not installed (Debian: clang-format)" >&2
  exit 2
fi
# tests/golden/ holds test data shaped on purpose (annotate's source fixture), not code.
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.cc' '*.hpp' ':!tests/golden/**')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
off=()
for f in "${files[@]}"; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || off+=("$f")
done
if [ ${#off[@]} -gt 0 ]; then
  printf 'check-format: %d of %d files are not formatted as .clang-format says (scripts/check-format.sh --fix):\n' \
    "${#off[@]}" "${#files[@]}" >&2
  printf '  %s\n' "${off[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
