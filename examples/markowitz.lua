-- examples/markowitz.lua: the main job, `cgwb run examples/markowitz.lua TAPE`.
--
-- Until the graph builder and vertex elimination land (issues 3 and 5), this
-- script reports what the tape layer knows: the header, Table 1 of seed 000,
-- and a check that the tape evaluates at its recorded point.  It will grow
-- into Markowitz vertex elimination written in Lua, compared with the
-- built-in ordering.
local cgwb = require "cgwb"
local report = require "cgwb.report"

local path = arg[1] or "examples/tapes/bratu.tap"
local s = assert(cgwb.tape_stats(path))
print(("%s: %d independents, %d dependents, %d operations, %d death notices")
  :format(path, s.independents, s.dependents, s.operations, s.death_notices))
print(("max live %d (header), peak of live values %d"):format(s.max_live, s.peak_live))
print()
print(report.table1(s))

local tape <close> = assert(cgwb.read_tape(path))
if tape:x0() then
  local y, branches = assert(tape:forward())
  local norm = 0
  for _, v in ipairs(y) do norm = norm + v * v end
  print()
  print(("forward evaluation at the recorded point: ||y||_2 = %.17g, %d branch changes")
    :format(math.sqrt(norm), branches))
end
