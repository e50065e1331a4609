-- strategies.lua TAPE REPEATS: the strategies of elim.strategies on a tape's
-- linearized graph: Markowitz vertex elimination against colouring (column
-- and row side) and the reverse sweeps, each timed warm (best of REPEATS, in
-- turns) from the linearized graph to the Jacobian in Lua.  Run with
-- `scripts/cgwb run`.  Prints "NAME SECONDS MULTS COLOURS NNZ" per strategy.
local elim = require "cgwb.elim"
local path, reps = arg[1], tonumber(arg[2] or "3")
local lg <close> = assert(elim.linearize(path))
local rows = {
  { "elimination", "elimination", {} },
  { "colouring-column", "colouring", { side = "column" } },
  { "colouring-row", "colouring", { side = "row" } },
  { "reverse", "reverse", {} },
}
local best = {}
for _ = 1, reps do
  for _, r in ipairs(rows) do
    local c <close> = lg:copy() -- elimination changes its graph; the copy is not timed
    local t0 = os.clock()
    local J, info = assert(elim.strategy(r[2]).run(c, r[3]))
    local t = os.clock() - t0
    local b = best[r[1]]
    if not b or t < b[1] then best[r[1]] = { t, info.mults, info.colours or 0, J.nnz } end
  end
end
for _, r in ipairs(rows) do
  local b = best[r[1]]
  print(("%s %.6f %d %d %d"):format(r[1], b[1], b[2], b[3], b[4]))
end
