--- cgwb.kparse.expr: expressions of the syntax tree -> typed side-effect
-- free trees (C1), hoisting into statements what has an effect: calls of
-- the file's functions (C3, C4), assignments, ++ and --.  Adds methods to
-- the lowering object of cgwb.kparse.lower.
local lower = require "cgwb.kparse.lower"
local L = lower.L
local copy = lower.copy

local PTR_OF = { double = "pdouble", int = "pint" }
local BASE_OF = { pdouble = "double", pint = "int" }
local PP_BASE = { ppdouble = "double", ppint = "int" } -- a double ** or int ** parameter's value
local function is_ptr(ty) return BASE_OF[ty] ~= nil end
local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end

-- the bitwise operators of ints: the IR's operators
local BITOP = { ["&"] = "band", ["|"] = "bor", ["^"] = "bxor", ["<<"] = "shl", [">>"] = "shr" }
local ARITH = { ["+"] = "add", ["-"] = "sub", ["*"] = "mul", ["/"] = "div", ["%"] = "mod" }
local CMP = { ["<"] = "lt", ["<="] = "le", [">"] = "gt", [">="] = "ge", ["=="] = "eq", ["!="] = "ne" }
-- The math.h constants inlined as double constants (C5).
local MATH_CONST = { INFINITY = math.huge, HUGE_VAL = math.huge, NAN = 0 / 0 }

-- {==== names ====}

--- The value of a name: a scalar, a pointer, or a decayed array.
function L:rv_id(e)
  local s = self:lookup(e.name)
  if not s then
    if MATH_CONST[e.name] then
      local v = MATH_CONST[e.name]
      if v ~= v then v = -(0 / 0) end -- the C library's NAN has the sign bit clear
      return { op = "const_d", ty = "double", pos = e.pos, dval = v }
    end
    if self.enums[e.name] then return const_i(self.enums[e.name], e.pos) end
    if self.funcs[e.name] or self.lay.intrinsics[e.name] or self.left[e.name] then
      self:outside(e.pos, ("the function '%s' used as a value"):format(e.name), "no function pointers")
    end
    self:unknown_id(e)
  end
  if s.struct then
    self:err(e.pos, "the struct %s'%s' used as a value (its members are values: %s%s%s)", s.pointer and "pointer " or "",
      s.name, s.name, s.pointer and "->" or ".", s.stype.members[1].name)
  end
  self:mark_read(s)
  if s.ndim > 0 and s.ptr == 0 then -- an array decays to the address of its first cell
    return { op = "addr", ty = PTR_OF[s.base], pos = e.pos, sym = s.id, pconst = self:sym_const(s),
      dim1 = s.ndim >= 2 and s.dim1 or nil, dim2 = s.ndim == 3 and s.dim2 or nil }
  end
  if s.ptr == 2 then -- only a row load L:load_row consumes it (L:emit refuses any other use)
    return { op = "var", ty = "p" .. PTR_OF[s.base], pos = e.pos, sym = s.id, pconst = self:sym_const(s) }
  end
  if s.ptr == 1 then
    return { op = "var", ty = PTR_OF[s.base], pos = e.pos, sym = s.id, pconst = self:sym_const(s),
      dim1 = s.ndim >= 2 and s.dim1 or nil, dim2 = s.ndim == 3 and s.dim2 or nil }
  end
  return { op = "var", ty = s.base, pos = e.pos, sym = s.id }
end

--- A member access `s.m` (`p->m`) as the name of its leaf symbol: an id
-- node {k = "id", name = "s.m"} (a struct variable's members are symbols
-- of their own, cgwb.kparse.stmt's L:declare_struct).
function L:member_id(e)
  local a = e.a
  local op = e.arrow and "->" or "."
  local deref = not e.arrow and a.k == "un" and a.op == "*" and a.a.k == "id" -- (*p).x
  if deref then a = a.a end
  if a.k ~= "id" then
    if a.k == "index" then
      self:outside(e.pos, "an array of structs", "struct variables, one struct each")
    end
    self:err(e.pos, "'%s%s' needs a struct variable on its left", op, e.name)
  end
  local s = self:lookup(a.name)
  if not s then self:unknown_id(a) end
  if not s.struct then
    self:err(e.pos, "'%s' is not a struct: '%s%s' needs one", a.name, op, e.name)
  end
  local arrow = e.arrow or deref
  if arrow and not s.pointer then
    self:err(e.pos, "'%s' is a struct, not a pointer to one: write %s.%s", a.name, a.name, e.name)
  end
  if not arrow and s.pointer then
    self:err(e.pos, "'%s' is a pointer to a struct: write %s->%s", a.name, a.name, e.name)
  end
  if not s.members[e.name] then
    self:err(e.pos, "'%s' has no member '%s'", self.struct_name(s.stype), e.name)
  end
  local id = { k = "id", name = a.name .. (arrow and "->" or ".") .. e.name, pos = e.pos }
  if arrow and self.syms[s.members[e.name] + 1].agg.scalar then -- p->x: the one cell of the member's pointer
    return { k = "index", pos = e.pos, a = id, i = { k = "num", text = "0", pos = e.pos } }
  end
  return id
end

--- The error for a name with no symbol: a global outside the subset says
-- why it is (at its declaration), any other is unknown.
function L:unknown_id(e)
  local bad = self.bad_globals[e.name]
  if bad then
    self:outside(e.pos, ("the global '%s'"):format(e.name), (bad:gsub("^.-:%d+:%d+: ", "declared at "
      .. bad:match("^(.-:%d+:%d+):") .. ": ")))
  end
  self:err(e.pos, "unknown identifier '%s'", e.name)
end

-- A global is read-only: treat what it holds as const.
function L:sym_const(s)
  return s.kind == "global" or (s.qual & self.lay.qual.const) ~= 0
end

function L:mark_read(s) s.used = true end
-- }====

