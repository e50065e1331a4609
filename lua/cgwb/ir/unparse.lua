-- cgwb.ir.unparse: the flat arrays of a kernel -> C text of its
-- canonical form, one statement a line, so that a reader sees what
-- canonicalization did.  The text compiles with `cc -std=c99` and computes
-- what the source computes: every function is declared first, locals and
-- temporaries at the top of their function (a local of an inner block keeps
-- its value between iterations, which C leaves unspecified anyway),
-- temporaries t<N>@<line> are written t<N>_<line>, and a name used twice is
-- suffixed _2, _3, ... .  A loop's pre slice and step slice become comma
-- expressions in its header, so `continue` still runs the step and each
-- test still runs the pre slice.
local core = require "cgwb.core"
local ir = require "cgwb.ir"
local cprint = require "cgwb.ir.cprint"
local emit = require "cgwb.ir.emit"

local M = {}

local KEYWORDS = {}
for w in ([[auto break case char const continue default do double else enum extern float for goto if
  inline int long register restrict return short signed sizeof static struct switch typedef union
  unsigned void volatile while main]]):gmatch("%a+") do KEYWORDS[w] = true end

local fmt_double, fmt_int = cprint.double, cprint.int

-- {==== the writer ====}
local U = {}
U.__index = U

function U:get(tab, id, f) return self.flat[tab][id * self.lay.width[tab] + self.lay[tab][f]] end
function U:name_of(tab, id) return self.flat.names[self:get(tab, id, "NAME") + 1] end

-- A C name not yet taken in the current scope (file names plus one function's).
function U:unique(base)
  local n, s = 1, base
  while self.taken[s] or KEYWORDS[s] or self.lay.intrinsics[s] do n = n + 1; s = base .. "_" .. n end
  self.taken[s] = true
  return s
end

-- C names: functions and globals first, then each function's symbols.
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
      local a = self:agg(s)
      -- a scalar member of S *p: the IR's pointer to its one cell is C's &p->x
      if a and a.scalar then self.aname[s] = self.cname[s]; self.cname[s] = "(&" .. self.cname[s] .. ")" end
    end
  end
end

-- The C type of symbol s's cells (a pointer's: of the cells it points
-- to): "double", "int", or a narrower integer type ("char", "_Bool", ...).
function U:cell_type(s)
  local lay = self.lay
  local base = lay.types[self:get("sym", s, "BASE") + 1]
  if base ~= "int" then return base end
  return lay.ctypes[self:get("sym", s, "CTYPE") + 1]
end

