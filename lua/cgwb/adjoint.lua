--- cgwb.adjoint: adjoint C code of a kernel (doc/adjoint-code.md).
-- The restoration scheme (Hascoet, Fidanova & Held, Fig. 1): every function
-- g reached from F gets g_fwd (the primal, pushing the old value of every
-- overwritten variable and the control: branches taken, trip counts; its
-- locals' final values at its end) and g_rev (pops its locals, then each
-- statement in reverse: pop the old value of its left side, then the
-- statement's adjoint from the restored operand values).  F_b = F_fwd,
-- F_rev, then a plain copy F_p of F for F's results.  Loops the analysis
-- accepts as independent (core.kernel_loops) are adjoined per iteration
-- (ibid., sec. 3, Fig. 4): each iteration's taped forward immediately
-- followed by its reverse; a terminal loop does that in the forward sweep,
-- any other is dry-run there (no tape, a snapshot of what it overwrites)
-- and re-run that way when the reverse sweep reaches it (ibid., Fig. 5).
-- The IR is read through its cgwb.ir view (the writer's u.v: records with
-- named fields, ids 0-based, absent parts nil).
--
--   adjoint.emit(kernel, fname, opts) -> code, report | nil, message
-- @module cgwb.adjoint
local core = require "cgwb.core"
local unparse = require "cgwb.ir.unparse"
local progress = require "cgwb.progress"
local ir = require "cgwb.ir"
local emit = require "cgwb.ir.emit"

local M = {}

local LAY = core.kernel_layout()
local GOPS = core.graph_ops()

local function failf(fmt, ...) error({ msg = fmt:format(...) }, 0) end

-- An operation table spelling with its operands and result (unparse.spell_partial).
local function spell(text, args, r)
  local s, err = unparse.spell_partial(text, args, r)
  if not s then failf("adjoint code: %s", err) end
  return s
end

-- Symbol records (cgwb.ir view): a double; accessed through cells (a
-- pointer or an array); a scalar (neither); its scalar C type.
local function double(y) return y.base == "double" end
local function indirect(y) return y.ptr or y.ndim > 0 end
local function scalar(y) return not y.ptr and y.ndim == 0 end
local function scalar_type(y) return y.base == "double" and "double" or "int" end

-- {==== one function: the forward and the reverse sweep ====}

local E = {}
E.__index = E

function E:ex(e) return self.u:expr(e, true) end

-- The record of the symbol expression e accesses (VAR, ELEM, ADDR).
function E:sym_at(e) return self.v:sym(self.v:expr(e).sym) end

-- The records of this function's statements, by id.
function E:own_stmts()
  local v, out = self.v, {}
  for st = 0, v.nstmt - 1 do
    if v:get("stmt", st, "FUNC") == self.fid then out[#out + 1] = v:stmt(st) end
  end
  return out
end

-- Lines go to the sweep's emitter self.em (cgwb.ir.emit: depth, blocks,
-- the function-wide temporaries declared at its top).  A C statement (text
-- without its semicolon) with comment c (or none) after it; an assignment;
-- a call of fn with the argument text args.
function E:put(text, c) self.em:line(text .. ";" .. (c and (" /* " .. c .. " */") or "")) end
function E:set(lhs, rhs, c) self:put(lhs .. " = " .. rhs, c) end
function E:call(fn, args, c) self:put(fn .. "(" .. args .. ")", c) end

-- if (cond) { yes() } and, when no is given, else { no() }.
function E:if_else(cond, yes, no)
  self.em:open("if (" .. cond .. ") {")
  yes()
  if no then self.em:reopen("} else {"); no() end
  self.em:close()
end

-- Whether access e (VAR or ELEM of a double, or a pointer argument of a
-- call) may touch an active object of this function's activity.
function E:active_at(e)
  if not self.act.expr[e] then return false end
  local x = self.v:expr(e)
  local st = self:sym_state(x.sym)
  if st == "mixed" then
    failf("%s:%d:%d: adjoint code: %s may point into a passive parameter (no adjoint) or into an active array; "
      .. "not supported yet", self.gen.file, x.line, x.col, self:ex(e))
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
  ["const_i|const_d|elem|neg|not|cast|intrin|" .. ir.GROUP.binary] = function() return "live" end,
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
    if r.kind == "assign" and self:is_ptr_var(r.lhs) then assigns[#assigns + 1] = r end
  end
  local changed = true
  while changed do
    changed = false
    for _, r in ipairs(assigns) do
      local s = v:expr(r.lhs).sym
      local new = JOIN[state[s] or "none"][self:root_state(r.rhs)]
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
    if y.kind == "param" then return self.gen.prefix .. b end -- the local accumulator
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
    if y.ndim == 2 and not r.b then return ("%s[%s]"):format(t, self:ex(r.a)) end
    return "&" .. t .. self.u.P:subs(r.id)
  end,
  ptradd = function(_, self, r)
    return ("(%s + %s)"):format(self.mixed_ok and self:shadow_live(r.a) or self:shadow(r.a), self.u:expr(r.b))
  end,
  cond = function(_, self, r)
    return ("(%s ? %s : %s)"):format(self.u:expr(r.a), self:shadow(r.b), self:shadow(r.c))
  end,
  ["const_i|const_d|elem|neg|not|cast|intrin|" .. ir.GROUP.binary] = function(_, self, r)
    failf("adjoint code: no shadow for the pointer expression %s", self:ex(r.id))
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

-- The adjoint of expression record r: PROP(op, self, r, b, into) with b
-- the adjoint to spread (a C name or product) and into(x, factor) the
-- spreading of b times factor into operand x.
local PROP = ir.cases("expr", "cgwb.adjoint: the adjoint of an expression", {
  ["var|elem"] = function(_, self, r, b) self:put(("%s += %s"):format(self:adj(r.id), b)) end,
  add = function(_, _, r, _, into) into(r.a); into(r.b) end,
  sub = function(_, _, r, _, into) into(r.a); into(r.b, "-1.0") end,
  neg = function(_, _, r, _, into) into(r.a, "-1.0") end,
  mul = function(_, self, r, _, into) into(r.a, self:ex(r.b)); into(r.b, self:ex(r.a)) end,
  div = function(_, self, r, _, into)
    into(r.a, "1.0 / (" .. self:ex(r.b) .. ")")
    into(r.b, "-(" .. self:ex(r.id) .. ") / (" .. self:ex(r.b) .. ")")
  end,
  cond = function(_, self, r, _, into)
    self:if_else(self:ex(r.a), function() into(r.b) end, function() into(r.c) end)
  end,
  intrin = function(_, self, r, _, into)
    local g = GOPS[LAY.gop[r.fn]]
    local args = { "(" .. self:ex(r.a) .. ")", r.b and ("(" .. self:ex(r.b) .. ")") or nil }
    for i, o in ipairs { r.a, r.b } do
      if i <= g.arity then into(o, spell(g.partials[i], args, "(" .. self:ex(r.id) .. ")")) end
    end
  end,
  ["const_i|const_d|addr|ptradd|not|mod|and|or|cast|" .. ir.GROUP.compare] = function(op)
    failf("adjoint code: no adjoint for the operation %s", op)
  end,
})

-- Propagates the adjoint b (a C name or product) into expression e, with
-- the operands' partials on the current (restored) state.
function E:prop(e, b)
  if not self:has_active(e) then return end
  -- a composite operand gets its adjoint through a temporary
  local function into(o, factor)
    if not self:has_active(o) then return end
    local w = factor and ("%s * (%s)"):format(b, factor) or b
    local oo = self.v:expr(o).op
    if oo == "var" or oo == "elem" then
      self:put(("%s += %s"):format(self:adj(o), w))
    else
      local t = self.em:temp("double", "t")
      self:set(t, w)
      self:prop(o, t)
    end
  end
  local x = self.v:expr(e)
  PROP(x.op, self, x, b, into)
end

-- The push and pop of a scalar or cell lvalue e of type ty.
local PUSH = { double = "cgwb_push_d", int = "cgwb_push_i" }
local POP = { double = "cgwb_pop_d()", int = "cgwb_pop_i()" }

-- The runtime's calls that save and restore a pointer: with the frame
-- registry where a pointer may hold the address of a local (gen.frames).
local PTR_PLAIN = { push = "cgwb_push_p", pop = "cgwb_pop_p()", snap = "cgwb_snap_p", unsnap = "cgwb_unsnap_p()" }
local PTR_FRAME = { push = "cgwb_push_fp", pop = "cgwb_pop_fp()", snap = "cgwb_snap_fp", unsnap = "cgwb_unsnap_fp()" }
function E:ptr_save(what) return (self.gen.frames and PTR_FRAME or PTR_PLAIN)[what] end

-- The tape lines saving lvalue e (before it is overwritten).
function E:push_old(e)
  local x = self.v:expr(e)
  local y = self.v:sym(x.sym)
  local lv = self:ex(e)
  if y.ptr and x.op == "var" then
    self:call(self:ptr_save("push"), lv)
    if double(y) then self:call(self:ptr_save("push"), self.gen.bname[x.sym]) end
  else
    self:call(PUSH[scalar_type(y)], lv)
  end
end

-- The reverse of push_old; l: the statement's line, for a comment.
function E:pop_old(e, l)
  local x = self.v:expr(e)
  local y = self.v:sym(x.sym)
  local lv = self:ex(e)
  if y.ptr and x.op == "var" then
    if double(y) then self:set(self.gen.bname[x.sym], "(double *)" .. self:ptr_save("pop"), l) end
    self:set(lv, self:ptr_save("pop"), l)
  else
    self:set(lv, POP[scalar_type(y)], l)
  end
end

-- Refuses what the scheme does not handle (yet) at statement record r.
function E:refuse(r, what)
  failf("%s:%d:%d: adjoint code: %s is not supported yet", self.gen.file, r.line, r.col, what)
end

-- The activity pattern of call r (the callee's variant, G:variant): per
-- parameter "a" (the argument may carry activity), "p" (passive: the callee
-- never touches its adjoint, which is 0 for a pointer) or "-" (an int).
function E:call_pattern(r)
  local v = self.v
  local callee = v:func(r.callee)
  local pat = {}
  for i, a in ipairs(r.args) do
    local p = v:sym(callee.params[i])
    if not double(p) then
      pat[i] = "-"
    elseif indirect(p) then
      local state = self:root_state(a)
      local on = state ~= "null" and (self.act.expr[a] or false)
      if on and state == "mixed" then
        failf("%s:%d:%d: adjoint code: the argument %s of %s may point into a passive parameter (no adjoint) "
          .. "or into an active array; not supported yet", self.gen.file, r.line, r.col, self:ex(a), callee.name)
      end
      pat[i] = on and "a" or "p"
    else
      pat[i] = self:has_active(a) and "a" or "p"
    end
  end
  return table.concat(pat)
end

-- The arguments of call r for the callee's variant for pattern pat: primal
-- (vals[i] for a kept one), and after each double or double * parameter its
-- adjoint (by-value: bvals[i], a name; a passive pointer: 0).
function E:call_args(r, bvals, pat, vals)
  local v = self.v
  local params = v:func(r.callee).params
  local args = {}
  for i, a in ipairs(r.args) do
    local p = v:sym(params[i])
    args[#args + 1] = vals[i] or self:ex(a)
    if double(p) then
      if indirect(p) then
        args[#args + 1] = pat:sub(i, i) == "a" and self:shadow(a) or "0"
      else
        args[#args + 1] = "&" .. bvals[i]
      end
    end
  end
  return args
end

-- Whether expression e (or nil) reads a cell or a local whose address is
-- taken (what a callee may change through a pointer).
function E:reads_mutable(e)
  if not e then return false end
  local x = self.v:expr(e)
  if x.op == "elem" then return true end
  if x.op == "var" then
    local y = self.v:sym(x.sym)
    return y.ptr or y.addr
  end
  if x.op == "const_i" or x.op == "const_d" or x.op == "addr" then return false end
  return self:reads_mutable(x.a) or self:reads_mutable(x.b) or self:reads_mutable(x.c)
end

-- The by-value arguments of call r that g_rev must get as g_fwd got them:
-- the call may write through a pointer what they read (ha(&t, t) changes t
-- before g_rev would read it).  The list of their indices.
function E:kept_args(r)
  local v = self.v
  local params = v:func(r.callee).params
  local writes = false
  for i = 1, #r.args do
    local p = v:sym(params[i])
    if indirect(p) and not p.const then writes = true end
  end
  local list = {}
  if not writes then return list end
  for i, a in ipairs(r.args) do
    if scalar(v:sym(params[i])) and self:reads_mutable(a) then list[#list + 1] = i end
  end
  return list
end

-- {==== -DCGWB_CHECK_ASSUME: the cells the forward sweep touches ====}

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

-- }====

-- {==== the forward sweep ====}

function E:fwd_slice(ids)
  for _, st in ipairs(ids) do self:fwd(st) end
end

-- The forward sweep's code of statement record r: FWD(kind, self, r).
local FWD = ir.cases("stmt", "cgwb.adjoint: the forward sweep", {
  assign = function(_, self, r)
    self:push_old(r.lhs)
    self:put(self.u:simple(r.id), r.line)
    if self:is_ptr_var(r.lhs) then self:set(self.gen.bname[self.v:expr(r.lhs).sym], self:shadow(r.rhs)) end
  end,
  call = function(_, self, r)
    local l = r.line
    local callee = self.v:func(r.callee)
    local dummy = {}
    for i = 1, #r.args do dummy[i] = self.gen.prefix .. "unused" end
    local pat = self:call_pattern(r)
    local kept, vals = self:kept_args(r), {}
    for _, i in ipairs(kept) do
      vals[i] = self.em:temp(scalar_type(self.v:sym(callee.params[i])), "v")
      self:set(vals[i], self:ex(r.args[i]))
    end
    local call = ("%s(%s)"):format(self.gen:variant(r.callee, pat).fwd, table.concat(self:call_args(r, dummy, pat, vals), ", "))
    self:chk_args(r)
    local function keep() -- after g_fwd's tape: g_rev pops them first
      for _, i in ipairs(kept) do self:call(PUSH[scalar_type(self.v:sym(callee.params[i]))], vals[i]) end
    end
    if r.lhs then
      local t = self.em:temp(callee.ret, "r")
      self:set(t, call, l)
      keep()
      self:push_old(r.lhs) -- the state at the callee's end
      self:set(self:ex(r.lhs), t)
    else
      self:put(call, l)
      keep()
    end
  end,
  ["if"] = function(_, self, r)
    local c = self.em:temp("int", "c")
    self:set(c, self:ex(r.cond) .. " ? 1 : 0", r.line)
    self:if_else(c, function() self:fwd_slice(r["then"]) end,
      #r["else"] > 0 and function() self:fwd_slice(r["else"]) end or nil)
    self:call("cgwb_push_i", c)
  end,
  loop = function(_, self, r)
    local n = self.em:temp("int", "n")
    self:set(n, "0", ("%d: %s loop"):format(r.line, r.form))
    self:loop_frame(r, function(s) self:fwd(s) end, function() self:fwd_slice(r.body) end,
      function() self:put(n .. "++") end)
    self:call("cgwb_push_i", n)
  end,
  ["return"] = function(_, self, r)
    if r.value then self:set(self.ret_var, self:ex(r.value), r.line) end
  end,
  ["break|continue"] = function(kind, self, r) self:refuse(r, kind) end,
})

function E:fwd(st)
  local r = self.v:stmt(st)
  if self.chosen and self.chosen[st + 1] then return self:fwd_chosen(r, self.chosen[st + 1]) end
  self:chk_stmt(r)
  FWD(r.kind, self, r)
end

-- {==== the reverse sweep ====}

function E:rev_slice(ids)
  for i = #ids, 1, -1 do self:rev(ids[i]) end
end

function E:stmt_active(st) return self.act.stmt[st + 1] or false end

-- The reverse sweep's code of statement record r: REV(kind, self, r).
local REV = ir.cases("stmt", "cgwb.adjoint: the reverse sweep", {
  assign = function(_, self, r)
    local l = r.line
    local y = self:sym_at(r.lhs)
    self:pop_old(r.lhs, l)
    if double(y) and not (y.ptr and self.v:expr(r.lhs).op == "var") and self:active_at(r.lhs) then
      local lb = self:adj(r.lhs)
      if self:stmt_active(r.id) and self:has_active(r.rhs) then
        local b = self.em:temp("double", "b")
        self:set(b, lb, ("%d: %s"):format(l, self.u:simple(r.id)))
        self:set(lb, "0.0")
        self:prop(r.rhs, b)
      else
        self:set(lb, "0.0", l)
      end
    end
  end,
  call = function(_, self, r)
    local l = r.line
    local callee = self.v:func(r.callee)
    local rb = "0.0"
    if r.lhs then
      self:pop_old(r.lhs, l)
      if double(self:sym_at(r.lhs)) and self:active_at(r.lhs) then
        rb = self.em:temp("double", "rb")
        self:set(rb, self:adj(r.lhs), l)
        self:set(self:adj(r.lhs), "0.0")
      end
    end
    local bvals, byval = {}, {}
    for i = 1, #r.args do
      local p = self.v:sym(callee.params[i])
      if double(p) and scalar(p) then
        bvals[i] = self.em:temp("double", "a")
        byval[#byval + 1] = i
        self:set(bvals[i], "0.0")
      end
    end
    local pat = self:call_pattern(r)
    local kept, vals = self:kept_args(r), {}
    for j = #kept, 1, -1 do
      local i = kept[j]
      local ty = scalar_type(self.v:sym(callee.params[i]))
      vals[i] = self.em:temp(ty, "v")
      self:set(vals[i], POP[ty], l .. ": the argument g_fwd got")
    end
    local args = self:call_args(r, bvals, pat, vals)
    if callee.ret == "double" then args[#args + 1] = rb end
    self:call(self.gen:variant(r.callee, pat).rev, table.concat(args, ", "), l)
    for _, i in ipairs(byval) do self:prop(r.args[i], bvals[i]) end
  end,
  ["if"] = function(_, self, r)
    local c = self.em:temp("int", "c")
    self:set(c, "cgwb_pop_i()", r.line .. ": if")
    self:if_else(c, function() self:rev_slice(r["then"]) end,
      #r["else"] > 0 and function() self:rev_slice(r["else"]) end or nil)
  end,
  loop = function(_, self, r)
    local n, k = self.em:temp("int", "n"), self.em:temp("int", "k")
    local is_do = r.form == "do"
    self:set(n, "cgwb_pop_i()", r.line .. ": the trip count")
    if not is_do then self:rev_slice(r.pre) end -- the last, failed test
    self.em:open(("for (%s = 0; %s < %s; %s++) {"):format(k, k, n, k))
    if is_do then self:rev_slice(r.pre) end
    self:rev_slice(r.step)
    self:rev_slice(r.body)
    if not is_do then self:rev_slice(r.pre) end
    self.em:close()
  end,
  ["return"] = function() end, -- its adjoint is the first thing of the reverse sweep
  ["break|continue"] = function(kind, self, r) self:refuse(r, kind) end,
})

function E:rev(st)
  local r = self.v:stmt(st)
  if self.chosen and self.chosen[st + 1] then return self:rev_chosen(r, self.chosen[st + 1]) end
  REV(r.kind, self, r)
end

-- {==== plain code (dry runs, loop control) ====}

-- Before a write of lvalue lhs (or nil) in a dry run: its cell's old value
-- on the snapshot stack when it is one of snap's arrays.
function E:save_cell(lhs, snap, count)
  if not (lhs and snap) then return end
  local x = self.v:expr(lhs)
  if x.op == "elem" and snap[x.sym] then
    local fn = double(self.v:sym(x.sym)) and "cgwb_snap_cd" or "cgwb_snap_ci"
    self:put(("%s += %s(%d, %s, &%s)"):format(count, fn, snap[x.sym] - 1, self:base(x.sym), self:ex(lhs)))
  end
end

-- Statement record r as plain C: PLAIN(kind, self, r, snap, count).
local PLAIN = ir.cases("stmt", "cgwb.adjoint: the plain code", {
  assign = function(_, self, r, snap, count)
    self:save_cell(r.lhs, snap, count)
    self:put(self.u:simple(r.id), r.line)
  end,
  call = function(_, self, r, snap, count)
    self:save_cell(r.lhs, snap, count)
    local args = {}
    for i, a in ipairs(r.args) do args[i] = self:ex(a) end
    local call = ("%s(%s)"):format(self.gen.plain_name[r.callee], table.concat(args, ", "))
    if r.lhs then self:set(self:ex(r.lhs), call, r.line) else self:put(call, r.line) end
  end,
  ["if"] = function(_, self, r, snap, count)
    self:if_else(self:ex(r.cond), function() self:plain_slice(r["then"], snap, count) end,
      #r["else"] > 0 and function() self:plain_slice(r["else"], snap, count) end or nil)
  end,
  loop = function(_, self, r, snap, count)
    self:loop_frame(r, function(s) self:plain(s, snap, count) end, function() self:plain_slice(r.body, snap, count) end)
  end,
  ["return|break|continue"] = function(kind, self, r) self:refuse(r, kind) end,
})

-- Statement st as plain C (callees' plain copies g_p); snap: {[sym] =
-- true} arrays whose cells are saved before each write, count: the C name
-- counting them.
function E:plain(st, snap, count)
  local r = self.v:stmt(st)
  self:chk_stmt(r)
  PLAIN(r.kind, self, r, snap, count)
end

function E:plain_slice(ids, snap, count)
  for _, s in ipairs(ids) do self:plain(s, snap, count) end
end

-- Loop record r with its control (pre, test, step) done by ctl(stmt), its
-- body by body() and tail() (if given) after the step: for (;;) { pre;
-- test; body; step; tail } (do: the test last).
function E:loop_frame(r, ctl, body, tail)
  local is_do = r.form == "do"
  self.em:open("for (;;) {")
  local function test()
    for _, s in ipairs(r.pre) do ctl(s) end
    self:chk { r.cond }
    if r.cond then self.em:line(("if (!(%s)) break;"):format(self:ex(r.cond))) end
  end
  if not is_do then test() end
  body()
  for _, s in ipairs(r.step) do ctl(s) end
  if tail then tail() end
  if is_do then test() end
  self.em:close()
end

-- {==== loops adjoined per iteration ====}

-- What keeps loop st's control (pre and step slices) from running plainly
-- around the per-iteration adjoint (a call, a write of a double or a cell)
-- and the statement record where it is, or nil.
local function control_problem(v, st)
  local r = v:stmt(st)
  for _, part in ipairs { r.step, r.pre } do
    for _, s in ipairs(part) do
      local c = v:stmt(s)
      if c.kind == "call" then return "a call in the control of a loop adjoined per iteration", c end
      if c.kind == "assign" then
        local x = v:expr(c.lhs)
        if x.op ~= "var" or double(v:sym(x.sym)) then
          return "a loop control writing a double or a cell, adjoined per iteration,", c
        end
      end
    end
  end
  return nil
end

-- The scalars a chosen loop's control (pre and step slices) writes; it
-- refuses control that writes anything else.
function E:control_syms(r)
  local bad, at = control_problem(self.v, r.id)
  if bad then self:refuse(at, bad) end
  local syms, seen = {}, {}
  for _, part in ipairs { r.step, r.pre } do
    for _, s in ipairs(part) do
      local c = self.v:stmt(s)
      if c.kind == "assign" then
        local sym = self.v:expr(c.lhs).sym
        if not seen[sym] then seen[sym] = true; syms[#syms + 1] = sym end
      end
    end
  end
  table.sort(syms)
  return syms
end

-- The first cell of array or pointer s as a pointer.
function E:base(s)
  local y = self.v:sym(s)
  if y.kind == "global" then failf("adjoint code: a snapshot of the global %s", self.u.cname[s]) end
  if y.ndim == 2 then return "&" .. self.u.cname[s] .. "[0][0]" end -- a parameter too: double (*)[N] is no double *
  return self.u.cname[s]
end

-- Whether snapshot entry sv (a row of the analysis) is a scalar's.
function E:snap_scalar(sv) return sv.scalar or scalar(self.v:sym(sv.sym - 1)) end

-- The arrays of a loop's snapshot: {[sym] = id (1-based)} and the list.
function E:snap_arrays(row)
  local ids, list = {}, {}
  for _, sv in ipairs(row.snapshot or {}) do
    if not self:snap_scalar(sv) then
      list[#list + 1] = sv.sym - 1
      ids[sv.sym - 1] = #list
    end
  end
  return ids, list
end

function E:ctype(s)
  local y = self.v:sym(s)
  return y.ptr and "void *" or scalar_type(y)
end

-- The loop's counter (the analysis's row names it) when the body writes it
-- (a while loop's `i++` in its body): a symbol id, or nil.
function E:body_counter(r, row)
  if not row.index then return nil end
  local v, fr = self.v, self.v:func(self.fid)
  local ctr
  for s = fr.sym0, fr.sym0 + fr.nsym - 1 do
    local y = v:sym(s)
    if y.name == row.index and not double(y) and y.ndim == 0 then ctr = s end
  end
  if not ctr then return nil end
  local writes = false -- whether a statement of the body (nested too) assigns ctr
  v:walk(r.body, function(c)
    if c.kind == "assign" then
      local x = v:expr(c.lhs)
      if x.op == "var" and x.sym == ctr then writes = true end
    end
  end)
  return writes and ctr or nil
end

-- The per-iteration loop: each iteration's forward (taped) immediately
-- followed by its reverse, the control run plainly; a counter the body
-- advances keeps its advanced value across the iteration's reverse.
function E:fused(r, row)
  local ctr = self:body_counter(r, row)
  self:loop_frame(r, function(s) self:plain(s) end, function()
    for _, s in ipairs(r.body) do self:fwd(s) end
    local keep = ctr and self.em:temp(self:ctype(ctr), "w")
    if keep then self:set(keep, self.u.cname[ctr], "the counter after this iteration") end
    for i = #r.body, 1, -1 do self:rev(r.body[i]) end
    if keep then self:set(self.u.cname[ctr], keep) end
  end)
end

-- The scalars saved around a chosen loop: its control's and its counter.
function E:saved_syms(r, row)
  local ctl = self:control_syms(r)
  local ctr = self:body_counter(r, row)
  if ctr then
    local have = false
    for _, s in ipairs(ctl) do if s == ctr then have = true end end
    if not have then ctl[#ctl + 1] = ctr; table.sort(ctl) end
  end
  return ctl
end

function E:fwd_chosen(r, row)
  local v, l = self.v, r.line
  local ctl = self:saved_syms(r, row)
  for _, s in ipairs(ctl) do self:call(PUSH[scalar_type(v:sym(s))], self.u.cname[s]) end
  if row.terminal then
    self.em:line(("/* %d: terminal independent loop, each iteration's adjoint right after it "
      .. "(Hascoet, Fidanova & Held, Fig. 4) */"):format(l))
    self:fused(r, row)
    return
  end
  self.em:line(("/* %d: independent loop, dry run: no tape, a snapshot of what it overwrites "
    .. "(Hascoet, Fidanova & Held, Fig. 5) */"):format(l))
  local snap_arrays = self:snap_arrays(row)
  for _, sv in ipairs(row.snapshot or {}) do
    local s = sv.sym - 1
    if self:snap_scalar(sv) then
      local y = v:sym(s)
      local fn = y.ptr and self:ptr_save("snap") or (double(y) and "cgwb_snap_d" or "cgwb_snap_i")
      self:call(fn, self.u.cname[s])
    end
  end
  local count = next(snap_arrays) and self.em:temp("size_t", "s")
  if count then self:set(count, "0") end
  self:loop_frame(r, function(s) self:plain(s) end, function() self:plain_slice(r.body, count and snap_arrays, count) end)
  if count then self:call("cgwb_snap_count", count) end
end

function E:rev_chosen(r, row)
  local v, l = self.v, r.line
  local ctl = self:saved_syms(r, row)
  if row.terminal then
    self.em:line(("/* %d: terminal loop, adjoined in the forward sweep */"):format(l))
    for i = #ctl, 1, -1 do self:set(self.u.cname[ctl[i]], POP[scalar_type(v:sym(ctl[i]))]) end
    return
  end
  self.em:line(("/* %d: the dry-run loop again, each iteration's adjoint right after it */"):format(l))
  local _, list = self:snap_arrays(row)
  if #list > 0 then
    local count = self.em:temp("size_t", "s")
    self:set(count, "cgwb_unsnap_count()")
    local bases = self.em:temp(("void *[%d]"):format(#list), "bases")
    local t = {}
    for i, s in ipairs(list) do t[i] = ("%s[%d] = (void *)%s;"):format(bases, i - 1, self:base(s)) end
    self.em:line(table.concat(t, " "))
    self.em:line(("while (%s-- > 0) cgwb_unsnap_cell(%s);"):format(count, bases))
  end
  local snaps = row.snapshot or {}
  for i = #snaps, 1, -1 do
    local s = snaps[i].sym - 1
    if self:snap_scalar(snaps[i]) then
      local y = v:sym(s)
      local fn = y.ptr and self:ptr_save("unsnap") or (double(y) and "cgwb_unsnap_d()" or "cgwb_unsnap_i()")
      self:set(self.u.cname[s], fn)
    end
  end
  local saved = {}
  for i = #ctl, 1, -1 do
    local s = ctl[i]
    saved[i] = self.em:temp(self:ctype(s), "v")
    self:set(saved[i], POP[scalar_type(v:sym(s))])
    self:set(self.u.cname[s], saved[i])
  end
  self:fused(r, row)
  for i, s in ipairs(ctl) do self:set(self.u.cname[s], saved[i]) end
end

-- {==== a function's three bodies ====}

-- The locals of the sweeps: declarations of the primal locals (zeroed),
-- of the adjoints, and the symbols whose values cross from g_fwd to g_rev.
function E:locals()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local decl, adecl, cross, across = {}, {}, {}, {}
  local written = {}
  for _, r in ipairs(self:own_stmts()) do
    if (r.kind == "assign" or r.kind == "call") and r.lhs then
      local x = v:expr(r.lhs)
      if x.op == "var" then written[x.sym] = true end
    end
  end
  for s = fr.sym0, fr.sym0 + fr.nsym - 1 do
    local y = v:sym(s)
    local is_param = s < fr.sym0 + fr.nparam
    if not is_param then
      local init = (y.ndim > 0 and not y.ptr) and (y.ndim == 2 and " = {{0}}" or " = {0}")
        or (y.ptr and " = 0" or (double(y) and " = 0.0" or " = 0"))
      local d = u:sym_decl(s):gsub("^const ", y.ptr and "const " or "")
      decl[#decl + 1] = d .. init .. ";"
    end
    if not is_param or written[s] then cross[#cross + 1] = s end
    if double(y) then
      local b = gen.bname[s]
      if y.ptr and not is_param then
        adecl[#adecl + 1] = "double *" .. b .. " = 0;"
      elseif not is_param and y.ndim > 0 then
        adecl[#adecl + 1] = "double " .. b .. "[" .. y.dim0 .. "]" .. (y.ndim == 2 and ("[" .. y.dim1 .. "] = {{0.0}};") or " = {0.0};")
        across[#across + 1] = b
      elseif not is_param then
        adecl[#adecl + 1] = "double " .. b .. " = 0.0;"
        across[#across + 1] = b
      elseif scalar(y) then
        adecl[#adecl + 1] = "double " .. gen.prefix .. b .. " = 0.0;" -- a by-value parameter's adjoint, added at the end
        across[#across + 1] = gen.prefix .. b
      end
    end
  end
  return decl, adecl, cross, across
end

-- The frame registry's lines of the sweeps of function f: its local arrays
-- and the locals whose address is taken, with their adjoints, the same in
-- g_fwd and g_rev (the runtime restores a saved pointer into such a local
-- as the same place in g_rev's copy; g_fwd's frame is gone by then).
function E:regions()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local lines = {}
  local function region(n, array) lines[#lines + 1] = ("cgwb_frame_region(%s%s, sizeof %s);"):format(array and "" or "&", n, n) end
  for s = fr.sym0 + fr.nparam, fr.sym0 + fr.nsym - 1 do
    local y = v:sym(s) -- the front end marks a scalar whose address is taken (addr)
    if not y.ptr and (y.ndim > 0 or y.addr) then
      region(u.cname[s], y.ndim > 0)
      if double(y) then region(gen.bname[s], y.ndim > 0) end
    end
  end
  if #lines > 0 then table.insert(lines, 1, "cgwb_frame_enter();") end
  return lines
end

-- Pushes (or pops, in reverse) the values of the symbols in cross.
function E:cross(cross, pop)
  local v, u = self.v, self.u
  local first, last, step = 1, #cross, 1
  if pop then first, last, step = #cross, 1, -1 end
  for i = first, last, step do
    local s = cross[i]
    local y = v:sym(s)
    local n = u.cname[s]
    if y.ndim > 0 and not y.ptr then
      self:call(pop and "cgwb_pop_n" or "cgwb_push_n", n .. ", sizeof " .. n)
    elseif y.ptr and pop then
      if double(y) then self:set(self.gen.bname[s], "(double *)" .. self:ptr_save("pop")) end
      self:set(n, self:ptr_save("pop"))
    elseif y.ptr then
      self:call(self:ptr_save("push"), n)
      if double(y) then self:call(self:ptr_save("push"), self.gen.bname[s]) end
    elseif pop then
      self:set(n, POP[scalar_type(y)])
    else
      self:call(PUSH[scalar_type(y)], n)
    end
  end
end

-- The C types of the sweeps' temporaries, in the order they are declared.
local TEMP_TYPES = { "int", "double", "size_t", "void *" }

-- A function of a sweep: head, then its declarations decl, its
-- temporaries', the lines post and the body run() emits into self.em (a
-- new emitter); -> its line records.
function E:sweep(head, decl, run, post)
  local em = emit.new { depth = 1, prefix = self.gen.prefix }
  self.em = em
  em:push() -- the body first: the temporaries it makes are declared above it
  run()
  local body = em:pop()
  em:indent(-1)
  em:open(head .. " {")
  for _, d in ipairs(decl) do em:line(d) end
  for _, d in ipairs(em:decls(TEMP_TYPES, 10)) do em:line(d) end
  for _, l in ipairs(post or {}) do em:line(l) end
  em:append(body)
  em:close()
  return em:sink()
end

--- The void casts of every name (a local may be set and never read).
local function voids(names)
  local out = {}
  for i = 1, #names, 8 do
    local t = {}
    for j = i, math.min(#names, i + 7) do t[#t + 1] = "(void)" .. names[j] .. ";" end
    out[#out + 1] = table.concat(t, " ")
  end
  return out
end

function E:emit()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local ret, body = fr.ret, fr.body
  -- only a return as the last statement of the function
  for i, st in ipairs(body) do
    v:walk({ st }, function(r, depth)
      if r.kind == "return" and not (depth == 0 and i == #body) then self:refuse(r, "return before the end of a function") end
      if r.kind == "break" or r.kind == "continue" then self:refuse(r, r.kind) end
    end)
  end
  local decl, adecl, cross, across = self:locals()
  local sym0, np = fr.sym0, fr.nparam
  local names = {}
  for s = sym0, sym0 + fr.nsym - 1 do
    local y = v:sym(s)
    names[#names + 1] = u.cname[s]
    if double(y) then
      names[#names + 1] = gen.bname[s]
      if s < sym0 + np and scalar(y) then names[#names + 1] = gen.prefix .. gen.bname[s] end
    end
  end
  local sig_tail = gen:adj_params(self.fid)
  local P = gen.prefix
  self.ret_var = P .. "ret"
  -- the forward sweep
  local fdecl = {}
  for _, d in ipairs(decl) do fdecl[#fdecl + 1] = d end
  for _, d in ipairs(adecl) do fdecl[#fdecl + 1] = d end
  if ret ~= "void" then fdecl[#fdecl + 1] = ret .. " " .. self.ret_var .. " = 0;" end
  fdecl[#fdecl + 1] = "double " .. P .. "unused = 0.0;"
  local fwd_voids = { P .. "unused" }
  for _, n in ipairs(names) do fwd_voids[#fwd_voids + 1] = n end
  local regions = gen.regions[self.fid]
  local function with_regions(lines)
    for _, l in ipairs(regions) do lines[#lines + 1] = l end
    return lines
  end
  local fwd = self:sweep(("static %s %s(%s)"):format(ret, self.names.fwd, sig_tail), fdecl, function()
    self.in_fwd = true
    if gen.check then self.em:line(("CGWB_CHK_ENTER(%d);"):format(np)) end
    for _, st in ipairs(body) do self:fwd(st) end
    if gen.check then self.em:line("CGWB_CHK_LEAVE();") end
    self.in_fwd = false
    self:cross(cross, false)
    if self.terminal_fused then -- what the loops adjoined here added to adjoints of locals
      for _, b in ipairs(across) do self:call("cgwb_push_n", ("&%s, sizeof %s"):format(b, b)) end
    end
    if #regions > 0 then self.em:line("cgwb_frame_leave();") end
    if ret ~= "void" then self:put("return " .. self.ret_var) end
  end, with_regions(voids(fwd_voids)))
  -- the reverse sweep
  local rdecl = {}
  for _, d in ipairs(decl) do rdecl[#rdecl + 1] = d end
  for _, d in ipairs(adecl) do rdecl[#rdecl + 1] = d end
  rdecl[#rdecl + 1] = "double " .. P .. "unused = 0.0;" -- the by-value adjoints of g_fwd calls in fused loops
  names[#names + 1] = P .. "unused"
  local rsig = sig_tail
  local retb = gen.ret_name[self.fid]
  if ret == "double" then
    rsig = (rsig == "void" and "" or (rsig .. ", ")) .. "double " .. retb
    names[#names + 1] = retb -- a passive result's adjoint is not read
  end
  local rev = self:sweep(("static void %s(%s)"):format(self.names.rev, rsig), rdecl, function()
    if self.terminal_fused then
      for i = #across, 1, -1 do self:call("cgwb_pop_n", ("&%s, sizeof %s"):format(across[i], across[i])) end
    end
    self:cross(cross, true)
    local last = body[#body] and v:stmt(body[#body])
    if last and last.kind == "return" and ret == "double" and last.value then
      self.em:line(("/* %d: return */"):format(last.line))
      self:prop(last.value, retb)
    end
    for i = #body, 1, -1 do self:rev(body[i]) end
    for s = sym0, sym0 + np - 1 do
      if double(v:sym(s)) and scalar(v:sym(s)) and self.param_active[s] and self.act.name[u.cname[s]] then
        self:put(("*%s += %s%s"):format(gen.bname[s], P, gen.bname[s]))
      end
    end
    if #regions > 0 then self.em:line("cgwb_frame_leave();") end
  end, with_regions(voids(names)))
  return fwd, rev
end

-- }====

-- {==== the file ====}

local G = {}
G.__index = G

-- F's parameter list with each double and double * parameter followed by
-- its adjoint pointer.
function G:adj_params(f)
  local u, v = self.u, self.v
  local parts = {}
  for _, s in ipairs(v:func(f).params) do
    local y = v:sym(s)
    parts[#parts + 1] = u:param(s)
    if double(y) then
      if indirect(y) then
        local old = u.cname[s]
        u.cname[s] = self.bname[s]
        local t = u:param(s):gsub("^const ", "")
        u.cname[s] = old
        parts[#parts + 1] = t
      else
        parts[#parts + 1] = "double *" .. self.bname[s]
      end
    end
  end
  return #parts == 0 and "void" or table.concat(parts, ", ")
end

-- f's own parameter list (its plain copy's).
function G:plain_params(f)
  local parts = {}
  for _, s in ipairs(self.v:func(f).params) do parts[#parts + 1] = self.u:param(s) end
  return #parts == 0 and "void" or table.concat(parts, ", ")
end

-- The variant of function f for the activity pattern pat of a call
-- (E:call_pattern): {fwd, rev} names of its sweeps, queued for emit_raw.
-- Its activity is f's own, with the "a" parameters independent (and the
-- pointers among them dependent, and a double result); the "p" ones get 0
-- or a dummy as adjoint and are never touched (Hovland, Norris, Utke &
-- Strout, sec. 4, per call context).
function G:variant(f, pat)
  local key = f .. ":" .. pat
  if self.variants[key] then return self.variants[key] end
  local n = self.v:func(f).name
  local suffix = (f ~= self.main and not pat:find("p", 1, true)) and "" or ("_" .. pat:gsub("%-", "i"))
  local var = { f = f, pat = pat, fwd = n .. "_fwd" .. suffix, rev = n .. "_rev" .. suffix }
  for _, x in ipairs { var.fwd, var.rev } do
    if self.taken[x] then failf("%s: the adjoint code of %s needs the name %s, a name of the file", self.file, n, x) end
  end
  self.variants[key] = var
  self.queue[#self.queue + 1] = var
  return var
end

-- A zero adjoint of a global array (globals are constants; what a callee
-- adds to it is dropped).
function G:zero_global(s)
  local u = self.u
  if not self.zeros[s] then
    local name = self.prefix .. "zero_" .. u.cname[s]
    self.zeros[s] = name
    local y = self.v:sym(s)
    self.zero_list[#self.zero_list + 1] = "static double " .. name .. "[" .. math.max(y.dim0, 1) .. "]"
      .. (y.ndim == 2 and ("[" .. y.dim1 .. "] = {{0.0}};") or " = {0.0};")
  end
  return self.zeros[s]
end


-- A plain copy of function f named name (calls renamed to plain copies).
function G:plain_func(f)
  local u, v = self.u, self.v
  local fn = setmetatable({ u = u, v = v, gen = self, fid = f }, E)
  local fr = v:func(f)
  local decl = {}
  for s = fr.sym0 + fr.nparam, fr.sym0 + fr.nsym - 1 do decl[#decl + 1] = u:sym_decl(s) .. ";" end
  local head = ("static %s %s(%s)"):format(fr.ret, self.plain_name[f], self:plain_params(f))
  return fn:sweep(head, decl, function()
    for _, st in ipairs(fr.body) do
      local r = v:stmt(st)
      if r.kind == "return" then
        fn:put(r.value and ("return " .. fn:ex(r.value)) or "return")
      else
        fn:plain(st)
      end
    end
  end)
end

-- The loops to adjoin per iteration: {[stmt id 1-based] = info row}, the
-- outermost chosen ones only; or raises a refusal.
local function choose_loops(gen, info, sel)
  local chosen, transformed = {}, {}
  if sel == nil or sel == "none" then return chosen, transformed end
  local lines = nil
  if type(sel) == "table" then
    lines = {}
    for _, l in ipairs(sel) do lines[l] = true end
    for _, l in ipairs(sel) do
      local found = false
      for _, row in ipairs(info.loops) do if row.line == l then found = true end end
      if not found then failf("%s: --loops: no loop starts at line %s", gen.file, tostring(l)) end
    end
  elseif sel ~= "auto" and type(sel) ~= "function" then
    failf("--loops: '%s' is not auto, none, a list of lines or a function", tostring(sel))
  end
  for i, row in ipairs(info.loops) do
    local want
    if sel == "auto" then want = row.verdict == "accept"
    elseif lines then want = lines[row.line] or false
    else
      local ok, r = pcall(sel, row)
      if not ok then failf("the loops' function: %s", tostring(r)) end
      want = r and true or false
    end
    if want and row.verdict ~= "accept" then
      failf("%s:%d:%d: loop at line %d is not independent: %s", gen.file, row.line, row.col, row.line,
        tostring(row.reason))
    end
    local bad = want and control_problem(gen.v, row.stmt - 1)
    if bad then
      if lines then failf("%s:%d:%d: adjoint code: %s is not supported yet", gen.file, row.line, row.col, bad) end
      want = false -- auto or a function: this loop keeps the standard adjoint
    end
    if want then
      local p, nested = row.parent, false
      while p do
        if transformed[p] then nested = true end
        p = info.loops[p].parent
      end
      if not nested then
        transformed[i] = true
        chosen[row.stmt] = row
      end
    end
  end
  return chosen, transformed
end

--- What -DCGWB_CHECK_ASSUME checks for function f: {apart = {{i, j}, ...}
-- parameter indices (0-based) an --assume a!=b or a restrict keeps apart,
-- same = {{i, j}, ...} (a==b), ptrs = the pointer parameters' indices,
-- work = the work arrays' indices}, or nil when there is nothing to check.
local function check_plan(v, f, assume, work)
  local params = v:func(f).params
  local idx, ptrs = {}, {}
  for i, s in ipairs(params) do
    local y = v:sym(s)
    idx[y.name] = i - 1
    if indirect(y) then ptrs[#ptrs + 1] = i - 1 end
  end
  local plan, seen = { apart = {}, same = {}, ptrs = ptrs, work = work }, {}
  local function apart(i, j)
    if i > j then i, j = j, i end
    if not seen[i .. ":" .. j] then seen[i .. ":" .. j] = true; plan.apart[#plan.apart + 1] = { i, j } end
  end
  for _, a in ipairs(assume or {}) do
    local x, op, y = tostring(a):match("^%s*([%w_]+)%s*([!=]=)%s*([%w_]+)%s*$")
    if x and idx[x] and idx[y] then
      if op == "!=" then apart(idx[x], idx[y]) else plan.same[#plan.same + 1] = { idx[x], idx[y] } end
    end
  end
  for _, i in ipairs(ptrs) do
    local y = v:sym(params[i + 1])
    if y.restrict then
      for _, j in ipairs(ptrs) do if j ~= i and v:sym(params[j + 1]).base == y.base then apart(i, j) end end
    end
  end
  table.sort(plan.apart, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  if #plan.apart == 0 and #plan.same == 0 and #work == 0 then return nil end
  return plan
end

--- The activity of function fname for opts.independents, opts.dependents:
-- {stmt = active statements, expr = the access expressions that may touch
-- an active object, name = active names} and the analysis's activity table;
-- or raises.
local function activity(gen, k, fname, opts)
  local ok, a, err = pcall(core.kernel_analyze, k, fname, { assume = opts.assume, alias = opts.alias,
    independents = opts.independents, dependents = opts.dependents })
  if not ok then failf("%s: %s", gen.file, tostring(a):gsub("^.-:%d+: ", "")) end -- a name that is no parameter
  if not a then failf("%s", err) end
  local act = {}
  for _, n in ipairs(a.activity.active_symbols) do act[n] = true end
  for _, n in ipairs(a.activity.dependents) do act[n] = true end
  local stmt = {}
  for _, s in ipairs(a.activity.active_stmts) do stmt[s] = true end
  local objname = {}
  for i, o in ipairs(a.alias.objects) do objname[i] = o.name end
  local setact = {}
  for _, st in ipairs(a.alias.sets) do
    local on = false
    for _, o in ipairs(st.objects) do if act[objname[o]] then on = true end end
    setact[st.id] = on
  end
  local expr = {}
  for _, ac in ipairs(a.alias.accesses) do
    if ac.expr and setact[ac.set] then expr[ac.expr - 1] = true end
  end
  -- the pointer parameter (its index) an access's cells all belong to, for -DCGWB_CHECK_ASSUME
  local fr = gen.v:func(a.func and k:function_id(a.func) - 1)
  local sym0, np = fr.sym0, fr.nparam
  local settag = {}
  for _, st in ipairs(a.alias.sets) do
    local tag
    for _, o in ipairs(st.objects) do
      local sym = a.alias.objects[o].symbol - 1
      local t = (sym >= sym0 and sym < sym0 + np) and sym - sym0 or false
      if tag == nil then tag = t elseif tag ~= t then tag = false end
    end
    settag[st.id] = tag
  end
  local tagof = {}
  for _, ac in ipairs(a.alias.accesses) do
    if ac.expr and settag[ac.set] then tagof[ac.expr - 1] = settag[ac.set] end
  end
  return { stmt = stmt, expr = expr, name = act, tagof = tagof }, a.activity
end

-- emit's work; refusals raise {msg = ...}.
local function emit_raw(k, fname, opts)
  local fid, ferr = k:function_id(fname)
  if not fid then failf("%s", ferr) end
  local flat = k:flat()
  local u = unparse.writer(flat, LAY)
  local v = u.v
  local gen = setmetatable({ u = u, v = v, file = k:file(), zeros = {}, zero_list = {}, plain_name = {},
                             variants = {}, queue = {}, main = fid - 1 }, G)
  local funcs = u:reachable(fid - 1)
  local fnames, taken = {}, {}
  for g = 0, v.nfunc - 1 do taken[v:func(g).name] = true end
  for _, f in ipairs(funcs) do
    local n = v:func(f).name
    gen.plain_name[f] = n .. "_p"
    for _, x in ipairs { n .. "_fwd", n .. "_rev", n .. "_p", n .. "_b", n .. "_b_stats", n .. "_b_reset" } do
      if taken[x] then failf("%s: the adjoint code of %s needs the name %s, a function of the file", gen.file, n, x) end
      fnames[#fnames + 1] = x
    end
  end
  gen.prefix = u:free_prefix()
  gen.bname, gen.ret_name = u:derivative_names(funcs, fnames, "b", "_retb")
  for s = 0, v.nsym - 1 do
    taken[u.cname[s]] = true
    if gen.bname[s] then taken[gen.bname[s]] = true end
  end
  gen.taken = taken
  local main = fid - 1
  local mr = v:func(main)
  local main_act, act = activity(gen, k, fid, opts)
  local work = {}
  do -- the work arrays: active pointer parameters neither independent nor dependent
    local role = {}
    for _, n in ipairs(act.independents) do role[n] = true end
    for _, n in ipairs(act.dependents) do role[n] = true end
    for i, s in ipairs(mr.params) do
      local y = v:sym(s)
      if double(y) and main_act.name[u.cname[s]] and not role[y.name] and indirect(y) then
        work[#work + 1] = i - 1
      end
    end
  end
  gen.check = check_plan(v, main, opts.assume, work)
  -- the loops
  local sel = opts.loops or "none"
  local info = opts.info
  if not info then -- with "none" too: the report lists the loops
    local err
    info, err = core.kernel_loops(k, fid, { assume = opts.assume, alias = opts.alias,
      independents = opts.independents, dependents = opts.dependents })
    if not info and sel ~= "none" then failf("%s", err) end
  end
  local chosen, transformed = {}, {}
  if info then chosen, transformed = choose_loops(gen, info, sel) end
  local texts, protos = {}, {}
  gen.regions = {} -- where a pointer may hold a local's address, pointers are saved through the frame registry
  for _, f in ipairs(funcs) do
    gen.regions[f] = setmetatable({ u = u, v = v, gen = gen, fid = f }, E):regions()
    if #gen.regions[f] > 0 then gen.frames = true end
  end
  local r = progress.start("adjoint code", #funcs) -- per function (variants may be more)
  local pat = {}
  for _, s in ipairs(mr.params) do
    pat[#pat + 1] = not double(v:sym(s)) and "-" or (main_act.name[u.cname[s]] and "a" or "p")
  end
  local mname = mr.name
  local mv = { f = main, pat = table.concat(pat), fwd = mname .. "_fwd", rev = mname .. "_rev", act = main_act, main = true }
  table.insert(gen.queue, 1, mv)
  local done = 0
  while gen.queue[done + 1] do
    done = done + 1
    r:update(math.min(done - 1, #funcs))
    local var = gen.queue[done]
    local f = var.f
    local fr = v:func(f)
    if not var.act then
      local ind, dep = {}, {}
      for i, s in ipairs(fr.params) do
        local y = v:sym(s)
        if var.pat:sub(i, i) == "a" then
          ind[#ind + 1] = y.name
          if indirect(y) then dep[#dep + 1] = y.name end
        end
      end
      if fr.ret == "double" then dep[#dep + 1] = "return" end
      var.act = activity(gen, k, f + 1, { independents = ind, dependents = dep })
    end
    local fn = setmetatable({ u = u, v = v, gen = gen, fid = f, act = var.act, names = var, param_active = {} }, E)
    for i, s in ipairs(fr.params) do fn.param_active[s] = var.pat:sub(i, i) == "a" end
    if var.main then
      fn.chosen = chosen
      for _, row in pairs(chosen) do if row.terminal then fn.terminal_fused = true end end
    end
    local fwd, rev = fn:emit()
    texts[#texts + 1] = fwd
    texts[#texts + 1] = rev
    local sig = gen:adj_params(f)
    protos[#protos + 1] = ("static %s %s(%s);"):format(fr.ret, var.fwd, sig)
    local rsig = sig
    if fr.ret == "double" then rsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[f] end
    protos[#protos + 1] = ("static void %s(%s);"):format(var.rev, rsig)
  end
  for _, f in ipairs(funcs) do
    texts[#texts + 1] = gen:plain_func(f)
    protos[#protos + 1] = ("static %s %s(%s);"):format(v:func(f).ret, gen.plain_name[f], gen:plain_params(f))
  end
  r:finish(#funcs)
  -- F_b
  local name = mr.name
  local ret = mr.ret
  local sig = gen:adj_params(main)
  local bsig = sig
  if ret == "double" then bsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[main] end
  local sym0, np = mr.sym0, mr.nparam
  local args, pargs = {}, {}
  for _, s in ipairs(mr.params) do
    args[#args + 1] = u.cname[s]
    pargs[#pargs + 1] = u.cname[s]
    if double(v:sym(s)) then args[#args + 1] = gen.bname[s] end
  end
  local rargs = { table.unpack(args) }
  if ret == "double" then rargs[#rargs + 1] = gen.ret_name[main] end
  local em = emit.new() -- the file
  em:push() -- its body first: the head declares the globals the body reads
  for i, t in ipairs(texts) do
    if i > 1 then em:line("") end
    em:append(t)
  end
  em:line("")
  em:open(("%s %s_b(%s) {"):format(ret, name, bsig))
  local chk = gen.check
  if chk then -- the assumptions' check (-DCGWB_CHECK_ASSUME): F's pointer parameters are tags 0 ..
    local pairs_, names = {}, {}
    for _, pr in ipairs(chk.apart) do pairs_[#pairs_ + 1] = pr[1] .. ", " .. pr[2] end
    for i = 0, np - 1 do names[#names + 1] = '"' .. v:sym(sym0 + i).name .. '"' end
    em:directive("#ifdef CGWB_CHECK_ASSUME")
    if #pairs_ == 0 then pairs_[1] = "-1, -1" end -- none: C has no empty initializer
    em:line(("static const int cgwb_apart_[] = {%s};"):format(table.concat(pairs_, ", ")))
    em:line(("static const char *const cgwb_names_[] = {%s};"):format(table.concat(names, ", ")))
    for _, i in ipairs(chk.work) do
      em:line(('CGWB_CHK_WORK("%s_b", %d, "%s");'):format(name, i, v:sym(sym0 + i).name))
    end
    for _, pr in ipairs(chk.same) do
      em:line(('CGWB_CHK_SAME("%s_b", %s, %s, "%s", "%s");'):format(name, u.cname[sym0 + pr[1]], u.cname[sym0 + pr[2]],
        v:sym(sym0 + pr[1]).name, v:sym(sym0 + pr[2]).name))
    end
    for _, i in ipairs(chk.ptrs) do em:line(("CGWB_CHK_ARG(%d, %d);"):format(i, i)) end
    em:directive("#endif")
  end
  em:line(("%s%s(%s);"):format(ret == "void" and "" or "(void)", mv.fwd, table.concat(args, ", ")))
  if chk then em:line(('CGWB_CHK_VERIFY("%s_b", cgwb_apart_, %d, cgwb_names_);'):format(name, #chk.apart)) end
  em:line(("%s(%s);"):format(mv.rev, table.concat(rargs, ", ")))
  em:line(("%s%s(%s);"):format(ret == "void" and "" or "return ", gen.plain_name[main], table.concat(pargs, ", ")))
  em:close()
  em:open(("void %s_b_stats(cgwb_adstats *out) {"):format(name))
  em:line("cgwb_adstats_get(out);")
  em:close()
  em:open(("void %s_b_reset(void) {"):format(name))
  em:line("cgwb_adstats_reset();")
  em:close()
  local body = em:pop()
  local body_text = table.concat(emit.render_all(body), "\n")
  em:line(("/* Adjoint code of %s (cgwb adjoint; doc/adjoint-code.md). */"):format(name))
  for _, l in ipairs { "#include <math.h>", "#include <stddef.h>", '#include "cgwb_adstack.h"' } do em:line(l) end
  for s = 0, v.nsym - 1 do -- the globals the body reads (its text names them: the one scan of generated text)
    if v:sym(s).kind == "global" and emit.mentions(body_text, u.cname[s]) then em:line(u:nest_rows(s, u:global_text(s))) end
  end
  for _, z in ipairs(gen.zero_list) do em:line(z) end
  for _, p in ipairs(protos) do em:line(p) end
  em:line(("%s %s_b(%s);"):format(ret, name, bsig))
  em:line(("void %s_b_stats(cgwb_adstats *out);"):format(name))
  em:line(("void %s_b_reset(void);"):format(name))
  em:line("")
  em:append(body)
  -- the report
  local json = require "cgwb.json"
  local rep = { ["function"] = name, independents = json.array(act.independents),
                dependents = json.array(act.dependents), loops = json.array({}),
                passive = json.array({}), work = json.array({}) }
  local role = {}
  for _, n in ipairs(act.independents) do role[n] = true end
  for _, n in ipairs(act.dependents) do role[n] = true end
  for _, s in ipairs(mr.params) do -- in parameter order
    local y = v:sym(s)
    if double(y) then
      if not main_act.name[u.cname[s]] then rep.passive[#rep.passive + 1] = y.name
      elseif not role[y.name] and indirect(y) then rep.work[#rep.work + 1] = y.name end
    end
  end
  for i, row in ipairs(info and info.loops or {}) do
    local access = {}
    for _, a in ipairs(row.access or {}) do access[a.name] = a.class end
    local snap = json.array({})
    for _, sv in ipairs(row.snapshot or {}) do snap[#snap + 1] = sv.name end
    rep.loops[#rep.loops + 1] = { line = row.line, independent = row.independent, verdict = row.verdict,
      reason = row.reason, access = access, terminal = row.terminal, dry_run = row.dry_run, snapshot = snap,
      transformed = transformed[i] or false, pragma = row.pragma_status or row.pragma or false }
  end
  return em:text() .. "\n", rep
end

--- Adjoint code of function fname of kernel k and every function it
-- calls: C text and the report (doc/adjoint-code.md), or nil, message.
function M.emit(k, fname, opts)
  opts = opts or {}
  local ok, code, report = pcall(emit_raw, k, fname, opts)
  if ok then return code, report end
  if type(code) == "table" and code.msg then return nil, code.msg end
  error(code, 0)
end

-- {==== the runtime and the measures ====}

--- The path of the runtime header (installed with the modules).
function M.runtime_header()
  local path = package.searchpath("cgwb.runtime.cgwb_adstack", (package.path:gsub("%.lua", ".h")))
  return path
end

--- Compiles each adjoint text of variants ({name = code}) with a main
-- calling it once on call (core form) and measures its stacks: {name =
-- {tape_bytes, tape_high_water, snapshot_bytes, snapshot_high_water}}, or
-- nil, message.  opts.cc: the compiler (default "cc").  The harness is
-- cgwb.adjoint_measure, loaded only here.
function M.measure(k, fname, variants, call, opts)
  return require("cgwb.adjoint_measure").measure(k, fname, variants, call,
    { cc = opts and opts.cc, header = M.runtime_header() })
end

return M
