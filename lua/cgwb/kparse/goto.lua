--- cgwb.kparse.goto: C's forward `goto` in the rows the subset already has.
-- A `goto` to a label later in a block around it (any depth of loops, ifs
-- and switches in between) sets a flag of its label, int and 0 on entry to
-- the label's block; it then leaves each loop it is in up to the label's
-- block by a `break` (the goto's own, then `if (flag) break;` right after
-- each inner loop), and the statements from there to the label run only
-- while the flag is clear (`if (!flag) ...`, in the block's own scope; a
-- switch on the way counts the jump as a `break` of its own).  The label's
-- statement then runs as any other: no jump is added, and the derivative
-- generators see ifs, loops and breaks.  A backward goto, a jump into a
-- statement, `goto *p`, an undefined or duplicate label are refused with
-- their place.  Adds methods to the lowering object.
local L = require "cgwb.kparse.ctypes"

local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end
local function var_i(sym, pos) return { op = "var", ty = "int", pos = pos, sym = sym } end
local LOOP = { ["for"] = true, ["while"] = true, ["do"] = true }

--- Adds label record l to the ordered set field name of node s.
local function add(s, name, l)
  local set = s[name]
  if not set then set = {}; s[name] = set end
  for _, x in ipairs(set) do if x == l then return end end
  set[#set + 1] = l
end

--- The statements of the function body, walked once: every label (with the
-- block it stands in) and every goto (with the statements around it).
local function walk(s, path, labels, gotos, me)
  if not s or type(s) ~= "table" then return end
  local k = s.k
  if k == "label" then
    local first = labels[s.name]
    if first then
      local line, col = me:linecol(first.pos)
      me:err(s.pos, "duplicate label '%s' (first at line %d, column %d)", s.name, line, col)
    end
    local j, item = #path, s -- `a: b: x;`: b stands where a does
    while path[j] and path[j].k == "label" do item, j = path[j], j - 1 end
    local parent = path[j]
    local in_switch = parent and (parent.k == "case" or parent.k == "default" or parent.k == "block"
      and path[j - 1] and path[j - 1].k == "switch" and path[j - 1].body == parent)
    labels[s.name] = { name = s.name, pos = s.pos, block = parent and parent.k == "block" and not in_switch and parent,
      in_switch = in_switch, item = item }
    labels[#labels + 1] = labels[s.name]
  elseif k == "goto" then
    local p = {}
    for i = 1, #path do p[i] = path[i] end
    gotos[#gotos + 1] = { node = s, path = p }
    return
  end
  path[#path + 1] = s
  if k == "block" then
    for _, x in ipairs(s.items) do walk(x, path, labels, gotos, me) end
  elseif k == "if" then
    walk(s.t, path, labels, gotos, me)
    walk(s.e, path, labels, gotos, me)
  elseif LOOP[k] or k == "switch" then
    walk(s.body, path, labels, gotos, me)
  elseif k == "case" or k == "default" or k == "label" then
    walk(s.s, path, labels, gotos, me)
  end
  path[#path] = nil
end

--- Returns before the end of function body: each becomes a goto to one
-- label after the body's last statement (`@return:`, no C name), its value
-- first stored in a temporary the one return there gives back, so the
-- derivative generators see one return, at the end (an early `if (n <= 0)
-- return 0.0;` is an if around the rest).  No return but a last top-level
-- one: the body as it is.
function L:early_returns(body, ret)
  local found, last = {}, body.items[#body.items]
  local function walk_r(s)
    if type(s) ~= "table" then return end
    if s.k == "return" then found[#found + 1] = s; return end
    if s.k == "block" then for _, x in ipairs(s.items) do walk_r(x) end
    elseif s.k == "if" then walk_r(s.t); walk_r(s.e)
    elseif LOOP[s.k] or s.k == "switch" then walk_r(s.body)
    elseif s.k == "case" or s.k == "default" or s.k == "label" then walk_r(s.s) end
  end
  walk_r(body)
  if #found == 0 or (#found == 1 and found[1] == last) then return end
  local pos = found[#found].pos
  local tmp = ret ~= "void" and self:temp(ret, pos) or nil
  for _, s in ipairs(found) do
    s.k, s.name, s.ret_value, s.ret_temp = "goto", "@return", s.e, tmp or false
  end
  body.items[#body.items + 1] = { k = "label", name = "@return", pos = pos,
    s = { k = "return", pos = pos, ret_temp = tmp or false } }
end

--- Checks every goto of the function body and marks the syntax tree with
-- what the lowering does: on a goto its label (s.target) and whether it
-- breaks out of a loop (s.breaks); on a loop the flags that break the loop
-- around it right after it (s.lbreak); on each statement that control may
-- leave with a flag set for its successor the labels (s.gout); on a label's
-- record its flag.
function L:goto_plan(body)
  local labels, gotos = {}, {}
  walk(body, {}, labels, gotos, self)
  self.goto_labels = labels
  if #gotos == 0 then return end
  for _, g in ipairs(gotos) do
    local s, path = g.node, g.path
    if s.name == "*" then self:outside(s.pos, "a computed 'goto *'", "a goto names a label") end
    local l = labels[s.name]
    if not l then self:err(s.pos, "label '%s' used but not defined", s.name) end
    local line, col = self:linecol(l.pos)
    if l.pos < s.pos then
      self:outside(s.pos, ("a backward 'goto' (to '%s' at line %d, column %d)"):format(s.name, line, col),
        "a goto jumps forward: write the loop as a loop")
    end
    local b
    for i = #path, 1, -1 do if path[i] == l.block then b = i; break end end
    if not b then
      self:outside(s.pos, ("a 'goto' into another block ('%s' at line %d, column %d)"):format(s.name, line, col),
        "a goto jumps forward, out of the statements it is in, to a label of a block around it"
        .. (l.in_switch and ", not to one among a switch's cases" or ""))
    end
    l.flag = l.flag or self:temp("int", l.pos)
    l.targeted = true
    s.target = l
    local loops = {} -- the loops the goto leaves, outermost first
    for i = b + 1, #path do if LOOP[path[i].k] then loops[#loops + 1] = i end end
    s.breaks = #loops > 0
    for j = 2, #loops do -- each inner loop: `if (flag) break;` after it
      local lp = path[loops[j]]
      add(lp, "lbreak", l)
      lp.lbreak_pos = lp.lbreak_pos or s.pos
    end
    -- the statements whose successors see the flag: up to the outermost loop left, else the goto itself
    for i = b + 1, loops[1] or #path do add(path[i], "gout", l) end
    if not loops[1] then add(s, "gout", l) end
  end
end

--- Not any of flags (label records): the guard of the statements they skip.
local function none_set(flags, pos)
  local t
  for _, l in ipairs(flags) do
    local v = var_i(l.flag, pos)
    t = t and { op = "or", ty = "int", pos = pos, a = t, b = v } or v
  end
  return { op = "not", ty = "int", pos = pos, a = t }
end

--- Whether flags (label records) is empty.
local function empty(flags) return flags[1] == nil end

--- The statements of a block: the flags of the labels it holds cleared on
-- entry; after a statement that may leave with a flag set, the statements
-- up to the flag's label run only while the flags pending are clear.
function L:block_items(items)
  -- in a group of a switch of the flag form, a `break` in a block sets the
  -- switch's flag: the block's statements after it are skipped as well
  local sw = self.sw and self.sw.depth == self.loops and self.sw
  local breaks = sw and L.switch_jumps_out
  local plain = true
  for _, x in ipairs(items) do
    if x.gout or x.k == "label" or (breaks and breaks(x, "break", true)) then plain = false; break end
  end
  if plain then
    for _, x in ipairs(items) do self:statement(x) end
    return
  end
  for _, x in ipairs(items) do
    local l = x
    while l and l.k == "label" do
      local rec = self.goto_labels and self.goto_labels[l.name]
      if rec and rec.targeted then self:assign(var_i(rec.flag, l.pos), const_i(0, l.pos), l.pos) end
      l = l.s
    end
  end
  -- runs of statements under one set of pending flags
  local runs, pending, cur = {}, {}, nil
  for _, x in ipairs(items) do
    local l, changed = x, false
    while l and l.k == "label" do -- a goto's label: its flag no longer skips
      local rec = self.goto_labels and self.goto_labels[l.name]
      for i, p in ipairs(pending) do
        if p == rec then table.remove(pending, i); changed = true; break end
      end
      l = l.s
    end
    if not cur or changed then
      cur = { flags = { table.unpack(pending) }, items = {} }
      runs[#runs + 1] = cur
    end
    cur.items[#cur.items + 1] = x
    local out = x.gout
    if breaks and breaks(x, "break", true) then
      sw.rec = sw.rec or { flag = sw.flag }
      out = { sw.rec, table.unpack(x.gout or {}) }
    end
    if out then -- the guard is tested again after it, even for flags already pending
      for _, f in ipairs(out) do
        local seen = false
        for _, p in ipairs(pending) do if p == f then seen = true end end
        if not seen then pending[#pending + 1] = f end
      end
      cur = nil
    end
  end
  for _, r in ipairs(runs) do
    if empty(r.flags) then
      for _, x in ipairs(r.items) do self:statement(x) end
    else
      local pos = r.items[1].pos
      local id = self:stmt("if", pos, { cond = self:emit(none_set(r.flags, pos)) }, -1)
      local t0, tn = self:in_slice(function(me) -- the block's scope: a declaration is seen past the label
        for _, x in ipairs(r.items) do me:statement(x) end
      end)
      local e0, en = self:in_slice(function() end)
      self:set_part(id, "if", "then", t0, tn)
      self:set_part(id, "if", "else", e0, en)
    end
  end
end

--- goto LABEL: its flag set, then out of the innermost loop when it leaves one.
function L:s_goto(s)
  local l = s.target
  if not l then self:err(s.pos, "internal: a goto without a plan") end
  if s.ret_temp == nil and s.name == "@return" then self:err(s.pos, "internal: a return without a plan") end
  if s.ret_temp ~= nil then -- an early return: its value into the temporary (as s_return converts it)
    local ret = self.fn.ret
    if not s.ret_value and ret ~= "void" then self:err(s.pos, "'return' without a value in a function returning %s", ret) end
    if s.ret_value and ret == "void" then self:err(s.pos, "'return' with a value in a void function") end
    if s.ret_value then
      self.posts_ok, self.posts = true, self:no_posts()
      local v = self:convert(self:rv(s.ret_value), ret, s.ret_value.pos, "return value")
      if #self.posts > 0 then self:outside(s.ret_value.pos, "a postfix ++ or -- in a return value", "it would not happen") end
      self:assign({ op = "var", ty = ret, pos = s.pos, sym = s.ret_temp }, v, s.pos)
      self.posts_ok, self.posts = false, self:no_posts()
    end
  end
  self:assign(var_i(l.flag, s.pos), const_i(1, s.pos), s.pos, self:take_pragma(s.pos))
  if s.breaks then self:stmt("break", s.pos, {}, -1) end
end

--- A labeled statement: the statement (the label was seen by goto_plan);
-- a `#pragma cgwb` before the label is the statement's.
function L:s_label(s)
  local p = self.pragma_at[s.pos]
  if p and not (s.s and s.s.k ~= "empty" and not self.pragma_at[s.s.pos]) then
    self:err(s.pos, "#pragma cgwb before a label without a statement of its own")
  end
  if p then self.pragma_at[s.pos], self.pragma_at[s.s.pos] = nil, p end
  if s.s then self:statement(s.s) end
end

--- After loop s that a goto leaves for a label beyond the loop around it:
-- `if (flag) break;`.
function L:goto_loop_exit(s)
  local pos = s.lbreak_pos
  local t = none_set(s.lbreak, pos).a
  local id = self:stmt("if", pos, { cond = self:emit(t) }, -1)
  local t0, tn = self:in_slice(function(me) me:stmt("break", pos, {}, -1) end)
  local e0, en = self:in_slice(function() end)
  self:set_part(id, "if", "then", t0, tn)
  self:set_part(id, "if", "else", e0, en)
end

--- In a switch of the flag form, after statement s that may leave with a
-- goto's flag set: the switch's own flag takes it (the rest of the switch
-- is skipped as after a `break`).
function L:goto_switch_exit(s, sw)
  local pos = s.pos
  self:assign(var_i(sw.flag, pos), none_set(s.gout, pos).a, pos)
end

return L
