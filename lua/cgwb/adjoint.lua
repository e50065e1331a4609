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
--
--   adjoint.emit(kernel, fname, opts) -> code, report | nil, message
-- @module cgwb.adjoint
local core = require "cgwb.core"
local unparse = require "cgwb.kparse.unparse"
local progress = require "cgwb.progress"

local M = {}

local LAY = core.kernel_layout()
local GOPS = core.graph_ops()
local KIND_LOCAL = LAY.sym_kinds["local"]
local KIND_TEMP = LAY.sym_kinds.temp
local KIND_PARAM = LAY.sym_kinds.param
local KIND_GLOBAL = LAY.sym_kinds.global

local function failf(fmt, ...) error({ msg = fmt:format(...) }, 0) end

-- An operation table spelling with its operands and result (unparse.spell_partial).
local function spell(text, args, r)
  local s, err = unparse.spell_partial(text, args, r)
  if not s then failf("adjoint code: %s", err) end
  return s
end

-- {==== one function: the forward and the reverse sweep ====}

local E = {}
E.__index = E

function E:get(tab, id, f) return self.u:get(tab, id, f) end
function E:op(e) return LAY.exprs[self:get("expr", e, "OP") + 1] end
function E:etype(e) return LAY.types[self:get("expr", e, "TYPE") + 1] end
function E:sym_of(e) return self:get("expr", e, "SYM") end
function E:is_double(s) return LAY.types[self:get("sym", s, "BASE") + 1] == "double" end
function E:is_ptr(s) return self:get("sym", s, "PTR") == 1 end
function E:ndim(s) return self:get("sym", s, "NDIM") end
function E:kind(s) return self:get("sym", s, "KIND") end
function E:stmt_kind(st) return LAY.stmts[self:get("stmt", st, "KIND") + 1] end
function E:x(st, i) return self:get("stmt", st, "X" .. i) end
function E:pos(st) return self:get("stmt", st, "LINE"), self:get("stmt", st, "COL") end
function E:ex(e) return self.u:expr(e, true) end
function E:list(start, n)
  local t = {}
  for i = 1, n do t[i] = self.u.flat.list[start + i] end
  return t
end

