--- cgwb.kparse.libc: the <string.h> calls numerical code uses on arrays,
-- `memcpy(dst, src, n)` and `memset(p, byte, n)`, lowered to the counted
-- loops they stand for (a copy of cells; a fill with the value the byte
-- pattern has in a cell), so every analysis and derivative generator sees
-- their meaning: a copy carries the source's derivatives, a fill has none.
-- The byte count is read as an allocation's is (L:alloc_cells of
-- kparse/heap.lua): `n * sizeof(double)`, `sizeof(double) * n * m`, `sizeof
-- a`, a constant the cell size divides.  `memmove` (whose copy direction depends on where the pointers
-- point) is refused.  Adds methods to the lowering object.
local L = require "cgwb.kparse.ctypes"
local errors = require "cgwb.util.errors"

local BASE_OF = { pdouble = "double", pint = "int" }
L.LIBC = { memcpy = true, memset = true, memmove = true }

local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end
local function var(sym, ty, pos) return { op = "var", ty = ty, pos = pos, sym = sym } end

--- Whether the lowering raised only an input error (the others are bugs).
local function try(f, ...)
  local ok, v = pcall(f, ...)
  if ok then return v end
  if not errors.is(v, "input") then error(v, 0) end
  return nil
end

--- A pointer argument of a libc call as a pointer to its first cell (a
-- decayed 2-D array becomes the address of its row 0: the copy runs over
-- the cells in storage order, as the C library's does).
function L:libc_ptr(e, what, i)
  local t = self:rv(e)
  if not BASE_OF[t.ty] then self:err(e.pos, "argument %d of '%s' must be a pointer to double or int", i, what) end
  if t.dim1 then
    t = { op = "addr", ty = t.ty, pos = t.pos, sym = t.sym, a = const_i(0, e.pos), pconst = t.pconst }
  end
  return t
end

--- `i = 0; for (; i < n; i = i + 1) body(i)`, at pos, n evaluated once.
function L:counted_loop(pos, n, body)
  if n.op ~= "const_i" and n.op ~= "var" then
    local c = self:temp("int", pos)
    self:assign(var(c, "int", pos), n, pos)
    n = var(c, "int", pos)
  end
  local i = self:temp("int", pos)
  self:assign(var(i, "int", pos), const_i(0, pos), pos)
  local p0, pn = self:in_slice(function() end)
  local id = self:stmt("loop", pos, { FLAGS = self.lay.loop_kinds["for"],
    cond = self:emit({ op = "lt", ty = "int", pos = pos, a = var(i, "int", pos), b = n }), pre = p0, pre_n = pn }, -1)
  local b0, bn = self:in_slice(function() body(var(i, "int", pos)) end)
  local s0, sn = self:in_slice(function(me)
    me:assign(var(i, "int", pos), { op = "add", ty = "int", pos = pos, a = var(i, "int", pos), b = const_i(1, pos) }, pos)
  end)
  self:set_part(id, "loop", "body", b0, bn)
  self:set_part(id, "loop", "step", s0, sn)
  return id
end

--- A pointer tree held in a temporary (evaluated once, before the loop).
function L:held(t, pos)
  if t.op == "var" or (t.op == "addr" and not t.a and not t.dim1) then return t end -- x, or a 1-D array's own cells
  local p = self:temp(t.ty, pos, t)
  self:assign(var(p, t.ty, pos), t, pos)
  return { op = "var", ty = t.ty, pos = pos, sym = p, pconst = t.pconst }
end

--- The call e of memcpy, memset or memmove (void_ok: as a statement).
function L:libc_call(e, void_ok)
  local name = e.f.name
  if name == "memmove" then
    self:outside(e.pos, "a call of 'memmove'", "its copy direction depends on where the pointers point; use memcpy "
      .. "for arrays that do not overlap or a loop")
  end
  if not void_ok then self:outside(e.pos, ("the value of '%s'"):format(name), "call it as a statement") end
  if #e.args ~= 3 then self:err(e.pos, "'%s' takes 3 arguments, not %d", name, #e.args) end
  local n0 = self.nhoist
  local dst = self:libc_ptr(e.args[1], name, 1)
  if dst.pconst then self:err(e.args[1].pos, "'%s' into a const array", name) end
  local base = BASE_OF[dst.ty]
  if name == "memcpy" then
    local src = self:libc_ptr(e.args[2], name, 2)
    if src.ty ~= dst.ty then
      self:outside(e.pos, "a memcpy between arrays of different types", "it reinterprets bytes")
    end
    local n = self:alloc_cells(e.args[3], base, name)
    if self.nhoist ~= n0 then self:err(e.pos, "the arguments of '%s' call functions: call them first", name) end
    local d, s = self:held(dst, e.pos), self:held(src, e.pos)
    return self:counted_loop(e.pos, n, function(i)
      self:assign({ op = "elem", ty = base, pos = e.pos, sym = d.sym, a = i },
        { op = "elem", ty = base, pos = e.pos, sym = s.sym, a = i }, e.pos)
    end)
  end
  local byte = try(self.ice, self, e.args[2])
  if not byte then
    self:outside(e.args[2].pos, "a memset with a byte not known to the compiler", "the fill value must be constant")
  end
  local pattern = string.rep(string.char(byte & 0xff), L.SIZE[base])
  local fill
  if base == "double" then
    local v = string.unpack("<d", pattern)
    if v ~= v then self:err(e.args[2].pos, "memset: the byte 0x%02x makes every double a NaN", byte & 0xff) end
    fill = { op = "const_d", ty = "double", pos = e.pos, dval = v }
  else
    fill = const_i((string.unpack("<i4", pattern)), e.pos)
  end
  local n = self:alloc_cells(e.args[3], base, name)
  if self.nhoist ~= n0 then self:err(e.pos, "the arguments of '%s' call functions: call them first", name) end
  local d = self:held(dst, e.pos)
  return self:counted_loop(e.pos, n, function(i)
    self:assign({ op = "elem", ty = base, pos = e.pos, sym = d.sym, a = i }, fill, e.pos)
  end)
end

return L
