-- elim_lua.lua TAPE REPEATS: the Lua-scripted Markowitz of
-- examples/markowitz.lua against the built-in one on a tape's linearized
-- graph, timed in turns (best of REPEATS each).  Run with `scripts/cgwb run`.
-- Prints "lua SECONDS MULTS" and "builtin SECONDS MULTS".
local elim = require "cgwb.elim"
local path, reps = arg[1], tonumber(arg[2] or "3")
local lg <close> = assert(elim.linearize(path))
local function markowitz(v, g, din, dout) return din * dout end -- as examples/markowitz.lua
local function once(spec)
  local c <close> = lg:copy()
  local t0 = os.clock()
  local cost = c:eliminate(spec)
  return os.clock() - t0, cost.mults
end
local tl, tb, ml, mb = math.huge, math.huge, nil, nil
for _ = 1, reps do
  local t, m = once(markowitz)
  tl, ml = math.min(tl, t), m
  t, m = once("markowitz")
  tb, mb = math.min(tb, t), m
end
print(("lua %.6f %d"):format(tl, ml))
print(("builtin %.6f %d"):format(tb, mb))
