# Shared by bench/realprograms/run.sh, agreement.sh and lines.sh (sourced): the programs' sources
# (Debian's source packages, downloaded once), their builds (cached) and the inputs of zstd
# and SQLite. Needs: cache, tmp, jobs, script_dir, die (set by the caller); build() needs
# lua_tarball, zstd_tarball and sqlite_tarball (fetch_sources sets them).

# The tarballs of the programs in $PROGRAMS: sets lua_tarball, zstd_tarball, sqlite_tarball.
fetch_sources() {
  lua_tarball=; zstd_tarball=; sqlite_tarball=
  [[ " $PROGRAMS " == *" lua "* ]] && lua_tarball=$(source_tarball lua5.4)
  [[ " $PROGRAMS " == *" zstd "* ]] && zstd_tarball=$(source_tarball libzstd)
  if [[ " $PROGRAMS " == *" sqlite "* ]]; then
    command -v tclsh >/dev/null || die "SQLite's amalgamation is made by tclsh (Debian: apt-get install tcl)"
    sqlite_tarball=$(source_tarball sqlite3)
  fi
  return 0
}

# The full workload's command (Lua's mixed script at LUA_SCALE, zstd -3 on ZSTD_KIB of logs,
# SQLite's shell running workload.sql in memory; zstd_input and sqlite_input set by the
# caller): workload PROGRAM BINARY
workload() {
  case $1 in
    lua) echo "$2 $script_dir/mixed.lua $LUA_SCALE" ;;
    zstd) echo "$2 -3 -q -c $zstd_input" ;;
    sqlite) echo "$2 -batch -init $sqlite_input :memory: .exit" ;;
  esac
}

# Sources: Debian's source packages, downloaded once.
#   source_tarball SOURCE_PACKAGE  -> the path of its newest cached *.orig.tar.*
source_tarball() {
  local pkg=$1 tarball
  tarball=$(ls "$cache/src/${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | sort -V | tail -n1 || true)
  if [[ -z $tarball ]]; then
    [[ ${BENCH_FETCH:-1} == 1 ]] || die "no $pkg sources in $cache/src and BENCH_FETCH=0"
    echo "fetching the Debian source package $pkg into $cache/src (apt-get source --download-only)" >&2
    if ! (cd "$cache/src" && apt-get source --download-only "$pkg") >"$tmp/apt.log" 2>&1; then
      cat "$tmp/apt.log" >&2
      die "apt-get source $pkg failed: apt needs a deb-src line (bench/README.md, \"realprograms/\"), or put ${pkg}_VERSION.orig.tar.* into $cache/src yourself"
    fi
    tarball=$(ls "$cache/src/${pkg}"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | sort -V | tail -n1 || true)
    [[ -n $tarball ]] || die "apt-get source $pkg left no ${pkg}_*.orig.tar.* in $cache/src"
  fi
  echo "$tarball"
}

instr_flags() {
  case $1 in
    gcc*) echo "-finstrument-functions -finstrument-functions-exclude-file-list=/usr/include" ;;
    clang*) echo "-finstrument-functions-after-inlining" ;;
    *) die "no exact-mode flags known for compiler $1" ;;
  esac
}
# What an attachable build adds (GCC and Clang alike): 5 bytes of nops at every function's
# entry (GCC: five 1-byte nops; Clang: one 5-byte nop), listed in __patchable_function_entries.
patch_flags="-fpatchable-function-entry=5"

