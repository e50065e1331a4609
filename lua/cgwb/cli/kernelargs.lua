--- cgwb.cli.kernelargs: the arguments of the commands that read kernels
-- (kernel, flatten, loops, adjoint): the kernel, --function, --assume,
-- lists of parameter names.
-- @module cgwb.cli.kernelargs
local C = require "cgwb.cli.common"
local fail, check, cgwb, readable = C.fail, C.check, C.cgwb, C.readable

local M = {}

--- The preprocessor's options of the commands that read C files (cgwb.kparse.cpp):
-- -I DIR, -D NAME[=VALUE], -U NAME (repeatable), --std c99|c11.
function M.cpp_options(p)
  C.option(p, "-I --include", "Add DIR to the preprocessor's include path (repeatable).")
    :argname("DIR"):count("*")
  C.option(p, "-D --define", "Define a macro for the preprocessor, NAME or NAME=VALUE (repeatable).")
    :argname("NAME[=VALUE]"):count("*")
  C.option(p, "-U --undefine", "Undefine a macro for the preprocessor (repeatable).")
    :argname("NAME"):count("*")
  C.option(p, "--std", "The C standard the preprocessor and the front end follow: c99 or c11 "
    .. "(default: the compiler's).")
  C.option(p, "--externals", "A Lua file returning the external functions the kernel calls and does not "
    .. "define, with their derivatives: {name = {tangent=, adjoint=, cells = {param = \"n\"}}} (doc/kernels.md, "
    .. "\"External functions\").")
end

--- The reading options of parsed arguments a: the preprocessor's flags and the
-- function to analyse (--function NAME: the functions it calls must be in the subset).
function M.kernel_opts(a)
  if a.std ~= nil and a.std ~= "c99" and a.std ~= "c11" then
    fail(2, ("--std '%s': expected c99 or c11"):format(a.std))
  end
  local f = a["function"]
  local functions = (f ~= nil and not math.tointeger(tonumber(f))) and { f } or nil
  local externals
  if a.externals then
    local ext, err = require("cgwb.util.plugin").pload(a.externals, { expect = "table",
      returns = "a table {name = declaration} of external functions" })
    if not ext then fail(2, err) end
    externals = ext
  end
  return { include = a.include, define = a.define, undef = a.undefine, std = a.std, functions = functions,
    externals = externals }
end

--- Reads a kernel file (exit 2 with "file:line:col: ..." when it is not one);
-- a (optional): the parsed arguments, for M.kernel_opts.
function M.read_kernel(path, a)
  local k = check(cgwb().read_kernel(readable(path), path, a and M.kernel_opts(a) or nil))
  M.note_left_alone(k)
  return k
end

--- Notes on stderr, one line each, the functions of the file that were read and
-- left alone (outside the kernel subset, not reached from --function).
function M.note_left_alone(k)
  local left = k.left_alone and k:left_alone() or {}
  for _, f in ipairs(left) do
    io.stderr:write(("cgwb: note: %s: left alone: %s\n"):format(f.name, f.why))
  end
end

--- The functions the function option names: (k, which) -> ids; which is a name or a
-- 1-based id, nil for all of them.
function M.kernel_functions(k, which)
  if which == nil then
    local ids = {}
    for _, f in ipairs(k:functions()) do ids[#ids + 1] = f.id end
    return ids
  end
  local id, err = k:function_id(math.tointeger(tonumber(which)) or which)
  if not id then fail(2, err) end
  return { id }
end

--- The one function a command works on: (k, which) -> id; the function option's
-- (a name or 1-based id), or the kernel's only function.
function M.one_function(k, which)
  if which ~= nil then return M.kernel_functions(k, which)[1] end
  local funcs = {}
  for _, f in ipairs(k:functions()) do
    if not f.external then funcs[#funcs + 1] = f end -- an external's body is elsewhere
  end
  if #funcs == 1 then return funcs[1].id end
  local names = {}
  for i, f in ipairs(funcs) do names[i] = f.name end
  fail(2, ("%s: --function F is needed (functions: %s)"):format(k:file(), table.concat(names, ", ")))
end

--- The assumptions as the analyses take them: (list) -> list ({"a!=b", ...}), each
-- option --assume checked to be NAME!=NAME or NAME==NAME.
function M.assumptions(list)
  for _, s in ipairs(list) do
    local a, op, b = s:match("^%s*([%a_][%w_]*)%s*([!=]=)%s*([%a_][%w_]*)%s*$")
    if not (a and op and b) then
      fail(2, ("--assume '%s': expected NAME!=NAME or NAME==NAME"):format(s))
    end
  end
  return list
end

-- The names of function id's pointer parameters, as a set.
local function pointer_params(k, id)
  local set = {}
  for _, sy in ipairs(k:symbols(id)) do
    if sy.kind == "param" and (sy.pointer or sy.rows or #sy.dims > 0) then set[sy.name] = true end
  end
  return set
end

--- The assumptions that name two pointer parameters of function id: (k, id, list) ->
-- list; an assumption is about the caller of the functions that have such parameters.
function M.assumptions_for(k, id, list)
  local ptr, out = pointer_params(k, id), {}
  for _, s in ipairs(list) do
    local a, b = s:match("^%s*([%a_][%w_]*)%s*[!=]=%s*([%a_][%w_]*)%s*$")
    if ptr[a] and ptr[b] then out[#out + 1] = s end
  end
  return out
end

--- Fails unless each assumption applies to one of the functions ids at least: (k, ids, list).
function M.check_assumptions(k, ids, list)
  for _, s in ipairs(list) do
    local used = false
    for _, id in ipairs(ids) do used = used or #M.assumptions_for(k, id, { s }) > 0 end
    if not used then
      fail(2, ("--assume '%s': no function shown has these two pointer parameters"):format(s))
    end
  end
end

--- A comma-separated list of parameter names: (s, what) -> list or nil (the value of
-- --independents x,z).
function M.name_list(s, what)
  if s == nil then return nil end
  local out = {}
  for item in (s .. ","):gmatch("([^,]*),") do
    item = item:match("^%s*(.-)%s*$")
    if not item:match("^[%a_][%w_]*$") then
      fail(2, ("%s '%s': expected parameter names separated by commas"):format(what, s))
    end
    out[#out + 1] = item
  end
  return out
end

return M
