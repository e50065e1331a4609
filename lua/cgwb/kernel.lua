--- cgwb.kernel: the Lua face of kernels (doc/kernels.md).
-- cgwb.read_kernel reads a kernel file (or text) through the LPeg front end
-- (cgwb.kparse), loads it into the core (core.kernel_load) and adds to the
-- cgwb.Kernel type the methods that are plain Lua: the functions, symbols
-- and statements as tables read from the front end's flat rows (the layout of
-- csrc/kernel/cg_kernel.h, through core.kernel_layout), the analyses as one
-- call, and the interpreter fed in the CALL.json form (arrays by name,
-- arguments by name or in order) with results by name.  Ids are 1-based.
-- @module cgwb.kernel
local core = require "cgwb.core"
local ir = require "cgwb.ir"
local cprint = require "cgwb.ir.cprint"
local json = require "cgwb.json"
local errors = require "cgwb.util.errors"

local M = {}

-- The flat rows each loaded kernel came from (weak: they go with the kernel).
-- One table per Lua state, in the registry: the methods added to the type
-- by one loading of this module read what another loading stored.
local REG = debug.getregistry()
REG["cgwb.kernel.flat"] = REG["cgwb.kernel.flat"] or setmetatable({}, { __mode = "k" })
local flat_of = REG["cgwb.kernel.flat"]

local LAYOUT = core.kernel_layout()
local function layout() return LAYOUT end

-- {==== reading the flat rows ====}

-- Field f of row r (0-based) of table tbl ("func", "sym", "expr", "stmt").
local WIDTH = LAYOUT.width
local function get(flat, tbl, r, f)
  return flat[tbl][r * WIDTH[tbl] + LAYOUT[tbl][f]]
end

local function name_at(flat, i) return flat.names[i + 1] end

-- C type text of a symbol: "double", "const double *restrict", "double[3][4]".
local function sym_type(flat, s)
  local base = get(flat, "sym", s, "BASE") == layout().types.int and layout().ctypes[get(flat, "sym", s, "CTYPE") + 1]
    or "double"
  local qual = get(flat, "sym", s, "QUAL")
  local Q = layout().qual
  local t = ((qual & Q.const) ~= 0 and "const " or "") .. base
  local ndim = get(flat, "sym", s, "NDIM")
  if get(flat, "sym", s, "PTR") == 1 and ndim == 0 then
    t = t .. " *" .. ((qual & Q.restrict) ~= 0 and "restrict" or "")
  elseif get(flat, "sym", s, "PTR") == 2 then -- rows read only
    t = t .. ((qual & Q.const) ~= 0 and " *const *" or " **") .. ((qual & Q.restrict) ~= 0 and "restrict" or "")
  end
  if ndim >= 1 then
    local d0 = get(flat, "sym", s, "DIM0")
    t = t .. "[" .. (d0 > 0 and d0 or "") .. "]"
    if ndim >= 2 then t = t .. "[" .. get(flat, "sym", s, "DIM1") .. "]" end
    if ndim >= 3 then t = t .. "[" .. get(flat, "sym", s, "DIM2") .. "]" end
  end
  return t
end

-- The symbol s as a plain table (ids 1-based).
-- A member of a struct variable (doc/kernel-ir.md, "Struct variables"):
-- {var, type (its C spelling), member, first}, or nil.
local function struct_of(flat, s)
  local a = flat.aggs and flat.aggs[s]
  if not a then return nil end
  local st = flat.structs[a.struct]
  return { var = a.var, type = st.typedef or ("struct " .. st.tag), member = a.member, first = a.first,
    pointer = a.arrow or nil }
end

local function symbol(flat, s)
  local Q = layout().qual
  local qual = get(flat, "sym", s, "QUAL")
  local dims = {}
  for d = 1, get(flat, "sym", s, "NDIM") do dims[d] = get(flat, "sym", s, "DIM" .. (d - 1)) end
  return {
    id = s + 1, name = name_at(flat, get(flat, "sym", s, "NAME")),
    kind = layout().sym_kinds[get(flat, "sym", s, "KIND") + 1],
    type = sym_type(flat, s), base = layout().types[get(flat, "sym", s, "BASE") + 1],
    pointer = get(flat, "sym", s, "PTR") == 1, rows = get(flat, "sym", s, "PTR") == 2 or nil, dims = json.array(dims),
    const = (qual & Q.const) ~= 0, restrict = (qual & Q.restrict) ~= 0,
    address_taken = (qual & Q.addr) ~= 0,
    line = get(flat, "sym", s, "LINE"), col = get(flat, "sym", s, "COL"),
    struct = struct_of(flat, s),
  }
