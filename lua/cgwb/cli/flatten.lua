--- cgwb.cli.flatten: `cgwb flatten`, a kernel function's basic blocks as term
-- graphs; preaccumulated tangent code, XAIF; an XAIF file described.
-- @module cgwb.cli.flatten
local C = require "cgwb.cli.common"
local K = require "cgwb.cli.kernelargs"
local fail, check, readable, option, write_text, optional, needed = C.fail, C.check, C.readable, C.option,
  C.write_text, C.optional, C.needed
local read_kernel, one_function, assumptions, assumptions_for, check_assumptions, name_list =
  K.read_kernel, K.one_function, K.assumptions, K.assumptions_for, K.check_assumptions, K.name_list

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

-- Whether the input is an XAIF file: named .xaif, or XML text.
local function is_xaif(path)
  if path:match("%.xaif$") then return true end
  local fh = io.open(path, "rb")
  if not fh then return false end
  local head = fh:read(5)
  fh:close()
  return head == "<?xml"
end

-- The report (describe's table) as --json or as text.
local function flatten_report(t, a)
  if a.json then return require("cgwb.json").encode(t, 2, { inline_arrays = true }) .. "\n" end
  return require("cgwb.flatten").text(t, a.input)
end

-- cgwb flatten FILE.xaif: the graphs an XAIF file describes, as for a kernel.
local function flatten_xaif(a)
  for _, o in ipairs { "function", "split", "dot", "xaif", "emit", "independents", "dependents" } do
    if a[o] then fail(2, ("%s: --%s needs a kernel (an XAIF file is only described)"):format(a.input, o)) end
  end
  if a.prune or #a.assume > 0 then
    fail(2, ("%s: --%s needs a kernel (an XAIF file is only described)"):format(a.input, a.prune and "prune" or "assume"))
  end
  local xaif = needed("cgwb.xaif", "XAIF import")
  local fh = io.open(readable(a.input), "rb")
  local text = fh:read("a")
  fh:close()
  local model = check(xaif.read(text, a.input))
  io.write(flatten_report(xaif.describe(model), a))
end

-- Fails unless at most one output is standard output.
local function one_stdout(a)
  local seen
  for _, o in ipairs { "dot", "xaif", "output" } do
    if a[o] == "-" then
      if seen then fail(2, ("--%s - and --%s - would both write to standard output"):format(seen, o)) end
      seen = o
    end
  end
  return seen
end

commands.flatten = {
  example = "cgwb flatten examples/kernels/utke-fig2.c --function fig2 --json\n"
    .. "  cgwb flatten examples/kernels/flux1d.c --split examples/split-intrinsics.lua",
  setup = function(p)
    p:argument("input", "A kernel file in the C subset (doc/kernel-language.md), or an XAIF file "
      .. "(.xaif or XML text: its graphs are described).")
    option(p, "--function", "The function, by name or 1-based id (default: the kernel's only one).")
    option(p, "--split", "Split strategy: " .. table.concat(require("cgwb.flatten").strategies, ", ")
      .. ", or FILE.lua returning a function split(info) (default minimal).")
    option(p, "--independents", "Independent parameters for activity, comma separated (with --prune).")
    option(p, "--dependents", "Dependent parameters (or return) for activity, comma separated (with --prune).")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' or 'a==b' (repeatable)."):count("*")
    p:flag("--prune", "Activity analysis decides what is active; dead assignments are left out.")
    p:flag("--json", "Machine-readable output (doc/flattening.md, \"cgwb flatten\").")
    option(p, "--dot", "Write the term graphs as DOT to FILE (- for standard output).")
    option(p, "--xaif", "Write the flattened function as XAIF to FILE (- for standard output).")
    option(p, "--emit", "Write code: 'tangent' (preaccumulated tangent code, to -o), 'tangent-vector' (its "
      .. "vector mode, F_dv: many directions a call)."):choices { "tangent", "tangent-vector" }
    option(p, "-o --output", "The file --emit writes (- for standard output).")
    option(p, "--order", "Elimination ordering of the subgraphs, as `cgwb eliminate --order` takes it.",
      "markowitz")
    K.cpp_options(p)
  end,
  run = function(a)
    if is_xaif(a.input) then return flatten_xaif(a) end
    if a.emit and not a.output then fail(2, "--emit " .. a.emit .. " needs -o OUT.c") end
    if a.output and not a.emit then fail(2, "-o needs --emit tangent") end
    local to_stdout = one_stdout(a)
    assumptions(a.assume)
    local k = read_kernel(a.input, a)
    local id = one_function(k, a["function"])
    check_assumptions(k, { id }, a.assume)
    if a.split and a.split:match("%.lua$") then readable(a.split) end
    if a.order:match("%.lua$") then readable(a.order) end
    local tangent = optional "cgwb.tangent"
    local spec -- as tangent code takes it, where tangent code is available
    if tangent then spec = check(tangent.order_spec({ order = a.order }))
    else spec = check(require("cgwb.elim").resolve(a.order, "vertex")) end
    local flatten, fname = require "cgwb.flatten", k:functions()[id].name
    local opts = { split = a.split, assume = assumptions_for(k, id, a.assume), prune = a.prune,
                   independents = name_list(a.independents, "--independents"),
                   dependents = name_list(a.dependents, "--dependents") }
    collectgarbage() -- the parse's garbage, before the flattening's tables (peak memory)
    local res = check(flatten.run(k, fname, opts))
    collectgarbage() -- the analyses' garbage
    local costs = tangent and check(tangent.costs(res, { order = spec, kernel = k, assume = opts.assume, prune = opts.prune,
      independents = opts.independents, dependents = opts.dependents })) -- the kernel: for the statement-level costs
    local outputs = {} -- every text is made before any file is written
    if a.dot then outputs[#outputs + 1] = { a.dot, flatten.dot(res) } end
    if a.xaif then outputs[#outputs + 1] = { a.xaif, check(needed("cgwb.xaif", "--xaif").write(k, fname, res, opts)) } end
    if a.emit then
      local eopts = { order = spec, vector = a.emit == "tangent-vector" }
      for key, v in pairs(opts) do eopts[key] = v end
      outputs[#outputs + 1] = { a.output, check(needed("cgwb.tangent", "--emit tangent").emit(k, fname, eopts)) }
    end
    local report = flatten_report(flatten.describe(res, costs), a)
    io.stdout:flush()
    for _, o in ipairs(outputs) do write_text(o[1], o[2]) end
    if to_stdout then io.stdout:flush(); io.stderr:write(report) else io.write(report) end
  end,
}

return M
