--- cgwb.kparse.unparse: the flat arrays of a kernel -> C text of its
-- canonical form, one statement a line, so that a reader sees what
-- canonicalization did.  The text compiles with `cc -std=c99` and computes
-- what the source computes: every function is declared first, locals and
-- temporaries at the top of their function (a local of an inner block keeps
-- its value between iterations, which C leaves unspecified anyway),
-- temporaries t<N>@<line> are written t<N>_<line>, and a name used twice is
-- suffixed _2, _3, ... .  A loop's pre slice and step slice become comma
-- expressions in its header, so `continue` still runs the step and each
-- test still runs the pre slice.
local M = {}

local KEYWORDS = {}
for w in ([[auto break case char const continue default do double else enum extern float for goto if
  inline int long register restrict return short signed sizeof static struct switch typedef union
  unsigned void volatile while main]]):gmatch("%a+") do KEYWORDS[w] = true end

local BINOP = { add = "+", sub = "-", mul = "*", div = "/", mod = "%", lt = "<", le = "<=", gt = ">",
  ge = ">=", eq = "==", ne = "!=", ["and"] = "&&", ["or"] = "||" }

--- A double constant as C: %.17g with a point, the math.h names for inf and nan.
local function fmt_double(v)
  if v ~= v then return "NAN" end
  if v == math.huge then return "HUGE_VAL" end
  if v == -math.huge then return "(-HUGE_VAL)" end
  local s = ("%.17g"):format(v)
  if not s:find("[%.eE]") then s = s .. ".0" end
  if v < 0 or (v == 0 and 1 / v < 0) then s = "(" .. s .. ")" end
  return s
end

local function fmt_int(v)
  if v == -2147483648 then return "(-2147483647 - 1)" end
  if v < 0 then return ("(%d)"):format(v) end
  return ("%d"):format(v)
end

-- {==== the writer ====}
local U = {}
U.__index = U

function U:get(tab, id, f) return self.flat[tab][id * self.lay.width[tab] + self.lay[tab][f]] end
function U:put(ind, s) self.out[#self.out + 1] = ("  "):rep(ind) .. s end
function U:name_of(tab, id) return self.flat.names[self:get(tab, id, "NAME") + 1] end

--- A C name not yet taken in the current scope (file names plus one function's).
function U:unique(base)
  local n, s = 1, base
  while self.taken[s] or KEYWORDS[s] or self.lay.intrinsics[s] do n = n + 1; s = base .. "_" .. n end
  self.taken[s] = true
  return s
end

--- C names: functions and globals first, then each function's symbols.
function U:names()
  local lay = self.lay
  for f = 0, self.nfunc - 1 do self.taken[self:name_of("func", f)] = true end
  for s = 0, self.nsym - 1 do
    if self:get("sym", s, "KIND") == lay.sym_kinds.global then
      self.cname[s] = self:unique((self:name_of("sym", s):gsub("@", "_")))
    end
  end
  local file_names = self.taken
  for f = 0, self.nfunc - 1 do
    self.taken = {}
    for k in pairs(file_names) do self.taken[k] = true end
    local sym0 = self:get("func", f, "SYM0")
    for s = sym0, sym0 + self:get("func", f, "NSYM") - 1 do
      self.cname[s] = self:unique((self:name_of("sym", s):gsub("@", "_")))
    end
  end
end

--- The declaration of symbol s (a local or global; parameters: U:param).
function U:sym_decl(s)
  local lay = self.lay
  local base = lay.types[self:get("sym", s, "BASE") + 1]
  local q, kind = self:get("sym", s, "QUAL"), self:get("sym", s, "KIND")
  local ptr, ndim = self:get("sym", s, "PTR"), self:get("sym", s, "NDIM")
  -- a const local is assigned by its initializing statement: only what a
  -- pointer points to, a parameter and a global stay const
  local keep = ptr == 1 or kind == lay.sym_kinds.global or kind == lay.sym_kinds.param
  local const = ((q & lay.qual.const) ~= 0 and keep) and "const " or ""
  if ndim > 0 and ptr == 0 then
    local d0, d1 = self:get("sym", s, "DIM0"), self:get("sym", s, "DIM1")
    return const .. base .. " " .. self.cname[s] .. "[" .. d0 .. "]" .. (ndim == 2 and ("[" .. d1 .. "]") or "")
  end
  if ptr == 1 then
    return const .. base .. " *" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "") .. self.cname[s]
  end
  return const .. base .. " " .. self.cname[s]
end

--- A parameter: an array parameter with its dims as declared, const and
-- restrict kept.
function U:param(s)
  local lay = self.lay
  local ndim = self:get("sym", s, "NDIM")
  if ndim == 0 then return self:sym_decl(s) end
  local d0, d1 = self:get("sym", s, "DIM0"), self:get("sym", s, "DIM1")
  local q = self:get("sym", s, "QUAL")
  return ((q & lay.qual.const) ~= 0 and "const " or "") .. lay.types[self:get("sym", s, "BASE") + 1]
    .. " " .. self.cname[s] .. "[" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "")
    .. (d0 > 0 and d0 or "") .. "]" .. (ndim == 2 and ("[" .. d1 .. "]") or "")
