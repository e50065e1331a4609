--- cgwb.cli.common: what every command module of the command line shares:
-- the way out (fail, check), options that take values, files.
-- @module cgwb.cli.common
local errors = require "cgwb.util.errors"
local files = require "cgwb.util.files"

local M = {}

--- Raises an error that carries its exit status: fail(code, msg) (the commands' way out;
-- cgwb.util.errors.fail).
-- @function fail
M.fail = errors.fail
local fail = errors.fail

--- Unwraps a `nil, msg` result of the API: (v, msg [, code]) -> v, or fails
-- with msg and code (default 2, bad input) when v is nil.
function M.check(v, msg, code)
  if v == nil then fail(code or 2, msg) end
  return v
end

--- The facade, `require "cgwb"` (loaded when a command first needs it).
function M.cgwb() return require "cgwb" end

-- {==== arguments ====}

--- Long options that take a value (filled by `option`), so that a negative
-- number after one is its value, not an option (cgwb.cli's join_negatives).
M.valued = {}

--- p:option(names, ...) that remembers the option's names in `valued`.
function M.option(p, names, ...)
  for name in names:gmatch("%S+") do M.valued[name] = true end
  return p:option(names, ...)
end

--- A converter for an integer option: (name, lo, hi) -> function(s) giving
-- lo <= value <= hi, else nil and a usage error's message.
function M.int_in(name, lo, hi)
  return function(s)
    local v = math.tointeger(tonumber(s))
    if not v or v < lo or v > hi then
      return nil, ("%s takes an integer from %.0f to %.0f, got '%s'"):format(name, lo, hi, s)
    end
    return v
  end
end

--- "-" names standard output wherever a file is written: (path) -> path to open.
function M.out_path(path)
  if path == "-" then return "/dev/stdout" end
  return path
end

--- The tape format a file is written in: (a, path) -> "classic" or "text"; the format
-- option, else text for .txt and .ttape, else classic.
function M.out_format(a, path)
  if a.format then return a.format end
  if path:match("%.txt$") or path:match("%.ttape$") then return "text" end
  return "classic"
end

-- {==== files ====}

--- The one wording for an input that cannot be read: (path) -> path, or fails
-- with "FILE: cannot open: why" (cgwb.util.files.readable).
-- @function readable
M.readable = files.readable

--- Writes text to path ("-": standard output) through a temporary name and a
-- rename, so that a failure leaves no half-written file (exit 2; cgwb.util.files.write_text).
-- @function write_text
M.write_text = files.write_text

--- The decoded CALL.json at path: (path) -> table (the call option of cgwb kernel and
-- cgwb adjoint).
function M.read_call(path)
  local fh = io.open(M.readable(path), "rb")
  local text = fh:read("a")
  fh:close()
  return M.check(require("cgwb.json").decode(text, path))
end

-- {==== optional modules ====}

--- A module of another part of cgwb that may be absent from this build
-- (cgwb.tangent, cgwb.xaif): (name) -> the module or nil; any other error raises.
function M.optional(name)
  local ok, m = pcall(require, name)
  if ok then return m end
  if tostring(m):find("module '" .. name .. "' not found", 1, true) then return nil end
  error(m, 0)
end

--- The module an option needs: (name, option_name) -> the module, or exit 2
-- saying it is not available.
function M.needed(name, option_name)
  local m = M.optional(name)
  if not m then fail(2, ("%s is not available: this build has no %s module"):format(option_name, name)) end
  return m
end

return M
