--- cgwb.kparse.passive: the C library calls that have no derivative, as a
-- kernel's author writes them: output (`printf`, `fprintf` and `fputs` to
-- stdout or stderr, `puts`, `putchar`, `fflush`) and the ends of a run
-- (`exit`, `abort`, `assert` in both of glibc's expansions, and with
-- NDEBUG), each one PASSIVE statement (CG_KPASSIVES of cg_kernel.h): kept
-- in the primal code, absent from every derivative.  A string literal is
-- the statement's text (its bytes; `%s` of a literal argument is folded
-- into the format); the values are int and double expressions, of the
-- types the format converts (core.kernel_format, the loader's own check).
-- `(void) e;` of a call is the call, of anything else nothing.  Adds
-- methods to the lowering object.
local L = require "cgwb.kparse.ctypes"
local core = require "cgwb.core"

local LAY = core.kernel_layout()
local ROW = {} -- C function -> stream ("" for none) -> {id, row}
for i, p in ipairs(LAY.passives) do
  ROW[p.fn] = ROW[p.fn] or {}
  ROW[p.fn][p.stream or ""] = { id = i - 1, row = p }
end
local ASSERT = ROW.assert[""]
ROW.assert = nil -- written through glibc's expansion, never called by that name
L.PASSIVE = ROW

local ESC = { n = "\n", t = "\t", r = "\r", a = "\a", b = "\b", f = "\f", v = "\v", ["\\"] = "\\",
  ["'"] = "'", ['"'] = '"', ["?"] = "?" }

--- The bytes of string literal node e (its tokens concatenated, escapes
-- decoded, C99 6.4.5); a wide or UTF literal and a NUL byte are refused.
function L:string_bytes(e)
  local src, out, i = e.text, {}, 1
  while i <= #src do
    local c = src:sub(i, i)
    if src:sub(i, i + 1) == "/*" then i = (src:find("*/", i + 2, true) or #src) + 2
    elseif src:sub(i, i + 1) == "//" or c == "#" then i = (src:find("\n", i, true) or #src) + 1 -- a line marker too
    elseif c == '"' then
      i = i + 1
      while src:sub(i, i) ~= '"' do
        local ch = src:sub(i, i)
        if ch == "\\" then
          local n = src:sub(i + 1, i + 1)
          local oct = src:match("^[0-7][0-7]?[0-7]?", i + 1)
          local hex = n == "x" and src:match("^%x+", i + 2)
          if oct then out[#out + 1], i = tonumber(oct, 8), i + 1 + #oct
          elseif hex then out[#out + 1], i = tonumber(hex, 16), i + 2 + #hex
          elseif ESC[n] then out[#out + 1], i = ESC[n]:byte(), i + 2
          else self:err(e.pos, "the escape '\\%s' in a string literal", n) end
          if out[#out] > 255 then self:err(e.pos, "an escape beyond a byte in a string literal") end
        else
          out[#out + 1], i = ch:byte(), i + 1
        end
      end
      i = i + 1
    elseif c:match("%s") then i = i + 1
    else self:outside(e.pos, "a wide or UTF string literal", "plain \"...\" literals") end
  end
  for _, b in ipairs(out) do
    if b == 0 then self:err(e.pos, "a NUL byte in a string literal") end
  end
  local chars = {}
  for j, b in ipairs(out) do chars[j] = string.char(b) end
  return table.concat(chars)
end

--- A string literal argument (through casts and parentheses) or nil.
local function literal(e)
  while e.k == "cast" do e = e.a end
  return e.k == "str" and e or nil
end

--- The stream a FILE * argument names: "stdout", "stderr", or refused.
function L:stream_of(e, fn)
  if e.k == "id" and (e.name == "stdout" or e.name == "stderr") and not self:lookup(e.name) then return e.name end
  self:outside(e.pos, ("'%s' to a stream other than stdout or stderr"):format(fn), "files are outside kernels")
end

--- printf-style format bytes fmt with its arguments args (syntax nodes):
-- the format with each `%s` of a literal folded in, and the value nodes.
function L:fold_format(fmt, args, e, fn)
  local types, why = core.kernel_format(fmt)
  if not types then self:outside(e.pos, ("%s's format"):format(fn), why) end
  if #args ~= #types then
    self:err(e.pos, "the format of '%s' takes %d argument%s, not %d", fn, #types, #types == 1 and "" or "s", #args)
  end
  local out, vals, at, ai = {}, {}, 1, 0
  for spec in fmt:gmatch("%%[^%%diouxXcfFeEgGaAs]*[%%diouxXcfFeEgGaAs]") do
    local s, e2 = fmt:find(spec, at, true)
    out[#out + 1] = fmt:sub(at, s - 1)
    at = e2 + 1
    if spec == "%%" then out[#out + 1] = spec
    else
      local nstar = select(2, spec:gsub("%*", ""))
      for _ = 1, nstar do ai = ai + 1; vals[#vals + 1] = args[ai] end
      ai = ai + 1
      if types[ai] == "string" then
        local lit = literal(args[ai])
        if not lit then self:outside(args[ai].pos, ("'%s' of a string that is not a literal"):format(spec), "the subset has no string values") end
        local ok, t = pcall(string.format, spec, self:string_bytes(lit))
        if not ok then self:err(args[ai].pos, "the conversion '%s' of a string", spec) end
        out[#out + 1] = t:gsub("%%", "%%%%")
      else
        out[#out + 1] = spec
        vals[#vals + 1] = args[ai]
      end
    end
  end
  out[#out + 1] = fmt:sub(at)
  return table.concat(out), vals
end

--- The PASSIVE statement of row (from ROW) with text (bytes or nil) and
-- value expressions vals (lowered trees, of the types given: "int" or
-- "double"; nil: any number).
function L:passive_stmt(row, text, vals, pos, pragma)
  local first, ids = #self.out.args, {}
  for i, a in ipairs(vals) do ids[i] = self:emit(a) end
  for i, id in ipairs(ids) do self.out.args[first + i] = id end
  local id = self:stmt("passive", pos, { FLAGS = row.id, args = first, args_n = #vals }, pragma)
  self.out.stmt[id * self.lay.width.stmt + self.lay.stmt.X0] = text and self:name(text) or -1
  return id
end

--- A value argument of a passive call: an int or double expression of type ty.
function L:passive_value(x, ty, fn)
  local t = self:rv(x)
  if t.ty ~= "int" and t.ty ~= "double" then
    self:err(x.pos, "an argument of '%s' of type %s (ints and doubles only)", fn, t.ty)
  end
  if ty and t.ty ~= ty then
    self:err(x.pos, "an argument of '%s' that is %s %s where the format converts %s %s", fn,
      t.ty == "int" and "an" or "a", t.ty, ty == "int" and "an" or "a", ty)
  end
  return t
end

--- Call node e of passive function name as a statement (void_ok: its value
-- unused); returns nothing.
function L:passive_call(e, name, void_ok, pragma)
  if not void_ok then
    self:outside(e.pos, ("the value of '%s'"):format(name), "a passive call is a statement of its own")
  end
  local rows, args = ROW[name], e.args
  local stream, text = "", nil
  local any = rows[""] or rows.stdout
  local at = any.row.at
  if any.row.stream then -- fprintf(stderr, ...), fputs(s, stdout), fflush(stdout)
    local si = at == 1 and 1 or #args
    if not args[si] then self:err(e.pos, "'%s' without its stream", name) end
    stream = self:stream_of(args[si], name)
    args = { table.unpack(args, at == 1 and 2 or 1, at == 1 and #args or #args - 1) }
  end
  local r = rows[stream]
  if r.row.text == 1 then
    local lit = args[1] and literal(args[1])
    if not lit then
      self:outside((args[1] or e).pos, ("'%s' of a string that is not a literal"):format(name), "the subset has no string values")
    end
    text = self:string_bytes(lit)
    args = { table.unpack(args, 2) }
  end
  local vals, types = {}, nil
  if r.row.nargs < 0 then
    text, args = self:fold_format(text, args, e, name)
    types = core.kernel_format(text)
  elseif #args ~= r.row.nargs then
    self:err(e.pos, "'%s' takes %d value argument%s, not %d", name, r.row.nargs, r.row.nargs == 1 and "" or "s", #args)
  end
  for i, x in ipairs(args) do vals[i] = self:passive_value(x, types and types[i] or "int", name) end
  self:passive_stmt(r, text, vals, e.pos, pragma)
end

--- C99 7.2's assert as glibc expands it, or nil for any other expression:
-- `((void) sizeof ((c) ? 1 : 0), __extension__ ({ if (c) ; else
-- __assert_fail ("c", ...); }))` (GNU C), `((c) ? (void) (0) :
-- __assert_fail ("c", ...))` (strict ISO C); returns the condition node and
-- the __assert_fail call.
local function assert_form(e)
  if e.k == "comma" and e.b.k == "stmtexpr" and e.a.k == "cast" and e.a.a.k == "sizeof" then
    local items = e.b.body.items or {}
    local s = items[1]
    if #items == 1 and s.k == "if" and s.e and s.e.k == "expr" and s.e.e.k == "call"
        and s.e.e.f.k == "id" and s.e.e.f.name == "__assert_fail" then
      return s.c, s.e.e
    end
  elseif e.k == "cond" and e.b.k == "call" and e.b.f.k == "id" and e.b.f.name == "__assert_fail"
      and e.a.k == "cast" then
    return e.c, e.b
  end
end

--- Whether e is `(void) x`: a cast to void.
function L:void_cast(e)
  if e.k ~= "cast" then return false end
  local t = self:subset_type(e.ty, e.ty.d)
  return t.base == "void" and t.ptr == 0
end

--- Expression statement e if it is an assert or a cast to void (then
-- lowered here, true returned), else false.
function L:passive_effect(e, pragma, spos)
  local c, fail = assert_form(e)
  if c then
    local lit = fail.args[1] and literal(fail.args[1])
    local text = lit and self:string_bytes(lit) or "?"
    while c.k == "bin" and c.op == "&&" and literal(c.b) do c = c.a end -- assert(x && "why"): the literal is true
    local t = self:rv(c)
    if t.ty ~= "int" and t.ty ~= "double" then self:err(c.pos, "an assert of a %s (ints and doubles only)", t.ty) end
    self:passive_stmt(ASSERT, text, { t }, spos or e.pos, pragma)
    return true
  end
  if self:void_cast(e) then
    local a = e.a
    if a.k == "call" or a.k == "assign" or (a.k == "un" and (a.op == "pre++" or a.op == "pre--")) or a.k == "post" then
      self:effect(a, pragma, spos)
    elseif pragma ~= -1 and pragma then
      self:err(e.pos, "#pragma cgwb on a statement without a computation of its own")
    else
      self:rv(a) -- checked, then dropped: (void) x, (void) 0
    end
    return true
  end
  return false
end

return L
