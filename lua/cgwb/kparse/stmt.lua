--- cgwb.kparse.stmt: statements, declarations and functions of the syntax
-- tree -> statement rows and body slices; the file scope (globals,
-- prototypes, definitions).  Adds methods to the lowering object.
local lower = require "cgwb.kparse.lower"
local L = require "cgwb.kparse.ctypes"

require "cgwb.kparse.switch"
require "cgwb.kparse.passive"
require "cgwb.kparse.externals"
require "cgwb.kparse.goto"
require "cgwb.kparse.libc"
local PTR_OF = { double = "pdouble", int = "pint" }
local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end
local errors = require "cgwb.util.errors"
local STMT_WHY

-- {==== effects ====}

--- Lowers an expression evaluated for its effect, then its postfix ++/--.
-- spos: where the statement begins (its rows' position), else the operator's.
function L:effect(e, pragma, spos)
  self.posts_ok, self.posts = true, self:no_posts()
  if self:passive_effect(e, pragma, spos) then -- assert(c), (void) x
  elseif e.k == "assign" then self:assign_stmt(e, pragma, spos)
  elseif e.k == "call" and self:heap_name(e) == "free" then
    self:free_stmt(e, spos or e.pos, pragma)
  elseif e.k == "call" then
    self:rv_call(e, true)
    if pragma ~= -1 and pragma then self:set("stmt", self.cur[#self.cur], "PRAGMA", pragma) end
  elseif (e.k == "un" and (e.op == "pre++" or e.op == "pre--")) or e.k == "post" then
    local lv = self:lvalue(e.a)
    if lv.ty == "double" then
      self:outside(e.pos, ("'%s' on a double"):format(e.op:gsub("pre", "")), "++ and -- are for ints and pointers")
    end
    self.posts_ok = false
    self:incdec(lv, e.op:find("+", 1, true) and "+" or "-", spos or e.pos)
    if pragma ~= -1 then self:set("stmt", self.cur[#self.cur], "PRAGMA", pragma) end
  else
    local n0 = self.nhoist
    self:rv(e)
    if self.nhoist == n0 and #self.posts == 0 then
      self:err(e.pos, "a statement without effect")
    end
    if pragma ~= -1 then self:err(e.pos, "#pragma cgwb on a statement without a computation of its own") end
  end
  self:flush_posts()
end

--- An empty list of pending postfix ++/--: the current one when it is
-- empty (most statements have none; a fresh table for each was a third of
-- the tables a statement made), else a new one.
function L:no_posts()
  local posts = self.posts
  if posts and posts[1] == nil then return posts end
  return {}
end

function L:flush_posts()
  local posts = self.posts
  self.posts_ok, self.posts = false, self:no_posts()
  for _, p in ipairs(posts) do self:incdec(p.lv, p.op, p.pos) end
end

--- A condition: an int tree, its hoisted statements emitted before it.
function L:cond(e)
  self.posts_ok, self.posts = false, self:no_posts()
  return self:truth(self:rv(e), e.pos)
end
-- }====

-- {==== declarations ====}

--- The constant value of an array size (C requires an integer constant
-- expression: L:ice).
function L:const_int(e) return self:ice(e) end

--- Dimensions of a declarator: ndim, dim0, dim1, dim2 (0 for `[]` and
-- past ndim); at most the layout's max_dim (3) of them.
function L:dims(d, allow_open)
  local most = self.lay.max_dim
  if #d.dims > most then
    self:outside(d.dims[most + 1].pos, ("an array of more than %d dimensions"):format(most),
      "arrays have 1, 2 or 3 dimensions")
  end
  local sizes = {}
  for i, dim in ipairs(d.dims) do
    if dim.n == false or (not dim.e and not dim.n) then
      if not (allow_open and i == 1) then
        self:outside(dim.pos, "an array of unknown size", allow_open and "only the first dimension may be open"
          or "locals have constant sizes")
      end
      sizes[i] = 0
    else
      sizes[i] = dim.n or self:const_int(dim.e)
      if sizes[i] <= 0 then self:err(dim.e and dim.e.pos or dim.pos, "an array size must be positive, not %d", sizes[i]) end
    end
  end
  local cells = 1
  for i = 2, #sizes do cells = cells * sizes[i] end
  if cells * math.max(sizes[1] or 1, 1) > 2147483647 then self:err(d.pos, "array too large") end
  return #sizes, sizes[1] or 0, sizes[2] or 0, sizes[3] or 0
end

--- Symbol info of a declarator with its specifier.
function L:decl_info(spec, d, kind)
  local t = self:subset_type(spec, d)
  if t.base == "void" and t.ptr == 0 then self:err(d.pos, "'%s' declared void", d.name or "parameter") end
  if t.ptr > 2 then self:outside(d.pos, "a pointer to a pointer to a pointer", "at most two levels of pointers") end
  if t.ptr == 2 and not t.stype then
    if kind ~= "param" then
      self:outside(d.pos, ("the %s pointer to pointers '%s'"):format(kind, d.name or "?"),
        "a double ** or int ** is a parameter whose rows are read; other pointers to pointers are not yet supported")
    end
    if #t.dims > 0 then self:outside(d.pos, "an array of pointers", "arrays of int or double") end
  end
  if t.base == "void" then self:outside(d.pos, "a pointer to void", "pointers to int or double") end
  local q = self.lay.qual
  if t.stype then
    if t.ptr > 1 then self:outside(d.pos, "a pointer to a pointer", "one level of pointers") end
    if t.ptr == 1 then
      if kind ~= "param" then
        self:outside(d.pos, "a local pointer to a struct", "pointers to structs are parameters")
      end
      return { name = d.name, kind = kind, stype = t.stype, pos = d.pos, const = t.const, pointer = true }
    end
    if kind == "global" then self:outside(d.pos, "a global struct", "globals are int or double values") end
    return { name = d.name, kind = kind, stype = t.stype, pos = d.pos, const = t.const }
  end
  local info = { name = d.name, kind = kind, base = t.base, ct = t.ct, ptr = t.ptr, pos = d.pos, qual = 0 }
  if t.restrict_spec and t.ptr == 0 then self:err(spec.pos, "restrict qualifies a pointer: write 'double *restrict p'") end
  if t.const then info.qual = info.qual | q.const end
  if t.restrict or (t.restrict_spec and t.ptr > 0) then info.qual = info.qual | q.restrict end
  info.ndim, info.dim0, info.dim1, info.dim2 = self:dims({ dims = t.dims, pos = d.pos }, true)
  if kind == "param" and info.ndim > 0 then
    if d.ptr > 0 then self:outside(d.pos, "an array of pointers", "arrays of int or double") end
    info.ptr = 1 -- an array parameter is a pointer that keeps its dims for indexing
  elseif info.ndim > 0 and d.ptr > 0 then
    self:outside(d.pos, "an array of pointers", "arrays of int or double")
  end
  return info
end

--- Flattens an initializer for the cells of an array (nested braces by
-- rows, for 3-D by planes and rows; a brace list starts at the next row or
-- plane boundary, scalars outside braces fill cells in order, as C's brace
-- elision).  out: the items by cell, false for a cell left 0; returns out
-- and the number of cells.
function L:init_items(init, info, out)
  if init.k ~= "list" then
    self:err(init.pos, "an array is initialized with a brace list")
  end
  local dims = { info.dim0, info.dim1, info.dim2 }
  local n = 1
  for l = 1, info.ndim do n = n * dims[l] end
  local WHAT = { [2] = { "row" }, [3] = { "plane", "row" } }
  -- list initializes the size cells from base; its elements are the
  -- sub-arrays of level lvl + 1 (cells of sub cells), scalars at the last
  local function fill(list, lvl, base, size)
    local sub = 1
    for l = lvl + 1, info.ndim do sub = sub * dims[l] end
    local at = base
    for _, item in ipairs(list.items) do
      if item.k == "list" then
        if lvl == info.ndim then self:err(item.pos, "braces around a scalar initializer") end
        local r = (at - base) % sub
        if r ~= 0 then at = at + sub - r end
        if at >= base + size then self:err(item.pos, "too many initializers for '%s'", info.name) end
        for _ = #out + 1, at do out[#out + 1] = false end
        fill(item, lvl + 1, at, sub)
        at = at + sub
      else
        if at >= base + size then
          if lvl == 1 then self:err(item.pos, "too many initializers for '%s'", info.name) end
          self:err(item.pos, "too many initializers for a %s of '%s'", WHAT[info.ndim][lvl - 1], info.name)
        end
        for _ = #out + 1, at do out[#out + 1] = false end
        out[at + 1] = item
        at = at + 1
      end
    end
  end
  fill(init, 1, 0, n)
  return out, n
end

--- A local declaration: symbols, and ASSIGN statements for initializers
-- (cells an initializer list leaves out are 0, as C says).
function L:local_decl(s)
  if s.k == "static_assert" then return end
  local q = s.spec.quals
  self:note_enums(s.spec)
  if q.typedef then return self:typedef_decl(s) end
  if q.static then self:outside(s.pos, "a static local variable", "locals live for one call") end
  if q.extern then self:outside(s.pos, "an extern declaration in a function", "one file") end
  local pragma = self:take_pragma(s.pos)
  for _, d in ipairs(s.decls) do
    if not d.name then
      if #d.ops > 0 or not (s.spec.members or s.spec.items or s.spec.tag) then
        self:err(d.pos, "a declaration without a name")
      end
      if s.spec.base == "struct" and s.spec.members then self:struct_type(s.spec) end
      goto next
    end
    local info = self:decl_info(s.spec, d, "local")
    if info.stype then
      self:struct_local(info, d, pragma)
      pragma = -1
      goto next
    end
    if info.ndim > 0 and info.dim0 == 0 and d.init and info.ndim == 1 and d.init.k == "list" then
      info.dim0 = #d.init.items
    end
    local id = self:new_sym(info)
    local alloc = d.init and info.ndim == 0 and info.ptr == 1 and d.init.k ~= "list" and self:heap_call(d.init)
    if alloc then -- p's scope begins before its initializer: `int *c = calloc(n, sizeof *c)`
      self:declare(d.name, id, d.pos)
      local lhs = { op = "var", ty = PTR_OF[info.base], pos = info.pos, sym = id,
        pconst = (info.qual & self.lay.qual.const) ~= 0 }
      self.posts_ok, self.posts = true, self:no_posts()
      self:alloc_stmt(lhs, d.init, info.pos, pragma)
      self:flush_posts()
      pragma = -1
      goto next
    end
    if d.init then
      self:local_init(info, d.init, pragma)
      pragma = -1
    elseif info.ndim > 0 and info.dim0 == 0 then
      self:outside(d.pos, "an array of unknown size", "locals have constant sizes")
    end
    self:declare(d.name, id, d.pos)
    ::next::
  end
  if pragma ~= -1 then self:err(s.pos, "#pragma cgwb before a declaration without an initializer") end
end

--- A local of struct type: a symbol per member; an initializer (a struct
-- of the same type, or a brace list of the members in order) becomes
-- member-wise assignments.
function L:struct_local(info, d, pragma)
  local ids = {}
  for j, m in ipairs(self:struct_leafs(info, "local")) do ids[j] = self:new_sym(m) end
  if d.init then
    local rec = { struct = true, name = info.name, stype = info.stype, ids = ids }
    if d.init.k == "list" then
      local items = d.init.items
      if #items > #ids then self:err(items[#ids + 1].pos, "too many initializers for '%s'", info.name) end
      for j, id in ipairs(ids) do
        local y = self.syms[id + 1]
        local x = items[j]
        if x and x.desig then self:outside(x.pos, "a designated initializer", "members in order") end
        if y.ndim > 0 then
          self:local_init(y, x or { k = "list", items = {}, pos = d.init.pos }, j == 1 and pragma or -1)
        else
          if x and x.k == "list" then self:err(x.pos, "braces around a scalar initializer") end
          if x then self:local_init(y, x, j == 1 and pragma or -1)
          else -- members an initializer leaves out are 0, as C says
            local zero = y.base == "int" and const_i(0, d.init.pos)
              or { op = "const_d", ty = "double", pos = d.init.pos, dval = 0.0 }
            self:assign({ op = "var", ty = y.base, pos = d.pos, sym = id }, zero, d.pos, j == 1 and pragma or -1)
          end
        end
      end
    else
      self:struct_copy(rec, d.init, d.pos, pragma)
    end
  end
  self:declare_struct(info, ids)
end

--- The struct value of expression e (a struct variable), as its record.
function L:struct_value(e, st, what)
  local src = e.k == "id" and self:lookup(e.name)
  if not (src and src.struct) then
    if e.k == "call" then
      self:outside(e.pos, "a struct returned by a call", "functions return void, int or double")
    end
    self:err(e.pos, "%s: a '%s' variable expected", what, self.struct_name(st))
  end
  if src.pointer then
    self:outside(e.pos, ("the pointer '%s' where a struct is passed by value"):format(src.name),
      "not yet supported: pass the pointer")
  end
  if src.stype ~= st then
    self:err(e.pos, "%s: '%s' is a '%s', not a '%s'", what, src.name, self.struct_name(src.stype), self.struct_name(st))
  end
  return src
end

--- dst = src for struct variable dst (a record) and expression e: an
-- assignment per member (per cell of an array member).
function L:struct_copy(dst, e, pos, pragma)
  local src = self:struct_value(e, dst.stype, "struct assignment")
  for j, id in ipairs(dst.ids) do
    local y, from = self.syms[id + 1], src.ids[j]
    self.syms[from + 1].used = true
    local function cell(sym, a, b)
      if not a then
        return { op = "var", ty = y.ptr == 1 and PTR_OF[y.base] or y.base, pos = pos, sym = sym,
          pconst = y.ptr == 1 and (y.qual & self.lay.qual.const) ~= 0 or nil }
      end
      return { op = "elem", ty = y.base, pos = pos, sym = sym, a = const_i(a, pos), b = b and const_i(b, pos) }
    end
    if y.ndim == 0 then
      self:assign(cell(id), cell(from), pos, pragma)
      pragma = -1
    else
      for a = 0, y.dim0 - 1 do
        for b = 0, (y.ndim == 2 and y.dim1 or 1) - 1 do
          local bb = y.ndim == 2 and b or nil
          self:assign(cell(id, a, bb), cell(from, a, bb), pos, pragma)
          pragma = -1
        end
      end
    end
  end
end

function L:local_init(info, init, pragma)
  if info.ndim == 0 then
    if init.k == "list" then self:err(init.pos, "braces around a scalar initializer") end
    self.posts_ok, self.posts = true, self:no_posts()
    local lhs = { op = "var", ty = info.base, pos = info.pos, sym = info.id }
    if info.ptr == 1 then lhs.ty, lhs.pconst = PTR_OF[info.base], (info.qual & self.lay.qual.const) ~= 0 end
    local rhs = self:assign_conv(lhs, self:rv(init), init.pos)
    self:assign(lhs, rhs, info.pos, pragma)
    self:flush_posts()
    return
  end
  local items, n = self:init_items(init, info, {})
  for c = 0, n - 1 do
    self.posts_ok, self.posts = true, self:no_posts()
    local x = items[c + 1]
    local rhs = (x and x.k ~= "zero") and self:convert_cell(self:rv(x), info.base, info.ct, x.pos)
      or (info.base == "int" and { op = "const_i", ty = "int", pos = init.pos, ival = 0 }
      or { op = "const_d", ty = "double", pos = init.pos, dval = 0.0 })
    local cell = { op = "elem", ty = info.base, pos = init.pos, sym = info.id }
    local dims, rest, stride = { info.dim0, info.dim1, info.dim2 }, c, 1
    for l = 2, info.ndim do stride = stride * dims[l] end
    for l, f in ipairs({ "a", "b", "c" }) do -- cell c's subscripts, one a dim
      if l > info.ndim then break end
      cell[f] = { op = "const_i", ty = "int", pos = init.pos, ival = rest // stride }
      rest = rest % stride
      if l < info.ndim then stride = stride // dims[l + 1] end
    end
    self:assign(cell, rhs, (x and x.pos) or init.pos, c == 0 and pragma or -1)
    self:flush_posts()
  end
end
-- }====

-- {==== statements ====}

function L:body(s)
  if s.k == "block" then
    self:push_scope()
    self:block_items(s.items)
    self:pop_scope()
  else
    self:push_scope() -- a lone statement is a block of its own (C99 6.8.4)
    self:statement(s)
    self:pop_scope()
  end
end

function L:s_if(s)
  local pragma = self:take_pragma(s.pos)
  local c = self:cond(s.c)
  local id = self:stmt("if", s.pos, { cond = self:emit(c) }, pragma)
  self.depth_pos = s.pos
  local t0, tn = self:in_slice(L.body, s.t)
  local e0, en = self:in_slice(function(me) if s.e then me:body(s.e) end end)
  self:set_part(id, "if", "then", t0, tn)
  self:set_part(id, "if", "else", e0, en)
end

--- A loop: cond hoists go to its pre slice, run before each test.
function L:loop(s, flag, cond, step, body)
  local pragma = self:take_pragma(s.pos)
  local cid = -1
  local p0, pn = self:in_slice(function(me)
    if cond then cid = me:emit(me:cond(cond)) end
  end)
  local id = self:stmt("loop", s.pos, { FLAGS = flag, cond = cid, pre = p0, pre_n = pn }, pragma)
  self.depth_pos = s.pos
  self.loops = self.loops + 1
  local b0, bn = self:in_slice(L.body, body)
  self.loops = self.loops - 1
  local s0, sn = self:in_slice(function(me) if step then me:effect(step, -1) end end)
  self:set_part(id, "loop", "body", b0, bn)
  self:set_part(id, "loop", "step", s0, sn)
  if s.lbreak then self:goto_loop_exit(s) end -- a goto leaving the loop around it too
end

function L:s_for(s)
  self:push_scope() -- a `for (int i ...)` has its own symbol per loop
  local at = self.pragma_at[s.pos]
  if at then self.pragma_at[s.pos] = nil end -- the pragma is the loop's, not the init's
  if s.init then
    if s.init.k == "decl" then self:local_decl(s.init) else self:effect(s.init, -1) end
  end
  self.pragma_at[s.pos] = at
  self:loop(s, self.lay.loop_kinds["for"], s.c or nil, s.step or nil, s.body)
  self:pop_scope()
end

-- The statements C99 has and the subset does not (goto and labels: goto.lua).
STMT_WHY = {}

function L:statement(s)
  local k = s.k
  if k == "block" then
    local pragma = self.pragma_at[s.pos]
    if pragma then self:err(pragma.pos, "#pragma cgwb before a block: put it on a statement") end
    return self:body(s)
  end
  if k == "expr" then return self:effect(s.e, self:take_pragma(s.pos), s.pos) end
  if k == "decl" then return self:local_decl(s) end
  if k == "if" then return self:s_if(s) end
  if k == "for" then return self:s_for(s) end
  if k == "while" then return self:loop(s, self.lay.loop_kinds["while"], s.c, nil, s.body) end
  if k == "do" then return self:loop(s, self.lay.loop_kinds["do"], s.c, nil, s.body) end
  if k == "switch" then return self:s_switch(s) end
  if k == "case" or k == "default" then
    if self.sw_depth == 0 then self:err(s.pos, "'%s' outside a switch", k) end
    self:outside(s.pos, ("a '%s' label inside a nested statement of its switch"):format(k),
      "labels directly in the switch's block")
  end
  if k == "break" and self.sw and self.sw.depth == self.loops then return self:switch_break(s) end
  if k == "break" or k == "continue" then
    if self.loops == 0 then
      self:err(s.pos, k == "break" and "'break' outside a loop or switch" or "'continue' outside a loop")
    end
    return self:stmt(k, s.pos, {}, self:take_pragma(s.pos))
  end
  if k == "return" then return self:s_return(s) end
  if k == "goto" then return self:s_goto(s) end
  if k == "label" then return self:s_label(s) end
  if k == "empty" then
    if self.pragma_at[s.pos] then self:err(s.pos, "#pragma cgwb before an empty statement") end
    return
  end
  if k == "refused" then self:outside(s.pos, s.what, "see doc/kernel-language.md") end
  if k == "static_assert" then return end
  local why = STMT_WHY[k]
  if why then self:outside(s.pos, why[1], why[2]) end
  self:err(s.pos, "unexpected statement")
end

function L:s_return(s)
  local pragma = self:take_pragma(s.pos)
  local ret = self.fn.ret
  if s.ret_temp ~= nil then -- the one return of a function whose early returns jump here
    if not s.ret_temp then return self:stmt("return", s.pos, {}, pragma) end
    return self:stmt("return", s.pos, { value = self:emit({ op = "var", ty = ret, pos = s.pos, sym = s.ret_temp }) }, pragma)
  end
  if not s.e then
    if ret ~= "void" then self:err(s.pos, "'return' without a value in a function returning %s", ret) end
    return self:stmt("return", s.pos, {}, pragma)
  end
  if ret == "void" then self:err(s.pos, "'return' with a value in a void function") end
  self.posts_ok, self.posts = true, self:no_posts()
  local v = self:convert(self:rv(s.e), ret, s.e.pos, "return value")
  if #self.posts > 0 then self:outside(s.e.pos, "a postfix ++ or -- in a return value", "it would not happen") end
  return self:stmt("return", s.pos, { value = self:emit(v) }, pragma)
end
-- }====

-- {==== file scope ====}

--- The signature of a function definition or prototype.
function L:signature(f)
  local spec = f.spec
  if f.rets then self:outside(f.pos, "a function returning a function or an array", "void, int or double") end
  local rt = self:subset_type(spec, nil)
  if f.ptr > 0 or rt.ptr > 0 then self:outside(f.pos, "a function returning a pointer", "void, int or double") end
  if #rt.dims > 0 then self:outside(f.pos, "a function returning an array", "void, int or double") end
  if spec.quals.const then self:err(spec.pos, "const on a function's return type") end
  if rt.ct then
    self:outside(f.pos, ("a function returning '%s'"):format(rt.ct), "functions return void, int or double")
  end
  if rt.stype then
    self:outside(f.pos, "a function returning a struct", "void, int or double: return the members through "
      .. "pointer parameters")
  end
  local params, sparams = {}, {}
  for i, p in ipairs(f.params) do
    if p.k == "refused" then self:outside(p.pos, p.what, "parameters are int, double and pointers to them") end
    local info = self:decl_info(p.spec, p.d, "param")
    if not p.d.name then
      if f.body then self:err(p.d.pos, "parameter %d of '%s' has no name", i, f.name) end
      info.name = "p" .. i
    end
    sparams[i] = info
    if info.stype then -- a struct by value: one parameter per member (scalarized)
      info.leafs = self:struct_leafs(info, "param")
      for _, m in ipairs(info.leafs) do params[#params + 1] = m end
    else
      params[#params + 1] = info
    end
  end
  return { name = f.name, ret = rt.base, params = params, sparams = sparams, pos = f.pos }
end

--- The leaf symbols' infos of struct variable info (name, stype, pos):
-- one per member, named "VAR.MEMBER", marked agg = {var, stype, member,
-- first}; a by-value parameter's members are scalars.
function L:struct_leafs(info, kind)
  local out = {}
  for j, m in ipairs(info.stype.members) do
    if info.pointer and m.ptr then -- a pointer member of *p: its value (read only: p->data[i])
      out[j] = { name = info.name .. "->" .. m.name, kind = kind, base = m.base, ptr = 1, ndim = 0, pos = info.pos,
        qual = m.const and self.lay.qual.const or 0,
        agg = { var = info.name, stype = info.stype, member = m.name, first = j == 1, arrow = true, pmember = true } }
      goto next_member
    end
    if info.pointer then -- S *p: each member a pointer into *p, a scalar one to its one cell
      local q = (info.const or m.const) and self.lay.qual.const or 0
      out[j] = { name = info.name .. "->" .. m.name, kind = kind, base = m.base, ptr = 1,
        ndim = m.ndim > 0 and m.ndim or 1, dim0 = m.ndim > 0 and m.dim0 or 1, dim1 = m.dim1, pos = info.pos, qual = q,
        agg = { var = info.name, stype = info.stype, member = m.name, first = j == 1, arrow = true,
          scalar = m.ndim == 0 } }
      goto next_member
    end
    if kind == "param" and m.ndim > 0 then
      self:outside(info.pos, ("the struct parameter '%s' with the array member '%s'"):format(info.name, m.name),
        "a struct passed by value has int and double members")
    end
    local q = (info.const or m.const) and self.lay.qual.const or 0
    if m.ptr then q = m.const and self.lay.qual.const or 0 end -- (what it points to)
    out[j] = { name = info.name .. "." .. m.name, kind = kind, base = m.base, ptr = m.ptr and 1 or 0, ndim = m.ndim,
      dim0 = m.dim0, dim1 = m.dim1, pos = info.pos, qual = q,
      agg = { var = info.name, stype = info.stype, member = m.name, first = j == 1 } }
    ::next_member::
  end
  return out
end

--- Declares struct variable info in the current scope: its record (what
-- lookup gives for its name: {struct = true, name, stype, members = {name
-- -> symbol id}, ids (in member order)}) and each leaf under "VAR.MEMBER".
function L:declare_struct(info, ids)
  local rec = { struct = true, name = info.name, stype = info.stype, kind = info.kind, members = {}, ids = ids,
    pos = info.pos, pointer = info.pointer, const = info.const }
  for j, m in ipairs(info.stype.members) do
    rec.members[m.name] = ids[j]
    self:declare(info.name .. (info.pointer and "->" or ".") .. m.name, ids[j], info.pos)
  end
  self:declare(info.name, rec, info.pos)
  return rec
end

local function same_sig(a, b)
  if a.ret ~= b.ret or #a.params ~= #b.params then return false end
  for i, p in ipairs(a.params) do
    local q = b.params[i]
    if p.base ~= q.base or p.ct ~= q.ct or p.ptr ~= q.ptr or p.ndim ~= q.ndim or p.dim1 ~= q.dim1
      or p.dim2 ~= q.dim2 then
      return false
    end
    if (p.agg and p.agg.stype) ~= (q.agg and q.agg.stype) then return false end
  end
  return true
end

function L:declare_func(f, sig)
  if self.scopes[1][f.name] then self:err(f.pos, "'%s' is a global variable", f.name) end
  if self.lay.intrinsics[f.name] then self:err(f.pos, "'%s' is a math.h function", f.name) end
  local old = self.funcs[f.name]
  if old then
    if not same_sig(old, sig) then self:err(f.pos, "'%s' declared again with another signature", f.name) end
    if old.defined and f.body then self:err(f.pos, "'%s' defined twice", f.name) end
    if f.body then old.params, old.sparams = sig.params, sig.sparams end
    return old
  end
  sig.id = self.def_ids[f.name]
  self.funcs[f.name] = sig
  return sig
end

function L:func(f)
  local sig = self:signature(f)
  local fn = self:declare_func(f, sig)
  if not f.body then return end
  if fn.id == nil then self:err(f.pos, "internal: function without an id") end
  fn.defined = true
  self.fn = { id = fn.id, ret = fn.ret, ntemp = 0 }
  self:realloc_scan(f.body)
  local sym0 = #self.syms
  self:push_scope()
  for _, sp in ipairs(fn.sparams) do
    if sp.stype then
      local ids = {}
      for j, p in ipairs(sp.leafs) do ids[j] = self:new_sym(p) end
      self:declare_struct(sp, ids)
    else
      sp.kind = "param"
      local id = self:new_sym(sp)
      if sp.name then self:declare(sp.name, id, sp.pos) end
    end
  end
  self.loops, self.depth, self.sw, self.sw_depth = 0, 0, nil, 0
  self.cur = {}
  self.posts_ok, self.posts = false, self:no_posts()
  -- the body's own block shares the parameters' scope (C99 6.2.1)
  self:early_returns(f.body, fn.ret)
  self:goto_plan(f.body)
  self:block_items(f.body.items)
  self.goto_labels = nil
  self:realloc_check()
  local b0, bn = self:slice(self.cur)
  self:pop_scope()
  local line, col = self:linecol(f.pos)
  self.frows[fn.id + 1] = { NAME = self:name(f.name), RET = self.lay.types[fn.ret], SYM0 = sym0,
    NSYM = #self.syms - sym0, NPARAM = #fn.params, BODY = b0, NBODY = bn, LINE = line, COL = col }
  self:write_syms(sym0)
  self.fn = nil
end

--- A global's constant initializer value (a literal, a sign, + - * / of
-- constants, a cast).
function L:const_value(e, base)
  local k = e.k
  if k == "num" then
    local t = self:rv_num(e)
    return t.op == "const_i" and t.ival or t.dval, t.ty
  end
  if k == "un" and (e.op == "-" or e.op == "+") then
    local v, ty = self:const_value(e.a, base)
    return e.op == "-" and -v or v, ty
  end
  if k == "id" and self.enums[e.name] then return self.enums[e.name], "int" end
  if k == "sizeof" then return self:sizeof_value(e), "int" end
  if k == "char" then return self:rv_char(e).ival, "int" end
  if k == "cast" then
    local t = self:subset_type(e.ty, e.ty.d)
    if t.ptr > 0 or #t.dims > 0 or t.base == "void" then
      self:outside(e.pos, "this cast in a global initializer", "casts to int or double")
    end
    local v = self:const_value(e.a, base)
    if t.ct == "_Bool" then return v ~= 0 and 1 or 0, "int" end
    if t.base == "int" then
      return self:ctype_wrap(t.ct, math.tointeger(v < 0 and math.ceil(v) or math.floor(v)) or 0), "int"
    end
    return v + 0.0, "double"
  end
  if k == "bin" and (e.op == "+" or e.op == "-" or e.op == "*" or e.op == "/") then
    local a, ta = self:const_value(e.a, base)
    local b, tb = self:const_value(e.b, base)
    if ta == "int" and tb == "int" then return self:const_int(e), "int" end
    a, b = a + 0.0, b + 0.0
    if e.op == "+" then return a + b, "double" elseif e.op == "-" then return a - b, "double"
    elseif e.op == "*" then return a * b, "double" else return a / b, "double" end
  end
  if k == "id" and (e.name == "INFINITY" or e.name == "HUGE_VAL") then return math.huge, "double" end
  if k == "id" and e.name == "NAN" then return -(0 / 0), "double" end
  self:outside(e.pos, "this global initializer", "constants only")
end

function L:global(s)
  for _, d in ipairs(s.decls) do
    local info = self:decl_info(s.spec, d, "global")
    if info.ptr == 1 then self:outside(d.pos, "a global pointer", "globals are int or double values") end
    if info.ndim == 1 and info.dim0 == 0 and d.init and d.init.k == "list" then info.dim0 = #d.init.items end
    if info.ndim > 0 and info.dim0 == 0 then self:outside(d.pos, "an array of unknown size", "sizes are constants") end
    local vals = {}
    if d.init then
      local items = info.ndim == 0 and { d.init } or self:init_items(d.init, info, {})
      if info.ndim == 0 and d.init.k == "list" then self:err(d.init.pos, "braces around a scalar initializer") end
      for i, x in ipairs(items) do
        local v, ty = 0, "int"
        if x and x.k ~= "zero" then v, ty = self:const_value(x, info.base) end
        if info.ct == "_Bool" and ty == "double" then v = v ~= 0 and 1 or 0 end
        local v0 = v
        if info.base == "int" then
          v = math.tointeger(v < 0 and math.ceil(v) or math.floor(v))
          if not v or v > 2147483647 or v < -2147483648 then self:err(x.pos, "constant overflows an int") end
          if ty == "double" and info.ct and self:ctype_wrap(info.ct, v) ~= v then
            self:err(x.pos, "the constant %.17g converted to %s: out of its range (undefined in C)", v0, info.ct)
          end
          v = self:ctype_wrap(info.ct, v) -- an int converts as a store does
        end
        vals[i] = v + 0.0
      end
    end
    info.init = #vals > 0 and #self.out.dconst or -1
    info.ninit = #vals
    for _, v in ipairs(vals) do self:dconst(v) end
    self.fn = { id = -1 }
    local id = self:new_sym(info)
    self.fn = nil
    if self.scopes[1][d.name] or self.funcs[d.name] then self:err(d.pos, "'%s' declared twice", d.name) end
    self:declare(d.name, id, d.pos)
    self:write_syms(id)
  end
end

--- The file scope's declarations, in file order (before any body is
-- lowered): typedefs, enum constants, globals, prototypes and the
-- signatures of definitions.  What is outside the subset is kept with its
-- refusal and reported only where a lowered function uses it.
function L:file_decls(tree)
  for _, top in ipairs(tree) do
    if top.k == "gdecl" then
      local spec = top.spec
      self:note_enums(spec)
      if spec.base == "struct" and spec.members and not spec.quals.typedef then
        local ok, e = pcall(self.struct_type, self, spec) -- its tag names it from here on
        if not ok and not lower.is_refusal(e) then error(e, 0) end
        if not ok and spec.tag then self.struct_tags[spec.tag] = { refused = e.msg } end
      end
      if spec.quals.typedef then self:typedef_decl(top)
      else
        for _, d in ipairs(top.decls) do
          local f = d.ops[1]
          if f and f.k == "func" and d.name then
            local np, rest = 0, nil
            for i = 2, #d.ops do
              if d.ops[i].k == "ptr" then np = np + 1 else rest = rest or d.ops[i] end
            end
            local proto = { k = "func", pos = d.pos, spec = spec, name = d.name, params = f.params, ptr = np,
              rets = rest }
            if not self.lay.intrinsics[d.name] then -- math.h's own prototypes
              local ok, e = pcall(function() self:declare_func(proto, self:signature(proto)) end)
              if not ok then
                if not errors.is(e, "input") then error(e, 0) end
                self.proto_refused[d.name] = e.msg
              end
            end
          elseif d.name then
            local ok, e = true, nil
            if spec.quals.extern and not d.init then
              ok, e = false, { msg = ("%s: the extern variable '%s' is outside the kernel subset (one file: its "
                .. "definition is elsewhere)"):format(self:where(d.pos), d.name) }
            else
              ok, e = pcall(self.global, self, { spec = spec, decls = { d } })
              if not ok and not lower.is_refusal(e) then error(e, 0) end
            end
            if not ok then self.bad_globals[d.name] = e.msg end
          end
        end
      end
    elseif top.k == "func" then
      local ok, e = pcall(function() self:declare_func(top, self:signature(top)) end)
      if not ok then
        if not lower.is_refusal(e) then error(e, 0) end
        self.left[top.name] = self.left[top.name] or e.msg
      end
    elseif top.k == "baddef" then
      self:err(top.pos, "a function body after a declarator that is not a function's")
    end
  end
end

-- The row counts of the output, to roll a function back to.
function L:mark()
  local o = self.out
  return { expr = #o.expr, stmt = #o.stmt, list = #o.list, args = #o.args, dconst = #o.dconst, names = #o.names,
    sym = #o.sym, syms = #self.syms }
end

local function truncate(arr, n)
  for i = #arr, n + 1, -1 do arr[i] = nil end
end

--- Removes what a function that failed to lower wrote (rows, names,
-- symbols), so nothing of it is left half-written.
function L:rollback(m)
  local o = self.out
  for i = m.names + 1, #o.names do self.name_ix[o.names[i]] = nil end
  for _, t in ipairs({ "expr", "stmt", "list", "args", "dconst", "names", "sym" }) do truncate(o[t], m[t]) end
  truncate(self.syms, m.syms)
  for id in pairs(o.aggs or {}) do
    if id >= m.syms then o.aggs[id] = nil end
  end
  self.expr_rows(m.expr // self.lay.width.expr)
  self.stmt_rows(m.stmt // self.lay.width.stmt)
  self.scopes = { self.scopes[1] }
  self.fn = nil
end

--- The order the definitions are lowered in: each after the functions it
-- calls (so a call of one left alone is known as such), else file order.
-- calls: the id nodes of called names (grammar.parse), each in the body
-- whose byte range holds it.
function L:lowering_order(defs, calls)
  local callees = {}
  for i, f in ipairs(defs) do callees[i] = {} end
  for _, c in ipairs(calls) do
    local lo, hi = 1, #defs -- the last body starting at or before the call
    if defs[1] and c.pos >= defs[1].from then
      while lo < hi do
        local mid = (lo + hi + 1) // 2
        if defs[mid].from <= c.pos then lo = mid else hi = mid - 1 end
      end
      if c.pos < defs[lo].to then callees[lo][c.name] = true end
    end
  end
  local index = {}
  for i, f in ipairs(defs) do index[f.top.name] = index[f.top.name] or i end
  local order, state = {}, {}
  local function visit(i)
    if state[i] then return end
    state[i] = "open"
    local names = {}
    for n in pairs(callees[i]) do names[#names + 1] = n end
    table.sort(names, function(a, b) return (index[a] or 0) < (index[b] or 0) end)
    for _, n in ipairs(names) do
      if index[n] then visit(index[n]) end
    end
    state[i] = "done"
    order[#order + 1] = i
  end
  for i = 1, #defs do visit(i) end
  return order, callees, index
end

--- Lowers a whole file's tree: every function definition in the subset;
-- the others are left alone (flat.left_alone).  opts.functions: names that,
-- with what they call, must be lowered.
function L:unit(tree, opts, calls)
  opts = opts or {}
  self.def_ids, self.frows = {}, {}
  self.typedefs, self.enums = self.typedefs or {}, self.enums or {}
  self.struct_tags = self.struct_tags or {}
  self.left, self.proto_refused, self.bad_globals = {}, {}, {}
  local defs = {}
  for i, top in ipairs(tree) do
    if top.k == "func" then
      local nxt = tree[i + 1]
      local to = nxt and (nxt.spec and nxt.spec.pos or nxt.pos) or #self.text + 1
      defs[#defs + 1] = { top = top, from = top.body.pos, to = to }
    end
  end
  if #defs == 0 then -- an empty file, or only declarations: nothing to analyse or differentiate
    local last = tree[#tree]
    local d1 = last and last.decls and last.decls[1]
    self:err(last and (d1 and d1.name and d1.pos or last.pos) or 1, "no function definition (a kernel is a file of C functions: "
      .. "doc/kernel-language.md)")
  end
  local n = 0
  for _, f in ipairs(defs) do
    if not self.def_ids[f.top.name] then
      self.def_ids[f.top.name] = n
      n = n + 1
    end
  end
  self.nhoist = 0
  self:file_decls(tree)
  local n_all = self:declare_externals(opts.externals, n) -- their ids after the definitions'
  local order, callees, index = self:lowering_order(defs, calls or {})
  local lowered = {}
  -- Each top-level tree is dropped once lowered: nothing reads it again,
  -- and the collector then neither keeps nor traces it (the syntax tree of
  -- a large kernel is most of the live heap during the lowering).
  for i = 1, #tree do tree[i] = false end
  for _, i in ipairs(order) do
    local f = defs[i]
    local top = f.top
    f.top = { name = top.name, pos = top.pos }
    if not self.left[top.name] then
      local m = self:mark()
      local ok, e = pcall(self.func, self, top)
      if not ok then
        if not lower.is_refusal(e) then error(e, 0) end
        self:rollback(m)
        self.funcs[top.name].defined = nil
        self.left[top.name] = e.msg
        for at, p in pairs(self.pragma_at) do -- its pragmas go with it
          if at >= f.from and at < f.to then p.used = true end
        end
      else
        lowered[i] = true
      end
    end
  end
  -- a function lowered before a function it calls (recursion) that was then left alone
  for i in pairs(lowered) do
    for name in pairs(callees[i]) do
      if self.left[name] then
        self:err(defs[i].top.pos, "'%s' calls '%s', which is left alone (%s)", defs[i].top.name, name, self.left[name])
      end
    end
  end
  self:check_functions(opts, defs, callees, index)
  self:external_rows()
  -- the functions' ids: file order among those lowered, then the externals
  local final, nf = {}, 0
  for i, f in ipairs(defs) do
    if lowered[i] then
      final[self.def_ids[f.top.name]] = nf
      nf = nf + 1
    end
  end
  local externals = {}
  for _, x in ipairs(self.ext_list) do
    final[x.fn.id] = nf
    externals[nf] = x.decl
    nf = nf + 1
  end
  if nf < n_all then self:renumber(final) end
  for old = 0, n_all - 1 do
    if final[old] then self:row("func", self.frows[old + 1]) end
  end
  if next(externals) then self.out.externals = externals end
  self:check_pragmas()
  local left = {}
  for _, f in ipairs(defs) do
    local why = self.left[f.top.name]
    if why and not left[f.top.name] and not self:in_system(f.top.pos) then -- the implementation's own: not listed
      left[f.top.name] = true
      local line, col = self:linecol(f.top.pos)
      left[#left + 1] = { name = f.top.name, line = line, col = col, why = why }
    end
  end
  for _, x in ipairs(left) do left[x.name] = nil end
  self.out.left_alone = left
  return self.out
end

--- opts.functions: each named function, and every function it reaches by
-- calls, must have been lowered; without it, at least one function must be.
function L:check_functions(opts, defs, callees, index)
  if opts.functions then
    local seen, queue = {}, {}
    for _, name in ipairs(opts.functions) do -- a name with no definition is the caller's to report
      queue[#queue + 1] = index[name]
    end
    local reach = {}
    while #queue > 0 do
      local i = table.remove(queue)
      if not seen[i] then
        seen[i] = true
        reach[#reach + 1] = i
        for name in pairs(callees[i]) do
          if index[name] then queue[#queue + 1] = index[name] end
        end
      end
    end
    table.sort(reach)
    for _, i in ipairs(reach) do
      local why = self.left[defs[i].top.name]
      if why then error(errors.input(why)) end
    end
  end
  for _, f in ipairs(defs) do
    if not self.left[f.top.name] then return end
  end
  error(errors.input(self.left[defs[1].top.name]))
end

--- Renumbers the functions (old id -> new id in final) in the rows written:
-- the FUNC of statements and symbols, the callee of calls.
function L:renumber(final)
  local lay, o = self.lay, self.out
  local ws, wy = lay.width.stmt, lay.width.sym
  local F, KIND = lay.stmt.FUNC, lay.stmt.KIND
  local callee = self.part_off and self.part_off.call and self.part_off.call.callee
  if not callee then
    for _, p in ipairs(lay.stmt_parts.call) do if p.name == "callee" then callee = p.offset end end
  end
  local call = lay.stmts.call
  for base = 0, #o.stmt - ws, ws do
    local old = o.stmt[base + F]
    if old >= 0 then o.stmt[base + F] = final[old] end
    if o.stmt[base + KIND] == call then o.stmt[base + callee] = final[o.stmt[base + callee]] end
  end
  local SF = lay.sym.FUNC
  for base = 0, #o.sym - wy, wy do
    local old = o.sym[base + SF]
    if old >= 0 then o.sym[base + SF] = final[old] end
  end
end
-- }====

return L