# build PROGRAM COMPILER KIND(plain|instr|patch) -> the binary's path. Cached: rebuilt only
# when the tarball, the compiler's version or the flags change.
build() {
  local prog=$1 cc=$2 kind=$3 tarball flags dir stamp
  case $prog in lua) tarball=$lua_tarball ;; zstd) tarball=$zstd_tarball ;; sqlite) tarball=$sqlite_tarball ;; esac
  flags="-O2 -g"
  case $kind in
    instr) flags+=" $(instr_flags "$cc")" ;;
    patch) flags+=" $patch_flags" ;;
  esac
  dir=$cache/build/$prog-$cc-$kind
  stamp="$(basename "$tarball") | $("$cc" --version | head -n1) | $flags"
  if [[ -x $dir/$prog && -f $dir/stamp && $(cat "$dir/stamp") == "$stamp" ]]; then
    echo "$dir/$prog"; return
  fi
  echo "building $prog with $cc ($kind: $flags) in $dir" >&2
  rm -rf "$dir"; mkdir -p "$dir/src"
  tar -xf "$tarball" -C "$dir/src" --strip-components=1
  local ok=1
  case $prog in
    lua)
      # Lua's own Makefile: CFLAGS = -O2 -Wall -Wextra -DLUA_COMPAT_5_3 + SYS/MYCFLAGS, as its
      # `make linux-noreadline` builds it (the -O2 comes from there).
      nice -n 10 make -C "$dir/src/src" -j"$jobs" lua CC="$cc" SYSCFLAGS="-DLUA_USE_LINUX" \
        SYSLIBS="-Wl,-E -ldl" MYCFLAGS="${flags#-O2 }" >"$dir/build.log" 2>&1 || ok=0
      [[ $ok == 1 ]] && cp "$dir/src/src/lua" "$dir/lua" ;;
    zstd)
      # The zstd CLI as upstream's Makefile builds it (multithreading on), without the
      # optional zlib/lzma/lz4 formats and the legacy-format decoders (not on the
      # compression path; they only lengthen the build).
      nice -n 10 make -C "$dir/src/programs" -j"$jobs" zstd CC="$cc" CFLAGS="$flags" \
        HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 ZSTD_LEGACY_SUPPORT=0 >"$dir/build.log" 2>&1 || ok=0
      [[ $ok == 1 ]] && cp "$dir/src/programs/zstd" "$dir/zstd" ;;
    sqlite)
      # The amalgamation (sqlite3.c, shell.c) as upstream's Makefile makes it, then the shell
      # built from it in one unit, as distributions build it; one thread, no extensions loaded.
      mkdir -p "$dir/src/bld"
      (cd "$dir/src/bld" && ../configure --disable-tcl --disable-readline && nice -n 10 make sqlite3.c shell.c) \
        >"$dir/build.log" 2>&1 || ok=0
      # shellcheck disable=SC2086
      [[ $ok == 1 ]] && (cd "$dir/src/bld" && nice -n 10 "$cc" $flags -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
        sqlite3.c shell.c -o "$dir/sqlite" -lm) >>"$dir/build.log" 2>&1 || ok=0 ;;
  esac
  if [[ $ok != 1 ]]; then tail -n 20 "$dir/build.log" >&2; die "building $prog with $cc ($kind) failed (log: $dir/build.log)"; fi
  # An attachable build that lost its nops (flags not passed) would measure nothing.
  if [[ $kind == patch ]] && ! readelf -S -W "$dir/$prog" | grep '__patchable_function_entries' >/dev/null; then
    die "$dir/$prog has no __patchable_function_entries section: $patch_flags did not reach the compiler (log: $dir/build.log)"
  fi
  rm -rf "$dir/src"
  echo "$stamp" >"$dir/stamp"
  echo "$dir/$prog"
}

# SQLite's input: workload.sql with ROWS rows, written once per size.
sqlite_input_of() {
  local f=$cache/input/sqlite-$1rows.sql
  if [[ ! -s $f || $script_dir/workload.sql -nt $f ]]; then
    sed "s/@ROWS@/$1/" "$script_dir/workload.sql" >"$f.tmp" && mv "$f.tmp" "$f" || die "cannot write $f"
  fi
  echo "$f"
}

# zstd's input, generated once per size.
input_of() {
  local f=$cache/input/log-$1KiB.txt
  if [[ ! -s $f ]]; then
    awk -v target=$(( $1 * 1024 )) -f "$script_dir/loggen.awk" >"$f.tmp" && mv "$f.tmp" "$f" || die "cannot generate $f"
  fi
  echo "$f"
}
