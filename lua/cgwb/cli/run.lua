--- cgwb.cli.run: `cgwb run`, an experiment script with cgwb loaded.
-- @module cgwb.cli.run
local C = require "cgwb.cli.common"

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}

M.commands.run = {
  example = "cgwb run examples/markowitz.lua examples/tapes/bratu.tap --at examples/tapes/bratu.x",
  setup = function(p)
    p:argument("script", "The Lua script.")
    p:argument("args", "Arguments for the script, passed as they are (options too)."):args("*")
  end,
  run = function(a)
    -- A plug-in (cgwb.util.plugin) compiled, not run: the script's globals
    -- (arg, cgwb without require, its own) live in an environment of its
    -- own that reads through to _G, so running it writes no global of the
    -- process; what it raises is the script's (exit 1), not bad input.
    local script_arg = { [0] = a.script }
    for i, v in ipairs(a.args) do script_arg[i] = v end
    local chunk, env = require("cgwb.util.plugin").compile(C.readable(a.script),
                                                           { mode = "bt", env = { arg = script_arg } })
    package.loaded.cgwb = C.cgwb()
    env.cgwb = C.cgwb()
    chunk(table.unpack(a.args))
  end,
}

return M