end
-- }====

-- {==== expressions ====}

--- The subscripts of ELEM or ADDR e on symbol s.
function U:subs(e, s)
  local a, b = self:get("expr", e, "A"), self:get("expr", e, "B")
  if self:get("sym", s, "NDIM") == 2 and b >= 0 then
    return "[" .. self:expr(a, true) .. "][" .. self:expr(b, true) .. "]"
  end
  return "[" .. self:expr(a, true) .. "]"
end

function U:addr(e, s)
  local a, b = self:get("expr", e, "A"), self:get("expr", e, "B")
  local ndim = self:get("sym", s, "NDIM")
  if a < 0 then return ndim > 0 and self.cname[s] or ("&" .. self.cname[s]), true end
  if ndim == 2 and b < 0 then return self.cname[s] .. "[" .. self:expr(a, true) .. "]", true end
  return "&" .. self.cname[s] .. self:subs(e, s), false
end

--- Expression e as C; top: no enclosing parentheses needed.
function U:expr(e, top)
  local lay = self.lay
  local op = lay.exprs[self:get("expr", e, "OP") + 1]
  local a, b, c = self:get("expr", e, "A"), self:get("expr", e, "B"), self:get("expr", e, "C")
  local s = self:get("expr", e, "SYM")
  local r, atom
  if op == "const_i" then return fmt_int(self:get("expr", e, "IVAL"))
  elseif op == "const_d" then return fmt_double(self.flat.dconst[self:get("expr", e, "IVAL") + 1])
  elseif op == "var" then return self.cname[s]
  elseif op == "elem" then return self.cname[s] .. self:subs(e, s)
  elseif op == "addr" then
    r, atom = self:addr(e, s)
    if atom then return r end
  elseif op == "intrin" then
    return lay.intrinsics[s + 1] .. "(" .. self:expr(a, true) .. (b >= 0 and (", " .. self:expr(b, true)) or "") .. ")"
  elseif op == "ptradd" then r = self:expr(a) .. " + " .. self:expr(b)
  elseif op == "neg" then r = "-" .. self:expr(a)
  elseif op == "not" then r = "!" .. self:expr(a)
  elseif op == "cond" then r = self:expr(a) .. " ? " .. self:expr(b) .. " : " .. self:expr(c)
  elseif op == "cast" then r = "(" .. lay.types[self:get("expr", e, "TYPE") + 1] .. ")" .. self:expr(a)
  else r = self:expr(a) .. " " .. BINOP[op] .. " " .. self:expr(b) end
  return top and r or ("(" .. r .. ")")
end
-- }====

-- {==== statements ====}

function U:call_text(st)
  local args = {}
  local first = self:get("stmt", st, "X1")
  for i = 1, self:get("stmt", st, "X2") do args[i] = self:expr(self.flat.args[first + i], true) end
  local t = self:name_of("func", self:get("stmt", st, "X0")) .. "(" .. table.concat(args, ", ") .. ")"
  local lhs = self:get("stmt", st, "X3")
  return lhs >= 0 and (self:expr(lhs, true) .. " = " .. t) or t
end

--- An ASSIGN or CALL without its semicolon.
function U:simple(st)
  if self.lay.stmts[self:get("stmt", st, "KIND") + 1] == "assign" then
    return self:expr(self:get("stmt", st, "X0"), true) .. " = " .. self:expr(self:get("stmt", st, "X1"), true)
  end
  return self:call_text(st)
end

function U:slice(start, n, ind)
  for i = 1, n do self:stmt(self.flat.list[start + i], ind) end
end

--- The statements of a slice (pre, step: assignments and calls) as a list.
function U:comma(start, n)
  local parts = {}
  for i = 1, n do parts[i] = self:simple(self.flat.list[start + i]) end
  return parts
end