end

-- {==== printing expressions and statements as C ====}

-- A double constant as C text that reads back as the same double.
local function double_text(v)
  local s = ("%.17g"):format(v)
  if not s:find("[.eEni]") then s = s .. ".0" end
  return s
end

-- The reports' printer of flat: C's precedence, names as declared, a row
-- address as &A[i].
local function printer(fl)
  local v = ir.view(fl)
  v.report_printer = v.report_printer or cprint.new(v, { const_i = tostring, const_d = double_text, addr = "display" })
  return v.report_printer
end

local function expr_c(fl, x) return printer(fl):expr(x) end

-- The one-line C text of statement record r (a loop or if: its head only).
local STMT_TEXT = ir.cases("stmt", "cgwb.kernel statement text", {
  assign = function(_, fl, r) return expr_c(fl, r.lhs) .. " = " .. expr_c(fl, r.rhs) end,
  call = function(_, fl, r)
    local args = {}
    for i, a in ipairs(r.args) do args[i] = expr_c(fl, a) end
    local call = ir.view(fl):func(r.callee).name .. "(" .. table.concat(args, ", ") .. ")"
    if r.lhs then return expr_c(fl, r.lhs) .. " = " .. call end
    return call
  end,
  ["if"] = function(_, fl, r) return "if (" .. expr_c(fl, r.cond) .. ")" end,
  loop = function(_, fl, r) return r.form .. " (" .. (r.cond and expr_c(fl, r.cond) or "1") .. ")" end,
  ["return"] = function(_, fl, r) return r.value and ("return " .. expr_c(fl, r.value)) or "return" end,
  ["break|continue"] = function(kind) return kind end,
  alloc = function(_, fl, r)
    return expr_c(fl, r.lhs) .. (r.zero and " = calloc(" or " = malloc(") .. expr_c(fl, r.count) .. " cells)"
  end,
  free = function(_, fl, r) return "free(" .. expr_c(fl, r.ptr) .. ")" end,
  passive = function(_, fl, r)
    return require("cgwb.ir.unparse").passive_text(r, function(a) return expr_c(fl, a) end)
  end,
})

-- Appends the statements of ids, depth first in the order they run, to out.
local function walk(fl, ids, out)
  ir.view(fl):walk(ids, function(r, depth, part)
    out[#out + 1] = { id = r.id + 1, kind = r.kind, line = r.line, col = r.col, depth = depth,
      part = part or "body", text = STMT_TEXT(r.kind, fl, r), pragma = r.pragma }
  end)
end

-- {==== the Kernel methods written in Lua ====}

local K = {}

local function flat(k)
  local f = flat_of[k]
  if not f then error("this cgwb.Kernel was not read by cgwb.read_kernel (no source rows)", 3) end
  return f
end

--- The 1-based id of function f (a name or an id), or nil and a message.
-- @function Kernel:function_id
function K.function_id(k, f)
  local fl = flat(k)
  local n = #fl.func // layout().width.func
  if math.type(f) == "integer" then
    if f >= 1 and f <= n then return f end
    return nil, ("%s: no function %d (the kernel has %d)"):format(fl.file, f, n)
  end
  for g = 0, n - 1 do
    if name_at(fl, get(fl, "func", g, "NAME")) == f then return g + 1 end
  end
  return nil, ("%s: no function '%s'"):format(fl.file, tostring(f))
end

--- The 1-based id of f (as K.function_id) when it has a body: an external
-- function (--externals) is refused, its body being elsewhere.
-- @function Kernel:body_function_id
function K.body_function_id(k, f)
  local id, err = K.function_id(k, f)
  if not id then return nil, err end
  local fl = flat(k)
  if get(fl, "func", id - 1, "BODY") == -1 then
    return nil, ("%s: %s is an external function (--externals): its body is elsewhere"):format(fl.file,
      name_at(fl, get(fl, "func", id - 1, "NAME")))
  end
  return id
