-- cgwb.xaif.export: the XAIF writer, xaif.write (doc/xaif.md, "What is
-- written"): a flattened kernel function, its analyses and its control flow
-- graph as one xaif:CallGraph.  Internal to cgwb.xaif (lua/cgwb/xaif/init.lua
-- documents write).  The statement dispatch is statement() and
-- control_flow() ("statements" below), the expression printing expr_dag(),
-- var_ref() and linear_dag() ("expressions" below), over the kernel's rows
-- read through the cgwb.ir view (row() for the symbol and function rows).
local core = require "cgwb.core"
local ir_view = require("cgwb.ir").view
local N = require "cgwb.xaif.names"

local M = {}

local NS, LAYOUT = N.NS, N.LAYOUT
local OP_XAIF, BOOL_XAIF, TYPE_XAIF = N.OP_XAIF, N.BOOL_XAIF, N.TYPE_XAIF
local parse_cell = N.parse_cell

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

-- Expression x (0-based): the cgwb.ir record (a, b, c nil where absent).
local function expr(ir, x) return ir_view(ir):expr(x) end

local UNARY = { neg = true, ["not"] = true, cast = true }
local LEAF = { const_i = true, const_d = true, var = true, elem = true, addr = true }

-- The operands of expression e (0-based ids, false none), in slot order;
-- the subscripts of elem and addr are written as indices, not operands.
local function operands(e)
  if LEAF[e.op] then return {} end
  if UNARY[e.op] then return { e.a } end
  if e.op == "cond" then return { e.a, e.b, e.c } end
  if e.op == "intrin" then return { e.a, LAYOUT.arity[e.fn] == 2 and e.b or false } end
  return { e.a, e.b }
end

-- A double constant as text that reads back as the same double.
local function dtext(v) return ("%.17g"):format(v) end

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
      for _, d in ipairs(g.dependents) do -- a return's part is its value, not a left-hand side
        local r = ir_view(ir):stmt(d.stmt - 1)
        if r.kind ~= "return" then
          names[r.lhs + 1] = { d.name or d.addr, d.exact }
        end
      end
    end
  end
  for _, a in ipairs(an.alias.accesses) do used_sets[a.set] = true end
  local split_at = {}
  if not N.RERUN[res.strategy] then -- the script's or strategy's cuts: the first statement of each subgraph
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

-- {==== expressions: the expression printers ====}

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
  if e.op == "elem" or (e.op == "addr" and e.a) then
    B.open("ArrayElementReference", { { "vertex_id", 2 } })
    for _, sub in ipairs { e.a or false, e.b or false, e.c or false } do
      if sub then
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
    local ops = operands(e)
    for i = 1, 3 do
      if ops[i] then ids[i] = walk(ops[i]) end
    end
    n = n + 1
    local id = n
    if e.op == "var" or e.op == "elem" or e.op == "addr" then
      var_ref(w, B, "VariableReference", { { "vertex_id", id } }, y, w.use_of[y + 1])
    elseif e.op == "const_i" then
      B.leaf("Constant", { { "vertex_id", id }, { "type", "integer" }, { "value", e.value } })
    elseif e.op == "const_d" then
      B.leaf("Constant", { { "vertex_id", id }, { "type", "double" }, { "value", dtext(e.value) } })
    elseif BOOL_XAIF[e.op] then
      B.leaf("BooleanOperation", { { "vertex_id", id }, { "name", BOOL_XAIF[e.op] } })
    elseif e.op == "cast" then
      B.leaf("Intrinsic", { { "vertex_id", id }, { "name", e.ctype and N.CONV_XAIF[e.ctype]
                              or e.type == "int" and "int_scal" or "real_int_scal" },
                            { "rType", TYPE_XAIF[e.type] } })
    else
      local name = e.op == "intrin" and OP_XAIF[e.fn] or OP_XAIF[e.op]
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
-- }====

-- {==== statements: the statement dispatch ====}

-- Whether statement s (1-based) is `return e;` of a double e: written as an
-- assignment to the function's result, the symbol "return" (doc/xaif.md).
local function double_return(w, s)
  local r = ir_view(w.ir):stmt(s - 1)
  return r.kind == "return" and r.value ~= nil and expr(w.ir, r.value).type == "double"
end

