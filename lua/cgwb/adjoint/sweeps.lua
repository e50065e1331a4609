-- cgwb.adjoint.sweeps: each statement's code in E's sweeps (E:
-- cgwb.adjoint.base's class): the forward sweep (FWD: the primal, pushing
-- what it overwrites and the control), the reverse (REV: pops, then the
-- statement's adjoint, PROP spreading an adjoint into an expression), calls
-- split between the two (activity patterns, arguments), and plain code
-- (PLAIN: dry runs, loop control).  Internal to cgwb.adjoint.
local ir = require "cgwb.ir"
local errors = require "cgwb.util.errors"
local B = require "cgwb.adjoint.base"
require "cgwb.adjoint.shadow"
require "cgwb.adjoint.check"
require "cgwb.adjoint.externals"

local E, spell, LAY, GOPS = B.E, B.spell, B.LAY, B.GOPS
local double, indirect, scalar, scalar_type, PUSH, POP = B.double, B.indirect, B.scalar, B.scalar_type, B.PUSH, B.POP

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
  ["const_i|const_d|addr|ptradd|not|mod|and|or|cast|null|ptrdiff|bnot|" .. ir.GROUP.compare .. "|" .. ir.GROUP.bits] = function(op)
    error(errors.refused(("adjoint code: no adjoint for the operation %s"):format(op)))
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
        error(errors.refused(("%s:%d:%d: adjoint code: the argument %s of %s may point into a passive parameter "
          .. "(no adjoint) or into an active array; not supported yet"):format(self.gen.file, r.line, r.col, self:ex(a),
          callee.name)))
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
    local sa = self.u:struct_arg(params[i], a)
    if sa then -- a struct by value: it and a pointer to a struct of its adjoints
      if vals[i] then self:refuse(r, "a struct argument the call may change through a pointer") end
      args[#args + 1] = sa
      local pa = self.u:agg(params[i])
      if pa.arrow then -- S *q: the caller's adjoint struct (pb, or &sb for &s), 0 if every member is passive
        local x = v:expr(a)
        local on = false
        for j = i, #r.args do
          local aj = self.u:agg(params[j])
          if j > i and (not aj or aj.first) then break end
          if double(v:sym(params[j])) and pat:sub(j, j) == "a" then on = true end
        end
        args[#args + 1] = on and ((x.op == "addr" and "&" or "") .. self.gen.bvar[x.sym]) or "0"
        goto next_arg
      end
      local sb = bvals[i]
      if not sb or sb == self.gen.prefix .. "unused" then -- g_fwd's: never read
        sb = self.em:temp(self.u:struct_name(self.u:agg(params[i]).struct), "s")
      end
      for j = i, #r.args do -- its pointer members: the arguments' shadows (0: passive)
        local aj = self.u:agg(params[j])
        if j > i and (not aj or aj.first) then break end
        if v:sym(params[j]).ptr then
          self:set(sb .. "." .. aj.member, (double(v:sym(params[j])) and pat:sub(j, j) == "a")
            and self:shadow(r.args[j]) or "0")
        end
      end
      args[#args + 1] = "&" .. sb
      goto next_arg
    elseif sa == false then goto next_arg end
    args[#args + 1] = vals[i] or self:ex(a)
    if double(p) then
      if indirect(p) then
        args[#args + 1] = pat:sub(i, i) == "a" and self:shadow(a) or "0"
      else
        args[#args + 1] = "&" .. bvals[i]
      end
    end
    ::next_arg::
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

-- {==== the forward sweep ====}

function E:fwd_slice(ids)
  for _, st in ipairs(ids) do self:fwd(st) end
end

-- The forward sweep's code of statement record r: FWD(kind, self, r).
local FWD = ir.cases("stmt", "cgwb.adjoint: the forward sweep", {
  assign = function(_, self, r)
    self:push_old(r.lhs)
    if self:is_ptr_var(r.lhs) then -- the shadow first: it reads the state the rhs reads (p = c ? q : p tests p)
      self:set(self.gen.bname[self.v:expr(r.lhs).sym], self:shadow(r.rhs))
    end
    self:put(self.u:simple(r.id), r.line)
  end,
  call = function(_, self, r)
    local l = r.line
    local callee = self.v:func(r.callee)
    if callee.external then return self:fwd_external(r, callee) end
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
  alloc = function(_, self, r) -- the old pointer (and shadow) taped: a loop's earlier blocks are found again
    self:push_old(r.lhs)
    if self:is_ptr_var(r.lhs) then -- a block of doubles: its adjoint beside it, zero
      self:set(self.gen.bname[self.v:expr(r.lhs).sym],
        ("calloc((size_t)%s, sizeof(double))"):format(self.u:expr(r.count, false)), r.line)
    end
    self:put(self.u:simple(r.id), r.line)
  end,
  free = function(_, self, r) -- deferred: the reverse sweep reads the block (freed at its allocation's reverse)
    self.em:line(("/* %d: %s: in the reverse sweep */"):format(r.line, self.u:simple(r.id)))
  end,
  passive = function(_, self, r) self:put(self.u:simple(r.id), r.line) end, -- printf, exit: once, in the primal's order
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

-- The reverse of call r's result: its lhs put back, the adjoint the lhs
-- had taken (and zeroed): a C name, or "0.0" (no double result, passive).
function E:result_adjoint(r)
  if not r.lhs then return "0.0" end
  self:pop_old(r.lhs, r.line)
  if not (double(self:sym_at(r.lhs)) and self:active_at(r.lhs)) then return "0.0" end
  local rb = self.em:temp("double", "rb")
  self:set(rb, self:adj(r.lhs), r.line)
  self:set(self:adj(r.lhs), "0.0")
  return rb
end

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
    if callee.external then return self:rev_external(r, callee) end
    local rb = self:result_adjoint(r)
    local bvals, byval = {}, {}
    local sb -- a struct argument's adjoints: a struct temporary, its double members' adjoints in it
    for i = 1, #r.args do
      local p = self.v:sym(callee.params[i])
      local a = self.u:agg(callee.params[i])
      if a and a.arrow then -- S *q: through the pointer, as a double * parameter
      elseif a then
        if a.first then
          sb = self.em:temp(self.u:struct_name(a.struct), "s")
          bvals[i] = sb
        end
        if double(p) and not p.ptr then -- (a pointer member: its shadow, set by E:call_args)
          local m = sb .. "." .. a.member
          byval[#byval + 1] = i
          self:set(m, "0.0")
          bvals[-i] = m
        end
      elseif double(p) and scalar(p) then
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
    for _, i in ipairs(byval) do self:prop(r.args[i], bvals[-i] or bvals[i]) end
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
  alloc = function(_, self, r) -- every use of the block is behind: it and its adjoint go, the old pointer back
    local l = r.line
    if self:is_ptr_var(r.lhs) then self:call("free", self.gen.bname[self.v:expr(r.lhs).sym], l) end
    self:call("free", self:ex(r.lhs), l .. ": " .. self.u:simple(r.id))
    self:pop_old(r.lhs, l)
  end,
  free = function() end, -- done at the allocation's reverse
  passive = function() end, -- no derivative
})

function E:rev(st)
  local r = self.v:stmt(st)
  if self.chosen and self.chosen[st + 1] then return self:rev_chosen(r, self.chosen[st + 1]) end
  REV(r.kind, self, r)
end

-- {==== plain code (dry runs, loop control) ====}

-- The runtime's snapshot of a cell, by the C type of the cells (cgwb_adstack.h).
local SNAP_CELL = { double = "cgwb_snap_cd", int = "cgwb_snap_ci", char = "cgwb_snap_cc",
  ["signed char"] = "cgwb_snap_csc", ["unsigned char"] = "cgwb_snap_cuc", short = "cgwb_snap_cs",
  ["unsigned short"] = "cgwb_snap_cus", _Bool = "cgwb_snap_cb" }

-- Before a write of lvalue lhs (or nil) in a dry run: its cell's old value
-- on the snapshot stack when it is one of snap's arrays.
function E:save_cell(lhs, snap, count)
  if not (lhs and snap) then return end
  local x = self.v:expr(lhs)
  if x.op ~= "elem" then return end
  local arr = snap[x.sym] and x.sym
  if not arr then -- a write through a pointer: the snapshot array it points into
    for _, s in ipairs(self.act.objsyms and self.act.objsyms[lhs] or {}) do
      if snap[s] and s ~= arr then
        if arr then
          error(errors.refused(("%s:%d:%d: adjoint code: a dry run writes %s, which may point into %s or %s; "
            .. "not supported yet"):format(self.gen.file, x.line, x.col, self:ex(lhs), self.u.cname[arr],
            self.u.cname[s])))
        end
        arr = s
      end
    end
  end
  if arr then -- the cell's offset from the array's first cell: within one object (the alias analysis's)
    local fn = SNAP_CELL[self.v:sym(x.sym).ctype] -- the accessing symbol's cells: a pointer's, its pointee's
    self:put(("%s += %s(%d, %s, &%s)"):format(count, fn, snap[arr] - 1, self:base(arr), self:ex(lhs)))
  end
end

-- Statement record r as plain C: PLAIN(kind, self, r, snap, count).
local PLAIN = ir.cases("stmt", "cgwb.adjoint: the plain code", {
  assign = function(_, self, r, snap, count)
    self:save_cell(r.lhs, snap, count)
    if self.dry and self:is_ptr_var(r.lhs) then -- a dry run of F_b: the shadow too (g_p has none), first
      self:set(self.gen.bname[self.v:expr(r.lhs).sym], self:shadow(r.rhs))
    end
    self:put(self.u:simple(r.id), r.line)
  end,
  call = function(_, self, r, snap, count)
    self:save_cell(r.lhs, snap, count)
    local args = self.u:args_text(r, function(a) return self:ex(a) end) -- a struct's members: the struct
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
  ["alloc|free"] = function(_, self, r) self:put(self.u:simple(r.id), r.line) end,
  passive = function(_, self, r) -- g_p runs again what the forward sweep ran (a dry run that prints is refused)
    self.em:line(("/* %d: %s: in the forward sweep */"):format(r.line, self.u:simple(r.id)))
  end,
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

return E
