-- cgwb.xaif.describe: the Lua flattening of an XAIF model, xaif.describe
-- (doc/xaif.md, "Flattening the model: the round trip"): the rules of
-- doc/flattening.md written apart from the C engine (csrc/kernel/cg_kflat.c),
-- from the file alone.  It is the oracle of the round trip the specs check
-- (spec/26-xaif_spec.lua), and what `cgwb flatten FILE.xaif` prints.
-- Internal to cgwb.xaif (lua/cgwb/xaif/init.lua documents describe).
local json = require "cgwb.json"
local N = require "cgwb.xaif.names"

local M = {}

local INTRINSIC, RERUN, linear_text = N.INTRINSIC, N.RERUN, N.linear_text

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
      local cut = strategy == "statement" or (not RERUN[strategy] and st.split)
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

-- xaif.describe (documented in cgwb.xaif, lua/cgwb/xaif/init.lua).
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
