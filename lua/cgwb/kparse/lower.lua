--- cgwb.kparse.lower: the syntax tree of a kernel -> the flat arrays of
-- csrc/kernel/cg_kernel.h, in canonical form (Utke, Flattening, sec. 2,
-- C1-C5).
--
-- Names are resolved with block scopes, every expression is typed, C's
-- conversions become CAST nodes, and every computation becomes a statement
-- `v := e` with a side-effect-free right-hand side: calls to the file's own
-- functions are hoisted into CALL statements with a result temporary,
-- assignments and ++/-- inside expressions are hoisted, compound
-- assignments are expanded with a copied left-hand side.
--
-- Expressions are first built as typed Lua trees {op=, ty=, a=, b=, c=,
-- sym=, ival=, dval=, pos=} and written as rows only when a statement takes
-- them, so a tree can be inspected, copied or taken apart (a dereference of
-- `&a[i] + 1` becomes the cell a[i + 1]) without leaving rows no statement
-- owns.  Errors raise cgwb.util.errors' input errors; cgwb.kparse turns them into
-- `nil, message`.
local errors = require "cgwb.util.errors"
local M = {}

local unpack = table.unpack

--- The lowering of one text: new(layout, file, text, pragmas) -> object.
local L = {}
L.__index = L

-- C type names of the tree types and of the base cell types.
local PTR_OF = { double = "pdouble", int = "pint" }
local BASE_OF = { pdouble = "double", pint = "int" }
local TYNAME = { int = "int", double = "double", pdouble = "double *", pint = "int *", void = "void",
  ppdouble = "double **", ppint = "int **", null = "NULL" }

