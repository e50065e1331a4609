-- cgwb.tangent.subgraph: one flattened subgraph as a structural linearized
-- graph, its elimination under an ordering and the symbolic replay of that
-- elimination as code (Hovland, Norris, Utke & Strout, sec. 1), for the
-- code (cgwb.tangent) and the cost model (cgwb.tangent.costs).  Internal to
-- cgwb.tangent.
local core = require "cgwb.core"
local elim = require "cgwb.elim"
local errors = require "cgwb.util.errors"

local M = {}

local LAY = core.kernel_layout()
local GOPS = core.graph_ops()
local GOP_BY_NAME = {}
for _, g in ipairs(GOPS) do GOP_BY_NAME[g.name] = g end
-- the kernel's operators that are graph vertices (cg_kflat.c's vertex_gop)
local KOP_GOP = { neg = "neg", add = "add", sub = "sub", mul = "mul", div = "div", cond = "cond" }

-- The operation table's row of a flattened vertex (an operation or intrinsic).
local function vertex_gop(vx)
  local g
  if vx.kind == "intrinsic" then g = GOPS[LAY.gop[vx.op] or 0] else g = GOP_BY_NAME[KOP_GOP[vx.op] or ""] end
  if not g then error(errors.refused(("tangent: no operation of the table for '%s'"):format(tostring(vx.op)))) end
  return g
end
M.vertex_gop = vertex_gop

local function is_unit(mark) return mark == "+1" or mark == "-1" end
M.is_unit = is_unit

-- {==== the structure of one subgraph as a linearized graph ====}

