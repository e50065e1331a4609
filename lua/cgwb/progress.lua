--- cgwb.progress: a progress line on stderr for long work written in Lua.
--
-- The same renderer draws the core's own progress (reading tapes, building
-- graphs, linearizing, eliminating, generating code) and the exact search's,
-- so a script's loops look like the rest of cgwb:
--
--     local progress = require "cgwb.progress"
--     local r = progress.start("annealing", steps)
--     for i = 1, steps do ...; r:update(i) end
--     r:finish()
--
-- On a terminal the line `cgwb: annealing 45% 450/1000 1.2k/s 0.4 s left` is
-- redrawn in place (at most 10 times a second) once the work has run one
-- second (CGWB_PROGRESS_DELAY), and closed by a newline at r:finish(); when
-- stderr is not a terminal, r:finish() writes one line
-- (`cgwb: annealing: 1000 in 2.31 s`) if the work took that second.
-- CGWB_PROGRESS=auto|always|never (default auto; always draws as on a
-- terminal; never shows nothing).  progress.quiet(true), what `--quiet` sets,
-- silences it for this Lua state (each lua_State has its own renderer).
-- Nothing is ever written to stdout.
-- @module cgwb.progress
local core = require "cgwb.core"

local M = {}

local Reporter = {}
Reporter.__index = Reporter

--- A reporter for work `what` of `total` units (nil or 0: unknown).
-- @treturn table r with r:update(done [, total]) and r:finish([done])
function M.start(what, total)
  assert(type(what) == "string", "progress.start: what must be a string")
  local r = setmetatable({ what = what, total = math.tointeger(total) or 0, done = 0,
                           t0 = core.progress_clock() }, Reporter)
  core.progress_update(what, 0, r.total, r.t0)
  return r
end

--- Reports `done` units (and a new total when given); draws when due.
function Reporter:update(done, total)
  if total then self.total = math.tointeger(total) or 0 end
  self.done = math.tointeger(done) or math.floor(done)
  core.progress_update(self.what, self.done, self.total, self.t0)
end

--- Ends the work (with `done` units, default the last reported): on a
-- terminal the line is closed by a newline, elsewhere one summary line.
function Reporter:finish(done)
  if done then self.done = math.tointeger(done) or math.floor(done) end
  core.progress_finish(self.what, self.done, self.t0)
end

--- Runs f(r) between start and finish (finish also when f raises).
function M.run(what, total, f)
  local r = M.start(what, total)
  local res = table.pack(pcall(f, r))
  r:finish()
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

--- Silences progress for this state (flag true) or lets it show again;
-- returns the flag.  Without an argument, returns it.
function M.quiet(flag)
  if flag == nil then return core.progress_quiet() end
  return core.progress_quiet(flag and true or false)
end

--- Whether progress is shown at all (CGWB_PROGRESS is not never and not
-- quiet); the second value: whether lines are redrawn in place.
function M.enabled()
  return core.progress_enabled()
end

return M
