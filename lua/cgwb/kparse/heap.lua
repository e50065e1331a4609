--- cgwb.kparse.heap: the C library's allocation calls -> ALLOC and FREE
-- statements (csrc/kernel/cg_kernel.h).  `p = malloc(bytes)`,
-- `p = calloc(count, size)` (casts of the result to p's own type or to
-- `void *` allowed; a declaration's initializer too: `double *h =
-- (double *) malloc(4 * n * sizeof(double));`, `int *c = calloc(n, sizeof
-- *c);`), and `free(p);` as a statement of its own.  The size becomes a
-- count of cells: bytes / sizeof(cell), read from the size expression's
-- factors (`n * sizeof(double)`, `sizeof *p * n`, a constant that the
-- cell size divides), else refused with its position.  Each allocation is
-- a site of its own, a HEAP symbol "<pointer>@<line>": the object of the
-- alias analysis (Utke, Flattening, sec. 4).  `p = realloc(p, bytes)` and
-- `q = realloc(p, bytes)` are lowered to these rows and a copy loop (below,
-- "realloc"); a realloc whose old count the function cannot know is
-- refused.  Adds methods to the lowering object.
local lower = require "cgwb.kparse.lower"
local L = lower.L
local SIZE = require("cgwb.kparse.ctypes").SIZE

local PTR_OF = { double = "pdouble", int = "pint" }
local BASE_OF = { pdouble = "double", pint = "int" }
local function var(sym, ty, pos) return { op = "var", ty = ty, pos = pos, sym = sym } end
local HEAP = { malloc = true, calloc = true, realloc = true, free = true }
-- the integer types a size may be cast to: their values are computed as ints
local INT_TYPES = { int = true, long = true, short = true, char = true }
local INT_TYPEDEFS = { size_t = true, ssize_t = true, ptrdiff_t = true }

--- The C library's allocation function a call tree e names ("malloc",
-- "calloc", "realloc", "free"), or nil (a function of the file's own of that
-- name, or a variable, is not it).
function L:heap_name(e)
  if e.k ~= "call" or e.f.k ~= "id" or not HEAP[e.f.name] then return nil end
  local name = e.f.name
  if self:lookup(name) then return nil end
  local f = self.funcs[name]
  if f and f.id then return nil end
  return name
end

-- A type name's pointer depth and base word ("void", "double", ...), read
-- from the syntax tree, or nil for a type that is not a plain pointer type.
local function pointer_cast(ty)
  local d = ty.d
  if not d or not d.shape or #d.dims > 0 then return nil end
  return d.ptr, ty.base
end

--- The call under casts of expression e, if it is one of the heap calls:
-- the call tree, its name, and the base type a pointer cast named (nil:
-- none or void *).
function L:heap_call(e)
  local cast_base, x = nil, e
  while x.k == "cast" do
    local ptr, base = pointer_cast(x.ty)
    if ptr ~= 1 or (base ~= "void" and base ~= "double" and base ~= "int") then
      local y = x
      while y.k == "cast" do y = y.a end
      if not self:heap_name(y) then return nil end
      self:outside(x.pos, "a cast of an allocation to this type", "a pointer to int or double, or void *")
    end
    if base ~= "void" then cast_base = cast_base or base end
    x = x.a
  end
  local name = self:heap_name(x)
  if not name then return nil end
  return x, name, cast_base
end

-- Whether a syntax tree is a cast to an integer type (size_t, unsigned, long).
function L:int_cast(x)
  if x.k ~= "cast" then return false end
  local ty = x.ty
  if ty.d and (not ty.d.shape or ty.d.ptr > 0 or #ty.d.dims > 0) then return false end
  if INT_TYPES[ty.base] then return true end
  return ty.base == "typedef" and INT_TYPEDEFS[ty.tname] == true
end

-- An int operand of a size: its tree (casts to integer types dropped).
function L:size_int(x, what)
  while self:int_cast(x) do x = x.a end
  local t = self:rv(x)
  if t.ty ~= "int" then
    self:outside(x.pos, ("a %s of %s"):format(what, t.ty == "double" and "type double" or "pointer type"),
      "sizes are ints")
  end
  return t
end

--- The cells of byte size e for cells of esize bytes: the tree of the
-- product of e's factors but one sizeof of esize, or e's constant value
-- divided by esize; nil when neither reads.
function L:size_cells(e, esize, what)
  local x = e
  while self:int_cast(x) do x = x.a end
  if x.k == "sizeof" then
    local v = self:sizeof_value(x)
    if v == esize then return { op = "const_i", ty = "int", pos = x.pos, ival = 1 } end
    if v % esize == 0 then return { op = "const_i", ty = "int", pos = x.pos, ival = v // esize } end
    return nil
  end
  if x.k == "bin" and x.op == "*" then
    local function has_sizeof(y)
      while self:int_cast(y) do y = y.a end
      if y.k == "sizeof" then return self:sizeof_value(y) % esize == 0 end
      return y.k == "bin" and y.op == "*" and (has_sizeof(y.a) or has_sizeof(y.b))
    end
    local a, b
    if has_sizeof(x.a) then a, b = self:size_cells(x.a, esize, what), self:size_int(x.b, what)
    elseif has_sizeof(x.b) then a, b = self:size_int(x.a, what), self:size_cells(x.b, esize, what) end
    local function one(t) return t.op == "const_i" and t.ival == 1 end
    if a and b then
      if one(a) then return b end
      if one(b) then return a end
      return self:rv_bin_trees(a, b, "*", x.pos)
    end
  end
  local ok, v = pcall(self.ice, self, x)
  if ok and math.type(v) == "integer" then
    if v % esize ~= 0 then
      self:outside(e.pos, ("a %s of %d bytes for cells of %d"):format(what, v, esize),
        "the size must be a whole number of cells")
    end
    return { op = "const_i", ty = "int", pos = e.pos, ival = v // esize }
  end
  return nil
end

-- The count in cells of an allocation's size (bytes), or a refusal.
function L:alloc_cells(e, base, what)
  local c = self:size_cells(e, SIZE[base], what)
  local function a_sizeof(x) -- the first sizeof factor of a product
    while self:int_cast(x) do x = x.a end
    if x.k == "sizeof" then return x end
    if x.k == "bin" and x.op == "*" then return a_sizeof(x.a) or a_sizeof(x.b) end
  end
  local z = not c and a_sizeof(e)
  if z then
    self:outside(z.pos, ("a %s counted in sizeof of %d bytes"):format(what, self:sizeof_value(z)),
      ("the cells are %s, %d bytes each"):format(base, SIZE[base]))
  end
  if not c then
    self:outside(e.pos, ("this %s"):format(what),
      ("the size must read as a count times sizeof(%s), e.g. n * sizeof(%s) or n * sizeof *p"):format(base, base))
  end
  return c
end

--- lhs = [casts] malloc(...) / calloc(...): an ALLOC statement; lhs a
-- typed tree (the pointer variable), e the call tree, pos the statement's.
function L:alloc_stmt(lhs, e, pos, pragma)
  local call, name, cast_base = self:heap_call(e)
  if name == "free" then self:err(call.pos, "'free' has no value") end
  local base = BASE_OF[lhs.ty]
  if lhs.op ~= "var" or not base then
    self:outside(call.pos, ("the result of '%s' stored in this place"):format(name),
      "it is assigned to a pointer variable of its own")
  end
  if cast_base and cast_base ~= base then
    self:err(call.pos, "the result of '%s' cast to '%s *' assigned to '%s *'", name, cast_base, base)
  end
  if name == "realloc" then return self:realloc_stmt(lhs, call, base, pos, pragma) end
  local nargs = name == "malloc" and 1 or 2
  if #call.args ~= nargs then
    self:err(call.pos, "'%s' takes %d argument%s, not %d", name, nargs, nargs == 1 and "" or "s", #call.args)
  end
  local count
  if name == "malloc" then
    count = self:alloc_cells(call.args[1], base, "size of 'malloc'")
  else
    local n = self:size_int(call.args[1], "count of 'calloc'")
    local size = self:alloc_cells(call.args[2], base, "size of 'calloc'")
    count = (size.op == "const_i" and size.ival == 1) and n or self:rv_bin_trees(n, size, "*", call.pos)
  end
  local cells = self:cells_of(lhs.sym, call.pos)
  if cells then -- a pointer reallocated in the function: its block's count kept
    self:assign(var(cells, "int", pos), count, pos)
    count = var(cells, "int", pos)
    self.fn.heap.allocd[lhs.sym] = true
  end
  return self:alloc_row(lhs, count, call.pos, base, pos, pragma, name == "calloc")
end

-- The ALLOC row lhs = a new block of count cells, the site "<pointer>@<line>".
function L:alloc_row(lhs, count, cpos, base, pos, pragma, zero, site)
  local s = self.syms[(site or lhs.sym) + 1]
  local h = self:new_sym({ name = ("%s@%d"):format(s.name, (self:linecol(cpos))), kind = "heap", base = base,
    ndim = 1, dim0 = 0, pos = cpos })
  local block = { op = "addr", ty = PTR_OF[base], pos = cpos, sym = h }
  return self:stmt("alloc", pos, { lhs = self:emit(lhs), count = self:emit(count), block = self:emit(block),
    FLAGS = zero and self.lay.heap_zero or 0 }, pragma)
end

-- {==== realloc ====}
-- `q = realloc(p, bytes)` becomes the rows the subset has: a new block of
-- its own site, a copy of min(old, new) cells, free(p), q = the new block.
-- The old count is a hidden int "<pointer>@cells" per pointer reallocated
-- in the function, set at each of its allocations; a pointer whose block
-- the function did not allocate (a parameter, one also assigned otherwise)
-- has no known count: refused.

-- The names realloc's first argument has in a function body (syntax tree).
local function realloc_names(node, set)
  if node.k == "call" and node.f and node.f.k == "id" and node.f.name == "realloc" and node.args[1] then
    local a = node.args[1]
    while a.k == "cast" do a = a.a end
    if a.k == "id" then set[a.name] = true end
  end
  for _, v in pairs(node) do
    if type(v) == "table" then realloc_names(v, set) end
  end
end

-- Whether the text names realloc outside system headers (<stdlib.h>'s
-- prototype is no use of it).
function L:names_realloc()
  local i = 1
  while true do
    local a = self.text:find("realloc", i, true)
    if not a then return false end
    if not self:in_system(a) then return true end
    i = a + 7
  end
end

--- Before a function body is lowered: which pointer names are reallocated
-- (their allocations keep a count); nothing when the text has no realloc.
function L:realloc_scan(body)
  if self.no_realloc == nil then self.no_realloc = not self:names_realloc() end
  if self.no_realloc then return end
  local names = {}
  realloc_names(body, names)
  if not next(names) then return end
  -- counts: sym -> its count symbol; allocd: syms a malloc or calloc assigns;
  -- from: sym -> {syms realloc'd into it}; uses: the reallocs {sym, pos}
  self.fn.heap = { names = names, counts = {}, allocd = {}, from = {}, uses = {} }
  self.fn.ptr_writes = {} -- sym -> where another assignment writes it first (L:assign)
end

--- The count symbol of pointer sym, made at its first use (nil for a
-- pointer whose name no realloc takes, unless any: realloc's result).
function L:cells_of(sym, pos, any)
  local hp = self.fn.heap
  if not hp then return nil end
  local c = hp.counts[sym]
  if c then return c end
  local s = self.syms[sym + 1]
  if not (any or hp.names[s.name]) then return nil end
  c = self:new_sym({ name = s.name .. "@cells", kind = "temp", base = "int", pos = pos })
  hp.counts[sym] = c
  return c
end

--- After the body: every pointer reallocated was allocated in the function
-- and assigned only by allocations.
function L:realloc_check()
  local hp = self.fn.heap
  if not hp then return end
  for _, u in ipairs(hp.uses) do
    local name = self.syms[u.sym + 1].name
    local w = self.fn.ptr_writes[u.sym]
    if w then
      self:outside(u.pos, ("a realloc of '%s'"):format(name), ("'%s' is also assigned at line %d, not by an "
        .. "allocation: the cells of its block are unknown"):format(name, (self:linecol(w))))
    end
    if not self:realloc_known(u.sym, {}) then
      self:outside(u.pos, ("a realloc of '%s'"):format(name), ("no malloc, calloc or realloc of this function "
        .. "assigns '%s': the cells of its block are unknown"):format(name))
    end
  end
end

-- Whether pointer sym's count is known: a malloc or calloc assigns it, or
-- a realloc of another pointer whose count is known.
function L:realloc_known(sym, seen)
  local hp = self.fn.heap
  if hp.allocd[sym] then return true end
  seen[sym] = true
  for src in pairs(hp.from[sym] or {}) do
    if not seen[src] and self:realloc_known(src, seen) then return true end
  end
  return false
end

-- The pointer argument of realloc: a pointer variable of lhs's type.
function L:realloc_src(x, lhs, cpos)
  while x.k == "cast" do
    local ptr = pointer_cast(x.ty)
    if ptr ~= 1 then break end
    x = x.a
  end
  if (x.k == "num" and tonumber(x.text) == 0) or (x.k == "id" and x.name == "NULL") then
    self:outside(cpos, "a realloc of a null pointer", "allocate with malloc") -- (NULL's expansion: no place)
  end
  local t = self:rv(x)
  if not BASE_OF[t.ty] then self:err(x.pos, "'realloc' of %s, not a pointer", t.ty) end
  if t.op ~= "var" then
    self:outside(x.pos, "a realloc of a pointer expression", "its argument is a pointer variable that malloc, "
      .. "calloc or realloc assigned")
  end
  if t.ty ~= lhs.ty or not self:same_pointee(t, lhs) then
    self:err(x.pos, "the result of 'realloc' of '%s' assigned to '%s'", self:type_name(t), self:type_name(lhs))
  end
  local s = self.syms[t.sym + 1]
  if s.kind == "param" then
    self:outside(x.pos, ("a realloc of the parameter '%s'"):format(s.name),
      "the caller's block: its cells are unknown to the function")
  end
  return t
end

--- lhs = realloc(p, bytes): t = a new block (a site of its own); its first
-- min(old, new) cells copied from p's; free(p); lhs = t; the counts kept.
function L:realloc_stmt(lhs, call, base, pos, pragma)
  if #call.args ~= 2 then self:err(call.pos, "'realloc' takes 2 arguments, not %d", #call.args) end
  local src = self:realloc_src(call.args[1], lhs, call.pos)
  local count = self:alloc_cells(call.args[2], base, "size of 'realloc'")
  if count.op == "const_i" and count.ival <= 0 then
    self:outside(call.args[2].pos, "a realloc to 0 bytes", "whether it frees the block is the C library's "
      .. "choice: call free")
  end
  local old = self:cells_of(src.sym, call.pos)
  if not old then -- L:realloc_scan saw no name: a struct's member
    self:outside(call.args[1].pos, "a realloc of a struct's member", "the count of a block is kept for pointer "
      .. "variables only")
  end
  local hp = self.fn.heap
  hp.uses[#hp.uses + 1] = { sym = src.sym, pos = call.args[1].pos }
  local n = self:temp("int", pos)
  self:assign(var(n, "int", pos), count, pos)
  local t = self:temp(lhs.ty, pos, lhs)
  local tv = { op = "var", ty = lhs.ty, pos = pos, sym = t }
  self:alloc_row(tv, var(n, "int", pos), call.pos, base, pos, pragma, false, lhs.sym)
  local keep = { op = "cond", ty = "int", pos = pos, a = { op = "lt", ty = "int", pos = pos,
    a = var(old, "int", pos), b = var(n, "int", pos) }, b = var(old, "int", pos), c = var(n, "int", pos) }
  self:counted_loop(pos, keep, function(i)
    self:assign({ op = "elem", ty = base, pos = pos, sym = t, a = i },
      { op = "elem", ty = base, pos = src.pos, sym = src.sym, a = lower.copy(i) }, pos) -- (a use after free: here)
  end)
  self:stmt("free", pos, { ptr = self:emit(src) })
  local w = self.fn.ptr_writes
  local before = w[lhs.sym]
  self:assign(lhs, tv, pos)
  w[lhs.sym] = before -- (an allocation's own assignment)
  local cells = self:cells_of(lhs.sym, pos, true)
  self:assign(var(cells, "int", pos), var(n, "int", pos), pos)
  local from = hp.from[lhs.sym] or {}
  hp.from[lhs.sym] = from
  from[src.sym] = true
end
-- }====

--- free(p); as a statement: a FREE.
function L:free_stmt(e, pos, pragma)
  if #e.args ~= 1 then self:err(e.pos, "'free' takes 1 argument, not %d", #e.args) end
  local x = e.args[1]
  while x.k == "cast" do -- free((void *) p)
    local ptr = pointer_cast(x.ty)
    if ptr ~= 1 then break end
    x = x.a
  end
  local t = self:rv(x)
  if not BASE_OF[t.ty] then self:err(x.pos, "'free' of %s, not a pointer", t.ty) end
  return self:stmt("free", pos, { ptr = self:emit(t) }, pragma)
end

--- A heap call where no statement takes it (inside an expression): refused.
function L:heap_elsewhere(e, name)
  if name == "free" then self:err(e.pos, "'free' has no value") end
  self:outside(e.pos, ("a call of '%s' inside an expression"):format(name),
    ("its result is assigned to a pointer variable: p = %s(...)"):format(name))
end

return L
