--- The cgwb command line: a thin layer over the Lua API.
-- Results go to stdout, everything else to stderr.  Exit status 0 on success,
-- 1 on a runtime error (out of memory too), 2 on bad usage or bad input, 3 when a point leaves the
-- branch recorded on the tape (doc/usage.md, "Exit status").
--
-- This module is the entry point: the registry of commands, the parser, the
-- dispatch and the exit statuses.  Each command lives in a module of its
-- family (cgwb.cli.tape: stats and convert; cgwb.cli.graph: graph, eval and
-- codegen; ...), required only when that command runs or its options are
-- shown.  A module returns `{ commands = { NAME = { example =, setup =,
-- run = } } }`: setup(p) declares the options on the command's argparse
-- parser, run(a) does the work with the parsed arguments and leaves through
-- cgwb.util.errors (fail(code, msg)) on failure.  A command exists when it
-- has a row in `registry` below, its name, module and one-line help, in the
-- order the help lists them; spec/10-cli_spec.lua fails on a command a
-- module defines that has no row, and on a row without help, example, setup
-- or run.
-- @module cgwb.cli
local argparse = require "argparse"
local errors = require "cgwb.util.errors"

local M = {}

--- Raises an error that carries its exit status: fail(code, msg) (the commands' way out;
-- cgwb.util.errors.fail).
-- @function fail
M.fail = errors.fail

local function cgwb() return require "cgwb" end

-- {==== the registry ====}

--- The commands, in the order the help lists them: name, the module that
-- defines it, its one-line help.  The one place a command is registered.
M.registry = {
  { name = "run", module = "cgwb.cli.run",
    help = "Runs an experiment script with cgwb preloaded; every argument after the script "
      .. "is the script's (arg and ... as in lua)." },
  { name = "stats", module = "cgwb.cli.tape",
    help = "Tape statistics in the form of Table 1 of Bischof & Hu 1991." },
  { name = "convert", module = "cgwb.cli.tape",
    help = "Converts between tape formats (ADOL-C set -> classic, classic <-> text)." },
  { name = "trace", module = "cgwb.cli.trace",
    help = "Records a tape from a Lua function through the tracer." },
  { name = "graph", module = "cgwb.cli.graph",
    help = "Builds the computational graph; Tables 2-4 of Bischof & Hu 1991, histograms, memory." },
  { name = "eval", module = "cgwb.cli.graph",
    help = "Evaluates the dependents through the graph, one value per line (exit 3 if the point "
      .. "leaves a recorded branch)." },
  { name = "codegen", module = "cgwb.cli.graph",
    help = "C code for the graph, scheduled by levels, slots from the live analysis (Bischof & Hu 1991, sec. 3)." },
  { name = "jacobian", module = "cgwb.cli.elim",
    help = "Accumulates the Jacobian of a tape by elimination on its linearized graph "
      .. "(exit 3 if --at leaves a recorded branch)." },
  { name = "eliminate", module = "cgwb.cli.elim",
    help = "Eliminates a graph file (.cg or EliAD), for ordering research without a tape." },
  { name = "kernel", module = "cgwb.cli.kernel",
    help = "Reads a kernel in the C subset: functions, statements, control flow, alias sets, "
      .. "chains, activity (Utke, Flattening; Hovland, Norris, Utke & Strout); runs it with --call." },
  { name = "flatten", module = "cgwb.cli.flatten",
    help = "Flattens a kernel function's basic blocks into term graphs (Utke, Flattening Basic Blocks, "
      .. "Algorithms 1 and 2); preaccumulated tangent code, XAIF." },
  { name = "loops", module = "cgwb.cli.loops",
    help = "The data-dependence graph of a kernel function and which loops may be adjoined iteration by "
      .. "iteration: access classes, verdict, terminal, dry run, snapshot (Hascoet, Fidanova & Held)." },
  { name = "adjoint", module = "cgwb.cli.adjoint",
    help = "Adjoint C code of a kernel function (F_b); independent loops adjoined iteration by iteration, "
      .. "dry-run when not terminal (Hascoet, Fidanova & Held)." },
  { name = "sweep", module = "cgwb.cli.sweep",
    help = "Runs a plan of jobs (inputs x orderings x modes x seeds x budgets), one JSON line each, "
      .. "here, with GNU parallel, over ssh or as a Slurm array; merges them into a CSV and a summary." },
}