function U:loop(st, ind, x)
  local pre = self:comma(x[5], x[6])
  if x[0] >= 0 then pre[#pre + 1] = self:expr(x[0], #pre == 0) end
  local test = #pre > 1 and ("(" .. table.concat(pre, ", ") .. ")") or (pre[1] or "")
  local flag = self.lay.loop_kinds[self:get("stmt", st, "FLAGS") + 1]
  if flag == "do" and x[4] == 0 then
    self:put(ind, "do {")
    self:slice(x[1], x[2], ind + 1)
    return self:put(ind, "} while (" .. (test ~= "" and test or "1") .. ");")
  end
  if flag == "while" and x[4] == 0 then
    self:put(ind, "while (" .. (test ~= "" and test or "1") .. ") {")
  else
    self:put(ind, "for (; " .. test .. "; " .. table.concat(self:comma(x[3], x[4]), ", ") .. ") {")
  end
  self:slice(x[1], x[2], ind + 1)
  self:put(ind, "}")
end

function U:stmt(st, ind)
  local kind = self.lay.stmts[self:get("stmt", st, "KIND") + 1]
  local pragma = self:get("stmt", st, "PRAGMA")
  if pragma >= 0 then
    for line in (self.flat.names[pragma + 1] .. "\n"):gmatch("(.-)\n") do self:put(0, "#pragma cgwb " .. line) end
  end
  local x = {}
  for i = 0, 6 do x[i] = self:get("stmt", st, "X" .. i) end
  if kind == "assign" or kind == "call" then self:put(ind, self:simple(st) .. ";")
  elseif kind == "if" then
    self:put(ind, "if (" .. self:expr(x[0], true) .. ") {")
    self:slice(x[1], x[2], ind + 1)
    if x[4] > 0 then self:put(ind, "} else {"); self:slice(x[3], x[4], ind + 1) end
    self:put(ind, "}")
  elseif kind == "loop" then self:loop(st, ind, x)
  elseif kind == "return" then self:put(ind, x[0] >= 0 and ("return " .. self:expr(x[0], true) .. ";") or "return;")
  else self:put(ind, kind .. ";") end
end
-- }====

-- {==== the file ====}

