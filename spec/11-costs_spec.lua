-- spec/11-costs_spec.lua: operation counts of vertex elimination counted by
-- hand on small linearized graphs with +1, -1, constant and variable edges
-- (doc/elimination.md, "Cost accounting"): a product is free in
-- mults_nontrivial when a factor is a structural +1 or -1; a product's mark is
-- variable if a factor is, else constant if a factor is, else the product of
-- the signs; a sum of two non-variable weights is constant.
require "spec.helper" -- paths to the build
local cgwb = require "cgwb"

-- The linearized graph of f traced at x0, and its structure as text:
-- "v kind: p:mark ..." per vertex (marks as lg:weight gives them).
local function linearized(f, x0)
  local tape = assert(cgwb.trace(f, x0))
  local lg = assert(cgwb.linearize(tape))
  local lines = {}
  for v = 1, lg:nv() do
    local ps = {}
    for _, p in ipairs(lg:preds(v)) do
      local w, mark = lg:weight(p, v)
      ps[#ps + 1] = ("%d:%s=%.17g"):format(p, mark, w)
    end
    lines[v] = ("%d %s: %s"):format(v, lg:kind(v), table.concat(ps, " "))
  end
  return lg, table.concat(lines, "\n")
end

local function counts(lg, order)
  local c <close> = lg:copy()
  local cost = c:replay(order)
  return { mults = cost.mults, mults_nontrivial = cost.mults_nontrivial, adds = cost.adds, fill = cost.fill }
end

describe("costs counted by hand", function()
  -- t = x1 + x2 (+1, +1); u = t x1 (variable); w = 3 x2 (constant 3);
  -- y1 = u - w (+1, -1); y2 = w t (variable), at (2, 5).
  local lg, structure = linearized(function(x)
    local t = x[1] + x[2]
    local u = t * x[1]
    local w = x[2] * 3
    return { u - w, w * t }
  end, { 2, 5 })

  it("the graph is the one counted", function()
    assert.are.equal(table.concat({
      "1 independent: ", "2 independent: ",
      "3 intermediate: 1:+1=1 2:+1=1",           -- t
      "4 intermediate: 1:variable=7 3:variable=2", -- u: du/dx1 = t, du/dt = x1
      "5 intermediate: 2:constant=3",            -- w
      "6 dependent: 4:+1=1 5:-1=-1",             -- y1
      "7 dependent: 3:variable=15 5:variable=7", -- y2: dy2/dt = w, dy2/dw = t
    }, "\n"), structure)
  end)

  it("forward (t, u, w): 8 products, one of them nontrivial (3 x 7)", function()
    -- t: (x1,t)+1 (x2,t)+1 times (t,u) and (t,y2): 4 products, all with a +1 factor;
    --    (x1,u) exists (1 addition), (x2,u), (x1,y2), (x2,y2) are new (3 fill).
    -- u: (x1,u), (x2,u) times (u,y1)+1: 2 free products, (x1,y1), (x2,y1) new (2 fill).
    -- w: (x2,w)=3 times (w,y1)=-1 (free) and (w,y2)=7 (nontrivial); both targets exist (2 additions).
    assert.are.same({ mults = 8, mults_nontrivial = 1, adds = 3, fill = 5 }, counts(lg, { 3, 4, 5 }))
  end)

  it("reverse (w, u, t): the same totals reached another way", function()
    -- w: 3 x -1 (free), 3 x 7 (nontrivial); (x2,y1), (x2,y2) new.
    -- u: (x1,u), (t,u) times (u,y1)+1: free; (x1,y1), (t,y1) new.
    -- t: (x1,t)+1, (x2,t)+1 times (t,y1), (t,y2): free; (x1,y2) new, three additions.
    assert.are.same({ mults = 8, mults_nontrivial = 1, adds = 3, fill = 5 }, counts(lg, { 5, 4, 3 }))
  end)

  it("w first then t: a constant times a +1 stays free, fill differs", function()
    -- w: as above (1 nontrivial, (x2,y1), (x2,y2) new);
    -- t: 4 free products, (x1,u) and (x2,y2) exist, (x2,u), (x1,y2) new;
    -- u: (x1,u), (x2,u) times +1: free; (x1,y1) new, (x2,y1) exists.
    assert.are.same({ mults = 8, mults_nontrivial = 1, adds = 3, fill = 5 }, counts(lg, { 5, 3, 4 }))
  end)

  -- s = x1 - x2 (+1, -1); r = x2 - s (+1, -1); y = r x1 (variable), at (2, 5).
  local lg2, structure2 = linearized(function(x)
    local s = x[1] - x[2]
    local r = x[2] - s
    return { r * x[1] }
  end, { 2, 5 })

  it("signs propagate through products and sums", function()
    assert.are.equal(table.concat({
      "1 independent: ", "2 independent: ",
      "3 intermediate: 1:+1=1 2:-1=-1",            -- s
      "4 intermediate: 2:+1=1 3:-1=-1",            -- r
      "5 dependent: 1:variable=8 4:variable=2",    -- y: dy/dx1 = r = 8, dy/dr = x1
    }, "\n"), structure2)
    -- s first: (x1,s)+1 (x2,s)-1 times (s,r)-1: free; (x1,r) new with mark -1, (x2,r) gets
    -- +1 + (-1)(-1): constant.  r: (x1,r)-1 times (r,y): free; (x2,r) constant times
    -- (r,y) variable: nontrivial; (x1,y) exists, (x2,y) new.
    assert.are.same({ mults = 4, mults_nontrivial = 1, adds = 2, fill = 2 }, counts(lg2, { 3, 4 }))
    local c <close> = lg2:copy()
    c:elim_vertex(3)
    assert.are.same({ -1, "-1" }, { c:weight(1, 4) })
    assert.are.same({ 2, "constant" }, { c:weight(2, 4) })
    -- r first: (x2,r)+1, (s,r)-1 times (r,y): free, (x2,y), (s,y) new; s: (x1,s)+1,
    -- (x2,s)-1 times (s,y): free, both targets exist.
    assert.are.same({ mults = 4, mults_nontrivial = 0, adds = 2, fill = 2 }, counts(lg2, { 4, 3 }))
  end)

  it("the built-in orderings report the counts of the order they return", function()
    for _, name in ipairs(cgwb.orderings("vertex")) do
      local c <close> = lg:copy()
      local cost, order = require("cgwb.elim").eliminate(c, name, { seed = 1, budget = 10 })
      assert.are.same(counts(lg, order), { mults = cost.mults, mults_nontrivial = cost.mults_nontrivial,
        adds = cost.adds, fill = cost.fill }, name)
    end
  end)

  it("anneal, where it beats Markowitz, returns the cost of the order it returns", function()
    local gen, elim = require "spec.gen", require "cgwb.elim"
    for _, seed in ipairs { 4, 7, 9, 14, 18 } do -- generated tapes where annealing improves
      local recs, x0 = gen.random_records(seed, { n = 4, m = 3, len = 40, store = 8 })
      local g <close> = assert(cgwb.build_graph(gen.tape(recs, x0)))
      local lg <close> = assert(cgwb.core.linearize(g))
      local c <close> = lg:copy()
      local markowitz = c:eliminate({ "markowitz" }).mults
      local order, cost = elim.anneal(lg, { budget = 200, seed = 1 })
      assert.is_true(cost < markowitz, ("seed %d: anneal %d, markowitz %d"):format(seed, cost, markowitz))
      assert.are.equal(counts(lg, order).mults, cost, "seed " .. seed)
    end
  end)
end)
