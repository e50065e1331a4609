-- spec/13-replay_spec.lua: the cost an elimination reports is the cost of
-- doing what it reports (Hovland, Norris, Utke & Strout, sec. 1: vertex,
-- edge and face elimination; csrc/elim, lua/cgwb/elim/).
--
-- For generated tapes and the example graphs, every ordering of every mode
-- returns an order (or steps) and a cost; replaying the order on a fresh
-- copy must give that cost, field by field.  The drivers (anneal, best,
-- exact) must return a cost equal to the replay of the order they return.
-- An independent replay written here on plain Lua tables (from lg:preds,
-- lg:succs, lg:weight and lg:kind) recounts multiplications, nontrivial
-- ones (a product is free when a factor is a structural +1 or -1), adds and
-- fill-in for vertex orders and for edge steps, and must agree with the core.
require "spec.helper"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"
local gen = require "spec.gen"

-- {==== graphs ====}

-- Linearized graphs of generated tapes (with division and the like, so that
-- constant and +-1 edges mix with variable ones).
local function generated(seed, len)
  local ops = { "assign_a", "eq_plus_a", "eq_min_d", "eq_mult_d", "plus_a_a", "plus_d_a", "min_a_a",
                "min_d_a", "mult_a_a", "mult_d_a", "sin_op", "neg_sign_a", "incr_a", "eq_plus_prod",
                "plus_a_d", "min_a_d", "div_a_d", "eq_min_a", "pos_sign_a" }
  local recs, x0 = gen.random_records(seed, { n = 2 + seed % 3, m = 2 + seed % 2, len = len, store = 7,
                                              deaths = true, ops = ops })
  local g = assert(cgwb.build_graph(gen.tape(recs, x0)))
  local lg = assert(cgwb.core.linearize(g))
  g:free()
  return lg
end

local EXAMPLES = { "examples/graphs/hovland-fig2.cg", "examples/graphs/lighthouse.cg",
                   "examples/graphs/lion.cg", "examples/graphs/heart-dipole.cg",
                   "examples/graphs/speelpenning10.cg" }

