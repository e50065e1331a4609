#!/bin/sh
# Installs cgwb with luarocks into a temporary tree and runs the installed
# command and module from there.  Touches neither the system tree nor the
# `lua` alternative.
set -u
cd "$(dirname "$0")/.."
if ! command -v luarocks-5.4 >/dev/null; then
  echo "rockspec: luarocks-5.4 missing"; echo "0 passed, 1 failed"; exit 1
fi
tree=$(mktemp -d)
src=$(mktemp -d)
trap 'rm -rf "$tree" "$src"' EXIT
# A copy of the sources, so the install's build leaves the work tree alone.
tar --exclude=./build --exclude=./examples/build --exclude=./.git -cf - . | (cd "$src" && tar xf -)
pass=0 fail=0
if (cd "$src" && luarocks-5.4 make --deps-mode=none --tree "$tree" cgwb-0.1.0-1.rockspec) >"$tree.log" 2>&1; then
  pass=$((pass + 1))
else
  cat "$tree.log"; fail=$((fail + 1))
fi
rm -f "$tree.log"
export LUA_PATH="$tree/share/lua/5.4/?.lua;$tree/share/lua/5.4/?/init.lua;;"
export LUA_CPATH="$tree/lib/lua/5.4/?.so;;"
if (cd / && lua5.4 -e 'local c = require "cgwb"; assert(c.read_text("assign_ind 0 2\nexp_op 1 0\nassign_dep 1\n"):forward()[1] == math.exp(2))'); then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
fi
if (cd / && "$tree/bin/cgwb" --help | grep -q "Usage: cgwb"); then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
fi
echo "rockspec: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
