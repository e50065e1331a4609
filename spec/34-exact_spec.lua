-- The exact search (elim.exact, lg:search; csrc/elim/cg_search.c): on every
-- graph the subset dynamic programming (lg:exact) can solve, the same
-- optimum, proven, with an order that replays to it and a bound never above
-- it (at the root and at random states); a time limit gives a sound answer;
-- the Lua hooks; the command line.
local H = require "spec.helper"
local gen = require "spec.graphgen"
local rng = require "spec.rng"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"

local function replayed(lg, order)
  local c <close> = lg:copy()
  return c:replay(order).mults
end

local function sorted(t)
  local r = { table.unpack(t) }
  table.sort(r)
  return r
end

-- Checks a search result against the DP optimum opt of lg.
local function agrees(lg, r, opt, what)
  assert.are.equal(opt, r.mults, what .. ": mults")
  assert.is_true(r.proven, what .. ": proven")
  assert.are.equal(opt, r.lower_bound, what .. ": lower bound")
  assert.is_true(r.root_bound <= opt, what .. ": root bound above the optimum")
  assert.are.same(lg:intermediates(), sorted(r.order), what .. ": every intermediate once")
  assert.are.equal(opt, replayed(lg, r.order), what .. ": replay")
end

local GRAPHS = { "heart-dipole", "hovland-fig2", "lighthouse", "lion", "speelpenning10" }

