#!/bin/sh
# Installs cgwb three ways into temporary prefixes: `make install PREFIX=P`,
# `make install DESTDIR=S PREFIX=P` (staged, then moved to P, as a package
# build does) and `luarocks-5.4 make --tree T`; then runs each installed
# command from / with LUA_PATH and LUA_CPATH unset (and once pointing
# elsewhere): --help, stats on a tape, and the main job (the installed
# markowitz.lua on bratu.tap).  Touches neither the system tree nor the `lua`
# alternative.  Needs examples/tapes/bratu.tap (make examples).
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

# make install DESTDIR=S PREFIX=P: the launcher must name P, not S.
staged=$tmp/final stage=$tmp/destdir
if (cd "$src" && make -s install DESTDIR="$stage" PREFIX="$staged") >"$tmp/log" 2>&1; then ok
else bad "make install DESTDIR"; cat "$tmp/log"; fi
if grep -qF "$stage" "$stage$staged/bin/cgwb" 2>/dev/null; then bad "DESTDIR in the launcher"; else ok; fi
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
