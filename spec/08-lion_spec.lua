-- The Lion example of OpenAD/F (examples/graphs/lion.cg, written by
-- scripts/results-elim.lua): its structure, its weights against OpenAD's own
-- linearization, the same Jacobian under every ordering and mode, and the
-- costs compared in doc/results/elimination.md.
--
-- Source: github.com/dorugeber/OpenAD, Examples/Lion/head.prepped.f90 and
-- driver.f90 (commit e96f8d006d1ba22cee4f5182a6ee0409ee66b589):
--   t1=x(1)/x(2); t2=cos(t1); y1=exp(t2); y2=3.14*t2; y3=sin(t2); y4=t2*t1
-- at x = (0.5, 0.5).  OpenAD's accumulation: github.com/sriharikrishna/
-- RegressionOpenAD, testRoundTrip/examples/lion/refOutput/.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local elim = require "cgwb.elim"

local PATH = "examples/graphs/lion.cg"
-- 1-based vertex ids of the graph.
local X1, X2, T1, T2, Y1, Y2, Y3, Y4 = 1, 2, 3, 4, 5, 6, 7, 8
-- The Fortran literal 3.14 is single precision (OpenAD writes 3.14000010490417480469D00).
local C314 = string.unpack("<f", string.pack("<f", 3.14))
local x1, x2 = 0.5, 0.5

local function lion()
  return assert(cgwb.read_graph(PATH))
end

-- The closed-form Jacobian at x: rows y1 .. y4, columns x1, x2.
local function closed_form()
  local t1 = x1 / x2
  local t2 = math.cos(t1)
  local d2 = -math.sin(t1)                       -- dt2/dt1
  local g = { math.exp(t2) * d2, C314 * d2, math.cos(t2) * d2, t1 * d2 + t2 } -- dyk/dt1
  local dx = { 1 / x2, -x1 / (x2 * x2) }          -- dt1/dx
  local J = {}
  for k = 1, 4 do J[k] = { g[k] * dx[1], g[k] * dx[2] } end
  return J
end

local function check_J(J, what)
  local want = closed_form()
  assert(J.m == 4 and J.n == 2, what .. ": shape")
  local seen = 0
  for k = 1, J.nnz do
    local w = want[J.rows[k]][J.cols[k]]
    local d = math.abs(J.vals[k] - w) / math.max(1, math.abs(w))
    assert(d <= 1e-14, ("%s: J[%d,%d] = %.17g, want %.17g"):format(what, J.rows[k], J.cols[k], J.vals[k], w))
    seen = seen + 1
  end
  assert(seen == 8, ("%s: %d entries, want 8"):format(what, seen))
end

