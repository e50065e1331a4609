-- elim_lua.lua TAPE REPEATS: the Lua-scripted Markowitz of
-- examples/markowitz.lua against the built-in one on a tape's linearized
-- graph (best of REPEATS).  Run with `scripts/cgwb run`.
-- Prints "lua SECONDS MULTS" and "builtin SECONDS MULTS".
local elim = require "cgwb.elim"
local path, reps = arg[1], tonumber(arg[2] or "3")
local lg <close> = assert(elim.linearize(path))
local function markowitz(v, g, din, dout) return din * dout end -- as examples/markowitz.lua
local function best(spec)
  local t, mults = math.huge, nil
  for _ = 1, reps do
    local c <close> = lg:copy()
    local t0 = os.clock()
    local cost = c:eliminate(spec)
    t = math.min(t, os.clock() - t0)
    mults = cost.mults
  end
  return t, mults
end
print(("lua %.6f %d"):format(best(markowitz)))
print(("builtin %.6f %d"):format(best("markowitz")))