function E:line(text) self.out[#self.out + 1] = ("  "):rep(self.ind) .. text end
function E:indent(d) self.ind = self.ind + d end

-- A function-wide temporary of this sweep (declared once at the top).
function E:temp(ty, base)
  self.ntemp = self.ntemp + 1
  local name = self.gen.prefix .. base .. self.ntemp
  self.temps[#self.temps + 1] = { ty = ty, name = name }
  return name
end

-- Whether access e (VAR or ELEM of a double, or a pointer argument of a
-- call) may touch an active object of this function's activity.
function E:active_at(e)
  if not self.act.expr[e] then return false end
  local st = self:sym_state(self:sym_of(e))
  if st == "mixed" then
    failf("%s:%d:%d: adjoint code: %s may point into a passive parameter (no adjoint) or into an active array; "
      .. "not supported yet", self.gen.file, self:get("expr", e, "LINE"), self:get("expr", e, "COL"), self:ex(e))
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
  if not self:is_double(s) or self:kind(s) == KIND_GLOBAL then return "live" end
  if self:kind(s) == KIND_PARAM and not (self:is_ptr(s) or self:ndim(s) > 0) then return "live" end
  if not self:is_ptr(s) then -- a local array, or an array parameter
    return (self:kind(s) ~= KIND_PARAM or self.param_active[s]) and "live" or "null"
  end
  if not self.ptr_state then self:ptr_states() end
  return self.ptr_state[s] or "null" -- never assigned: 0
end

function E:root_state(e)
  local op = self:op(e)
  if op == "var" or op == "addr" then
    local s = self:sym_of(e)
    if op == "addr" and not (self:is_ptr(s) or self:ndim(s) > 0) then return "live" end -- &local scalar
    return self:sym_state(s)
  end
  if op == "ptradd" then return self:root_state(self:get("expr", e, "A")) end
  if op == "cond" then
    return JOIN[self:root_state(self:get("expr", e, "B"))][self:root_state(self:get("expr", e, "C"))]
  end
  return "live"
end

function E:ptr_states()
  local u, f = self.u, self.fid
  local sym0, np = self:get("func", f, "SYM0"), self:get("func", f, "NPARAM")
  local state = {}
  for s = sym0, sym0 + np - 1 do
    if self:is_ptr(s) and self:is_double(s) then state[s] = self.param_active[s] and "live" or "null" end
  end
  self.ptr_state = state
  local assigns = {}
  for st = 0, u.nflatstmt - 1 do
    if self:get("stmt", st, "FUNC") == f and self:stmt_kind(st) == "assign" then
      local lhs = self:x(st, 0)
      local s = self:sym_of(lhs)
      if self:op(lhs) == "var" and self:is_ptr(s) and self:is_double(s) then assigns[#assigns + 1] = st end
    end
  end
  local changed = true
  while changed do
    changed = false
    for _, st in ipairs(assigns) do
      local s = self:sym_of(self:x(st, 0))
      local new = JOIN[state[s] or "none"][self:root_state(self:x(st, 1))]
      if new ~= (state[s] or "none") then state[s], changed = new, true end
    end
  end
  for s, v in pairs(state) do if v == "none" then state[s] = "null" end end
end

-- }====

-- The adjoint of an lvalue or use e (VAR or ELEM of a double) as C.
function E:adj(e)
  local s = self:sym_of(e)
  local b = self.gen.bname[s]
  if self:op(e) == "var" then
    if self:is_ptr(s) then return "(*" .. b .. ")" end
    if self:kind(s) == KIND_PARAM then return self.gen.prefix .. b end -- the local accumulator
    return b
  end
  return b .. self.u:subs(e, s)
end

-- The shadow (adjoint pointer) of a double pointer expression e.
function E:shadow(e)
  local op, s = self:op(e), self:sym_of(e)
  local state = self:root_state(e)
  if state == "null" then return "0" end
  if state == "mixed" and (op == "ptradd" or op == "addr") then -- an offset of a null shadow is undefined
    local root = e
    while self:op(root) == "ptradd" do root = self:get("expr", root, "A") end
    local rb = self:op(root) == "addr" and self.gen.bname[self:sym_of(root)] or self:shadow(root)
    self.mixed_ok = true
    local t = self:shadow_live(e)
    self.mixed_ok = nil
    return "(" .. rb .. " ? " .. t .. " : 0)"
  end
  return self:shadow_live(e)
end

function E:shadow_live(e)
  local op, s = self:op(e), self:sym_of(e)
  if op == "var" then
    if self:kind(s) == KIND_GLOBAL then return self.gen:zero_global(s) end
    return self.gen.bname[s]
  end
  if op == "addr" then
    local a, b = self:get("expr", e, "A"), self:get("expr", e, "B")
    local t
    if self:kind(s) == KIND_GLOBAL then t = self.gen:zero_global(s) else t = self.gen.bname[s] end
    if a < 0 then
      if self:ndim(s) > 0 or self:is_ptr(s) then return t end
      if self:kind(s) == KIND_PARAM then return "&" .. self.gen.prefix .. t end
      return "&" .. t
    end
    if self:ndim(s) == 2 and b < 0 then return t .. "[" .. self:ex(a) .. "]" end
    return "&" .. t .. self.u:subs(e, s)
  end
  if op == "ptradd" then
    local a = self:get("expr", e, "A")
    return "(" .. (self.mixed_ok and self:shadow_live(a) or self:shadow(a)) .. " + " .. self.u:expr(self:get("expr", e, "B")) .. ")"
  end
  if op == "cond" then
    return "(" .. self.u:expr(self:get("expr", e, "A")) .. " ? " .. self:shadow(self:get("expr", e, "B"))
      .. " : " .. self:shadow(self:get("expr", e, "C")) .. ")"
  end
  failf("adjoint code: no shadow for the pointer expression %s", self:ex(e))
end

-- Whether expression e reads an active double.
function E:has_active(e)
  if e < 0 or self:etype(e) ~= "double" then return false end
  local op = self:op(e)
  if op == "var" or op == "elem" then return self:active_at(e) end
  if op == "const_d" or op == "cast" then return false end
  for _, f in ipairs { "A", "B", "C" } do
    local c = self:get("expr", e, f)
    if c >= 0 and (op ~= "cond" or f ~= "A") and self:has_active(c) then return true end
  end
  return false
end

-- Propagates the adjoint b (a C name or product) into expression e, with
-- the operands' partials on the current (restored) state.
function E:prop(e, b)
  if not self:has_active(e) then return end
  local op = self:op(e)
  local A, B, C = self:get("expr", e, "A"), self:get("expr", e, "B"), self:get("expr", e, "C")
  if op == "var" or op == "elem" then
    self:line(self:adj(e) .. " += " .. b .. ";")
    return
  end
  -- a composite operand gets its adjoint through a temporary
  local function into(x, factor)
    if not self:has_active(x) then return end
    local v = factor and (b .. " * (" .. factor .. ")") or b
    local xo = self:op(x)
    if xo == "var" or xo == "elem" then
      self:line(self:adj(x) .. " += " .. v .. ";")
    else
      local t = self:temp("double", "t")
      self:line(t .. " = " .. v .. ";")
      self:prop(x, t)
    end
  end
  if op == "add" then into(A); into(B)
  elseif op == "sub" then into(A); into(B, "-1.0")
  elseif op == "neg" then into(A, "-1.0")
  elseif op == "mul" then into(A, self:ex(B)); into(B, self:ex(A))
  elseif op == "div" then
    into(A, "1.0 / (" .. self:ex(B) .. ")")
    into(B, "-(" .. self:ex(e) .. ") / (" .. self:ex(B) .. ")")
  elseif op == "cond" then
    self:line("if (" .. self:ex(A) .. ") {")
    self:indent(1); into(B); self:indent(-1)
    self:line("} else {")
    self:indent(1); into(C); self:indent(-1)
    self:line("}")
  elseif op == "intrin" then
    local g = GOPS[LAY.gop[LAY.intrinsics[self:sym_of(e) + 1]]]
    local args = { "(" .. self:ex(A) .. ")", B >= 0 and ("(" .. self:ex(B) .. ")") or nil }
    for i, x in ipairs { A, B } do
      if x >= 0 and i <= g.arity then into(x, spell(g.partials[i], args, "(" .. self:ex(e) .. ")")) end
    end
  else
    failf("adjoint code: no adjoint for the operation %s", op)
  end
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
  local s = self:sym_of(e)
  local lv = self:ex(e)
  if self:is_ptr(s) and self:op(e) == "var" then
    self:line(self:ptr_save("push") .. "(" .. lv .. ");")
    if self:is_double(s) then self:line(self:ptr_save("push") .. "(" .. self.gen.bname[s] .. ");") end
  else
    self:line(PUSH[self:is_double(s) and "double" or "int"] .. "(" .. lv .. ");")
  end
end

-- The reverse of push_old; l: the statement's line, for a comment.
function E:pop_old(e, l)
  local s = self:sym_of(e)
  local lv = self:ex(e)
  local note = l and (" /* " .. l .. " */") or ""
  if self:is_ptr(s) and self:op(e) == "var" then
    if self:is_double(s) then self:line(self.gen.bname[s] .. " = (double *)" .. self:ptr_save("pop") .. ";" .. note) end
    self:line(lv .. " = " .. self:ptr_save("pop") .. ";" .. note)
  else
    self:line(lv .. " = " .. POP[self:is_double(s) and "double" or "int"] .. ";" .. note)
  end
end

-- Refuses what the scheme does not handle (yet).
function E:refuse(st, what)
  local l, c = self:pos(st)
  failf("%s:%d:%d: adjoint code: %s is not supported yet", self.gen.file, l, c, what)
end

-- The activity pattern of call st (the callee's variant, G:variant): per
-- parameter "a" (the argument may carry activity), "p" (passive: the callee
-- never touches its adjoint, which is 0 for a pointer) or "-" (an int).
function E:call_pattern(st)
  local first, n = self:x(st, 1), self:x(st, 2)
  local sym0 = self:get("func", self:x(st, 0), "SYM0")
  local pat = {}
  for i = 1, n do
    local a, p = self.u.flat.args[first + i], sym0 + i - 1
    if not self:is_double(p) then
      pat[i] = "-"
    elseif self:is_ptr(p) or self:ndim(p) > 0 then
      local state = self:root_state(a)
      local on = state ~= "null" and (self.act.expr[a] or false)
      if on and state == "mixed" then
        local l, c = self:pos(st)
        failf("%s:%d:%d: adjoint code: the argument %s of %s may point into a passive parameter (no adjoint) "
          .. "or into an active array; not supported yet", self.gen.file, l, c, self:ex(a), self.u:name_of("func", self:x(st, 0)))
      end
      pat[i] = on and "a" or "p"
    else
      pat[i] = self:has_active(a) and "a" or "p"
    end
  end
  return table.concat(pat)
end

-- The arguments of call st for the callee's variant for pattern pat: primal,
-- and after each double or double * parameter its adjoint (by-value:
-- bvals[i], a name; a passive pointer: 0).
function E:call_args(st, bvals, pat, vals)
  local g, first, n = self:x(st, 0), self:x(st, 1), self:x(st, 2)
  local sym0 = self:get("func", g, "SYM0")
  local args = {}
  for i = 1, n do
    local a, p = self.u.flat.args[first + i], sym0 + i - 1
    args[#args + 1] = vals and vals[i] or self:ex(a)
    if self:is_double(p) then
      if self:is_ptr(p) or self:ndim(p) > 0 then
        args[#args + 1] = pat:sub(i, i) == "a" and self:shadow(a) or "0"
      else
        args[#args + 1] = "&" .. bvals[i]
      end
    end
  end
  return args
end

-- Whether expression e reads a cell or a local whose address is taken
-- (what a callee may change through a pointer).
function E:reads_mutable(e)
  if e < 0 then return false end
  local op = self:op(e)
  if op == "elem" then return true end
  if op == "var" then
    local s = self:sym_of(e)
    return self:is_ptr(s) or (self:get("sym", s, "QUAL") & LAY.qual.addr) ~= 0
  end
  if op == "const_i" or op == "const_d" or op == "addr" then return false end
  for _, f in ipairs { "A", "B", "C" } do
    if self:reads_mutable(self:get("expr", e, f)) then return true end
  end
  return false
end

-- The by-value arguments of call st that g_rev must get as g_fwd got them:
-- the call may write through a pointer what they read (ha(&t, t) changes t
-- before g_rev would read it).  The list of their indices.
function E:kept_args(st)
  local g, first, n = self:x(st, 0), self:x(st, 1), self:x(st, 2)
  local sym0 = self:get("func", g, "SYM0")
  local writes = false
  for i = 1, n do
    local p = sym0 + i - 1
    if (self:is_ptr(p) or self:ndim(p) > 0) and (self:get("sym", p, "QUAL") & LAY.qual.const) == 0 then writes = true end
  end
  local list = {}
  if not writes then return list end
  for i = 1, n do
    local p = sym0 + i - 1
    if not self:is_ptr(p) and self:ndim(p) == 0 and self:reads_mutable(self.u.flat.args[first + i]) then
      list[#list + 1] = i
    end
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
    if e < 0 then return end
    local op = self:op(e)
    if op == "const_i" or op == "const_d" or op == "var" then return end
    if op == "elem" and tagof[e] then
      local line = ("CGWB_CHK_TOUCH(CGWB_CHK_TAG(%d), &%s);"):format(tagof[e], self:ex(e))
      if not seen[line] then seen[line] = true; self:line(line) end
    end
    local sometimes = op == "cond" or op == "and" or op == "or" -- an operand C may not evaluate: not touched
    for _, fld in ipairs { "A", "B", "C" } do
      if not (sometimes and fld ~= "A") then walk(self:get("expr", e, fld)) end
    end
  end
  for _, e in ipairs(es) do walk(e) end
end

-- Before a write of cell lhs in the forward sweep: a work array's adjoint
-- there must still be zero (the convention; CGWB_CHK_SEED).
function E:chk_seed(lhs)
  if not (self.gen.check and self.in_fwd) or lhs < 0 or self:op(lhs) ~= "elem" then return end
  local t = self.act.tagof[lhs]
  if t and self:is_double(self:sym_of(lhs)) and self:active_at(lhs) then
    self:line(("CGWB_CHK_SEED(CGWB_CHK_TAG(%d), &%s);"):format(t, self:adj(lhs)))
  end
end

-- The expressions of statement st (its own, not its slices').
function E:stmt_exprs(st)
  local kind = self:stmt_kind(st)
  if kind == "assign" then return { self:x(st, 0), self:x(st, 1) } end
  if kind == "if" or kind == "return" or kind == "loop" then return { self:x(st, 0) } end
  if kind == "call" then
    local es = { self:x(st, 3) }
    for i = 1, self:x(st, 2) do es[#es + 1] = self.u.flat.args[self:x(st, 1) + i] end
    return es
  end
  return {}
end

-- Before call st: each pointer argument's tag, for the callee's frame.
function E:chk_args(st)
  if not (self.gen.check and self.in_fwd) then return end
  for i = 1, self:x(st, 2) do
    local t = self.act.tagof[self.u.flat.args[self:x(st, 1) + i]]
    if t then self:line(("CGWB_CHK_ARG(%d, CGWB_CHK_TAG(%d));"):format(i - 1, t)) end
  end
end

-- }====

-- {==== the forward sweep ====}

function E:fwd_slice(start, n)
  for _, st in ipairs(self:list(start, n)) do self:fwd(st) end
end

function E:fwd(st)
  local kind = self:stmt_kind(st)
  local l = self:pos(st)
  if self.chosen and self.chosen[st + 1] then return self:fwd_chosen(st, self.chosen[st + 1]) end
  if kind ~= "loop" then self:chk(self:stmt_exprs(st)) end
  if kind == "assign" or kind == "call" then self:chk_seed(self:x(st, kind == "assign" and 0 or 3)) end
  if kind == "assign" then
    local lhs, rhs = self:x(st, 0), self:x(st, 1)
    local s = self:sym_of(lhs)
    self:push_old(lhs)
    self:line(self.u:simple(st) .. "; /* " .. l .. " */")
    if self:is_ptr(s) and self:op(lhs) == "var" and self:is_double(s) then
      self:line(self.gen.bname[s] .. " = " .. self:shadow(rhs) .. ";")
    end
  elseif kind == "call" then
    local g, lhs = self:x(st, 0), self:x(st, 3)
    local n = self:x(st, 2)
    local dummy = {}
    for i = 1, n do dummy[i] = self.gen.prefix .. "unused" end
    self.uses_dummy = true
    local pat = self:call_pattern(st)
    local kept, vals = self:kept_args(st), {}
    local sym0 = self:get("func", g, "SYM0")
    for _, i in ipairs(kept) do
      local ty = self:is_double(sym0 + i - 1) and "double" or "int"
      vals[i] = self:temp(ty, "v")
      self:line(vals[i] .. " = " .. self:ex(self.u.flat.args[self:x(st, 1) + i]) .. ";")
    end
    local call = self.gen:variant(g, pat).fwd .. "(" .. table.concat(self:call_args(st, dummy, pat, vals), ", ") .. ")"
    self:chk_args(st)
    local function keep() -- after g_fwd's tape: g_rev pops them first
      for _, i in ipairs(kept) do self:line(PUSH[self:is_double(sym0 + i - 1) and "double" or "int"] .. "(" .. vals[i] .. ");") end
    end
    if lhs >= 0 then
      local ty = LAY.types[self:get("func", g, "RET") + 1]
      local r = self:temp(ty, "r")
      self:line(r .. " = " .. call .. "; /* " .. l .. " */")
      keep()
      self:push_old(lhs) -- the state at the callee's end
      self:line(self:ex(lhs) .. " = " .. r .. ";")
    else
      self:line(call .. "; /* " .. l .. " */")
      keep()
    end
  elseif kind == "if" then
    local c = self:temp("int", "c")
    self:line(c .. " = " .. self:ex(self:x(st, 0)) .. " ? 1 : 0; /* " .. l .. " */")
    self:line("if (" .. c .. ") {")
    self:indent(1); self:fwd_slice(self:x(st, 1), self:x(st, 2)); self:indent(-1)
    if self:x(st, 4) > 0 then
      self:line("} else {")
      self:indent(1); self:fwd_slice(self:x(st, 3), self:x(st, 4)); self:indent(-1)
    end
    self:line("}")
    self:line("cgwb_push_i(" .. c .. ");")
  elseif kind == "loop" then
    local n = self:temp("int", "n")
    local is_do = LAY.loop_kinds[self:get("stmt", st, "FLAGS") + 1] == "do"
    self:line(n .. " = 0; /* " .. l .. ": " .. LAY.loop_kinds[self:get("stmt", st, "FLAGS") + 1] .. " loop */")
    self:line("for (;;) {")
    self:indent(1)
    local function test()
      self:fwd_slice(self:x(st, 5), self:x(st, 6))
      self:chk { self:x(st, 0) }
      if self:x(st, 0) >= 0 then self:line("if (!(" .. self:ex(self:x(st, 0)) .. ")) break;") end
    end
    if not is_do then test() end
    self:fwd_slice(self:x(st, 1), self:x(st, 2))
    self:fwd_slice(self:x(st, 3), self:x(st, 4))
    self:line(n .. "++;")
    if is_do then test() end
    self:indent(-1)
    self:line("}")
    self:line("cgwb_push_i(" .. n .. ");")
  elseif kind == "return" then
    local x = self:x(st, 0)
    if x >= 0 then self:line(self.ret_var .. " = " .. self:ex(x) .. "; /* " .. l .. " */") end
  else
    self:refuse(st, kind)
  end
end

-- {==== the reverse sweep ====}

function E:rev_slice(start, n)
  local sts = self:list(start, n)
  for i = #sts, 1, -1 do self:rev(sts[i]) end
end

function E:stmt_active(st) return self.act.stmt[st + 1] or false end

function E:rev(st)
  local kind = self:stmt_kind(st)
  local l = self:pos(st)
  if self.chosen and self.chosen[st + 1] then return self:rev_chosen(st, self.chosen[st + 1]) end
  if kind == "assign" then
    local lhs, rhs = self:x(st, 0), self:x(st, 1)
    local s = self:sym_of(lhs)
    self:pop_old(lhs, l)
    if self:is_double(s) and not (self:is_ptr(s) and self:op(lhs) == "var") and self:active_at(lhs) then
      local lb = self:adj(lhs)
      if self:stmt_active(st) and self:has_active(rhs) then
        local b = self:temp("double", "b")
        self:line(b .. " = " .. lb .. "; /* " .. l .. ": " .. self.u:simple(st) .. " */")
        self:line(lb .. " = 0.0;")
        self:prop(rhs, b)
      else
        self:line(lb .. " = 0.0; /* " .. l .. " */")
      end
    end
  elseif kind == "call" then
    local g, lhs = self:x(st, 0), self:x(st, 3)
    local first, n = self:x(st, 1), self:x(st, 2)
    local sym0 = self:get("func", g, "SYM0")
    local rb = "0.0"
    if lhs >= 0 then
      self:pop_old(lhs, l)
      local s = self:sym_of(lhs)
      if self:is_double(s) and self:active_at(lhs) then
        rb = self:temp("double", "rb")
        self:line(rb .. " = " .. self:adj(lhs) .. "; /* " .. l .. " */")
        self:line(self:adj(lhs) .. " = 0.0;")
      end
    end
    local bvals, byval = {}, {}
    for i = 1, n do
      local p = sym0 + i - 1
      if self:is_double(p) and not self:is_ptr(p) and self:ndim(p) == 0 then
        bvals[i] = self:temp("double", "a")
        byval[#byval + 1] = i
        self:line(bvals[i] .. " = 0.0;")
      end
    end
    local pat = self:call_pattern(st)
    local kept, vals = self:kept_args(st), {}
    for j = #kept, 1, -1 do
      local i = kept[j]
      local dbl = self:is_double(sym0 + i - 1)
      vals[i] = self:temp(dbl and "double" or "int", "v")
      self:line(vals[i] .. " = " .. POP[dbl and "double" or "int"] .. "; /* " .. l .. ": the argument g_fwd got */")
    end
    local args = self:call_args(st, bvals, pat, vals)
    if LAY.types[self:get("func", g, "RET") + 1] == "double" then args[#args + 1] = rb end
    self:line(self.gen:variant(g, pat).rev .. "(" .. table.concat(args, ", ") .. "); /* " .. l .. " */")
    for _, i in ipairs(byval) do self:prop(self.u.flat.args[first + i], bvals[i]) end
  elseif kind == "if" then
    local c = self:temp("int", "c")
    self:line(c .. " = cgwb_pop_i(); /* " .. l .. ": if */")
    self:line("if (" .. c .. ") {")
    self:indent(1); self:rev_slice(self:x(st, 1), self:x(st, 2)); self:indent(-1)
    if self:x(st, 4) > 0 then
      self:line("} else {")
      self:indent(1); self:rev_slice(self:x(st, 3), self:x(st, 4)); self:indent(-1)
    end
    self:line("}")
  elseif kind == "loop" then
    local n, k = self:temp("int", "n"), self:temp("int", "k")
    local is_do = LAY.loop_kinds[self:get("stmt", st, "FLAGS") + 1] == "do"
    self:line(n .. " = cgwb_pop_i(); /* " .. l .. ": the trip count */")
    if not is_do then self:rev_slice(self:x(st, 5), self:x(st, 6)) end -- the last, failed test
    self:line(("for (%s = 0; %s < %s; %s++) {"):format(k, k, n, k))
    self:indent(1)
    if is_do then self:rev_slice(self:x(st, 5), self:x(st, 6)) end
    self:rev_slice(self:x(st, 3), self:x(st, 4))
    self:rev_slice(self:x(st, 1), self:x(st, 2))
    if not is_do then self:rev_slice(self:x(st, 5), self:x(st, 6)) end
    self:indent(-1)
    self:line("}")
  elseif kind == "return" then
    return -- its adjoint is the first thing of the reverse sweep
  else
    self:refuse(st, kind)
  end
end

-- {==== plain code (dry runs, loop control) ====}

-- Statement st as plain C (callees' plain copies g_p); snap: {[sym] =
-- true} arrays whose cells are saved before each write, count: the C name
-- counting them.
function E:plain(st, snap, count)
  local kind = self:stmt_kind(st)
  local l = self:pos(st)
  local function save(lhs)
    if lhs >= 0 and snap and self:op(lhs) == "elem" and snap[self:sym_of(lhs)] then
      local s = self:sym_of(lhs)
      local fn = self:is_double(s) and "cgwb_snap_cd" or "cgwb_snap_ci"
      self:line(("%s += %s(%d, %s, &%s);"):format(count, fn, snap[s] - 1, self:base(s), self:ex(lhs)))
    end
  end
  if kind ~= "loop" then self:chk(self:stmt_exprs(st)) end
  if kind == "assign" or kind == "call" then self:chk_seed(self:x(st, kind == "assign" and 0 or 3)) end
  if kind == "assign" then
    save(self:x(st, 0))
    self:line(self.u:simple(st) .. "; /* " .. l .. " */")
  elseif kind == "call" then
    save(self:x(st, 3))
    local g = self:x(st, 0)
    local text = self.u:call_text(st)
    local name = self.u:name_of("func", g)
    text = text:gsub("%f[%w_]" .. name .. "%(", self.gen.plain_name[g] .. "(", 1)
    self:line(text .. "; /* " .. l .. " */")
  elseif kind == "if" then
    self:line("if (" .. self:ex(self:x(st, 0)) .. ") {")
    self:indent(1)
    for _, s in ipairs(self:list(self:x(st, 1), self:x(st, 2))) do self:plain(s, snap, count) end
    self:indent(-1)
    if self:x(st, 4) > 0 then
      self:line("} else {")
      self:indent(1)
      for _, s in ipairs(self:list(self:x(st, 3), self:x(st, 4))) do self:plain(s, snap, count) end
      self:indent(-1)
    end
    self:line("}")
  elseif kind == "loop" then
    self:loop_frame(st, function(s) self:plain(s, snap, count) end, function()
      for _, s in ipairs(self:list(self:x(st, 1), self:x(st, 2))) do self:plain(s, snap, count) end
    end)
  else
    self:refuse(st, kind)
  end
end

-- A loop with control (pre, test, step) done by ctl(stmt) and its body by
-- body(): for (;;) { pre; test; body; step } (do: the test last).
function E:loop_frame(st, ctl, body)
  local is_do = LAY.loop_kinds[self:get("stmt", st, "FLAGS") + 1] == "do"
  self:line("for (;;) {")
  self:indent(1)
  local function test()
    for _, s in ipairs(self:list(self:x(st, 5), self:x(st, 6))) do ctl(s) end
    self:chk { self:x(st, 0) }
    if self:x(st, 0) >= 0 then self:line("if (!(" .. self:ex(self:x(st, 0)) .. ")) break;") end
  end
  if not is_do then test() end
  body()
  for _, s in ipairs(self:list(self:x(st, 3), self:x(st, 4))) do ctl(s) end
  if is_do then test() end
  self:indent(-1)
  self:line("}")
end

-- {==== loops adjoined per iteration ====}

-- The scalars a chosen loop's control (pre and step slices) writes; it
-- refuses control that writes anything else.
function E:control_syms(st)
  local syms, seen = {}, {}
  for _, p in ipairs { 3, 5 } do
    for _, s in ipairs(self:list(self:x(st, p), self:x(st, p + 1))) do
      local lhs = self:stmt_kind(s) == "assign" and self:x(s, 0) or self:x(s, 3)
      if self:stmt_kind(s) == "call" then self:refuse(s, "a call in the control of a loop adjoined per iteration") end
      if lhs >= 0 then
        if self:op(lhs) ~= "var" or self:is_double(self:sym_of(lhs)) then
          self:refuse(s, "a loop control writing a double or a cell, adjoined per iteration,")
        end
        local sym = self:sym_of(lhs)
        if not seen[sym] then seen[sym] = true; syms[#syms + 1] = sym end
      end
    end
  end
  table.sort(syms)
  return syms
end

-- The first cell of array or pointer s as a pointer.
function E:base(s)
  if self:kind(s) == KIND_GLOBAL then failf("adjoint code: a snapshot of the global %s", self.u.cname[s]) end
  if self:ndim(s) == 2 then return "&" .. self.u.cname[s] .. "[0][0]" end -- a parameter too: double (*)[N] is no double *
  return self.u.cname[s]
end

-- The arrays of a loop's snapshot: {[sym] = id (1-based)} and the list.
function E:snap_arrays(row)
  local ids, list = {}, {}
  for _, v in ipairs(row.snapshot or {}) do
    local s = v.sym - 1
    if not (v.scalar or (self:ndim(s) == 0 and not self:is_ptr(s))) then
      list[#list + 1] = s
      ids[s] = #list
    end
  end
  return ids, list
end

function E:ctype(s) return self:is_ptr(s) and "void *" or (self:is_double(s) and "double" or "int") end

-- The loop's counter (the analysis's row names it) when the body writes it
-- (a while loop's `i++` in its body): a symbol id, or nil.
function E:body_counter(st, row)
  if not row.index then return nil end
  local f = self.fid
  local sym0, ns = self:get("func", f, "SYM0"), self:get("func", f, "NSYM")
  local ctr
  for s = sym0, sym0 + ns - 1 do
    if self.u:name_of("sym", s) == row.index and not self:is_double(s) and self:ndim(s) == 0 then ctr = s end
  end
  if not ctr then return nil end
  local function writes(sts) -- whether a statement of sts (nested too) assigns ctr
    for _, x in ipairs(sts) do
      local k = self:stmt_kind(x)
      if k == "assign" and self:op(self:x(x, 0)) == "var" and self:sym_of(self:x(x, 0)) == ctr then return true end
      if k == "if" and (writes(self:list(self:x(x, 1), self:x(x, 2))) or writes(self:list(self:x(x, 3), self:x(x, 4)))) then
        return true
      end
      if k == "loop" then
        for _, p in ipairs { 1, 3, 5 } do if writes(self:list(self:x(x, p), self:x(x, p + 1))) then return true end end
      end
    end
    return false
  end
  return writes(self:list(self:x(st, 1), self:x(st, 2))) and ctr or nil
end

-- The per-iteration loop: each iteration's forward (taped) immediately
-- followed by its reverse, the control run plainly; a counter the body
-- advances keeps its advanced value across the iteration's reverse.
function E:fused(st, row)
  local ctr = self:body_counter(st, row)
  self:loop_frame(st, function(s) self:plain(s) end, function()
    local body = self:list(self:x(st, 1), self:x(st, 2))
    for _, s in ipairs(body) do self:fwd(s) end
    local keep = ctr and self:temp(self:ctype(ctr), "w")
    if keep then self:line(keep .. " = " .. self.u.cname[ctr] .. "; /* the counter after this iteration */") end
    for i = #body, 1, -1 do self:rev(body[i]) end
    if keep then self:line(self.u.cname[ctr] .. " = " .. keep .. ";") end
  end)
end

-- The scalars saved around a chosen loop: its control's and its counter.
function E:saved_syms(st, row)
  local ctl = self:control_syms(st)
  local ctr = self:body_counter(st, row)
  if ctr then
    local have = false
    for _, s in ipairs(ctl) do if s == ctr then have = true end end
    if not have then ctl[#ctl + 1] = ctr; table.sort(ctl) end
  end
  return ctl
end

function E:fwd_chosen(st, row)
  local l = self:pos(st)
  local ctl = self:saved_syms(st, row)
  for _, s in ipairs(ctl) do self:line(PUSH[self:is_double(s) and "double" or "int"] .. "(" .. self.u.cname[s] .. ");") end
  if row.terminal then
    self:line(("/* %d: terminal independent loop, each iteration's adjoint right after it "
      .. "(Hascoet, Fidanova & Held, Fig. 4) */"):format(l))
    self:fused(st, row)
    return
  end
  self:line(("/* %d: independent loop, dry run: no tape, a snapshot of what it overwrites "
    .. "(Hascoet, Fidanova & Held, Fig. 5) */"):format(l))
  local snap_arrays = self:snap_arrays(row)
  for _, v in ipairs(row.snapshot or {}) do
    local s = v.sym - 1
    if v.scalar or (self:ndim(s) == 0 and not self:is_ptr(s)) then
      local fn = self:is_ptr(s) and self:ptr_save("snap") or (self:is_double(s) and "cgwb_snap_d" or "cgwb_snap_i")
      self:line(fn .. "(" .. self.u.cname[s] .. ");")
    end
  end
  local count = next(snap_arrays) and self:temp("size_t", "s")
  if count then self:line(count .. " = 0;") end
  self:loop_frame(st, function(s) self:plain(s) end, function()
    for _, s in ipairs(self:list(self:x(st, 1), self:x(st, 2))) do self:plain(s, count and snap_arrays, count) end
  end)
  if count then self:line("cgwb_snap_count(" .. count .. ");") end
end

function E:rev_chosen(st, row)
  local l = self:pos(st)
  local ctl = self:saved_syms(st, row)
  if not row.terminal then
    self:line(("/* %d: the dry-run loop again, each iteration's adjoint right after it */"):format(l))
    local _, list = self:snap_arrays(row)
    if #list > 0 then
      local count = self:temp("size_t", "s")
      self:line(count .. " = cgwb_unsnap_count();")
      local bases = self:temp("bases" .. #list, "bases")
      local t = {}
      for i, s in ipairs(list) do t[i] = ("%s[%d] = (void *)%s;"):format(bases, i - 1, self:base(s)) end
      self:line(table.concat(t, " "))
      self:line(("while (%s-- > 0) cgwb_unsnap_cell(%s);"):format(count, bases))
    end
    local snaps = row.snapshot or {}
    for i = #snaps, 1, -1 do
      local s = snaps[i].sym - 1
      if snaps[i].scalar or (self:ndim(s) == 0 and not self:is_ptr(s)) then
        local fn = self:is_ptr(s) and self:ptr_save("unsnap") or (self:is_double(s) and "cgwb_unsnap_d()" or "cgwb_unsnap_i()")
        self:line(self.u.cname[s] .. " = " .. fn .. ";")
      end
    end
    local saved = {}
    for i = #ctl, 1, -1 do
      local s = ctl[i]
      saved[i] = self:temp(self:ctype(s), "v")
      self:line(saved[i] .. " = " .. POP[self:is_double(s) and "double" or "int"] .. ";")
      self:line(self.u.cname[s] .. " = " .. saved[i] .. ";")
    end
    self:fused(st, row)
    for i, s in ipairs(ctl) do self:line(self.u.cname[s] .. " = " .. saved[i] .. ";") end
  else
    self:line(("/* %d: terminal loop, adjoined in the forward sweep */"):format(l))
    for i = #ctl, 1, -1 do
      local s = ctl[i]
      self:line(self.u.cname[s] .. " = " .. POP[self:is_double(s) and "double" or "int"] .. ";")
    end
  end
end

-- {==== a function's three bodies ====}

-- The locals of the sweeps: declarations of the primal locals (zeroed),
-- of the adjoints, and the symbols whose values cross from g_fwd to g_rev.
function E:locals()
  local u, gen, f = self.u, self.gen, self.fid
  local sym0, ns, np = self:get("func", f, "SYM0"), self:get("func", f, "NSYM"), self:get("func", f, "NPARAM")
  local decl, adecl, cross, across = {}, {}, {}, {}
  local written = {}
  for st = 0, u.nflatstmt - 1 do
    if self:get("stmt", st, "FUNC") == f then
      local k = self:stmt_kind(st)
      local lhs = k == "assign" and self:x(st, 0) or (k == "call" and self:x(st, 3) or -1)
      if lhs >= 0 and self:op(lhs) == "var" then written[self:sym_of(lhs)] = true end
    end
  end
  for s = sym0, sym0 + ns - 1 do
    local is_param = s < sym0 + np
    if not is_param then
      local init = (self:ndim(s) > 0 and not self:is_ptr(s)) and (self:ndim(s) == 2 and " = {{0}}" or " = {0}")
        or (self:is_ptr(s) and " = 0" or (self:is_double(s) and " = 0.0" or " = 0"))
      local d = u:sym_decl(s):gsub("^const ", self:is_ptr(s) and "const " or "")
      decl[#decl + 1] = d .. init .. ";"
    end
    if not is_param or written[s] then cross[#cross + 1] = s end
    if self:is_double(s) then
      local b = gen.bname[s]
      if self:is_ptr(s) and not is_param then
        adecl[#adecl + 1] = "double *" .. b .. " = 0;"
      elseif not is_param and self:ndim(s) > 0 then
        local d0, d1 = self:get("sym", s, "DIM0"), self:get("sym", s, "DIM1")
        adecl[#adecl + 1] = "double " .. b .. "[" .. d0 .. "]" .. (self:ndim(s) == 2 and ("[" .. d1 .. "] = {{0.0}};") or " = {0.0};")
        across[#across + 1] = b
      elseif not is_param then
        adecl[#adecl + 1] = "double " .. b .. " = 0.0;"
        across[#across + 1] = b
      elseif not self:is_ptr(s) and self:ndim(s) == 0 then
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
  local u, gen, f = self.u, self.gen, self.fid
  local sym0, ns, np = self:get("func", f, "SYM0"), self:get("func", f, "NSYM"), self:get("func", f, "NPARAM")
  local lines = {}
  local function region(n, array) lines[#lines + 1] = ("cgwb_frame_region(%s%s, sizeof %s);"):format(array and "" or "&", n, n) end
  for s = sym0 + np, sym0 + ns - 1 do
    local taken = (self:get("sym", s, "QUAL") & LAY.qual.addr) ~= 0 -- the front end marks a scalar whose address is taken
    if not self:is_ptr(s) and (self:ndim(s) > 0 or taken) then
      region(u.cname[s], self:ndim(s) > 0)
      if self:is_double(s) then region(gen.bname[s], self:ndim(s) > 0) end
    end
  end
  if #lines > 0 then table.insert(lines, 1, "cgwb_frame_enter();") end
  return lines
end

-- Pushes (or pops, reversed) the values of the symbols in cross.
function E:cross_lines(cross, pop)
  local u = self.u
  local lines = {}
  for _, s in ipairs(cross) do
    local n = u.cname[s]
    if self:ndim(s) > 0 and not self:is_ptr(s) then
      lines[#lines + 1] = pop and ("cgwb_pop_n(" .. n .. ", sizeof " .. n .. ");") or ("cgwb_push_n(" .. n .. ", sizeof " .. n .. ");")
    elseif self:is_ptr(s) then
      if pop then
        local popf = self:ptr_save("pop")
        if self:is_double(s) then lines[#lines + 1] = { self.gen.bname[s] .. " = (double *)" .. popf .. ";", n .. " = " .. popf .. ";" } else
          lines[#lines + 1] = n .. " = " .. popf .. ";" end
      else
        lines[#lines + 1] = self:ptr_save("push") .. "(" .. n .. ");"
        if self:is_double(s) then lines[#lines + 1] = self:ptr_save("push") .. "(" .. self.gen.bname[s] .. ");" end
      end
    else
      local ty = self:is_double(s) and "double" or "int"
      lines[#lines + 1] = pop and (n .. " = " .. POP[ty] .. ";") or (PUSH[ty] .. "(" .. n .. ");")
    end
  end
  local out = {}
  if pop then
    for i = #lines, 1, -1 do
      local x = lines[i]
      if type(x) == "table" then for _, y in ipairs(x) do out[#out + 1] = y end else out[#out + 1] = x end
    end
  else
    out = lines
  end
  return out
end

-- The body of a sweep: emits into self.out with temporaries declared.
function E:sweep(head, decl, run, post)
  self.out, self.temps, self.ind = {}, {}, 1
  run()
  local body = self.out
  local out = { head .. " {" }
  for _, d in ipairs(decl) do out[#out + 1] = "  " .. d end
  local by = {}
  for _, t in ipairs(self.temps) do
    by[t.ty] = by[t.ty] or {}
    table.insert(by[t.ty], t.name)
  end
  for _, t in ipairs(self.temps) do
    local n = t.ty:match("^bases(%d+)$")
    if n then out[#out + 1] = "  void *" .. t.name .. "[" .. n .. "];" end
  end
  for _, ty in ipairs { "int", "double", "size_t", "void *" } do
    if by[ty] then
      for i = 1, #by[ty], 10 do
        out[#out + 1] = "  " .. (ty == "void *" and "void" or ty) .. " " .. (ty == "void *" and "*" or "")
          .. table.concat(by[ty], ty == "void *" and ", *" or ", ", i, math.min(#by[ty], i + 9)) .. ";"
      end
    end
  end
  for _, l in ipairs(post or {}) do out[#out + 1] = "  " .. l end
  for _, l in ipairs(body) do out[#out + 1] = l end
  out[#out + 1] = "}"
  return table.concat(out, "\n")
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
  local u, gen, f = self.u, self.gen, self.fid
  local ret = LAY.types[self:get("func", f, "RET") + 1]
  local body = self:list(self:get("func", f, "BODY"), self:get("func", f, "NBODY"))
  -- only a return as the last statement of the function
  local function scan(sts, top)
    for i, st in ipairs(sts) do
      local k = self:stmt_kind(st)
      if k == "return" and not (top and i == #sts) then self:refuse(st, "return before the end of a function") end
      if k == "break" or k == "continue" then self:refuse(st, k) end
      if k == "if" then
        scan(self:list(self:x(st, 1), self:x(st, 2)), false)
        scan(self:list(self:x(st, 3), self:x(st, 4)), false)
      elseif k == "loop" then
        for _, p in ipairs { 1, 3, 5 } do scan(self:list(self:x(st, p), self:x(st, p + 1)), false) end
      end
    end
  end
  scan(body, true)
  local decl, adecl, cross, across = self:locals()
  local sym0, ns, np = self:get("func", f, "SYM0"), self:get("func", f, "NSYM"), self:get("func", f, "NPARAM")
  local names = {}
  for s = sym0, sym0 + ns - 1 do
    names[#names + 1] = u.cname[s]
    if self:is_double(s) then
      names[#names + 1] = gen.bname[s]
      if s < sym0 + np and not self:is_ptr(s) and self:ndim(s) == 0 then names[#names + 1] = gen.prefix .. gen.bname[s] end
    end
  end
  local sig_tail = gen:adj_params(f)
  local P = gen.prefix
  self.ret_var = P .. "ret"
  -- the forward sweep
  self.ntemp = 0
  local fdecl = {}
  for _, d in ipairs(decl) do fdecl[#fdecl + 1] = d end
  for _, d in ipairs(adecl) do fdecl[#fdecl + 1] = d end
  if ret ~= "void" then fdecl[#fdecl + 1] = ret .. " " .. self.ret_var .. " = 0;" end
  fdecl[#fdecl + 1] = "double " .. P .. "unused = 0.0;"
  local fwd_voids = { P .. "unused" }
  for _, n in ipairs(names) do fwd_voids[#fwd_voids + 1] = n end
  local regions = gen.regions[f]
  local function with_regions(lines)
    for _, l in ipairs(regions) do lines[#lines + 1] = l end
    return lines
  end
  local fwd = self:sweep(("static %s %s(%s)"):format(ret, self.names.fwd, sig_tail), fdecl, function()
    self.in_fwd = true
    if gen.check then self:line(("CGWB_CHK_ENTER(%d);"):format(np)) end
    for _, st in ipairs(body) do self:fwd(st) end
    if gen.check then self:line("CGWB_CHK_LEAVE();") end
    self.in_fwd = false
    for _, l in ipairs(self:cross_lines(cross, false)) do self:line(l) end
    if self.terminal_fused then -- what the loops adjoined here added to adjoints of locals
      for _, b in ipairs(across) do self:line("cgwb_push_n(&" .. b .. ", sizeof " .. b .. ");") end
    end
    if #regions > 0 then self:line("cgwb_frame_leave();") end
    if ret ~= "void" then self:line("return " .. self.ret_var .. ";") end
  end, with_regions(voids(fwd_voids)))
  -- the reverse sweep
  self.ntemp = 0
  local rdecl = {}
  for _, d in ipairs(decl) do rdecl[#rdecl + 1] = d end
  for _, d in ipairs(adecl) do rdecl[#rdecl + 1] = d end
  rdecl[#rdecl + 1] = "double " .. P .. "unused = 0.0;" -- the by-value adjoints of g_fwd calls in fused loops
  names[#names + 1] = P .. "unused"
  local rsig = sig_tail
  local retb = gen.ret_name[f]
  if ret == "double" then
    rsig = (rsig == "void" and "" or (rsig .. ", ")) .. "double " .. retb
    names[#names + 1] = retb -- a passive result's adjoint is not read
  end
  local rev = self:sweep(("static void %s(%s)"):format(self.names.rev, rsig), rdecl, function()
    if self.terminal_fused then for i = #across, 1, -1 do
      local b = across[i]
      self:line("cgwb_pop_n(&" .. b .. ", sizeof " .. b .. ");")
    end end
    for _, l in ipairs(self:cross_lines(cross, true)) do self:line(l) end
    local last = body[#body]
    if last and self:stmt_kind(last) == "return" and ret == "double" and self:x(last, 0) >= 0 then
      local x = self:x(last, 0)
      local l = self:pos(last)
      self:line("/* " .. l .. ": return */")
      self:prop(x, retb)
    end
    for i = #body, 1, -1 do self:rev(body[i]) end
    for s = sym0, sym0 + np - 1 do
      if self:is_double(s) and not self:is_ptr(s) and self:ndim(s) == 0
          and self.param_active[s] and self.act.name[u.cname[s]] then
        self:line("*" .. gen.bname[s] .. " += " .. P .. gen.bname[s] .. ";")
      end
    end
    if #regions > 0 then self:line("cgwb_frame_leave();") end
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
  local u = self.u
  local sym0, np = u:get("func", f, "SYM0"), u:get("func", f, "NPARAM")
  local parts = {}
  for s = sym0, sym0 + np - 1 do
    parts[#parts + 1] = u:param(s)
    if LAY.types[u:get("sym", s, "BASE") + 1] == "double" then
      local ind = u:get("sym", s, "PTR") == 1 or u:get("sym", s, "NDIM") > 0
      if ind then
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

-- The variant of function f for the activity pattern pat of a call
-- (E:call_pattern): {fwd, rev} names of its sweeps, queued for emit_raw.
-- Its activity is f's own, with the "a" parameters independent (and the
-- pointers among them dependent, and a double result); the "p" ones get 0
-- or a dummy as adjoint and are never touched (Hovland, Norris, Utke &
-- Strout, sec. 4, per call context).
function G:variant(f, pat)
  local key = f .. ":" .. pat
  if self.variants[key] then return self.variants[key] end
  local u = self.u
  local n = u:name_of("func", f)
  local suffix = (f ~= self.main and not pat:find("p", 1, true)) and "" or ("_" .. pat:gsub("%-", "i"))
  local v = { f = f, pat = pat, fwd = n .. "_fwd" .. suffix, rev = n .. "_rev" .. suffix }
  for _, x in ipairs { v.fwd, v.rev } do
    if self.taken[x] then failf("%s: the adjoint code of %s needs the name %s, a name of the file", self.file, n, x) end
  end
  self.variants[key] = v
  self.queue[#self.queue + 1] = v
  return v
end

-- A zero adjoint of a global array (globals are constants; what a callee
-- adds to it is dropped).
function G:zero_global(s)
  local u = self.u
  if not self.zeros[s] then
    local name = self.prefix .. "zero_" .. u.cname[s]
    self.zeros[s] = name
    local d0, d1 = u:get("sym", s, "DIM0"), u:get("sym", s, "DIM1")
    local two = u:get("sym", s, "NDIM") == 2
    self.zero_list[#self.zero_list + 1] = "static double " .. name .. "[" .. math.max(d0, 1) .. "]"
      .. (two and ("[" .. d1 .. "] = {{0.0}};") or " = {0.0};")
  end
  return self.zeros[s]
end


-- A plain copy of function f named name (calls renamed to plain copies).
function G:plain_func(f)
  local u = self.u
  local fn = setmetatable({ u = u, gen = self, fid = f, ntemp = 0 }, E)
  local sym0, ns, np = u:get("func", f, "SYM0"), u:get("func", f, "NSYM"), u:get("func", f, "NPARAM")
  local decl = {}
  for s = sym0 + np, sym0 + ns - 1 do decl[#decl + 1] = u:sym_decl(s) .. ";" end
  local parts = {}
  for s = sym0, sym0 + np - 1 do parts[#parts + 1] = u:param(s) end
  local ret = LAY.types[u:get("func", f, "RET") + 1]
  local head = ("static %s %s(%s)"):format(ret, self.plain_name[f], #parts == 0 and "void" or table.concat(parts, ", "))
  return fn:sweep(head, decl, function()
    for _, st in ipairs(fn:list(u:get("func", f, "BODY"), u:get("func", f, "NBODY"))) do
      if fn:stmt_kind(st) == "return" then
        local x = fn:x(st, 0)
        fn:line(x >= 0 and ("return " .. fn:ex(x) .. ";") or "return;")
      else
        fn:plain(st)
      end
    end
  end)
end

-- What keeps loop st's control (pre and step slices) from running plainly
-- around the per-iteration adjoint (a call, a write of a double or a cell),
-- or nil.
local function control_problem(u, st)
  for _, p in ipairs { 3, 5 } do
    local start, n = u:get("stmt", st, "X" .. p), u:get("stmt", st, "X" .. (p + 1))
    for i = 1, n do
      local x = u.flat.list[start + i]
      local kind = LAY.stmts[u:get("stmt", x, "KIND") + 1]
      if kind == "call" then return "a call in the control of a loop adjoined per iteration" end
      if kind == "assign" then
        local lhs = u:get("stmt", x, "X0")
        local sym = u:get("expr", lhs, "SYM")
        if LAY.exprs[u:get("expr", lhs, "OP") + 1] ~= "var" or LAY.types[u:get("sym", sym, "BASE") + 1] == "double" then
          return "a loop control writing a double or a cell, adjoined per iteration,"
        end
      end
    end
  end
  return nil
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
    local bad = want and control_problem(gen.u, row.stmt - 1)
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
local function check_plan(u, f, assume, work)
  local sym0, np = u:get("func", f, "SYM0"), u:get("func", f, "NPARAM")
  local idx, ptrs = {}, {}
  for i = 0, np - 1 do
    local s = sym0 + i
    idx[u:name_of("sym", s)] = i
    if u:get("sym", s, "PTR") == 1 or u:get("sym", s, "NDIM") > 0 then ptrs[#ptrs + 1] = i end
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
    if (u:get("sym", sym0 + i, "QUAL") & LAY.qual.restrict) ~= 0 then
      local base = u:get("sym", sym0 + i, "BASE")
      for _, j in ipairs(ptrs) do if j ~= i and u:get("sym", sym0 + j, "BASE") == base then apart(i, j) end end
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
  local u, f = gen.u, a.func and k:function_id(a.func) - 1
  local sym0, np = u:get("func", f, "SYM0"), u:get("func", f, "NPARAM")
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
  u.nflatstmt = #flat.stmt // LAY.width.stmt
  local gen = setmetatable({ u = u, file = k:file(), zeros = {}, zero_list = {}, plain_name = {},
                             variants = {}, queue = {}, main = fid - 1 }, G)
  local funcs = u:reachable(fid - 1)
  local fnames, taken = {}, {}
  for g = 0, u.nfunc - 1 do taken[u:name_of("func", g)] = true end
  for _, f in ipairs(funcs) do
    local n = u:name_of("func", f)
    gen.plain_name[f] = n .. "_p"
    for _, x in ipairs { n .. "_fwd", n .. "_rev", n .. "_p", n .. "_b", n .. "_b_stats", n .. "_b_reset" } do
      if taken[x] then failf("%s: the adjoint code of %s needs the name %s, a function of the file", gen.file, n, x) end
      fnames[#fnames + 1] = x
    end
  end
  gen.prefix = u:free_prefix()
  gen.bname, gen.ret_name = u:derivative_names(funcs, fnames, "b", "_retb")
  for s = 0, u.nsym - 1 do
    taken[u.cname[s]] = true
    if gen.bname[s] then taken[gen.bname[s]] = true end
  end
  gen.taken = taken
  local main_act, act = activity(gen, k, fid, opts)
  local work = {}
  do -- the work arrays: active pointer parameters neither independent nor dependent
    local role = {}
    for _, n in ipairs(act.independents) do role[n] = true end
    for _, n in ipairs(act.dependents) do role[n] = true end
    local s0 = u:get("func", fid - 1, "SYM0")
    for i = 0, u:get("func", fid - 1, "NPARAM") - 1 do
      local s = s0 + i
      local n = u:name_of("sym", s)
      if LAY.types[u:get("sym", s, "BASE") + 1] == "double" and main_act.name[u.cname[s]] and not role[n]
          and (u:get("sym", s, "PTR") == 1 or u:get("sym", s, "NDIM") > 0) then
        work[#work + 1] = i
      end
    end
  end
  gen.check = check_plan(u, fid - 1, opts.assume, work)
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
  local main = fid - 1
  gen.regions = {} -- where a pointer may hold a local's address, pointers are saved through the frame registry
  for _, f in ipairs(funcs) do
    gen.regions[f] = setmetatable({ u = u, gen = gen, fid = f }, E):regions()
    if #gen.regions[f] > 0 then gen.frames = true end
  end
  local r = progress.start("adjoint code", #funcs) -- per function (variants may be more)
  local sym_main = u:get("func", main, "SYM0")
  local pat = {}
  for s = sym_main, sym_main + u:get("func", main, "NPARAM") - 1 do
    pat[#pat + 1] = LAY.types[u:get("sym", s, "BASE") + 1] ~= "double" and "-" or (main_act.name[u.cname[s]] and "a" or "p")
  end
  local mname = u:name_of("func", main)
  local mv = { f = main, pat = table.concat(pat), fwd = mname .. "_fwd", rev = mname .. "_rev", act = main_act, main = true }
  table.insert(gen.queue, 1, mv)
  local done = 0
  while gen.queue[done + 1] do
    done = done + 1
    r:update(math.min(done - 1, #funcs))
    local v = gen.queue[done]
    local f = v.f
    local sym0, np = u:get("func", f, "SYM0"), u:get("func", f, "NPARAM")
    if not v.act then
      local ind, dep = {}, {}
      for i = 1, np do
        local s = sym0 + i - 1
        if v.pat:sub(i, i) == "a" then
          ind[#ind + 1] = u:name_of("sym", s)
          if u:get("sym", s, "PTR") == 1 or u:get("sym", s, "NDIM") > 0 then dep[#dep + 1] = u:name_of("sym", s) end
        end
      end
      if LAY.types[u:get("func", f, "RET") + 1] == "double" then dep[#dep + 1] = "return" end
      v.act = activity(gen, k, f + 1, { independents = ind, dependents = dep })
    end
    local fn = setmetatable({ u = u, gen = gen, fid = f, ntemp = 0, act = v.act, names = v, param_active = {} }, E)
    for i = 1, np do fn.param_active[sym0 + i - 1] = v.pat:sub(i, i) == "a" end
    if v.main then
      fn.chosen = chosen
      for _, row in pairs(chosen) do if row.terminal then fn.terminal_fused = true end end
    end
    local fwd, rev = fn:emit()
    texts[#texts + 1] = fwd
    texts[#texts + 1] = rev
    local ret = LAY.types[u:get("func", f, "RET") + 1]
    local sig = gen:adj_params(f)
    protos[#protos + 1] = ("static %s %s(%s);"):format(ret, v.fwd, sig)
    local rsig = sig
    if ret == "double" then rsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[f] end
    protos[#protos + 1] = ("static void %s(%s);"):format(v.rev, rsig)
  end
  for _, f in ipairs(funcs) do
    texts[#texts + 1] = gen:plain_func(f)
    local parts = {}
    local sym0, np = u:get("func", f, "SYM0"), u:get("func", f, "NPARAM")
    for s = sym0, sym0 + np - 1 do parts[#parts + 1] = u:param(s) end
    protos[#protos + 1] = ("static %s %s(%s);"):format(LAY.types[u:get("func", f, "RET") + 1], gen.plain_name[f],
      #parts == 0 and "void" or table.concat(parts, ", "))
  end
  r:finish(#funcs)
  -- F_b
  local name = u:name_of("func", main)
  local ret = LAY.types[u:get("func", main, "RET") + 1]
  local sig = gen:adj_params(main)
  local bsig = sig
  if ret == "double" then bsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[main] end
  local sym0, np = u:get("func", main, "SYM0"), u:get("func", main, "NPARAM")
  local args, pargs = {}, {}
  for s = sym0, sym0 + np - 1 do
    args[#args + 1] = u.cname[s]
    pargs[#pargs + 1] = u.cname[s]
    if LAY.types[u:get("sym", s, "BASE") + 1] == "double" then args[#args + 1] = gen.bname[s] end
  end
  local rargs = { table.unpack(args) }
  if ret == "double" then rargs[#rargs + 1] = gen.ret_name[main] end
  local fb = { ("%s %s_b(%s) {"):format(ret, name, bsig) }
  local chk = gen.check
  if chk then -- the assumptions' check (-DCGWB_CHECK_ASSUME): F's pointer parameters are tags 0 ..
    local pairs_, names = {}, {}
    for _, pr in ipairs(chk.apart) do pairs_[#pairs_ + 1] = pr[1] .. ", " .. pr[2] end
    for i = 0, np - 1 do names[#names + 1] = '"' .. u:name_of("sym", sym0 + i) .. '"' end
    fb[#fb + 1] = "#ifdef CGWB_CHECK_ASSUME"
    if #pairs_ == 0 then pairs_[1] = "-1, -1" end -- none: C has no empty initializer
    fb[#fb + 1] = ("  static const int cgwb_apart_[] = {%s};"):format(table.concat(pairs_, ", "))
    fb[#fb + 1] = ("  static const char *const cgwb_names_[] = {%s};"):format(table.concat(names, ", "))
    for _, i in ipairs(chk.work) do
      fb[#fb + 1] = ('  CGWB_CHK_WORK("%s_b", %d, "%s");'):format(name, i, u:name_of("sym", sym0 + i))
    end
    for _, pr in ipairs(chk.same) do
      fb[#fb + 1] = ('  CGWB_CHK_SAME("%s_b", %s, %s, "%s", "%s");'):format(name, u.cname[sym0 + pr[1]], u.cname[sym0 + pr[2]],
        u:name_of("sym", sym0 + pr[1]), u:name_of("sym", sym0 + pr[2]))
    end
    for _, i in ipairs(chk.ptrs) do fb[#fb + 1] = ("  CGWB_CHK_ARG(%d, %d);"):format(i, i) end
    fb[#fb + 1] = "#endif"
  end
  fb[#fb + 1] = ("  %s%s(%s);"):format(ret == "void" and "" or "(void)", mv.fwd, table.concat(args, ", "))
  if chk then
    fb[#fb + 1] = ('  CGWB_CHK_VERIFY("%s_b", cgwb_apart_, %d, cgwb_names_);'):format(name, #chk.apart)
  end
  fb[#fb + 1] = ("  %s(%s);"):format(mv.rev, table.concat(rargs, ", "))
  fb[#fb + 1] = ("  %s%s(%s);"):format(ret == "void" and "" or "return ", gen.plain_name[main], table.concat(pargs, ", "))
  fb[#fb + 1] = "}"
  fb[#fb + 1] = ("void %s_b_stats(cgwb_adstats *out) {\n  cgwb_adstats_get(out);\n}"):format(name)
  fb[#fb + 1] = ("void %s_b_reset(void) {\n  cgwb_adstats_reset();\n}"):format(name)
  local head = { "/* Adjoint code of " .. name .. " (cgwb adjoint; doc/adjoint-code.md). */",
    "#include <math.h>", "#include <stddef.h>", '#include "cgwb_adstack.h"' }
  local body = table.concat(texts, "\n\n") .. "\n\n" .. table.concat(fb, "\n")
  for s = 0, u.nsym - 1 do
    if u:get("sym", s, "KIND") == KIND_GLOBAL and body:find("%f[%w_]" .. u.cname[s] .. "%f[^%w_]") then
      head[#head + 1] = u:nest_rows(s, u:global_text(s))
    end
  end
  for _, z in ipairs(gen.zero_list) do head[#head + 1] = z end
  for _, p in ipairs(protos) do head[#head + 1] = p end
  head[#head + 1] = ("%s %s_b(%s);"):format(ret, name, bsig)
  head[#head + 1] = ("void %s_b_stats(cgwb_adstats *out);"):format(name)
  head[#head + 1] = ("void %s_b_reset(void);"):format(name)
  -- the report
  local json = require "cgwb.json"
  local rep = { ["function"] = name, independents = json.array(act.independents),
                dependents = json.array(act.dependents), loops = json.array({}),
                passive = json.array({}), work = json.array({}) }
  local role = {}
  for _, n in ipairs(act.independents) do role[n] = true end
  for _, n in ipairs(act.dependents) do role[n] = true end
  for s = sym_main, sym_main + u:get("func", main, "NPARAM") - 1 do -- in parameter order
    if LAY.types[u:get("sym", s, "BASE") + 1] == "double" then
      local n = u:name_of("sym", s)
      if not main_act.name[u.cname[s]] then rep.passive[#rep.passive + 1] = n
      elseif not role[n] and (u:get("sym", s, "PTR") == 1 or u:get("sym", s, "NDIM") > 0) then rep.work[#rep.work + 1] = n end
    end
  end
  for i, row in ipairs(info and info.loops or {}) do
    local access = {}
    for _, a in ipairs(row.access or {}) do access[a.name] = a.class end
    local snap = json.array({})
    for _, v in ipairs(row.snapshot or {}) do snap[#snap + 1] = v.name end
    rep.loops[#rep.loops + 1] = { line = row.line, independent = row.independent, verdict = row.verdict,
      reason = row.reason, access = access, terminal = row.terminal, dry_run = row.dry_run, snapshot = snap,
      transformed = transformed[i] or false, pragma = row.pragma_status or row.pragma or false }
  end
  return table.concat(head, "\n") .. "\n\n" .. body .. "\n", rep
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
