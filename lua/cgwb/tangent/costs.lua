-- cgwb.tangent.costs: the cost model of preaccumulated tangent code
-- (doc/tangent-code.md, "Costs"): what the code of each subgraph costs,
-- counted structurally without writing it, against statement-level
-- preaccumulation and plain tangent mode.  Internal to cgwb.tangent.
local elim = require "cgwb.elim"
local errors = require "cgwb.util.errors"
local S = require "cgwb.tangent.subgraph"

local M = {}

local vertex_gop = S.vertex_gop
local lin_graph = S.lin_graph

-- {==== the costs of one subgraph, structurally ====}
-- What F:close counts while it writes the code (structure, eliminate,
-- products, row sums), without the code: integer keys i * S + k for the
-- edge i -> k, marks as numbers (1, -1: a unit; 0: any other partial; 2: a
-- slot without a mark, not a unit and not counted as a tangent product, as
-- pairs() over structure's marks skips it), and the elimination order of a
-- graph text computed once per costs() call (cache: same text, same order
-- under a deterministic ordering).

local MARK_CODE = { ["+1"] = 1, ["-1"] = -1 }

-- The ordering of graph st = {n, x, y, preds} under spec, through the
-- core: order, mults (cache: by key, the graph's structure as text).
local function cached_order(st, key, spec, opts, cache)
  local hit = cache and cache[key]
  if hit then return hit[1], hit[2] end
  local lg <close> = lin_graph(st)
  local cost, order = S.run_ordering(lg, spec, opts)
  if not cost then error(errors.input(order)) end
  if cache then cache[key] = { order, cost.mults } end
  return order, cost.mults
end

-- The structural costs of one subgraph under spec: {mults, nontrivial,
-- application, tangent} (doc/tangent-code.md, "Costs"); the same numbers as
-- F:close reports for the graph it emits.  cache: nil, or a table of
-- orders by graph text (a deterministic spec only).
local function subgraph_cost(sg, spec, opts, cache)
  local verts, n = sg.vertices, #sg.vertices
  local S = n + #sg.dependents + 1 -- more than the vertices, extra ones included
  local mark, preds, gop_of = {}, {}, {}
  for v = 1, n do preds[v] = {} end
  for _, e in ipairs(sg.edges) do
    local a, b = e[1], e[2]
    local key = a * S + b
    if mark[key] == nil then
      local g = gop_of[b]
      if not g then g = vertex_gop(verts[b]); gop_of[b] = g end
      local mk = g.marks[e[3]]
      mark[key] = mk == nil and 2 or MARK_CODE[mk] or 0
      local p = preds[b]
      p[#p + 1] = a
    else
      mark[key] = 0 -- x * x: one edge, the sum
    end
  end
  local tan = 0 -- the non-unit partials of sg's own edges: plain tangent mode's products
  for v = 1, n do
    for _, a in ipairs(preds[v]) do if mark[a * S + v] == 0 then tan = tan + 1 end end
  end
  local deps = sg.dependents
  if #deps == 0 then return { mults = 0, nontrivial = 0, application = 0, tangent = tan } end
  local xs, isx = sg.independents, {}
  for i, v in ipairs(xs) do isx[v] = i end
  local count, ys, nn = {}, {}, n -- a vertex that is the value of two dependents is maximal for none of them
  for _, dep in ipairs(deps) do count[dep.vertex] = (count[dep.vertex] or 0) + 1 end
  for d, dep in ipairs(deps) do
    local v = dep.vertex
    if dep.augmented or dep.collapsed or count[v] > 1 or verts[v].kind == "independent" then
      nn = nn + 1
      preds[nn] = { v }
      mark[v * S + nn] = 1
      v = nn
    end
    ys[d] = v
  end
  local isy, used, inner = {}, {}, false
  for _, v in ipairs(ys) do isy[v] = true end
  for v = 1, nn do
    for _, p in ipairs(preds[v]) do used[p] = true end
    if not isx[v] and not isy[v] then inner = true end
  end
  local order, mults = {}, 0
  if inner or type(spec) ~= "string" then -- no intermediate: nothing to eliminate
    local key = { table.concat(xs, " "), table.concat(ys, " ") }
    for v = 1, nn do
      if not isx[v] then
        table.sort(preds[v])
        key[#key + 1] = table.concat(preds[v], " ")
      elseif not used[v] then key[#key + 1] = "-" end -- read by a dead `y = x` alone: no edge
    end
    order, mults = cached_order({ n = nn, x = xs, y = ys, preds = preds }, table.concat(key, "\n"), spec, opts, cache)
  end
  if #order == 0 then -- the rows are the graph's own edges
    local app = 0
    for _, y in ipairs(ys) do
      for _, x in ipairs(preds[y]) do
        local m = isx[x] and mark[x * S + y]
        if m and m ~= 1 and m ~= -1 then app = app + 1 end
      end
    end
    return { mults = mults, nontrivial = 0, application = app, tangent = tan }
  end
  -- the replay (as elim.simulate and products): pred and succ sets
  local pred, succ = {}, {}
  for v = 1, nn do pred[v], succ[v] = {}, {} end
  for v = 1, nn do
    for _, p in ipairs(preds[v]) do pred[v][p], succ[p][v] = true, true end
  end
  local replayed, nontrivial = 0, 0
  for _, v in ipairs(order) do
    local ps, ss = {}, {}
    for i in pairs(pred[v]) do ps[#ps + 1] = i end -- products of one vertex are independent of their order
    for k in pairs(succ[v]) do ss[#ss + 1] = k end
    replayed = replayed + #ps * #ss
    for _, i in ipairs(ps) do
      local wa = mark[i * S + v]
      local ua = wa == 1 or wa == -1
      local si = succ[i]
      for _, k in ipairs(ss) do
        local wb = mark[v * S + k]
        local ub = wb == 1 or wb == -1
        local key = i * S + k
        if not si[k] then -- new: a product of units is a unit
          mark[key] = (ua and ub) and (wa == wb and 1 or -1) or 0
        else
          mark[key] = 0
        end
        if not ua and not ub then nontrivial = nontrivial + 1 end
        si[k], pred[k][i] = true, true
      end
    end
    for _, i in ipairs(ps) do succ[i][v] = nil end
    for _, k in ipairs(ss) do pred[k][v] = nil end
    pred[v], succ[v] = {}, {}
  end
  assert(replayed == mults, "tangent: the replay's count differs from the elimination's")
  local app = 0 -- the application: one product per non-unit entry of each row
  for _, y in ipairs(ys) do
    for x in pairs(pred[y]) do
      local m = isx[x] and mark[x * S + y]
      if m and m ~= 1 and m ~= -1 then app = app + 1 end
    end
  end
  return { mults = mults, nontrivial = nontrivial, application = app, tangent = tan }
end

-- }====

-- {==== costs ====}

-- The graph of one statement: its operations ops (vertex ids of sg, in
-- order), the edges into them, sg's vertices; its root a dependent when read.
local function statement_graph(ops, edges, vertices, read, s)
  local isop, srcs, seen, feeds = {}, {}, {}, {}
  for _, v in ipairs(ops) do isop[v] = true end
  for _, e in ipairs(edges) do
    if isop[e[1]] then feeds[e[1]] = true
    elseif not seen[e[1]] then seen[e[1]] = true; srcs[#srcs + 1] = e[1] end
  end
  table.sort(srcs)
  local g, map, root = { vertices = {}, edges = {}, independents = {}, dependents = {} }, {}, nil
  for _, v in ipairs(srcs) do
    g.vertices[#g.vertices + 1] = { kind = "independent" }
    map[v] = #g.vertices
    g.independents[#g.independents + 1] = #g.vertices
  end
  for _, v in ipairs(ops) do
    g.vertices[#g.vertices + 1] = vertices[v]
    map[v] = #g.vertices
    if not feeds[v] then root = v end
  end
  for _, e in ipairs(edges) do g.edges[#g.edges + 1] = { map[e[1]], map[e[2]], e[3] } end
  if read then g.dependents[1] = { vertex = map[root], stmt = s, augmented = false, collapsed = false } end
  return g
end

-- The statement-level graphs of subgraph sg (one graph per assignment),
-- derived from sg itself, as tables shaped like sg: per statement with
-- operations, its operation vertices (vertex.stmt), the vertices feeding
-- them as independents, and its root (the operation feeding none of its
-- own) as its one dependent when its definition is read after it (a
-- dependent of sg at that statement, or a read of sg wired to it).  A copy
-- `y = x` has no operation and costs nothing at statement level.
local function statement_graphs(sg)
  local out, read_def, dep_stmt = {}, {}, {}
  for _, r in ipairs(sg.reads) do if r.def then read_def[r.def] = true end end
  for _, d in ipairs(sg.dependents) do dep_stmt[d.stmt] = true end
  local ops_of, edges_of = {}, {} -- per statement: its operations, the edges into them
  for v, vx in ipairs(sg.vertices) do
    if vx.kind ~= "independent" then
      ops_of[vx.stmt] = ops_of[vx.stmt] or {}
      table.insert(ops_of[vx.stmt], v)
    end
  end
  for _, e in ipairs(sg.edges) do
    local s = sg.vertices[e[2]].stmt
    edges_of[s] = edges_of[s] or {}
    table.insert(edges_of[s], e)
  end
  for _, s in ipairs(sg.statements) do
    local ops = ops_of[s]
    if ops then out[#out + 1] = statement_graph(ops, edges_of[s], sg.vertices, dep_stmt[s] or read_def[s], s) end
  end
  return out
end

local function add_cost(tot, c)
  tot.elimination = tot.elimination + c.nontrivial
  tot.mults = tot.mults + c.mults
  tot.application = tot.application + c.application
  tot.tangent = tot.tangent + c.tangent
end

-- The blocks of res with active assignments, in source order: the blocks of
-- flatten.describe, whose indices are the report's.
local active_blocks = require("cgwb.flatten").active_blocks

-- Sums the costs of every subgraph of res: per-subgraph table and totals,
-- and the totals of the statement-level graphs.
-- Adds the statement-level costs of sg to tot: those of statement_graphs(sg).
-- With cache, each statement's shape (its graph's vertex kinds and
-- operations, edges, independents and dependent: all subgraph_cost reads)
-- is a key made from sg directly, and its graph is built and costed only
-- for a shape not met before (the statements repeat a few shapes).
local function add_statement_costs(tot, sg, spec, opts, cache)
  if not cache then
    for _, g in ipairs(statement_graphs(sg)) do add_cost(tot, subgraph_cost(g, spec, opts)) end
    return
  end
  local verts = sg.vertices
  local read_def, dep_stmt = {}, {}
  for _, r in ipairs(sg.reads) do if r.def then read_def[r.def] = true end end
  for _, d in ipairs(sg.dependents) do dep_stmt[d.stmt] = true end
  local ops_of, edges_of = {}, {}
  for v, vx in ipairs(verts) do
    if vx.kind ~= "independent" then
      ops_of[vx.stmt] = ops_of[vx.stmt] or {}
      table.insert(ops_of[vx.stmt], v)
    end
  end
  for _, e in ipairs(sg.edges) do
    local st = verts[e[2]].stmt
    edges_of[st] = edges_of[st] or {}
    table.insert(edges_of[st], e)
  end
  local seen, feeds, map = {}, {}, {} -- seen, feeds: stamped with the statement
  for _, st in ipairs(sg.statements) do
    local ops = ops_of[st]
    if ops then
      local edges, srcs = edges_of[st], {}
      for _, e in ipairs(edges) do
        local a = e[1]
        local va = verts[a]
        if va.stmt == st and va.kind ~= "independent" then feeds[a] = st
        elseif seen[a] ~= st then seen[a] = st; srcs[#srcs + 1] = a end
      end
      table.sort(srcs)
      local t, ns = { #srcs + #ops }, #srcs
      for i, v in ipairs(srcs) do map[v] = i; t[#t + 1] = "i" end
      local root
      for i, v in ipairs(ops) do
        map[v] = ns + i
        local vx = verts[v]
        t[#t + 1] = vx.kind .. ":" .. tostring(vx.op)
        if feeds[v] ~= st then root = v end
      end
      t[#t + 1] = "e"
      for _, e in ipairs(edges) do t[#t + 1] = map[e[1]]; t[#t + 1] = map[e[2]]; t[#t + 1] = e[3] end
      t[#t + 1] = "x"
      for i = 1, ns do t[#t + 1] = i end
      t[#t + 1] = "y"
      local read = dep_stmt[st] or read_def[st]
      if read then t[#t + 1] = map[root] end
      local key = table.concat(t, " ")
      local c = cache.shape[key]
      if not c then
        c = subgraph_cost(statement_graph(ops, edges, verts, read, st), spec, opts, cache.text)
        cache.shape[key] = c
      end
      add_cost(tot, c)
    end
  end
end

local function sum_costs(res, spec, opts)
  local cache -- only for orderings that are functions of the graph alone
  if type(spec) == "string" then
    local fixed = {}
    for _, name in ipairs(elim.ordering_names("vertex", true, true)) do fixed[name] = true end
    cache = { shape = {}, text = {} }
    for word in spec:gmatch("[^,%s]+") do if not fixed[word] then cache = nil end end
  end
  local per = {}
  local tot = { elimination = 0, application = 0, mults = 0, tangent = 0 }
  local stl = { elimination = 0, application = 0, mults = 0, tangent = 0 }
  for b, blk in ipairs(active_blocks(res)) do
    per[b] = {}
    for s, sg in ipairs(blk.subgraphs) do
      local c = subgraph_cost(sg, spec, opts, cache and cache.text) -- mostly of a shape of their own
      per[b][s] = c
      add_cost(tot, c)
      add_statement_costs(stl, sg, spec, opts, cache)
    end
  end
  return per, tot, stl
end

local function ratio(a, b) if b == 0 then return a == 0 and 1 or math.huge end return a / b end

-- The cost report of a flattening (doc/tangent-code.md): per subgraph
-- (b, s: the indices of flatten.describe's blocks, those with active
-- assignments, and of their subgraphs) the elimination's multiplications
-- (`mults`, as lg:eliminate counts them; `nontrivial`: without the products
-- by +1 or -1), `application` and `tangent`, and for the whole function, per
-- input direction and per execution of each block once, `cost = {tangent,
-- statement_level = {elimination, mults, application, total},
-- preaccumulation = {...}, ratio_*}`; the statement level from res's own
-- statements (statement_graphs).  opts.order: a vertex ordering (default
-- markowitz).  Raises on a bad ordering (emit returns it as nil, message).
-- (cgwb.tangent.costs checks opts.order into spec first.)
function M.report(res, opts, spec)
  local per, pre, sl = sum_costs(res, spec, opts)
  local cost = {
    tangent = sl.tangent,
    statement_level = { elimination = sl.elimination, mults = sl.mults, application = sl.application,
                        total = sl.elimination + sl.application },
    preaccumulation = { elimination = pre.elimination, mults = pre.mults, application = pre.application,
                        total = pre.elimination + pre.application },
  }
  cost.ratio_statement_level = ratio(cost.preaccumulation.total, cost.statement_level.total)
  cost.ratio_tangent = ratio(cost.preaccumulation.total, cost.tangent)
  return { subgraphs = per, cost = cost }
end

-- }====

return M