-- {==== struct variables ====}
-- A struct variable is scalarized: a symbol per member, named "VAR.MEMBER"
-- and marked in flat.aggs[sym] = {var, struct (index into flat.structs),
-- member, first} (doc/kernel-ir.md).  The printers declare the variable
-- once, at its first member, and print the members' names as they are
-- (VAR.MEMBER is C's member access).

-- The struct variable's name in a member's C name ("w.gamma", "p->x").
function M.var_of(name)
  return (name:gsub("^%(&(.*)%)$", "%1"):gsub("%.[%w_]*$", ""):gsub("%->[%w_]*$", ""))
end

-- Generated text with the cells (&p->x)[0] of scalar members of struct
-- pointers written p->x (the IR's pointer to a member's one cell, printed
-- as C's &p->x, then subscripted).
function M.pretty_members(text)
  return (text:gsub("%(&([%a_][%w_]*%->[%a_][%w_]*)%)%[0%]", "%1"))
end

-- The name of symbol s as the analyses' tables key it (its C name but for
-- a scalar member of S *p, whose C name is (&p->x)).
function U:analysis_name(s) return self.aname[s] or self.cname[s] end

-- The grouping of symbol s (0-based) or nil.
function U:agg(s) return self.flat.aggs and self.flat.aggs[s] end

-- The C spelling of struct type i of flat.structs ("Wishart", "struct S").
function U:struct_name(i)
  local st = self.flat.structs[i]
  return st.typedef or ("struct " .. st.tag)
end

-- The definition of struct type i as C: its typedef (or `struct TAG {...};`).
function U:struct_def(i)
  local st = self.flat.structs[i]
  local ms = {}
  for _, m in ipairs(st.members) do
    ms[#ms + 1] = (m.const and "const " or "") .. m.base .. (m.ptr and " *" or " ") .. m.name
      .. (m.ndim > 0 and ("[" .. m.dim0 .. "]") or "")
      .. (m.ndim == 2 and ("[" .. m.dim1 .. "]") or "") .. ";"
  end
  local body = "{ " .. table.concat(ms, " ") .. " }"
  if st.typedef then return "typedef struct " .. (st.tag and (st.tag .. " ") or "") .. body .. " " .. st.typedef .. ";" end
  return "struct " .. st.tag .. " " .. body .. ";"
end

-- The definitions of the struct types symbols of the functions funcs
-- (0-based ids; nil: all) use, in flat.structs' order, as lines.
function U:struct_defs(funcs)
  local used = {}
  local v = self.v
  local list = funcs or {}
  if not funcs then for f = 0, self.nfunc - 1 do list[#list + 1] = f end end
  for _, f in ipairs(list) do
    local r = v:func(f)
    for s = r.sym0, r.sym0 + r.nsym - 1 do
      local a = self:agg(s)
      if a then used[a.struct] = true end
    end
  end
  local out = {}
  for i = 1, #(self.flat.structs or {}) do
    if used[i] then out[#out + 1] = self:struct_def(i) end
  end
  return out
end

-- The struct definitions of derivative code (cgwb.tangent, cgwb.adjoint)
-- for the functions funcs, as one text or nil: inside #ifndef
-- CGWB_USER_TYPES, so a build that includes the user's own header first
-- (cc -include kernel.h -DCGWB_USER_TYPES) does not define them twice.
function U:struct_block(funcs)
  local defs = self:struct_defs(funcs)
  if #defs == 0 then return nil end
  return "#ifndef CGWB_USER_TYPES /* the kernel's struct types (doc/kernel-language.md, \"Structs\") */\n"
    .. table.concat(defs, "\n") .. "\n#endif"
end

-- The C name of the struct variable symbol s is a member of, under the
-- names derivative code gives it: suffix after the variable's name
-- ("VARd.MEMBER"), or arrow: "VARb->MEMBER".
function U:member_name(s, suffix, arrow)
  local a = self:agg(s)
  return a.var .. suffix .. (arrow and "->" or ".") .. a.member
end
-- }====

-- The declaration of symbol s (a local or global; parameters: U:param);
-- nil for a member of a struct variable but its first (which declares the
-- variable).
function U:sym_decl(s)
  local lay = self.lay
  local a = self:agg(s)
  if a then
    if not a.first then return nil end
    if a.arrow then -- S *p (a parameter): const if its members are
      local const = (self:get("sym", s, "QUAL") & lay.qual.const) ~= 0 and "const " or ""
      return const .. self:struct_name(a.struct) .. " *" .. M.var_of(self.cname[s])
    end
    return self:struct_name(a.struct) .. " " .. M.var_of(self.cname[s])
  end
  local base = self:cell_type(s)
  local q, kind = self:get("sym", s, "QUAL"), self:get("sym", s, "KIND")
  local ptr, ndim = self:get("sym", s, "PTR"), self:get("sym", s, "NDIM")
  -- a const local is assigned by its initializing statement: only what a
  -- pointer points to, a parameter and a global stay const
  local keep = ptr >= 1 or kind == lay.sym_kinds.global or kind == lay.sym_kinds.param
  local const = ((q & lay.qual.const) ~= 0 and keep) and "const " or ""
  if ndim > 0 and ptr == 0 then
    return const .. base .. " " .. self.cname[s] .. ir.dims_text(self.v:sym(s))
  end
  if ptr == 1 then
    return const .. base .. " *" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "") .. self.cname[s]
  end
  if ptr == 2 then -- the rows are read only: const cells take const rows (what a double ** converts to)
    return const .. base .. (const ~= "" and " *const *" or " **") .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "")
      .. self.cname[s]
  end
  return const .. base .. " " .. self.cname[s]
end

-- A parameter: an array parameter with its dims as declared, const and
-- restrict kept.
function U:param(s)
  local lay = self.lay
  local ndim = self:get("sym", s, "NDIM")
  if ndim == 0 or self:agg(s) then return self:sym_decl(s) end -- a struct member: nil but at the first
  local d0 = self:get("sym", s, "DIM0")
  local q = self:get("sym", s, "QUAL")
  return ((q & lay.qual.const) ~= 0 and "const " or "") .. self:cell_type(s)
    .. " " .. self.cname[s] .. "[" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "")
    .. (d0 > 0 and d0 or "") .. "]" .. ir.dims_text(self.v:sym(s)):gsub("^%[%d*%]", "")
