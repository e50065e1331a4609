#!/bin/sh
# spec/fuzz/adolc-seeds.sh: records the ADOL-C test tapes of spec/adolc/record.cpp
# (default and multi-block buffers) and packs each small set into one input of
# the adolc fuzz target (spec/fuzz/fuzz.c: lengths of the Operations and
# Locations files as two uint32 LE, then the three files).  Needs g++ and
# Debian's libadolc-dev.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/spec/fuzz/corpus/adolc"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgwb-adolc-seeds.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
g++ -O1 -o "$TMP/record" "$ROOT/spec/adolc/record.cpp" -ladolc
mkdir -p "$OUT"
for v in "plain:" "min:--obs 3 --lbs 43 --vbs 5"; do
  d="$TMP/${v%%:*}"
  mkdir -p "$d"
  # shellcheck disable=SC2086
  (cd "$d" && "$TMP/record" ${v#*:} >out.txt 2>record.log)
done
lua5.4 - "$TMP" "$OUT" <<'LUA'
local tmp, out = ...
local function read(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
local n = 0
for _, kind in ipairs { "plain", "min" } do
  for tag = 1, 99 do
    local d = tmp .. "/" .. kind .. "/"
    local o = read(d .. "ADOLC-Operations_" .. tag .. ".tap")
    local l = read(d .. "ADOLC-Locations_" .. tag .. ".tap")
    local v = read(d .. "ADOLC-Values_" .. tag .. ".tap") or ""
    if o and l and #o + #l + #v < 60000 then
      n = n + 1
      local f = assert(io.open(("%s/%s%02d.bin"):format(out, kind, tag), "wb"))
      f:write(string.pack("<I4I4", #o, #l), o, l, v)
      f:close()
    end
  end
end
print("adolc seeds: " .. n)
LUA
