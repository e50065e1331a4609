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
-- alias analysis (Utke, Flattening, sec. 4).  realloc is refused (not yet
-- supported).  Adds methods to the lowering object.
local lower = require "cgwb.kparse.lower"
local L = lower.L
local SIZE = require("cgwb.kparse.ctypes").SIZE

local PTR_OF = { double = "pdouble", int = "pint" }
local BASE_OF = { pdouble = "double", pint = "int" }
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
  if name == "realloc" then
    self:outside(call.pos, "a call of 'realloc'", "not yet supported: malloc a new block, copy, free the old one")
  end
  local base = BASE_OF[lhs.ty]
  if lhs.op ~= "var" or not base then
    self:outside(call.pos, ("the result of '%s' stored in this place"):format(name),
      "it is assigned to a pointer variable of its own")
  end
  if cast_base and cast_base ~= base then
    self:err(call.pos, "the result of '%s' cast to '%s *' assigned to '%s *'", name, cast_base, base)
  end
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
  local s = self.syms[lhs.sym + 1]
  local h = self:new_sym({ name = ("%s@%d"):format(s.name, (self:linecol(call.pos))), kind = "heap", base = base,
    ndim = 1, dim0 = 0, pos = call.pos })
  local block = { op = "addr", ty = PTR_OF[base], pos = call.pos, sym = h }
  return self:stmt("alloc", pos, { lhs = self:emit(lhs), count = self:emit(count), block = self:emit(block),
    FLAGS = name == "calloc" and self.lay.heap_zero or 0 }, pragma)
end

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
