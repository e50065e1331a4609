-- cgwb.adjoint.shadow: what an access carries in the sweeps of E (the
-- class of cgwb.adjoint.base): whether it may touch an active object, the
-- null-shadow lattice of pointers (a shadow that may be 0), the adjoint of
-- an access and the shadow of a pointer expression as C.  Internal to
-- cgwb.adjoint.
local ir = require "cgwb.ir"
local errors = require "cgwb.util.errors"
local B = require "cgwb.adjoint.base"

local E, double, indirect = B.E, B.double, B.indirect

-- Whether access e (VAR or ELEM of a double, or a pointer argument of a
-- call) may touch an active object of this function's activity.
function E:active_at(e)
  if not self.act.expr[e] then return false end
  local x = self.v:expr(e)
  local st = self:sym_state(x.sym)
  if st == "mixed" then
    error(errors.refused(("%s:%d:%d: adjoint code: %s may point into a passive parameter (no adjoint) or into an "
      .. "active array; not supported yet"):format(self.gen.file, x.line, x.col, self:ex(e))))
  end
  return st == "live" -- through a pointer with no adjoint storage no adjoint is carried
end

-- {==== shadows that may be null ====}
-- A passive double parameter's adjoint pointer may be NULL (F's caller's
-- choice; a callee's variant gets 0 for it), so a shadow derived from it is
-- 0 and never offset or dereferenced.  The state of a pointer's shadow:
-- "live" (adjoint storage), "null", or "mixed" (either, by the path).

local JOIN = { none = { none = "none", null = "null", live = "live", mixed = "mixed" } }
for _, a in ipairs { "null", "live", "mixed" } do
  JOIN[a] = {}
  for _, b in ipairs { "none", "null", "live", "mixed" } do
    JOIN[a][b] = (b == "none" or b == a) and a or "mixed"
  end
end