describe("lion: the Lion example of OpenAD", function()
  it("has the structure of the source: 8 vertices, 2 intermediates, 8 edges, 2 x 4", function()
    local lg = lion()
    local c = lg:counts()
    assert.are.equal(8, c.vertices)
    assert.are.equal(2, c.intermediates)
    assert.are.equal(8, c.edges)
    assert.are.equal(2, c.independents)
    assert.are.equal(4, c.dependents)
    assert.are.same({ X1, X2 }, lg:x())
    assert.are.same({ Y1, Y2, Y3, Y4 }, lg:y())
    assert.are.same({ X1, X2 }, lg:preds(T1))        -- t1 = x(1)/x(2)
    assert.are.same({ T1 }, lg:preds(T2))            -- t2 = cos(t1)
    for _, y in ipairs { Y1, Y2, Y3 } do assert.are.same({ T2 }, lg:preds(y)) end
    assert.are.same({ T1, T2 }, lg:preds(Y4))        -- y4 = t2*t1
    assert.are.same({ T2, Y4 }, lg:succs(T1))
  end)

  it("is the program traced by cgwb (the file is not edited by hand)", function()
    local tape = assert(cgwb.trace(function(x, T)
      local t1 = x[1] / x[2]
      local t2 = T.cos(t1)
      return { T.exp(t2), C314 * t2, T.sin(t2), t2 * t1 }
    end, { x1, x2 }))
    local g = assert(cgwb.build_graph(tape))
    local traced = assert(core.linearize(g))
    g:free()
    assert.are.equal(traced:write_cg(), lion():write_cg())
  end)

  it("carries OpenAD's partials (OpenAD_lin_0 .. OpenAD_lin_6 and 3.14) at x = (0.5, 0.5)", function()
    local lg = lion()
    local t1 = x1 / x2
    local t2 = math.cos(t1)
    local want = {
      { X1, T1, 1 / x2 },                 -- OpenAD_lin_0
      { X2, T1, -(x1 / (x2 * x2)) },      -- OpenAD_lin_1
      { T1, T2, -math.sin(t1) },          -- OpenAD_lin_2
      { T2, Y1, math.exp(t2) },           -- OpenAD_lin_3
      { T2, Y2, C314 },                   -- the constant
      { T2, Y3, math.cos(t2) },           -- OpenAD_lin_4
      { T1, Y4, t2 },                     -- OpenAD_lin_5
      { T2, Y4, t1 },                     -- OpenAD_lin_6
    }
    for _, e in ipairs(want) do
      local w = lg:weight(e[1], e[2])
      assert(w, ("no edge %d -> %d"):format(e[1], e[2]))
      assert(H.same_bits(w, e[3]), ("edge %d -> %d: %.17g, want %.17g"):format(e[1], e[2], w, e[3]))
    end
  end)

  it("gives the same Jacobian under every ordering of every mode", function()
    local lg = lion()
    check_J(lg:jacobian("forward"), "forward sweep")
    check_J(lg:jacobian("reverse"), "reverse sweep")
    local vertex = { "forward", "reverse", "markowitz", "relative-markowitz", "min-fill", "lmmd", "momr",
                     "random", "anneal", "exact", "best", { "markowitz", lowest_first = true } }
    for _, o in ipairs(vertex) do
      local c <close> = lg:copy()
      assert(elim.eliminate(c, o, { seed = 1, budget = 50 }))
      check_J(c:jacobian(), "vertex " .. (type(o) == "table" and "markowitz lowest" or o))
    end
    for _, o in ipairs(elim.edge_builtin) do
      for _, sides in ipairs { "both", "front", "back" } do
        local c <close> = lg:copy()
        c:eliminate_edges({ o, sides = sides, seed = 3 })
        check_J(c:jacobian(), "edge " .. o .. " " .. sides)
      end
    end
    for _, o in ipairs(elim.face_builtin) do
      local c <close> = lg:copy()
      c:eliminate_faces({ o, seed = 5 })
      check_J(c:jacobian(), "face " .. o)
    end
    for _, hand in ipairs { { "edge", { { T2, Y4, "back" } } }, { "face", { { T1, T2, Y4 } } } } do
      local c <close> = lg:copy()
      assert(elim.modes[hand[1]](c, { replay = hand[2] }))
      check_J(c:jacobian(), hand[1] .. " hand order")
    end
  end)

  it("costs: OpenAD's 12 (full accumulation) and 4 (t2 only); 11 by edge and face elimination", function()
    local lg = lion()
    -- Every vertex ordering costs 12 multiplications, the proven optimum;
    -- OpenAD's full accumulation (t2 then t1) is 12 multiplications, 1 addition.
    for _, o in ipairs { "forward", "reverse", "markowitz", "min-fill", "lmmd", "momr" } do
      local c <close> = lg:copy()
      assert.are.equal(12, c:eliminate(o).mults, o)
    end
    local ex <close> = lg:copy()
    assert.are.equal(12, (ex:exact(20)))
    local rev <close> = lg:copy()
    local r = rev:replay({ T2, T1 })
    assert.are.equal(12, r.mults)
    assert.are.equal(1, r.adds)
    -- OpenAD's newer output eliminates t2 only: 4 multiplications, 1 addition, 6 edges left.
    local part <close> = lg:copy()
    local p = part:elim_vertex(T2)
    assert.are.equal(4, p.mults)
    assert.are.equal(1, p.adds)
    assert.are.equal(6, part:counts().edges)
    -- Back-eliminating (t2, y4) first (absorbed into t1 -> y4) saves one.
    for _, hand in ipairs { { "edge", { { T2, Y4, "back" } } }, { "face", { { T1, T2, Y4 } } } } do
      local c <close> = lg:copy()
      assert.are.equal(11, elim.modes[hand[1]](c, { replay = hand[2] }).mults, hand[1])
    end
  end)
end)
