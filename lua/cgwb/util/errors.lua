--- cgwb.util.errors: the one error type of cgwb's Lua half.
--
-- An error is a table with this module's metatable: `kind` (what went
-- wrong), `code` (the exit status the command line gives it), `msg` (the
-- one line it prints after "cgwb COMMAND: ") and an optional `data` table
-- (a position, the decoder that raised it, ...).  `tostring(e)` is `e.msg`.
--
--     kind       code   meaning
--     input      2      bad usage or bad input: a file that cannot be read, a malformed
--                       tape, kernel, JSON or plug-in, a wrong option
--     refused    2      a well-formed request cgwb declines: a construct outside the
--                       kernel subset, a run over a cost limit
--     runtime    1      the run itself failed: a file not written, a check that found a
--                       difference, memory
--     branch     3      the point leaves the branch the tape recorded
--     bug        1      an internal error: anything raised that is not one of these
--
-- The rule: a function raises one of these (or returns `nil, message`, the
-- API's way); anything else that is raised (a string from a Lua error, an
-- assert, a table of another shape) is a bug.  The command line
-- (cgwb.cli's dispatch) prints an error of this type as `cgwb COMMAND: msg`
-- and exits with its code; it prints anything else the same way with exit
-- status 1 and keeps its traceback for `CGWB_DEBUG=1` (doc/usage.md, "Exit
-- status"), as it always has.
--
-- Raising: `error(errors.input(2, "x.c:3:4: found ';'"))` (a table needs no
-- level), or `errors.fail(code, msg)`, which picks the kind from the code.
-- Catching: `errors.is(e)`, `errors.is(e, "input")`, `errors.catch(f, ...)`
-- (pcall that passes bugs on) or `errors.try(f, ...)` for the API's `nil,
-- message` convention.
--
-- The older shapes (`{msg=}`, `{call=}`, `{kparse=}`, `{refused=, pos=,
-- why=}`, `{json=}`, cli's Fail) are gone from the raise sites: the front
-- end (kparse/lower.lua, kparse/grammar.lua), CALL.json conversion
-- (kernel.lua), the XAIF reader, the JSON decoder, tangent code and the
-- command line raise errors of this type.  `errors.legacy(e)` still turns
-- a `{msg=}` table into one, for a caller that has not changed yet.
-- @module cgwb.util.errors
local M = {}

--- The kinds and their default exit statuses.
M.CODES = { input = 2, refused = 2, runtime = 1, branch = 3, bug = 1 }

-- The metatable of every error of this type.
local Error = {}
Error.__index = Error
Error.__tostring = function(e) return e.msg end
Error.__name = "cgwb.error"

--- A new error (not raised): (kind, code, msg [, data]) -> error.  code nil: the kind's default.
function M.new(kind, code, msg, data)
  local default = M.CODES[kind]
  if not default then error(("errors.new: unknown kind '%s'"):format(tostring(kind)), 2) end
  return setmetatable({ kind = kind, code = code or default, msg = tostring(msg), data = data }, Error)
end

-- The constructors take (code, msg [, data]) or (msg [, data]) (the kind's code).
local function maker(kind)
  return function(code, msg, data)
    if type(code) ~= "number" then code, msg, data = nil, code, msg end
    return M.new(kind, code, msg, data)
  end
end

--- Bad usage or bad input: ([code,] msg [, data]) -> error (code default 2).
-- @function input
M.input = maker("input")
--- A well-formed request declined (a construct outside the subset, a cost over a limit):
-- ([code,] msg [, data]) -> error (code default 2).
-- @function refused
M.refused = maker("refused")
--- The run failed (a file not written, a check that found a difference, memory):
-- ([code,] msg [, data]) -> error (code default 1).
-- @function runtime
M.runtime = maker("runtime")
--- The point leaves the recorded branch: ([code,] msg [, data]) -> error (code default 3).
-- @function branch
M.branch = maker("branch")

--- An internal error: (msg [, trace]) -> error of kind "bug", code 1, data.trace the traceback.
function M.bug(msg, trace)
  return M.new("bug", 1, msg, { trace = trace })
end

-- The kind an exit status stands for (errors.fail).
local KIND_OF_CODE = { [1] = "runtime", [2] = "input", [3] = "branch" }

--- Raises an error with exit status code: (code, msg [, data]); the kind follows
-- the code (1 runtime, 2 input, 3 branch).  The command line's way out.
function M.fail(code, msg, data)
  error(M.new(KIND_OF_CODE[code] or "runtime", code, msg, data), 0)
end

--- Whether e is an error of this type (of kind `kind` when given): (e [, kind]) -> boolean.
function M.is(e, kind)
  return getmetatable(e) == Error and (kind == nil or e.kind == kind)
end

--- An error of one of the older shapes ({msg=}, {json=}, {call=}, {kparse=},
-- {refused=, pos=, why=}) as an error of this type; e itself when it is one;
-- nil for anything else (a bug).
function M.legacy(e)
  if M.is(e) then return e end
  if type(e) ~= "table" or getmetatable(e) ~= nil then return nil end
  if type(e.kparse) == "string" then return M.input(2, e.kparse) end
  if type(e.call) == "string" then return M.input(2, e.call) end
  if type(e.json) == "string" then return M.input(2, e.json, { json = true }) end
  if type(e.refused) == "string" then return M.refused(2, e.refused, { pos = e.pos, why = e.why }) end
  if type(e.msg) == "string" then return M.input(2, e.msg) end
  return nil
end

--- Calls f(...): true and its results, or false, message, error when it
-- raised an error of this type; anything else raised is raised again.
function M.catch(f, ...)
  local r = table.pack(pcall(f, ...))
  if r[1] then return table.unpack(r, 1, r.n) end
  if M.is(r[2]) then return false, r[2].msg, r[2] end
  error(r[2], 0)
end

--- Calls f(...) and returns its results, or nil, message, error when it
-- raised an error of this type (the API's convention; use catch when f may
-- return nil); anything else raised is raised again.
function M.try(f, ...)
  local r = table.pack(M.catch(f, ...))
  if r[1] then return table.unpack(r, 2, r.n) end
  return nil, r[2], r[3]
end

return M