end
-- }====

-- {==== expressions ====}

-- The subscripts of ELEM or ADDR e (s: its symbol, for the callers' sake).
function U:subs(e, s) return self.P:subs(e) end -- luacheck: ignore s

-- Expression e as C; top: no enclosing parentheses needed.
function U:expr(e, top) return self.P:sub(e, top and 0 or 1) end
-- }====

-- {==== statements ====}

-- The struct variable an argument for a struct parameter's members names
-- (argument a: a VAR of the first member of a struct variable), with its
-- C name under name (default the writer's) stripped of ".MEMBER"; nil if
-- param s is no struct's member, false for one but its first.
function U:struct_arg(s, a, name)
  local pa = self:agg(s)
  if not pa then return nil end
  if not pa.first then return false end
  local r = self.v:expr(a)
  local y = (r.op == "var" or (r.op == "addr" and not r.a)) and r.sym
  if not (y and self:agg(y)) then error("internal: a struct argument that is not a struct variable's member") end
  return (r.op == "addr" and "&" or "") .. M.var_of((name or function(x) return self.cname[x] end)(y))
end

-- The texts of the arguments of CALL record r (a struct parameter's
-- members as the struct variable, once), each by fn(a) (an argument
-- expression) but for struct variables, named by name(sym) (nil: cname).
function U:args_text(r, fn, name)
  local params, args = self.v:func(r.callee).params, {}
  for i, a in ipairs(r.args) do
    local sa = self:struct_arg(params[i], a, name)
    if sa then args[#args + 1] = sa elseif sa == nil then args[#args + 1] = fn(a) end
  end
  return args
end

function U:call_text(st)
  local r = self.v:stmt(st)
  local args = self:args_text(r, function(a) return self:expr(a, true) end)
  local t = self:name_of("func", r.callee) .. "(" .. table.concat(args, ", ") .. ")"
  return r.lhs and (self:expr(r.lhs, true) .. " = " .. t) or t
end

-- The C call that allocates ALLOC record r's block (cells of its pointer's
-- base; the count an int expression of cells).
function U:alloc_call(r)
  local base = self.v:sym(self.v:expr(r.lhs).sym).base
  local n = "(size_t)" .. self:expr(r.count, false)
  if r.zero then return "calloc(" .. n .. ", sizeof(" .. base .. "))" end
  return "malloc(" .. n .. " * sizeof(" .. base .. "))"
end

-- Whether function f (0-based) allocates: its text needs <stdlib.h>.
function U:allocates(f)
  local v = self.v
  for s = v:func(f).sym0, v:func(f).sym0 + v:func(f).nsym - 1 do
    if v:sym(s).kind == "heap" then return true end
  end
  return false
end

-- Bytes s as one C string literal: quotes, backslashes, and bytes that are
-- no printable ASCII escaped (octal, three digits: never read on into a
-- digit), `?` after `?` too (no trigraph under -std=c99).
function M.c_string(s)
  local t = s:gsub('[%c"\\\128-\255]', function(c)
    if c == "\n" then return "\\n" elseif c == "\t" then return "\\t" end
    if c == '"' or c == "\\" then return "\\" .. c end
    return ("\\%03o"):format(c:byte())
  end):gsub("%?%?", "?\\?")
  return '"' .. t .. '"'
end

-- A passive call (printf, exit, ...; statement record r) as C: the stream
-- where its row puts it, the string literal, the value arguments as ex(id)
-- prints them.
function M.passive_text(r, ex)
  local p, parts = r.passive, {}
  if p.stream and p.at == 1 then parts[#parts + 1] = p.stream end
  if p.text == 1 then parts[#parts + 1] = M.c_string(r.text) end
  for _, a in ipairs(r.args) do parts[#parts + 1] = ex(a) end
  if p.stream and p.at == 2 then parts[#parts + 1] = p.stream end
  return p.fn .. "(" .. table.concat(parts, ", ") .. ")"
end

function U:passive_text(r) return M.passive_text(r, function(a) return self:expr(a, true) end) end

-- The headers the passive calls of functions fs (0-based ids; all if nil)
-- need, in a fixed order: {"#include <assert.h>", ...}.
function U:passive_headers(fs)
  local v, need = self.v, {}
  if not fs then fs = {}; for f = 0, v.nfunc - 1 do fs[#fs + 1] = f end end
  for _, f in ipairs(fs) do
    v:walk(v:func(f).body, function(r)
      if r.kind == "passive" then
        local fn = r.passive.fn
        need[(fn == "assert" and "assert") or ((fn == "exit" or fn == "abort") and "stdlib") or "stdio"] = true
      end
    end)
  end
  local out = {}
  for _, h in ipairs { "assert", "stdio", "stdlib" } do
    if need[h] then out[#out + 1] = "#include <" .. h .. ".h>" end
  end
  return out
end

-- The header NULL needs ("#include <stddef.h>") when an expression of the
-- kernel is the null pointer, else nil.
function U:null_header()
  local v = self.v
  for x = 0, v.nexpr - 1 do
    if v:expr(x).op == "null" then return "#include <stddef.h>" end
  end
end

-- An ASSIGN, CALL, ALLOC, FREE or PASSIVE (statement st) without its semicolon.
function U:simple(st)
  local r = self.v:stmt(st)
  if r.kind == "passive" then return self:passive_text(r) end
  if r.kind == "assign" then return self:expr(r.lhs, true) .. " = " .. self:expr(r.rhs, true) end
  if r.kind == "alloc" then return self:expr(r.lhs, true) .. " = " .. self:alloc_call(r) end
  if r.kind == "free" then return "free(" .. self:expr(r.ptr, true) .. ")" end
  return self:call_text(st)
end

function U:slice(ids)
  for _, s in ipairs(ids) do self:stmt(s) end
end

-- The statements of a slice (pre, step: assignments and calls) as a list.
function U:comma(ids)
  local parts = {}
  for i, s in ipairs(ids) do parts[i] = self:simple(s) end
  return parts
end

local STMT = ir.cases("stmt", "cgwb.ir.unparse", {
  ["assign|call|alloc|free|passive"] = function(_, u, r) u.em:line(u:simple(r.id) .. ";") end,
  ["if"] = function(_, u, r)
    u.em:open("if (" .. u:expr(r.cond, true) .. ") {")
    u:slice(r["then"])
    if #r["else"] > 0 then u.em:close("} else {"); u.em:indent(1); u:slice(r["else"]) end
    u.em:close()
  end,
  loop = function(_, u, r)
    local pre = u:comma(r.pre)
    if r.cond then pre[#pre + 1] = u:expr(r.cond, #pre == 0) end
    local test = #pre > 1 and ("(" .. table.concat(pre, ", ") .. ")") or (pre[1] or "")
    if r.form == "do" and #r.step == 0 then
      u.em:open("do {")
      u:slice(r.body)
      return u.em:close("} while (" .. (test ~= "" and test or "1") .. ");")
    end
    if r.form == "while" and #r.step == 0 then
      u.em:open("while (" .. (test ~= "" and test or "1") .. ") {")
    else
      u.em:open("for (; " .. test .. "; " .. table.concat(u:comma(r.step), ", ") .. ") {")
    end
    u:slice(r.body)
    u.em:close()
  end,
  ["return"] = function(_, u, r)
    u.em:line(r.value and ("return " .. u:expr(r.value, true) .. ";") or "return;")
  end,
  ["break|continue"] = function(kind, u) u.em:line(kind .. ";") end,
})

function U:stmt(st)
  local r = self.v:stmt(st)
  if r.pragma then
    local depth = self.em.depth
    self.em.depth = 0
    for line in (r.pragma .. "\n"):gmatch("(.-)\n") do self.em:line("#pragma cgwb " .. line) end
    self.em.depth = depth
  end
  STMT(r.kind, self, r)
end
-- }====

-- {==== the file ====}

function U:signature(f)
  local parts = {}
  local sym0, np = self:get("func", f, "SYM0"), self:get("func", f, "NPARAM")
  for s = sym0, sym0 + np - 1 do parts[#parts + 1] = self:param(s) end -- (nil for a struct's later members)
  return self.lay.types[self:get("func", f, "RET") + 1] .. " " .. self:name_of("func", f) .. "("
    .. (np == 0 and "void" or table.concat(parts, ", ")) .. ")"
end

-- The definition of global s as one line of C.
function U:global_text(s)
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
  return "static " .. self:sym_decl(s) .. rhs .. ";"
end

function U:func(f)
  local r = self.v:func(f)
  if r.external then return end -- declared: its prototype is all of it
  self.em:open(self:signature(f) .. " {")
  for s = r.sym0 + r.nparam, r.sym0 + r.nsym - 1 do
    local d = self.v:sym(s).kind ~= "heap" and self:sym_decl(s) -- a site: no variable
    if d then self.em:line(d .. ";") end
  end
  self:slice(r.body)
  self.em:close()
end

-- The functions reachable from f by calls (0-based ids, f first, then by
-- id): what a derivative-code generator (cgwb.tangent, cgwb.adjoint) emits.
function U:reachable(f) return self.v:reachable(f) end

-- A prefix no C name of the file starts with (generated locals' names).
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

-- C's keywords: names a generated identifier must avoid.
M.KEYWORDS = KEYWORDS

-- Names of derivative variables: NAME .. suffix for every double symbol of
-- the functions funcs (0-based ids), and FUNC .. ret_suffix for each one's
-- result, unique among the function's names and the file's (its
-- functions, the names in taken_file, the intrinsics, the globals, C's
-- keywords); a member of a struct variable VAR gets VAR<suffix>.MEMBER,
-- the struct of its derivatives named at the variable's first member.
-- -> {[sym] = name}, {[func] = name}, {[first member's sym] = struct's name}
function U:derivative_names(funcs, taken_file, suffix, ret_suffix)
  local file = {}
  for f = 0, self.nfunc - 1 do file[self:name_of("func", f)] = true end
  for _, n in ipairs(taken_file) do file[n] = true end
  for _, n in ipairs(self.lay.intrinsics) do file[n] = true end
  for s = 0, self.nsym - 1 do
    if self:get("sym", s, "KIND") == self.lay.sym_kinds.global then file[self.cname[s]] = true end
  end
  local dname, ret_name, dvar = {}, {}, {}
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
    local first -- the struct variable's derivative struct: named at its first member
    for s = sym0, sym0 + ns - 1 do
      local a = self:agg(s)
      if a and a.first then
        first = fresh(taken, M.var_of(self.cname[s]) .. suffix)
        dvar[s] = first
      end
      if self.lay.types[self:get("sym", s, "BASE") + 1] == "double" and self:get("sym", s, "KIND") ~= self.lay.sym_kinds.heap then
        -- a member of S *p: the derivative of p->x is pd->x, a pointer to it (what the IR's
        -- member pointer is) the address (&pd->x), whose cell [0] is pd->x
        dname[s] = a and (a.arrow and (a.scalar and ("(&" .. first .. "->" .. a.member .. ")")
          or (first .. "->" .. a.member)) or (first .. "." .. a.member)) or fresh(taken, self.cname[s] .. suffix)
      end
    end
  end
  return dname, ret_name, dvar
end

-- A 2-D or 3-D global's initializer text with a brace per row (and per
-- plane: -Wall's missing-braces).
function U:nest_rows(s, text)
  local y = self.v:sym(s)
  if y.ndim < 2 then return text end
  local head, list = text:match("^(.- = ){(.*)};$")
  if not head then return text end
  local vals = {}
  for v in (list .. ", "):gmatch("(.-), ") do vals[#vals + 1] = v end
  -- groups of n items in braces, the last group possibly short
  local function group(items, n)
    local out = {}
    for i = 1, #items, n do out[#out + 1] = "{" .. table.concat(items, ", ", i, math.min(#items, i + n - 1)) .. "}" end
    return out
  end
  local nested = group(vals, y.dims[y.ndim])
  if y.ndim == 3 then nested = group(nested, y.dims[2]) end
  return head .. "{" .. table.concat(nested, ", ") .. "};"
end

-- An operation table's C spelling of a partial (cgwb.core.graph_ops())
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

-- The static C definitions of the operation table's support functions
-- (cgwb.core.graph_support(): cg_digamma in lgamma's and tgamma's partials)
-- that a generated file's body text calls, in the table's order: a file
-- writes only those, so it compiles on its own under -Wall -Werror (an
-- unused static function is a warning).
local SUPPORT = core.graph_support()
function M.support_defs(body)
  local defs = {}
  for _, f in ipairs(SUPPORT) do
    if body:find("%f[%w_]" .. f.name .. "%f[^%w_]%s*%(") then defs[#defs + 1] = (f.text:gsub("\n$", "")) end
  end
  return defs
end

-- The writer of flat's canonical form with its C names chosen, for tools
-- that print statements and expressions of their own (cgwb.tangent):
-- w:expr(e, top), w:subs(e, s), w:simple(st), w:sym_decl(s), w:param(s),
-- w:signature(f), w:get(tab, id, field), w:reachable(f), w:free_prefix(),
-- w.cname[s] (ids 0-based).
-- The printer hook (cgwb.ir.cprint's leaf) of writer u for the scalar
-- members of a struct pointer parameter: the cell ELEM(p->x, 0) is p->x, its
-- address &p->x.
function M.member_leaf(u)
  if not u.flat.aggs then return nil end
  return function(P, r)
    local a = (r.op == "elem" or r.op == "addr") and r.sym and u:agg(r.sym)
    if not (a and a.scalar) then return nil end
    local n = P.name(r.sym):match("^%(&(.*)%)$") or P.name(r.sym)
    if r.op == "elem" then return n, 9 end
    if r.a then return "&" .. n, 8 end
  end
end

local function writer(flat, lay)
  local v = ir.view(flat)
  local u = setmetatable({ flat = flat, lay = lay, v = v, cname = {}, aname = {}, taken = {},
    nsym = v.nsym, nfunc = v.nfunc, em = emit.new() }, U)
  u.P = cprint.new(v, { parens = "all", name = function(s) return u.cname[s] end, leaf = M.member_leaf(u) })
  u:names()
  return u
end

-- The writer of flat's canonical form with its C names chosen, for tools
-- that print statements and expressions of their own (cgwb.tangent,
-- cgwb.adjoint): w:expr(e, top), w:subs(e, s), w:simple(st), w:sym_decl(s),
-- w:param(s), w:signature(f), w:global_text(s), w:get(tab, id, field),
-- w:reachable(f), w:free_prefix(), w.cname[s], w.v (the cgwb.ir view), w.P
-- (its cgwb.ir.cprint printer) (ids 0-based).
M.writer = writer

-- The canonical form of flat (cgwb.kparse's arrays) as C text.
function M.unparse(flat, lay)
  local u = writer(flat, lay)
  local em = u.em
  local heads = { "#include <math.h>" }
  for f = 0, u.nfunc - 1 do
    if u:allocates(f) then heads[2] = "#include <stdlib.h>"; break end
  end
  for _, h in ipairs(u:passive_headers()) do
    if h ~= heads[2] then heads[#heads + 1] = h end
  end
  heads[#heads + 1] = u:null_header()
  for _, h in ipairs(heads) do em:line(h) end
  for s = 0, u.nsym - 1 do
    if u:get("sym", s, "KIND") == lay.sym_kinds.global then em:line(u:nest_rows(s, u:global_text(s))) end
  end
  for _, d in ipairs(u:struct_defs()) do em:line(d) end
  for f = 0, u.nfunc - 1 do em:line(u:signature(f) .. ";") end
  for f = 0, u.nfunc - 1 do u:func(f) end
  return em:text() .. "\n"
end
-- }====

return M
