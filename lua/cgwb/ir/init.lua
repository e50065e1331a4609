--- cgwb.ir: the one view of a kernel's IR that every back end reads.
-- The IR is the flat arrays cgwb.kparse writes (rows back to back, laid out
-- as csrc/kernel/cg_kernel.h says, read once through core.kernel_layout()).
-- A view turns a row into a record with named fields, built once and
-- cached; the statement parts (what X0..X6 of a row mean) come from the
-- core's CG_KSTMT_PARTS table, so a new part or kind is one row there.
--
--   local v = ir.view(flat)
--   v:stmt(s)  -> {id, kind, line, col, pragma (text or nil), form (a loop:
--                 "for", "while", "do"), and its parts by name: an expr or
--                 func part an id (nil for -1), a list part the statement
--                 ids, an args part the argument expression ids}
--                 assign {lhs, rhs}, call {callee, args, lhs}, if {cond,
--                 then, else}, loop {cond, pre, body, step}, return {value},
--                 alloc {lhs, count, block (the ADDR of its heap site), zero
--                 (calloc)}, free {ptr}, passive {args, passive (its row of
--                 LAYOUT.passives: fn, stream, at, text, nargs), text (the
--                 string literal's bytes, an assert's condition as written)}
--   v:expr(x)  -> {id, op, type, a, b, c (operand ids or nil), sym (nil for
--                 none and for intrin), fn (intrin: the C name), value
--                 (const_i: the int, const_d: the double), ctype (a cast
--                 converting to a C integer type narrower than int: its C
--                 spelling, "char", ...), line, col}
--   v:sym(s)   -> {id, name, func, kind, base, ptr, ndim, dim0, dim1, dim2,
--                 dims (the ndim dims in order), const, restrict, addr, init,
--                 ninit, line, col, ctype (the C type of its cells: "double",
--                 "int", "char", "unsigned short", ...; a pointer's, of the
--                 cells it points to)}
--   v:func(g)  -> {id, name, ret, sym0, nsym, nparam, params, body, line, col,
--                 external (a function declared with --externals: its
--                 declaration, {name, tangent, tangent_vector, adjoint, cells})}
-- Ids are 0-based, as in the arrays.  ir.cases(domain, what, handlers)
-- builds a dispatcher that must name every kind (a new kind fails in every
-- back end at once, when its module loads); v:walk visits statements depth
-- first in the order they run.  doc/kernel-ir.md, "The view the back ends read".
-- @module cgwb.ir
local core = require "cgwb.core"

local LAY = core.kernel_layout()
local M = { LAYOUT = LAY }

local W = LAY.width
local SKIND, EXPRS, TYPES = LAY.stmts, LAY.exprs, LAY.types
local PARTS = LAY.stmt_parts
local Q = LAY.qual

local V = {}
V.__index = V

local views = setmetatable({}, { __mode = "k" })

