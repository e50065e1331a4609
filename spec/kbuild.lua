-- kbuild.lua: builds the flat intermediate form of a kernel by hand
-- (csrc/kernel/cg_kernel.h), for the specs of the loader, the control flow
-- graph and the interpreter: each row is written with its fields by name,
-- the layout comes from core.kernel_layout(), so no offset is hard-coded.
-- Ids are 0-based, as in the flat arrays.
local core = require("cgwb.core")
local L = core.kernel_layout()

local B = {}
B.__index = B

local function new(file)
  return setmetatable({flat = {file = file or "hand.c", names = {}, func = {}, sym = {},
                               expr = {}, stmt = {}, list = {}, args = {}, dconst = {}},
                       line = 1, fn = -1}, B)
end

-- Appends a row of table `tab` with the fields of t (missing: -1, or 0 for
-- the fields in zero); returns its 0-based id.
local function row(self, tab, t, zero)
  local rows = self.flat[tab]
  local w = L.width[tab]
  local id = #rows // w
  for name, off in pairs(L[tab]) do
    local v = t[name:lower()]
    if v == nil then v = zero[name] and 0 or -1 end
    rows[id * w + off] = v
  end
  return id
end

function B:name(s)
  local n = self.flat.names
  n[#n + 1] = s
  return #n - 1
end

--- A function: opens its symbols; params/locals follow with B:sym.
function B:func(name, ret)
  self.fn = row(self, "func", {name = self:name(name), ret = L.types[ret or "void"],
                               sym0 = #self.flat.sym // L.width.sym, nsym = 0, nparam = 0,
                               body = -1, nbody = 0, line = self.line, col = 1}, {})
  return self.fn
end

local function fset(self, f, field, v) self.flat.func[f * L.width.func + L.func[field]] = v end
local function fget(self, f, field) return self.flat.func[f * L.width.func + L.func[field]] end

--- A symbol of the open function (kind "param", "local", "temp") or a global.
-- t: {base="double"|"int", ptr=, ndim=, dim0=, dim1=, dim2=, qual=, ctype= (an
-- int's C type: "char", ...; default int)}.
function B:sym(name, kind, t)
  t = t or {}
  local g = kind == "global"
  local s = row(self, "sym", {name = self:name(name), func = g and -1 or self.fn,
                              kind = L.sym_kinds[kind], base = L.types[t.base or "double"],
                              ptr = t.ptr or 0, ndim = t.ndim or 0, dim0 = t.dim0 or 0,
                              dim1 = t.dim1 or 0, dim2 = t.dim2 or 0, qual = t.qual or 0, init = t.init or -1,
                              ninit = t.ninit or 0, line = self.line, col = 1,
                              ctype = L.ctypes[t.ctype or "int"]}, {})
  if not g then
    fset(self, self.fn, "NSYM", fget(self, self.fn, "NSYM") + 1)
    if kind == "param" then fset(self, self.fn, "NPARAM", fget(self, self.fn, "NPARAM") + 1) end
  end
  return s
end

--- An expression row: op by name, type by name.
function B:e(op, ty, a, b, c, sym, ival)
  return row(self, "expr", {op = L.exprs[op], type = L.types[ty], a = a, b = b, c = c, sym = sym,
                            ival = ival or 0, line = self.line, col = 1}, {})
end

local function stype(self, s)
  local base = L.types[self.flat.sym[s * L.width.sym + L.sym.BASE] + 1]
  local ptr = self.flat.sym[s * L.width.sym + L.sym.PTR]
  return ptr == 1 and base .. " *" or base
end
local function sbase(self, s) return L.types[self.flat.sym[s * L.width.sym + L.sym.BASE] + 1] end
function B:type_of(x) return L.types[self.flat.expr[x * L.width.expr + L.expr.TYPE] + 1] end

function B:ci(n) return self:e("const_i", "int", nil, nil, nil, nil, n) end
function B:cd(v)
  local d = self.flat.dconst
  d[#d + 1] = v
  return self:e("const_d", "double", nil, nil, nil, nil, #d - 1)
end
function B:var(s) return self:e("var", stype(self, s), nil, nil, nil, s) end
function B:elem(s, i, j) return self:e("elem", sbase(self, s), i, j, nil, s) end
function B:addr(s, i, j) return self:e("addr", sbase(self, s) .. " *", i, j, nil, s) end
--- A binary or unary operator; the type is the first operand's (int for
-- comparisons and logic).
function B:op(op, a, b, c)
  local ty = self:type_of(a)
  if op:match("^[lg][te]$") or op == "eq" or op == "ne" or op == "and" or op == "or"
     or op == "not" then ty = "int" end
  if op == "cond" then ty = self:type_of(b) end
  return self:e(op, ty, a, b, c)
end
function B:cast(ty, a) return self:e("cast", ty, a) end
function B:intrin(name, a, b) return self:e("intrin", "double", a, b, nil, L.intrinsics[name]) end

--- Statements: kind by name, fields X0.. given in order.
function B:s(kind, xs, flags)
  xs = xs or {}
  return row(self, "stmt", {kind = L.stmts[kind], func = self.fn, line = self.line, col = 1,
                            pragma = -1, flags = flags or 0, x0 = xs[1], x1 = xs[2], x2 = xs[3],
                            x3 = xs[4], x4 = xs[5], x5 = xs[6], x6 = xs[7]}, {FLAGS = true})
end
--- A slice of list[] holding the statements; returns start, count.
function B:slice(stmts)
  local l = self.flat.list
  local start = #l
  for _, s in ipairs(stmts) do l[#l + 1] = s end
  return #stmts > 0 and start or -1, #stmts
end
function B:assign(l, r) return self:s("assign", {l, r}) end
function B:call(f, args, lhs)
  local a = self.flat.args
  local start = #a
  for _, x in ipairs(args) do a[#a + 1] = x end
  return self:s("call", {f, #args > 0 and start or -1, #args, lhs or -1})
end
function B:ifs(cond, thn, els)
  local t0, tn = self:slice(thn)
  local e0, en = self:slice(els or {})
  return self:s("if", {cond, t0, tn, e0, en})
end
--- A loop: kind "for"|"while"|"do", condition or nil, body, step, pre.
function B:loop(kind, cond, body, step, pre)
  local b0, bn = self:slice(body)
  local s0, sn = self:slice(step or {})
  local p0, pn = self:slice(pre or {})
  return self:s("loop", {cond or -1, b0, bn, s0, sn, p0, pn}, L.loop_kinds[kind])
end
function B:ret(x) return self:s("return", {x or -1}) end
--- Closes the open function with its body.
function B:body(stmts)
  local b0, bn = self:slice(stmts)
  fset(self, self.fn, "BODY", b0)
  fset(self, self.fn, "NBODY", bn)
end
--- Sets the source line of the rows made from now on.
function B:at(line) self.line = line return self end
function B:load() return core.kernel_load(self.flat) end

return {new = new, layout = L}
