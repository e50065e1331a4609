-- cgwb.ir.cprint: the C expression printer of every back end.
--   local P = cprint.new(view, hooks)   -- view: cgwb.ir.view(flat)
--   P:expr(x)         expression x (0-based) as C, at the top of a statement
--   P:sub(x, prec)    x inside an operator of precedence prec (0: a
--                     subscript, an argument: no parentheses needed)
--   P:subs(x)         the subscripts "[a]", "[a][b]" or "[a][b][c]" of an ELEM or ADDR
-- hooks (all optional):
--   name(sym)         the C name of symbol sym (default: its name)
--   parens            "needed" (C's precedence: only what C needs, the
--                     default) or "all" (every compound operand in
--                     parentheses: the canonical form's explicit structure)
--   const_i(v), const_d(v)  a constant's text (defaults: C that reads back
--                     as the same value; negative values in parentheses)
--   addr              "c" (a 2-D row address is A[i], the default) or
--                     "display" (&A[i], for reports)
--   leaf(P, rec, prec) a back end's own text for expression record rec, or
--                     nil for the printer's (asked first, for every node)
local ir = require "cgwb.ir"

local M = {}

-- C precedence of the operators (higher binds tighter); 9: an atom.
local PREC = {
  cond = 1, ["or"] = 2, ["and"] = 3, eq = 4, ne = 4, lt = 5, le = 5, gt = 5, ge = 5,
  add = 6, sub = 6, ptradd = 6, mul = 7, div = 7, mod = 7, neg = 8, ["not"] = 8, cast = 8,
  shl = 5.5, shr = 5.5, band = 3.75, bxor = 3.5, bor = 3.25, bnot = 8,
}
-- The bitwise operators: a compound operand in parentheses (gcc -Wparentheses
-- asks for them around + in <<, a comparison in &, ...).
local BITS = { band = true, bor = true, bxor = true, shl = true, shr = true }
M.PREC = PREC
M.BINOP = {
  add = "+", sub = "-", mul = "*", div = "/", mod = "%", lt = "<", le = "<=", gt = ">",
  ge = ">=", eq = "==", ne = "!=", ["and"] = "&&", ["or"] = "||", ptradd = "+",
  band = "&", bor = "|", bxor = "^", shl = "<<", shr = ">>",
}
local BINOP = M.BINOP

-- A double constant as C: %.17g with a point, the math.h names for inf and
-- nan, a negative value (and -0) in parentheses.
function M.double(v)
  if v ~= v then return "NAN" end
  if v == math.huge then return "HUGE_VAL" end
  if v == -math.huge then return "(-HUGE_VAL)" end
  local s = ("%.17g"):format(v)
  if not s:find("[%.eE]") then s = s .. ".0" end
  if v < 0 or (v == 0 and 1 / v < 0) then s = "(" .. s .. ")" end
  return s
end

-- An int constant as C (INT_MIN as an expression, negatives in parentheses).
function M.int(v)
  if v == -2147483648 then return "(-2147483647 - 1)" end
  if v < 0 then return ("(%d)"):format(v) end
  return ("%d"):format(v)
end

local P = {}
P.__index = P

function M.new(view, hooks)
  hooks = hooks or {}
  return setmetatable({ v = view, name = hooks.name or function(s) return view:sym(s).name end,
    all = hooks.parens == "all", const_i = hooks.const_i or M.int, const_d = hooks.const_d or M.double,
    display = hooks.addr == "display", leaf = hooks.leaf }, P)
end

function P:expr(x) return self:sub(x, 0) end

function P:subs(x)
  local r = self.v:expr(x)
  local s = ""
  if r.a then s = "[" .. self:subscript(r.a) .. "]" end
  if r.b then s = s .. "[" .. self:subscript(r.b) .. "]" end
  if r.c then s = s .. "[" .. self:subscript(r.c) .. "]" end
  return s
end

-- Subscript x: a plain char value (a char variable or cell, a (char)
-- cast) through (int), as cc -Wall wants (-Wchar-subscripts: plain char
-- may be signed); the same value, since a subscript promotes to int anyway.
function P:subscript(x)
  if not self.display then
    local r = self.v:expr(x)
    local ct = r.op == "cast" and r.ctype or ((r.op == "var" or r.op == "elem") and r.type == "int"
      and self.v:sym(r.sym).ctype)
    if ct == "char" then return "(int)" .. self:sub(x, 8) end
  end
  return self:sub(x, 0)
end

-- text, precedence of expression record r (9: an atom, never parenthesized).
local node = ir.cases("expr", "cgwb.ir.cprint", {
  const_i = function(_, p, r) return p.const_i(r.value), 9 end,
  const_d = function(_, p, r) return p.const_d(r.value), 9 end,
  var = function(_, p, r) return p.name(r.sym), 9 end,
  elem = function(_, p, r) return p.name(r.sym) .. p:subs(r.id), 9 end,
  addr = function(_, p, r)
    local ndim = p.v:sym(r.sym).ndim
    if not r.a then return (ndim > 0 and "" or "&") .. p.name(r.sym), 9 end
    if p.display then return "&" .. p.name(r.sym) .. p:subs(r.id), 9 end
    if #ir.subs(r) < ndim then return p.name(r.sym) .. p:subs(r.id), 9 end -- a row or plane
    return "&" .. p.name(r.sym) .. p:subs(r.id), 8
  end,
  [ir.GROUP.binary .. "|ptradd"] = function(op, p, r)
    local q = PREC[op]
    if BITS[op] then return p:sub(r.a, 8) .. " " .. BINOP[op] .. " " .. p:sub(r.b, 8), q end
    return p:sub(r.a, q) .. " " .. BINOP[op] .. " " .. p:sub(r.b, q + 1), q
  end,
  bnot = function(_, p, r) return "~" .. p:sub(r.a, 8), 8 end,
  neg = function(_, p, r)
    local a = p:sub(r.a, 8)
    if a:sub(1, 1) == "-" then a = "(" .. a .. ")" end -- "--x" would be C's decrement
    return "-" .. a, 8
  end,
  ["not"] = function(_, p, r) return "!" .. p:sub(r.a, 8), 8 end,
  cast = function(_, p, r) return "(" .. (r.ctype or r.type) .. ")" .. p:sub(r.a, 8), 8 end,
  cond = function(_, p, r) return p:sub(r.a, 2) .. " ? " .. p:sub(r.b, 2) .. " : " .. p:sub(r.c, 1), 1 end,
  null = function() return "NULL", 9 end,
  ptrdiff = function(_, p, r) return "(int)(" .. p:sub(r.a, 6) .. " - " .. p:sub(r.b, 7) .. ")", 8 end, -- ptrdiff_t in C
  intrin = function(_, p, r)
    return r.fn .. "(" .. p:sub(r.a, 0) .. (r.b and (", " .. p:sub(r.b, 0)) or "") .. ")", 9
  end,
})

function P:sub(x, prec)
  local r = self.v:expr(x)
  local text, own
  if self.leaf then text, own = self.leaf(self, r, prec) end
  if not text then text, own = node(r.op, self, r) end
  own = own or 9
  if own < 9 and (self.all and prec > 0 or own < prec) then return "(" .. text .. ")" end
  return text
end

return M