--- The view of flat, the arrays cgwb.kparse writes (cached: one per flat
-- table); its methods are listed at the top of lua/cgwb/ir/init.lua.
function M.view(flat)
  local v = views[flat]
  if v then return v end
  v = setmetatable({ flat = flat, lay = LAY, S = {}, X = {}, Y = {}, G = {},
    nstmt = #flat.stmt // W.stmt, nexpr = #flat.expr // W.expr,
    nsym = #flat.sym // W.sym, nfunc = #flat.func // W.func }, V)
  views[flat] = v
  return v
end

-- Field f (a name of cg_kernel.h's *_FIELDS) of row id of table tab, raw.
function V:get(tab, id, f) return self.flat[tab][id * W[tab] + LAY[tab][f]] end

-- The name at index i of names[] (0-based).
function V:name(i) return self.flat.names[i + 1] end

-- The statement ids of slice start, n of list[] (or of args[]: which = "args").
function V:slice(start, n, which)
  local arr, out = self.flat[which or "list"], {}
  for i = 1, n do out[i] = arr[start + i] end
  return out
end

local function id_or_nil(v) if v >= 0 then return v end end

function V:stmt(s)
  local r = self.S[s]
  if r then return r end
  local base = s * W.stmt
  local row = self.flat.stmt
  local kind = SKIND[row[base + LAY.stmt.KIND] + 1]
  local pragma = row[base + LAY.stmt.PRAGMA]
  r = { id = s, kind = kind, line = row[base + LAY.stmt.LINE], col = row[base + LAY.stmt.COL],
    pragma = pragma >= 0 and self.flat.names[pragma + 1] or nil }
  if kind == "loop" then r.form = LAY.loop_kinds[row[base + LAY.stmt.FLAGS] + 1] end
  if kind == "alloc" then r.zero = (row[base + LAY.stmt.FLAGS] & LAY.heap_zero) ~= 0 end
  if kind == "passive" then
    r.passive = LAY.passives[row[base + LAY.stmt.FLAGS] + 1] -- {fn, stream, at, text, nargs}
    local t = row[base + LAY.stmt.X0]
    r.text = t >= 0 and self.flat.names[t + 1] or nil
  end
  for _, p in ipairs(PARTS[kind]) do
    local v = row[base + p.offset]
    if p.what == "list" or p.what == "args" then r[p.name] = self:slice(v, row[base + p.offset + 1], p.what == "args" and "args" or "list")
    elseif p.what == "expr" then r[p.name] = id_or_nil(v)
    else r[p.name] = v end
  end
  self.S[s] = r
  return r
end

function V:expr(x)
  local r = self.X[x]
  if r then return r end
  local base = x * W.expr
  local row, F = self.flat.expr, LAY.expr
  local op = EXPRS[row[base + F.OP] + 1]
  local sym, ival = row[base + F.SYM], row[base + F.IVAL]
  r = { id = x, op = op, type = TYPES[row[base + F.TYPE] + 1], a = id_or_nil(row[base + F.A]),
    b = id_or_nil(row[base + F.B]), c = id_or_nil(row[base + F.C]), line = row[base + F.LINE],
    col = row[base + F.COL] }
  if op == "intrin" then r.fn = LAY.intrinsics[sym + 1]
  else r.sym = id_or_nil(sym) end
  if op == "const_i" then r.value = ival
  elseif op == "const_d" then r.value = self.flat.dconst[ival + 1]
  elseif op == "cast" and ival > LAY.ctypes.int then r.ctype = LAY.ctypes[ival + 1] end
  self.X[x] = r
  return r
end

function V:sym(s)
  local r = self.Y[s]
  if r then return r end
  local G = function(f) return self:get("sym", s, f) end
  local q = G("QUAL")
  r = { id = s, name = self:name(G("NAME")), func = G("FUNC"), kind = LAY.sym_kinds[G("KIND") + 1],
    base = TYPES[G("BASE") + 1], ptr = G("PTR") >= 1, rows = G("PTR") == 2, ndim = G("NDIM"), dim0 = G("DIM0"), dim1 = G("DIM1"),
    dim2 = G("DIM2"), const = (q & Q.const) ~= 0, restrict = (q & Q.restrict) ~= 0, addr = (q & Q.addr) ~= 0,
    init = G("INIT"), ninit = G("NINIT"), line = G("LINE"), col = G("COL"), ctype = LAY.ctypes[G("CTYPE") + 1] }
  if r.base ~= "int" then r.ctype = r.base end
  r.dims = {}
  for d = 1, r.ndim do r.dims[d] = G("DIM" .. (d - 1)) end
  self.Y[s] = r
  return r
end

--- The cells of symbol record y (from v:sym): the product of its dims (0
-- for an unknown first dim), 1 for a scalar.
function M.cells(y)
  local n = 1
  for _, d in ipairs(y.dims) do n = n * d end
  return n
end

--- The declarator suffix of symbol record y's dims: "[4][5][6]"; open:
-- an unknown first dim is written "[]" (a parameter), else as its number.
function M.dims_text(y, open)
  local t = {}
  for d, n in ipairs(y.dims) do t[d] = "[" .. ((open and d == 1 and n == 0) and "" or n) .. "]" end
  return table.concat(t)
end

--- The zero initializer of an array of ndim dims, with a brace a dim
-- (-Wall's missing-braces): " = {0.0}", " = {{0.0}}", " = {{{0.0}}}".
function M.zero_init(ndim)
  return " = " .. ("{"):rep(ndim) .. "0.0" .. ("}"):rep(ndim)
end

--- The subscript expression ids of ELEM or ADDR record r (from v:expr), in
-- order: a prefix of a, b, c.
function M.subs(r)
  if not r.a then return {} end
  if not r.b then return { r.a } end
  if not r.c then return { r.a, r.b } end
  return { r.a, r.b, r.c }
end

function V:func(g)
  local r = self.G[g]
  if r then return r end
  local G = function(f) return self:get("func", g, f) end
  local sym0, np = G("SYM0"), G("NPARAM")
  local params = {}
  for i = 1, np do params[i] = sym0 + i - 1 end
  r = { id = g, name = self:name(G("NAME")), ret = TYPES[G("RET") + 1], sym0 = sym0, nsym = G("NSYM"),
    nparam = np, params = params, body = self:slice(G("BODY"), G("NBODY")), line = G("LINE"), col = G("COL") }
  if G("BODY") == -1 then -- an external function: no body, the user's declaration (kparse/externals.lua)
    r.external = (self.flat.externals or {})[g] or { name = r.name, cells = {} }
  end
  self.G[g] = r
  return r
end

-- The list parts of statement record r in the order they run: {{name, ids}, ...}.
function V:children(r)
  local out = {}
  for _, p in ipairs(PARTS[r.kind]) do
    if p.what == "list" then out[#out + 1] = { p.name, r[p.name] } end
  end
  return out
end

-- Visits the statements ids and everything nested in them, depth first in
-- the order they run: visit(record, depth, part) (part: the list part the
-- statement sits in, nil at the top); a visit returning false skips the
-- statement's children.
function V:walk(ids, visit, depth, part)
  depth = depth or 0
  for _, s in ipairs(ids) do
    local r = self:stmt(s)
    if visit(r, depth, part) ~= false then
      for _, c in ipairs(self:children(r)) do self:walk(c[2], visit, depth + 1, c[1]) end
    end
  end
end

-- The expression ids statement record r holds (its expression parts and
-- arguments, each the root of a tree), in part order.
function V:exprs(r)
  local out = {}
  for _, p in ipairs(PARTS[r.kind]) do
    if p.what == "expr" and r[p.name] then out[#out + 1] = r[p.name]
    elseif p.what == "args" then for _, x in ipairs(r[p.name]) do out[#out + 1] = x end end
  end
  return out
end

-- The operand expression ids of expression x (a, b, c that are present).
function V:operands(x)
  local r = self:expr(x)
  local out = {}
  if r.a then out[#out + 1] = r.a end
  if r.b then out[#out + 1] = r.b end
  if r.c then out[#out + 1] = r.c end
  return out
end

-- The functions reachable from f by calls (0-based ids, f first, then by id).
function V:reachable(f)
  local seen, list = { [f] = true }, { f }
  local i = 1
  while i <= #list do
    self:walk(self:func(list[i]).body, function(r)
      if r.kind == "call" and not seen[r.callee] then seen[r.callee] = true; list[#list + 1] = r.callee end
    end)
    i = i + 1
  end
  local rest = { table.unpack(list, 2) }
  table.sort(rest)
  return { f, table.unpack(rest) }
end

-- {==== dispatch ====}

local DOMAINS = { stmt = LAY.stmts, expr = LAY.exprs, intrinsic = LAY.intrinsics }

--- A dispatcher over the kinds of domain ("stmt", "expr" or "intrinsic"):
-- handlers maps a kind, or several as "a|b|c", to a function.  Every kind
-- must have a handler, and no key may name a kind that does not exist: a
-- new kind raises here, when the back end's module loads.  D(kind, ...)
-- calls the kind's handler with (kind, ...) passed on.
function M.cases(domain, what, handlers)
  local kinds = assert(DOMAINS[domain], "ir.cases: unknown domain")
  local known, by = {}, {}
  for _, k in ipairs(kinds) do known[k] = true end
  local keys = {}
  for key in pairs(handlers) do keys[#keys + 1] = key end
  table.sort(keys) -- messages in a fixed order
  for _, key in ipairs(keys) do
    for k in key:gmatch("[^|]+") do
      if not known[k] then error(("%s: a case for '%s', which is no %s kind"):format(what, k, domain), 2) end
      if by[k] then error(("%s: two cases for '%s'"):format(what, k), 2) end
      by[k] = handlers[key]
    end
  end
  local missing = {}
  for _, k in ipairs(kinds) do if not by[k] then missing[#missing + 1] = k end end
  if #missing > 0 then
    error(("%s: no case for the %s kind%s %s"):format(what, domain, #missing > 1 and "s" or "",
      table.concat(missing, ", ")), 2)
  end
  return setmetatable({}, { __index = by, __call = function(_, k, ...)
    local h = by[k]
    if not h then error(("%s: no case for %s kind '%s'"):format(what, domain, tostring(k)), 2) end
    return h(k, ...)
  end })
end

-- The expression kinds of a group: "binary" (two operands, infix), "compare"
-- (int 0/1 results), "bits" (the int bitwise operators, infix), "unary"
-- (prefix), "leaf" (no operand expressions).
M.GROUP = {
  binary = "add|sub|mul|div|mod|lt|le|gt|ge|eq|ne|and|or|band|bor|bxor|shl|shr",
  compare = "lt|le|gt|ge|eq|ne",
  bits = "band|bor|bxor|shl|shr",
  unary = "neg|not|bnot",
  leaf = "const_i|const_d|var",
}
-- }====

return M