function U:signature(f)
  local parts = {}
  local sym0, np = self:get("func", f, "SYM0"), self:get("func", f, "NPARAM")
  for s = sym0, sym0 + np - 1 do parts[#parts + 1] = self:param(s) end
  return self.lay.types[self:get("func", f, "RET") + 1] .. " " .. self:name_of("func", f) .. "("
    .. (np == 0 and "void" or table.concat(parts, ", ")) .. ")"
end

function U:global(s)
  local init, n = self:get("sym", s, "INIT"), self:get("sym", s, "NINIT")
  local int = self.lay.types[self:get("sym", s, "BASE") + 1] == "int"
  local vals = {}
  for i = 1, n do
    local v = self.flat.dconst[init + i]
    vals[i] = int and fmt_int(math.tointeger(v)) or fmt_double(v)
  end
  local rhs = ""
  if n > 0 then
    rhs = self:get("sym", s, "NDIM") > 0 and (" = {" .. table.concat(vals, ", ") .. "}") or (" = " .. vals[1])
  end
  self:put(0, "static " .. self:sym_decl(s) .. rhs .. ";")
end

function U:func(f)
  self:put(0, self:signature(f) .. " {")
  local sym0, ns, np = self:get("func", f, "SYM0"), self:get("func", f, "NSYM"), self:get("func", f, "NPARAM")
  for s = sym0 + np, sym0 + ns - 1 do self:put(1, self:sym_decl(s) .. ";") end
  self:slice(self:get("func", f, "BODY"), self:get("func", f, "NBODY"), 1)
  self:put(0, "}")
end

--- The functions reachable from f by calls (0-based ids, f first, then by
-- id): what a derivative-code generator (cgwb.tangent, cgwb.adjoint) emits.
function U:reachable(f)
  local seen, list = { [f] = true }, { f }
  local i = 1
  while i <= #list do
    local g = list[i]
    local stack = {}
    for j = 1, self:get("func", g, "NBODY") do stack[#stack + 1] = self.flat.list[self:get("func", g, "BODY") + j] end
    while #stack > 0 do
      local st = table.remove(stack)
      local kind = self.lay.stmts[self:get("stmt", st, "KIND") + 1]
      if kind == "call" then
        local h = self:get("stmt", st, "X0")
        if not seen[h] then seen[h] = true; list[#list + 1] = h end
      elseif kind == "if" or kind == "loop" then
        for _, p in ipairs(kind == "if" and { 1, 3 } or { 1, 3, 5 }) do
          for j = 1, self:get("stmt", st, "X" .. (p + 1)) do
            stack[#stack + 1] = self.flat.list[self:get("stmt", st, "X" .. p) + j]
          end
        end
      end
    end
    i = i + 1
  end
  local rest = { table.unpack(list, 2) }
  table.sort(rest)
  return { f, table.unpack(rest) }
end

--- A prefix no C name of the file starts with (generated locals' names).
function U:free_prefix()
  local names = {}
  for s = 0, self.nsym - 1 do names[#names + 1] = self.cname[s] end
  for f = 0, self.nfunc - 1 do names[#names + 1] = self:name_of("func", f) end
  local n = 0
  while true do
    local p = n == 0 and "cg_" or ("cg" .. n .. "_")
    local clash = false
    for _, x in ipairs(names) do if x:sub(1, #p) == p then clash = true; break end end
    if not clash then return p end
    n = n + 1
  end
end

--- C's keywords: names a generated identifier must avoid.
M.KEYWORDS = KEYWORDS

--- Names of derivative variables: NAME .. suffix for every double symbol of
-- the functions funcs (0-based ids), and FUNC .. ret_suffix for each one's
-- result, unique among the function's names and the file's (its
-- functions, the names in taken_file, the intrinsics, the globals, C's
-- keywords).  -> {[sym] = name}, {[func] = name}
function U:derivative_names(funcs, taken_file, suffix, ret_suffix)
  local file = {}
  for f = 0, self.nfunc - 1 do file[self:name_of("func", f)] = true end
  for _, n in ipairs(taken_file) do file[n] = true end
  for _, n in ipairs(self.lay.intrinsics) do file[n] = true end
  for s = 0, self.nsym - 1 do
    if self:get("sym", s, "KIND") == self.lay.sym_kinds.global then file[self.cname[s]] = true end
  end
  local dname, ret_name = {}, {}
  local function fresh(taken, base)
    local t, n = base, 1
    while taken[t] or M.KEYWORDS[t] do n = n + 1; t = base .. "_" .. n end
    taken[t] = true
    return t
  end
  for _, f in ipairs(funcs) do
    local taken = setmetatable({}, { __index = file })
    local sym0, ns = self:get("func", f, "SYM0"), self:get("func", f, "NSYM")
    for s = sym0, sym0 + ns - 1 do taken[self.cname[s]] = true end
    ret_name[f] = fresh(taken, self:name_of("func", f) .. ret_suffix)
    for s = sym0, sym0 + ns - 1 do
      if self.lay.types[self:get("sym", s, "BASE") + 1] == "double" then dname[s] = fresh(taken, self.cname[s] .. suffix) end
    end
  end
  return dname, ret_name
end

--- A 2-D global's initializer text with a brace per row (-Wall's missing-braces).
function U:nest_rows(s, text)
  if self:get("sym", s, "NDIM") ~= 2 then return text end
  local head, list = text:match("^(.- = ){(.*)};$")
  if not head then return text end
  local vals, rows, n = {}, {}, self:get("sym", s, "DIM1")
  for v in (list .. ", "):gmatch("(.-), ") do vals[#vals + 1] = v end
  for i = 1, #vals, n do rows[#rows + 1] = "{" .. table.concat(vals, ", ", i, math.min(#vals, i + n - 1)) .. "}" end
  return head .. "{" .. table.concat(rows, ", ") .. "};"
end

--- An operation table's C spelling of a partial (cgwb.core.graph_ops())
-- with its operands A0..A2 replaced by args[1..3] and its result R by r,
-- for the derivative-code generators; nil, message for a spelling that
-- reads the operation's constant (C, XI), which kernels never give.
function M.spell_partial(text, args, r)
  if text:find("%f[%w_]C%f[^%w_]") or text:find("%f[%w_]XI%f[^%w_]") then
    return nil, "a partial reading the operation's constant: " .. text
  end
  return (text:gsub("%f[%w_]([AR]%d?)%f[^%w_]", function(t)
    if t == "R" then return r end
    local i = tonumber(t:sub(2))
    return i and args[i + 1] or t
  end))
end

--- The writer of flat's canonical form with its C names chosen, for tools
-- that print statements and expressions of their own (cgwb.tangent):
-- w:expr(e, top), w:subs(e, s), w:simple(st), w:sym_decl(s), w:param(s),
-- w:signature(f), w:get(tab, id, field), w:reachable(f), w:free_prefix(),
-- w.cname[s] (ids 0-based).
function M.writer(flat, lay)
  local u = setmetatable({ flat = flat, lay = lay, out = {}, cname = {}, taken = {},
    nsym = #flat.sym // lay.width.sym, nfunc = #flat.func // lay.width.func }, U)
  u:names()
  return u
end

--- The canonical form of flat (cgwb.kparse's arrays) as C text.
function M.unparse(flat, lay)
  local u = setmetatable({ flat = flat, lay = lay, out = {}, cname = {}, taken = {},
    nsym = #flat.sym // lay.width.sym, nfunc = #flat.func // lay.width.func }, U)
  u:names()
  u:put(0, "#include <math.h>")
  for s = 0, u.nsym - 1 do
    if u:get("sym", s, "KIND") == lay.sym_kinds.global then u:global(s) end
  end
  for f = 0, u.nfunc - 1 do u:put(0, u:signature(f) .. ";") end
  for f = 0, u.nfunc - 1 do u:func(f) end
  return table.concat(u.out, "\n") .. "\n"
end
-- }====

return M