-- The shadow state of symbol s (the pointer locals' by a fixpoint over the
-- function's pointer assignments, once).
function E:sym_state(s)
  local y = self.v:sym(s)
  if not double(y) or y.kind == "global" then return "live" end
  if y.kind == "param" and not indirect(y) then return "live" end
  if not y.ptr then -- a local array, or an array parameter
    return (y.kind ~= "param" or self.param_active[s]) and "live" or "null"
  end
  if not self.ptr_state then self:ptr_states() end
  return self.ptr_state[s] or "null" -- never assigned: 0
end

-- The shadow state of pointer expression record r (ROOT(op, self, r)).
local ROOT = ir.cases("expr", "cgwb.adjoint: the state of a shadow", {
  ["var|addr"] = function(op, self, r)
    if op == "addr" and not indirect(self.v:sym(r.sym)) then return "live" end -- &local scalar
    return self:sym_state(r.sym)
  end,
  ptradd = function(_, self, r) return self:root_state(r.a) end,
  cond = function(_, self, r) return JOIN[self:root_state(r.b)][self:root_state(r.c)] end,
  null = function() return "none" end, -- NULL's shadow is NULL, and neither is dereferenced
  elem = function(_, self, r) -- a row load t = A[i]: A's state (its adjoint rows, or NULL)
    if self.v:sym(r.sym).rows then return self:sym_state(r.sym) end
    return "live"
  end,
  ["const_i|const_d|neg|not|bnot|cast|intrin|ptrdiff|" .. ir.GROUP.binary] = function() return "live" end,
})

function E:root_state(e)
  local x = self.v:expr(e)
  return ROOT(x.op, self, x)
end

-- Whether lhs (an lvalue) is a double pointer variable (it has a shadow).
function E:is_ptr_var(lhs)
  local x = self.v:expr(lhs)
  local y = self.v:sym(x.sym)
  return x.op == "var" and y.ptr and double(y)
end

function E:ptr_states()
  local v = self.v
  local state = {}
  for _, s in ipairs(v:func(self.fid).params) do
    local y = v:sym(s)
    if y.ptr and double(y) then state[s] = self.param_active[s] and "live" or "null" end
  end
  self.ptr_state = state
  local assigns = {}
  for _, r in ipairs(self:own_stmts()) do
    if (r.kind == "assign" or r.kind == "alloc") and self:is_ptr_var(r.lhs) then assigns[#assigns + 1] = r end
  end
  local changed = true
  while changed do
    changed = false
    for _, r in ipairs(assigns) do
      local s = v:expr(r.lhs).sym
      local new = JOIN[state[s] or "none"][r.kind == "alloc" and "live" or self:root_state(r.rhs)] -- a block: its adjoint beside it
      if new ~= (state[s] or "none") then state[s], changed = new, true end
    end
  end
  for s, x in pairs(state) do if x == "none" then state[s] = "null" end end
end

-- }====

-- The adjoint of an lvalue or use e (VAR or ELEM of a double) as C.
function E:adj(e)
  local x = self.v:expr(e)
  local y = self.v:sym(x.sym)
  local b = self.gen.bname[x.sym]
  if x.op == "var" then
    if y.ptr then return "(*" .. b .. ")" end
    if y.kind == "param" then -- the local accumulator (a struct's: a local struct cg_sb of the adjoints)
      local sb = self.gen.bstruct[x.sym]
      if sb then return self.gen.prefix .. sb .. "." .. self.u:agg(x.sym).member end
      return self.gen.prefix .. b
    end
    return b
  end
  return b .. self.u.P:subs(e)
end

-- The shadow (adjoint pointer) of a double pointer expression e.
function E:shadow(e)
  local x = self.v:expr(e)
  local state = self:root_state(e)
  if state == "null" then return "0" end
  if state == "mixed" and (x.op == "ptradd" or x.op == "addr") then -- an offset of a null shadow is undefined
    local root = x
    while root.op == "ptradd" do root = self.v:expr(root.a) end
    local rb = root.op == "addr" and self.gen.bname[root.sym] or self:shadow(root.id)
    self.mixed_ok = true
    local t = self:shadow_live(e)
    self.mixed_ok = nil
    return ("(%s ? %s : 0)"):format(rb, t)
  end
  return self:shadow_live(e)
end

-- The shadow of pointer expression record r, its root's shadow not null
-- (SHADOW(op, self, r)).
local SHADOW = ir.cases("expr", "cgwb.adjoint: the shadow of a pointer", {
  var = function(_, self, r)
    if self.v:sym(r.sym).kind == "global" then return self.gen:zero_global(r.sym) end
    return self.gen.bname[r.sym]
  end,
  addr = function(_, self, r)
    local y = self.v:sym(r.sym)
    local t
    if y.kind == "global" then t = self.gen:zero_global(r.sym) else t = self.gen.bname[r.sym] end
    if not r.a then
      if indirect(y) then return t end
      if y.kind == "param" then return "&" .. self.gen.prefix .. t end
      return "&" .. t
    end
    if #ir.subs(r) < y.ndim then return t .. self.u.P:subs(r.id) end -- a row or plane
    return "&" .. t .. self.u.P:subs(r.id)
  end,
  ptradd = function(_, self, r)
    return ("(%s + %s)"):format(self.mixed_ok and self:shadow_live(r.a) or self:shadow(r.a), self.u:expr(r.b))
  end,
  cond = function(_, self, r)
    return ("(%s ? %s : %s)"):format(self.u:expr(r.a), self:shadow(r.b), self:shadow(r.c))
  end,
  elem = function(_, self, r) -- a row load t = A[i]: the shadow row Ab[i]
    if not self.v:sym(r.sym).rows then
      error(errors.refused(("adjoint code: no shadow for the pointer expression %s"):format(self:ex(r.id))))
    end
    return ("%s[%s]"):format(self.gen.bname[r.sym], self.u:expr(r.a, true))
  end,
  null = function() return "NULL" end,
  ["const_i|const_d|neg|not|bnot|cast|intrin|ptrdiff|" .. ir.GROUP.binary] = function(_, self, r)
    error(errors.refused(("adjoint code: no shadow for the pointer expression %s"):format(self:ex(r.id))))
  end,
})

function E:shadow_live(e)
  local x = self.v:expr(e)
  return SHADOW(x.op, self, x)
end

-- Whether expression e (or nil) reads an active double.
function E:has_active(e)
  if not e then return false end
  local x = self.v:expr(e)
  if x.type ~= "double" then return false end
  if x.op == "var" or x.op == "elem" then return self:active_at(e) end
  if x.op == "const_d" or x.op == "cast" then return false end
  -- a cond's test is no operand of its value
  return self:has_active(x.op ~= "cond" and x.a or nil) or self:has_active(x.b) or self:has_active(x.c)
end

return E
