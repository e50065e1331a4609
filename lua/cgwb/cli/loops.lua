--- cgwb.cli.loops: `cgwb loops`, the data-dependence graph of a kernel
-- function and which of its loops may be adjoined iteration by iteration.
-- @module cgwb.cli.loops
local C = require "cgwb.cli.common"
local K = require "cgwb.cli.kernelargs"
local check, option, write_text = C.check, C.option, C.write_text
local read_kernel, one_function, assumptions, assumptions_for, check_assumptions =
  K.read_kernel, K.one_function, K.assumptions, K.assumptions_for, K.check_assumptions

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

commands.loops = {
  example = "cgwb loops examples/kernels/hfh-dryrun.c --function dryrun\n"
    .. "  cgwb loops examples/kernels/hfh-overlap.c --assume 'a!=b' --json",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    p:flag("--json", "Machine-readable output: the loops as `cgwb adjoint --report` lists them (doc/adjoint-loops.md).")
    option(p, "--dot", "Write the data-dependence graph as DOT to FILE (- for standard output).")
    K.cpp_options(p)
  end,
  run = function(a)
    assumptions(a.assume)
    local k = read_kernel(a.input, a)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    local loops = require "cgwb.loops"
    local info = check(loops.analyse(k, id, { assume = assumptions_for(k, id, a.assume) }))
    local report
    if a.json then
      report = require("cgwb.json").encode({ ["function"] = info.func, loops = loops.report(info) }, 2,
        { inline_arrays = true }) .. "\n"
    else
      report = loops.text(info, a.input)
    end
    if a.dot then
      local dot = loops.dot(info)
      if a.dot == "-" then io.stdout:write(dot); io.stderr:write(report) return end
      write_text(a.dot, dot)
    end
    io.write(report)
  end,
}

return M