-- An assignment (or the return of a double, as an assignment to "return").
local function assignment(w, B, r, active, ret)
  local s = r.id + 1
  local id, line = tostring(s), r.line
  local lhs = ret and r.value or r.lhs
  local attrs0 = { { "statement_id", id }, { "lineNumber", line } }
  local ann = {}
  if w.split_at[s] then ann[#ann + 1] = "cgwb:split" end -- a script's or strategy's cut
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
  expr_dag(w, B, ret and lhs or r.rhs)
  B.close("AssignmentRHS")
  B.close("Assignment")
end

-- A Marker (XAIF's front-end statement): a return of no double, break, continue.
local function marker(w, B, r)
  B.leaf("Marker", { { "statement_id", tostring(r.id + 1) }, { "annotation", r.kind } })
end

-- One statement of a basic block, by kind.
local STATEMENT = require("cgwb.ir").cases("stmt", "cgwb.xaif statement", {
  assign = function(_, w, B, r, active) assignment(w, B, r, active, false) end,
  ["return"] = function(_, w, B, r, active)
    if double_return(w, r.id + 1) then return assignment(w, B, r, active, true) end
    marker(w, B, r)
  end,
  call = function(_, w, B, r)
    B.open("SubroutineCall", { { "statement_id", tostring(r.id + 1) }, { "symbol_id", ir_view(w.ir):func(r.callee).name },
                               { "scope_id", 1 }, { "lineNumber", r.line } })
    for i, x in ipairs(r.args) do
      B.open("Argument", { { "position", i } })
      local e = expr(w.ir, x)
      if e.op == "var" or e.op == "elem" or e.op == "addr" then
        var_ref(w, B, "VariableReference", { { "vertex_id", 1 } }, x, w.use_of[x + 1])
      else
        B.open("Expression"); expr_dag(w, B, x); B.close("Expression") -- cgwb: a value argument
      end
      B.close("Argument")
    end
    B.close("SubroutineCall") -- a result's target is left out (doc/xaif.md)
  end,
  ["if|loop|break|continue"] = function(_, w, B, r) marker(w, B, r) end,
  passive = function(_, _, B, r) -- printf, exit, ...: no derivative, a front-end statement for the tools
    B.leaf("Marker", { { "statement_id", tostring(r.id + 1) }, { "annotation", "passive " .. r.passive.fn } })
  end,
  ["alloc|free"] = function(kind) -- M.write refuses such a function first
    error(("cgwb.xaif: a %s statement in XAIF"):format(kind))
  end,
})

-- The first allocation or free of function f (1-based) as
-- "FILE:LINE:COL: ...", or nil: XAIF has no statement for either (doc/xaif.md).
local function heap_refusal(ir, f)
  local v = ir_view(ir)
  for s = 0, v.nstmt - 1 do
    local r = v:stmt(s)
    if (r.kind == "alloc" or r.kind == "free") and row(ir, "stmt", s, "FUNC") == f - 1 then
      return ("%s:%d:%d: %s is outside XAIF (XAIF has no allocation: the block would be an array of a size "
        .. "known only at run time)"):format(ir.file, r.line, r.col, r.kind == "alloc" and "an allocation" or "a free")
    end
  end
end

-- The first NULL, pointer comparison, pointer difference or bitwise
-- operator in function f (1-based) as "FILE:LINE:COL: ...", or nil: the
-- schema subset has no pointer values and no bit operations.
local BITS = { band = "&", bor = "|", bxor = "^", shl = "<<", shr = ">>", bnot = "~" }
local function pointer_refusal(ir, f)
  local v = ir_view(ir)
  local found
  local function look(x)
    local e = v:expr(x)
    if BITS[e.op] then
      found = found or ("%s:%d:%d: the operator '%s' is outside XAIF (its intrinsics have no bit operations)"):format(
        ir.file, e.line, e.col, BITS[e.op])
    end
    if e.op == "null" or e.op == "ptrdiff" or (BOOL_XAIF[e.op] and e.a and v:expr(e.a).type:find("%*")) then
      found = found or ("%s:%d:%d: %s is outside XAIF (the schema subset has no pointer values)"):format(ir.file,
        e.line, e.col, e.op == "null" and "NULL" or e.op == "ptrdiff" and "a pointer difference" or "a pointer comparison")
    end
    for _, o in ipairs(v:operands(x)) do look(o) end
  end
  v:walk(v:func(f - 1).body, function(r) for _, x in ipairs(v:exprs(r)) do look(x) end end)
  return found
end

-- The first call of an external function (--externals) in function f
-- (1-based) as "FILE:LINE:COL: ...", or nil: its body, which XAIF would
-- need as a control flow graph of its own, is elsewhere.
local function external_refusal(ir, f)
  local v = ir_view(ir)
  for s = 0, v.nstmt - 1 do
    local r = v:stmt(s)
    if r.kind == "call" and row(ir, "stmt", s, "FUNC") == f - 1 and v:func(r.callee).external then
      return ("%s:%d:%d: a call of the external function %s is outside XAIF (its body is elsewhere: XAIF "
        .. "has no subroutine without a control flow graph)"):format(ir.file, r.line, r.col, v:func(r.callee).name)
    end
  end
end

-- One statement of a basic block (s 1-based).
local function statement(w, B, s, active)
  local r = ir_view(w.ir):stmt(s - 1)
  STATEMENT(r.kind, w, B, r, active)
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

-- }====

-- The symbol table entry of symbol s (0-based).
local function symbol_attrs(w, s, active_names)
  local S = function(fld) return row(w.ir, "sym", s, fld) end
  local ndim, ptr = S("NDIM"), S("PTR") == 1
  local name = w.symid[s]
  local shape = ndim == 3 and "three_tensor" or ndim == 2 and "matrix" or ((ndim == 1 or ptr) and "vector" or "scalar")
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

-- xaif.write (documented in cgwb.xaif, lua/cgwb/xaif/init.lua).
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
  local refused = heap_refusal(k:ir(), f) or external_refusal(k:ir(), f) or pointer_refusal(k:ir(), f)
  if refused then return nil, refused end
  for _, sy in ipairs(k:symbols(f)) do -- a struct variable's members (doc/kernel-ir.md, "Struct variables")
    if sy.rows then
      return nil, ("%s:%d:%d: the parameter '%s', a pointer to pointers, is outside XAIF (the schema subset has no "
        .. "pointers)"):format(k:ir().file, sy.line, sy.col, sy.name)
    end
    if sy.struct then
      return nil, ("%s:%d:%d: the struct variable '%s' is outside XAIF (the schema subset has no records: its "
        .. "members would be variables of their own)"):format(k:file(), sy.line, sy.col, sy.struct.var)
    end
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

return M
