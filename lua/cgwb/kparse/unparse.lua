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

local BINOP = { add = "+", sub = "-", mul = "*", div = "/", mod = "%", lt = "<", le = "<=", gt = ">",
  ge = ">=", eq = "==", ne = "!=", ["and"] = "&&", ["or"] = "||" }

--- An accessor over the flat arrays: field(tab, id, FIELD).
local function reader(flat, lay)
  return function(tab, id, f) return flat[tab][id * lay.width[tab] + lay[tab][f]] end
end

function M.unparse(flat, lay)
  local get = reader(flat, lay)
  local names = flat.names
  local nsym = #flat.sym // lay.width.sym
  local nfunc = #flat.func // lay.width.func
  local tyname = lay.types
  local cname = {} -- symbol id -> C name
  local taken = {}
  local function unique(base)
    local n, s = 1, base
    while taken[s] or KEYWORDS[s] or lay.intrinsics[s] do n = n + 1; s = base .. "_" .. n end
    taken[s] = true
    return s
  end
  for f = 0, nfunc - 1 do taken[names[get("func", f, "NAME") + 1]] = true end
  local fname = {}
  for f = 0, nfunc - 1 do fname[f] = names[get("func", f, "NAME") + 1] end
  for s = 0, nsym - 1 do
    if get("sym", s, "KIND") == lay.sym_kinds.global then
      cname[s] = unique((names[get("sym", s, "NAME") + 1]:gsub("@", "_")))
    end
  end

  local out = {}
  local function put(ind, s) out[#out + 1] = ("  "):rep(ind) .. s end

  local function sym_decl(s, with_name)
    local base = tyname[get("sym", s, "BASE") + 1]
    local q = get("sym", s, "QUAL")
    local ptr, ndim = get("sym", s, "PTR"), get("sym", s, "NDIM")
    local d0, d1 = get("sym", s, "DIM0"), get("sym", s, "DIM1")
    -- a const local is assigned by its initializing statement: only what a
    -- pointer points to, a parameter and a global stay const
    local kind = get("sym", s, "KIND")
    local keep = ptr == 1 or kind == lay.sym_kinds.global or kind == lay.sym_kinds.param
    local const = ((q & lay.qual.const) ~= 0 and keep) and "const " or ""
    local n = with_name and cname[s] or ""
    if ndim > 0 then
      local dims = "[" .. (d0 > 0 and d0 or "") .. "]" .. (ndim == 2 and ("[" .. d1 .. "]") or "")
      return const .. base .. " " .. n .. dims
    end
    if ptr == 1 then
      return const .. base .. " *" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "") .. n
    end
    return const .. base .. " " .. n
  end

  local expr
  local function sub(e, s)
    local ndim = get("sym", s, "NDIM")
    local a, b = get("expr", e, "A"), get("expr", e, "B")
    if ndim == 2 and b >= 0 then return "[" .. expr(a, true) .. "][" .. expr(b, true) .. "]" end
    return "[" .. expr(a, true) .. "]"
  end
  function expr(e, top)
    local op = lay.exprs[get("expr", e, "OP") + 1]
    local a, b, c = get("expr", e, "A"), get("expr", e, "B"), get("expr", e, "C")
    local s = get("expr", e, "SYM")
    local r
    if op == "const_i" then return fmt_int(get("expr", e, "IVAL"))
    elseif op == "const_d" then return fmt_double(flat.dconst[get("expr", e, "IVAL") + 1])
    elseif op == "var" then return cname[s]
    elseif op == "elem" then return cname[s] .. sub(e, s)
    elseif op == "addr" then
      local ndim = get("sym", s, "NDIM")
      if a < 0 then return ndim > 0 and cname[s] or ("&" .. cname[s]) end
      if ndim == 2 and b < 0 then return cname[s] .. "[" .. expr(a, true) .. "]" end
      r = "&" .. cname[s] .. sub(e, s)
    elseif op == "ptradd" then r = expr(a) .. " + " .. expr(b)
    elseif op == "neg" then r = "-" .. expr(a)
    elseif op == "not" then r = "!" .. expr(a)
    elseif op == "cond" then r = expr(a) .. " ? " .. expr(b) .. " : " .. expr(c)
    elseif op == "cast" then r = "(" .. tyname[get("expr", e, "TYPE") + 1] .. ")" .. expr(a)
    elseif op == "intrin" then
      return lay.intrinsics[s + 1] .. "(" .. expr(a, true) .. (b >= 0 and (", " .. expr(b, true)) or "") .. ")"
    else r = expr(a) .. " " .. BINOP[op] .. " " .. expr(b) end
    return top and r or ("(" .. r .. ")")
  end

  local function call_text(st)
    local args = {}
    local first, n = get("stmt", st, "X1"), get("stmt", st, "X2")
    for i = 1, n do args[i] = expr(flat.args[first + i], true) end
    local t = fname[get("stmt", st, "X0")] .. "(" .. table.concat(args, ", ") .. ")"
    local lhs = get("stmt", st, "X3")
    return lhs >= 0 and (expr(lhs, true) .. " = " .. t) or t
  end

  local stmt
  local function slice(start, n, ind)
    for i = 1, n do stmt(flat.list[start + i], ind) end
  end
  -- The statements of a slice as one comma expression (pre and step).
  local function comma(start, n)
    local parts = {}
    for i = 1, n do
      local st = flat.list[start + i]
      local kind = lay.stmts[get("stmt", st, "KIND") + 1]
      if kind == "assign" then
        parts[i] = expr(get("stmt", st, "X0"), true) .. " = " .. expr(get("stmt", st, "X1"), true)
      else parts[i] = call_text(st) end
    end
    return parts
  end
  function stmt(st, ind)
    local kind = lay.stmts[get("stmt", st, "KIND") + 1]
    local pragma = get("stmt", st, "PRAGMA")
    if pragma >= 0 then
      for line in (names[pragma + 1] .. "\n"):gmatch("(.-)\n") do put(0, "#pragma cgwb " .. line) end
    end
    local x = {}
    for i = 0, 6 do x[i] = get("stmt", st, "X" .. i) end
    if kind == "assign" then put(ind, expr(x[0], true) .. " = " .. expr(x[1], true) .. ";")
    elseif kind == "call" then put(ind, call_text(st) .. ";")
    elseif kind == "if" then
      put(ind, "if (" .. expr(x[0], true) .. ") {")
      slice(x[1], x[2], ind + 1)
      if x[4] > 0 then put(ind, "} else {"); slice(x[3], x[4], ind + 1) end
      put(ind, "}")
    elseif kind == "loop" then
      local pre = comma(x[5], x[6])
      if x[0] >= 0 then pre[#pre + 1] = expr(x[0], #pre == 0) end
      local test = #pre > 1 and ("(" .. table.concat(pre, ", ") .. ")") or (pre[1] or "")
      local flags = lay.loop_kinds[get("stmt", st, "FLAGS") + 1]
      local step = table.concat(comma(x[3], x[4]), ", ")
      if flags == "do" and x[4] == 0 then
        put(ind, "do {")
        slice(x[1], x[2], ind + 1)
        put(ind, "} while (" .. (test ~= "" and test or "1") .. ");")
      elseif flags == "while" and x[4] == 0 then
        put(ind, "while (" .. (test ~= "" and test or "1") .. ") {")
        slice(x[1], x[2], ind + 1)
        put(ind, "}")
      else
        put(ind, "for (; " .. test .. "; " .. step .. ") {")
        slice(x[1], x[2], ind + 1)
        put(ind, "}")
      end
    elseif kind == "return" then put(ind, x[0] >= 0 and ("return " .. expr(x[0], true) .. ";") or "return;")
    else put(ind, kind .. ";") end
  end

  local function signature(f)
    local parts = {}
    local sym0, np = get("func", f, "SYM0"), get("func", f, "NPARAM")
    for s = sym0, sym0 + np - 1 do
      local ndim = get("sym", s, "NDIM")
      if ndim > 0 then
        -- an array parameter: its dims as declared, const and restrict kept
        local d0, d1 = get("sym", s, "DIM0"), get("sym", s, "DIM1")
        local q = get("sym", s, "QUAL")
        parts[#parts + 1] = ((q & lay.qual.const) ~= 0 and "const " or "") .. tyname[get("sym", s, "BASE") + 1]
          .. " " .. cname[s] .. "[" .. ((q & lay.qual.restrict) ~= 0 and "restrict " or "")
          .. (d0 > 0 and d0 or "") .. "]" .. (ndim == 2 and ("[" .. d1 .. "]") or "")
      else
        parts[#parts + 1] = sym_decl(s, true)
      end
    end
    return tyname[get("func", f, "RET") + 1] .. " " .. fname[f] .. "(" .. (np == 0 and "void"
      or table.concat(parts, ", ")) .. ")"
  end

  -- names first, so prototypes and bodies agree
  local file_names = taken
  for f = 0, nfunc - 1 do
    local sym0, ns = get("func", f, "SYM0"), get("func", f, "NSYM")
    taken = {}
    for k in pairs(file_names) do taken[k] = true end
    for s = sym0, sym0 + ns - 1 do cname[s] = unique((names[get("sym", s, "NAME") + 1]:gsub("@", "_"))) end
  end

  put(0, "#include <math.h>")
  for s = 0, nsym - 1 do
    if get("sym", s, "KIND") == lay.sym_kinds.global then
      local init, n = get("sym", s, "INIT"), get("sym", s, "NINIT")
      local base = tyname[get("sym", s, "BASE") + 1]
      local vals = {}
      for i = 1, n do
        local v = flat.dconst[init + i]
        vals[i] = base == "int" and fmt_int(math.tointeger(v)) or fmt_double(v)
      end
      local rhs = ""
      if n > 0 then
        rhs = get("sym", s, "NDIM") > 0 and (" = {" .. table.concat(vals, ", ") .. "}") or (" = " .. vals[1])
      end
      put(0, "static " .. sym_decl(s, true) .. rhs .. ";")
    end
  end
  for f = 0, nfunc - 1 do put(0, signature(f) .. ";") end
  for f = 0, nfunc - 1 do
    put(0, signature(f) .. " {")
    local sym0, ns, np = get("func", f, "SYM0"), get("func", f, "NSYM"), get("func", f, "NPARAM")
    for s = sym0 + np, sym0 + ns - 1 do put(1, sym_decl(s, true) .. ";") end
    slice(get("func", f, "BODY"), get("func", f, "NBODY"), 1)
    put(0, "}")
  end
  return table.concat(out, "\n") .. "\n"
end

return M