-- {==== subscripts and dereferences ====}
-- A pointer tree to the rows of a 2-D array (or to the planes of a 3-D
-- one) keeps their shape: dim1 (and dim2), the dims after the first of a
-- parameter that would take it (`double (*)[4]` has dim1 4, `double
-- (*)[4][5]` dim1 4 and dim2 5); a plain pointer has neither.

local SUBS = { "a", "b", "c" } -- the tree fields of subscripts 1, 2, 3

-- The shape a pointer to the first cell of the sub-array of symbol s after
-- m of its subscripts has (the dims after m + 1): dim1, dim2 or nil.
local function rest_shape(s, m)
  local dims = { s.dim0, s.dim1, s.dim2 }
  return dims[m + 2] and m + 2 <= s.ndim and dims[m + 2] or nil, m + 3 <= s.ndim and dims[m + 3] or nil
end

--- The cell of tree p (a pointer) plus int offset k (nil: 0): an ELEM tree,
-- or VAR for `*&x`.  Pointers that are not a symbol plus offsets are first
-- copied into a pointer temporary.
function L:deref(p, k, pos)
  if PP_BASE[p.ty] then return self:load_row(p, k or const_i(0, pos), pos) end
  local function add(sub)
    if not k then return sub end
    if sub.op == "const_i" and sub.ival == 0 then return k end
    return { op = "add", ty = "int", pos = k.pos, a = sub, b = k }
  end
  if p.dim1 then
    self:outside(pos, p.dim2 and "a pointer to planes of a 3-D array used as a plain pointer"
      or "a pointer to rows of a 2-D array used as a plain pointer", p.dim2 and "index it: a[i][j][k]" or "index it: a[i][j]")
  end
  if p.op == "var" then
    return { op = "elem", ty = BASE_OF[p.ty], pos = pos, sym = p.sym, a = add(const_i(0, pos)) }
  end
  if p.op == "addr" then
    local s = self.syms[p.sym + 1]
    if not p.a then
      if s.ndim == 0 and s.ptr == 0 then
        if k then self:outside(pos, "pointer arithmetic on the address of a scalar", "no cells beside it") end
        return { op = "var", ty = s.base, pos = pos, sym = s.id }
      end
      return { op = "elem", ty = s.base, pos = pos, sym = s.id, a = add(const_i(0, pos)) }
    end
    -- a row (&a[i][j] of 3-D, &a[i] of 2-D) or a cell: the cell k further
    -- along the last dim (subscripts past the address's are 0)
    local r = { op = "elem", ty = s.base, pos = pos, sym = s.id }
    local nd = math.max(s.ndim, 1)
    for l = 1, nd do r[SUBS[l]] = p[SUBS[l]] or const_i(0, pos) end
    r[SUBS[nd]] = add(r[SUBS[nd]])
    return r
  end
  if p.op == "ptradd" then
    return self:deref(p.a, k and { op = "add", ty = "int", pos = k.pos, a = p.b, b = k } or p.b, pos)
  end
  local t = self:temp(p.ty, pos, p)
  self:assign({ op = "var", ty = p.ty, pos = pos, sym = t }, p, pos)
  return { op = "elem", ty = BASE_OF[p.ty], pos = pos, sym = t, a = k or const_i(0, pos) }
end

--- Row k of pointer-to-pointers tree p (the parameter's VAR): a load into
-- a fresh pointer temporary, `t = A[k]` (C1: no pointer cell is read
-- inside a tree), whose VAR is the value (`row`: not assignable).
function L:load_row(p, k, pos)
  if p.op ~= "var" then
    self:outside(pos, "arithmetic on a pointer to pointers", "only its rows are read: not yet supported")
  end
  local ty = PTR_OF[PP_BASE[p.ty]]
  local t = self:temp(ty, pos, p)
  self.syms[t + 1].row = self.syms[p.sym + 1].name -- (for messages)
  self:assign({ op = "var", ty = ty, pos = pos, sym = t }, { op = "elem", ty = ty, pos = pos, sym = p.sym, a = k }, pos)
  return { op = "var", ty = ty, pos = pos, sym = t, pconst = p.pconst, row = self.syms[p.sym + 1].name }
end

function L:index_int(e)
  local i = self:rv(e)
  if i.ty ~= "int" then self:err(e.pos, "an array subscript must be an int, not %s", i.ty) end
  return i
end

--- `x[i]`, `x[i][j]` and `x[i][j][k]`: the ELEM tree with one subscript a
-- dim, or the address of a row or plane for fewer (`a[i]` of a 2-D array,
-- `a[i]` and `a[i][j]` of a 3-D one: the value of a row or plane is the
-- address of its first cell).
function L:index(e)
  local subs, base = {}, e
  while base.k == "index" do
    table.insert(subs, 1, base.i)
    base = base.a
  end
  if base.k == "member" then -- s.v[i], p->w[i][j]: the member's own symbol
    base = self:member_id(base)
    if base.k ~= "id" then self:err(e.pos, "subscripted value is not an array or pointer") end -- p->x, a scalar
  end
  if base.k == "id" then
    local s = self:lookup(base.name)
    if s and (s.ndim > 0 or s.ptr == 1) and #subs <= math.max(s.ndim, 1) then
      self:mark_read(s)
      local r = { op = "elem", ty = s.base, pos = e.pos, sym = s.id }
      for l, x in ipairs(subs) do r[SUBS[l]] = self:index_int(x) end
      if #subs < s.ndim then
        r.op, r.ty, r.pconst = "addr", PTR_OF[s.base], self:sym_const(s)
        r.dim1, r.dim2 = rest_shape(s, #subs)
      end
      return r
    end
    if s and #subs == 1 and not (s.ndim > 0 or s.ptr >= 1) then
      self:err(e.pos, "'%s' is not an array or pointer", s.name)
    end
  end
  local inner = e.a
  local p = self:rv(inner)
  if not is_ptr(p.ty) and not PP_BASE[p.ty] then self:err(e.pos, "subscripted value is not an array or pointer") end
  return self:deref(p, self:index_int(e.i), e.pos)
end
-- }====

-- {==== operators ====}

--- Brings two arithmetic operands to a common type (usual conversions).
function L:common(a, b)
  if a.ty == b.ty then return a, b, a.ty end
  return self:convert(a, "double"), self:convert(b, "double"), "double"
end

function L:rv_bin(e)
  local op = e.op
  if BITOP[op] then return self:bit_op(self:rv(e.a), self:rv(e.b), op, e.pos) end
  if op == "&&" or op == "||" then
    local a = self:truth(self:rv(e.a), e.pos)
    local b = self:guarded(e.b, e.pos, op)
    return { op = op == "&&" and "and" or "or", ty = "int", pos = e.pos, a = a, b = self:truth(b, e.pos) }
  end
  local a, b = self:rv(e.a), self:rv(e.b)
  local aty, bty = a.ty, b.ty
  if (op == "+" or op == "-") and (BASE_OF[aty] or BASE_OF[bty]) then return self:ptr_arith(a, b, op, e.pos) end
  if CMP[op] and (BASE_OF[aty] or BASE_OF[bty] or aty == "null" or bty == "null") then
    return self:ptr_compare(a, b, op, e.pos)
  end
  -- the checks and conversions called only where they have work (this
  -- runs for every binary operator)
  if aty ~= "int" and aty ~= "double" then self:arith(a, e.pos, "", op) end
  if bty ~= "int" and bty ~= "double" then self:arith(b, e.pos, "", op) end
  local ty = aty
  if aty ~= bty then a, b, ty = self:common(a, b) end
  if CMP[op] then return { op = CMP[op], ty = "int", pos = e.pos, a = a, b = b } end
  if op == "%" and ty ~= "int" then self:err(e.pos, "'%%' needs int operands, not double") end
  local r = { op = ARITH[op], ty = ty, pos = e.pos, a = a, b = b }
  if ty == "int" then r.cval = self:int_const(op, a, b, e.pos) end
  return r
end

-- The value of an int constant expression a op b (C's int: 32 bits, the
-- quotient truncated), or nil when an operand is no constant; an overflow
-- or a division by zero is an error, as the compiler warns (the address
-- y[65536 * 65536 + 1] wraps in C).
local INT_MIN, INT_MAX = -2147483648, 2147483647
local function cval(x) return x.op == "const_i" and x.ival or x.cval end
function L:int_const(op, a, b, pos)
  local u, v = cval(a), b and cval(b)
  if u == nil or (b and v == nil) then return nil end
  local r
  if not b then r = -u
  elseif op == "+" then r = u + v
  elseif op == "-" then r = u - v
  elseif op == "*" then r = u * v
  else
    if v == 0 then self:err(pos, "division by zero in an integer constant expression") end
    r = (u // v) + ((u % v ~= 0 and (u < 0) ~= (v < 0)) and 1 or 0) -- C truncates toward zero
    if op == "%" then r = u - r * v end
  end
  if r < INT_MIN or r > INT_MAX then
    self:err(pos, "integer overflow in a constant expression: %s is outside int",
      b and ("%d %s %d"):format(u, op, v) or ("-(%d)"):format(u))
  end
  return r
end

--- a op b of the int bitwise operator op (& | ^ << >>), folded when both
-- are constants (a shift C leaves undefined is then an error, as gcc warns).
function L:bit_op(a, b, op, pos)
  for _, x in ipairs { a, b } do
    if x.ty ~= "int" then self:err(pos, "'%s' needs int operands, not %s", op, self:type_name(x)) end
  end
  local r = { op = BITOP[op], ty = "int", pos = pos, a = a, b = b }
  local u, v = cval(a), cval(b)
  if u and v then
    if op == "&" then r.cval = u & v elseif op == "|" then r.cval = u | v elseif op == "^" then r.cval = u ~ v
    else
      if v < 0 or v > 31 then self:err(pos, "a shift by %d in a constant expression (an int shifts by 0..31)", v) end
      if op == ">>" then r.cval = u // (1 << v) -- arithmetic, as gcc's
      else
        if u < 0 or u * (1 << v) > INT_MAX then
          self:err(pos, "integer overflow in a constant expression: %d << %d is outside int", u, v)
        end
        r.cval = u << v
      end
    end
  end
  return r
end

--- A comparison of pointers a and b (one may be a null pointer constant,
-- converted to the other's type; C99 6.5.8, 6.5.9).
function L:ptr_compare(a, b, op, pos)
  a, b = self:null_to(a, b), self:null_to(b, a)
  if not is_ptr(a.ty) or not is_ptr(b.ty) then
    if is_ptr(a.ty) or is_ptr(b.ty) then
      self:err(pos, "'%s' between a pointer and %s", op, self:type_name(is_ptr(a.ty) and b or a))
    end
    self:outside(pos, "a comparison of two null pointer constants", "its value is known: write it")
  end
  if not self:same_pointee(a, b) or a.dim1 ~= b.dim1 or a.dim2 ~= b.dim2 then
    self:err(pos, "'%s' between %s and %s (pointers to different types)", op, self:type_name(a), self:type_name(b))
  end
  if op ~= "==" and op ~= "!=" and (a.op == "null" or b.op == "null") then
    self:err(pos, "'%s' with NULL (an order is defined only within one object)", op)
  end
  return { op = CMP[op], ty = "int", pos = pos, a = a, b = b }
end

--- p + k, k + p, p - k: PTRADD (p - k is PTRADD(p, -k)); p - q: PTRDIFF.
function L:ptr_arith(a, b, op, pos)
  if is_ptr(a.ty) and is_ptr(b.ty) then
    if op ~= "-" then self:err(pos, "'+' of two pointers") end
    if not self:same_pointee(a, b) or a.dim1 ~= b.dim1 or a.dim2 ~= b.dim2 then
      self:err(pos, "the difference of %s and %s (pointers to different types)", self:type_name(a), self:type_name(b))
    end
    if a.dim1 then
      self:outside(pos, "the difference of pointers to rows of an array", "index it: a[i][j]")
    end
    return { op = "ptrdiff", ty = "int", pos = pos, a = a, b = b } -- C's ptrdiff_t, here an int
  end
  if is_ptr(b.ty) then
    if op == "-" then self:err(pos, "int minus pointer") end
    a, b = b, a
  end
  if b.ty ~= "int" then self:err(pos, "a pointer moves by an int, not %s", b.ty) end
  if a.dim1 then
    self:outside(pos, a.dim2 and "arithmetic on a pointer to planes of a 3-D array"
      or "arithmetic on a pointer to rows of a 2-D array", "index it: a[i][j]")
  end
  if op == "-" then b = { op = "neg", ty = "int", pos = b.pos, a = b } end
  return { op = "ptradd", ty = a.ty, pos = pos, a = a, b = b, pconst = a.pconst }
end

--- Lowers the conditionally evaluated operand of && || ?: ; it must not
-- need a hoisted statement (C evaluates it only sometimes).
function L:guarded(e, pos, op)
  local n0, p0 = self.nhoist, #self.posts
  local t = self:rv(e)
  if self.nhoist ~= n0 or #self.posts ~= p0 then
    self:outside(pos, ("a call or side effect in an operand of '%s'"):format(op),
      "it would be evaluated unconditionally once hoisted")
  end
  return t
end

function L:rv_un(e)
  local op = e.op
  if op == "pre++" or op == "pre--" then
    local lv = self:lvalue(e.a)
    self:incdec(lv, op:sub(4, 4), e.pos)
    return copy(lv)
  end
  if op == "&" then return self:addr_of(e.a, e.pos) end
  if op == "__real__" or op == "__imag__" then self:outside(e.pos, ("'%s'"):format(op), "complex types are not yet supported") end
  if op == "*" then
    local p = self:rv(e.a)
    if not is_ptr(p.ty) and not PP_BASE[p.ty] then self:err(e.pos, "'*' needs a pointer, not %s", p.ty) end
    return self:deref(p, nil, e.pos)
  end
  local a = self:rv(e.a)
  if op == "~" then
    if a.ty ~= "int" then self:err(e.pos, "'~' needs an int operand, not %s", self:type_name(a)) end
    local u = cval(a)
    return { op = "bnot", ty = "int", pos = e.pos, a = a, cval = u and ~u }
  end
  if op == "!" then
    if is_ptr(a.ty) then return { op = "eq", ty = "int", pos = e.pos, a = a, b = self:null_like(a, e.pos) } end
    if a.ty == "double" then
      local zero = { op = "const_d", ty = "double", pos = e.pos, dval = 0.0 }
      return { op = "eq", ty = "int", pos = e.pos, a = a, b = zero }
    end
    return { op = "not", ty = "int", pos = e.pos, a = self:truth(a, e.pos) }
  end
  self:arith(a, e.pos, "unary ", op)
  if op == "+" then return a end
  local r = { op = "neg", ty = a.ty, pos = e.pos, a = a }
  if a.ty == "int" then r.cval = self:int_const("-", a, nil, e.pos) end
  return r
end

--- &x, &a[i], &a[i][j], &p[i], &*p.
function L:addr_of(e, pos)
  if e.k == "member" then e = self:member_id(e) end
  if e.k == "id" then
    local s = self:lookup(e.name)
    if not s then self:unknown_id(e) end
    if s.struct then
      self:outside(pos, ("the address of the struct '%s'"):format(s.name), "struct variables are passed by value")
    end
    if s.ndim > 0 or s.ptr >= 1 then
      self:outside(pos, ("the address of %s '%s'"):format(s.ptr >= 1 and "pointer" or "array", s.name),
        "no pointers to pointers or to arrays")
    end
    s.qual = s.qual | self.lay.qual.addr
    return { op = "addr", ty = PTR_OF[s.base], pos = pos, sym = s.id, pconst = self:sym_const(s) }
  end
  if e.k == "un" and e.op == "*" then
    local p = self:rv(e.a)
    if not is_ptr(p.ty) then self:err(pos, "'*' needs a pointer, not %s", p.ty) end
    return p
  end
  if e.k == "index" then
    local c = self:index(e)
    if c.op == "elem" then
      local s = self.syms[c.sym + 1]
      return { op = "addr", ty = PTR_OF[s.base], pos = pos, sym = c.sym, a = c.a, b = c.b, c = c.c,
        pconst = self:sym_const(s) }
    end
  end
  self:outside(pos, "taking the address of an expression", "only of a variable or an array cell")
end

function L:rv_cond(e)
  local c = self:truth(self:rv(e.c), e.pos)
  local a = self:guarded(e.a, e.pos, "?:")
  local b = self:guarded(e.b, e.pos, "?:")
  a, b = self:null_to(a, b), self:null_to(b, a)
  if is_ptr(a.ty) or is_ptr(b.ty) then
    if not self:same_pointee(a, b) or a.dim1 ~= b.dim1 or a.dim2 ~= b.dim2 then
      self:err(e.pos, "the branches of '?:' have different types")
    end
    return { op = "cond", ty = a.ty, pos = e.pos, a = c, b = a, c = b, pconst = a.pconst or b.pconst }
  end
  local ty
  a, b, ty = self:common(a, b)
  return { op = "cond", ty = ty, pos = e.pos, a = c, b = a, c = b }
end

--- A cast to a type name: (int), (double), or a pointer's own type
-- (`(double *)p`, `(const double *)p`).
function L:rv_cast(e)
  local t = self:subset_type(e.ty, e.ty.d)
  if #t.dims > 0 then self:err(e.pos, "a cast to an array type") end
  local a = self:rv(e.a)
  if t.base == "void" then
    if t.ptr == 1 and L.is_null_const(a) then return { op = "null", ty = "null", pos = e.pos } end -- NULL: ((void *)0)
    self:outside(e.pos, t.ptr > 0 and "a cast to 'void *'" or "a cast to void", "casts to int, double or a pointer's own type")
  end
  if t.ptr == 0 then
    if is_ptr(a.ty) then self:outside(e.pos, "a cast of a pointer", "only between arithmetic types") end
    if t.ct then -- (char)x: converted to char, promoted back to int
      local r = a.ty == "int" and { op = "cast", ty = "int", pos = e.pos, a = a } or self:convert(a, "int", e.pos)
      r.ival = self.lay.ctypes[t.ct]
      return r
    end
    return self:convert(a, t.base, e.pos)
  end
  if t.ptr > 1 then self:outside(e.pos, "a cast to a pointer to a pointer", "one level of pointers") end
  if L.is_null_const(a) then return self:null_like({ ty = PTR_OF[t.base], ct = t.ct }, e.pos) end -- (double *)0
  if a.ty ~= PTR_OF[t.base] or self:pointee(a) ~= t.ct then
    self:outside(e.pos, ("a cast of %s to '%s *'"):format(is_ptr(a.ty) and "a pointer of another type" or "a number",
      t.ct or t.base), "a pointer is cast only to its own type")
  end
  if a.pconst and not t.const then self:outside(e.pos, "a cast that drops const", "read-only cells stay read-only") end
  local r = copy(a)
  if t.const then r.pconst = true end
  return r
end

-- Expression kinds C99 has and the subset does not: what, why.
local EXPR_WHY = { str = { "a string literal", "numbers and character constants only" },
  member = { "a struct member access", "struct types are not yet supported" },
  comma = { "the comma operator", "one expression per statement" },
  compound = { "a compound literal", "arrays are declared" },
  stmtexpr = { "a statement expression", "a GNU extension" },
  va_arg = { "'__builtin_va_arg'", "variadic functions are not supported" },
  offsetof = { "'__builtin_offsetof'", "sizes are known constants" },
  generic = { "'_Generic'", "not yet supported" }, alignof = { "'_Alignof'", "not yet supported" } }

--- The two commonest numerals read directly (a fast path beside the
-- general one of L:rv_num, which spec/18 checks it against): a decimal int
-- without a leading 0 of at most 9 digits (always an int) and d.d.
-- Returns "int" or "double" and the value, or nil for any other numeral.
function lower.quick_number(s)
  if s:find("^[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$") then return "int", math.tointeger(tonumber(s)) end
  if s:find("^%d+%.%d+$") then return "double", tonumber(s) end
end
lower.use_quick_numbers = true -- false: every numeral takes the general path

-- The simple escapes of a character constant (C99 6.4.4.4).
local ESC = { n = 10, t = 9, r = 13, ["0"] = 0, a = 7, b = 8, f = 12, v = 11, ["\\"] = 92, ["'"] = 39,
  ['"'] = 34, ["?"] = 63 }

--- A character constant 'c': an int (C99 6.4.4.4), its value a char's
-- (plain char is signed: '\xff' is -1, as gcc's); one character or escape,
-- no prefix.
function L:rv_char(e)
  local why = "one character or escape, no L, u or U prefix"
  local body = e.text:match("^'(.*)'$")
  if not body then self:outside(e.pos, ("the character constant %s"):format(e.text), why) end
  local v
  if body:sub(1, 1) ~= "\\" then
    if #body == 1 then v = body:byte() end
  elseif body:find("^\\x%x+$") then v = tonumber(body:sub(3), 16)
  elseif body:find("^\\[0-7][0-7]?[0-7]?$") then v = tonumber(body:sub(2), 8)
  elseif #body == 2 then v = ESC[body:sub(2)] end
  if not v or v > 255 then
    self:outside(e.pos, ("the character constant %s"):format(e.text), why)
  end
  return const_i(self:ctype_wrap("char", v), e.pos)
end

function L:rv_num(e)
  local s = e.text
  local kind, v = nil, nil
  if lower.use_quick_numbers then kind, v = lower.quick_number(s) end
  if kind == "int" then return const_i(v, e.pos) end
  if kind == "double" then return { op = "const_d", ty = "double", pos = e.pos, dval = v } end
  local body, suffix = s:match("^(0[xX][%x%.]+[pP][+-]?%d+)(.*)$")
  if not body then body, suffix = s:match("^(0[xX]%x+)(.*)$") end
  if not body then body, suffix = s:match("^([%d%.]+[eE][+-]?%d+)(.*)$") end
  if not body then body, suffix = s:match("^([%d%.]+)(.*)$") end
  if suffix ~= "" then
    self:outside(e.pos, ("the constant suffix '%s'"):format(suffix), "float, long and unsigned constants")
  end
  if body:find("[%.eEpP]") and not body:find("^0[xX]%x+$") then
    return { op = "const_d", ty = "double", pos = e.pos, dval = tonumber(body) }
  end
  local v
  if body:find("^0[xX]") then v = tonumber(body:sub(3), 16)
  elseif body:find("^0%d") then
    if body:find("[89]") then self:err(e.pos, "invalid octal constant '%s'", body) end
    v = tonumber(body, 8)
  else v = math.tointeger(tonumber(body)) end
  if not v or v > 2147483647 then
    self:outside(e.pos, ("the constant %s"):format(body), "larger than an int")
  end
  return const_i(v, e.pos)
end
-- }====

-- {==== calls ====}

--- The arguments of a call, converted to the callee's parameters.
function L:call_args(f, e)
  if not f.id then self:outside(e.pos, ("a call of '%s'"):format(f.name), "it has no definition in the file; an external function is declared with its derivatives by --externals") end
  local sp = f.sparams or f.params
  if #e.args ~= #sp then
    self:err(e.pos, "'%s' takes %d argument%s, not %d", f.name, #sp, #sp == 1 and "" or "s",
      #e.args)
  end
  local out = {}
  for i, a in ipairs(e.args) do
    local p = sp[i]
    if p.ptr == 2 then -- a pointer to pointers passed on as it is: the callee reads its rows
      local src = a.k == "id" and self:lookup(a.name)
      local pt = (p.ct or p.base) .. " **"
      if not (src and src.ptr == 2 and not src.struct) then
        self:outside(a.pos, ("argument %d of '%s', a %s, that is not a %s parameter"):format(i, f.name, pt, pt),
          "a pointer to pointers is a parameter, passed on as it is")
      end
      if src.base ~= p.base or src.ct ~= p.ct then
        self:err(a.pos, "argument %d of '%s' must be %s, not %s **", i, f.name, pt, src.ct or src.base)
      end
      if (src.qual & self.lay.qual.const) ~= 0 and (p.qual & self.lay.qual.const) == 0 then
        self:err(a.pos, "argument %d of '%s' points to read-only cells, the parameter is not const", i, f.name)
      end
      self:mark_read(src)
      out[#out + 1] = { op = "var", ty = "p" .. PTR_OF[src.base], pos = a.pos, sym = src.id, pass = true }
      goto next_arg
    end
    if p.stype and p.pointer then -- S *q: a pointer to a struct (p) or the address of one (&s)
      local what = ("argument %d of '%s'"):format(i, f.name)
      local src = a.k == "id" and self:lookup(a.name)
      local addr = a.k == "un" and a.op == "&" and a.a.k == "id" and self:lookup(a.a.name)
      local rec = (src and src.struct and src.pointer and src) or (addr and addr.struct and not addr.pointer and addr)
      if not rec then self:err(a.pos, "%s: a pointer to a '%s' expected", what, self.struct_name(p.stype)) end
      if rec.stype ~= p.stype then
        self:err(a.pos, "%s: '%s' is a '%s', not a '%s'", what, rec.name, self.struct_name(rec.stype),
          self.struct_name(p.stype))
      end
      if rec.pointer and rec.const and not p.const then
        self:err(a.pos, "%s points to a const struct, the parameter is not const", what)
      end
      for _, id in ipairs(rec.ids) do
        local y = self.syms[id + 1]
        self:mark_read(y)
        local ty = PTR_OF[y.base]
        if rec.pointer then out[#out + 1] = { op = "var", ty = ty, pos = a.pos, sym = id }
        elseif y.ptr == 1 then
          self:outside(a.pos, ("the address of '%s', a struct with the pointer member '%s'"):format(rec.name,
            y.agg.member), "not yet supported: pass the struct by value")
        else
          if y.ndim == 0 then y.qual = y.qual | self.lay.qual.addr end
          out[#out + 1] = { op = "addr", ty = ty, pos = a.pos, sym = id }
        end
      end
      goto next_arg
    end
    if p.stype then -- a struct by value: its members, in order
      local src = self:struct_value(a, p.stype, ("argument %d of '%s'"):format(i, f.name))
      for _, id in ipairs(src.ids) do
        local y = self.syms[id + 1]
        self:mark_read(y)
        local pc = y.ptr == 1 and (y.qual & self.lay.qual.const) ~= 0
        local py = f.params[#out + 1]
        if pc and (py.qual & self.lay.qual.const) == 0 then
          self:err(a.pos, "argument %d of '%s': the member '%s' points to const cells", i, f.name, y.agg.member)
        end
        out[#out + 1] = { op = "var", ty = y.ptr == 1 and PTR_OF[y.base] or y.base, pos = a.pos, sym = id }
      end
      goto next_arg
    end
    local t = self:rv(a)
    if p.ptr == 1 then
      local want = PTR_OF[p.base]
      t = self:null_to(t, { ty = want, ct = p.ct, op = "null", dim1 = p.ndim >= 2 and p.dim1 or nil,
        dim2 = p.ndim == 3 and p.dim2 or nil })
      if t.ty ~= want or self:pointee(t) ~= p.ct then
        self:err(a.pos, "argument %d of '%s' must be %s *, not %s", i, f.name, p.ct or p.base, self:type_name(t))
      end
      local pdim1, pdim2 = p.ndim >= 2 and p.dim1 or nil, p.ndim == 3 and p.dim2 or nil
      if t.dim1 ~= pdim1 or t.dim2 ~= pdim2 then
        local function shape(d1, d2)
          if d2 then return ("planes of %dx%d cells"):format(d1, d2) end
          return d1 and ("rows of %d cells"):format(d1) or "no rows"
        end
        if not t.dim2 and not pdim2 then
          self:err(a.pos, "argument %d of '%s': rows of %s cells expected, not %s", i, f.name,
            tostring(pdim1 or "no"), tostring(t.dim1 or "no"))
        end
        self:err(a.pos, "argument %d of '%s': %s expected, not %s", i, f.name, shape(pdim1, pdim2),
          shape(t.dim1, t.dim2))
      end
      if t.pconst and (p.qual & self.lay.qual.const) == 0 then
        self:err(a.pos, "argument %d of '%s' points to read-only cells, the parameter is not const", i, f.name)
      end
    else
      if is_ptr(t.ty) then self:err(a.pos, "argument %d of '%s' must be %s, not a pointer", i, f.name, p.base) end
      t = self:convert_cell(t, p.base, p.ct, a.pos)
    end
    out[#out + 1] = t
    ::next_arg::
  end
  return out
end

--- Emits a CALL statement; lhs a VAR/ELEM tree or nil.
function L:emit_call(f, args, lhs, pos, pragma)
  local first = #self.out.args
  local ids = {}
  for i, a in ipairs(args) do ids[i] = self:emit(a) end
  for i, id in ipairs(ids) do self.out.args[first + i] = id end
  return self:stmt("call", pos, { callee = f.id, args = first, args_n = #args, lhs = lhs and self:emit(lhs) or -1 }, pragma)
end

function L:rv_call(e, void_ok)
  if e.f.k ~= "id" then self:outside(e.pos, "a call through an expression", "no function pointers") end
  local name = e.f.name
  if self:lookup(name) then self:err(e.pos, "'%s' is a variable, not a function", name) end
  local hn = self:heap_name(e)
  if hn then self:heap_elsewhere(e, hn) end
  if self.LIBC[name] and not self.funcs[name] then return self:libc_call(e, void_ok) end
  if self.PASSIVE[name] and not (self.funcs[name] and self.funcs[name].id) then
    return self:passive_call(e, name, void_ok)
  end
  local icode = self.lay.intrinsics[name]
  if icode then
    local ar = self.lay.arity[name]
    if #e.args ~= ar then
      self:err(e.pos, "'%s' takes %d argument%s, not %d", name, ar, ar == 1 and "" or "s", #e.args)
    end
    local a = {}
    for i, x in ipairs(e.args) do
      local t = self:rv(x)
      if is_ptr(t.ty) then self:err(x.pos, "argument %d of '%s' must be double, not a pointer", i, name) end
      a[i] = self:convert(t, "double", x.pos)
    end
    return { op = "intrin", ty = "double", pos = e.pos, sym = icode, a = a[1], b = a[2] }
  end
  if self.left[name] then
    self:outside(e.pos, ("a call of '%s'"):format(name), ("'%s' is left alone: %s"):format(name, self.left[name]))
  end
  local f = self.funcs[name]
  local stem, fl = name:match("^(.+)([fl])$")
  if not f and stem and self.lay.intrinsics[stem] then -- sqrtf, expl: the float and long double math functions
    self:outside(e.pos, ("a call of '%s'"):format(name), ("%s is not yet supported; '%s' is, in double"):format(
      fl == "f" and "float" or "long double", stem))
  end
  if not f and self.proto_refused[name] then
    self:outside(e.pos, ("a call of '%s'"):format(name), "it has no definition in the file")
  end
  if not f then
    for _, a in ipairs(e.args) do -- printf("%g", x) without its prototype: the literal says more
      if EXPR_WHY[a.k] then self:outside(a.pos, EXPR_WHY[a.k][1], EXPR_WHY[a.k][2]) end
    end
    self:err(e.pos, "unknown function '%s'", name)
  end
  local args = self:call_args(f, e)
  if f.ret == "void" then
    if not void_ok then self:err(e.pos, "the void function '%s' used as a value", name) end
    self:emit_call(f, args, nil, e.pos)
    return nil
  end
  local t = self:temp(f.ret, e.pos)
  self:emit_call(f, args, { op = "var", ty = f.ret, pos = e.pos, sym = t }, e.pos)
  return { op = "var", ty = f.ret, pos = e.pos, sym = t }
end
-- }====

-- {==== assignments ====}

--- An lvalue: a VAR (scalar or pointer variable) or an ELEM tree.
function L:lvalue(e)
  local t
  if e.k == "member" then e = self:member_id(e) end
  if e.k == "id" then
    local s = self:lookup(e.name)
    if not s then self:unknown_id(e) end
    if s.struct then self:err(e.pos, "a struct is assigned by a statement of its own: %s = ...;", s.name) end
    if s.agg and s.agg.pmember then
      self:outside(e.pos, ("a write to the pointer member '%s'"):format(s.name), "a pointer member of *p is read only")
    end
    if s.ndim > 0 and s.ptr == 0 then self:err(e.pos, "the array '%s' cannot be assigned", s.name) end
    if s.ptr == 2 then
      self:outside(e.pos, ("an assignment to the pointer to pointers '%s'"):format(s.name),
        "its rows are read, never stored or moved: not yet supported")
    end
    if s.kind == "global" then
      self:outside(e.pos, ("a write to the global '%s'"):format(s.name), "globals are read-only")
    end
    if s.ptr == 0 and (s.qual & self.lay.qual.const) ~= 0 then
      self:err(e.pos, "'%s' is const", s.name)
    end
    t = self:rv_id(e)
  elseif e.k == "index" or (e.k == "un" and e.op == "*") then
    t = e.k == "index" and self:index(e) or self:rv_un(e)
    if t.op ~= "elem" and t.op ~= "var" then self:err(e.pos, "not assignable") end
    if t.row then
      self:outside(e.pos, ("a store into a row pointer of '%s'"):format(t.row),
        "the rows of a pointer to pointers are read, never stored: not yet supported")
    end
  else
    self:err(e.pos, "the left side of an assignment must be a variable or an array cell")
  end
  if t.op == "elem" or (t.op == "var" and e.k ~= "id") then
    local s = self.syms[t.sym + 1]
    if s.kind == "global" then
      self:outside(e.pos, ("a write to the global '%s'"):format(s.name), "globals are read-only")
    end
    if t.op == "elem" and (s.qual & self.lay.qual.const) ~= 0 then
      if s.row then self:err(e.pos, "the rows of '%s' point to const cells", s.row) end -- a row's temporary
      self:err(e.pos, "'%s' points to const cells", s.name)
    end
  end
  return t
end

--- x = x + 1 (or p = p + 1 for a pointer) for ++ and --.
function L:incdec(lv, op, pos)
  if lv.ty == "double" then
    self:outside(pos, ("'%s%s' on a double"):format(op, op), "++ and -- are for ints and pointers")
  end
  local one = const_i(1, pos)
  local rhs
  if is_ptr(lv.ty) then
    rhs = { op = "ptradd", ty = lv.ty, pos = pos, a = copy(lv),
      b = op == "+" and one or { op = "neg", ty = "int", pos = pos, a = one } }
  else
    rhs = { op = op == "+" and "add" or "sub", ty = "int", pos = pos, a = copy(lv), b = one }
  end
  self:assign(lv, rhs, pos)
end

--- Converts rhs to the type of lhs (assignment conversion).
function L:assign_conv(lhs, rhs, pos)
  rhs = self:null_to(rhs, lhs)
  if is_ptr(lhs.ty) or is_ptr(rhs.ty) then
    if not self:same_pointee(lhs, rhs) then
      self:err(pos, "cannot assign %s to %s", self:type_name(rhs), self:type_name(lhs))
    end
    if rhs.dim1 ~= lhs.dim1 or rhs.dim2 ~= lhs.dim2 then
      self:outside(pos, (rhs.dim2 or lhs.dim2) and "a pointer to planes of a 3-D array assigned"
        or "a pointer to rows of a 2-D array assigned", "index it: a[i][j]")
    end
    if rhs.pconst and not lhs.pconst then
      self:err(pos, "a pointer to read-only cells assigned to a pointer that is not const")
    end
    return rhs
  end
  local s = (lhs.op == "var" or lhs.op == "elem") and lhs.sym and self.syms[lhs.sym + 1]
  return self:convert_cell(rhs, lhs.ty, s and s.ct, pos)
end

--- An assignment expression: hoisted as a statement; its value is the
-- left side afterwards.  op is = += -= *= /= %=.
function L:do_assign(e)
  return copy(self:assign_stmt(e))
end

--- The statement of assignment e; returns its left side's tree (no copy:
-- a statement's value is not used).
function L:assign_stmt(e, pragma, spos)
  local dst = e.lhs.k == "id" and self:lookup(e.lhs.name)
  if dst and dst.struct then
    if e.op ~= "=" then self:err(e.pos, "'%s' on a struct", e.op) end
    if not spos then self:err(e.pos, "a struct assignment used as a value") end
    self:struct_copy(dst, e.rhs, spos, pragma)
    return nil
  end
  local lhs = self:lvalue(e.lhs)
  local rhs
  if e.op == "=" and (e.rhs.k == "call" or e.rhs.k == "cast") and self:heap_call(e.rhs) then
    self:alloc_stmt(lhs, e.rhs, spos or e.pos, pragma) -- p = malloc(...): an ALLOC
    return lhs
  end
  if e.op == "=" and e.rhs.k == "call" and not self.lay.intrinsics[e.rhs.f.name or ""]
      and self.funcs[e.rhs.f.name or ""] and not self:lookup(e.rhs.f.name or "")
      and self.funcs[e.rhs.f.name].ret == lhs.ty then
    -- v = f(...): the call writes v directly (C3)
    local f = self.funcs[e.rhs.f.name]
    self:emit_call(f, self:call_args(f, e.rhs), lhs, spos or e.pos, pragma)
    return lhs
  end
  rhs = self:rv(e.rhs)
  if e.op ~= "=" then
    local op = e.op:sub(1, -2) -- "<<=": "<<"
    rhs = self:rv_bin_trees(copy(lhs), rhs, op, e.pos)
  end
  self:assign(lhs, self:assign_conv(lhs, rhs, e.pos), spos or e.pos, pragma)
  return lhs
end

--- a op b for two trees (compound assignment).
function L:rv_bin_trees(a, b, op, pos)
  if (op == "+" or op == "-") and is_ptr(a.ty) then return self:ptr_arith(a, b, op, pos) end
  if BITOP[op] then return self:bit_op(a, b, op, pos) end
  self:arith(a, pos, "", op, "=")
  self:arith(b, pos, "", op, "=")
  local ty
  a, b, ty = self:common(a, b)
  if op == "%" and ty ~= "int" then self:err(pos, "'%%=' needs int operands, not double") end
  return { op = ARITH[op], ty = ty, pos = pos, a = a, b = b }
end
-- }====

--- The value of expression e as a side-effect-free tree; effects are
-- hoisted into statements before it (postfix ++/-- after the statement, or
-- through a temporary where there is no "after": conditions).
function L:rv(e)
  local k = e.k
  if k == "num" then return self:rv_num(e) end
  if k == "id" then return self:rv_id(e) end
  if k == "bin" then return self:rv_bin(e) end
  if k == "un" then return self:rv_un(e) end
  if k == "index" then return self:index(e) end
  if k == "cond" then return self:rv_cond(e) end
  if k == "cast" then return self:rv_cast(e) end
  if k == "call" then return self:rv_call(e) end
  if k == "assign" then return self:do_assign(e) end
  if k == "sizeof" then return const_i(self:sizeof_value(e), e.pos) end
  if k == "char" then return self:rv_char(e) end
  if k == "member" then return self:rv(self:member_id(e)) end
  local why = EXPR_WHY[k]
  if why then self:outside(e.pos, why[1], why[2]) end
  if k == "post" then
    local lv = self:lvalue(e.a)
    if lv.ty == "double" then
      self:outside(e.pos, ("'%s%s' on a double"):format(e.op, e.op), "++ and -- are for ints and pointers")
    end
    if self.posts_ok then
      self.posts[#self.posts + 1] = { lv = lv, op = e.op:sub(1, 1), pos = e.pos }
      return copy(lv)
    end
    local t = self:temp(lv.ty, e.pos, lv)
    local tv = { op = "var", ty = lv.ty, pos = e.pos, sym = t, pconst = lv.pconst }
    self:assign(tv, copy(lv), e.pos)
    self:incdec(lv, e.op:sub(1, 1), e.pos)
    return copy(tv)
  end
  self:err(e.pos or 1, "unexpected construct")
end

return L