-- The linearized graph of subgraph sg, structural: vertices 1..#sg.vertices
-- as flattened, plus one extra vertex per dependent that is augmented (Utke,
-- Flattening, sec. 6.2), collapsed (ibid., Fig. 6c), an independent or the value of several
-- dependents, with a unit edge to it.  Returns {n, x = {ids}, y = {id
-- per dependent}, pos = {["i:k"] = {argument slots}}, mark = {["i:k"] =
-- "variable" | "constant" | "+1" | "-1"}, preds = {sorted predecessors per vertex}}.
local function structure(sg)
  local n = #sg.vertices
  local st = { n = n, x = {}, y = {}, pos = {}, mark = {}, preds = {} }
  for v = 1, n do st.preds[v] = {} end
  for _, e in ipairs(sg.edges) do
    local key = e[1] .. ":" .. e[2]
    if not st.pos[key] then
      st.pos[key] = {}
      st.preds[e[2]][#st.preds[e[2]] + 1] = e[1]
    end
    table.insert(st.pos[key], e[3])
  end
  for key, slots in pairs(st.pos) do
    local dst = tonumber(key:match(":(%d+)$"))
    local g = vertex_gop(sg.vertices[dst])
    st.mark[key] = #slots == 1 and g.marks[slots[1]] or "variable" -- x * x: one edge, the sum
  end
  st.xpos = {}
  for i, v in ipairs(sg.independents) do st.x[i], st.xpos[v] = v, i end
  local count = {} -- a vertex that is the value of two dependents is maximal for none of them
  for _, dep in ipairs(sg.dependents) do count[dep.vertex] = (count[dep.vertex] or 0) + 1 end
  for d, dep in ipairs(sg.dependents) do
    local v = dep.vertex
    if dep.augmented or dep.collapsed or count[v] > 1 or sg.vertices[v].kind == "independent" then
      st.n = st.n + 1
      st.preds[st.n] = { v }
      st.mark[v .. ":" .. st.n] = "+1"
      v = st.n
    end
    st.y[d] = v
  end
  for v = 1, st.n do table.sort(st.preds[v]) end -- the edges in vertex order, as the graph gets them
  return st
end

-- The structural linearized graph of st, built in memory (core.lin_graph).
local function lin_graph(st) return core.lin_graph(st.n, st.x, st.y, st.preds) end

-- The vertex ordering of tangent code: opts.order (default "markowitz"), checked
-- (an edge word or another mode refused, as doc/tangent-code.md says; the command
-- line checks --order with it).  -> spec | nil, message.
function M.order_spec(opts)
  if opts.mode and opts.mode ~= "vertex" then
    return nil, ("--order: tangent code preaccumulates by vertex elimination; the %s mode is not "
      .. "available here"):format(tostring(opts.mode))
  end
  local spec = opts.order or "markowitz"
  if type(spec) == "string" then
    for word in spec:gmatch("[^,%s]+") do
      if word == "front" or word == "back" or word == "lowest" then
        return nil, ("--order: '%s' belongs to edge elimination; tangent code preaccumulates by vertex "
          .. "elimination (%s)"):format(word, table.concat(elim.ordering_names("vertex"), ", "))
      end
    end
    if spec:match("%.lua$") then return elim.load_order(spec) end
    local ok, err = elim.resolve(spec, "vertex")
    if not ok then return nil, "--order: " .. err end
  end
  return spec
end

-- Eliminates st (structure) under spec: the vertex order and the cost.
local function eliminate(st, spec, opts)
  if #st.y == 0 then return {}, { mults = 0 } end
  local lg <close> = lin_graph(st)
  local cost, order = M.run_ordering(lg, spec, opts)
  if not cost then error(errors.input(order)) end
  return order, cost
end

-- elim.eliminate(lg, spec, opts), where a Lua ordering (the user's code: a
-- table spec) that raises is bad input, its message kept.
function M.run_ordering(lg, spec, opts)
  if type(spec) ~= "table" then return elim.eliminate(lg, spec, opts) end
  local ok, cost, order = pcall(elim.eliminate, lg, spec, opts)
  if not ok then return nil, errors.is(cost) and cost.msg or tostring(cost) end
  return cost, order
end

-- The symbolic elimination of st in `order`: calls line(text, def, uses)
-- for each product (weights named by wname(i, k), the tangent-free code),
-- and returns the final weights {["i:k"] = {name=, mark=}} and the counts
-- {mults, nontrivial}.  A product by +1 is a copy, by -1 a negation.
local function products(st, order, wname, line)
  local w = {}
  for key, mark in pairs(st.mark) do
    local i, k = key:match("^(%d+):(%d+)$")
    w[key] = { mark = mark, name = (not is_unit(mark)) and wname(tonumber(i), tonumber(k)) or nil }
  end
  if #st.y == 0 then return w, { mults = 0, nontrivial = 0 }, {} end
  local lg <close> = lin_graph(st)
  local nontrivial = 0
  local mults, pred = elim.simulate(lg, order, function(kind, dst, a, b)
    local wa, wb = w[a], w[b]
    local sign, term, uses = 1, nil, {}
    if is_unit(wa.mark) and is_unit(wb.mark) then
      sign = (wa.mark == wb.mark) and 1 or -1
    elseif is_unit(wa.mark) then
      sign, term, uses = wa.mark == "-1" and -1 or 1, wb.name, { wb.name }
    elseif is_unit(wb.mark) then
      sign, term, uses = wb.mark == "-1" and -1 or 1, wa.name, { wa.name }
    else
      nontrivial = nontrivial + 1
      term, uses = wa.name .. " * " .. wb.name, { wa.name, wb.name }
    end
    local i, k = dst:match("^(%d+):(%d+)$")
    if kind == "new" then
      if not term then
        w[dst] = { mark = sign > 0 and "+1" or "-1" }
      else
        local name = wname(tonumber(i), tonumber(k))
        w[dst] = { mark = "variable", name = name }
        line(("%s = %s%s;"):format(name, sign < 0 and "-" or "", term), name, uses)
      end
    else
      local old = w[dst]
      local name = old.name or wname(tonumber(i), tonumber(k))
      local rhs = term or "1.0"
      if old.name then
        uses[#uses + 1] = name
        line(("%s %s= %s;"):format(name, sign < 0 and "-" or "+", rhs), name, uses)
      else
        line(("%s = %s %s %s;"):format(name, old.mark == "-1" and "-1.0" or "1.0", sign < 0 and "-" or "+", rhs),
             name, uses)
      end
      w[dst] = { mark = "variable", name = name }
    end
  end)
  return w, { mults = mults, nontrivial = nontrivial }, pred
end

-- The application of the local Jacobian to dependent d's row: the C sum
-- over the independents' tangents dname(x) (0.0 if none), its uses and
-- multiplications.  pred: the eliminated graph's predecessor sets.
local function row_sum(st, w, pred, d, dname)
  local terms, uses, mults = {}, {}, 0
  local y = st.y[d]
  local xs = {}
  for x in pairs(pred[y] or {}) do if st.xpos[x] then xs[#xs + 1] = x end end
  table.sort(xs, function(a, b) return st.xpos[a] < st.xpos[b] end) -- the independents' order
  for _, x in ipairs(xs) do
    local e = w[x .. ":" .. y]
    if e then
      local t = dname(x)
      uses[#uses + 1] = t
      if e.mark == "+1" then terms[#terms + 1] = (#terms > 0 and " + " or "") .. t
      elseif e.mark == "-1" then terms[#terms + 1] = (#terms > 0 and " - " or "-") .. t
      else
        mults = mults + 1
        uses[#uses + 1] = e.name
        terms[#terms + 1] = (#terms > 0 and " + " or "") .. e.name .. " * " .. t
      end
    end
  end
  if #terms == 0 then return "0.0", uses, 0 end
  return table.concat(terms), uses, mults
end

-- }====

M.structure, M.lin_graph, M.eliminate, M.products, M.row_sum = structure, lin_graph, eliminate, products, row_sum

return M