-- {name, lg} for the generated and example graphs.
local function all_graphs()
  local out = {}
  for seed = 1, 14 do out[#out + 1] = { "seed " .. seed, generated(seed, 12 + 3 * seed) } end
  for _, p in ipairs(EXAMPLES) do out[#out + 1] = { p, assert(cgwb.read_graph(p)) } end
  return out
end

-- {==== an independent replay on Lua tables ====}

-- Marks: the products are free when a factor is "+1" or "-1".
local SIGN = { ["+1"] = 1, ["-1"] = -1 }
local function mark_prod(a, b)
  if a == "variable" or b == "variable" then return "variable" end
  if a == "constant" or b == "constant" then return "constant" end
  return SIGN[a] * SIGN[b] > 0 and "+1" or "-1"
end
local function mark_sum(a, b)
  return (a ~= "variable" and b ~= "variable") and "constant" or "variable"
end
local function trivial(m) return SIGN[m] ~= nil end

-- The structure of lg: kind[v], pred[v][i] = true, succ[v][k] = true, mark[i][k].
local function snapshot(lg)
  local S = { kind = {}, pred = {}, succ = {}, mark = {}, nv = lg:nv() }
  for v = 1, S.nv do S.kind[v], S.pred[v], S.succ[v], S.mark[v] = lg:kind(v), {}, {}, {} end
  for k = 1, S.nv do
    for _, i in ipairs(lg:preds(k)) do
      local _, m = lg:weight(i, k)
      S.pred[k][i], S.succ[i][k], S.mark[i][k] = true, true, m
    end
  end
  return S
end

local function sorted(set)
  local l = {}
  for k in pairs(set) do l[#l + 1] = k end
  table.sort(l)
  return l
end

local function zero_cost() return { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0 } end

-- w(i, k) += w(i, j) w(j, k), counted into C.
local function accumulate(S, C, i, j, k)
  local mi, mo = S.mark[i][j], S.mark[j][k]
  local mp = mark_prod(mi, mo)
  C.mults = C.mults + 1
  if not trivial(mi) and not trivial(mo) then C.mults_nontrivial = C.mults_nontrivial + 1 end
  if S.mark[i][k] then
    C.adds = C.adds + 1
    S.mark[i][k] = mark_sum(S.mark[i][k], mp)
  else
    C.fill = C.fill + 1
    S.mark[i][k], S.succ[i][k], S.pred[k][i] = mp, true, true
  end
end

local function remove_edge(S, i, k)
  S.mark[i][k], S.succ[i][k], S.pred[k][i] = nil, nil, nil
end

local function drop_vertex(S, v)
  for _, i in ipairs(sorted(S.pred[v])) do remove_edge(S, i, v) end
  for _, k in ipairs(sorted(S.succ[v])) do remove_edge(S, v, k) end
  S.kind[v] = "eliminated"
end

local function elim_vertex(S, C, v)
  assert(S.kind[v] == "intermediate", "replay: vertex " .. v .. " is not an intermediate")
  for _, i in ipairs(sorted(S.pred[v])) do
    for _, k in ipairs(sorted(S.succ[v])) do accumulate(S, C, i, v, k) end
  end
  C.steps = C.steps + 1
  drop_vertex(S, v)
end

-- Front elimination of (i, j): into every successor of j; j goes when
-- nothing flows into it.  Back elimination of (j, k): from every
-- predecessor of j; j goes when nothing flows out of it.
local function elim_edge(S, C, a, b, side)
  assert(S.mark[a][b], ("replay: no edge %d -> %d"):format(a, b))
  if side == "front" then
    for _, k in ipairs(sorted(S.succ[b])) do accumulate(S, C, a, b, k) end
    remove_edge(S, a, b)
    if next(S.pred[b]) == nil then drop_vertex(S, b) end
  else
    for _, h in ipairs(sorted(S.pred[a])) do accumulate(S, C, h, a, b) end
    remove_edge(S, a, b)
    if next(S.succ[a]) == nil then drop_vertex(S, a) end
  end
  C.steps = C.steps + 1
end

local function lua_vertex_cost(lg, order)
  local S, C = snapshot(lg), zero_cost()
  for _, v in ipairs(order) do elim_vertex(S, C, v) end
  return C, S
end

-- Edge steps, then the intermediates left in id order (as the edge driver).
local function lua_edge_cost(lg, steps)
  local S, C = snapshot(lg), zero_cost()
  for _, st in ipairs(steps) do elim_edge(S, C, st[1], st[2], st[3]) end
  for v = 1, S.nv do
    if S.kind[v] == "intermediate" then elim_vertex(S, C, v) end
  end
  return C, S
end

-- {==== comparisons ====}

-- The edges left and their marks are those of the core's graph after the same steps.
local function same_marks(S, lg, what)
  for k = 1, S.nv do
    local preds = lg:preds(k)
    assert.are.same(sorted(S.pred[k]), preds, what .. ": predecessors of " .. k)
    for _, i in ipairs(preds) do
      local _, m = lg:weight(i, k)
      assert(m == S.mark[i][k], ("%s: mark of %d -> %d: %s ~= %s"):format(what, i, k, m, S.mark[i][k]))
    end
  end
end

local FIELDS = { "mults", "mults_nontrivial", "adds", "fill", "steps" }

local function same_cost(want, got, what, all)
  for _, f in ipairs(all and { "mults", "mults_nontrivial", "adds", "fill", "steps", "peak_edges" } or FIELDS) do
    assert(want[f] == got[f], ("%s: %s %s ~= %s"):format(what, f, tostring(got[f]), tostring(want[f])))
  end
end

local function core_vertex_replay(lg, order)
  local c <close> = lg:copy()
  return c:replay(order)
end

-- Every vertex of a complete order is an intermediate, once.
local function complete_order(lg, order, what)
  local seen, n = {}, 0
  for _, v in ipairs(order) do
    assert(lg:kind(v) == "intermediate" and not seen[v], what .. ": vertex " .. v .. " twice or not an intermediate")
    seen[v], n = true, n + 1
  end
  assert.are.equal(#lg:intermediates(), n, what .. ": order length")
end

local GRAPHS = all_graphs()
local VERTEX = elim.ordering_names("vertex")
local EDGE = elim.ordering_names("edge")
local FACE = elim.ordering_names("face")

describe("replay: vertex orderings", function()
  it("every built-in ordering's cost equals the replay of its order (core and Lua replays)", function()
    for _, G in ipairs(GRAPHS) do
      local lg = G[2]
      for _, name in ipairs(VERTEX) do
        local c <close> = lg:copy()
        local cost, order = elim.eliminate(c, name, { budget = 40, seed = 3, time_limit = 0.5 })
        local what = G[1] .. ", " .. name
        assert(cost, what .. ": " .. tostring(order))
        complete_order(lg, order, what)
        same_cost(cost, core_vertex_replay(lg, order), what .. " (core replay)", true)
        local lc, S = lua_vertex_cost(lg, order)
        same_cost(cost, lc, what .. " (Lua replay)")
        same_marks(S, c, what)
      end
    end
  end)

  it("anneal, best and exact return a cost equal to the replay of the order they return", function()
    for _, G in ipairs(GRAPHS) do
      local lg = G[2]
      for _, seed in ipairs({ 1, 7 }) do
        local order, cost = elim.anneal(lg, { budget = 60, seed = seed })
        complete_order(lg, order, G[1] .. " anneal")
        assert.are.equal(core_vertex_replay(lg, order).mults, cost, G[1] .. ", anneal seed " .. seed)
        assert.are.equal(lua_vertex_cost(lg, order).mults, cost, G[1] .. ", anneal seed " .. seed)
      end
      local order, cost, name = elim.best(lg, { max_component = 12 })
      assert.are.equal(core_vertex_replay(lg, order).mults, cost, G[1] .. ", best (" .. name .. ")")
      assert.are.equal(lua_vertex_cost(lg, order).mults, cost, G[1] .. ", best (" .. name .. ")")
      local mults, xorder = lg:exact(12)
      if mults then
        complete_order(lg, xorder, G[1] .. " exact")
        assert.are.equal(core_vertex_replay(lg, xorder).mults, mults, G[1] .. ", exact")
        assert.are.equal(lua_vertex_cost(lg, xorder).mults, mults, G[1] .. ", exact")
        assert.is_true(mults <= cost, G[1] .. ": exact above best")
      end
    end
  end)

  it("a graph is unchanged by the drivers (they work on copies)", function()
    for _, G in ipairs(GRAPHS) do
      local before = #G[2]:intermediates()
      elim.anneal(G[2], { budget = 5 })
      elim.best(G[2], { max_component = 8 })
      assert.are.equal(before, #G[2]:intermediates(), G[1])
    end
  end)
end)

describe("replay: edge orderings", function()
  it("every rule on both, front and back sides: its cost equals the replay of its steps", function()
    for _, G in ipairs(GRAPHS) do
      local lg = G[2]
      for _, name in ipairs(elim.edge_builtin) do
        for _, sides in ipairs({ "both", "front", "back" }) do
          local c <close> = lg:copy()
          local cost, steps = c:eliminate_edges({ name, sides = sides, seed = 5 })
          local what = ("%s, %s, %s"):format(G[1], name, sides)
          assert(cost, what .. ": " .. tostring(steps))
          for _, st in ipairs(steps) do
            assert(sides == "both" or st[3] == sides, what .. ": a step on the " .. st[3] .. " side")
          end
          local r <close> = lg:copy()
          same_cost(cost, (elim.modes.edge(r, { replay = steps })), what .. " (core replay)")
          local lc, S = lua_edge_cost(lg, steps)
          same_cost(cost, lc, what .. " (Lua replay)")
          same_marks(S, c, what)
        end
      end
    end
  end)

  it("best returns the cost of the replay of its steps, the cost of the rule it names", function()
    for _, G in ipairs(GRAPHS) do
      local c <close> = G[2]:copy()
      local cost, steps, name = elim.modes.edge(c, "best")
      same_cost(cost, lua_edge_cost(G[2], steps), G[1] .. " " .. name)
      local r <close> = G[2]:copy()
      if name == "best:vertex" then -- the vertex mode's best order, translated
        assert.are.equal(select(2, elim.best(G[2])), cost.mults, G[1] .. " " .. name)
      else
        same_cost(cost, (r:eliminate_edges({ (name:gsub("^best:", "")) })), G[1] .. " " .. name)
      end
    end
  end)

  it("the mode's list is the registry's", function()
    local core_names = {}
    local driver = { best = true, anneal = true, exact = true }
    for _, n in ipairs(EDGE) do if not driver[n] then core_names[#core_names + 1] = n end end
    assert.are.same(core_names, elim.edge_builtin)
  end)
end)

describe("replay: face orderings", function()
  it("every rule's cost equals the replay of its steps on a fresh copy", function()
    for _, G in ipairs(GRAPHS) do
      local lg = G[2]
      for _, name in ipairs(FACE) do
        local c <close> = lg:copy()
        local cost, steps = elim.modes.face(c, name, { seed = 9, time_limit = 1 }) -- exact: 60 s a graph by default
        local what = G[1] .. ", face " .. name
        assert(cost, what .. ": " .. tostring(steps))
        local r <close> = lg:copy()
        same_cost(cost, r:replay_faces(steps), what)
        assert.are.same(c:jacobian().cols, r:jacobian().cols, what .. ": Jacobian structure")
      end
    end
  end)
end)

-- Jacobians compared bit for bit (structure and values).
local function same_jacobian(a, b, what)
  assert(a and b, what .. ": no Jacobian")
  assert(a.nnz == b.nnz, what .. ": nnz")
  for q = 1, a.nnz do
    assert(a.rows[q] == b.rows[q] and a.cols[q] == b.cols[q] and a.vals[q] == b.vals[q],
      ("%s: entry %d (%d, %d): %.17g ~= %.17g"):format(what, q, a.rows[q], a.cols[q], a.vals[q], b.vals[q]))
  end
end

describe("replay: the same steps give the same Jacobian", function()
  -- A replay does the same operations in the same order as the run it
  -- records, so even the roundings agree.  Many small graphs: the face
  -- steps of a run must name faces that a replay finds, and the same ones.
  local many = {}
  for seed = 1, 80 do many[#many + 1] = { "seed " .. seed, generated(seed, 12 + 3 * (seed % 20)) } end

  it("vertex and edge orderings", function()
    for _, G in ipairs(many) do
      local lg = G[2]
      for _, name in ipairs(elim.builtin) do
        local c <close> = lg:copy()
        local _, order = c:eliminate({ name })
        local r <close> = lg:copy()
        r:replay(order)
        same_jacobian(c:jacobian(), r:jacobian(), G[1] .. ", vertex " .. name)
      end
      for _, name in ipairs(elim.edge_builtin) do
        for _, sides in ipairs({ "both", "front", "back" }) do
          local c <close> = lg:copy()
          local _, steps = c:eliminate_edges({ name, sides = sides, seed = 5 })
          local r <close> = lg:copy()
          elim.modes.edge(r, { replay = steps })
          same_jacobian(c:jacobian(), r:jacobian(), ("%s, edge %s %s"):format(G[1], name, sides))
        end
      end
    end
  end)

  it("face orderings", function()
    for _, G in ipairs(many) do
      for _, name in ipairs(elim.face_builtin) do
        for _, seed in ipairs({ 1, 9, 77 }) do
          local what = ("%s, face %s (seed %d)"):format(G[1], name, seed)
          local c <close> = G[2]:copy()
          local cost, steps = c:eliminate_faces({ name, seed = seed })
          local r <close> = G[2]:copy()
          local rcost, err = r:replay_faces(steps)
          assert(rcost, what .. ": the replay fails: " .. tostring(err))
          same_cost(cost, rcost, what)
          same_jacobian(c:jacobian(), r:jacobian(), what)
        end
      end
    end
  end)
end)

describe("replay: the Lua replay itself", function()
  it("agrees with a hand count on Figure 2 of Hovland, Norris, Utke & Strout", function()
    local lg = assert(cgwb.read_graph("examples/graphs/hovland-fig2.cg"))
    local order = lg:intermediates()
    local want = core_vertex_replay(lg, order)
    same_cost(want, lua_vertex_cost(lg, order), "forward order")
    assert.is_true(want.mults > 0)
  end)
end)
