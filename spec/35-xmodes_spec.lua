-- Edge and face elimination that never lose to vertex elimination: vertex
-- orders translated into edge and face steps replay to the same
-- multiplications and Jacobian (Hovland, Norris, Utke & Strout, sec. 1;
-- Naumann 2004), the drivers best, anneal and exact in edge and face modes
-- cost at most the vertex mode's result for the same spec, every result's
-- Jacobian is the forward sweep's, the edge branch and bound agrees with an
-- exhaustive search and its bound never exceeds the optimum, and the
-- command line reports vertex_mults and better.
local H = require "spec.helper"
local core = require "cgwb.core"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"
local gen = require "spec.gen"
local RNG = require "spec.rng"
local graphgen = require "spec.graphgen"

-- {==== graphs ====}

-- Largest relative difference of two sorted sparse Jacobians without
-- explicit zeros (huge when the patterns differ).
local function jdiff(a, b) return H.jdiff(H.nozeros(a), H.nozeros(b)) end

-- A random weighted DAG as a .cg graph (spec/graphgen.lua).
local function random_dag(seed, nx, ni, ny) return graphgen.dag(seed, nx, ni, ny) end

-- The linearized graph of a random generated tape.
local function random_tape_graph(seed)
  local recs, x0 = gen.random_records(seed, { n = 3, m = 2, len = 25, store = 6 })
  local g = assert(cgwb.build_graph(gen.tape(recs, x0)))
  local lg = assert(core.linearize(g))
  g:free()
  return lg
end