-- name -> registry row
local row_of = {}
for _, r in ipairs(M.registry) do row_of[r.name] = r end

--- The command names in the registry's order.
M.order = {}
for i, r in ipairs(M.registry) do M.order[i] = r.name end

--- The command `name` ({help, example, setup, run}), its module required
-- (nil for a name that is not registered).
function M.command(name)
  local r = row_of[name]
  if not r then return nil end
  local c = require(r.module).commands[name]
  if not c then error(("cgwb.cli: %s registers '%s' but does not define it"):format(r.module, name), 2) end
  c.help = r.help
  return c
end

--- The commands by name, each required at its first use (M.command).
M.commands = setmetatable({}, {
  __index = function(t, name)
    local c = M.command(name)
    if c then rawset(t, name, c) end
    return c
  end,
})

-- }====

-- {==== main ====}

local function version_text()
  return ("cgwb %s (%s)"):format(cgwb().version, _VERSION)
end

-- Whether sub-parser `sub` has an option named `name` already.
local function has_option(sub, name)
  for _, o in ipairs(sub._options) do
    for _, alias in ipairs(o._aliases) do
      if alias == name then return true end
    end
  end
  return false
end

-- The parser and one sub-parser per command (for their usage lines).  With
-- `only` (a command's name), only that command's options are set up (and
-- only its module required): a process runs one command, and the other
-- commands' options (some ask the core for lists of names) would only cost
-- start-up time.
local function build_parser(only)
  local p = argparse("cgwb", "A Lua-scriptable research workbench for automatic differentiation.")
    :epilog("Examples:\n  cgwb run examples/markowitz.lua examples/tapes/bratu.tap\n"
      .. "  cgwb help jacobian\n\n`cgwb help COMMAND` or `cgwb COMMAND --help` for a command's options; "
      .. "doc/usage.md for the manual.")
  p:command_target("command")
  p:require_command(true)
  p:flag("--version", "Print the version and exit.")
  local subs = {}
  for _, r in ipairs(M.registry) do
    local name = r.name
    local sub = p:command(name, r.help)
    if not only or only == name then
      local c = M.commands[name]
      c.setup(sub)
      if not has_option(sub, "--quiet") then -- a command may say more about it
        sub:flag("--quiet", "No progress on stderr (doc/usage.md, \"Progress and --quiet\").")
      end
      sub:epilog("Example:\n  " .. c.example)
    end
    subs[name] = sub
  end
  p:command("help", "Show the help of a command: cgwb help COMMAND."):argument("topic"):args("?")
  return p, subs
end
--- The argparse parser of the command line: ([only]) -> parser, subcommands (for the tests).
-- @function build_parser
M.build_parser = build_parser -- for the tests: the parser of one command against the whole one

-- A negative number after an option that takes a value is that value:
-- "--seed -3" becomes "--seed=-3" (argparse would take "-3" for an option).
local function join_negatives(list)
  local valued = require("cgwb.cli.common").valued
  local out = {}
  for i = 1, #list do
    local prev = out[#out]
    if prev and valued[prev] and prev:match("^%-%-") and list[i]:match("^%-[%d.]") and tonumber(list[i]) then
      out[#out] = prev .. "=" .. list[i]
    else
      out[#out + 1] = list[i]
    end
  end
  return out
end

-- A message as stderr shows it: a byte that is not part of UTF-8 text, and
-- a control byte but tab and newline, as \xHH (a NUL as \x00), whatever it
-- quotes (an argument, a path); kparse shows the kernel's own bytes so.
local function shown(msg)
  local out, i = {}, 1
  while true do
    local ok, bad = utf8.len(msg, i)
    if ok then out[#out + 1] = msg:sub(i) break end
    out[#out + 1] = msg:sub(i, bad - 1)
    out[#out + 1] = ("\\x%02x"):format(msg:byte(bad))
    i = bad + 1
  end
  return (table.concat(out):gsub("%c", function(c)
    return (c == "\t" or c == "\n") and c or ("\\x%02x"):format(c:byte())
  end))
end
--- A message as the command line prints it: (msg) -> text, bytes that are not UTF-8 text and
-- control bytes (but tab and newline) as \xHH.
-- @function shown
M.shown = shown

-- Prints the usage of the command named in list (or the top level's), then
-- the message; returns 2.
local function usage_error(parser, subs, list, msg)
  local name
  for _, w in ipairs(list) do
    if subs[w] then name = w; break end
  end
  local usage = name and subs[name]:get_usage() or parser:get_usage()
  io.stderr:write(usage, "\n\ncgwb", name and (" " .. name) or "", ": ", shown(tostring(msg)), "\n")
  if name then io.stderr:write("(cgwb help ", name, " for the options)\n") end
  return 2
end

-- Whether a failure's message is the memory's, not the input's: the memory
-- limit (CGWB_MEMORY_LIMIT: "memory limit of ... reached", an ordering that
-- "would need more than ...", the graph build's "over the memory limit of"),
-- an allocation the core could not make (CG_ENOMEM: "... out of memory ...")
-- or one Lua could not ("not enough memory").  The API returns some of them
-- as nil, message, the way it returns bad input; their exit status is 1.
local function memory_failure(msg)
  if type(msg) ~= "string" then return false end
  for _, s in ipairs { "(CGWB_MEMORY_LIMIT)", "over the memory limit of", "out of memory", "not enough memory" } do
    if msg:find(s, 1, true) then return true end
  end
  return false
end
--- Whether an error message is a memory failure (the memory limit, the core's or Lua's out of
-- memory): (msg) -> boolean.  The command line exits 1 on those, never 2.
-- @function memory_failure
M.memory_failure = memory_failure

-- The failure of a command's run as an error of cgwb.util.errors.  A memory
-- error of Lua's own (LUA_ERRMEM) reaches here as its message: xpcall runs no
-- handler for it.  A memory failure exits 1 whichever path reported it.
local function failure(err)
  if not errors.is(err) then err = errors.bug(tostring(err)) end
  if err.code == 2 and memory_failure(err.msg) then err.code = 1 end
  return err
end

-- Runs command `name` with the parsed arguments `a`; returns the exit status.
local function dispatch(name, a)
  a.command = name
  if a.quiet then require("cgwb.progress").quiet(true) end
  local ok, err = xpcall(M.commands[name].run, function(e)
    if errors.is(e) then return e end -- its code and message
    return errors.bug(tostring(e), debug.traceback()) -- anything else raised: exit 1, the trace for CGWB_DEBUG
  end, a)
  if ok then
    io.stdout:flush()
    return 0
  end
  err = failure(err)
  require("cgwb.progress").quiet(true) -- closes a progress line left open before the message
  io.stderr:write("cgwb ", name, ": ", shown(err.msg), "\n")
  local trace = err.kind == "bug" and err.data and err.data.trace
  if trace and os.getenv("CGWB_DEBUG") then io.stderr:write(trace, "\n") end
  return err.code
end

--- Runs the command line `args` (an arg table); returns the exit status.
function M.main(args)
  local list = {}
  for i = 1, #args do list[i] = args[i] end
  if list[1] == "--version" then
    print(version_text())
    return 0
  end
  local only = list[1] == "help" and list[2] or list[1]
  local parser, subs = build_parser(row_of[only] and only or nil)
  if list[1] == "help" then
    local topic = list[2]
    if topic == nil then io.write(parser:get_help(), "\n") return 0 end
    if not subs[topic] then return usage_error(parser, subs, {}, ("unknown command '%s'"):format(topic)) end
    io.write(subs[topic]:get_help(), "\n")
    return 0
  end
  -- cgwb run SCRIPT ARGS...: everything after the script is the script's
  if list[1] == "run" and list[2] and not list[2]:match("^%-") then
    return dispatch("run", { script = list[2], args = { table.unpack(list, 3) } })
  end
  if (list[1] == "jacobian" or list[1] == "eliminate") then
    for _, w in ipairs(list) do
      if w == "--list-orderings" then io.write(require("cgwb.cli.elim").orderings_text()) return 0 end
    end
  end
  local ok, a = parser:pparse(join_negatives(list))
  if not ok then return usage_error(parser, subs, list, a) end
  return dispatch(a.command, a)
end

return M