end

-- The 0-based function row of f, raising on a bad one (a programmer error).
local function func_row(k, f)
  local id, err = K.function_id(k, f)
  if not id then error(err, 3) end
  return id - 1
end

--- {{id=, name=, ret=, params={{name=, type=, const=, restrict=}...}, line=, col=}...}
-- @function Kernel:functions
function K.functions(k)
  local fl, out = flat(k), {}
  for g = 0, #fl.func // layout().width.func - 1 do
    local params = json.array({})
    local s0 = get(fl, "func", g, "SYM0")
    for p = 0, get(fl, "func", g, "NPARAM") - 1 do
      local sy = symbol(fl, s0 + p)
      params[#params + 1] = { name = sy.name, type = sy.type, const = sy.const, restrict = sy.restrict,
        struct = sy.struct }
    end
    out[#out + 1] = {
      id = g + 1, name = name_at(fl, get(fl, "func", g, "NAME")),
      ret = layout().types[get(fl, "func", g, "RET") + 1], params = params,
      line = get(fl, "func", g, "LINE"), col = get(fl, "func", g, "COL"),
      external = get(fl, "func", g, "BODY") == -1 or nil, -- declared with --externals, defined elsewhere
    }
  end
  return out
end

--- The symbols of function f: parameters first, then locals and temporaries.
-- @function Kernel:symbols
function K.symbols(k, f)
  local fl, g = flat(k), func_row(k, f)
  local out, s0 = {}, get(fl, "func", g, "SYM0")
  for s = s0, s0 + get(fl, "func", g, "NSYM") - 1 do out[#out + 1] = symbol(fl, s) end
  return out
end

--- The statements of function f, depth first in source order: {id=, kind=,
-- line=, col=, depth=, part=, text=, pragma=} (part: "body" at the top,
-- "then"/"else" in an if, "pre"/"body"/"step" in a loop).
-- @function Kernel:statements
function K.statements(k, f)
  local fl, g = flat(k), func_row(k, f)
  local out = {}
  walk(fl, ir.view(fl):func(g).body, out)
  return out
end

--- The global (file-scope, read-only) symbols.
-- @function Kernel:globals
function K.globals(k)
  local fl, out = flat(k), {}
  for s = 0, #fl.sym // layout().width.sym - 1 do
    if layout().sym_kinds[get(fl, "sym", s, "KIND") + 1] == "global" then out[#out + 1] = symbol(fl, s) end
  end
  return out
end

--- The file name the kernel was read as.
-- @function Kernel:file
function K.file(k) return flat(k).file end

--- The functions of the file that were not lowered, in file order: a list of
-- {name, line, col, why} (why: the refusal, "file:line:col: ..."); empty
-- when every function was.
-- @function Kernel:left_alone
function K.left_alone(k)
  local out = {}
  for i, x in ipairs(flat(k).left_alone or {}) do
    out[i] = { name = x.name, line = x.line, col = x.col, why = x.why }
  end
  return out
end

--- The front end's flat rows (doc/kernel-ir.md), as kparse gave them.
-- @function Kernel:flat
function K.flat(k) return flat(k) end

--- The analyses of function f (doc/kernel-analyses.md): core.kernel_analyze.
-- @function Kernel:analyze
function K.analyze(k, f, opts)
  return core.kernel_analyze(k, K.function_id(k, f) or f, opts)
end

-- {==== calls in the CALL.json form ====}

-- A failure of the call's description (bad input): raised as a table so the
-- converter's helpers stay short; K.call turns it into nil, message.
local function bad(where, msg) error(errors.input(where .. ": " .. msg)) end

local function is_list(t) return type(t) == "table" and (json.is_array(t) or (#t > 0 and next(t, #t) == nil)) end

-- The parameters of function row g: {name=, base=, pointer=} in order.
local function params_of(fl, g)
  local out, s0 = {}, get(fl, "func", g, "SYM0")
  for p = 0, get(fl, "func", g, "NPARAM") - 1 do
    local sy = symbol(fl, s0 + p)
    out[#out + 1] = { name = sy.name, base = sy.base, pointer = sy.pointer or #sy.dims > 0, rows = sy.rows }
  end
  return out
end

-- The arrays of the call: {{name=, type=|nil, values=}...} in the text's order.
local function call_arrays(c, file)
  local out, by_name = {}, {}
  if c.arrays == nil then return out, by_name end
  if type(c.arrays) ~= "table" or is_list(c.arrays) then
    bad(file .. ": arrays", "expected an object of name: [values]")
  end
  for _, name in ipairs(json.keys(c.arrays)) do
    local v, where, ty = c.arrays[name], file .. ": arrays." .. tostring(name), nil
    if type(v) == "table" and not is_list(v) and v.values ~= nil then
      ty = v.type
      if ty ~= "double" and ty ~= "int" then bad(where .. ".type", 'expected "double" or "int"') end
      v = v.values
    end
    if not is_list(v) then bad(where, "expected an array of numbers") end
    for i, x in ipairs(v) do
      if type(x) ~= "number" and x ~= json.null then
        bad(("%s[%d]"):format(where, i - 1), "expected a number (or null: not initialized)")
      end
    end
    out[#out + 1] = { name = name, type = ty, values = v }
    by_name[name] = #out
  end
  return out, by_name
end

-- The argument of each parameter, by name or in order: an array of values.
local function call_args(c, params, file, fname)
  local a, out = c.args, {}
  if a == nil then a = json.array({}) end
  if type(a) ~= "table" then bad(file .. ": args", "expected an array or an object") end
  if is_list(a) or next(a) == nil then
    if #a ~= #params then
      bad(file .. ": args", ("%d values for the %d parameters of %s"):format(#a, #params, fname))
    end
    for i = 1, #params do out[i] = { value = a[i], where = ("%s: args[%d]"):format(file, i - 1) } end
    return out
  end
  local index = {}
  for i, p in ipairs(params) do index[p.name] = i end
  for _, name in ipairs(json.keys(a)) do
    if not index[name] then bad(file .. ": args." .. tostring(name), fname .. " has no parameter of that name") end
  end
  for i, p in ipairs(params) do
    if a[p.name] == nil then bad(file .. ": args", ("no value for parameter %s of %s"):format(p.name, fname)) end
    out[i] = { value = a[p.name], where = file .. ": args." .. p.name }
  end
  return out
end

-- The core's argument for parameter p from its CALL.json value v.
local function core_arg(p, v, where, arrays, by_name)
  if p.rows then -- a double ** or int **: [[ARRAY, OFFSET], ...], one pair a row
    if not is_list(v) or #v == 0 then bad(where, "expected [[ARRAY, OFFSET], ...] (the rows: an array name and offset each)") end
    local rows = {}
    for r, x in ipairs(v) do
      rows[r] = core_arg({ pointer = true, base = p.base, name = p.name }, x, ("%s[%d]"):format(where, r - 1), arrays, by_name)
    end
    return { rows = rows }
  end
  if p.pointer then
    if v == json.null then return { null = true } end -- NULL: no cells
    if not is_list(v) or #v ~= 2 or type(v[1]) ~= "string" or math.type(v[2]) ~= "integer" then
      bad(where, "expected [ARRAY, OFFSET] (an array name and an integer cell offset)")
    end
    local i = by_name[v[1]]
    if not i then bad(where, ("no array '%s' in arrays"):format(v[1])) end
    local arr = arrays[i]
    if v[2] < 0 or v[2] > #arr.values then
      bad(where, ("offset %d outside %s (%d cells)"):format(v[2], arr.name, #arr.values))
    end
    if arr.type and arr.type ~= p.base then
      bad(where, ("%s is an array of %s, parameter %s points to %s"):format(arr.name, arr.type, p.name, p.base))
    end
    arr.type = p.base
    return { array = i, offset = v[2] }
  end
  if type(v) ~= "number" then bad(where, "expected a number") end
  if p.base == "int" then
    if math.type(v) ~= "integer" or v < -2147483648 or v > 2147483647 then bad(where, "expected an int") end
    return { int = v }
  end
  return { double = v + 0.0 }
end

-- Gives arr its cell type (double unless an int pointer is bound to it),
-- values of that type, and init when a cell is null (not initialized: a read
-- of it is the interpreter's error).
local function finish_array(arr, file)
  arr.type = arr.type or "double"
  local vals, init = {}, nil
  for i, x in ipairs(arr.values) do
    if x == json.null then
      init = init or {}
      vals[i], init[i] = 0, false
    elseif arr.type == "int" and math.type(x) ~= "integer" then
      bad(("%s: arrays.%s[%d]"):format(file, arr.name, i - 1), "expected an int (an array of int)")
    else
      vals[i] = arr.type == "int" and x or x + 0.0
    end
  end
  if init then
    for i = 1, #vals do init[i] = init[i] == nil end
    arr.init = init
  end
  arr.values = vals
end

-- The core's CALL table for function row g, or raises a bad() failure.
local function core_call(fl, g, c, file)
  if type(c) ~= "table" or is_list(c) then bad(file, "expected an object with arrays and args") end
  for _, key in ipairs(json.keys(c)) do
    if key ~= "arrays" and key ~= "args" then bad(file .. ": " .. tostring(key), "unknown key (arrays, args)") end
  end
  local fname = name_at(fl, get(fl, "func", g, "NAME"))
  local params = params_of(fl, g)
  local arrays, by_name = call_arrays(c, file)
  local args = {}
  for i, a in ipairs(call_args(c, params, file, fname)) do
    args[i] = core_arg(params[i], a.value, a.where, arrays, by_name)
  end
  for _, arr in ipairs(arrays) do finish_array(arr, file) end
  return { arrays = arrays, args = args }, params
end

-- Converts c (the CALL.json form) for function f: core CALL table, params,
-- or nil, message.
local function convert(k, f, c, opts)
  local fl = flat(k)
  local g = func_row(k, f)
  local ok, call, params = pcall(core_call, fl, g, c, (opts and opts.name) or "CALL.json")
  if ok then return call, params end
  if errors.is(call, "input") then return nil, call.msg end
  error(call, 0)
end
--- Converts a call in the CALL.json form for function f: (k, f, c [, opts]) -> the core's
-- CALL table, params | nil, message.
-- @function core_call
M.core_call = convert

--- Runs function f on c, a call in the CALL.json form ({arrays = {A = {...}},
-- args = {x = 0.5, a = {"A", 0}} or {0.5, {"A", 0}}}); opts go to k:run
-- (opts.name: the call's name in messages, default "CALL.json").  Returns
-- {arrays = {A = {...}}, scalars = {x = 0.5}, ["return"] = v or json.null,
-- steps = n, notes = {exit note, leak note} (a run exit(n) ended; blocks never freed, if any),
-- stdout = text, stderr = text (what passive calls printed, if anything), exit = n}, or nil, message, kind ("input": the call is wrong; "run": the
-- kernel failed at run time, the message names its line).
-- @function Kernel:call
function K.call(k, f, c, opts)
  local call, params = convert(k, f, c, opts)
  if not call then return nil, params, "input" end
  local r, err = k:run(K.function_id(k, f), call, opts)
  if not r then return nil, err, "run" end
  local out = { arrays = {}, scalars = {}, ["return"] = r.ret == nil and json.null or r.ret, steps = r.steps }
  if r.exit_note then out.notes = { r.exit_note } end
  if r.leak then out.notes = out.notes or {}; out.notes[#out.notes + 1] = r.leak end
  out.stdout, out.stderr, out.exit = r.stdout, r.stderr, r.exit -- what printf wrote; exit(n)
  for i, a in ipairs(r.arrays) do
    local vals = json.array({})
    for c, x in ipairs(a.values) do vals[c] = (a.init and not a.init[c]) and json.null or x end
    out.arrays[a.name or call.arrays[i].name] = vals
  end
  for i, p in ipairs(params) do
    local v = call.args[i]
    if not p.pointer then out.scalars[p.name] = v.double or v.int end
  end
  return out
end

-- The name of a Jacobian row or column: "A[2]", a parameter's name, or "return".
local function cell_name(call, params, rc)
  if rc.ret then return "return" end
  if rc.param then return params[rc.param].name end
  return ("%s[%d]"):format(call.arrays[rc.array].name, rc.cell)
end

--- The Jacobian of function f at c (the CALL.json form) with rows and
-- columns named: {rows = {"A[2]", ...}, cols = {"A[0]", "x", ...},
-- values = {{...}, ...}}, or nil, message, kind (as k:call).
-- @function Kernel:jacobian_named
function K.jacobian_named(k, f, c, opts)
  local call, params = convert(k, f, c, opts)
  if not call then return nil, params, "input" end
  local J, err = k:jacobian(K.function_id(k, f), call, opts)
  if not J then return nil, err, "run" end
  local out = { rows = json.array({}), cols = json.array({}), values = json.array({}) }
  for i, rc in ipairs(J.rows) do out.rows[i] = cell_name(call, params, rc) end
  for i, rc in ipairs(J.cols) do out.cols[i] = cell_name(call, params, rc) end
  for i, row in ipairs(J.values) do out.values[i] = json.array(row) end
  return out
end

--- The pairs of address sets of an analysis (k:analyze(f).alias) that may
-- or must alias: {{u=, v=, relation="may"|"must"}...}, u < v, in order.
-- Quadratic in the number of sets: for printing, not for large kernels.
function M.alias_pairs(alias)
  local out = {}
  for u = 1, #alias.sets do
    for v = u + 1, #alias.sets do
      local r = alias.relation(u, v)
      if r ~= "no" then out[#out + 1] = { u = u, v = v, relation = r } end
    end
  end
  return out
end



-- {==== reading ====}

-- {==== external functions in the interpreter ====}

-- The cells argument i of external fr's call writes (its declaration's
-- cells, a C int expression of the int arguments), or nil: not declared.
local function ext_cells(v, fr, args, i)
  local e = fr.external.cells[v:sym(fr.params[i]).name]
  if not e then return nil end
  local env = {}
  for j, s in ipairs(fr.params) do
    if math.type(args[j]) == "integer" then env[v:sym(s).name] = args[j] end
  end
  local expr = e:gsub("[%a_][%w_]*", function(w) return env[w] and ("(" .. env[w] .. ")") end):gsub("/", "//")
  local f = assert(load("return " .. expr, "cells", "t", {}))
  local ok, n = pcall(f)
  if not ok or math.type(n) ~= "integer" then error(("cells of %s: '%s' is no int here"):format(fr.name, e), 0) end
  return n
end

-- The handler core k:run calls for a call of an external function (the
-- protocol of ext_cb in csrc/lua/lcg_kernel.c): the declaration's Lua
-- value(args...) (a pointer argument a table of its cells, 1-based, which
-- it may change where it writes) and, with tangents, tangent_value(args,
-- dargs) per direction (args as value got them; dargs: a double's tangent,
-- a double pointer's table of cell tangents, which it sets where it writes)
-- returning the result's tangent.
local function ext_handler(fl)
  local v = ir.view(fl)
  return function(fid, args, ndir)
    local fr = v:func(fid - 1)
    local decl = fr.external
    if not decl.value then error("it has no Lua value (value = function ... in --externals)", 0) end
    local function copy()
      local out = {}
      for i, a in ipairs(args) do
        if type(a) == "table" then
          local t = {}
          for c, x in pairs(a.values) do t[c] = x end
          out[i] = t
        else out[i] = a end
      end
      return out
    end
    local vals = copy()
    local ret = decl.value(table.unpack(vals, 1, #args))
    if fr.ret ~= "void" and type(ret) ~= "number" then error("its value gave no number", 0) end
    if fr.ret == "int" and math.type(ret) ~= "integer" then error("its value gave no int", 0) end
    local writes, counts = { t = {} }, {}
    for i, a in ipairs(args) do
      if type(a) == "table" and a.writable then
        counts[i] = ext_cells(v, fr, args, i) or math.huge
        local w = {}
        for c, x in pairs(vals[i]) do
          if math.type(c) == "integer" and c <= counts[i] then w[c] = x end
        end
        writes[i] = w
      end
    end
    local ret_t = {}
    if ndir > 0 then
      if not decl.tangent_value then error("it has no Lua tangent (tangent_value = function ... in --externals)", 0) end
      for i in pairs(writes) do if i ~= "t" and args[i].base == "double" then writes.t[i] = {} end end
      for d = 1, ndir do
        local dargs = {}
        for i, a in ipairs(args) do
          if type(a) == "table" and a.base == "double" then
            local t = {}
            for c, ts in pairs(a.t or {}) do t[c] = ts[d] end -- the entry tangents: a cell it does not write keeps its
            dargs[i] = t
          elseif args.t[i] then dargs[i] = args.t[i][d] else dargs[i] = 0 end
        end
        ret_t[d] = decl.tangent_value(copy(), dargs) or 0.0
        for i, wt in pairs(writes.t) do
          for c in pairs(writes[i]) do
            wt[c] = wt[c] or {}
            wt[c][d] = dargs[i][c] or 0.0
          end
        end
      end
    end
    return ret, ret_t, writes
  end
end

-- opts with the handler of external calls when kernel k's have Lua values.
local function with_externals(k, opts)
  local fl = flat_of[k]
  if not (fl and fl.externals) or (opts and opts.externals) then return opts end
  local o = {}
  for key, val in pairs(opts or {}) do o[key] = val end
  o.externals = ext_handler(fl)
  return o
end

-- Adds the Lua methods to the methods of the cgwb.Kernel type (registered by
-- the core under that name), once, when this module loads: every kernel has
-- them, however it was made; k:run and k:jacobian get the Lua values of the
-- kernel's external functions (opts.externals).
local function add_methods()
  local mt = debug.getregistry()["cgwb.Kernel"]
  local index = type(mt) == "table" and mt.__index
  if type(index) ~= "table" then error("cgwb.core has no cgwb.Kernel type") end
  for name, fn in pairs(K) do
    if index[name] == nil then index[name] = fn end
  end
  local REGK = debug.getregistry()
  if not REGK["cgwb.kernel.c_run"] then -- the core's own, wrapped once per Lua state
    REGK["cgwb.kernel.c_run"], REGK["cgwb.kernel.c_jacobian"] = index.run, index.jacobian
  end
  local c_run, c_jac = REGK["cgwb.kernel.c_run"], REGK["cgwb.kernel.c_jacobian"]
  index.run = function(k, f, call, opts) return c_run(k, f, call, with_externals(k, opts)) end
  index.jacobian = function(k, f, call, opts) return c_jac(k, f, call, with_externals(k, opts)) end
end
add_methods()

-- Whether s is to be taken as a path: no newline, brace or semicolon (text
-- of a kernel has at least one of them), and not empty.
local function looks_like_path(s)
  return s ~= "" and not s:find("[\n{};]")
end

--- Reads a kernel: (path_or_text [, name [, opts]]) -> cgwb.Kernel | nil, message.
-- A string with no newline, brace or semicolon is a path; anything else is
-- the kernel's text (name, default "kernel", appears in messages).  A text with
-- preprocessor directives goes through the C preprocessor first; opts: its
-- flags (include, define, undef: lists; std "c99"|"c11"; preprocess
-- "auto"|"always"|"never": cgwb.kparse.cpp) and kparse.parse's
-- (functions = {names} that must be lowered).
function M.read(src, name, opts)
  if type(src) ~= "string" then
    error(("bad argument #1 to 'read_kernel' (string expected, got %s)"):format(type(src)), 2)
  end
  local text, file, path = src, name or "kernel", nil
  if looks_like_path(src) then
    path = src
    local fh, err = io.open(src, "rb")
    if not fh then return nil, ("%s: cannot open: %s"):format(src, (err or ""):gsub("^.-: ", "")) end
    text = fh:read("a")
    fh:close()
    if not text then return nil, ("%s: cannot open: is a directory"):format(src) end
    file = name or src
  end
  local fl, err = require("cgwb.kparse").parse_c(text, file, opts, path)
  if not fl then return nil, err end
  return M.load(fl)
end

--- Loads flat rows (the front end's arrays, doc/kernel-ir.md; from kparse or
-- made by hand) into a cgwb.Kernel with the Lua methods: -> k | nil, message.
function M.load(fl)
  local k, err = core.kernel_load(fl)
  if not k then return nil, err end
  flat_of[k] = fl
  return k
end

return M
