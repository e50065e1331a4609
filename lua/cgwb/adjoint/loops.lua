-- cgwb.adjoint.loops: loops adjoined per iteration in E's sweeps (E:
-- cgwb.adjoint.base's class; Hascoet, Fidanova & Held, sec. 3): a chosen
-- loop's control run plainly, each iteration's forward immediately followed
-- by its reverse (Fig. 4), a dry run with its snapshot and the re-run
-- (Fig. 5).  Also what keeps a loop's control from running plainly, for
-- the choice of the loops.  Internal to cgwb.adjoint.
local errors = require "cgwb.util.errors"
local B = require "cgwb.adjoint.base"
require "cgwb.adjoint.sweeps"

local E, double, scalar, scalar_type, PUSH, POP = B.E, B.double, B.scalar, B.scalar_type, B.PUSH, B.POP

local L = {}

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
L.control_problem = control_problem

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
  if y.kind == "global" then
    error(errors.refused(("adjoint code: a snapshot of the global %s"):format(self.u.cname[s])))
  end
  if y.ndim >= 2 then return "&" .. self.u.cname[s] .. ("[0]"):rep(y.ndim) end -- a parameter too: double (*)[N] is no double *
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
  self.dry = true
  self:loop_frame(r, function(s) self:plain(s) end, function() self:plain_slice(r.body, count and snap_arrays, count) end)
  self.dry = nil
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

return L
