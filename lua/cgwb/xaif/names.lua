-- cgwb.xaif.names: what the writer, the reader and the Lua flattening of
-- XAIF (lua/cgwb/xaif/) share: the XAIF namespace, the names XAIF gives the
-- kernel's operations and types (and back), and the names of cells (p[e],
-- e linear over the int parameters' entry values).  Internal to cgwb.xaif.
local core = require "cgwb.core"

local NS = "http://www.mcs.anl.gov/XAIF"
local LAYOUT = core.kernel_layout()

-- {==== names of operations ====}

-- Kernel operator or intrinsic -> XAIF Intrinsic name (the names of XAIF's
-- inlinable intrinsics catalogue where it has one; cgwb_* where it has none).
-- An intrinsic's name is its row's of CG_KINTRINSICS (core.kernel_layout().xaif).
local OP_XAIF = {
  add = "add_scal_scal", sub = "sub_scal_scal", mul = "mul_scal_scal", div = "div_scal_scal",
  neg = "minus_scal", mod = "mod_scal_scal", ptradd = "cgwb_ptradd", cond = "cgwb_cond",
}
for _, nm in ipairs(LAYOUT.intrinsics) do OP_XAIF[nm] = LAYOUT.xaif[nm] end
-- Comparisons and logic: XAIF BooleanOperation names.
local BOOL_XAIF = {
  lt = "less_than", le = "less_or_equal", gt = "greater_than", ge = "greater_or_equal",
  eq = "equal", ne = "not_equal", ["and"] = "and", ["or"] = "or", ["not"] = "not",
}
-- A conversion to a C integer type narrower than int ((char)x; the layout's
-- ctypes): cgwb_<type>_scal ("cgwb_unsigned_char_scal"), integer-valued.
local CONV_XAIF, XAIF_CONV = {}, {}
for _, ct in ipairs(LAYOUT.ctypes) do
  if ct ~= "int" then
    CONV_XAIF[ct] = "cgwb_" .. ct:gsub(" ", "_") .. "_scal"
    XAIF_CONV[CONV_XAIF[ct]] = ct
  end
end
local XAIF_OP, XAIF_BOOL = {}, {}
for k, v in pairs(OP_XAIF) do
  if XAIF_OP[v] then -- the reader could not tell them apart
    local a, b = k < XAIF_OP[v] and k or XAIF_OP[v], k < XAIF_OP[v] and XAIF_OP[v] or k
    error(("cgwb.xaif: %s and %s have the same XAIF name, %s"):format(a, b, v))
  end
  XAIF_OP[v] = k
end
for k, v in pairs(BOOL_XAIF) do XAIF_BOOL[v] = k end
local INTRINSIC = {}
for i = 1, #LAYOUT.intrinsics do INTRINSIC[LAYOUT.intrinsics[i]] = true end

-- The split strategies the Lua flattening of an imported model (cgwb.xaif.describe)
-- applies itself; the cuts of every other (a Lua script's, a built-in row
-- added to CG_KFLAT_STRATEGIES) are written in the file, cgwb:split.
local RERUN = { minimal = true, statement = true }

-- Kernel types as XAIF types (rType of an Intrinsic, type of a Constant).
local TYPE_XAIF = { int = "integer", double = "real", ["double *"] = "pointer", ["int *"] = "pointer", void = "void" }
local XAIF_TYPE = { integer = "int", real = "double", double = "double", pointer = "pointer", bool = "int" }

-- }====

-- {==== cell names: p[e], e linear over the int parameters' entry values ====}

-- A subscript of an exact name ("k+2*n-1", "-k+3", "0") as {terms = {{name,
-- coef}...}, const = c}, or nil when it is not of that form.
local function parse_linear(e)
  local terms, const, pos = {}, 0, 1
  if e == "" then return nil end
  while pos <= #e do
    local sign, body, nxt = e:match("^([+-]?)([^+-]+)()", pos)
    if not body or (sign == "" and pos > 1) then return nil end
    local c, id = body:match("^(%d+)%*([%a_][%w_]*)$")
    local k = sign == "-" and -1 or 1
    if c then terms[#terms + 1] = { id, k * tonumber(c) }
    elseif body:match("^[%a_][%w_]*$") then terms[#terms + 1] = { body, k }
    elseif body:match("^%d+$") then const = const + k * tonumber(body)
    else return nil end
    pos = nxt
  end
  return { terms = terms, const = math.tointeger(const) }
end

-- The canonical text of a linear form: terms in order, a coefficient other
-- than 1 as 2*k, the constant last (the form names are printed in).
local function linear_text(l)
  local out = {}
  for i, t in ipairs(l.terms) do
    local c, id = t[2], t[1]
    local s = c == 1 and id or (c == -1 and "-" .. id or c .. "*" .. id)
    if i > 1 and c > 0 then s = "+" .. s end
    out[#out + 1] = s
  end
  if #out == 0 then out[1] = tostring(l.const)
  elseif l.const > 0 then out[#out + 1] = "+" .. l.const
  elseif l.const < 0 then out[#out + 1] = tostring(l.const) end
  return table.concat(out)
end

-- An exact name "p[e]" or "u[1][2]" as the symbol's name and the linear
-- subscripts, or nil (a scalar, or a form this writer would not print back
-- the same).
local function parse_cell(name)
  local sym, rest = name:match("^([%a_][%w_]*)(%[.*%])$")
  if not sym then return nil end
  local subs = {}
  for e in rest:gmatch("%[([^%[%]]*)%]") do
    local l = parse_linear(e)
    if not l or linear_text(l) ~= e then return nil end
    subs[#subs + 1] = l
  end
  if sym .. "[" .. table.concat((function()
       local t = {} for i, l in ipairs(subs) do t[i] = linear_text(l) end return t end)(), "][") .. "]" ~= name then
    return nil
  end
  return sym, subs
end

-- }====

return {
  NS = NS, LAYOUT = LAYOUT,
  OP_XAIF = OP_XAIF, BOOL_XAIF = BOOL_XAIF, XAIF_OP = XAIF_OP, XAIF_BOOL = XAIF_BOOL,
  CONV_XAIF = CONV_XAIF, XAIF_CONV = XAIF_CONV,
  INTRINSIC = INTRINSIC, TYPE_XAIF = TYPE_XAIF, XAIF_TYPE = XAIF_TYPE, RERUN = RERUN,
  parse_linear = parse_linear, linear_text = linear_text, parse_cell = parse_cell,
}
