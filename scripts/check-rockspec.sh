#!/bin/sh
# Installs cgwb three ways into temporary prefixes: `make install PREFIX=P`,
# `make install DESTDIR=S PREFIX=P` (staged, then moved to P, as a package
# build does) and `luarocks-5.4 make --tree T`; then runs each installed
# command from / with LUA_PATH and LUA_CPATH unset (and once pointing
# elsewhere): --help, stats on a tape, and the main job (the installed
# markowitz.lua on bratu.tap).  Checks the C library of the first install
# (doc/c-api.md): every examples/c-api program compiled against it through
# pkg-config, shared and --static, gives what the installed command gives on
# the same tape; the C host (examples/c-host) embeds the installed Lua face;
# the Lua module exports luaopen_cgwb_core alone.  Then compares the luarocks
# install with the make install: the same Lua files, module and launcher.
# Touches neither the system tree nor the `lua` alternative.  Needs
# examples/tapes/bratu.tap and cavity.tap (make examples).
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir "$src"
# A copy of the sources, so the installs' builds leave the work tree alone.
tar --exclude=./build --exclude=./examples/build --exclude=./examples/tapes --exclude=./.git \
  -cf - . | (cd "$src" && tar xf -)
tape=$root/examples/tapes/bratu.tap
[ -f "$tape" ] || bad "$tape missing (run make examples)"

# Runs the installed command $1 (with the examples in $2) from /.
check_command() {
  cmd=$1 examples=$2 what=$3
  out=$tmp/out
  if (cd / && env -u LUA_PATH -u LUA_CPATH "$cmd" --help) >"$out" 2>&1 &&
     grep -q "Usage: cgwb" "$out"; then ok; else bad "$what: cgwb --help"; cat "$out"; fi
  if (cd / && env -u LUA_PATH -u LUA_CPATH "$cmd" stats "$tape") >"$out" 2>&1 &&
     grep -q "Totals" "$out"; then ok; else bad "$what: cgwb stats"; cat "$out"; fi
  # LUA_PATH / LUA_CPATH naming other directories must not hide the install.
  if (cd / && LUA_PATH="/nonexistent/?.lua;;" LUA_CPATH="/nonexistent/?.so;;" \
        "$cmd" stats "$tape") >"$out" 2>&1 &&
     grep -q "Totals" "$out"; then ok; else bad "$what: cgwb stats with LUA_PATH set"; cat "$out"; fi
  if (cd / && env -u LUA_PATH -u LUA_CPATH "$cmd" run "$examples/markowitz.lua" "$tape") >"$out" 2>&1 &&
     grep -q "Jacobian, [0-9]* nonzeros" "$out"; then ok; else bad "$what: cgwb run markowitz.lua"; cat "$out"; fi
}

# make install PREFIX=P
prefix=$tmp/prefix
if (cd "$src" && make -s install PREFIX="$prefix") >"$tmp/log" 2>&1; then ok
else bad "make install"; cat "$tmp/log"; fi
check_command "$prefix/bin/cgwb" "$prefix/share/cgwb/examples" "make install"

# {==== the C library of the make install (doc/c-api.md) ====}

# "key value" lines of the pretty-printed JSON $1 for the keys $2...
json_keys() {
  f=$1
  shift
  for k in "$@"; do sed -n "s/^  \"$k\": \([^,]*\),\{0,1\}\$/$k \1/p" "$f"; done
}

# Compiles examples/c-api/$1.c against the install, shared and static (an
# empty or missing exe is a failure reported by its comparisons).
compile_example() {
  name=$1 cflags=$(pkg-config --cflags cgwb) libs=$(pkg-config --libs cgwb)
  slibs=$(pkg-config --static --libs cgwb)
  # shellcheck disable=SC2086 # flags are words
  if cc -std=c99 -Wall -Wextra -pedantic -Werror "$root/examples/c-api/$name.c" $cflags $libs \
       -o "$cbin/$name" >"$tmp/cc.log" 2>&1; then ok
  else bad "c-api: $name does not compile against the install (shared)"; cat "$tmp/cc.log"; fi
  # shellcheck disable=SC2086
  if cc -std=c99 -Wall -Wextra "$root/examples/c-api/$name.c" $cflags -static $slibs \
       -o "$cbin/$name-static" >"$tmp/cc.log" 2>&1; then ok
  else bad "c-api: $name does not link statically"; cat "$tmp/cc.log"; fi
}

