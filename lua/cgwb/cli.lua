--- The cgwb command line: a thin layer over the Lua API.
-- Results go to stdout, everything else to stderr.  Exit status 0 on success,
-- 1 on a runtime error, 2 on bad usage or bad input, 3 when an evaluation
-- leaves the recorded branch (DESIGN.md, "Command line").
local argparse = require "argparse"

local M = {}

-- An error that carries its exit status through error().
local Fail = {}
Fail.__index = Fail
Fail.__tostring = function(f) return f.msg end

local function fail(code, msg) error(setmetatable({ code = code, msg = msg }, Fail), 0) end
M.fail = fail

-- Unwraps `nil, msg` results of the API as bad-input failures.
local function check(v, msg, code)
  if v == nil then fail(code or 2, msg) end
  return v
end

local function cgwb() return require "cgwb" end

-- Reads a point file (--at X).
local function read_point(path)
  return check(cgwb().read_point(path))
end

-- {==== commands ====}

local commands = {}

commands.stats = {
  help = "Tape statistics in the form of seed 000's Table 1.",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape (any file of the set).")
    p:flag("--json", "Machine-readable output.")
  end,
  run = function(a)
    local s = check(cgwb().tape_stats(a.tape))
    if a.json then
      local json = require "cgwb.json"
      local opcodes = {}
      for _, o in ipairs(s.opcodes) do
        if o.name ~= "death_not" then opcodes[o.name] = o.count end
      end
      local out = {
        file = a.tape, format = s.format, independents = s.independents,
        dependents = s.dependents, operations = s.operations,
        operation_bytes = s.operation_bytes, death_notices = s.death_notices,
        max_live = s.max_live, peak_live = s.peak_live, locations = s.locations,
        opcodes = opcodes, version = s.version, header = s.header,
        adolc_stats = s.stats,
      }
      io.write(json.encode(out, 2), "\n")
      return
    end
    local report = require "cgwb.report"
    io.write(("%s\n"):format(a.tape))
    io.write(table.concat(report.header_lines(s), "\n"), "\n\n")
    io.write(report.table1(s), "\n\n")
    io.write(("independents      %d\n"):format(s.independents))
    io.write(("dependents        %d\n"):format(s.dependents))
    io.write(("death notices     %d (%d bytes)\n"):format(s.death_notices, s.death_bytes))
    io.write(("max live (header) %d\n"):format(s.max_live))
    io.write(("locations used    %d\n"):format(s.locations))
    io.write(("peak live values  %d\n"):format(s.peak_live))
  end,
}

local function out_format(a)
  if a.format then return a.format end
  if a.output:match("%.txt$") or a.output:match("%.ttape$") then return "text" end
  return "classic"
end

commands.convert = {
  help = "Converts between tape formats (ADOL-C set -> classic, classic <-> text).",
  setup = function(p)
    p:argument("input", "Tape to read.")
    p:argument("output", "Tape to write (.txt: text, otherwise classic).")
    p:option("--at", "Values of the independents, one per line (ADOL-C tapes carry none).")
    p:option("--format", "Output format."):choices { "classic", "text" }
  end,
  run = function(a)
    local tape = check(cgwb().read_tape(a.input))
    if a.at then
      local x = read_point(a.at)
      if #x ~= tape:n() then
        fail(2, ("%s: %d values for %d independents"):format(a.at, #x, tape:n()))
      end
      tape:set_x0(x)
    end
    check(tape:write(a.output, out_format(a)))
  end,
}

commands.trace = {
  help = "Records a tape from a Lua function through the tracer.",
  setup = function(p)
    p:argument("script", "A Lua script returning { f = function(x, T) ... end, x0 = {...} }.")
    p:option("-o --output", "Tape to write (.txt: text, otherwise classic)."):count(1)
    p:option("--format", "Output format."):choices { "classic", "text" }
    p:option("--set", "Script option NAME=VALUE (repeatable), passed in opts."):count("*")
  end,
  run = function(a)
    local opts = {}
    for _, kv in ipairs(a.set) do
      local k, v = kv:match("^([%w_]+)=(.*)$")
      if not k then fail(2, "--set expects NAME=VALUE, got " .. kv) end
      opts[k] = tonumber(v) or v
    end
    local tape = check(require("cgwb.trace").run_script(a.script, opts))
    check(tape:write(a.output, out_format(a)))
  end,
}

commands.run = {
  help = "Runs an experiment script with cgwb preloaded (arg and ... as in lua).",
  setup = function(p)
    p:argument("script", "The Lua script.")
    p:argument("args", "Arguments for the script."):args("*")
  end,
  run = function(a)
    local chunk, err = loadfile(a.script)
    if not chunk then fail(2, err) end
    package.loaded.cgwb = cgwb()
    local script_arg = { [0] = a.script }
    for i, v in ipairs(a.args) do script_arg[i] = v end
    _G.arg = script_arg
    _G.cgwb = cgwb() -- experiment scripts may use cgwb without require
    chunk(table.unpack(a.args))
  end,
}

local order = { "run", "stats", "convert", "trace" }
M.commands, M.order = commands, order

-- {==== main ====}

local function build_parser()
  local p = argparse("cgwb", "A Lua-scriptable research workbench for automatic differentiation.")
  p:command_target("command")
  p:require_command(true)
  for _, name in ipairs(order) do
    local c = commands[name]
    local sub = p:command(name, c.help)
    c.setup(sub)
  end
  return p
end

--- Runs the command line `args` (an arg table); returns the exit status.
function M.main(args)
  local parser = build_parser()
  local list = {}
  for i = 1, #args do list[i] = args[i] end
  local ok, a = parser:pparse(list)
  if not ok then
    io.stderr:write(parser:get_usage(), "\n\ncgwb: ", a, "\n")
    return 2
  end
  local ok2, err = xpcall(commands[a.command].run, function(e)
    if getmetatable(e) == Fail then return e end
    return { code = 1, msg = tostring(e), trace = debug.traceback() }
  end, a)
  if ok2 then
    io.stdout:flush()
    return 0
  end
  io.stderr:write("cgwb ", a.command, ": ", err.msg, "\n")
  if err.trace and os.getenv("CGWB_DEBUG") then io.stderr:write(err.trace, "\n") end
  return err.code
end

return M
