--- cgwb.kparse.switch: C's `switch` in the rows the subset already has.
-- A switch whose case groups each end in a jump (`break`, `return`,
-- `continue`), the common form, becomes an if/else-if chain on the
-- controlling value, the default group last.  Any other switch (a group
-- falling through into the next, a `break` inside an `if`) becomes a
-- sequence of guarded groups that run from the one the value selects
-- onwards (`if (k <= i) group i`), a `break` that leaves the switch setting
-- a flag that the later statements test: fall-through and `break` mean
-- what they mean in C, `continue` keeps its loop, and no loop or jump is
-- added (the derivative generators see ifs).  Case labels are integer constant expressions (C99 6.8.4.2) or
-- GNU ranges `case 1 ... 5`.  Adds methods to the lowering object.
local L = require "cgwb.kparse.ctypes"
local copy = require("cgwb.kparse.lower").copy
local errors = require "cgwb.util.errors"

local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end

--- A case label's value: an integer constant expression (C99 6.8.4.2).
function L:case_value(e)
  local ok, v = pcall(self.ice, self, e)
  if ok then return v end
  if not errors.is(v, "input") then error(v, 0) end
  self:err(e.pos, "a case label must be an integer constant expression")
end

--- The case groups of a switch body: {labels = {{lo, hi, pos} | {default = true}},
-- items = {statements}, pos}; statements before the first label in `head`.
function L:switch_groups(body)
  local items = body.k == "block" and body.items or { body }
  local groups, head, cur = {}, {}, nil
  local seen, ndefault = {}, 0
  for _, it in ipairs(items) do
    local s = it
    if s.k == "case" or s.k == "default" then
      cur = { labels = {}, items = {}, pos = s.pos }
      groups[#groups + 1] = cur
      while s and (s.k == "case" or s.k == "default") do
        if s.k == "default" then
          ndefault = ndefault + 1
          if ndefault > 1 then self:err(s.pos, "more than one 'default' label in one switch") end
          cur.labels[#cur.labels + 1] = { default = true, pos = s.pos }
        else
          local lo = self:case_value(s.e)
          local hi = s.e2 and self:case_value(s.e2) or lo
          if hi < lo then self:err(s.pos, "an empty case range %d ... %d", lo, hi) end
          for _, r in ipairs(seen) do
            if lo <= r[2] and r[1] <= hi then
              local line, col = self:linecol(r[3])
              self:err(s.pos, "duplicate case value %d (first at line %d, column %d)", math.max(lo, r[1]), line, col)
            end
          end
          seen[#seen + 1] = { lo, hi, s.pos }
          cur.labels[#cur.labels + 1] = { lo = lo, hi = hi, pos = s.pos }
        end
        s = s.s
      end
      if s then cur.items[#cur.items + 1] = s end
    elseif cur then
      cur.items[#cur.items + 1] = s
    else
      head[#head + 1] = s
    end
  end
  return groups, head
end

--- Whether statement s holds a `break` or `continue` that leaves s for the
-- switch around it (not one of a loop or switch nested inside it);
-- what: "break" or "continue"; a goto out of the switch counts as a `break`
-- unless no_goto.
local function jumps_out(s, what, no_goto)
  if not s or type(s) ~= "table" then return false end
  if what == "break" and s.gout and not no_goto then return true end -- (goto.lua)
  local k = s.k
  if k == what then return true end
  if k == "for" or k == "while" or k == "do" then return false end
  if k == "switch" then return what == "continue" and jumps_out(s.body, what, no_goto) end
  if k == "block" then
    for _, x in ipairs(s.items) do if jumps_out(x, what, no_goto) then return true end end
    return false
  end
  if k == "if" then return jumps_out(s.t, what, no_goto) or jumps_out(s.e, what, no_goto) end
  if k == "case" or k == "default" or k == "label" then return jumps_out(s.s, what, no_goto) end
  return false
end

L.switch_jumps_out = jumps_out -- (goto.lua: a block's statements after a break)

local ENDS = { ["break"] = true, ["return"] = true, ["continue"] = true }

--- Whether the groups can be an if/else-if chain: every group but the last
-- ends in a jump, and no `break` leaves from inside a group's statements
-- other than a final one.
local function chainable(groups)
  for i, g in ipairs(groups) do
    local n = #g.items
    local last = g.items[n]
    if i < #groups and not (last and ENDS[last.k]) then return false end
    for j = 1, n do
      local x = g.items[j]
      if not (j == n and x.k == "break") and jumps_out(x, "break") then return false end
    end
  end
  return true
end

--- The int test that value tree v matches one of labels (none for default).
function L:label_test(v, labels, pos)
  local t
  for _, l in ipairs(labels) do
    if not l.default then
      local c
      if l.lo == l.hi then
        c = { op = "eq", ty = "int", pos = l.pos, a = copy(v), b = const_i(l.lo, l.pos) }
      else
        c = { op = "and", ty = "int", pos = l.pos,
          a = { op = "ge", ty = "int", pos = l.pos, a = copy(v), b = const_i(l.lo, l.pos) },
          b = { op = "le", ty = "int", pos = l.pos, a = copy(v), b = const_i(l.hi, l.pos) } }
      end
      t = t and { op = "or", ty = "int", pos = pos, a = t, b = c } or c
    end
  end
  return t
end

local function has_default(g)
  for _, l in ipairs(g.labels) do if l.default then return true end end
  return false
end

--- Lowers the statements of one group in the switch's scope (a declaration
-- in one group is seen by the next, as in C); a final `break` of the
-- if/else-if form is dropped.
function L:switch_items(items, drop_break)
  local n = #items
  if drop_break and n > 0 and items[n].k == "break" then n = n - 1 end
  for j = 1, n do self:statement(items[j]) end
end

--- A `break` that leaves the switch of the flag form: sets its flag.
function L:switch_break(s)
  self:assign({ op = "var", ty = "int", pos = s.pos, sym = self.sw.flag }, const_i(1, s.pos), s.pos)
end

--- The statements of a group in the flag form: after a statement that may
-- leave the switch, the rest runs only while the flag is clear.
function L:switch_guarded(items, j)
  local sw = self.sw
  for i = j, #items do
    self:statement(items[i])
    if items[i].gout then self:goto_switch_exit(items[i], sw) end
    if i < #items and jumps_out(items[i], "break") then
      local id = self:stmt("if", items[i + 1].pos, { cond = self:emit({ op = "not", ty = "int", pos = items[i + 1].pos,
        a = { op = "var", ty = "int", pos = items[i + 1].pos, sym = sw.flag } }) }, -1)
      local t0, tn = self:in_slice(function(me) me:switch_guarded(items, i + 1) end)
      local e0, en = self:in_slice(function() end)
      self:set_part(id, "if", "then", t0, tn)
      self:set_part(id, "if", "else", e0, en)
      return
    end
  end
end

function L:s_switch(s)
  local pragma = self:take_pragma(s.pos)
  if pragma ~= -1 then self:err(s.pos, "#pragma cgwb before a switch: put it on a statement inside it") end
  local v = self:rv(s.c)
  if v.ty ~= "int" then
    self:err(s.c.pos, "the switch's controlling expression must be an integer, not %s",
      v.ty == "double" and "a double" or "a pointer")
  end
  self:flush_posts()
  if v.op ~= "var" and v.op ~= "const_i" then -- evaluated once, as C does
    local t = self:temp("int", s.pos)
    self:assign({ op = "var", ty = "int", pos = s.pos, sym = t }, v, s.pos)
    v = { op = "var", ty = "int", pos = s.c.pos, sym = t }
  end
  self:push_scope()
  self.sw_depth = self.sw_depth + 1
  local groups, head = self:switch_groups(s.body)
  for _, x in ipairs(head) do
    if x.k ~= "decl" or jumps_out(x, "break") then
      self:err(x.pos, "a statement before the switch's first label is never run")
    end
    for _, d in ipairs(x.decls or {}) do
      if d.init then self:err(d.pos, "an initializer before the switch's first label is never run") end
    end
    self:statement(x)
  end
  -- empty groups fall into the next one: their labels are the next one's
  local merged, pending = {}, {}
  for _, g in ipairs(groups) do
    for _, l in ipairs(g.labels) do pending[#pending + 1] = l end
    if #g.items > 0 then
      merged[#merged + 1] = { labels = pending, items = g.items, pos = g.pos }
      pending = {}
    end
  end
  if #pending > 0 and #merged > 0 then -- labels at the end select nothing to run
    merged[#merged + 1] = { labels = pending, items = {}, pos = s.pos }
  end
  if #merged > 0 and chainable(merged) then
    self:switch_chain(v, merged, 1, s.pos)
  elseif #merged > 0 then
    self:switch_flags(v, merged, s.pos)
  end
  self.sw_depth = self.sw_depth - 1
  self:pop_scope()
end

--- if (v matches group i) group i else (the rest), the default group last.
function L:switch_chain(v, groups, i, pos)
  local order = {}
  local dflt
  for _, g in ipairs(groups) do
    if has_default(g) then dflt = g else order[#order + 1] = g end
  end
  if dflt then order[#order + 1] = dflt end
  local function chain(me, j)
    local g = order[j]
    if not g then return end
    local test = not has_default(g) and me:label_test(v, g.labels, g.pos)
    if not test then return me:switch_items(g.items, true) end -- default: the final else
    local id = me:stmt("if", g.pos, { cond = me:emit(test) }, -1)
    local t0, tn = me:in_slice(function(m2) m2:switch_items(g.items, true) end)
    local e0, en = me:in_slice(chain, j + 1)
    me:set_part(id, "if", "then", t0, tn)
    me:set_part(id, "if", "else", e0, en)
  end
  chain(self, i)
end

--- k = the number of the group v selects (n + 1: none), done = 0;
-- if (k <= 1) group 1; if (!done && k <= 2) group 2; ... where a `break`
-- that leaves the switch sets done (no loop: `continue` keeps its loop).
function L:switch_flags(v, groups, pos)
  local n = #groups
  local dflt = n + 1
  for i, g in ipairs(groups) do if has_default(g) then dflt = i end end
  local sel = const_i(dflt, pos)
  for i = n, 1, -1 do
    local test = self:label_test(v, groups[i].labels, groups[i].pos)
    if test then sel = { op = "cond", ty = "int", pos = groups[i].pos, a = test, b = const_i(i, pos), c = sel } end
  end
  local k = self:temp("int", pos)
  self:assign({ op = "var", ty = "int", pos = pos, sym = k }, sel, pos)
  local sw = { pos = pos, outer = self.sw, depth = self.loops, flag = self:temp("int", pos) }
  self:assign({ op = "var", ty = "int", pos = pos, sym = sw.flag }, const_i(0, pos), pos)
  self.sw = sw
  local can_break = false -- whether a group before this one may have left
  for i, g in ipairs(groups) do
    local test = { op = "le", ty = "int", pos = g.pos, a = { op = "var", ty = "int", pos = g.pos, sym = k },
      b = const_i(i, g.pos) }
    if can_break then
      test = { op = "and", ty = "int", pos = g.pos, b = test,
        a = { op = "not", ty = "int", pos = g.pos, a = { op = "var", ty = "int", pos = g.pos, sym = sw.flag } } }
    end
    local gid = self:stmt("if", g.pos, { cond = self:emit(test) }, -1)
    local t0, tn = self:in_slice(function(me) me:switch_guarded(g.items, 1) end)
    local e0, en = self:in_slice(function() end)
    self:set_part(gid, "if", "then", t0, tn)
    self:set_part(gid, "if", "else", e0, en)
    for _, x in ipairs(g.items) do if jumps_out(x, "break") then can_break = true end end
  end
  self.sw = sw.outer
end

return L