# Runs program $1 (shared, then static) with the arguments after it; its
# stdout must equal the file $expect; the static build's output the shared one's.
run_example() {
  name=$1
  shift
  if (cd / && LD_LIBRARY_PATH="$prefix/lib" "$cbin/$name" "$@") >"$tmp/c.out" 2>"$tmp/c.err" &&
     cmp -s "$tmp/c.out" "$expect"; then ok
  else bad "c-api: $name $* differs from the command's output"; cat "$tmp/c.err"; diff "$tmp/c.out" "$expect" | head -5; fi
  if (cd / && "$cbin/$name-static" "$@") >"$tmp/c.static" 2>/dev/null && cmp -s "$tmp/c.static" "$tmp/c.out"; then ok
  else bad "c-api: $name (static) differs from $name (shared)"; fi
}

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cbin=$tmp/cbin cgwb=$prefix/bin/cgwb cavity=$root/examples/tapes/cavity.tap expect=$tmp/expect
mkdir -p "$cbin"
if [ "$(pkg-config --modversion cgwb 2>&1)" = "$(sed -n 's/^version = "\([0-9.]*\)-.*/\1/p' cgwb-0.1.0-1.rockspec)" ]; then ok
else bad "pkg-config --modversion cgwb is not the rockspec's version"; fi
for f in "$root"/examples/c-api/*.c; do compile_example "$(basename "$f" .c)"; done
for t in "$tape" "$cavity"; do
  (cd / && "$cgwb" eval "$t") >"$expect" 2>/dev/null
  run_example 01-read-tape "$t"
  (cd / && "$cgwb" graph "$t" --json) >"$tmp/graph.json" 2>/dev/null
  json_keys "$tmp/graph.json" assignments_removed dead_nodes dependents edges hoisted_opcodes \
    independents nodes >"$expect"
  run_example 02-build "$t"
  (cd / && "$cgwb" jacobian "$t" --json) >"$tmp/jac.json" 2>/dev/null
  json_keys "$tmp/jac.json" edges intermediates vertices >"$expect"
  run_example 03-linearize "$t"
  for order in markowitz forward; do
    (cd / && "$cgwb" jacobian "$t" --order "$order" --json) >"$tmp/jac.json" 2>/dev/null
    json_keys "$tmp/jac.json" adds fill mults mults_nontrivial nnz steps >"$expect"
    run_example 04-eliminate "$t" "$order"
  done
  (cd / && "$cgwb" jacobian "$t" -o "$tmp/J-cli.mtx" && "$cgwb" convert "$t" "$tmp/T-cli.txt") 2>/dev/null
  cat "$tmp/J-cli.mtx" "$tmp/T-cli.txt" >"$expect"
  rm -f "$tmp/J.mtx" "$tmp/T.txt"
  (cd / && LD_LIBRARY_PATH="$prefix/lib" "$cbin/05-write" "$t" "$tmp/J.mtx" "$tmp/T.txt") 2>"$tmp/c.err"
  if cat "$tmp/J.mtx" "$tmp/T.txt" 2>/dev/null | cmp -s - "$expect"; then ok
  else bad "c-api: 05-write $t: J.mtx or T.txt differs from cgwb jacobian -o / cgwb convert"; cat "$tmp/c.err"; fi
done
if [ "$(objdump -p "$prefix/lib/libcgwb.so" | awk '$1 == "SONAME" {print $2}')" = libcgwb.so.0 ]; then ok
else bad "libcgwb.so: soname is not libcgwb.so.0"; fi
if [ "$(nm -D --defined-only "$prefix/lib/lua/5.4/cgwb/core.so" | awk '$2 == "T" {print $3}')" = luaopen_cgwb_core ]; then ok
else bad "cgwb/core.so exports more than luaopen_cgwb_core"; nm -D --defined-only "$prefix/lib/lua/5.4/cgwb/core.so" | head; fi
# the C host: its own lua_States over the installed Lua face
# shellcheck disable=SC2046 # flags are words
if cc -std=c99 -Wall -Wextra -pedantic -Werror "$root/examples/c-host/host.c" $(pkg-config --cflags --libs lua5.4) \
     -pthread -o "$cbin/host" >"$tmp/cc.log" 2>&1; then ok
else bad "c-host: host.c does not compile"; cat "$tmp/cc.log"; fi
if (cd / && env -u LUA_PATH -u LUA_CPATH -u CGWB_MEMORY_LIMIT "$cbin/host" "$prefix" "$tape" "$cavity") >"$tmp/host.out" 2>&1 &&
   grep -q "^host: [1-9][0-9]* passed, 0 failed" "$tmp/host.out"; then ok
else bad "c-host: the host's checks"; cat "$tmp/host.out"; fi
unset PKG_CONFIG_PATH

# }====

# make install DESTDIR=S PREFIX=P: the launcher must name P, not S.
staged=$tmp/final stage=$tmp/destdir
if (cd "$src" && make -s install DESTDIR="$stage" PREFIX="$staged") >"$tmp/log" 2>&1; then ok
else bad "make install DESTDIR"; cat "$tmp/log"; fi
if grep -qF "$stage" "$stage$staged/bin/cgwb" 2>/dev/null; then bad "DESTDIR in the launcher"; else ok; fi
if [ -f "$stage$staged/lib/pkgconfig/cgwb.pc" ] && ! grep -qF "$stage" "$stage$staged/lib/pkgconfig/cgwb.pc" &&
   grep -qF "prefix=$staged" "$stage$staged/lib/pkgconfig/cgwb.pc"; then ok
else bad "make install DESTDIR: cgwb.pc missing or naming the staging directory"; fi
mkdir -p "$staged" && mv "$stage$staged"/* "$staged"/ 2>/dev/null
check_command "$staged/bin/cgwb" "$staged/share/cgwb/examples" "make install DESTDIR"

# luarocks-5.4 make --tree T, as README.md says
if command -v luarocks-5.4 >/dev/null; then
  tree=$tmp/tree
  (cd "$src" && make -s clean)
  if (cd "$src" && luarocks-5.4 make --deps-mode=none --tree "$tree" cgwb-0.1.0-1.rockspec) \
       >"$tmp/log" 2>&1; then ok
  else bad "luarocks-5.4 make"; cat "$tmp/log"; fi
  rockdir=$(luarocks-5.4 --tree "$tree" show --rock-dir cgwb 2>/dev/null)
  check_command "$tree/bin/cgwb" "$rockdir/share/cgwb/examples" "luarocks"
  # the same Lua face as make install: files, module, launcher (but for its paths)
  if diff -r "$prefix/share/lua/5.4/cgwb" "$tree/share/lua/5.4/cgwb" >"$tmp/d.log" 2>&1; then ok
  else bad "luarocks and make install: the Lua files differ"; head -5 "$tmp/d.log"; fi
  if [ -f "$tree/lib/lua/5.4/cgwb/core.so" ] &&
     [ "$(nm -D --defined-only "$tree/lib/lua/5.4/cgwb/core.so" | awk '$2 == "T" {print $3}')" = luaopen_cgwb_core ]; then ok
  else bad "luarocks: cgwb/core.so missing or exporting more than luaopen_cgwb_core"; fi
  sed '/^local LUADIR, LIBDIR = /d' "$tree/bin/cgwb" >"$tmp/l2" 2>/dev/null
  if sed '/^local LUADIR, LIBDIR = /d' "$prefix/bin/cgwb" | cmp -s - "$tmp/l2"; then ok
  else bad "luarocks and make install: the launchers differ beyond their paths"; fi
  for cmd in "stats $tape" "eval $cavity" "jacobian $cavity --order min-fill -o -"; do
    # shellcheck disable=SC2086 # cmd is words
    (cd / && env -u LUA_PATH -u LUA_CPATH "$prefix/bin/cgwb" $cmd) >"$tmp/o1" 2>&1
    # shellcheck disable=SC2086
    (cd / && env -u LUA_PATH -u LUA_CPATH "$tree/bin/cgwb" $cmd) >"$tmp/o2" 2>&1
    if cmp -s "$tmp/o1" "$tmp/o2" && [ -s "$tmp/o1" ]; then ok
    else bad "luarocks and make install: cgwb $cmd differs"; diff "$tmp/o1" "$tmp/o2" | head -5; fi
  done
  # the module alone, from the tree's paths
  if (cd / && LUA_PATH="$tree/share/lua/5.4/?.lua;$tree/share/lua/5.4/?/init.lua;;" \
        LUA_CPATH="$tree/lib/lua/5.4/?.so;;" lua5.4 -e \
        'local c = require "cgwb"; assert(c.read_text("assign_ind 0 2\nexp_op 1 0\nassign_dep 1\n"):forward()[1] == math.exp(2))'); then
    ok
  else bad "luarocks: require cgwb"; fi
else
  bad "luarocks-5.4 missing"
fi
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
