#!/usr/bin/env lua5.4
-- spec/fuzz/unpack-adolc.lua INPUT DIR: splits an input of the adolc fuzz
-- target into the ADOL-C tape set DIR/ADOLC-{Operations,Locations,Values}_1.tap
-- exactly as spec/fuzz/fuzz.c does, to inspect a finding with the cgwb command.
local input, dir = arg[1], arg[2]
assert(input and dir, "usage: unpack-adolc.lua INPUT DIR")
local f = assert(io.open(input, "rb"))
local s = f:read("a")
f:close()
assert(#s >= 8, "input shorter than 8 bytes: the target ignores it")
local lo, ll = string.unpack("<I4I4", s)
local whole = lo & 0x80000000 == 0
lo = lo & 0x7fffffff
local rest = #s - 8
lo = lo % (rest + 1)
rest = rest - lo
ll = ll % (rest + 1)
rest = rest - ll
local files = {
  Operations = s:sub(9, 8 + lo),
  Locations = s:sub(9 + lo, 8 + lo + (whole and ll // 4 * 4 or ll)),
  Values = s:sub(9 + lo + ll, 8 + lo + ll + (whole and rest // 8 * 8 or rest)),
}
for _, kind in ipairs { "Operations", "Locations", "Values" } do
  local g = assert(io.open(("%s/ADOLC-%s_1.tap"):format(dir, kind), "wb"))
  g:write(files[kind])
  g:close()
end