function M.new(lay, file, text, pragmas, grammar)
  local self = setmetatable({ lay = lay, file = file, text = text, grammar = grammar }, L)
  self.out = { file = file, names = {}, func = {}, sym = {}, expr = {}, stmt = {}, list = {}, args = {},
    dconst = {} }
  self.name_ix = {}
  self.syms = {}      -- Lua-side symbols, written at the end (qual addr is learnt late)
  self.funcs = {}     -- name -> {id, ret, params = {sym info}, defined, pos}
  self.nfunc = 0
  self.scopes = { {} } -- the file scope first
  self.max_depth = lay.max_depth
  self.expr_w = lay.width.expr
  self.expr_extra = {} -- fields L:emit does not know by name: -1
  local known = { OP = 1, TYPE = 1, A = 1, B = 1, C = 1, SYM = 1, IVAL = 1, LINE = 1, COL = 1 }
  for f, off in pairs(lay.expr) do
    if not known[f] then self.expr_extra[#self.expr_extra + 1] = off end
  end
  self.expr_code, self.type_code = lay.exprs, {}
  for ty, name in pairs(TYNAME) do self.type_code[ty] = lay.types[name] end
  self:line_index()
  self:pragma_index(pragmas)
  self.emit_tree = self:expr_writer()
  self.write_stmt = self:stmt_writer()
  return self
end

-- {==== positions and errors ====}

function L:line_index()
  local starts = { 1 }
  -- a line ends at \n, \r\n or a lone \r
  local text, i, n = self.text, 1, #self.text
  while true do
    local a = text:find("[\r\n]", i)
    if not a then break end
    if text:byte(a) == 13 and text:byte(a + 1) == 10 then a = a + 1 end
    starts[#starts + 1] = a + 1
    i = a + 1
    if i > n then break end
  end
  self.starts = starts
end

--- Line and column (1-based) of a byte offset of the text read.
function L:text_linecol(pos)
  local s = self.starts
  local l = self.last_line or 1 -- positions mostly come in order: try the last line first
  local nxt = s[l + 1]
  if s[l] <= pos and (not nxt or pos < nxt) then return l, pos - s[l] + 1 end
  if nxt and nxt <= pos and (not s[l + 2] or pos < s[l + 2]) then -- then the next one
    self.last_line = l + 1
    return l + 1, pos - nxt + 1
  end
  local lo, hi = 1, #s
  while lo < hi do
    local mid = (lo + hi + 1) // 2
    if s[mid] <= pos then lo = mid else hi = mid - 1 end
  end
  self.last_line = lo
  return lo, pos - s[lo] + 1
end

--- Line and column (1-based) of a byte offset in the user's file: the text's
-- own, or, for preprocessor output, where cgwb.kparse.cpp's map puts it.
function L:linecol(pos)
  local l, c = self:text_linecol(pos)
  if not self.map then return l, c end
  local _, line, col = self.map:locate(l, c, self.line_text)
  return line, col
end

--- The file, line and column of a byte offset, for messages.
function L:place(pos)
  local l, c = self:text_linecol(pos)
  if not self.map then return self.file, l, c end
  return self.map:locate(l, c, self.line_text)
end

--- Whether a byte offset lies in a system header (preprocessor output only).
function L:in_system(pos)
  return self.map ~= nil and self.map:in_system((self:text_linecol(pos)))
end

--- Maps positions through a preprocessor's map (cgwb.kparse.cpp).
function L:set_map(map)
  self.map = map
  local text, s = self.text, self.starts
  self.line_text = function(l) -- line l of the text read, without its end
    return (text:sub(s[l], (s[l + 1] or #text + 1) - 1):gsub("\r?\n$", ""))
  end
end

-- Every byte position becomes "file:line:col" here (through L:place), nowhere else.
function L:where(pos)
  return ("%s:%d:%d"):format(self:place(pos))
end

function L:err(pos, fmt, ...)
  error(errors.input(self:where(pos) .. ": " .. fmt:format(...)))
end

--- "X is outside the kernel subset (why)".
-- (an error marked as a refusal: the function it is in is left alone, L:unit)
function L:outside(pos, what, why)
  error(errors.input(("%s: %s is outside the kernel subset (%s)"):format(self:where(pos), what, why), { refusal = true }))
end

--- Whether a raised error is a refusal of L:outside.
function M.is_refusal(e)
  return errors.is(e, "input") and type(e.data) == "table" and e.data.refusal == true
end

-- Each `#pragma cgwb TEXT` belongs to the statement that begins at the next
-- token; pragmas in a row are joined by newlines.
function L:pragma_index(pragmas)
  local at, order = {}, {}
  for pos in pairs(pragmas) do order[#order + 1] = pos end
  table.sort(order)
  for _, pos in ipairs(order) do
    local eol = self.text:find("[\r\n]", pos) or #self.text + 1
    local nxt = self.grammar.skip:match(self.text, eol)
    local text = pragmas[pos]:gsub("%s+$", "")
    if at[nxt] then at[nxt].text = at[nxt].text .. "\n" .. text
    else at[nxt] = { text = text, pos = pos } end
  end
  self.pragma_at = at
end

function L:take_pragma(pos)
  local p = self.pragma_at[pos]
  if not p then return -1 end
  p.used = true
  return self:name(p.text)
end

function L:check_pragmas()
  local left = {}
  for _, p in pairs(self.pragma_at) do
    if not p.used then left[#left + 1] = p.pos end
  end
  table.sort(left)
  if left[1] then self:err(left[1], "#pragma cgwb is not followed by a statement") end
end
-- }====

-- {==== rows ====}

function L:name(s)
  local i = self.name_ix[s]
  if not i then
    i = #self.out.names
    self.out.names[i + 1] = s
    self.name_ix[s] = i
  end
  return i
end

--- Appends a row of table `tab` (func sym expr stmt) from {FIELD = value};
-- unset fields are -1.  Returns its 0-based id.
function L:row(tab, fields)
  local w, off = self.lay.width[tab], self.lay[tab]
  local arr = self.out[tab]
  local base = #arr
  for i = 1, w do arr[base + i] = -1 end
  for f, v in pairs(fields) do arr[base + off[f]] = v end
  return base // w
end

function L:set(tab, id, field, v)
  self.out[tab][id * self.lay.width[tab] + self.lay[tab][field]] = v
end

function L:dconst(v)
  local d = self.out.dconst
  d[#d + 1] = v
  return #d - 1
end
-- }====

-- {==== symbols and scopes ====}

--- A new symbol (Lua side): info {name, kind, base, ptr, ndim, dim0, dim1, dim2,
-- qual, pos}; returns its 0-based id.
function L:new_sym(info)
  local id = #self.syms
  info.id = id
  info.func = info.kind == "global" and -1 or self.fn.id
  info.ptr = info.ptr or 0
  info.ndim = info.ndim or 0
  info.qual = info.qual or 0
  self.syms[id + 1] = info
  return id
end

function L:declare(name, id, pos)
  local scope = self.scopes[#self.scopes]
  if scope[name] then self:err(pos, "'%s' is declared twice in the same scope", name) end
  scope[name] = id
end

function L:lookup(name)
  local scopes = self.scopes -- once per name in the text: fields read once
  for i = #scopes, 1, -1 do
    local id = scopes[i][name]
    if id then
      if type(id) == "table" then return id end -- a struct variable's record (cgwb.kparse.stmt)
      return self.syms[id + 1]
    end
  end
end

function L:push_scope() self.scopes[#self.scopes + 1] = {} end
function L:pop_scope() self.scopes[#self.scopes] = nil end

--- A temporary "t<N>@<line>" of tree type ty (Utke, Flattening, sec. 2: C3).
function L:temp(ty, pos, like)
  self.fn.ntemp = self.fn.ntemp + 1
  local line = self:linecol(pos)
  local info = { name = ("t%d@%d"):format(self.fn.ntemp, line), kind = "temp", pos = pos }
  if BASE_OF[ty] then
    info.base, info.ptr = BASE_OF[ty], 1
    if like then info.ct = self:pointee(like) end
    if like and like.pconst then info.qual = self.lay.qual.const end
    if like and like.dim1 then info.ndim, info.dim0, info.dim1, info.dim2 = like.dim2 and 3 or 2, 0, like.dim1, like.dim2 end
  else
    info.base = ty
  end
  return self:new_sym(info)
end

function L:write_syms(from)
  local lay = self.lay
  for i = from + 1, #self.syms do
    local s = self.syms[i]
    local line, col = self:linecol(s.pos)
    self:row("sym", { NAME = self:name(s.name), FUNC = s.func, KIND = lay.sym_kinds[s.kind],
      BASE = lay.types[s.base], PTR = s.ptr, NDIM = s.ndim, DIM0 = s.dim0 or 0, DIM1 = s.dim1 or 0,
      DIM2 = s.dim2 or 0,
      QUAL = s.qual, INIT = s.init or -1, NINIT = s.ninit or 0, LINE = line, COL = col,
      CTYPE = lay.ctypes[s.ct or "int"] })
    if s.agg then -- a member of a struct variable: its grouping, for the C printers (doc/kernel-ir.md)
      self.out.aggs = self.out.aggs or {}
      self.out.aggs[s.id] = { var = s.agg.var, struct = s.agg.stype.id, member = s.agg.member, first = s.agg.first,
        arrow = s.agg.arrow, scalar = s.agg.scalar, pmember = s.agg.pmember }
    end
  end
end
-- }====

-- {==== typed trees ====}

-- A typed tree is one table constructor {op =, ty =, pos =, operands and
-- attributes}: made whole, it is sized once (a million of them in a large
-- kernel; adding op, ty and pos to a smaller table grew it twice).

local function const_i(v, pos) return { op = "const_i", ty = "int", pos = pos, ival = v } end
local function is_ptr(ty) return BASE_OF[ty] ~= nil end

local function copy(t)
  if type(t) ~= "table" then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = (k == "a" or k == "b" or k == "c") and copy(v) or v end
  return c
end
M.copy = copy

--- Converts tree e to arithmetic type ty (C's usual and assignment
-- conversions: int <-> double; double to int truncates).
function L:convert(e, ty, pos, what)
  if e.ty == ty then return e end
  if (e.ty == "int" or e.ty == "double") and (ty == "int" or ty == "double") then
    return { op = "cast", ty = ty, pos = e.pos, a = e }
  end
  self:err(pos or e.pos, "%s: cannot convert %s to %s", what or "type mismatch", TYNAME[e.ty], TYNAME[ty])
end

--- The C integer type of the cells pointer tree p points to ("char", ...;
-- nil for int or double): its symbol's (a pointer's, or an array's whose
-- address it is), through pointer arithmetic and ?:.
function L:pointee(p)
  local op = p.op
  if op == "ptradd" then return self:pointee(p.a) end
  if op == "cond" then return self:pointee(p.b) end
  if op == "null" then return p.ct end
  if p.sym and (op == "var" or op == "addr") then return self.syms[p.sym + 1].ct end
end

--- The C name of tree type ty, a pointer's with the C type of its cells.
function L:type_name(t)
  if BASE_OF[t.ty] then return (self:pointee(t) or BASE_OF[t.ty]) .. " *" end
  return TYNAME[t.ty]
end

--- Whether pointer trees a and b point to cells of the same C type.
function L:same_pointee(a, b)
  return a.ty == b.ty and self:pointee(a) == self:pointee(b)
end

--- rhs converted to the type of a cell of C integer type ct (nil: int)
-- and arithmetic type ty: a double stored into a char, short or _Bool
-- cell converts to that type (C99 6.3.1.4; _Bool: x != 0), not through
-- int; an int is converted by the store itself.
function L:convert_cell(rhs, ty, ct, pos, what)
  local r = self:convert(rhs, ty, pos, what)
  if ct and r ~= rhs and r.op == "cast" and r.a.ty == "double" then r.ival = self.lay.ctypes[ct] end
  return r
end

--- An int truth value of e (a double x tests as x != 0.0, never a
-- truncating cast).
function L:truth(e, pos)
  if e.ty == "int" then return e end
  if e.ty == "double" then
    local zero = { op = "const_d", ty = "double", pos = e.pos, dval = 0.0 }
    return { op = "ne", ty = "int", pos = e.pos, a = e, b = zero }
  end
  if BASE_OF[e.ty] then return { op = "ne", ty = "int", pos = e.pos, a = e, b = self:null_like(e, e.pos) } end
  if e.ty == "null" then return { op = "const_i", ty = "int", pos = e.pos, ival = 0 } end
  self:outside(pos or e.pos, "a pointer to pointers used as a condition", "only its rows are read")
end

--- Whether tree e is a null pointer constant (C99 6.3.2.3): an int constant
-- expression of value 0, or NULL (`(void *)0`, whose tree has type "null").
function L.is_null_const(e)
  return e.ty == "null" or (e.ty == "int" and (e.op == "const_i" and e.ival or e.cval) == 0)
end

--- The null pointer of pointer tree p's type (its cells' C type and shape),
-- at source position pos.
function L:null_like(p, pos)
  return { op = "null", ty = p.ty, pos = pos, ct = self:pointee(p), dim1 = p.dim1, dim2 = p.dim2 }
end

--- e as a pointer like p where e is a null pointer constant (C's conversion
-- of NULL or 0 in a pointer context); e itself otherwise.
function L:null_to(e, p)
  if BASE_OF[p.ty] and not BASE_OF[e.ty] and L.is_null_const(e) then return self:null_like(p, e.pos) end
  return e
end

--- Refuses a pointer operand of arithmetic operator op; the operator's name
-- in the message is `pre'op'post` ("unary '-'", "'+='"), built only then
-- (this check runs for every operand).
function L:arith(e, pos, pre, op, post)
  if e.ty ~= "int" and e.ty ~= "double" then
    if e.ty == "ppdouble" or e.ty == "ppint" then
      self:outside(pos, ("arithmetic on the pointer to pointers '%s'"):format(self.syms[e.sym + 1].name),
        "only its rows are read: not yet supported")
    end
    self:outside(pos, ("%s'%s%s' on a pointer"):format(pre, op, post or ""),
      "only + and - move a pointer, by an int")
  end
end
-- }====

-- {==== writing expression rows ====}

--- Writes tree t as expression rows (pre-order: a parent before its
-- operands); returns its id.
function L:emit(t)
  return self.emit_tree(t, 0)
end

--- The writer behind L:emit: a closure with the layout's offsets and the
-- output array in upvalues, since it runs once per expression node and
-- looking them up there was most of the lowering's time.
function L:expr_writer()
  local o, arr, w, extra = self.lay.expr, self.out.expr, self.expr_w, self.expr_extra
  local OP, TYPE, A, B, C, SYM, IVAL, LINE, COL = o.OP, o.TYPE, o.A, o.B, o.C, o.SYM, o.IVAL, o.LINE, o.COL
  local expr_code, type_code, max_depth = self.expr_code, self.type_code, self.max_depth
  local nextra, dconst = #extra, self.out.dconst
  local nexpr = 0 -- rows written so far; only this writer adds any
  -- The line of the last node written: a tree's nodes mostly share one
  -- line, so its start and end are kept here and L:linecol (a method call
  -- with its own cache) is asked only when a node leaves them.
  local starts, lo, hi, line = self.starts, 1, 0, 1
  local function emit(t, depth)
    depth = depth + 1
    if depth > max_depth then
      self:outside(t.pos, "an expression nested deeper than " .. max_depth, "max_depth")
    end
    local id = nexpr
    nexpr = id + 1
    local base = id * w
    local pos = t.pos
    local col
    if self.map then line, col = self:linecol(pos) -- preprocessor output: mapped node by node
    else
      if pos < lo or pos >= hi then
        line = self:linecol(pos)
        lo, hi = starts[line], starts[line + 1] or math.huge
      end
      col = pos - lo + 1
    end
    if t.ty == "null" then -- NULL where no pointer type says which pointer it is
      self:outside(pos, "NULL as a value of no pointer type", "NULL is assigned, compared or passed as a pointer")
    end
    if t.op == "var" and (t.ty == "ppdouble" or t.ty == "ppint") and not t.pass then -- only ELEM of one is a row load (or a call's argument)
      self:outside(pos, ("the pointer to pointers '%s' used as a value"):format(self.syms[t.sym + 1].name),
        "only its rows are read (A[i], A[i][j], *A); passing, copying or comparing it is not yet supported")
    end
    local ival = t.ival or -1
    if t.op == "const_d" then
      ival = #dconst
      dconst[ival + 1] = t.dval
    end
    -- every field is written here (w of them, the header's), in row order
    arr[base + OP] = expr_code[t.op]
    arr[base + TYPE] = type_code[t.ty]
    arr[base + A] = -1
    arr[base + B] = -1
    arr[base + C] = -1
    arr[base + SYM] = t.sym or -1
    arr[base + IVAL] = ival
    arr[base + LINE] = line
    arr[base + COL] = col
    for i = 1, nextra do arr[base + extra[i]] = -1 end
    local a, b, c = t.a, t.b, t.c
    if a then arr[base + A] = emit(a, depth) end
    if b then arr[base + B] = emit(b, depth) end
    if c then arr[base + C] = emit(c, depth) end
    return id
  end
  -- a rolled-back function (L:unit) sets the count back
  self.expr_rows = function(n) nexpr = n end
  return emit
end
-- }====

-- {==== statements ====}

-- The offset of each statement part, by kind and part name (the layout's
-- stmt_parts): where L:stmt and L:set_part write.
local function part_offsets(lay)
  local off = {}
  for kind, parts in pairs(lay.stmt_parts) do
    off[kind] = {}
    for _, p in ipairs(parts) do off[kind][p.name] = p.offset end
  end
  return off
end

--- Appends a statement row to the current slice; fields by part name (an
-- expression or function id; a list or args part: its start, with the
-- count as the field NAME_n) or FLAGS; pos is its source position.
function L:stmt(kind, pos, fields, pragma)
  local base, id = self:stmt_row(kind, pos, pragma)
  local arr = self.out.stmt
  self.part_off = self.part_off or part_offsets(self.lay)
  local off = self.part_off[kind]
  for f, v in pairs(fields) do
    local o = f == "FLAGS" and self.lay.stmt.FLAGS or off[f] or (off[f:match("^(.*)_n$")] + 1)
    arr[base + o] = v
  end
  return id
end

--- Sets list or args part name of statement id (of kind kind) to the slice start, n.
function L:set_part(id, kind, name, start, n)
  self.part_off = self.part_off or part_offsets(self.lay)
  local base = id * self.lay.width.stmt + self.part_off[kind][name]
  self.out.stmt[base], self.out.stmt[base + 1] = start, n
end

--- The common part of a statement row (its X fields -1, FLAGS 0), appended
-- to the current slice; returns the row's offset in stmt[] and its id.
-- L:assign fills in its lhs and rhs itself: no table of fields per assignment.
function L:stmt_row(kind, pos, pragma)
  return self.write_stmt(kind, pos, pragma)
end

--- The writer behind L:stmt_row, a closure for the reason of
-- L:expr_writer: the layout's offsets and the output in upvalues.
function L:stmt_writer()
  local o, w, arr, codes = self.lay.stmt, self.lay.width.stmt, self.out.stmt, self.lay.stmts
  local KIND, FUNC, LINE, COL, PRAGMA, FLAGS = o.KIND, o.FUNC, o.LINE, o.COL, o.PRAGMA, o.FLAGS
  local nstmt = 0 -- rows written so far; only this writer adds any
  self.stmt_rows = function(n) nstmt = n end
  return function(kind, pos, pragma)
    local line, col = self:linecol(pos)
    local base = nstmt * w
    for i = 1, w do arr[base + i] = -1 end
    arr[base + KIND] = codes[kind]
    arr[base + FUNC] = self.fn.id
    arr[base + LINE], arr[base + COL] = line, col
    arr[base + PRAGMA] = pragma or -1
    arr[base + FLAGS] = 0
    local id = nstmt
    nstmt = id + 1
    local cur = self.cur
    cur[#cur + 1] = id
    self.nhoist = self.nhoist + 1
    return base, id
  end
end

--- Writes a finished slice into list[]; returns start, count.  An empty
-- slice starts where it would have been.
function L:slice(ids)
  local list = self.out.list
  local start = #list
  for i = 1, #ids do list[start + i] = ids[i] end
  return start, #ids
end

--- Lowers body-producing function f into a fresh slice; returns start, count.
function L:in_slice(f, ...)
  local saved = self.cur
  self.cur = {}
  self.depth = self.depth + 1
  if self.depth > self.max_depth then
    self:outside(self.depth_pos or 1, "statements nested deeper than " .. self.max_depth, "max_depth")
  end
  f(self, ...)
  self.depth = self.depth - 1
  local ids = self.cur
  self.cur = saved
  return self:slice(ids)
end

function L:assign(lhs, rhs, pos, pragma)
  local w = self.fn and self.fn.ptr_writes -- (only where a realloc needs them: kparse/heap.lua)
  if w and lhs.op == "var" and not w[lhs.sym] and BASE_OF[lhs.ty] then w[lhs.sym] = pos end
  local x0 = self:emit(lhs)
  local x1 = self:emit(rhs)
  local base, id = self:stmt_row("assign", pos, pragma)
  self.part_off = self.part_off or part_offsets(self.lay)
  local off, arr = self.part_off.assign, self.out.stmt
  arr[base + off.lhs], arr[base + off.rhs] = x0, x1
  return id
end
-- }====

M.L = L
return M
