--- cgwb.cli.adjoint: `cgwb adjoint`, adjoint C code of a kernel function,
-- loops proven independent adjoined iteration by iteration.
-- @module cgwb.cli.adjoint
local C = require "cgwb.cli.common"
local K = require "cgwb.cli.kernelargs"
local fail, check, option, write_text = C.fail, C.check, C.option, C.write_text
local read_kernel, one_function, assumptions, assumptions_for, check_assumptions, name_list =
  K.read_kernel, K.one_function, K.assumptions, K.assumptions_for, K.check_assumptions, K.name_list

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

-- --loops: "auto", "none", a comma-separated list of line numbers, or a Lua
-- file returning a function of a loop's row (true: adjoin it per iteration).
local function loops_choice(s)
  if s == "auto" or s == "none" then return s end
  if s:match("%.lua$") then -- a plug-in (cgwb.util.plugin) returning the function
    return require("cgwb.util.plugin").load(s, { expect = "function", returns = "a function decide(loop)" })
  end
  local out = {}
  for item in (s .. ","):gmatch("([^,]*),") do
    local v = math.tointeger(tonumber(item))
    if not v or v < 1 then fail(2, ("--loops '%s': expected auto, none or line numbers separated by commas"):format(s)) end
    out[#out + 1] = v
  end
  return out
end

commands.adjoint = {
  example = "cgwb adjoint examples/kernels/meshflux.c --function residual --loops auto -o residual_b.c "
    .. "--report residual.json",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--independents", "Independent parameters, comma separated (default: the double parameters read).")
    option(p, "--dependents", "Dependent parameters (or return), comma separated (default: those written).")
    option(p, "--loops", "Which loops are adjoined per iteration: auto (every one the analysis accepts), "
      .. "none (the standard adjoint), the lines of their `for`, comma separated, or FILE.lua returning "
      .. "a function decide(loop) of the loop's row (doc/adjoint-loops.md); a loop the analysis refuses is "
      .. "refused with its reason either way.", "auto")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    option(p, "-o --output", "The C file to write (cgwb_adstack.h is written next to it).")
    option(p, "--report", "Write the loops' verdicts and the function's activity as JSON to FILE.")
    option(p, "--call", "With --report: a CALL.json (as `cgwb kernel --call`): compiles the standard and the "
      .. "transformed adjoint with cc and measures their tape and snapshot bytes on that call.")
    K.cpp_options(p)
  end,
  run = function(a)
    if not a.output then fail(2, "cgwb adjoint needs -o OUT.c") end
    if a.call and not a.report then fail(2, "--call needs --report FILE.json (the measures go there)") end
    local sel = loops_choice(a.loops)
    assumptions(a.assume)
    local k = read_kernel(a.input, a)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    local adjoint = require "cgwb.adjoint"
    local fname = k:functions()[id].name
    local opts = { assume = assumptions_for(k, id, a.assume), loops = sel,
                   independents = name_list(a.independents, "--independents"),
                   dependents = name_list(a.dependents, "--dependents") }
    local call
    if a.call then
      call = check(require("cgwb.kernel").core_call(k, id, C.read_call(a.call), { name = a.call }))
    end
    local code, report = adjoint.emit(k, fname, opts)
    if not code then fail(2, report) end
    local hdr_path = adjoint.runtime_header()
    if not hdr_path then fail(1, "the runtime header cgwb_adstack.h is not installed with the modules") end
    local fh = assert(io.open(hdr_path, "rb"))
    local hdr = fh:read("a")
    fh:close()
    if call then
      local function with_loops(loops) -- opts with another loop choice
        local o = {}
        for key, v in pairs(opts) do o[key] = v end
        o.loops = loops
        return o
      end
      local std = opts.loops == "none" and code or check(adjoint.emit(k, fname, with_loops("none")))
      local tr = opts.loops == "none" and check(adjoint.emit(k, fname, with_loops("auto"))) or code
      local m = check(adjoint.measure(k, fname, { standard = std, transformed = tr }, call))
      report.variants = m
    end
    local outputs = { { a.output, code } } -- every text is made before any file is written
    if a.output ~= "-" then
      local dir = a.output:match("^(.*)/[^/]*$") or "."
      outputs[#outputs + 1] = { dir .. "/cgwb_adstack.h", hdr }
    end
    if a.report then
      outputs[#outputs + 1] = { a.report, require("cgwb.json").encode(report, 2, { inline_arrays = true }) .. "\n" }
    end
    for _, o in ipairs(outputs) do write_text(o[1], o[2]) end
    if #report.work > 0 and not a.quiet then
      io.stderr:write(("cgwb adjoint: note: %s %s active but neither independent nor dependent (work arrays): "
        .. "F_b reads their adjoints where %s overwrites them; pass them zeroed\n"):format(table.concat(report.work, ", "),
        #report.work == 1 and "is" or "are", fname))
    end
  end,
}

return M
