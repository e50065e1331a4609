--- cgwb.kparse.externals: functions a kernel calls and does not define (a
-- library's solver, a BLAS routine), declared by the user with their
-- derivatives (opts.externals, `--externals FILE.lua`; doc/kernels.md,
-- "External functions"), as Tapenade's and ADOL-C's external-function
-- mechanisms have them.  Each is a function row with no body (BODY -1) and
-- its parameters' symbols, after the file's functions, so a call of it is
-- an ordinary CALL: the analyses see what its prototype says (a const
-- pointer is read, another may be written, whole), generated code calls
-- the user's C functions, the interpreter the user's Lua value if given.  The
-- declaration, checked here, goes with the rows as flat.externals[func
-- id] = {name, tangent, tangent_vector, adjoint, cells = {param -> C int
-- expression of the int parameters}, value, tangent_value (the Lua
-- functions the interpreter calls: cgwb.kernel)}.  Adds methods to the lowering object.
local L = require "cgwb.kparse.ctypes"
local errors = require "cgwb.util.errors"

local KEYS = { tangent = true, tangent_vector = true, adjoint = true, cells = true, value = true,
  tangent_value = true }

local function bad(name, fmt, ...)
  error(errors.input(("externals: %s: " .. fmt):format(name, ...)), 0)
end

--- The C name of a declaration's field: a C identifier or the default.
local function c_name(name, d, key, default)
  local v = d[key]
  if v == nil then return default end
  if type(v) ~= "string" or not v:match("^[%a_][%w_]*$") then bad(name, "%s must be a C function name", key) end
  return v
end

--- Checks declaration d of external function fn (its signature): the
-- record flat.externals keeps.
function L:external_decl(name, d, fn)
  if type(d) ~= "table" then bad(name, "the declaration must be a table") end
  local keys = {}
  for k in pairs(d) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not KEYS[k] then
      bad(name, "unknown field '%s' (tangent, tangent_vector, adjoint, cells, value, tangent_value)", k)
    end
  end
  for _, k in ipairs { "value", "tangent_value" } do
    if d[k] ~= nil and type(d[k]) ~= "function" then bad(name, "%s must be a Lua function", k) end
  end
  local params, ints = {}, {}
  for _, p in ipairs(fn.sparams or fn.params) do
    if p.stype then bad(name, "a struct parameter ('%s'): external functions take ints, doubles and pointers to them", p.name or "?") end
    if p.name then params[p.name] = p end
    if p.name and p.ptr == 0 and p.ndim == 0 and p.base == "int" then ints[p.name] = true end
  end
  local cells = {}
  if d.cells ~= nil and type(d.cells) ~= "table" then bad(name, "cells must be a table {param = \"C expression\"}") end
  local cnames = {}
  for k in pairs(d.cells or {}) do cnames[#cnames + 1] = tostring(k) end
  table.sort(cnames)
  for _, pn in ipairs(cnames) do
    local p, e = params[pn], d.cells[pn]
    if not p or (p.ptr == 0 and p.ndim == 0) then bad(name, "cells.%s: no pointer parameter '%s'", pn, pn) end
    if type(e) == "number" and math.tointeger(e) then e = tostring(math.tointeger(e)) end
    if type(e) ~= "string" or not e:match("^[%w_%s%+%-%*/%%()]+$") then
      bad(name, "cells.%s: a C int expression of the int parameters ('n', 'n * m', '3 * n + 1')", pn)
    end
    for w in e:gmatch("[%a_][%w_]*") do
      if not ints[w] then bad(name, "cells.%s: '%s' is no int parameter of %s", pn, w, name) end
    end
    cells[pn] = e
  end
  return { name = name, tangent = c_name(name, d, "tangent", name .. "_d"),
    tangent_vector = c_name(name, d, "tangent_vector", name .. "_dv"), adjoint = c_name(name, d, "adjoint", name .. "_b"),
    cells = cells, value = d.value, tangent_value = d.tangent_value }
end

--- The externals opts names that the file declares and does not define,
-- in name order, given ids from n on (after the file's definitions); a
-- name it defines is an error, one it does not declare is ignored (one
-- externals file serves many kernels).
function L:declare_externals(ext, n)
  self.ext_list = {}
  if ext == nil then return n end
  if type(ext) ~= "table" then error(errors.input("externals: a table {name = declaration}"), 0) end
  local names = {}
  for k in pairs(ext) do names[#names + 1] = tostring(k) end
  table.sort(names)
  for _, name in ipairs(names) do
    local fn = self.funcs[name]
    if self.def_ids[name] then bad(name, "defined in the file (an external function is declared, not defined)") end
    if fn then
      local decl = self:external_decl(name, ext[name], fn)
      fn.id, self.def_ids[name] = n, n
      self.ext_list[#self.ext_list + 1] = { name = name, fn = fn, decl = decl }
      n = n + 1
    elseif self.proto_refused[name] then
      error(errors.input(self.proto_refused[name]), 0)
    end
  end
  return n
end

--- The rows of the external functions: a function row without a body and
-- its parameters' symbols each.
function L:external_rows()
  for _, x in ipairs(self.ext_list) do
    local fn = x.fn
    self.fn = { id = fn.id, ret = fn.ret, ntemp = 0 }
    local sym0 = #self.syms
    self:push_scope()
    for _, sp in ipairs(fn.sparams or fn.params) do
      sp.kind = "param"
      self:new_sym(sp)
    end
    self:pop_scope()
    local line, col = self:linecol(fn.pos or 1)
    self.frows[fn.id + 1] = { NAME = self:name(x.name), RET = self.lay.types[fn.ret], SYM0 = sym0,
      NSYM = #self.syms - sym0, NPARAM = #fn.params, BODY = -1, NBODY = 0, LINE = line, COL = col }
    self:write_syms(sym0)
    self.fn = nil
  end
end

return L
