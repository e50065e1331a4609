--- cgwb.cli.kernel: `cgwb kernel`, what the front end and the analyses find
-- in a kernel (the report's text: cgwb.present.kreport), and the interpreter (--call).
-- @module cgwb.cli.kernel
local C = require "cgwb.cli.common"
local K = require "cgwb.cli.kernelargs"
local fail, check, option, out_path = C.fail, C.check, C.option, C.out_path
local read_kernel, kernel_functions, assumptions, assumptions_for, check_assumptions =
  K.read_kernel, K.kernel_functions, K.assumptions, K.assumptions_for, K.check_assumptions

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

-- The control flow graph of k:cfg without its index by statement (the
-- vertices' stmts say the same), lists marked as arrays for JSON.
local function cfg_plain(g)
  local json = require "cgwb.json"
  local vs = json.array({})
  for i, v in ipairs(g.vertices) do
    vs[i] = { id = v.id, kind = v.kind, stmt = v.stmt, stmts = json.array(v.stmts),
              succ = json.array(v.succ), pred = json.array(v.pred) }
  end
  return { entry = g.entry, exit = g.exit, vertices = vs }
end

-- Integer keys of a sparse table, ascending.
local function int_keys(t)
  local keys = {}
  for key in pairs(t) do keys[#keys + 1] = key end
  table.sort(keys)
  return keys
end

-- The chains as lists in ascending order: {ud = {{access=, text=, line=, col=,
-- stmts={...}}...}, du = {{stmt=, stmts={...}}...}} (0 in stmts: outside).
local function chains_list(an)
  local json = require "cgwb.json"
  local ud, du = json.array({}), json.array({})
  for _, u in ipairs(int_keys(an.chains.ud)) do
    local ac = an.alias.accesses[u]
    ud[#ud + 1] = { access = u, text = ac.text, line = ac.line, col = ac.col,
                    stmts = json.array({ table.unpack(an.chains.ud[u]) }) }
  end
  for _, d in ipairs(int_keys(an.chains.du)) do
    du[#du + 1] = { stmt = d, stmts = json.array({ table.unpack(an.chains.du[d]) }) }
  end
  return { ud = ud, du = du }
end

-- One function's part of the report: a plain table (see doc/kernels.md).
local function kernel_report(k, id, a, funcs)
  local fi = funcs[id]
  local r = { id = id, name = fi.name, ret = fi.ret, params = fi.params, line = fi.line, col = fi.col,
              symbols = k:symbols(id), statements = k:statements(id), external = fi.external }
  if fi.external then return r end -- declared (--externals): no body to analyse
  if a.cfg then r.cfg = cfg_plain(k:cfg(id)) end
  if a.alias or a.chains or a.activity then
    local an = check(k:analyze(id, { assume = assumptions_for(k, id, a.assume) }))
    if a.alias then
      local al = an.alias
      r.alias = { objects = al.objects, sets = al.sets, accesses = al.accesses, assumed = al.assumed,
                  pairs = require("cgwb.kernel").alias_pairs(al) }
    end
    if a.chains then r.chains = chains_list(an) end
    if a.activity then r.activity = an.activity end
  end
  return r
end

-- Prints the report of each function as soon as it is made, so that only one
-- function's analyses are alive at a time (a kernel of 10^5 statements keeps
-- thousands).  The JSON is what json.encode gives for {file=, functions=[...]}
-- with an indent of 2: each function's object indented one level deeper.
local function kernel_stream(k, ids, a)
  local json, funcs = require "cgwb.json", k:functions()
  local function head() -- written with the first report: a failure there leaves stdout empty
    if a.json then
      io.write('{\n  "file": ', json.encode(a.kernel), ',\n  "functions": [')
    else
      io.write(a.kernel, "\n")
    end
  end
  if #ids == 0 then head() end
  for i, id in ipairs(ids) do
    local r = kernel_report(k, id, a, funcs)
    if i == 1 then head() end
    if a.json then
      local text = json.encode(r, 2, { inline_arrays = true }):gsub("\n", "\n    ")
      io.write(i > 1 and "," or "", "\n    ", text)
    else
      io.write("\n", require("cgwb.present.kreport").text(r))
    end
  end
  if a.json then io.write(#ids > 0 and "\n  ]\n}\n" or "]\n}\n") end
end

-- Runs the interpreter (--call, --jacobian) and prints the issue's JSON.
local function kernel_call(k, a)
  local ids = kernel_functions(k, a["function"])
  if #ids ~= 1 then fail(2, "--call needs --function (the kernel has several functions)") end
  local json = require "cgwb.json"
  local c = C.read_call(a.call)
  local r, err, kind = k:call(ids[1], c, { name = a.call })
  if not r then fail(kind == "input" and 2 or 1, err) end
  for _, note in ipairs(r.notes or {}) do io.stderr:write("cgwb kernel: ", note, "\n") end
  local out = { arrays = r.arrays, scalars = r.scalars, ["return"] = r["return"], stdout = r.stdout,
    stderr = r.stderr, exit = r.exit } -- printf's output, exit(n): only when there is some
  if a.jacobian then
    local J, jerr, jkind = k:jacobian_named(ids[1], c, { name = a.call })
    if not J then fail(jkind == "input" and 2 or 1, jerr) end
    out.jacobian = J
  end
  io.write(json.encode(out, 2, { inline_arrays = true, nonfinite = true }), "\n") -- a NaN is no void return
end

commands.kernel = {
  example = "cgwb kernel examples/kernels/utke-fig2.c --alias --chains\n"
    .. "  cgwb kernel examples/kernels/utke-fig2.c --call examples/kernels/utke-fig2.json --jacobian",
  setup = function(p)
    p:argument("kernel", "A kernel file in the C subset (doc/kernel-language.md).")
    option(p, "--function", "One function, by name or 1-based id (default: all).")
    p:flag("--cfg", "The control flow graph.")
    p:flag("--alias", "Address sets of every use and definition, must- and may-alias.")
    p:flag("--chains", "Reaching definitions: ud- and du-chains.")
    p:flag("--activity", "Activity analysis: the active variables.")
    option(p, "--assume", "An assumption on pointer parameters, 'a!=b' (never alias) or 'a==b' "
      .. "(repeatable)."):count("*")
    p:flag("--json", "Machine-readable output.")
    option(p, "--dot", "Write the control flow graph as DOT to FILE (- for standard output; all "
      .. "functions as clusters when no --function).")
    option(p, "--call", "Run the function on CALL.json (arrays and arguments; doc/kernels.md) and "
      .. "print arrays, scalars and return value as JSON.")
    p:flag("--jacobian", "With --call: also the Jacobian, by the interpreter's tangent mode.")
    K.cpp_options(p)
  end,
  run = function(a)
    if a.jacobian and not a.call then fail(2, "--jacobian needs --call CALL.json") end
    local k = read_kernel(a.kernel, a)
    if a.call then return kernel_call(k, a) end
    assumptions(a.assume)
    local ids = kernel_functions(k, a["function"])
    check_assumptions(k, ids, a.assume)
    if a.dot then
      local fh = io.open(out_path(a.dot), "wb")
      if not fh then fail(1, a.dot .. ": cannot write") end
      fh:write(require("cgwb.present.kreport").dot(k, ids))
      fh:close()
      if a.dot == "-" then return end
    end
    kernel_stream(k, ids, a)
  end,
}

return M
