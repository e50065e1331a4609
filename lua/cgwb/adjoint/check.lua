-- cgwb.adjoint.check: the -DCGWB_CHECK_ASSUME lines of E's forward sweep
-- (E: cgwb.adjoint.base's class): the cells it touches through a pointer
-- parameter, a work array's adjoint still zero before a write, the tags of
-- a call's pointer arguments.  Internal to cgwb.adjoint.
local ir = require "cgwb.ir"
local B = require "cgwb.adjoint.base"
require "cgwb.adjoint.shadow"

local E, double = B.E, B.double

-- The lines recording, before a statement of the forward sweep, each cell
-- expressions es touch through a pointer parameter (the runtime's tags).
function E:chk(es)
  if not (self.gen.check and self.in_fwd) then return end
  local tagof, seen = self.act.tagof, {}
  local function walk(e)
    if not e then return end
    local x = self.v:expr(e)
    if x.op == "const_i" or x.op == "const_d" or x.op == "var" then return end
    if x.op == "elem" and tagof[e] then
      local line = ("CGWB_CHK_TOUCH(CGWB_CHK_TAG(%d), &%s);"):format(tagof[e], self:ex(e))
      if not seen[line] then seen[line] = true; self.em:line(line) end
    end
    walk(x.a)
    if not (x.op == "cond" or x.op == "and" or x.op == "or") then -- an operand C may not evaluate: not touched
      walk(x.b)
      walk(x.c)
    end
  end
  for _, e in ipairs(es) do walk(e) end
end

-- Before a write of cell lhs (or nil) in the forward sweep: a work array's
-- adjoint there must still be zero (the convention; CGWB_CHK_SEED).
function E:chk_seed(lhs)
  if not (self.gen.check and self.in_fwd) or not lhs or self.v:expr(lhs).op ~= "elem" then return end
  local t = self.act.tagof[lhs]
  if t and double(self:sym_at(lhs)) and self:active_at(lhs) then
    self.em:line(("CGWB_CHK_SEED(CGWB_CHK_TAG(%d), &%s);"):format(t, self:adj(lhs)))
  end
end

-- The expressions of statement record r (its own, not its slices'):
-- EXPRS(kind, r), a list without holes.
local EXPRS = ir.cases("stmt", "cgwb.adjoint: the expressions of a statement", {
  assign = function(_, r) return { r.lhs, r.rhs } end,
  ["if|loop"] = function(_, r) return { r.cond } end,
  ["return"] = function(_, r) return { r.value } end,
  call = function(_, r)
    local es = { r.lhs }
    for _, a in ipairs(r.args) do es[#es + 1] = a end
    return es
  end,
  ["break|continue"] = function() return {} end,
  alloc = function(_, r) return { r.count } end,
  free = function(_, r) return { r.ptr } end,
  passive = function(_, r) return { table.unpack(r.args) } end,
})

-- The -DCGWB_CHECK_ASSUME lines before statement record r (a loop's test
-- is checked where it runs).
function E:chk_stmt(r)
  if r.kind ~= "loop" then self:chk(EXPRS(r.kind, r)) end
  if r.kind == "assign" or r.kind == "call" then self:chk_seed(r.lhs) end
end

-- Before call r: each pointer argument's tag, for the callee's frame.
function E:chk_args(r)
  if not (self.gen.check and self.in_fwd) then return end
  for i, a in ipairs(r.args) do
    local t = self.act.tagof[a]
    if t then self.em:line(("CGWB_CHK_ARG(%d, CGWB_CHK_TAG(%d));"):format(i - 1, t)) end
  end
end

return E
