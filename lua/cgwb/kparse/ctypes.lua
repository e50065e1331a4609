--- cgwb.kparse.ctypes: C's types as the grammar reads them (specifiers,
-- declarators, type names, typedef names, enum constants) -> the types of
-- the kernel subset (int, double, pointers to them, arrays of them), or a
-- refusal that names the construct; integer constant expressions; sizeof.
-- Adds methods to the lowering object.
local L = require "cgwb.kparse.expr"

-- This machine's sizes (LP64), for sizeof of the subset's types (also the
-- cell sizes of kparse/heap.lua's allocations and kparse/libc.lua's copies).
local SIZE = { int = 4, double = 8, pointer = 8 }
L.SIZE = SIZE

--- The C name of a specifier's type, for messages ("unsigned long", "struct Matrix").
local function spec_name(spec)
  local b = spec.base
  if b == "struct" or b == "union" or b == "enum" then return b .. (spec.tag and " " .. spec.tag or "") end
  if b == "typedef" then return spec.tname end
  if b == "typeof" then return "__typeof__(...)" end
  local parts = {}
  if spec.signed == false then parts[#parts + 1] = "unsigned" end
  if spec.signed == true and b ~= "int" then parts[#parts + 1] = "signed" end
  if b == "long" then
    for _ = 1, spec.long or 1 do parts[#parts + 1] = "long" end
  elseif b == "va_list" then parts[#parts + 1] = "__builtin_va_list"
  else parts[#parts + 1] = b end
  if spec.complex then parts[#parts + 1] = "_Complex" end
  if spec.signed ~= nil and b == "int" and #parts == 1 then parts[1] = spec.signed and "signed int" or "unsigned int" end
  return table.concat(parts, " ")
end
L.spec_name = spec_name

-- Why a base type is outside the subset.
local WHY = { struct = "struct types are not yet supported", union = "union types are not yet supported",
  enum = "enum types are not yet supported: declare the variable int", va_list = "variadic functions are not supported",
  typeof = "typeof is not yet supported" }

-- The C integer types narrower than int (the layout's ctypes: CG_KCTYPES)
-- of a specifier with base char, short or _Bool, by its signedness.
local NARROW = {
  char = function(sg) return sg == nil and "char" or sg and "signed char" or "unsigned char" end,
  short = function(sg) return sg == false and "unsigned short" or "short" end,
  _Bool = function(sg) return sg == nil and "_Bool" or nil end,
}

--- The int value v converted to C integer type ct (nil or "int": v), as a
-- store into such a cell converts it (C99 6.3.1.2-3; the signed types wrap,
-- as gcc does); the widths from the layout (CG_KCTYPES).
function L:ctype_wrap(ct, v)
  if not ct or ct == "int" then return v end
  if ct == "_Bool" then return v ~= 0 and 1 or 0 end
  local bits = self.lay.ctype_bits[ct]
  local u = v & ((1 << bits) - 1)
  if self.lay.ctype_signed[ct] and u >= (1 << (bits - 1)) then u = u - (1 << bits) end
  return u
end

--- The size in bytes of a cell of C integer type ct.
function L:ctype_size(ct) return (self.lay.ctype_bits[ct] + 7) // 8 end

--- The subset type of a specifier and declarator: {base = "int"|"double"|"void",
-- ct (for an int base: the C integer type of the cells when narrower than
-- int, "char", "unsigned short", ...; nil for int), ptr, dims ({pos, e} or
-- {pos, n} list, outermost first), const (of the cells), restrict, pconst
-- (of the pointer itself)}; what a refusal names is the specifier's type at
-- its position.
local NO_DIMS = {}
function L:subset_type(spec, d)
  -- the common case first: `int` or `double` without qualifiers, a plain declarator
  local b, q = spec.base, spec.quals
  if (b == "double" or b == "int") and next(q) == nil and spec.signed == nil and not spec.long and not spec.short
      and not spec.complex and not spec.bad and (not d or (d.shape and d.ptr == 0 and d.dims[1] == nil)) then
    return { base = b, ptr = 0, dims = NO_DIMS }
  end
  local pos = spec.tagpos or spec.pos
  if spec.bad then self:err(pos, "%s", spec.bad) end
  if spec.quals.volatile then self:outside(spec.pos, "'volatile'", "no volatile memory") end
  if spec.quals._Atomic then self:outside(spec.pos, "'_Atomic'", "no atomic types") end
  if spec.quals._Thread_local then self:outside(spec.pos, "'_Thread_local'", "no thread-local storage") end
  if d and d.pvolatile then self:outside(d.pos, "a volatile pointer", "no volatile memory") end
  local t
  if spec.base == "struct" then
    t = { base = "struct", stype = self:struct_type(spec), ptr = 0, dims = {} }
  elseif spec.base == "typedef" then
    local td = self.typedefs[spec.tname]
    if not td then self:err(pos, "unknown type name '%s'", spec.tname) end
    if td.refused then
      -- a chain of typedefs (int64_t -> __int64_t -> signed long) names the refused type once
      local via = td.root and (", through the type '%s' defined at %s"):format(td.root_name, td.root_at) or ""
      self:outside(pos, ("the type '%s'"):format(spec.tname), ("its definition at %s%s: %s"):format(td.at, via,
        td.root or td.refused))
    end
    t = { base = td.base, ct = td.ct, ptr = td.ptr, dims = {}, const = td.const, restrict = td.restrict, stype = td.stype }
    for i, x in ipairs(td.dims) do t.dims[i] = x end
  else
    local b = spec.base
    local ct = NARROW[b] and not spec.long and not spec.complex and NARROW[b](spec.signed)
    local plain = (b == "int" and spec.signed ~= false and not spec.short and not spec.long)
      or (b == "double" and not spec.complex) or b == "void" or ct
    if not plain then
      self:outside(pos, ("'%s'"):format(spec_name(spec)), WHY[b] or
        "the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them")
    end
    if spec.complex then self:outside(pos, ("'%s'"):format(spec_name(spec)), "complex types are not yet supported") end
    if ct then t = { base = "int", ct = ct, ptr = 0, dims = {} }
    else t = { base = b, ptr = 0, dims = {} } end
  end
  if spec.quals.const then t.const = true end
  if spec.quals.restrict then t.restrict_spec = true end
  if not d then return t end
  if not d.shape then
    for _, o in ipairs(d.ops) do
      if o.k == "func" then self:outside(spec.pos, "a function pointer", "no calls through pointers") end
    end
    self:outside(d.pos, "a pointer to an array", "arrays of int or double and pointers to them")
  end
  if t.stype and (#d.dims > 0 or #t.dims > 0) then
    self:outside(d.pos, "an array of structs", "struct variables, one struct each")
  end
  if #d.dims > 0 and t.ptr > 0 then self:outside(d.pos, "an array of pointers", "arrays of int or double") end
  if d.ptr > 0 and #t.dims > 0 then
    self:outside(d.pos, "a pointer to an array type", "arrays of int or double and pointers to them")
  end
  local dims = {}
  for _, x in ipairs(d.dims) do
    if x.star then self:outside(x.pos, "a variable-length array '[*]'", "sizes are integer constants") end
    dims[#dims + 1] = x
  end
  for _, x in ipairs(t.dims) do dims[#dims + 1] = x end
  t.dims = dims
  t.ptr = t.ptr + d.ptr
  if d.prestrict then t.restrict = true end
  if d.pconst then t.pconst = true end
  return t
end

-- {==== struct types ====}
-- A struct type of the subset: members int or double scalars or fixed-size
-- 1-D/2-D arrays of them.  A record {tag, typedef (the first typedef name
-- of the struct itself), members = {{name, base, ndim, dim0, dim1}}, index
-- (member name -> i), id (its place in out.structs), pos}.  A struct with
-- members is defined where it is written (its tag, if any, names it in the
-- scope of the file); `struct TAG` without members names a defined one.
function L:struct_type(spec)
  local pos = spec.tagpos or spec.pos
  local tags = self.struct_tags
  if not spec.members then
    local st = spec.tag and tags[spec.tag]
    if not st then self:outside(pos, ("'struct %s'"):format(spec.tag or ""), "a struct used before its members are given") end
    if st.refused then
      self:outside(pos, ("'struct %s'"):format(spec.tag), (st.refused:gsub("^(.-:%d+:%d+): ", "its definition at %1: ")))
    end
    return st
  end
  if spec.st then return spec.st end -- the same specifier read again (several declarators)
  if spec.tag and tags[spec.tag] then self:err(pos, "'struct %s' defined twice", spec.tag) end
  local st = { tag = spec.tag, members = {}, index = {}, pos = pos }
  for _, m in ipairs(spec.members) do
    local mspec = m.spec
    if m.static_assert then goto next_member end
    if not mspec or not m.decls or #m.decls == 0 then
      self:outside(mspec and mspec.pos or pos, "an anonymous struct member", "members have names")
    end
    if mspec.base == "struct" or mspec.base == "union" or (mspec.base == "typedef" and (self.typedefs[mspec.tname] or {}).stype) then
      self:outside(mspec.tagpos or mspec.pos, "a struct member of struct type", "members are int or double scalars or arrays")
    end
    for _, d in ipairs(m.decls) do
      if d.bits then self:outside(d.pos, "a bit-field", "members are int or double scalars or arrays") end
      if not d.name then self:err(d.pos, "a struct member without a name") end
      local t = self:subset_type(mspec, d)
      if t.base == "void" then self:err(d.pos, "the member '%s' declared void", d.name) end
      if t.ptr > 1 then
        self:outside(d.pos, ("the member '%s', a pointer to a pointer"):format(d.name), "one level of pointers")
      end
      if t.ptr == 1 and #t.dims > 0 then
        self:outside(d.pos, ("the member '%s', an array of pointers"):format(d.name), "arrays of int or double")
      end
      if st.index[d.name] then self:err(d.pos, "the member '%s' is declared twice", d.name) end
      local ndim, d0, d1 = self:dims({ dims = t.dims, pos = d.pos }, false)
      st.members[#st.members + 1] = { name = d.name, base = t.base, ndim = ndim, dim0 = d0, dim1 = d1,
        const = t.const, ptr = t.ptr == 1 or nil, pconst = t.pconst }
      st.index[d.name] = #st.members
    end
    ::next_member::
  end
  if #st.members == 0 then self:err(pos, "a struct without members") end
  self.out.structs = self.out.structs or {}
  st.id = #self.out.structs + 1
  self.out.structs[st.id] = st
  if spec.tag then tags[spec.tag] = st end
  spec.st = st
  return st
end

--- The C spelling of struct type st ("Wishart", "struct S").
function L.struct_name(st) return st.typedef or ("struct " .. st.tag) end
-- }====

--- The value of an integer constant expression (C99 6.6), or a refusal.
function L:ice(e)
  local k = e.k
  if k == "num" then
    local t = self:rv_num(e)
    if t.op ~= "const_i" then self:err(e.pos, "an integer constant expression is needed, not a double") end
    return t.ival
  end
  if k == "id" then
    local v = self.enums[e.name]
    if v and not self:lookup(e.name) then return v end
    self:outside(e.pos, ("the array size '%s'"):format(e.name),
      "sizes are integer constants; a #define'd name is unknown")
  end
  if k == "sizeof" then return self:sizeof_value(e) end
  if k == "cast" then
    local t = self:subset_type(e.ty, nil)
    if e.ty.ptr == 0 and #e.ty.dims == 0 and t.base == "int" then return self:ctype_wrap(t.ct, self:ice(e.a)) end
  end
  if k == "un" then
    local v = self:ice(e.a)
    if e.op == "-" then v = -v elseif e.op == "!" then v = v == 0 and 1 or 0 elseif e.op == "~" then v = ~v
    elseif e.op ~= "+" then v = nil end
    if v then return self:int_range(v, e.pos) end
  end
  if k == "cond" then
    local c = self:ice(e.c)
    if c ~= 0 then return self:ice(e.a) else return self:ice(e.b) end
  end
  if k == "bin" then
    local op = e.op
    local a = self:ice(e.a)
    if op == "&&" then return (a ~= 0 and self:ice(e.b) ~= 0) and 1 or 0 end
    if op == "||" then return (a ~= 0 or self:ice(e.b) ~= 0) and 1 or 0 end
    local b = self:ice(e.b)
    local v
    if op == "+" then v = a + b elseif op == "-" then v = a - b elseif op == "*" then v = a * b
    elseif op == "/" or op == "%" then
      if b == 0 then self:err(e.pos, "division by zero in a constant") end
      local q = (a // b) + ((a % b ~= 0 and (a < 0) ~= (b < 0)) and 1 or 0)
      v = op == "/" and q or a - q * b
    elseif op == "<<" or op == ">>" then -- C99 6.5.7: an int shifts by 0..31; >> of a negative: gcc's arithmetic
      if b < 0 or b > 31 then self:err(e.pos, "a shift by %d in a constant expression (an int shifts by 0..31)", b) end
      if op == ">>" then v = a // (1 << b)
      elseif a < 0 then self:err(e.pos, "a left shift of the negative %d in a constant expression", a)
      else v = a << b end
    elseif op == "&" then v = a & b elseif op == "|" then v = a | b elseif op == "^" then v = a ~ b
    elseif op == "<" then v = a < b and 1 or 0 elseif op == "<=" then v = a <= b and 1 or 0
    elseif op == ">" then v = a > b and 1 or 0 elseif op == ">=" then v = a >= b and 1 or 0
    elseif op == "==" then v = a == b and 1 or 0 elseif op == "!=" then v = a ~= b and 1 or 0 end
    if v then return self:int_range(v, e.pos) end
  end
  self:outside(e.pos, "this array size", "sizes are integer constants")
end

function L:int_range(v, pos)
  if v > 2147483647 or v < -2147483648 then self:err(pos, "constant overflows an int") end
  return v
end

--- The size in bytes of a subset type t (from L:subset_type).
function L:type_size(t, pos)
  if t.stype then self:outside(pos, "sizeof of a struct", "sizes of int, double and pointers") end
  local n = t.ptr > 0 and SIZE.pointer or (t.ct and self:ctype_size(t.ct)) or SIZE[t.base]
  if not n then self:err(pos, "sizeof of an incomplete type") end
  for _, x in ipairs(t.dims) do
    local m = x.n or (x.e and self:ice(x.e))
    if not m then self:err(pos, "sizeof of an array of unknown size") end
    n = n * m
  end
  return n
end

-- The LP64 sizes of C's arithmetic types by the grammar's base (`long long`
-- and `unsigned long` are base long), for sizeof of the types outside the
-- subset: `sizeof(long)`.
local ARITH_SIZE = { char = 1, short = 2, int = 4, long = 8, float = 4, double = 8, ["long double"] = 16, _Bool = 1 }

--- The size in bytes of a type name (specifier, declarator) whose type is an
-- arithmetic type outside the subset (unsigned int, long, float, size_t, ...),
-- a pointer to one or an array of them; nil for any other type.
function L:outside_size(spec, d)
  local n
  if spec.base == "typedef" then
    local td = self.typedefs[spec.tname]
    n = td and td.size
  elseif not spec.complex and not spec.bad then
    n = ARITH_SIZE[spec.base]
  end
  if not n or not d then return n end
  if not d.shape then return nil end
  if d.ptr > 0 then n = SIZE.pointer end
  for _, x in ipairs(d.dims) do
    local m = x.n or (x.e and self:ice(x.e))
    if not m or x.star then return nil end
    n = n * m
  end
  return n
end

--- The value of a sizeof node: {ty = TYPENAME} or {e = expr} (a variable,
-- an array cell or row, a dereference, a literal).
function L:sizeof_value(e)
  if e.ty then
    local ok, t = pcall(self.subset_type, self, e.ty, e.ty.d)
    if ok then return self:type_size(t, e.pos) end
    local n = self:outside_size(e.ty, e.ty.d)
    if n then return n end
    error(t, 0)
  end
  local x = e.e
  local depth = 0
  while x.k == "index" or (x.k == "un" and x.op == "*") do
    x = x.a
    depth = depth + 1
  end
  if x.k == "num" then
    if depth > 0 then self:err(e.pos, "subscripted value is not an array or pointer") end
    return self:rv_num(x).ty == "int" and SIZE.int or SIZE.double
  end
  if x.k == "id" then
    local s = self:lookup(x.name)
    if s and s.struct then self:outside(e.pos, "sizeof of a struct", "sizes of int, double and pointers") end
    if s then
      local dims = {}
      local sd = { s.dim0, s.dim1, s.dim2 }
      for l = 1, s.ndim do dims[l] = { n = sd[l] } end
      local ptr = s.ptr
      if s.kind == "param" and s.ndim > 0 then ptr, dims[1] = 0, { n = 0 } end
      -- each subscript takes the outermost dimension or the pointer
      for _ = 1, depth do
        if #dims > 0 then table.remove(dims, 1) elseif ptr > 0 then ptr = ptr - 1
        else self:err(e.pos, "subscripted value is not an array or pointer") end
      end
      if s.kind == "param" and s.ndim > 0 and depth == 0 then return SIZE.pointer end
      return self:type_size({ base = s.base, ct = s.ct, ptr = ptr, dims = dims }, e.pos)
    end
    if self.enums[x.name] and depth == 0 then return SIZE.int end
  end
  self:outside(e.pos, "sizeof of this expression", "sizeof of a type, a variable, an array cell or a literal")
end

--- Registers the constants of an enum specifier (C's values: from 0, or
-- `= constant-expression`, each one more than the last).
function L:note_enums(spec)
  if spec.base ~= "enum" or not spec.items then return end
  local v = -1
  for _, it in ipairs(spec.items) do
    if it.e then
      local ok, r = pcall(self.ice, self, it.e)
      v = ok and r or nil
    elseif v then v = v + 1 end
    if v then self.enums[it.name] = self:int_range(v, it.pos) end
  end
end

--- Registers the names of a typedef declaration: each as its subset type,
-- or with the refusal (reported where a lowered function uses it).
function L:typedef_decl(s)
  self:note_enums(s.spec)
  for _, d in ipairs(s.decls) do
    if d.name then
      local ok, t = pcall(self.subset_type, self, s.spec, d)
      local at = self:where(d.pos)
      if ok then
        local dims = {}
        for i, x in ipairs(t.dims) do
          if x.n then dims[i] = x
          elseif x.e then
            local ok2, n = pcall(self.ice, self, x.e)
            if not ok2 then ok, t = false, n break end
            dims[i] = { pos = x.pos, n = n }
          else dims[i] = { pos = x.pos, n = false } end
        end
        if ok then
          if t.base == "void" and t.ptr == 0 then
            self.typedefs[d.name] = { refused = "a void type", at = at }
          else
            self.typedefs[d.name] = { base = t.base, ct = t.ct, ptr = t.ptr, dims = dims, const = t.const,
              restrict = t.restrict, stype = t.stype }
            if t.stype and t.ptr == 0 and not t.stype.typedef then t.stype.typedef = d.name end
          end
        end
      end
      if not ok then
        local msg = type(t) == "table" and t.msg or tostring(t)
        local inner = s.spec.base == "typedef" and self.typedefs[s.spec.tname]
        local okn, size = pcall(self.outside_size, self, s.spec, d)
        local td = { refused = (msg:gsub("^.-:%d+:%d+: ", "")), at = at, size = okn and size or nil }
        if inner and inner.refused then
          td.root, td.root_at = inner.root or inner.refused, inner.root_at or inner.at
          td.root_name = inner.root_name or s.spec.tname
        end
        self.typedefs[d.name] = td
      end
    end
  end
end

return L