describe("exact search: against the subset dynamic programming", function()
  it("on the shipped graphs and the linearized example tapes", function()
    local cases = {}
    for _, name in ipairs(GRAPHS) do
      cases[#cases + 1] = { name, assert(cgwb.read_graph("examples/graphs/" .. name .. ".cg")) }
    end
    for _, t in ipairs { "bratu.tap", "cavity.tap" } do
      cases[#cases + 1] = { t, assert(elim.linearize("examples/tapes/" .. t)) }
    end
    local compared = 0
    for _, c in ipairs(cases) do
      local lg = c[2]
      local r = assert(elim.exact(lg, { time_limit = 30 }))
      local opt = lg:exact(18)
      if opt then
        agrees(lg, r, opt, c[1])
        compared = compared + 1
      else -- components beyond the DP: still a sound answer
        assert.is_true(r.lower_bound <= r.mults and r.root_bound <= r.lower_bound, c[1])
        assert.are.equal(r.mults, replayed(lg, r.order), c[1])
      end
    end
    assert.is_true(compared >= 5)
  end)

  it(("property: on %d generated graphs (up to 18 intermediates), from the forward order"):format(H.sized(300, 80)),
      function()
    local r0 = rng.new(34)
    for seed = 1, H.sized(300, 80) do
      local k = r0:int(1, 18)
      local lg = gen.graph(seed, r0:int(1, 5), k, r0:int(1, 4), { window = r0:int(2, 8) })
      agrees(lg, lg:search {}, lg:exact(24), ("seed %d, %d intermediates"):format(seed, k))
    end
  end)

  it("property: the bound at random states never exceeds the state's optimum", function()
    local r0 = rng.new(35)
    for seed = 1, 300 do
      local lg = gen.graph(1000 + seed, r0:int(1, 4), r0:int(2, 16), r0:int(1, 4))
      local ints = lg:intermediates()
      for i = #ints, 2, -1 do -- a random eliminated set
        local j = r0:int(1, i)
        ints[i], ints[j] = ints[j], ints[i]
      end
      local state <close> = lg:copy()
      for i = 1, r0:int(0, #ints - 1) do state:elim_vertex(ints[i]) end
      local opt = state:exact(24)
      local r = state:search {}
      assert.is_true(r.root_bound <= opt, ("seed %d: bound %d above the optimum %d"):format(seed, r.root_bound, opt))
      assert.are.equal(opt, r.mults)
    end
  end)

  it("property: each built-in bound (paths, flow, pairs) at random states: at most the optimum, at least the one before", function()
    local r0 = rng.new(36)
    local rose = { flow = 0, pairs = 0 }
    for seed = 1, 300 do
      local lg = gen.graph(2000 + seed, r0:int(1, 5), r0:int(2, 16), r0:int(1, 4), { window = r0:int(2, 8) })
      local ints = lg:intermediates()
      for i = #ints, 2, -1 do
        local j = r0:int(1, i)
        ints[i], ints[j] = ints[j], ints[i]
      end
      local state <close> = lg:copy()
      for i = 1, r0:int(0, #ints - 1) do state:elim_vertex(ints[i]) end
      local opt, before = state:exact(24), 0
      for _, b in ipairs { "paths", "flow", "pairs" } do
        local r = state:search { builtin = b }
        local what = ("seed %d, bound %s"):format(seed, b)
        assert.is_true(r.root_bound <= opt, ("%s: %d above the optimum %d"):format(what, r.root_bound, opt))
        assert.is_true(r.root_bound >= before, what .. ": below the weaker bound")
        assert.are.equal(opt, r.mults, what)
        assert.is_true(r.proven, what)
        if rose[b] and r.root_bound > before then rose[b] = rose[b] + 1 end
        before = r.root_bound
      end
    end
    -- the stronger bounds are stronger somewhere (not merely equal)
    assert.is_true(rose.flow > 10 and rose.pairs > 10, ("flow %d, pairs %d"):format(rose.flow, rose.pairs))
    assert.has_error(function() gen.graph(1, 2, 3, 1):search { builtin = "nope" } end,
      "exact: no built-in bound 'nope'")
    local lg = gen.graph(11, 4, 16, 3) -- elim.exact passes it through (flow 32, pairs 36 at the root)
    local r = assert(elim.exact(lg, { builtin = "flow", time_limit = 5 }))
    assert.are.equal(lg:search { builtin = "flow" }.root_bound, r.root_bound)
    assert.are.equal(lg:exact(24), r.mults)
  end)

  it("elim.exact starts from the heuristics: never above elim.best, nor above a given incumbent", function()
    for seed = 1, 8 do
      local lg = gen.graph(500 + seed, 4, 30, 3)
      local _, best = elim.best(lg)
      local r = assert(elim.exact(lg, { time_limit = 0.2 }))
      assert.is_true(r.mults <= best and r.lower_bound <= r.mults)
      local _, fwd = lg:copy():eliminate { "forward" }
      local rf = assert(elim.exact(lg, { time_limit = 0.2, incumbent = fwd }))
      assert.is_true(rf.mults <= replayed(lg, fwd))
    end
  end)
end)

describe("exact search: limits", function()
  it("honours the time limit: a 100-intermediate graph returns a sound, unproven answer", function()
    local lg = gen.graph(3, 6, 100, 4)
    local t0 = os.clock()
    local r = assert(elim.exact(lg, { time_limit = 0.5 }))
    assert.is_true(os.clock() - t0 < 10)
    assert.is_true(r.seconds < 2)
    assert.is_false(r.proven)
    assert.is_true(r.lower_bound <= r.mults and r.root_bound <= r.lower_bound)
    assert.are.equal(r.mults, replayed(lg, r.order))
    local cost, order, name, res = elim.eliminate(lg:copy(), "exact", { time_limit = 0.3 })
    assert.are.equal("exact", name)
    assert.are.equal(res.mults, cost.mults)
    assert.are.equal(#lg:intermediates(), #order)
  end)

  it("a node limit stops it soundly", function()
    local lg = gen.graph(9, 6, 60, 4)
    local r = lg:search { max_nodes = 100 }
    assert.is_false(r.proven)
    assert.is_true(r.nodes <= 116 and r.lower_bound <= r.mults)
  end)

  it("property: stopped at any node count, the proven bound stays at most the optimum, and rises above the root's", function()
    local r0 = rng.new(37)
    local rose = 0
    for seed = 1, 200 do
      local k = r0:int(4, 16)
      local lg = gen.graph(3000 + seed, r0:int(1, 5), k, r0:int(1, 4), { window = r0:int(2, 8) })
      local opt = lg:exact(24)
      local r = lg:search { max_nodes = r0:int(1, 400) }
      local what = ("seed %d, %d intermediates"):format(seed, k)
      assert.is_true(r.lower_bound <= opt and opt <= r.mults, what)
      assert.is_true(r.root_bound <= r.lower_bound, what)
      assert.are.equal(r.proven, r.lower_bound == r.mults, what)
      assert.are.equal(r.mults, replayed(lg, r.order), what)
      if r.lower_bound > r.root_bound and not r.proven then rose = rose + 1 end
    end
    assert.is_true(rose > 5, ("rose on %d graphs"):format(rose))
  end)

  it("refuses a bad time limit", function()
    local lg = gen.graph(1, 2, 3, 1)
    for _, bad in ipairs { 0, -1, "x", math.huge, 0 / 0 } do
      local r, err = elim.exact(lg, { time_limit = bad })
      assert.is_nil(r)
      assert.matches("time_limit must be a number of seconds > 0", err)
    end
  end)
end)

describe("exact search: Lua hooks", function()
  local copy = dofile("examples/bounds/disjoint-paths.lua")
  local last = dofile("examples/bounds/last-vertex.lua")

  it("the Lua copy of the built-in 'paths' bound gives its results, state for state", function()
    for seed = 1, 30 do
      local lg = gen.graph(200 + seed, 3, 4 + seed % 10, 3)
      local a, b = lg:search { builtin = "paths" }, lg:search { bound = copy }
      assert.are.same({ a.mults, a.lower_bound, a.root_bound, a.nodes, a.order },
                      { b.mults, b.lower_bound, b.root_bound, b.nodes, b.order })
    end
  end)

  it("weaker bounds (zero, last vertex) and a reversed branching still find the optimum", function()
    for seed = 1, 30 do
      local lg = gen.graph(300 + seed, 3, 3 + seed % 10, 2)
      local opt = lg:exact(24)
      local zero = lg:search { bound = function() return 0 end }
      local lv = lg:search { bound = last }
      local rev = lg:search { branch = function(_, cand)
        local r = {}
        for i = #cand, 1, -1 do r[#r + 1] = cand[i] end
        return r
      end }
      agrees(lg, zero, opt, "zero bound")
      assert.is_true(lv.root_bound <= opt)
      agrees(lg, lv, opt, "last-vertex bound")
      agrees(lg, rev, opt, "reversed branching")
      assert.is_true(zero.nodes >= lg:search {}.nodes)
    end
  end)

  it("the view shows the state: cost so far, remaining intermediates, closed neighbours", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lion.cg"))
    local seen = {}
    lg:search { bound = function(view)
      seen[#seen + 1] = { cost = view.cost, ints = view:intermediates() }
      for _, v in ipairs(view:intermediates()) do
        assert.are.equal(#view:preds(v) * #view:succs(v), view:markowitz(v))
      end
      return 0
    end }
    -- the root: vertices 3 and 4 (1-based) remain, nothing paid
    assert.are.same({ cost = 0, ints = { 3, 4 } }, seen[1])
    -- after eliminating t2 (vertex 4: 1 pred, 4 succs) the state has paid 4
    local found = false
    for _, s in ipairs(seen) do
      if #s.ints == 1 and s.ints[1] == 3 then found = found or s.cost == 4 end
    end
    assert.is_true(found)
  end)

  it("a bound returning a non-number, a failing hook, a bad branching: clear errors", function()
    local lg = gen.graph(4, 3, 8, 2)
    assert.has_error(function() lg:search { bound = function() return "x" end } end,
      "exact: the bound function: returned string, not a number")
    assert.has_error(function() lg:search { bound = function() return 0 / 0 end } end,
      "exact: the bound function: returned nan, not a number")
    local ok, err = pcall(lg.search, lg, { bound = function() error("mine") end })
    assert.is_false(ok)
    assert.matches("exact: the bound function: .*mine", err)
    ok, err = pcall(lg.search, lg, { branch = function(_, c) return { c[1] } end })
    assert.is_false(ok)
    assert.matches("not a reordering of the candidates", err)
    local kept
    lg:search { bound = function(view) kept = view return 0 end }
    assert.has_error(function() kept:intermediates() end,
      "a search view is valid only inside the hook it was given to")
    -- the graph is usable afterwards and unchanged
    assert.are.equal(lg:exact(24), lg:search {}.mults)
  end)
end)

describe("exact search: the command line", function()
  it("cgwb eliminate --order exact --json reports lower_bound, proven and nodes", function()
    local out, err, code = H.cgwb("eliminate examples/graphs/lion.cg --order exact --json")
    assert.are.equal(0, code, err)
    local j = require("cgwb.json").decode(out)
    assert.are.equal(12, j.mults)
    assert.are.equal(12, j.lower_bound)
    assert.is_true(j.proven)
    assert.is_number(j.nodes)
    out, err, code = H.cgwb("eliminate examples/graphs/lighthouse.cg --order exact -o -")
    assert.are.equal(0, code)
    assert.matches("proven optimal", err)
  end)

  it("a time limit that runs out reports the gap; a bad one exits 2", function()
    local path = H.tmp(".cg")
    H.write(path, gen.cg_text(3, 6, 100, 4))
    local out, err, code = H.cgwb(("eliminate %s --order exact --time-limit 0.3 --json"):format(path))
    assert.are.equal(0, code, err)
    local j = require("cgwb.json").decode(out)
    assert.is_false(j.proven)
    assert.is_true(j.lower_bound <= j.mults)
    _, err, code = H.cgwb(("eliminate %s --order exact --time-limit 0.3 -o /dev/null"):format(path))
    assert.are.equal(0, code)
    assert.matches("gap [%d.]+%% to the proven lower bound", err)
    assert.is_nil(err:find("\r", 1, true)) -- no progress line: stderr is not a terminal
    for _, bad in ipairs { "0", "-2", "x" } do
      _, err, code = H.cgwb(("eliminate %s --order exact --time-limit %s"):format(path, bad))
      assert.are.equal(2, code)
      assert.matches("--time-limit takes a number of seconds > 0", err, 1, true)
    end
    os.remove(path)
  end)
end)
