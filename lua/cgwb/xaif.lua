--- cgwb.xaif: a flattened kernel function as XAIF and back (doc/xaif.md).
-- XAIF is the XML term-graph format of Hovland, Norris, Utke & Strout,
-- sec. 3.  write() exports the subset cgwb needs (CallGraph, ScopeHierarchy,
-- AliasSetMap, DUUDSetMap, one ControlFlowGraph of basic blocks whose
-- Assignments hold expression DAGs); read() parses it with lua-expat into a
-- plain model; describe() flattens the model again, in Lua, by the rules of
-- doc/flattening.md (Utke, Flattening Basic Blocks, Algorithms 1 and 2,
-- sec. 6.2), independently of the C engine, and returns the table
-- flatten.describe gives, so the round trip compares two implementations.
-- @module cgwb.xaif
local core = require "cgwb.core"
local json = require "cgwb.json"

local M = {}

local NS = "http://www.mcs.anl.gov/XAIF"
local LAYOUT = core.kernel_layout()

-- {==== names of operations ====}

-- Kernel operator or intrinsic -> XAIF Intrinsic name (the names of XAIF's
-- inlinable intrinsics catalogue where it has one; cgwb_* where it has none).
local OP_XAIF = {
  add = "add_scal_scal", sub = "sub_scal_scal", mul = "mul_scal_scal", div = "div_scal_scal",
  neg = "minus_scal", mod = "mod_scal_scal", ptradd = "cgwb_ptradd", cond = "cgwb_cond",
  sin = "sin_scal", cos = "cos_scal", tan = "tan_scal", asin = "arcsin_scal",
  acos = "arccos_scal", atan = "arctan_scal", atan2 = "cgwb_atan2_scal_scal", sinh = "sinh_scal",
  cosh = "cosh_scal", tanh = "tanh_scal", exp = "exp_scal", log = "ln_scal", log10 = "log10",
  sqrt = "sqrt_scal", pow = "pow_scal_scal", fabs = "abs_scal", fmin = "nc_min_scal_scal",
  fmax = "nc_max_scal_scal", floor = "cgwb_floor_scal", ceil = "cgwb_ceil_scal",
}
for _, nm in ipairs(LAYOUT.intrinsics) do -- a row of CG_KINTRINSICS the catalogue lacks: cgwb_NAME_scal[_scal]
  if not OP_XAIF[nm] then OP_XAIF[nm] = "cgwb_" .. nm .. (LAYOUT.arity[nm] == 2 and "_scal_scal" or "_scal") end
end
-- Comparisons and logic: XAIF BooleanOperation names.
local BOOL_XAIF = {
  lt = "less_than", le = "less_or_equal", gt = "greater_than", ge = "greater_or_equal",
  eq = "equal", ne = "not_equal", ["and"] = "and", ["or"] = "or", ["not"] = "not",
}
local XAIF_OP, XAIF_BOOL = {}, {}
for k, v in pairs(OP_XAIF) do XAIF_OP[v] = k end
for k, v in pairs(BOOL_XAIF) do XAIF_BOOL[v] = k end
local INTRINSIC = {}
for i = 1, #LAYOUT.intrinsics do INTRINSIC[LAYOUT.intrinsics[i]] = true end

-- Kernel types as XAIF types (rType of an Intrinsic, type of a Constant).
local TYPE_XAIF = { int = "integer", double = "real", ["double *"] = "pointer", ["int *"] = "pointer", void = "void" }
local XAIF_TYPE = { integer = "int", real = "double", double = "double", pointer = "pointer", bool = "int" }

-- }====

-- {==== writing XML ====}

local ESC = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }
local function esc(s) return (tostring(s):gsub("[&<>\"']", ESC)) end

