-- cgwb.xaif.import: the XAIF reader, xaif.read (doc/xaif.md, "Reading"): an
-- XAIF text parsed with lua-expat into the plain model that xaif.describe
-- flattens.  Internal to cgwb.xaif (lua/cgwb/xaif/init.lua documents read).
local errors = require "cgwb.util.errors"
local N = require "cgwb.xaif.names"

local M = {}

local NS, XAIF_OP, XAIF_BOOL, XAIF_TYPE = N.NS, N.XAIF_OP, N.XAIF_BOOL, N.XAIF_TYPE

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
  error(errors.input(("%s:%d:%d: "):format(path, node.line, node.col) .. fmt:format(...)))
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
        n.op = (name == "int_scal" or name == "real_int_scal" or N.XAIF_CONV[name]) and "cast" or XAIF_OP[name]
        n.ctype = N.XAIF_CONV[name] -- (char)x and the like
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

-- xaif.read (documented in cgwb.xaif, lua/cgwb/xaif/init.lua).
function M.read(text, path)
  path = path or "xaif"
  if type(text) ~= "string" then return nil, path .. ": XAIF text expected" end
  local root, err = parse_xml(text, path)
  if not root then return nil, err end
  local R = { path = path, scopes = {}, alias = {}, chains = {}, stmts = {}, refs = {},
              model = { blocks = {}, cfg = {}, edges = {}, file = path } }
  local ok, m = pcall(read_model, R, root)
  if not ok then
    if errors.is(m, "input") then return nil, m.msg end
    error(m, 0)
  end
  return m
end

-- }====

return M