-- n generated graphs: random DAGs of 2..12 intermediates, then tapes.
local function generated(n)
  local list = {}
  for s = 1, n do
    if s % 2 == 1 then
      local rnd = RNG.new(1000 + s)
      list[#list + 1] = { ("dag %d"):format(s), random_dag(s, rnd:int(1, 4), rnd:int(2, 12), rnd:int(1, 4)) }
    else
      list[#list + 1] = { ("tape %d"):format(s), random_tape_graph(s) }
    end
  end
  return list
end

local GRAPHS = { "lion", "hovland-fig2", "heart-dipole", "lighthouse", "speelpenning10" }
local TAPES = { "bratu.tap", "cavity.tap", "shallow.tap" }

local function shipped_graphs()
  local list = {}
  for _, name in ipairs(GRAPHS) do
    list[#list + 1] = { name, assert(cgwb.read_graph("examples/graphs/" .. name .. ".cg")) }
  end
  return list
end

local function shipped_tapes()
  local list = {}
  for _, name in ipairs(TAPES) do list[#list + 1] = { name, assert(elim.linearize("examples/tapes/" .. name)) } end
  return list
end

-- {==== translation ====}

-- Replays vertex order, its edge steps and its face steps on copies of lg:
-- the three costs and Jacobians.
local function three_ways(lg, order)
  local v <close> = lg:copy()
  local vc = v:replay(order)
  local es = assert(elim.vertex_to_edges(lg, order))
  local e <close> = lg:copy()
  local ec = elim.modes.edge(e, { replay = es })
  local fs = assert(elim.vertex_to_faces(lg, order))
  local f <close> = lg:copy()
  local fc = elim.modes.face(f, { replay = fs })
  return { vc, v:jacobian() }, { ec, e:jacobian() }, { fc, f:jacobian() }
end

local function same_jacobian_bits(a, b, what)
  assert.are.equal(a.nnz, b.nnz, what .. ": nnz")
  for k = 1, a.nnz do
    assert(a.rows[k] == b.rows[k] and a.cols[k] == b.cols[k], what .. ": pattern")
    assert(H.same_bits(a.vals[k], b.vals[k]), ("%s: entry %d: %.17g ~= %.17g"):format(what, k, a.vals[k], b.vals[k]))
  end
end

local ALL_ORDERS = { "markowitz", "forward", "reverse", "min-fill", "random", "best" }
-- (forward and random orders fill the example tapes' graphs beyond reason)
local TAPE_ORDERS = { "markowitz", "reverse", "min-fill", "best" }

local function check_translation(name, lg, orders)
  for _, o in ipairs(orders) do
    local c <close> = lg:copy()
    local _, order = elim.eliminate(c, o, { seed = 7 })
    local V, E, F = three_ways(lg, order)
    local what = name .. " " .. o
    assert.are.equal(V[1].mults, E[1].mults, what .. ": edge mults")
    assert.are.equal(V[1].mults, F[1].mults, what .. ": face mults")
    assert.are.equal(V[1].mults_nontrivial, E[1].mults_nontrivial, what .. ": edge nontrivial")
    assert.are.equal(V[1].mults_nontrivial, F[1].mults_nontrivial, what .. ": face nontrivial")
    assert.are.equal(V[1].adds, E[1].adds, what .. ": edge adds")
    assert.are.equal(V[1].adds, F[1].adds, what .. ": face adds")
    if lg:counts().weighted then
      -- the same products in the same order: the same bits
      same_jacobian_bits(V[2], E[2], what .. " edges")
      same_jacobian_bits(V[2], F[2], what .. " faces")
    end
  end
end

describe("xmodes: vertex orders as edge and face steps", function()
  it(("replay to the vertex mults, additions and Jacobian bits on %d generated graphs"):format(H.sized(240, 60)), function()
    for _, g in ipairs(generated(H.sized(240, 60))) do check_translation(g[1], g[2], ALL_ORDERS) end
  end)

  it("do so on every shipped graph and example tape", function()
    for _, g in ipairs(shipped_graphs()) do check_translation(g[1], g[2], ALL_ORDERS) end
    for _, g in ipairs(shipped_tapes()) do check_translation(g[1], g[2], TAPE_ORDERS) end
  end)

  it("are back eliminations of the out-edges, and faces through the vertex", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lion.cg"))
    -- t1 = 3 (in: x1, x2; out: t2, y4), t2 = 4 (out: y1, y2, y3, y4)
    assert.are.same({ { 3, 4, "back" }, { 3, 8, "back" }, { 4, 5, "back" }, { 4, 6, "back" },
                      { 4, 7, "back" }, { 4, 8, "back" } }, elim.vertex_to_edges(lg, { 3, 4 }))
    local faces = elim.vertex_to_faces(lg, { 4, 3 })
    assert.are.equal(12, #faces)
    assert.are.same({ 3, 4, 5 }, faces[1])
    for _, f in ipairs(faces) do assert.are.equal(3, #f) end -- unique labels: no ranks
  end)

  it("refuse what is not an order", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lion.cg"))
    local s, err = elim.vertex_to_edges(lg, { 3, 3 })
    assert.is_nil(s)
    assert.matches("step 2: 3 is not a remaining intermediate", err, 1, true)
    s, err = elim.vertex_to_faces(lg, { 1 })
    assert.is_nil(s)
    assert.matches("step 1: 1 is not a remaining intermediate", err, 1, true)
    s, err = elim.edges_to_faces(lg, { { 1, 3, "back" } })
    assert.is_nil(s)
    assert.matches("step 1: no eliminable edge 1 -> 3 (back)", err, 1, true)
  end)
end)

-- {==== drivers ====}

-- The vertex mode's mults for spec (nil when it has none: exact on a
-- component too large for the subset dynamic programming).
local function vertex_mults(lg, spec, opts)
  local c <close> = lg:copy()
  local ok, cost = pcall(elim.eliminate, c, spec, opts)
  return ok and cost and cost.mults or nil
end

-- Runs mode/spec on a copy; checks the result against the vertex mode,
-- the forward sweep and its own extra.  Returns the cost and extra.
local function check_driver(name, lg, mode, spec, opts, ref)
  local what = ("%s %s %s"):format(name, mode, spec)
  local c <close> = lg:copy()
  local cost, steps, label, extra = elim.modes[mode](c, spec, opts)
  assert(cost, what .. ": " .. tostring(steps))
  assert.matches("^" .. spec .. ":", label)
  local vm = vertex_mults(lg, spec, opts)
  if vm then
    assert(cost.mults <= vm, ("%s: %d > vertex %d"):format(what, cost.mults, vm))
    assert.are.equal(vm, extra.vertex_mults, what .. ": vertex_mults")
  end
  assert.are.equal(cost.mults < extra.vertex_mults, extra.better, what .. ": better")
  assert(cost.mults <= extra.vertex_mults, what .. ": more than its own vertex figure")
  if ref then
    local d = jdiff(c:jacobian(), ref)
    assert(d <= 1e-12, ("%s: Jacobian differs from the forward sweep by %g"):format(what, d))
  end
  -- the steps returned replay to the same count
  local r <close> = lg:copy()
  assert.are.equal(cost.mults, elim.modes[mode](r, { replay = steps }).mults, what .. ": replay")
  return cost, extra
end

local function check_all(name, lg, specs, opts)
  local ref = lg:counts().weighted and lg:jacobian("forward") or nil
  local out = {}
  for _, spec in ipairs(specs) do
    local e = check_driver(name, lg, "edge", spec, opts, ref)
    local f, fx = check_driver(name, lg, "face", spec, opts, ref)
    assert(f.mults <= e.mults, ("%s face %s: %d > edge %d"):format(name, spec, f.mults, e.mults))
    assert.are.equal(e.mults, fx.edge_mults)
    out[spec] = { edge = e.mults, face = f.mults }
  end
  return out
end

describe("xmodes: best, anneal and exact in edge and face modes", function()
  it(("never cost more than vertex elimination on %d generated graphs"):format(H.sized(40, 10)), function()
    for _, g in ipairs(generated(H.sized(40, 10))) do
      check_all(g[1], g[2], { "best", "anneal", "exact" }, { seed = 3, budget = 60, time_limit = 0.2 })
    end
  end)

  it("never cost more on the shipped graphs and example tapes", function()
    for _, g in ipairs(shipped_graphs()) do
      check_all(g[1], g[2], { "best", "anneal", "exact" }, { seed = 1, budget = H.sized(100, 30), time_limit = H.sized(2, 0.25) })
    end
    -- (shallow: the vertex mode's best itself runs rules that fill its graph beyond reason)
    for _, g in ipairs(shipped_tapes()) do
      if g[1] ~= "shallow.tap" then check_all(g[1], g[2], { "best", "anneal" }, { seed = 1, budget = 2 }) end
    end
  end)

  it("Lion: 11 by edges, proven; face at most 11; vertex 12", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lion.cg"))
    local c <close> = lg:copy()
    local cost, _, _, extra = elim.modes.edge(c, "exact", { time_limit = 30 })
    assert.are.equal(11, cost.mults)
    assert.are.equal(12, extra.vertex_mults)
    assert.is_true(extra.better)
    assert.are.equal(11, extra.lower_bound)
    assert.is_true(extra.proven)
    local f <close> = lg:copy()
    local fc, _, _, fx = elim.modes.face(f, "exact", { time_limit = 30 })
    assert(fc.mults <= 11)
    assert.is_true(fx.better)
  end)

  it("are deterministic: the same seed gives the same steps", function()
    for _, g in ipairs { { "lion", assert(cgwb.read_graph("examples/graphs/lion.cg")) },
                         { "dag", random_dag(5, 3, 10, 3) } } do
      for _, mode in ipairs { "edge", "face" } do
        local a <close> = g[2]:copy()
        local b <close> = g[2]:copy()
        local _, sa = elim.modes[mode](a, "anneal", { seed = 11, budget = 80 })
        local _, sb = elim.modes[mode](b, "anneal", { seed = 11, budget = 80 })
        assert.are.same(sa, sb, g[1] .. " " .. mode)
      end
    end
  end)
end)

-- {==== the edge branch and bound against an exhaustive search ====}

-- The optimum of edge elimination by exhaustive search over states
-- (memoised cost to go, no bound): every front and back step of every
-- intermediate, in every order.
local function edge_optimum(lg)
  local memo = {}
  local function key(c)
    local parts = {}
    for v = 1, c:nv() do parts[#parts + 1] = table.concat(c:succs(v), ",") end
    return table.concat(parts, ";")
  end
  local function go(c)
    local k = key(c)
    if memo[k] then return memo[k] end
    local best
    for _, j in ipairs(c:intermediates()) do
      local steps = {}
      for _, i in ipairs(c:preds(j)) do steps[#steps + 1] = { i, j, "front" } end
      for _, l in ipairs(c:succs(j)) do steps[#steps + 1] = { j, l, "back" } end
      for _, s in ipairs(steps) do
        local d <close> = c:copy()
        local cost = d:elim_edge(s[1], s[2], s[3]).mults + go(d)
        if not best or cost < best then best = cost end
      end
    end
    memo[k] = best or 0
    return memo[k]
  end
  local c <close> = lg:copy()
  return go(c)
end

describe("xmodes: edge exact", function()
  local NG = H.sized(40, 5) -- the exhaustive search in Lua is the slow part under the sanitizers
  it(("finds the exhaustive optimum on %d small generated graphs; the bound never exceeds it"):format(NG), function()
    local proven = 0
    for s = 1, NG do
      local rnd = RNG.new(500 + s)
      local lg = random_dag(900 + s, rnd:int(1, 3), rnd:int(2, 4), rnd:int(1, 3))
      local opt = edge_optimum(lg)
      local c <close> = lg:copy()
      local cost, _, _, extra = elim.modes.edge(c, "exact", { budget = 20, time_limit = 20 })
      assert(extra.lower_bound <= opt, ("graph %d: bound %d > optimum %d"):format(s, extra.lower_bound, opt))
      assert(cost.mults >= opt, ("graph %d: %d below the optimum %d"):format(s, cost.mults, opt))
      if extra.proven then
        assert.are.equal(opt, cost.mults, "graph " .. s)
        proven = proven + 1
      end
    end
    assert(proven > NG * 3 // 4, ("only %d of %d proven"):format(proven, NG))
  end)
end)

-- {==== command line ====}

describe("xmodes: cgwb eliminate --mode edge|face", function()
  it("reports vertex_mults, better, lower_bound and proven in JSON", function()
    local out, _, code = H.cgwb("eliminate examples/graphs/lion.cg --mode edge --order exact --json")
    assert.are.equal(0, code)
    local j = require("cgwb.json").decode(out)
    assert.are.equal(11, j.mults)
    assert.are.equal(12, j.vertex_mults)
    assert.is_true(j.better)
    assert.are.equal(11, j.lower_bound)
    assert.is_true(j.proven)
    out, _, code = H.cgwb("eliminate examples/graphs/hovland-fig2.cg --mode face --order best --json")
    assert.are.equal(0, code)
    j = require("cgwb.json").decode(out)
    assert(j.mults <= j.vertex_mults)
    assert.are.equal(j.mults < j.vertex_mults, j.better)
  end)

  it("says on stderr when strictly better than vertex elimination", function()
    local _, err, code = H.cgwb("eliminate examples/graphs/lion.cg --mode face --order anneal -o /dev/null")
    assert.are.equal(0, code)
    assert.matches("strictly better than vertex elimination (12)", err, 1, true)
    _, err, code = H.cgwb("eliminate examples/graphs/lion.cg --mode edge --order best -o /dev/null")
    assert.are.equal(0, code)
    assert.is_nil(err:find("strictly better", 1, true))
  end)
end)