-- An output buffer of indented lines.
local function buffer()
  local out, depth = {}, 0
  local B = {}
  -- <xaif:NAME a="v" ...> (attrs an array of {name, value}, nil values left out).
  local function tag(name, attrs, close)
    local t = { string.rep("  ", depth), "<xaif:", name }
    for _, a in ipairs(attrs or {}) do
      if a[2] ~= nil then t[#t + 1] = (' %s="%s"'):format(a[1], esc(a[2])) end
    end
    t[#t + 1] = close
    out[#out + 1] = table.concat(t)
  end
  function B.leaf(name, attrs) tag(name, attrs, "/>") end
  function B.open(name, attrs) tag(name, attrs, ">"); depth = depth + 1 end
  function B.close(name) depth = depth - 1; out[#out + 1] = string.rep("  ", depth) .. "</xaif:" .. name .. ">" end
  function B.raw(line) out[#out + 1] = line end
  function B.text() return table.concat(out, "\n") .. "\n" end
  return B
end

-- }====

-- {==== the kernel's rows ====}

local W = LAYOUT.width
local function row(ir, tbl, r, f) return ir[tbl][r * W[tbl] + LAYOUT[tbl][f]] end
local function name_at(ir, i) return ir.names[i + 1] end

-- Expression x (0-based) as {op=, type=, a=, b=, c=, sym=, ival=, line=, col=}.
local function expr(ir, x)
  local E = function(f) return row(ir, "expr", x, f) end
  return {
    op = LAYOUT.exprs[E("OP") + 1], type = LAYOUT.types[E("TYPE") + 1], a = E("A"), b = E("B"),
    c = E("C"), sym = E("SYM"), ival = E("IVAL"), line = E("LINE"), col = E("COL"),
  }
end

local UNARY = { neg = true, ["not"] = true, cast = true }
local LEAF = { const_i = true, const_d = true, var = true, elem = true, addr = true }

-- The operands of expression e (0-based ids, -1 none), in slot order; the
-- subscripts of elem and addr are written as indices, not operands.
local function operands(e)
  if LEAF[e.op] then return {} end
  if UNARY[e.op] then return { e.a } end
  if e.op == "cond" then return { e.a, e.b, e.c } end
  if e.op == "intrin" then return { e.a, LAYOUT.arity[LAYOUT.intrinsics[e.sym + 1]] == 2 and e.b or -1 } end
  return { e.a, e.b }
end

-- A double constant as text that reads back as the same double.
local function dtext(v) return ("%.17g"):format(v) end

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

-- {==== export ====}

-- What the writer needs of the analyses: per expression its use access,
-- per statement its definition access, the sets, the chains.
local function analysis_maps(an)
  local use_of, def_of = {}, {}
  for i, a in ipairs(an.alias.accesses) do
    if a.expr and a.kind == "use" and not use_of[a.expr] then use_of[a.expr] = i end
    if a.expr and a.kind == "def" and not def_of[a.expr] then def_of[a.expr] = i end
  end
  return use_of, def_of
end

-- The chains as StmtIdSets, one per distinct list, keyed in first use order:
-- returns key_of(list) -> key and the sets array.
local function chain_keys()
  local sets, index = {}, {}
  local function key_of(list)
    local t = {}
    for i, s in ipairs(list) do t[i] = s == 0 and "" or tostring(s) end
    local k = #t .. ":" .. table.concat(t, ",") -- the count keeps {} apart from {""}
    if not index[k] then
      sets[#sets + 1] = t
      index[k] = #sets
    end
    return index[k]
  end
  return key_of, sets
end

-- Virtual addresses for the address sets accessed (doc/xaif.md): each set
-- its own address, non-partial when the set is exact (one cell, always
-- touched), partial otherwise; the pairs the analysis relates "may" covered
-- by cliques (sets any two of which it relates), one shared partial address
-- per clique; each pair related "must" (an override's answer) a shared
-- non-partial address.  So ranges overlap exactly when the analysis relates
-- the sets, and they are "must" exactly when they share a cell neither marks
-- partial, even where overrides make "must" intransitive.  Cost: O(n^2)
-- relation queries for n sets, plus O(n) per clique.
local function alias_ranges(an, used)
  local ids = {}
  for s in pairs(used) do ids[#ids + 1] = s end
  table.sort(ids)
  local ranges, next_addr, rel = {}, 1, {}
  for _, s in ipairs(ids) do
    ranges[s] = { { next_addr, not an.alias.sets[s].exact } }
    next_addr = next_addr + 1
    rel[s] = {}
  end
  for i = 1, #ids do
    for j = i + 1, #ids do
      local r = an.alias.relation(ids[i], ids[j])
      if r ~= "no" then rel[ids[i]][ids[j]], rel[ids[j]][ids[i]] = r, r end
    end
  end
  local function share(members, partial)
    for _, s in ipairs(members) do ranges[s][#ranges[s] + 1] = { next_addr, partial } end
    next_addr = next_addr + 1
  end
  local covered = {}
  for i, u in ipairs(ids) do
    for j = i + 1, #ids do
      local v = ids[j]
      if rel[u][v] == "must" then share({ u, v }, false) end
      if rel[u][v] == "may" and not (covered[u] and covered[u][v]) then
        local clique = { u, v } -- grown greedily, in id order, by sets related to all its members
        for _, w in ipairs(ids) do -- only sets whose pair with u is still uncovered
          local ok = w ~= u and w ~= v and rel[u][w] == "may" and not (covered[u] and covered[u][w])
          for _, c in ipairs(clique) do
            if not ok then break end
            ok = rel[w][c] ~= nil
          end
          if ok then clique[#clique + 1] = w end
        end
        for _, x in ipairs(clique) do
          covered[x] = covered[x] or {}
          for _, y in ipairs(clique) do covered[x][y] = true end
        end
        share(clique, true)
      end
    end
  end
  return ids, ranges, next_addr - 1
end

-- The writer's state: the kernel's rows, the analyses, the names res gives.
local function writer(k, f, res, an)
  local ir = k:ir()
  local use_of, def_of = analysis_maps(an)
  local key_of, chain_sets = chain_keys()
  local used_sets, names = {}, {}
  for _, b in ipairs(res.blocks) do
    for _, g in ipairs(b.subgraphs) do
      for _, v in ipairs(g.vertices) do
        if v.kind == "independent" then names[v.expr] = { v.name or v.addr, v.exact } end
      end
      for _, d in ipairs(g.dependents) do -- a return's X0 is its value, not a left-hand side
        if LAYOUT.stmts[row(ir, "stmt", d.stmt - 1, "KIND") + 1] ~= "return" then
          names[row(ir, "stmt", d.stmt - 1, "X0") + 1] = { d.name or d.addr, d.exact }
        end
      end
    end
  end
  for _, a in ipairs(an.alias.accesses) do used_sets[a.set] = true end
  local split_at = {}
  if res.strategy == "lua" then -- the script's cuts: the first statement of each subgraph
    for _, b in ipairs(res.blocks) do
      for _, g in ipairs(b.subgraphs) do split_at[g.statements[1]] = true end
    end
  end
  local symid, seen = {}, {} -- symbol_id: the name; a name shadowed in a nested block gets "#id"
  local s0 = row(ir, "func", f - 1, "SYM0")
  for sy = 0, #ir.sym // W.sym - 1 do
    local name = name_at(ir, row(ir, "sym", sy, "NAME"))
    symid[sy] = name
    if sy >= s0 and sy < s0 + row(ir, "func", f - 1, "NSYM") then
      if seen[name] then symid[sy] = name .. "#" .. (sy + 1) end
      seen[name] = true
    end
  end
  -- the symbol (0-based) an exact name's cell lies in, and its subscripts,
  -- or nil: the name's object must be one symbol of the function's or a
  -- global, not shadowed, and the subscripts print back the same
  local by_name, dup = {}, {}
  for sy = 0, #ir.sym // W.sym - 1 do
    local kind = LAYOUT.sym_kinds[row(ir, "sym", sy, "KIND") + 1]
    local mine = sy >= s0 and sy < s0 + row(ir, "func", f - 1, "NSYM")
    if mine or kind == "global" then
      local name = name_at(ir, row(ir, "sym", sy, "NAME"))
      if by_name[name] then dup[name] = true end
      by_name[name] = by_name[name] or sy
    end
  end
  local int_params = {}
  for p = s0, s0 + row(ir, "func", f - 1, "NPARAM") - 1 do
    if row(ir, "sym", p, "PTR") == 0 and LAYOUT.types[row(ir, "sym", p, "BASE") + 1] == "int" then
      int_params[name_at(ir, row(ir, "sym", p, "NAME"))] = true
    end
  end
  local function cell_symbol(name)
    local sym, subs = parse_cell(name)
    if not sym or dup[sym] or not by_name[sym] then return nil end
    for _, l in ipairs(subs) do
      for _, t in ipairs(l.terms) do
        if not int_params[t[1]] or dup[t[1]] then return nil end
      end
    end
    return by_name[sym], subs
  end
  return { split_at = split_at, symid = symid, cell_symbol = cell_symbol,
    ir = ir, an = an, f = f, use_of = use_of, def_of = def_of, key_of = key_of,
    chain_sets = chain_sets, used_sets = used_sets, names = names,
  }
end

local expr_dag

-- A linear form as an XAIF expression: add_scal_scal of the terms in order
-- (mul_scal_scal of the coefficient and the parameter when it is not 1),
-- then the constant; a parameter is its entry value (annotation "entry").
local function linear_dag(w, B, l)
  local n, edges, acc = 0, {}, nil
  local function leaf(kind, attrs) n = n + 1; attrs[#attrs + 1] = nil; B.leaf(kind, attrs); return n end
  local function add(v)
    if not acc then acc = v; return end
    n = n + 1
    B.leaf("Intrinsic", { { "vertex_id", n }, { "name", "add_scal_scal" }, { "rType", "integer" } })
    edges[#edges + 1] = { acc, n, 1 }; edges[#edges + 1] = { v, n, 2 }
    acc = n
  end
  for _, t in ipairs(l.terms) do
    n = n + 1
    local ref = n
    B.open("VariableReference", { { "vertex_id", n }, { "alias", 0 }, { "du_ud", 0 }, { "annotation", "entry" } })
    B.leaf("SymbolReference", { { "vertex_id", 1 }, { "symbol_id", t[1] }, { "scope_id", 2 } })
    B.close("VariableReference")
    if t[2] ~= 1 then
      local c = leaf("Constant", { { "vertex_id", n + 1 }, { "type", "integer" }, { "value", t[2] } })
      n = n + 1
      B.leaf("Intrinsic", { { "vertex_id", n }, { "name", "mul_scal_scal" }, { "rType", "integer" } })
      edges[#edges + 1] = { c, n, 1 }; edges[#edges + 1] = { ref, n, 2 }
      ref = n
    end
    add(ref)
  end
  if l.const ~= 0 or #l.terms == 0 then
    add(leaf("Constant", { { "vertex_id", n + 1 }, { "type", "integer" }, { "value", l.const } }))
  end
  for i, e in ipairs(edges) do
    B.leaf("ExpressionEdge", { { "edge_id", i }, { "source", e[1] }, { "target", e[2] }, { "position", e[3] } })
  end
end

-- The scope of symbol s (0-based): 1 global, 2 the function's.
local function scope_of(w, s)
  return LAYOUT.sym_kinds[row(w.ir, "sym", s, "KIND") + 1] == "global" and 1 or 2
end

-- A VariableReference of expression x (VAR, ELEM or ADDR), its alias and
-- du_ud keys from the access (acc, nil: none, keys 0), lhs: a definition.
local function var_ref(w, B, tagname, attrs, x, acc, du_list)
  local e = expr(w.ir, x)
  local a = acc and w.an.alias.accesses[acc]
  local alias = a and a.set or 0
  local duud = 0
  if du_list and acc then duud = w.key_of(du_list)
  elseif acc then duud = w.key_of(w.an.chains.ud[acc] or {}) end
  attrs[#attrs + 1] = { "alias", alias }
  attrs[#attrs + 1] = { "du_ud", duud }
  if e.op == "addr" then attrs[#attrs + 1] = { "annotation", "address" } end -- &x or an array as a pointer
  local name = w.names[x + 1]
  local cell, subs
  if name and name[2] and e.op == "elem" then cell, subs = w.cell_symbol(name[1]) end
  if cell then -- the cell itself: the object and its offset over the int parameters' entry values
    attrs[#attrs + 1] = { "annotation", "cell" }
    B.open(tagname, attrs)
    B.leaf("SymbolReference", { { "vertex_id", 1 }, { "symbol_id", w.symid[cell] }, { "scope_id", scope_of(w, cell) } })
    B.open("ArrayElementReference", { { "vertex_id", 2 } })
    for _, l in ipairs(subs) do
      B.open("IndexTriplet"); B.open("Index"); linear_dag(w, B, l); B.close("Index"); B.close("IndexTriplet")
    end
    B.close("ArrayElementReference")
    B.leaf("VariableReferenceEdge", { { "edge_id", 1 }, { "source", 1 }, { "target", 2 } })
    B.close(tagname)
    return
  end
  B.open(tagname, attrs)
  local symattrs = { { "vertex_id", 1 }, { "symbol_id", w.symid[e.sym] },
                     { "scope_id", scope_of(w, e.sym) } }
  if name and not (name[2] and name[1] == w.symid[e.sym]) then -- a name the structure does not give
    B.open("SymbolReference", symattrs)
    B.leaf("SymbolReferenceProperty", { { "name", "cgwb_name" }, { "value", name[1] } })
    B.close("SymbolReference")
  else
    B.leaf("SymbolReference", symattrs)
  end
  if e.op == "elem" or (e.op == "addr" and (e.a >= 0 or e.b >= 0)) then
    B.open("ArrayElementReference", { { "vertex_id", 2 } })
    for _, sub in ipairs { e.a, e.b } do
      if sub >= 0 then
        B.open("IndexTriplet"); B.open("Index")
        expr_dag(w, B, sub)
        B.close("Index"); B.close("IndexTriplet")
      end
    end
    B.close("ArrayElementReference")
    B.leaf("VariableReferenceEdge", { { "edge_id", 1 }, { "source", 1 }, { "target", 2 } })
  end
  B.close(tagname)
end

-- The expression tree at x as an XAIF DAG: vertices children first
-- (post-order, numbered from 1), then the edges argument -> operator with
-- the 1-based operand position.
function expr_dag(w, B, x)
  local edges, n = {}, 0
  local function walk(y)
    local e = expr(w.ir, y)
    local ids = {}
    for i, a in ipairs(operands(e)) do
      if a >= 0 then ids[i] = walk(a) end
    end
    n = n + 1
    local id = n
    if e.op == "var" or e.op == "elem" or e.op == "addr" then
      var_ref(w, B, "VariableReference", { { "vertex_id", id } }, y, w.use_of[y + 1])
    elseif e.op == "const_i" then
      B.leaf("Constant", { { "vertex_id", id }, { "type", "integer" }, { "value", e.ival } })
    elseif e.op == "const_d" then
      B.leaf("Constant", { { "vertex_id", id }, { "type", "double" }, { "value", dtext(w.ir.dconst[e.ival + 1]) } })
    elseif BOOL_XAIF[e.op] then
      B.leaf("BooleanOperation", { { "vertex_id", id }, { "name", BOOL_XAIF[e.op] } })
    elseif e.op == "cast" then
      B.leaf("Intrinsic", { { "vertex_id", id }, { "name", e.type == "int" and "int_scal" or "real_int_scal" },
                            { "rType", TYPE_XAIF[e.type] } })
    else
      local name = e.op == "intrin" and OP_XAIF[LAYOUT.intrinsics[e.sym + 1]] or OP_XAIF[e.op]
      B.leaf("Intrinsic", { { "vertex_id", id }, { "name", name }, { "rType", TYPE_XAIF[e.type] } })
    end
    for i = 1, 3 do
      if ids[i] then edges[#edges + 1] = { ids[i], id, i } end
    end
    return id
  end
  walk(x)
  for i, e in ipairs(edges) do
    B.leaf("ExpressionEdge", { { "edge_id", i }, { "source", e[1] }, { "target", e[2] }, { "position", e[3] } })
  end
end

-- Whether statement s (1-based) is `return e;` of a double e: written as an
-- assignment to the function's result, the symbol "return" (doc/xaif.md).
local function double_return(w, s)
  local x = row(w.ir, "stmt", s - 1, "X0")
  return LAYOUT.stmts[row(w.ir, "stmt", s - 1, "KIND") + 1] == "return" and x >= 0 and expr(w.ir, x).type == "double"
end

-- One statement of a basic block (s 1-based).
local function statement(w, B, s, active)
  local S = function(fld) return row(w.ir, "stmt", s - 1, fld) end
  local kind = LAYOUT.stmts[S("KIND") + 1]
  local id, line = tostring(s), S("LINE")
  local ret = double_return(w, s)
  if kind == "assign" or ret then
    local lhs = S("X0")
    local attrs0 = { { "statement_id", id }, { "lineNumber", line } }
    local ann = {}
    if w.split_at[s] then ann[#ann + 1] = "cgwb:split" end -- a script's cut
    if ret then ann[#ann + 1] = "cgwb:return" end
    if #ann > 0 then attrs0[3] = { "annotation", table.concat(ann, ";") } end
    B.open("Assignment", attrs0)
    local attrs = {}
    if active then attrs[1] = { "active", active[s] and "true" or "false" } end
    if ret then -- the result: its own alias set, its definition reaching the exit
      attrs[#attrs + 1] = { "alias", w.ret_set }
      attrs[#attrs + 1] = { "du_ud", w.key_of({ 0 }) }
      B.open("AssignmentLHS", attrs)
      B.leaf("SymbolReference", { { "vertex_id", 1 }, { "symbol_id", "return" }, { "scope_id", 2 } })
      B.close("AssignmentLHS")
    else
      var_ref(w, B, "AssignmentLHS", attrs, lhs, w.def_of[lhs + 1], w.an.chains.du[s] or {})
    end
    B.open("AssignmentRHS")
    expr_dag(w, B, ret and lhs or S("X1"))
    B.close("AssignmentRHS")
    B.close("Assignment")
  elseif kind == "call" then
    local callee = name_at(w.ir, row(w.ir, "func", S("X0"), "NAME"))
    B.open("SubroutineCall", { { "statement_id", id }, { "symbol_id", callee }, { "scope_id", 1 },
                               { "lineNumber", line } })
    for i = 0, S("X2") - 1 do
      B.open("Argument", { { "position", i + 1 } })
      local x = w.ir.args[S("X1") + i + 1]
      local e = expr(w.ir, x)
      if e.op == "var" or e.op == "elem" or e.op == "addr" then
        var_ref(w, B, "VariableReference", { { "vertex_id", 1 } }, x, w.use_of[x + 1])
      else
        B.open("Expression"); expr_dag(w, B, x); B.close("Expression") -- cgwb: a value argument
      end
      B.close("Argument")
    end
    B.close("SubroutineCall") -- a result's target is left out (doc/xaif.md)
  else -- return (of no double), break, continue: a Marker (XAIF's front-end statement)
    B.leaf("Marker", { { "statement_id", id }, { "annotation", kind } })
  end
end

local CFG_XAIF = { entry = "Entry", exit = "Exit", block = "BasicBlock", branch = "If",
                   endbranch = "EndBranch", endloop = "EndLoop" }
local LOOP_XAIF = { ["for"] = "ForLoop", ["while"] = "PreLoop", ["do"] = "PostLoop" }

local function control_flow(w, B, cfg, fname, active)
  B.open("ControlFlowGraph", { { "vertex_id", 1 }, { "symbol_id", fname }, { "scope_id", 1 },
                               { "controlflowgraph_scope_id", 2 } })
  local fr = w.f - 1
  local s0, np = row(w.ir, "func", fr, "SYM0"), row(w.ir, "func", fr, "NPARAM")
  if np > 0 then
    B.open("ArgumentList")
    for p = 0, np - 1 do
      B.leaf("ArgumentSymbolReference", { { "position", p + 1 },
        { "symbol_id", w.symid[s0 + p] }, { "scope_id", 2 } })
    end
    B.close("ArgumentList")
  end
  for _, v in ipairs(cfg.vertices) do
    local attrs = { { "vertex_id", v.id } }
    if v.kind == "block" then
      attrs[2] = { "scope_id", 2 }
      B.open("BasicBlock", attrs)
      for _, s in ipairs(v.stmts) do statement(w, B, s, active) end
      B.close("BasicBlock")
    elseif v.kind == "loop" then
      local flags = row(w.ir, "stmt", v.stmt - 1, "FLAGS")
      attrs[2] = { "lineNumber", row(w.ir, "stmt", v.stmt - 1, "LINE") }
      B.leaf(LOOP_XAIF[LAYOUT.loop_kinds[flags + 1]], attrs)
    else
      if v.stmt then attrs[2] = { "lineNumber", row(w.ir, "stmt", v.stmt - 1, "LINE") } end
      B.leaf(CFG_XAIF[v.kind], attrs)
    end
  end
  local n = 0
  for _, v in ipairs(cfg.vertices) do
    local two = #v.succ == 2 and (v.kind == "branch" or v.kind == "loop")
    for i, t in ipairs(v.succ) do
      n = n + 1
      local attrs = { { "edge_id", n }, { "source", v.id }, { "target", t } }
      if two then
        attrs[4] = { "has_condition_value", "true" }
        attrs[5] = { "condition_value", i == 1 and 1 or 0 }
      end
      B.leaf("ControlFlowEdge", attrs)
    end
  end
  B.close("ControlFlowGraph")
end

-- The symbol table entry of symbol s (0-based).
local function symbol_attrs(w, s, active_names)
  local S = function(fld) return row(w.ir, "sym", s, fld) end
  local ndim, ptr = S("NDIM"), S("PTR") == 1
  local name = w.symid[s]
  local shape = ndim == 2 and "matrix" or ((ndim == 1 or ptr) and "vector" or "scalar")
  return { { "symbol_id", name }, { "kind", ptr and "pointer" or "variable" },
           { "type", LAYOUT.types[S("BASE") + 1] == "int" and "integer" or "real" },
           { "shape", shape }, { "active", active_names[name_at(w.ir, S("NAME"))] and "true" or "false" } }
end

local function scopes(w, B)
  local ir, fr = w.ir, w.f - 1
  local act = {}
  for _, n in ipairs(w.an.activity and w.an.activity.active_symbols or {}) do act[n] = true end
  B.open("ScopeHierarchy")
  B.open("Scope", { { "vertex_id", 1 } }); B.open("SymbolTable")
  for g = 0, #ir.func // W.func - 1 do
    B.leaf("Symbol", { { "symbol_id", name_at(ir, row(ir, "func", g, "NAME")) }, { "kind", "subroutine" },
                       { "type", TYPE_XAIF[LAYOUT.types[row(ir, "func", g, "RET") + 1]] } })
  end
  for s = 0, #ir.sym // W.sym - 1 do
    if LAYOUT.sym_kinds[row(ir, "sym", s, "KIND") + 1] == "global" then B.leaf("Symbol", symbol_attrs(w, s, {})) end
  end
  B.close("SymbolTable"); B.close("Scope")
  B.open("Scope", { { "vertex_id", 2 } }); B.open("SymbolTable")
  local s0 = row(ir, "func", fr, "SYM0")
  for s = s0, s0 + row(ir, "func", fr, "NSYM") - 1 do B.leaf("Symbol", symbol_attrs(w, s, act)) end
  if w.ret_set then -- the double result ("return": a C keyword, no symbol's name)
    B.leaf("Symbol", { { "symbol_id", "return" }, { "kind", "variable" }, { "type", "real" }, { "shape", "scalar" },
                       { "active", w.ret_active and "true" or "false" } })
  end
  B.close("SymbolTable"); B.close("Scope")
  B.leaf("ScopeEdge", { { "edge_id", 1 }, { "source", 2 }, { "target", 1 } })
  B.close("ScopeHierarchy")
end

-- The kinds of the objects set s may touch, for the function's independents
-- and dependents (doc/xaif.md): param (a by-value parameter), region (memory
-- through a pointer parameter), global, local.
local function set_objects(w, s)
  local kinds, seen = {}, {}
  for _, o in ipairs(w.an.alias.sets[s].objects or {}) do
    local obj = w.an.alias.objects[o]
    local kind = obj.kind
    if kind == "scalar" or kind == "array" then
      local param = obj.symbol and LAYOUT.sym_kinds[row(w.ir, "sym", obj.symbol - 1, "KIND") + 1] == "param"
      kind = param and "param" or "local"
    end
    if not seen[kind] then seen[kind] = true; kinds[#kinds + 1] = kind end
  end
  table.sort(kinds)
  return table.concat(kinds, ",")
end

-- With pruning, whether set s may touch an independent's object (a
-- parameter the activity analysis takes as independent): the value from
-- before the function is then not passive (doc/flattening.md, "Passive
-- values").
local function set_independent(w, s)
  if not w.indep_names then return false end
  for _, o in ipairs(w.an.alias.sets[s].objects or {}) do
    local obj = w.an.alias.objects[o]
    if obj.type == "double" and obj.symbol and obj.symbol >= 1 and
       LAYOUT.sym_kinds[row(w.ir, "sym", obj.symbol - 1, "KIND") + 1] == "param" and
       w.indep_names[name_at(w.ir, row(w.ir, "sym", obj.symbol - 1, "NAME"))] then
      return true
    end
  end
  return false
end

local function alias_map(w, B)
  local ids, ranges, top = alias_ranges(w.an, w.used_sets)
  B.open("AliasSetMap")
  B.open("AliasSet", { { "key", 0 } }) -- may alias anything
  local all = top + (w.ret_set and 1 or 0)
  if all > 0 then
    B.leaf("AliasRange", { { "from_virtual_address", 1 }, { "to_virtual_address", all }, { "partial", "true" } })
  end
  B.close("AliasSet")
  for _, s in ipairs(ids) do
    local ann = "cgwb:objects=" .. set_objects(w, s) .. (set_independent(w, s) and ";cgwb:independent" or "")
    B.open("AliasSet", { { "key", s }, { "annotation", ann } })
    for _, r in ipairs(ranges[s]) do
      B.leaf("AliasRange", { { "from_virtual_address", r[1] }, { "to_virtual_address", r[1] },
                             { "partial", r[2] and "true" or "false" } })
    end
    B.close("AliasSet")
  end
  if w.ret_set then -- the result: one cell of its own, no other set's
    B.open("AliasSet", { { "key", w.ret_set }, { "annotation", "cgwb:objects=return" } })
    B.leaf("AliasRange", { { "from_virtual_address", top + 1 }, { "to_virtual_address", top + 1 }, { "partial", "false" } })
    B.close("AliasSet")
  end
  B.close("AliasSetMap")
end

local function duud_map(w, B)
  B.open("DUUDSetMap")
  B.leaf("StmtIdSet", { { "key", 0 } }) -- no information
  for key, list in ipairs(w.chain_sets) do
    if #list == 0 then B.leaf("StmtIdSet", { { "key", key } })
    else
      B.open("StmtIdSet", { { "key", key } })
      for _, id in ipairs(list) do B.leaf("StatementId", { { "idRef", id } }) end
      B.close("StmtIdSet")
    end
  end
  B.close("DUUDSetMap")
end

-- The analyses' options from the flattening's: alias(text1, text2) as
-- kernel_flatten takes it becomes kernel_analyze's alias(u, v).
local function analyze_opts(opts)
  local o = { assume = opts.assume, independents = opts.independents, dependents = opts.dependents }
  if opts.alias then
    o.alias = function(u, v)
      return opts.alias(table.concat(u.addresses, " | "), table.concat(v.addresses, " | "))
    end
  end
  return o
end

--- xaif.write(kernel, fname, res [, opts]) -> text | nil, message: the XAIF of
-- function fname of kernel as res (core.kernel_flatten's result) flattened
-- it; opts: the options it was flattened with (assume, alias, prune,
-- independents, dependents; default res.opts), so the analyses agree.
function M.write(k, fname, res, opts)
  opts = opts or res.opts or {}
  local f = fname
  if math.type(f) ~= "integer" then
    local ir = k:ir()
    for g = 0, #ir.func // W.func - 1 do
      if name_at(ir, row(ir, "func", g, "NAME")) == fname then f = g + 1 end
    end
    if math.type(f) ~= "integer" then return nil, ("%s: no function '%s'"):format(ir.file, tostring(fname)) end
  end
  local an, err = core.kernel_analyze(k, f, analyze_opts(opts))
  if not an then return nil, err end
  local cfg = k:cfg(f)
  local w = writer(k, f, res, an)
  if LAYOUT.types[row(w.ir, "func", f - 1, "RET") + 1] == "double" then -- the result's alias key: after every set's
    local top = #an.alias.sets
    for s in pairs(w.used_sets) do top = math.max(top, s) end
    w.ret_set = top + 1
    for _, d in ipairs(an.activity.dependents) do w.ret_active = w.ret_active or d == "return" end
  end
  local active
  if opts.prune then
    active = {}
    for _, s in ipairs(an.activity.active_stmts) do active[s] = true end
    w.indep_names = {}
    for _, n in ipairs(an.activity.independents) do w.indep_names[n] = true end
  end
  local B = buffer()
  local body = buffer()
  -- the graph first (it fills the chain sets), then the maps before it
  control_flow(w, body, cfg, res.func, active)
  B.raw('<?xml version="1.0" encoding="UTF-8"?>')
  B.raw(("<xaif:CallGraph xmlns:xaif=\"%s\" program_name=\"%s\" prefix=\"cgwb_\" annotation=\"%s\">"):format(
    NS, esc(w.ir.file), esc("cgwb:strategy=" .. res.strategy .. (opts.prune and ";prune" or ""))))
  local inner = buffer()
  scopes(w, inner)
  alias_map(w, inner)
  duud_map(w, inner)
  for line in (inner.text() .. body.text()):gmatch("[^\n]+") do B.raw("  " .. line) end
  B.raw("</xaif:CallGraph>")
  return B.text()
end

-- }====

-- {==== import ====}

-- The document as a tree of {name=, attrs=, line=, col=, kids=}, or nil and
-- "path:line:col: message" (lua-expat's positions).
local function parse_xml(text, path)
  local lxp = require "lxp"
  local root, stack, bad = nil, {}, nil
  local p
  p = lxp.new({
    StartElement = function(_, name, attrs)
      local line, col = p:pos()
      local ns, loc = name:match("^(.-)|(.*)$")
      local node = { name = loc or name, ns = ns, attrs = attrs, line = line, col = col, kids = {} }
      if not bad and ns ~= NS then
        bad = ("%s:%d:%d: element %s is not in the XAIF namespace"):format(path, line, col, name)
      end
      if #stack > 0 then local top = stack[#stack]; top.kids[#top.kids + 1] = node else root = node end
      stack[#stack + 1] = node
    end,
    EndElement = function() stack[#stack] = nil end,
  }, "|")
  local ok, msg, line, col = p:parse(text)
  if ok then ok, msg, line, col = p:parse() end
  pcall(p.close, p) -- expat's close raises on a document it refused
  if not ok then return nil, ("%s:%d:%d: %s"):format(path, line or 0, col or 0, msg) end
  if bad then return nil, bad end
  if not root then return nil, path .. ":1:1: no element" end
  return root
end

-- Failures while building the model are raised as {msg} and caught in read().
local function fail(path, node, fmt, ...)
  error({ msg = ("%s:%d:%d: "):format(path, node.line, node.col) .. fmt:format(...) }, 0)
end

local function req(R, node, a)
  local v = node.attrs[a]
  if v == nil then fail(R.path, node, "xaif:%s lacks the attribute %s", node.name, a) end
  return v
end

local function int_attr(R, node, a, default)
  local v = node.attrs[a]
  if v == nil and default ~= nil then return default end
  v = req(R, node, a)
  local n = math.tointeger(tonumber(v))
  if not n then fail(R.path, node, "xaif:%s: %s=\"%s\" is not an integer", node.name, a, v) end
  return n
end

-- The children of node, each checked against the allowed names.
local function kids(R, node, allowed)
  for _, c in ipairs(node.kids) do
    if not allowed[c.name] then fail(R.path, c, "unexpected element xaif:%s in xaif:%s", c.name, node.name) end
  end
  return node.kids
end

local function set(...) local t = {} for _, v in ipairs { ... } do t[v] = true end return t end

local read_expr

-- A VariableReference's content: the symbol, its subscripts, alias and du_ud.
local function read_ref(R, node, lhs)
  local ref = { node = node, lhs = lhs, index = {} }
  ref.alias = int_attr(R, node, "alias", 0)
  ref.du_ud = int_attr(R, node, "du_ud", 0)
  ref.active = node.attrs.active
  ref.address = node.attrs.annotation == "address"
  ref.cell = node.attrs.annotation == "cell"
  if not R.alias[ref.alias] then fail(R.path, node, "alias key %d is not in the AliasSetMap", ref.alias) end
  if not R.chains[ref.du_ud] then fail(R.path, node, "du_ud key %d is not in the DUUDSetMap", ref.du_ud) end
  local ids = {}
  for _, c in ipairs(kids(R, node, set("SymbolReference", "ArrayElementReference", "VariableReferenceEdge"))) do
    if c.name == "SymbolReference" then
      ids[req(R, c, "vertex_id")] = c
      local scope = R.scopes[req(R, c, "scope_id")]
      if not scope then fail(R.path, c, "scope %s is not in the ScopeHierarchy", c.attrs.scope_id) end
      ref.sym = scope[req(R, c, "symbol_id")]
      if not ref.sym then fail(R.path, c, "symbol %s is not in scope %s", c.attrs.symbol_id, c.attrs.scope_id) end
      for _, q in ipairs(kids(R, c, set("SymbolReferenceProperty"))) do
        if req(R, q, "name") == "cgwb_name" then ref.name = req(R, q, "value") end
      end
    elseif c.name == "ArrayElementReference" then
      ids[req(R, c, "vertex_id")] = c
      for _, t in ipairs(kids(R, c, set("IndexTriplet"))) do
        for _, i in ipairs(kids(R, t, set("Index"))) do ref.index[#ref.index + 1] = read_expr(R, i) end
      end
    else
      for _, a in ipairs { "source", "target" } do
        if not ids[req(R, c, a)] then fail(R.path, c, "edge %s to a missing vertex %s", a, c.attrs[a]) end
      end
    end
  end
  if not ref.sym then fail(R.path, node, "xaif:%s without a SymbolReference", node.name) end
  local t = ref.sym.type
  if ref.address then ref.type = "pointer"
  elseif #ref.index > 0 or (ref.sym.kind == "variable" and ref.sym.shape == "scalar") then
    ref.type = t == "integer" and "int" or "double"
  else ref.type = "pointer" end
  R.refs[#R.refs + 1] = ref
  return ref
end

-- An expression DAG (the children of node) as a tree: {op=, type=, args=, ref=}.
function read_expr(R, node)
  local v, order, into = {}, {}, {}
  for _, c in ipairs(kids(R, node, set("VariableReference", "Constant", "Intrinsic", "BooleanOperation", "ExpressionEdge"))) do
    if c.name ~= "ExpressionEdge" then
      local id = req(R, c, "vertex_id")
      if v[id] then fail(R.path, c, "vertex_id %s used twice", id) end
      local n = { args = {}, node = c }
      if c.name == "VariableReference" then
        n.ref = read_ref(R, c, false)
        n.op, n.type = n.ref.address and "addr" or "var", n.ref.type
      elseif c.name == "Constant" then
        n.op, n.value = "const", req(R, c, "value")
        n.type = XAIF_TYPE[req(R, c, "type")] or fail(R.path, c, "constant type %s", c.attrs.type)
      elseif c.name == "BooleanOperation" then
        n.op = XAIF_BOOL[req(R, c, "name")] or fail(R.path, c, "unknown boolean operation %s", c.attrs.name)
        n.type = "int"
      else
        local name = req(R, c, "name")
        n.op = (name == "int_scal" or name == "real_int_scal") and "cast" or XAIF_OP[name]
        if not n.op then fail(R.path, c, "unknown intrinsic %s", name) end
        n.type = XAIF_TYPE[c.attrs.rType or "real"] or fail(R.path, c, "unknown rType %s", c.attrs.rType)
      end
      v[id] = n
      order[#order + 1] = id
    end
  end
  for _, c in ipairs(node.kids) do
    if c.name == "ExpressionEdge" then
      local s, t = v[req(R, c, "source")], v[req(R, c, "target")]
      if not s then fail(R.path, c, "edge from a missing vertex %s", c.attrs.source) end
      if not t then fail(R.path, c, "edge to a missing vertex %s", c.attrs.target) end
      local pos = int_attr(R, c, "position")
      if pos < 1 or pos > 3 or t.args[pos] then fail(R.path, c, "bad or repeated position %d", pos) end
      t.args[pos] = s
      into[s] = true
    end
  end
  local root
  for _, id in ipairs(order) do
    if not into[v[id]] then
      if root then fail(R.path, v[id].node, "a second root vertex %s in the expression", id) end
      root = v[id]
    end
  end
  if not root then fail(R.path, node, "an expression without a root (empty, or every vertex an argument)") end
  local state = {} -- a DAG, not a graph with a cycle: 1 on the walk's path, 2 done
  local function visit(n)
    if state[n] == 1 then fail(R.path, n.node, "a cycle of expression edges through vertex %s", n.node.attrs.vertex_id) end
    if state[n] then return end
    state[n] = 1
    for i = 1, 3 do if n.args[i] then visit(n.args[i]) end end
    state[n] = 2
  end
  visit(root)
  for _, id in ipairs(order) do
    if not state[v[id]] then fail(R.path, v[id].node, "vertex %s is not an argument of the expression", id) end
  end
  return root
end

local function read_statement(R, c, block)
  local st = { id = req(R, c, "statement_id"), line = int_attr(R, c, "lineNumber", 0), block = block }
  local first = #R.refs + 1
  if c.name == "Assignment" then
    local ann = ";" .. (c.attrs.annotation or "") .. ";"
    st.kind, st.split, st.ret = "assign", ann:find(";cgwb:split;", 1, true) ~= nil, ann:find(";cgwb:return;", 1, true) ~= nil
    for _, x in ipairs(kids(R, c, set("AssignmentLHS", "AssignmentRHS"))) do
      if x.name == "AssignmentLHS" then st.lhs = read_ref(R, x, true)
      else st.rhs = read_expr(R, x) end
    end
    if not st.lhs or not st.rhs then fail(R.path, c, "xaif:Assignment needs AssignmentLHS and AssignmentRHS") end
  elseif c.name == "SubroutineCall" then
    st.kind = "call"
    for _, a in ipairs(kids(R, c, set("Argument"))) do
      int_attr(R, a, "position")
      for _, x in ipairs(kids(R, a, set("VariableReference", "Constant", "Expression"))) do
        if x.name == "VariableReference" then read_ref(R, x, false)
        elseif x.name == "Expression" then read_expr(R, x) end
      end
    end
  else
    st.kind = c.attrs.annotation or "marker"
    kids(R, c, {})
  end
  st.uses = {}
  for i = first, #R.refs do
    if R.refs[i] ~= st.lhs then st.uses[#st.uses + 1] = R.refs[i] end
  end
  if R.stmts[st.id] then fail(R.path, c, "statement_id %s used twice", st.id) end
  R.stmts[st.id] = st
  return st
end

local CFG_KINDS = set("Entry", "Exit", "BasicBlock", "If", "Branch", "EndBranch", "ForLoop", "PreLoop",
                      "PostLoop", "EndLoop", "ControlFlowEdge", "ArgumentList")

local function read_cfg(R, node)
  local m = R.model
  m.func = req(R, node, "symbol_id")
  local vs = {}
  for _, c in ipairs(kids(R, node, CFG_KINDS)) do
    if c.name == "ArgumentList" then
      for _, a in ipairs(kids(R, c, set("ArgumentSymbolReference"))) do
        req(R, a, "symbol_id"); int_attr(R, a, "position")
      end
    elseif c.name ~= "ControlFlowEdge" then
      local id = req(R, c, "vertex_id")
      if vs[id] then fail(R.path, c, "vertex_id %s used twice", id) end
      vs[id] = c
      m.cfg[#m.cfg + 1] = { id = id, kind = c.name }
      if c.name == "BasicBlock" then
        local b = { id = id, stmts = {} }
        for _, s in ipairs(kids(R, c, set("Assignment", "SubroutineCall", "Marker"))) do
          b.stmts[#b.stmts + 1] = read_statement(R, s, #m.blocks + 1)
        end
        m.blocks[#m.blocks + 1] = b
      else
        kids(R, c, {})
      end
    end
  end
  for _, c in ipairs(node.kids) do
    if c.name == "ControlFlowEdge" then
      for _, a in ipairs { "source", "target" } do
        if not vs[req(R, c, a)] then fail(R.path, c, "control flow edge %s to a missing vertex %s", a, c.attrs[a]) end
      end
      m.edges[#m.edges + 1] = { c.attrs.source, c.attrs.target }
    end
  end
end

local function read_scopes(R, node)
  for _, c in ipairs(kids(R, node, set("Scope", "ScopeEdge"))) do
    if c.name == "Scope" then
      local syms = {}
      R.scopes[req(R, c, "vertex_id")] = syms
      for _, t in ipairs(kids(R, c, set("SymbolTable"))) do
        for _, s in ipairs(kids(R, t, set("Symbol"))) do
          syms[req(R, s, "symbol_id")] = { name = s.attrs.symbol_id, kind = s.attrs.kind or "variable",
            type = s.attrs.type or "real", shape = s.attrs.shape or "scalar", active = s.attrs.active ~= "false" }
          kids(R, s, set("DimensionBounds"))
        end
      end
    end
  end
  for _, c in ipairs(node.kids) do
    if c.name == "ScopeEdge" then
      for _, a in ipairs { "source", "target" } do
        if not R.scopes[req(R, c, a)] then fail(R.path, c, "scope edge %s to a missing scope %s", a, c.attrs[a]) end
      end
    end
  end
end

local function read_alias(R, node)
  for _, c in ipairs(kids(R, node, set("AliasSet"))) do
    local key, ranges = int_attr(R, c, "key"), {}
    for _, r in ipairs(kids(R, c, set("AliasRange"))) do
      ranges[#ranges + 1] = { from = int_attr(R, r, "from_virtual_address"), to = int_attr(R, r, "to_virtual_address"),
                              partial = r.attrs.partial == "true" }
    end
    ranges.objects = {}
    for kind in ((c.attrs.annotation or ""):match("cgwb:objects=([%w,]*)") or ""):gmatch("%w+") do
      ranges.objects[kind] = true
    end
    ranges.independent = (";" .. (c.attrs.annotation or "") .. ";"):find(";cgwb:independent;", 1, true) ~= nil
    R.alias[key] = ranges
  end
end

local function read_chains(R, node)
  for _, c in ipairs(kids(R, node, set("StmtIdSet"))) do
    local key, ids = int_attr(R, c, "key"), {}
    for _, s in ipairs(kids(R, c, set("StatementId"))) do ids[#ids + 1] = req(R, s, "idRef") end
    R.chains[key] = ids
  end
end

local function read_model(R, root)
  if root.name ~= "CallGraph" then fail(R.path, root, "the root is xaif:%s, not xaif:CallGraph", root.name) end
  local m = R.model
  m.program_name = req(R, root, "program_name")
  local ann = root.attrs.annotation or ""
  m.strategy = ann:match("strategy=([%w_]+)") or "minimal"
  m.prune = ann:find(";prune") ~= nil
  local order = { "ScopeHierarchy", "AliasSetMap", "DUUDSetMap", "ControlFlowGraph" }
  local seen = {}
  for _, c in ipairs(kids(R, root, set(table.unpack(order)))) do
    if seen[c.name] then fail(R.path, c, "a second xaif:%s", c.name) end
    seen[c.name] = true
    if c.name == "ScopeHierarchy" then read_scopes(R, c)
    elseif c.name == "AliasSetMap" then read_alias(R, c)
    elseif c.name == "DUUDSetMap" then read_chains(R, c)
    else read_cfg(R, c) end
  end
  for _, n in ipairs(order) do
    if not seen[n] then fail(R.path, root, "xaif:CallGraph lacks xaif:%s", n) end
  end
  m.alias, m.chains, m.stmts, m.relmemo = R.alias, R.chains, R.stmts, {}
  return m
end

--- xaif.read(text [, path]) -> model | nil, "path:line:col: message".  Never raises
-- on bad input.
function M.read(text, path)
  path = path or "xaif"
  if type(text) ~= "string" then return nil, path .. ": XAIF text expected" end
  local root, err = parse_xml(text, path)
  if not root then return nil, err end
  local R = { path = path, scopes = {}, alias = {}, chains = {}, stmts = {}, refs = {},
              model = { blocks = {}, cfg = {}, edges = {}, file = path } }
  local ok, m = pcall(read_model, R, root)
  if not ok then
    if type(m) == "table" then return nil, m.msg end
    error(m, 0)
  end
  return m
end

-- }====

local function_lists

-- {==== flattening the model (doc/flattening.md, "The rules") ====}

-- The alias relation from the AliasSetMap: "must" when the sets share a
-- single cell neither marks partial, "may" when their ranges overlap
-- otherwise, else "no".  Memoized per pair in m.relmemo.
local function relation(m, a, b)
  local memo = m.relmemo[a]
  if not memo then memo = {}; m.relmemo[a] = memo end
  if memo[b] then return memo[b] end
  local rel = "no"
  for _, x in ipairs(m.alias[a]) do
    for _, y in ipairs(m.alias[b]) do
      if x.from <= y.to and y.from <= x.to then
        if not x.partial and not y.partial and x.from == x.to and y.from == y.to then rel = "must"; break end
        rel = "may"
      end
    end
    if rel == "must" then break end
  end
  memo[b] = rel
  return rel
end

-- The statements of a chain key: "" (outside the function) is 0.
local function chain(m, key)
  local out = {}
  for i, id in ipairs(m.chains[key]) do out[i] = id == "" and 0 or id end
  return out
end

local function same_chain(m, k1, k2)
  if k1 == k2 then return true end
  local a, b = chain(m, k1), chain(m, k2)
  if #a ~= #b then return false end
  local in_b = {}
  for _, r in ipairs(b) do in_b[r] = true end
  for _, r in ipairs(a) do if not in_b[r] then return false end end
  return true
end

local function double_read(ref) return ref.type == "double" and ref.du_ud ~= 0 end

-- Whether alias set key may hold a value from outside the function (params:
-- by-value parameters count) (doc/flattening.md, "Names").
local function outside(m, key, params)
  local o = m.alias[key].objects or {}
  return o.region or o.global or (params and o.param) or false
end

-- {==== passive values (doc/flattening.md, "Passive values") ====}

-- Whether the value from before the function may be an independent's in
-- alias set key: with pruning, a set touching an independent's object;
-- without, an outside set.
local function source_set(m, key)
  if m.prune then return m.alias[key].independent end
  return outside(m, key, true)
end

-- Whether use ref is passive: no entry of its chain carries an
-- independent's value (F.carries; a statement the file does not hold may).
local function passive(F, ref)
  if ref.du_ud == 0 then return false end -- no chain: an independent
  for _, r in ipairs(chain(F.m, ref.du_ud)) do
    if r == 0 then
      if source_set(F.m, ref.alias) then return false end
    elseif not F.m.stmts[r] or F.carries[r] then
      return false
    end
  end
  return true
end

-- Whether expression n has a vertex input that is not passive.
local function rhs_carries(F, n)
  if n.type ~= "double" or n.op == "cast" then return false end
  if n.op == "var" then return not passive(F, n.ref) end
  for i = n.op == "cond" and 2 or 1, 3 do
    if n.args[i] and rhs_carries(F, n.args[i]) then return true end
  end
  return false
end

-- Whether statement st carries an independent's value: a call (whatever it
-- writes), or an assignment of a double (a return's included) with a vertex
-- input that is not passive (with pruning: active).
local function stmt_carries(F, st)
  if st.kind == "call" then return true end
  if st.kind ~= "assign" or st.lhs.type ~= "double" then return false end
  if F.m.prune and st.lhs.active == "false" then return false end
  return rhs_carries(F, st.rhs)
end

-- The least fixpoint of F.carries: the calls first (the file gives them no
-- du-chain), then every statement, then forward along the du-chains.
local function mark_carrying(F)
  local stack = {}
  for _, b in ipairs(F.m.blocks) do
    for _, st in ipairs(b.stmts) do
      if st.kind == "call" then F.carries[st.id] = true end
    end
  end
  for _, b in ipairs(F.m.blocks) do
    for _, st in ipairs(b.stmts) do
      if not F.carries[st.id] and stmt_carries(F, st) then F.carries[st.id] = true; stack[#stack + 1] = st end
    end
  end
  while #stack > 0 do
    local d = table.remove(stack)
    for _, t in ipairs(chain(F.m, d.lhs.du_ud)) do
      local u = F.m.stmts[t]
      if u and not F.carries[t] and stmt_carries(F, u) then F.carries[t] = true; stack[#stack + 1] = u end
    end
  end
end

-- }====

-- The state of one flattening: F.pos[stmt id], F.ing[stmt id] (its subgraph),
-- F.defv[stmt id] (its value's vertex), F.carries[stmt id], the open subgraph F.g.
local function flattener(m)
  local F = { m = m, pos = {}, ing = {}, defv = {}, graphs = {}, carries = {} }
  for _, b in ipairs(m.blocks) do
    for i, st in ipairs(b.stmts) do F.pos[st.id] = i end
  end
  mark_carrying(F)
  return F
end

-- Where definition r lies for the open subgraph, seen from statement st:
-- 0 before it, 1 in it, 2 a passive statement inside its span.
local function where(F, r, st)
  local d = F.m.stmts[r]
  if r == 0 or not d or d.block ~= st.block or F.pos[r] >= F.pos[st.id] then return 0 end
  if not F.g or F.pos[r] < F.g.pos0 then return 0 end
  return F.ing[r] == F.g and 1 or 2
end

-- Use ref of st: -2 ambiguous, -1 read at the subgraph's start, else the
-- defining statement of the subgraph.
local function resolve(F, ref, st)
  local nin, before, d = 0, false, nil
  for _, r in ipairs(chain(F.m, ref.du_ud)) do
    local w = where(F, r, st)
    if w == 2 then return -2 end
    if w == 1 then nin, d = nin + 1, r else before = true end
  end
  if nin == 0 then return -1 end
  return (nin == 1 and not before) and d or -2
end

-- The double reads that are vertex inputs (reached through double operations).
local function direct_reads(n, out)
  if n.type ~= "double" or n.op == "cast" then return out end
  if n.op == "var" then out[n.ref] = true; return out end
  for i = n.op == "cond" and 2 or 1, 3 do
    if n.args[i] then direct_reads(n.args[i], out) end
  end
  return out
end

-- Whether a definition of the open subgraph may reach use ref of st: a read
-- in place (not a vertex input) conflicts with the subgraph's deferred
-- writes only; a passive statement of the span has written its value.
local function reaches_in_place(F, ref, st)
  for _, r in ipairs(chain(F.m, ref.du_ud)) do
    if where(F, r, st) == 1 then return true end
  end
  return false
end

-- Whether active assignment st can join the open subgraph: each vertex
-- input resolves, and no read in place (a passive value's included) needs a
-- value of the subgraph.
local function joins(F, st)
  local direct = direct_reads(st.rhs, {})
  for _, u in ipairs(st.uses) do
    if double_read(u) then
      if not direct[u] or passive(F, u) then
        if reaches_in_place(F, u, st) then return false end
      elseif resolve(F, u, st) == -2 then
        return false
      end
    end
  end
  return true
end

local function new_vertex(F, kind, ref)
  local g = F.g
  local v = { kind = kind, ref = ref, out = 0 }
  g.vertices[#g.vertices + 1] = v
  return v
end

-- Algorithm 1: an earlier independent of the subgraph that must-aliases the
-- use and has the same chain, else a new one.
local function independent(F, ref)
  for _, v in ipairs(F.g.vertices) do
    if v.kind == "independent" and v.ref.du_ud ~= 0 and relation(F.m, v.ref.alias, ref.alias) == "must"
       and same_chain(F.m, v.ref.du_ud, ref.du_ud) then
      return v
    end
  end
  return new_vertex(F, "independent", ref)
end

local function vertex_of(F, n, st)
  if n.type ~= "double" or n.op == "cast" or n.op == "const" then return nil end
  if n.op == "var" then
    local ref = n.ref
    if ref.du_ud == 0 then return new_vertex(F, "independent", ref) end
    if passive(F, ref) then return nil end -- read in place: a constant of the graph
    local d = resolve(F, ref, st)
    if d ~= -1 and d ~= -2 then return F.defv[d] end
    return independent(F, ref)
  end
  local ins, any = {}, false
  for i = n.op == "cond" and 2 or 1, 3 do
    if n.args[i] then
      ins[i] = vertex_of(F, n.args[i], st)
      any = any or ins[i] ~= nil
    end
  end
  if not any then return nil end
  local v = new_vertex(F, INTRINSIC[n.op] and "intrinsic" or "operation")
  for i = 1, 3 do
    if ins[i] then ins[i].out = ins[i].out + 1; F.g.edges = F.g.edges + 1 end
  end
  return v
end

-- Whether the definition of st may be read after its subgraph (sec. 6.2).
local function escapes(F, st)
  for _, t in ipairs(chain(F.m, st.lhs.du_ud)) do
    local u = F.m.stmts[t]
    if t == 0 or not u or F.ing[t] ~= F.g or u.block ~= st.block or F.pos[t] <= F.pos[st.id] then
      return true
    end
  end
  return false
end

local function close_graph(F)
  local g = F.g
  if not g then return end
  for _, st in ipairs(g.stmts) do
    if escapes(F, st) then
      local v = F.defv[st.id]
      g.dependents[#g.dependents + 1] = { st = st, vertex = v }
    end
  end
  for _, d in ipairs(g.dependents) do d.augmented = d.vertex.out > 0 end
  F.graphs[#F.graphs + 1] = g
  F.g = nil
end

local function add_statement(F, st)
  local g = F.g
  F.ing[st.id] = g
  g.stmts[#g.stmts + 1] = st
  F.defv[st.id] = vertex_of(F, st.rhs, st)
end

local function passive_ends(F, st)
  if st.kind == "call" then return true end
  for _, u in ipairs(st.uses) do
    if double_read(u) and reaches_in_place(F, u, st) then return true end
  end
  if st.lhs and st.lhs.type == "double" and st.lhs.du_ud ~= 0 then
    for _, d in ipairs(F.g.stmts) do
      if relation(F.m, d.lhs.alias, st.lhs.alias) ~= "no" then return true end
    end
  end
  return false
end

-- An active assignment: one that carries an independent's value (a
-- double's, its right-hand side with a vertex; with pruning: active).
local function is_active(F, st) return st.kind == "assign" and F.carries[st.id] == true end

-- One block: Algorithm 2 (or one subgraph per statement); its subgraphs.
local function flatten_block(F, b, strategy)
  F.graphs = {}
  for _, st in ipairs(b.stmts) do
    if not is_active(F, st) then
      if F.g and passive_ends(F, st) then close_graph(F) end
    else
      local cut = strategy == "statement" or (strategy == "lua" and st.split)
      if F.g and (cut or not joins(F, st)) then close_graph(F) end
      if not F.g then F.g = { pos0 = F.pos[st.id], stmts = {}, vertices = {}, edges = 0, dependents = {} } end
      add_statement(F, st)
    end
  end
  close_graph(F)
  return F.graphs
end

-- The text of an index expression (names of references without a cgwb_name).
local function expr_text(n)
  if n.op == "const" then return n.value end
  if n.op == "var" or n.op == "addr" then
    local s = n.ref.sym.name
    for _, i in ipairs(n.ref.index) do s = s .. "[" .. expr_text(i) .. "]" end
    return s
  end
  local a = {}
  for i = 1, 3 do if n.args[i] then a[#a + 1] = expr_text(n.args[i]) end end
  return n.op .. "(" .. table.concat(a, ", ") .. ")"
end

-- An integer expression over parameters' entry values as a linear form
-- ({terms = {{name, coef}...} in order of appearance, const}), or nil.
local function eval_linear(n)
  if n.op == "const" then
    local c = math.tointeger(tonumber(n.value))
    return c and { terms = {}, const = c }
  end
  if n.op == "var" then
    if #n.ref.index > 0 then return nil end
    return { terms = { { n.ref.sym.name, 1 } }, const = 0 }
  end
  local a = n.args[1] and eval_linear(n.args[1])
  local b = n.args[2] and eval_linear(n.args[2])
  local function scaled(l, k)
    local t = {}
    for i, x in ipairs(l.terms) do t[i] = { x[1], x[2] * k } end
    return { terms = t, const = l.const * k }
  end
  local function sum(x, y)
    local t, at = {}, {}
    for _, l in ipairs { x, y } do
      for _, term in ipairs(l.terms) do
        if at[term[1]] then t[at[term[1]]][2] = t[at[term[1]]][2] + term[2]
        else t[#t + 1] = { term[1], term[2] }; at[term[1]] = #t end
      end
    end
    local out = {}
    for _, term in ipairs(t) do if term[2] ~= 0 then out[#out + 1] = term end end
    return { terms = out, const = x.const + y.const }
  end
  if n.op == "neg" and a then return scaled(a, -1) end
  if not (a and b) then return nil end
  if n.op == "add" then return sum(a, b) end
  if n.op == "sub" then return sum(a, scaled(b, -1)) end
  if n.op == "mul" and #a.terms == 0 then return scaled(b, a.const) end
  if n.op == "mul" and #b.terms == 0 then return scaled(a, b.const) end
  return nil
end

local function ref_name(ref)
  if ref.name then return ref.name end
  if ref.cell then -- the cell's name from its structure: p[e], e over entry values
    local s = ref.sym.name
    for _, i in ipairs(ref.index) do
      local l = eval_linear(i)
      s = s .. "[" .. (l and linear_text(l) or expr_text(i)) .. "]"
    end
    return s
  end
  local s = ref.sym.name
  for _, i in ipairs(ref.index) do s = s .. "[" .. expr_text(i) .. "]" end
  return s
end

local function lines_of(stmts, pred)
  local out = json.array({})
  for _, st in ipairs(stmts) do
    if not pred or pred(st) then out[#out + 1] = st.line end
  end
  return out
end

local function add_unique(list, seen, name)
  if not seen[name] then seen[name] = true; list[#list + 1] = name end
end

-- Collects the function's independents of subgraph g (a vertex whose chain
-- holds "outside" and whose set reaches outside memory) and its observable
-- dependents (their definition reaches the exit in memory through a pointer
-- parameter) into fn, the latter per statement.
function_lists = function(m, g, fn)
  fn.deps = fn.deps or {}
  for _, v in ipairs(g.vertices) do
    if v.kind == "independent" and v.ref.du_ud ~= 0 then
      local c = chain(m, v.ref.du_ud)
      if c[1] == 0 and outside(m, v.ref.alias, true) then add_unique(fn.independents, fn.seen_i, ref_name(v.ref)) end
    end
  end
  for _, d in ipairs(g.dependents) do
    local c = chain(m, d.st.lhs.du_ud)
    if d.st.ret then
      fn.deps[d.st] = { "return" }
    elseif c[1] == 0 and outside(m, d.st.lhs.alias, false) then
      fn.deps[d.st] = fn.deps[d.st] or {}
      table.insert(fn.deps[d.st], ref_name(d.st.lhs))
    end
  end
end

--- xaif.describe(model [, opts]) -> the table flatten.describe gives for the
-- flattening the model was written from (without costs); opts.strategy
-- ("minimal" or "statement") overrides the strategy the file records.
function M.describe(m, opts)
  opts = opts or {}
  local strategy = opts.strategy or m.strategy
  local F = flattener(m)
  local out = { ["function"] = m.func, strategy = strategy, blocks = json.array({}) }
  local fn = { independents = json.array({}), dependents = json.array({}), seen_i = {}, seen_d = {}, deps = {} }
  for _, b in ipairs(m.blocks) do
    local graphs = flatten_block(F, b, strategy)
    if #graphs > 0 then
      local active, subs = {}, json.array({})
      for _, g in ipairs(graphs) do
        local ind, dep, aug = json.array({}), json.array({}), 0
        for _, v in ipairs(g.vertices) do
          if v.kind == "independent" then ind[#ind + 1] = ref_name(v.ref) end
        end
        for _, d in ipairs(g.dependents) do
          dep[#dep + 1] = ref_name(d.st.lhs)
          if d.augmented then aug = aug + 1 end
        end
        for _, st in ipairs(g.stmts) do active[#active + 1] = st end
        function_lists(m, g, fn)
        subs[#subs + 1] = { lines = lines_of(g.stmts), vertices = #g.vertices, edges = g.edges,
                            augmented = aug, independents = ind, dependents = dep }
      end
      out.blocks[#out.blocks + 1] = {
        lines = lines_of(active), n_subgraphs = #graphs, statement_level_subgraphs = #active,
        dead = lines_of(active, function(st) return #m.chains[st.lhs.du_ud] == 0 end),
        subgraphs = subs,
      }
    end
    for _, st in ipairs(b.stmts) do -- the function's dependents in statement order
      for _, d in ipairs(fn.deps[st] or {}) do add_unique(fn.dependents, fn.seen_d, d) end
    end
  end
  out.independents, out.dependents = fn.independents, fn.dependents
  return out
end

-- }====

return M
