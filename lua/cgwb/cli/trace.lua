--- cgwb.cli.trace: `cgwb trace`, a tape recorded by the Lua tracer.
-- @module cgwb.cli.trace
local C = require "cgwb.cli.common"
local fail, check, option = C.fail, C.check, C.option

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}

M.commands.trace = {
  example = "cgwb trace examples/lua/bratu.lua --set nx=10 --set ny=10 -o bratu-small.tap",
  setup = function(p)
    p:argument("script", "A Lua script returning { f = function(x, T, o) ... end, x0 = {...} or "
      .. "function(o), options = {...}, name = ... } (doc/tracer.md).")
    option(p, "-o --output", "Tape to write (.txt: text, otherwise classic; - for standard output)."):count(1)
    option(p, "--format", "Output format."):choices { "classic", "text" }
    option(p, "--set", "Script option NAME=VALUE (repeatable), passed in opts."):count("*")
  end,
  run = function(a)
    local opts = {}
    for _, kv in ipairs(a.set) do
      local k, v = kv:match("^([%w_]+)=(.*)$")
      if not k then fail(2, "--set expects NAME=VALUE, got " .. kv) end
      opts[k] = tonumber(v) or v
    end
    local tape = check(require("cgwb.trace").run_script(C.readable(a.script), opts))
    check(tape:write(C.out_path(a.output), C.out_format(a, a.output)))
  end,
}

return M
