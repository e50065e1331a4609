-- Jacobian accumulation by elimination (Hovland, Norris, Utke & Strout, sec. 1; Utke, Flattening Basic
-- Blocks, secs. 1 and 6.2; Naumann's face elimination): every ordering and every mode
-- gives the Jacobian of the forward and reverse sweeps, costs are the
-- multiplications performed, the exact ordering is optimal, and the Lua
-- interfaces (scores, chains, choose, replay) behave.
local H = require "spec.helper"
local core = require "cgwb.core"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"
local gen = require "spec.gen"
local RNG = require "spec.rng"

-- {==== helpers ====}

local jdiff, nozeros = H.jdiff, H.nozeros

local function cg(text, name) return assert(core.read_cg(text, name or "t.cg")) end

-- A .cg text from x ids, y ids and edges {p, v, w} (an unused independent
-- gets a line of its own, which defines it).
local function cg_text(x, y, edges)
  local by = {}
  local out = { "X: " .. table.concat(x, " "), "Y: " .. table.concat(y, " ") }
  for _, e in ipairs(edges) do
    by[e[2]] = by[e[2]] or {}
    table.insert(by[e[2]], ("%d:%.17g"):format(e[1], e[3]))
  end
  local used = {}
  for _, e in ipairs(edges) do used[e[1]] = true end
  for _, v in ipairs(x) do
    if not used[v] then by[v] = {} end
  end
  local vs = {}
  for v in pairs(by) do vs[#vs + 1] = v end
  table.sort(vs)
  for _, v in ipairs(vs) do out[#out + 1] = v .. ": " .. table.concat(by[v], " ") end
  return table.concat(out, "\n") .. "\n"
end

-- A random DAG: nx independents, ni intermediates, ny dependents, 1..3
-- predecessors per vertex, every intermediate with a successor.
local function random_dag(seed, nx, ni, ny)
  local rnd = RNG.new(seed)
  local nv, edges, has = nx + ni + ny, {}, {}
  local succ = {}
  local function add(p, v)
    if has[p .. ":" .. v] then return end
    has[p .. ":" .. v] = true
    succ[p] = true
    edges[#edges + 1] = { p, v, rnd:float(-2, 2) }
  end
  for v = nx, nv - 1 do
    local top = math.min(v - 1, nx + ni - 1)
    for _ = 1, rnd:int(1, 3) do add(rnd:int(0, top), v) end
  end
  for u = nx, nx + ni - 1 do
    if not succ[u] then add(u, rnd:int(u + 1, nv - 1)) end
  end
  local x, y = {}, {}
  for i = 0, nx - 1 do x[#x + 1] = i end
  for i = nx + ni, nv - 1 do y[#y + 1] = i end
  return cg(cg_text(x, y, edges), ("dag%d.cg"):format(seed))
end

-- The linearized graph of a random generated tape.
local function random_tape_graph(seed, opts)
  local recs, x0 = gen.random_records(seed, opts or { n = 3, m = 2, len = 25, store = 6 })
  local tape = gen.tape(recs, x0)
  local g = assert(cgwb.build_graph(tape))
  local lg = assert(core.linearize(g))
  g:free()
  return lg
end

-- Every ordering of every mode on a copy of lg: {label = {cost, J}}.
local vertex_orders = { "forward", "reverse", "markowitz", "relative-markowitz", "min-fill",
                        "lmmd", "momr", "random", "markowitz,forward" }
local function all_runs(lg)
  local runs = {}
  for _, o in ipairs(vertex_orders) do
    local c <close> = lg:copy()
    local cost, order = c:eliminate(elim.core_spec(o))
    runs["vertex " .. o] = { cost = cost, J = c:jacobian(), order = order }
  end
  for _, o in ipairs(elim.edge_builtin) do
    for _, sides in ipairs { "both", "front", "back" } do
      local c <close> = lg:copy()
      local cost = c:eliminate_edges({ o, sides = sides, seed = 3 })
      runs["edge " .. o .. " " .. sides] = { cost = cost, J = c:jacobian() }
    end
  end
  for _, o in ipairs(elim.face_builtin) do
    local c <close> = lg:copy()
    local cost = c:eliminate_faces({ o, seed = 5 })
    runs["face " .. o] = { cost = cost, J = c:jacobian() }
  end
  return runs
end

local function sorted(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end

-- Checks every run of lg against the sweeps.
local function check_all(lg, tol)
  local F, R = lg:jacobian("forward"), lg:jacobian("reverse")
  assert.is_true(jdiff(F, R) <= (tol or 1e-12), "forward and reverse sweeps differ")
  local runs = all_runs(lg)
  for _, label in ipairs(sorted(runs)) do
    local d = jdiff(nozeros(runs[label].J), F)
    assert(d <= (tol or 1e-12), ("%s: Jacobian differs from the sweeps by %g"):format(label, d))
  end
  return runs
end

-- Brute force over all permutations of the intermediates (Heap's algorithm,
-- iterative), costs counted by elim.simulate: the minimum.
local function brute_force(lg)
  local inter = lg:intermediates()
  local n, best = #inter, math.huge
  local a, c = { table.unpack(inter) }, {}
  for i = 1, n do c[i] = 1 end
  local function visit() best = math.min(best, (elim.simulate(lg, a))) end
  visit()
  local i = 1
  while i <= n do
    if c[i] < i then
      if i % 2 == 1 then a[1], a[i] = a[i], a[1] else a[c[i]], a[i] = a[i], a[c[i]] end
      visit()
      c[i] = c[i] + 1
      i = 1
    else
      c[i] = 1
      i = i + 1
    end
  end
  return best
end

-- {==== hand-made graphs ====}

-- Speelpenning's product y = x1 x2 ... xn at x.
local function speelpenning(x)
  local n, edges = #x, {}
  local prod = x[1]
  -- v_n = x1 * x2, v_{n+k} = v_{n+k-1} * x_{k+2}
  edges[#edges + 1] = { 0, n, x[2] }
  edges[#edges + 1] = { 1, n, x[1] }
  prod = x[1] * x[2]
  for k = 3, n do
    local v = n + k - 2
    edges[#edges + 1] = { v - 1, v, x[k] }
    edges[#edges + 1] = { k - 1, v, prod }
    prod = prod * x[k]
  end
  local xs = {}
  for i = 0, n - 1 do xs[#xs + 1] = i end
  return cg(cg_text(xs, { 2 * n - 2 }, edges), "speelpenning.cg")
end

-- The Lighthouse function (Griewank & Walther): y1 = nu tan(om t) / (ga -
-- tan(om t)), y2 = ga y1; x = (nu, ga, om, t); y1 is not maximal, so it
-- gets a unit copy vertex (Utke, Flattening Basic Blocks, sec. 6.2).
local function lighthouse(nu, ga, om, t)
  local v1 = om * t
  local v2 = math.tan(v1)
  local v3 = ga - v2
  local v4 = nu * v2
  local v5 = v4 / v3
  local edges = {
    { 2, 4, t }, { 3, 4, om },               -- v1 = om * t        (vertex 4)
    { 4, 5, 1 + v2 * v2 },                   -- v2 = tan(v1)       (5)
    { 1, 6, 1 }, { 5, 6, -1 },               -- v3 = ga - v2       (6)
    { 0, 7, v2 }, { 5, 7, nu },              -- v4 = nu * v2       (7)
    { 7, 8, 1 / v3 }, { 6, 8, -v5 / v3 },    -- v5 = v4 / v3       (8)
    { 8, 9, ga }, { 1, 9, v5 },              -- v6 = ga * v5 = y2  (9)
    { 8, 10, 1 },                            -- y1: copy of v5     (10)
  }
  return cg(cg_text({ 0, 1, 2, 3 }, { 10, 9 }, edges), "lighthouse.cg")
end

-- Hovland, Norris, Utke & Strout Figure 1 at x = 1, y = 2: a = cos x; b = sin(y) y y; f = exp(a b).
local function hovland_fig2(x, y)
  local a, s = math.cos(x), math.sin(y)
  local t = s * y
  local b = t * y
  local f = math.exp(a * b)
  local edges = {
    { 0, 2, -math.sin(x) }, { 1, 3, math.cos(y) }, { 3, 4, y }, { 1, 4, s },
    { 4, 5, y }, { 1, 5, t }, { 2, 6, b }, { 5, 6, a }, { 6, 7, f },
  }
  local dfdx = f * b * -math.sin(x)
  local dfdy = f * a * (math.cos(y) * y * y + 2 * y * s)
  return cg(cg_text({ 0, 1 }, { 7 }, edges), "hovland-fig2.cg"), { dfdx, dfdy }
end

describe("elim: hand-made graphs", function()
  it("Speelpenning's product: the gradient is the products of the others, in every mode", function()
    local x = { 1.5, -2, 0.5, 3, 1.25, -0.75 }
    local lg = speelpenning(x)
    local runs = check_all(lg)
    local J = runs["vertex markowitz"].J
    assert.are.equal(6, J.nnz)
    for i = 1, 6 do
      local p = 1
      for k = 1, 6 do if k ~= i then p = p * x[k] end end
      assert.is_true(math.abs(J.vals[i] - p) <= 1e-13 * math.max(1, math.abs(p)))
    end
    -- reverse mode needs one multiplication per edge into the chain: 2(n-2)
    -- (x1 and x2 share the first vertex), forward mode many more.
    assert.are.equal(2 * (6 - 2), runs["vertex reverse"].cost.mults)
    assert.is_true(runs["vertex forward"].cost.mults > runs["vertex reverse"].cost.mults)
  end)

  it("Lighthouse: every mode matches the sweeps; y1 = v5 goes through a unit copy", function()
    local lg = lighthouse(3.7, 0.4, 0.3, 1.1)
    check_all(lg)
    local nu, ga, om, t = 3.7, 0.4, 0.3, 1.1
    local c <close> = lg:copy()
    c:eliminate("markowitz")
    local J = c:jacobian()
    local tn = math.tan(om * t)
    local y1 = nu * tn / (ga - tn)
    local sec2 = 1 + tn * tn
    local d = (ga - tn)
    local want = { -- row 1: y1
      tn / d, -nu * tn / (d * d), nu * t * sec2 * ga / (d * d), nu * om * sec2 * ga / (d * d) }
    for k = 1, 4 do
      assert.are.equal(1, J.rows[k])
      assert.is_true(math.abs(J.vals[k] - want[k]) <= 1e-12 * math.max(1, math.abs(want[k])))
    end
    -- row 2: y2 = ga y1
    assert.is_true(math.abs(J.vals[6] - (y1 + ga * want[2])) <= 1e-12 * math.max(1, math.abs(y1)))
  end)

  it("Hovland, Norris, Utke & Strout Figure 1: df/dx and df/dy in closed form", function()
    local lg, want = hovland_fig2(1.0, 2.0)
    local runs = check_all(lg)
    for _, label in ipairs(sorted(runs)) do
      local J = runs[label].J
      for k = 1, 2 do
        assert(math.abs(J.vals[k] - want[k]) <= 1e-12 * math.abs(want[k]), label)
      end
    end
  end)

  it("Hovland, Norris, Utke & Strout Figure 3: eliminating a*b's vertex adds the products into the edges to f", function()
    local lg = hovland_fig2(1.0, 2.0)
    local w_cf, w_ac, w_bc = lg:weight(7, 8), lg:weight(3, 7), lg:weight(6, 7)
    local cost = lg:elim_vertex(7) -- c = a*b, 1-based vertex 7
    assert.are.equal(2, cost.mults)
    assert.are.equal(2, cost.fill)
    assert.is_nil(lg:weight(3, 7))
    assert.are.equal(w_ac * w_cf, lg:weight(3, 8))
    assert.are.equal(w_bc * w_cf, lg:weight(6, 8))
  end)
end)

-- {==== properties on generated graphs ====}

describe("elim: every ordering and mode on generated graphs", function()
  it("random DAGs: all Jacobians equal the forward and reverse sweeps", function()
    for seed = 1, 40 do
      local lg = random_dag(seed, 1 + seed % 4, 3 + seed % 9, 1 + seed % 3)
      check_all(lg)
    end
  end)

  it("random tapes (spec/gen.lua -> build_graph -> linearize): the same", function()
    for seed = 1, 30 do
      local lg = random_tape_graph(seed, { n = 1 + seed % 4, m = 1 + seed % 3, len = 15 + seed, store = 6 })
      check_all(lg, 1e-11)
    end
  end)

  it("the example tapes: vertex, edge and face modes agree with the sweeps", function()
    for _, name in ipairs { "bratu", "shallow", "cavity" } do
      local lg = assert(elim.linearize("examples/tapes/" .. name .. ".tap"))
      local F = lg:jacobian("forward")
      local modes = { "eliminate", "eliminate_edges", "eliminate_faces" }
      if name == "shallow" then modes[3] = nil end -- one dependent: 10^5 faces into it
      for _, mode in ipairs(modes) do
        local c <close> = lg:copy()
        c[mode](c, "markowitz")
        assert(jdiff(nozeros(c:jacobian()), F) <= 1e-12, name .. " " .. mode)
      end
      lg:free()
    end
  end)
end)

describe("elim: cost accounting", function()
  it("counted multiplications = the sum of |in| * |out| replayed independently in Lua", function()
    for seed = 1, 30 do
      local lg = random_dag(100 + seed, 2, 4 + seed % 10, 2)
      for _, o in ipairs(vertex_orders) do
        local c <close> = lg:copy()
        local cost, order = c:eliminate(elim.core_spec(o))
        assert.are.equal(elim.simulate(lg, order), cost.mults, o)
        assert.are.equal(cost.mults, cost.adds + cost.fill)
        assert.are.equal(#lg:intermediates(), cost.steps)
      end
    end
  end)

  it("edge steps cost |out(j)| (front) or |in(j)| (back); forward/reverse edge = vertex", function()
    for seed = 1, 20 do
      local lg = random_dag(200 + seed, 3, 6, 2)
      local c <close> = lg:copy()
      local total = 0
      local _, steps = lg:copy():eliminate_edges("markowitz")
      for _, st in ipairs(steps) do
        local i, k, side = st[1], st[2], st[3]
        local deg = side == "front" and c:out_degree(k) or c:in_degree(i)
        local cost = c:elim_edge(i, k, side)
        assert.are.equal(deg, cost.mults)
        total = total + cost.mults
      end
      for _, mode in ipairs { "forward", "reverse" } do
        local a <close> = lg:copy()
        local b <close> = lg:copy()
        assert.are.equal(a:eliminate(mode).mults, b:eliminate_edges(mode).mults, mode)
      end
    end
  end)

  it("face elimination: one multiplication per face; forward/reverse faces = vertex modes", function()
    for seed = 1, 20 do
      local lg = random_dag(300 + seed, 2, 5, 2)
      local c <close> = lg:copy()
      local cost, steps = c:eliminate_faces("markowitz")
      assert.are.equal(#steps, cost.mults)
      for _, mode in ipairs { "forward", "reverse" } do
        local a <close> = lg:copy()
        local b <close> = lg:copy()
        assert.are.equal(a:eliminate(mode).mults, b:eliminate_faces(mode).mults, mode)
      end
      local r <close> = lg:copy()
      assert.are.equal(cost.mults, r:replay_faces(steps).mults)
      assert.is_true(jdiff(r:jacobian(), c:jacobian()) <= 1e-14)
    end
  end)

  it("a .cg file's weights are variable (1 and -1 too): every product is nontrivial", function()
    -- structural +-1 edges come from tapes (spec/11-costs_spec.lua counts them by hand)
    local lg = cg("X: 0 1\nY: 4\n2: 0:1 1:-1\n3: 2:2.5\n4: 3:1 2:3\n")
    local c <close> = lg:copy()
    local cost = c:eliminate("forward")
    assert.are.equal(6, cost.mults) -- 2: 2 x 2 products; 3: 2 x 1
    assert.are.equal(cost.mults, cost.mults_nontrivial)
  end)
end)

describe("elim: the exact ordering", function()
  it("is no worse than any heuristic and equals brute force on <= 7 intermediates", function()
    for seed = 1, 25 do
      local lg = random_dag(400 + seed, 1 + seed % 3, 3 + seed % 5, 1 + seed % 3)
      local best, order = lg:copy():exact()
      assert.are.equal(brute_force(lg), best, "seed " .. seed)
      assert.are.equal(best, elim.simulate(lg, order))
      for _, o in ipairs(vertex_orders) do
        local c <close> = lg:copy()
        assert.is_true(best <= c:eliminate(elim.core_spec(o)).mults)
      end
    end
  end)

  it("Speelpenning and Lighthouse: exact = brute force", function()
    for _, lg in ipairs { speelpenning { 1, 2, 3, 4, 5, 6 }, (lighthouse(1, 2, 0.3, 0.5)) } do
      assert.are.equal(brute_force(lg), (lg:copy():exact()))
    end
  end)

  it("elim.eliminate with exact, best and anneal gives the sweeps' Jacobian", function()
    local lg = random_dag(77, 2, 8, 2)
    local F = lg:jacobian("forward")
    for _, o in ipairs { "exact", "best", "anneal" } do
      local c <close> = lg:copy()
      local cost = assert(elim.eliminate(c, o, { budget = 50 }))
      assert.is_true(cost.mults >= (lg:copy():exact()))
      assert.is_true(jdiff(nozeros(c:jacobian()), F) <= 1e-12)
    end
  end)
end)

describe("elim: tie-breaking", function()
  -- Four independent chains x -> v -> y: all Markowitz degrees are 1, so
  -- the order is decided by the tie-break alone.
  local text = "X: 0 1 2\nY: 6 7 8\n3: 0:1\n4: 1:2\n5: 2:3\n6: 3:1\n7: 4:1\n8: 5:1\n"
  it("Markowitz ties go to the highest vertex first by default (ANGEL)", function()
    local _, order = cg(text):eliminate("markowitz")
    assert.are.same({ 6, 5, 4 }, order)
  end)
  it("lowest_first = true breaks them toward the lowest id", function()
    local _, order = cg(text):eliminate({ "markowitz", lowest_first = true })
    assert.are.same({ 4, 5, 6 }, order)
  end)
  it("a chain breaks ties by its later rules", function()
    local _, order = cg(text):eliminate({ "markowitz", "forward" })
    assert.are.same({ 4, 5, 6 }, order)
  end)
  it("edge and face orderings follow the same default and lowest option", function()
    local _, st = cg(text):eliminate_edges("markowitz")
    assert.are.same({ 3, 6, "front" }, st[1])
    local _, st2 = cg(text):eliminate_edges({ "markowitz", lowest_first = true })
    assert.are.same({ 1, 4, "front" }, st2[1])
    local _, f = cg(text):eliminate_faces("markowitz")
    assert.are.same({ 3, 6, 9 }, f[1])
  end)
end)

describe("elim: Lua orderings", function()
  local lg = random_dag(9, 3, 12, 3)
  it("a Lua Markowitz score reproduces the built-in order", function()
    local a <close> = lg:copy()
    local b <close> = lg:copy()
    local c1, o1 = a:eliminate(function(v, g) return g:in_degree(v) * g:out_degree(v) end)
    local c2, o2 = b:eliminate("markowitz")
    assert.are.same(o2, o1)
    assert.are.equal(c2.mults, c1.mults)
  end)
  it("score functions get the current in- and out-degrees with each call", function()
    local a <close> = lg:copy()
    local b <close> = lg:copy()
    local calls, wrong = 0, 0
    local c1, o1 = a:eliminate(function(v, g, din, dout)
      calls = calls + 1
      if din ~= g:in_degree(v) or dout ~= g:out_degree(v) then wrong = wrong + 1 end
      return din * dout
    end)
    local c2, o2 = b:eliminate("markowitz")
    assert.is_true(calls > 0)
    assert.are.equal(0, wrong)
    assert.are.same(o2, o1)
    assert.are.equal(c2.mults, c1.mults)
  end)
  it("one score function orders as the same function in a chain (bit set and heap agree)", function()
    local zero = function() return 0 end
    local fns = {
      function(v, g, din, dout) return din * dout end,                        -- small integers
      function(v, g, din, dout) return din * dout - 0.5 end,                  -- fractions
      function(v, g, din, dout) return (v % 3 == 0) and 40 + din or din * dout end, -- large and small
      function(v, g, din, dout) return (v % 4 == 0) and -1 or din end,       -- negative and small
      function(v, g, din, dout) return (v % 5 == 0) and 0.25 * din or dout end, -- fractional and small
    }
    for seed = 1, 6 do
      local base = random_dag(10 + seed, 3, 14, seed)
      for i, f in ipairs(fns) do
        for _, low in ipairs({ false, true }) do
          local a <close> = base:copy()
          local b <close> = base:copy()
          local c1, o1 = a:eliminate({ f, lowest_first = low })
          local c2, o2 = b:eliminate({ f, zero, lowest_first = low })
          assert.are.same(o2, o1, ("seed %d function %d"):format(seed, i))
          assert.are.equal(c2.mults, c1.mults)
        end
      end
    end
  end)
  it("a filter chain of a Lua score and a name", function()
    local a <close> = lg:copy()
    local b <close> = lg:copy()
    local _, o1 = a:eliminate({ function(v, g) return g:in_degree(v) end, "forward" })
    local _, o2 = b:eliminate({ function(v, g) return g:in_degree(v) end, function(v) return v end })
    assert.are.same(o1, o2)
  end)
  it("choose callbacks see the remaining intermediates; replay repeats an order", function()
    local a <close> = lg:copy()
    local seen = 0
    local cost, order = elim.eliminate(a, { choose = function(g, cand)
      seen = seen + 1
      for _, v in ipairs(cand) do assert.are.equal("intermediate", g:kind(v)) end
      return cand[#cand]
    end })
    assert.are.equal(#lg:intermediates(), seen)
    local b <close> = lg:copy()
    assert.are.equal(cost.mults, (elim.eliminate(b, { replay = order })).mults)
    local c <close> = lg:copy()
    assert.are.equal(cost.mults, c:eliminate("reverse").mults) -- highest first = reverse
  end)
  it("edge and face scores from Lua", function()
    local a <close> = lg:copy()
    local b <close> = lg:copy()
    local c1 = a:eliminate_edges(function(i, j, side, g)
      return side == "front" and g:out_degree(j) or g:in_degree(i)
    end)
    local c2 = b:eliminate_edges("markowitz")
    assert.are.equal(c2.mults, c1.mults)
    local f <close> = lg:copy()
    local cf = f:eliminate_faces(function(i, j, k) return j end)
    local v <close> = lg:copy()
    assert.are.equal(v:eliminate("forward").mults, cf.mults)
  end)
  it("the built-in edge Markowitz rescoring matches a Lua score rescored everywhere", function()
    local function lua_mk(i, j, side, g) return side == "front" and g:out_degree(j) or g:in_degree(i) end
    for seed = 1, 25 do
      local g = seed % 2 == 0 and random_dag(700 + seed, 2, 10, 3) or random_tape_graph(700 + seed)
      local a <close> = g:copy()
      local b <close> = g:copy()
      local _, s1 = a:eliminate_edges(lua_mk)
      local _, s2 = b:eliminate_edges("markowitz")
      assert.are.same(s1, s2)
    end
  end)
  it("errors inside Lua callbacks are Lua errors, not crashes", function()
    local a <close> = lg:copy()
    local ok, err = pcall(a.eliminate, a, function() error("boom") end)
    assert.is_false(ok)
    assert.matches("boom", err)
    local b <close> = lg:copy()
    ok, err = pcall(b.eliminate, b, function() return "x" end)
    assert.is_false(ok)
    assert.matches("no number", err)
    local c <close> = lg:copy()
    ok, err = pcall(c.eliminate_edges, c, function() error("edge boom") end)
    assert.is_false(ok)
    assert.matches("edge boom", err)
    local d <close> = lg:copy()
    ok, err = pcall(d.eliminate_faces, d, function() error("face boom") end)
    assert.is_false(ok)
    assert.matches("face boom", err)
    local e <close> = lg:copy()
    ok, err = pcall(elim.eliminate, e, { choose = function() return 0 end })
    assert.is_false(ok)
    assert.matches("not a remaining intermediate", err)
  end)
  it("unknown names fail cleanly", function()
    assert.is_nil((elim.core_spec("nonesuch")))
    assert.is_nil((elim.x_spec("lmmd", elim.face_builtin)))
    local c <close> = lg:copy()
    assert.has_error(function() c:eliminate("nonesuch") end)
  end)
end)

describe("elim: formats", function()
  it(".cg parse errors name the file and line", function()
    local cases = {
      { "X: 0\nY: 2\n2: 1 x\n", "bad.cg:3:" },
      { "X: 0\nY: 1\n1: 2\n", "bad.cg:3: .*topological" },
      { "X: 0\n1: 0\n", "no Y:" },
      { "X: 0\nX: 1\n", "bad.cg:2: X: given twice" },
      { "X: 0\nY: 1\n1: 0:zz\n", "bad.cg:3: bad weight" },
    }
    for _, c in ipairs(cases) do
      local g, err = core.read_cg(c[1], "bad.cg")
      assert.is_nil(g)
      assert.matches(c[2], err)
    end
  end)
  it("write_cg -> read_cg round trips (same text, same Jacobian)", function()
    for seed = 1, 10 do
      local lg = random_dag(500 + seed, 2, 6, 2)
      local text = lg:write_cg()
      local back = cg(text)
      assert.are.equal(text, back:write_cg())
      assert.is_true(jdiff(back:jacobian("forward"), lg:jacobian("forward")) <= 1e-14)
    end
  end)
  it("EliAD: ANGEL's format reads and writes; read_graph_text tells the formats apart", function()
    local text = "n = 6\nCG = [\n   3   1   2\n   3   2   1\n   4   3   2\n   5   4   2\n   6   3   2\n   6   4   2\n]\n"
    local g = assert(core.read_eliad(text, "g.eliad"))
    assert.are.same({ 1, 2 }, g:x())
    assert.are.same({ 5, 6 }, g:y())
    assert.are.equal(text, g:write_eliad())
    assert.are.equal("+1", select(2, g:weight(2, 3)))
    local g2 = assert(elim.read_graph_text(text, "g.eliad"))
    assert.are.equal(6, g2:counts().edges)
    local g3 = assert(elim.read_graph_text("X: 0\nY: 1\n1: 0:2\n", "g.cg"))
    assert.are.equal(1, g3:counts().edges)
    local bad, err = core.read_eliad("n = 3\nCG = [\n 2 1\n]\n", "b.eliad")
    assert.is_nil(bad)
    assert.matches("b.eliad:3:", err)
    bad, err = core.read_eliad("n = 3\nCG = [\n 2 1 2\n", "b.eliad")
    assert.is_nil(bad)
    assert.matches("closing", err)
    bad, err = core.read_eliad("n = 4\nCG = [\n 2 1 2\n 3 2 2\n]\n", "b.eliad")
    assert.matches("b.eliad:1: vertex 4 %(of n = 4%) has no edge", err)
  end)
  it("DOT output lists every live vertex and edge", function()
    local lg = hovland_fig2(1, 2)
    local dot = lg:dot()
    assert.matches("^digraph", dot)
    local nedge = select(2, dot:gsub("%->", ""))
    assert.are.equal(9, nedge)
    assert.matches("v1 %[label=\"1\", shape=box", dot)
  end)
  it("cgwb eliminate reads .cg and EliAD files, all modes, --check", function()
    local path = H.write(H.tmp(".cg"), (random_dag(5, 2, 6, 2):write_cg()))
    for _, mode in ipairs { "vertex", "edge", "face" } do
      local out, err, code = H.cgwb("eliminate " .. path .. " --json --check --mode " .. mode)
      assert.are.equal(0, code, err)
      assert.matches('"mode": "' .. mode .. '"', out)
    end
    local e = H.write(H.tmp(".eliad"), "n = 4\nCG = [\n 3 1 2\n 3 2 2\n 4 3 2\n]\n")
    local out, err, code = H.cgwb("eliminate " .. e .. " --json --mode edge --order reverse")
    assert.are.equal(0, code, err)
    assert.matches('"mults": 2', out)
    local _, err2, code2 = H.cgwb("eliminate " .. path .. " --mode face --order lmmd")
    assert.are.equal(2, code2)
    assert.matches("unknown ordering", err2)
  end)
  it("-o /dev/stdout writes through the descriptor; a failed write exits 2", function()
    local path = H.write(H.tmp(".cg"), (random_dag(5, 2, 6, 2):write_cg()))
    local out, err, code = H.cgwb("eliminate " .. path .. " -o /dev/stdout")
    assert.are.equal(0, code, err)
    assert.matches("^%%%%MatrixMarket matrix coordinate real general\n", out)
    local f = io.open("/dev/full", "rb")
    if f then -- a machine with /dev/full
      f:close()
      local _, err3, code3 = H.cgwb("eliminate " .. path .. " -o /dev/full")
      assert.are.equal(2, code3)
      assert.matches("/dev/full: write failed", err3)
    end
  end)
end)

describe("elim: preaccumulation code", function()
  local cc_ok = os.execute("command -v cc >/dev/null 2>&1")
  it("compiles warning-free and computes the elimination's Jacobian", function()
    if not cc_ok then pending("no C compiler") return end
    local graphs = { hovland_fig2(1, 2), speelpenning { 1, 2, 3, 4, 5 }, (lighthouse(1, 2, 0.3, 0.5)) }
    for seed = 1, 6 do graphs[#graphs + 1] = random_dag(600 + seed, 2, 6 + seed, 2) end
    for gi, lg in ipairs(graphs) do
      local c <close> = lg:copy()
      local cost, order = c:eliminate("markowitz")
      local code, inputs, outputs, mults = elim.preaccumulation_code(lg, order)
      assert.are.equal(cost.mults, mults)
      local main = { code, "#include <stdio.h>", "int main(void) {",
        ("  static const double w[%d] = {"):format(math.max(#inputs, 1)) }
      for _, e in ipairs(inputs) do main[#main + 1] = ("    %a,"):format((lg:weight(e[1], e[2]))) end
      if #inputs == 0 then main[#main + 1] = "0" end
      main[#main + 1] = "  };"
      main[#main + 1] = ("  static double J[%d];"):format(math.max(#outputs, 1))
      main[#main + 1] = "  int k;\n  preaccumulate(w, J);"
      main[#main + 1] = ("  for (k = 0; k < %d; k++) printf(\"%%a\\n\", J[k]);\n  return 0;\n}\n"):format(#outputs)
      local src, exe = H.write(H.tmp(".c"), table.concat(main, "\n")), H.tmp(".exe")
      local ok = os.execute(("cc -O2 -std=c99 -Wall -Werror -ffp-contract=off %s -o %s"):format(src, exe))
      assert.is_true(ok, "graph " .. gi .. ": the generated code does not compile")
      local p = assert(io.popen(exe))
      local vals = {}
      for l in p:lines() do vals[#vals + 1] = tonumber(l) end
      p:close()
      local J = c:jacobian()
      assert.are.equal(J.nnz, #outputs)
      for k = 1, J.nnz do
        assert.are.same({ J.rows[k], J.cols[k] }, outputs[k])
        assert.is_true(math.abs(vals[k] - J.vals[k]) <= 1e-12 * math.max(1, math.abs(J.vals[k])))
      end
      os.remove(src)
      os.remove(exe)
    end
  end)
end)
