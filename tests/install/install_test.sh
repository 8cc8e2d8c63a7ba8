#!/usr/bin/env bash
# Usage: install_test.sh BUILD_DIR PROJECT_DIR WORDFREQ_SOURCE static|shared   (see CMakeLists.txt)
set -euo pipefail
build=$1 project=$2 wordfreq=$3 deps=${4:-shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
# Nothing may lead the installed callprof back to the build tree.
unset CALLPROF_RUNTIME LD_PRELOAD

cmake --install "$build" --prefix "$tmp/staging" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "cmake --install"; }
mv "$tmp/staging" "$tmp/prefix"  # relocatable: nothing in it names where it was installed
prefix=$tmp/prefix
for f in bin/callprof lib/callprof/libcallprof-rt.so lib/callprof/libcallprof-alloc.so \
         lib/cmake/callprof/callprofConfig.cmake lib/cmake/callprof/callprofConfigVersion.cmake \
         share/man/man1/callprof.1 share/man/man1/callprof-record.1 share/man/man1/callprof-report.1 \
         share/bash-completion/completions/callprof; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
callprof=$prefix/bin/callprof
# A library search path entry that is empty or relative is the current directory (or one
# below it): whoever runs callprof there would load the libraries it holds. Only absolute
# entries and $ORIGIN's, in the build tree and installed; callprof itself has none (Graphviz's
# plugins are opened by their paths).
check_search_paths() {
  local paths e
  paths=$(readelf -d -W "$1" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
  [ -n "$paths" ] || return 0
  IFS=: read -r -a entries <<<"$paths:"  # the extra ':' keeps a trailing empty entry
  for e in "${entries[@]}"; do
    case $e in /* | '$ORIGIN'*) ;; *) fail "$1: library search path '$paths' has the entry '$e' (the current directory)" ;; esac
  done
}
for f in "$build/bin/callprof" "$callprof" "$prefix/lib/callprof/libcallprof-rt.so" "$prefix/lib/callprof/libcallprof-alloc.so"; do
  check_search_paths "$f"
done
! readelf -d -W "$callprof" | grep -qE '\((RUN|R)PATH\)' || fail "bin/callprof has a library search path"
# Every shared library is work at each start (docs/design.md, "A short recording's fixed
# cost"): Graphviz's are opened when a graph is drawn, and with CALLPROF_STATIC_DEPS the
# archives of elfutils, zstd, libbpf, libseccomp, protobuf, re2, abseil, fmt and the C++
# library are linked in.
needed=$(readelf -d -W "$callprof" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')
never="libgvc libcgraph libgvplugin"
[ "$deps" = static ] && never="$never libdw libelf libzstd libbpf libseccomp libprotobuf libre2 libabsl libfmt libstdc++ libgcc_s"
for lib in $never; do
  case " $needed" in *" $lib"[._]*) fail "bin/callprof needs $lib at start-up (needed: $needed)" ;; esac
done

# The example, instrumented by callprof_instrument() from the installed package, recorded
# by the installed callprof, with each compiler.
for compiler in gcc:g++ clang:clang++; do
  cxx=${compiler#*:}
  out=$tmp/project-${compiler%%:*}
  CXX=$cxx cmake -S "$project" -B "$out" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DWORDFREQ_SOURCE="$wordfreq" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log" >&2; fail "$cxx: configure with find_package(callprof)"; }
  cmake --build "$out" --target profile >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log" >&2; fail "$cxx: build and record with callprof::callprof"; }

  json=$("$callprof" report -i "$out/wordfreq.callprof" --json)
  mode=$(jq -r '.metadata.mode' <<<"$json")
  [ "$mode" = exact ] || fail "$cxx: recorded in mode '$mode', not exact (callprof_instrument's hooks missing?)"
  # quicksort is recursive: a real call with either compiler's hooks (Clang's come after inlining)
  calls=$(jq '[.functions[] | select(.name | test("quicksort")) | .calls] | add // 0' <<<"$json")
  [ "$calls" -gt 0 ] || fail "$cxx: quicksort not in the profile"

  "$callprof" record -q --alloc -o "$out/alloc.callprof" -- "$out/wordfreq" >/dev/null 2>"$tmp/alloc.err" ||
    { cat "$tmp/alloc.err" >&2; fail "$cxx: record --alloc"; }
  ! grep -q "cannot be preloaded" "$tmp/alloc.err" || { cat "$tmp/alloc.err" >&2; fail "$cxx: --alloc preload"; }
  allocs=$("$callprof" report -i "$out/alloc.callprof" --json | jq '[.. | objects | .alloc_calls? // empty] | add // 0')
  [ "$allocs" -gt 0 ] || fail "$cxx: record --alloc counted no allocations"
  "$callprof" report -i "$out/alloc.callprof" --view flat --limit 5 --no-pager >/dev/null || fail "$cxx: report"
  # the call graph opens Graphviz's plugins by their paths
  "$callprof" graph -i "$out/alloc.callprof" -o "$out/graph.svg" 2>/dev/null || fail "$cxx: graph"
  grep -q "<svg" "$out/graph.svg" || fail "$cxx: graph wrote no SVG"
  echo "install_test: $cxx: exact mode, quicksort called $calls times, $allocs allocations"

  # callprof_instrument(... ATTACHABLE): nops at every function's entry, listed in
  # __patchable_function_entries, and no hooks (the hooked build has them: the check can see them).
  cmake --build "$out" --target wordfreq_attachable >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log" >&2; fail "$cxx: build wordfreq_attachable"; }
  attachable=$out/wordfreq_attachable
  readelf -S -W "$attachable" >"$tmp/sections.txt" || fail "$cxx: readelf -S wordfreq_attachable"
  grep -q '__patchable_function_entries' "$tmp/sections.txt" ||
    fail "$cxx: wordfreq_attachable has no __patchable_function_entries section (ATTACHABLE's flag missing?)"
  readelf -s -W "$out/wordfreq" >"$tmp/symbols.txt" || fail "$cxx: readelf -s wordfreq"
  grep -q '__cyg_profile_func_enter' "$tmp/symbols.txt" || fail "$cxx: the hooked wordfreq has no __cyg_profile_func_enter"
  readelf -s -W "$attachable" >"$tmp/symbols.txt" || fail "$cxx: readelf -s wordfreq_attachable"
  ! grep -q '__cyg_profile_func' "$tmp/symbols.txt" || fail "$cxx: wordfreq_attachable refers to the hooks: $(grep '__cyg_profile_func' "$tmp/symbols.txt")"
  objdump -d "$attachable" >"$tmp/code.txt" || fail "$cxx: objdump -d wordfreq_attachable"
  ! grep -q '__cyg_profile_func' "$tmp/code.txt" || fail "$cxx: wordfreq_attachable's code calls the hooks"
  # main starts with the 5 bytes of nops (GCC: 5 nop; Clang: one 5-byte nopl)
  entry=$(grep -A5 '^[0-9a-f]* <main>:' "$tmp/code.txt" | tail -n +2 | awk -F'\t' '{ print $3 }' | head -n5 | tr '\n' ';')
  [[ $entry == nop\;nop\;nop\;nop\;nop\;* || $entry == nopl* ]] || fail "$cxx: wordfreq_attachable's main does not start with 5 bytes of nops: $entry"
  size=$(objdump -h "$attachable" | awk '$2 == "__patchable_function_entries" { print $3 }')
  sites=$(( 16#${size:-0} / 8 ))  # one 8-byte address per function
  [ "$("$attachable" | md5sum)" = "$("$out/wordfreq" | md5sum)" ] || fail "$cxx: wordfreq_attachable's output differs from wordfreq's"
  echo "install_test: $cxx: attachable build: $sites patchable entries, no hooks, same output"
done

# ATTACHABLE with ALL_INLINED is refused when the project is configured.
if CXX=g++ cmake -S "$project" -B "$tmp/project-conflict" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DWORDFREQ_SOURCE="$wordfreq" -DCHECK_ATTACHABLE_ALL_INLINED=ON >"$tmp/configure.log" 2>&1; then
  fail "callprof_instrument(... ATTACHABLE ALL_INLINED) configured"
fi
tr -s ' \n' '  ' <"$tmp/configure.log" | grep "ATTACHABLE and ALL_INLINED exclude each other" >/dev/null ||  # CMake wraps it
  { cat "$tmp/configure.log" >&2; fail "callprof_instrument(... ATTACHABLE ALL_INLINED): not the expected error"; }

# Man pages: they render without warnings and list the options of their command.
for page in "$prefix"/share/man/man1/*.1; do
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff on $page"
  [ -z "$warnings" ] || fail "groff warns on $(basename "$page"): $warnings"
done
MANPAGER=cat MANWIDTH=100 man -l "$prefix/share/man/man1/callprof-record.1" 2>/dev/null >"$tmp/record.txt" ||
  fail "man -l callprof-record.1"
grep -q -- "--alloc" "$tmp/record.txt" || fail "callprof-record(1) does not list --alloc"
grep -q "callprof-report(1)" "$tmp/record.txt" || fail "callprof-record(1) has no SEE ALSO"
grep -q "^EXAMPLES" "$tmp/record.txt" || fail "callprof-record(1) has no EXAMPLES"
pages=$(find "$prefix/share/man/man1" -name "*.1" | wc -l)

# Bash completion: commands, options, option values, file names; candidates joined by "|".
completion_script=$prefix/share/bash-completion/completions/callprof
source "$(dirname "$0")/completion_checks.sh"
expect record callprof rec
expect --alloc callprof record --al
expect "tree" callprof report --view tr
expect "tree" callprof report --view = tr
expect "auto|fp|dwarf" callprof record --call-graph ""
expect "pprof|callgrind|collapsed|speedscope|chrome" callprof export -f ""
expect "self|self%" callprof report --sort sel
expect "diff" callprof di
mkdir -p "$tmp/dir with space" && touch "$tmp/dir with space/a profile.callprof"
expect "$tmp/dir with space/a profile.callprof" callprof report -i "$tmp/dir with space/a"
echo "install_test: ok: $pages man pages render, completion works"
