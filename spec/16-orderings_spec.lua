-- spec/16-orderings_spec.lua: the one registry of orderings.  The core's
-- rows (core.orderings(), csrc/elim/cg_order.c) are what the bindings take
-- in each mode, what elim.orderings, cgwb.orderings(mode) and
-- --list-orderings show, in the same order, with the Lua drivers after them.
local H = require "spec.helper"
local core = require "cgwb.core"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"

local MODES = { "vertex", "edge", "face" }
local METHOD = { vertex = "eliminate", edge = "eliminate_edges", face = "eliminate_faces" }

local function has(list, x)
  for _, y in ipairs(list) do if y == x then return true end end
  return false
end

-- The names of the core's rows that serve mode, in registry order.
local function core_names(mode)
  local names = {}
  for _, o in ipairs(core.orderings()) do
    if has(o.modes, mode) then names[#names + 1] = o.name end
  end
  return names
end

-- Jacobians equal up to rounding (eliminations sum products in another order).
local function near(a, b)
  if a.nnz ~= b.nnz then return false end
  for k = 1, a.nnz do
    if a.rows[k] ~= b.rows[k] or a.cols[k] ~= b.cols[k]
        or math.abs(a.vals[k] - b.vals[k]) > 1e-12 * (1 + math.abs(b.vals[k])) then
      return false
    end
  end
  return true
end

describe("orderings: the core's registry", function()
  it("has rows with a name, modes, a description, a radius and needs", function()
    local rows = core.orderings()
    assert.is_true(#rows >= 8)
    for _, o in ipairs(rows) do
      assert.equal("string", type(o.name))
      assert.is_true(#o.modes >= 1, o.name)
      for _, m in ipairs(o.modes) do assert.is_true(has(MODES, m), o.name .. ": " .. m) end
      assert.equal("string", type(o.about))
      assert.is_true(o.radius == 0 or o.radius == 1 or o.radius == 2, o.name)
      assert.equal("table", type(o.needs))
    end
    assert.is_true(rows[8].name == "random" and rows[8].needs.seed == true)
    assert.is_true(rows[4].name == "relative-markowitz" and rows[4].needs.reach == true)
  end)

  it("every row runs in each mode it claims and gives the sweeps' Jacobian", function()
    local lg <close> = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    local want = lg:jacobian("forward")
    for _, o in ipairs(core.orderings()) do
      for _, mode in ipairs(o.modes) do
        local c <close> = lg:copy()
        local cost = c[METHOD[mode]](c, { o.name, seed = 3 })
        assert.is_true(cost.mults > 0, o.name .. " " .. mode)
        assert.is_true(near(c:jacobian(), want), o.name .. " " .. mode)
      end
    end
  end)

  it("every row is refused by name in the modes it does not claim", function()
    local lg <close> = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    for _, o in ipairs(core.orderings()) do
      for _, mode in ipairs(MODES) do
        if not has(o.modes, mode) then
          local c <close> = lg:copy()
          local ok, err = pcall(c[METHOD[mode]], c, o.name)
          assert.is_false(ok, o.name .. " " .. mode)
          assert.truthy(err:find(("unknown ordering '%s' for %s elimination (one of %s)")
            :format(o.name, mode, table.concat(core_names(mode), ", ")), 1, true), err)
        end
      end
    end
  end)
end)

describe("orderings: the Lua registry is the core's", function()
  it("elim.orderings starts with the core's rows, then the Lua drivers", function()
    local rows = core.orderings()
    for i, o in ipairs(rows) do
      local l = elim.orderings[i]
      assert.equal(o.name, l.name)
      assert.equal(o.about, l.about)
      assert.is_nil(l.driver)
    end
    for i = #rows + 1, #elim.orderings do
      assert.is_true(elim.orderings[i].driver, elim.orderings[i].name)
    end
  end)

  it("each mode's list equals the registry's, drivers after", function()
    for _, mode in ipairs(MODES) do
      local names, lua = core_names(mode), cgwb.orderings(mode)
      assert.are.same(names, elim.ordering_names(mode, true))
      assert.are.same(names, { table.unpack(lua, 1, #names) })
      for i = #names + 1, #lua do
        assert.is_true(has({ "anneal", "exact", "best" }, lua[i]), lua[i])
      end
    end
  end)

  it("--list-orderings prints every row with its modes and description", function()
    local list = H.cgwb("eliminate --list-orderings")
    for _, o in ipairs(core.orderings()) do
      local line = list:match("\n(" .. o.name:gsub("%p", "%%%0") .. " [^\n]*)")
      assert.truthy(line, o.name)
      assert.truthy(line:find(" " .. table.concat(o.modes, ",") .. " ", 1, true), line)
      assert.truthy(line:find(o.about, 1, true), line)
    end
  end)
end)

describe("orderings: rules that need a seed", function()
  -- The rows that need one, by name (random today).
  local seeded = {}
  for _, o in ipairs(core.orderings()) do if o.needs.seed then seeded[#seeded + 1] = o end end

  it("take the driver's seed in every mode (the core's run with that seed)", function()
    local lg <close> = assert(cgwb.read_graph("examples/graphs/heart-dipole.cg"))
    assert.is_true(#seeded >= 1)
    for _, o in ipairs(seeded) do
      for _, mode in ipairs(o.modes) do
        local run = mode == "vertex" and elim.eliminate or elim.modes[mode]
        local seen = {}
        for _, seed in ipairs { 1, 2, 5, 99 } do
          local a <close> = lg:copy()
          local b <close> = lg:copy()
          local got = assert(run(a, o.name, { seed = seed }))
          local want = b[METHOD[mode]](b, { o.name, seed = seed })
          assert.are.same(want, got, ("%s %s seed %d"):format(o.name, mode, seed))
          seen[got.mults .. " " .. got.fill] = true
        end
        local n = 0
        for _ in pairs(seen) do n = n + 1 end
        assert.is_true(n > 1, o.name .. " " .. mode .. ": every seed gives the same order")
      end
    end
  end)

  it("--seed reaches them from the command line", function()
    for _, mode in ipairs { "vertex", "edge", "face" } do
      local cmd = "eliminate examples/graphs/heart-dipole.cg --order random --json --mode " .. mode
      local a, b = H.cgwb(cmd .. " --seed 1"), H.cgwb(cmd .. " --seed 5")
      assert.are_not.equal(a:match('"mults": %d+'), b:match('"mults": %d+'), mode)
    end
  end)
end)

-- Each row's multiplications and fill on the classic graphs and on Cavity, as
-- doc/results/elimination.md gives them (seed 1): they pin every row's score
-- functions, radius, needs and fast paths together.
local FIGURES = {
  ["hovland-fig2"] = {
    ["vertex forward"] = "6 4", ["edge forward"] = "6 4", ["face forward"] = "6 4",
    ["vertex reverse"] = "8 6", ["edge reverse"] = "8 6", ["face reverse"] = "8 6",
    ["vertex markowitz"] = "6 4", ["edge markowitz"] = "8 6", ["face markowitz"] = "10 8",
    ["vertex relative-markowitz"] = "6 4", ["edge relative-markowitz"] = "8 6",
    ["vertex min-fill"] = "6 4", ["edge min-fill"] = "8 6", ["face min-fill"] = "7 5",
    ["vertex lmmd"] = "6 4", ["vertex momr"] = "8 6", ["vertex random"] = "7 5",
    ["edge random"] = "7 5", ["face random"] = "9 7" },
  ["speelpenning10"] = {
    ["vertex forward"] = "44 44", ["edge forward"] = "44 44", ["face forward"] = "44 44",
    ["vertex reverse"] = "16 16", ["edge reverse"] = "16 16", ["face reverse"] = "16 16",
    ["vertex markowitz"] = "16 16", ["edge markowitz"] = "16 16", ["face markowitz"] = "23 23",
    ["vertex relative-markowitz"] = "16 16", ["edge relative-markowitz"] = "16 16",
    ["vertex min-fill"] = "16 16", ["edge min-fill"] = "16 16", ["face min-fill"] = "16 16",
    ["vertex lmmd"] = "16 16", ["vertex momr"] = "16 16", ["vertex random"] = "31 31",
    ["edge random"] = "23 23", ["face random"] = "23 23" },
  ["lighthouse"] = {
    ["vertex forward"] = "20 17", ["edge forward"] = "20 17", ["face forward"] = "20 17",
    ["vertex reverse"] = "18 15", ["edge reverse"] = "18 15", ["face reverse"] = "18 15",
    ["vertex markowitz"] = "15 13", ["edge markowitz"] = "15 13", ["face markowitz"] = "21 18",
    ["vertex relative-markowitz"] = "18 15", ["edge relative-markowitz"] = "18 15",
    ["vertex min-fill"] = "15 13", ["edge min-fill"] = "15 13", ["face min-fill"] = "18 15",
    ["vertex lmmd"] = "15 13", ["vertex momr"] = "18 15", ["vertex random"] = "22 17",
    ["edge random"] = "19 16", ["face random"] = "27 22" },
  ["heart-dipole"] = {
    ["vertex forward"] = "208 180", ["edge forward"] = "208 180", ["face forward"] = "208 180",
    ["vertex reverse"] = "166 134", ["edge reverse"] = "166 134", ["face reverse"] = "166 134",
    ["vertex markowitz"] = "146 118", ["edge markowitz"] = "150 122",
    ["face markowitz"] = "221 193", ["vertex relative-markowitz"] = "146 118",
    ["edge relative-markowitz"] = "150 122", ["vertex min-fill"] = "146 118",
    ["edge min-fill"] = "150 122", ["face min-fill"] = "154 126", ["vertex lmmd"] = "146 118",
    ["vertex momr"] = "154 126", ["vertex random"] = "186 156", ["edge random"] = "191 162",
    ["face random"] = "228 197" },
  ["lion"] = {
    ["vertex forward"] = "12 10", ["edge forward"] = "12 10", ["face forward"] = "12 10",
    ["vertex reverse"] = "12 11", ["edge reverse"] = "12 11", ["face reverse"] = "12 11",
    ["vertex markowitz"] = "12 11", ["edge markowitz"] = "12 11", ["face markowitz"] = "15 13",
    ["vertex relative-markowitz"] = "12 11", ["edge relative-markowitz"] = "12 10",
    ["vertex min-fill"] = "12 11", ["edge min-fill"] = "12 11", ["face min-fill"] = "12 11",
    ["vertex lmmd"] = "12 11", ["vertex momr"] = "12 11", ["vertex random"] = "12 11",
    ["edge random"] = "14 12", ["face random"] = "15 13" },
  cavity = {
    ["vertex forward"] = "205467 162737", ["vertex reverse"] = "75430 50936",
    ["vertex markowitz"] = "75306 50812", ["vertex min-fill"] = "78119 53625",
    ["vertex lmmd"] = "75306 50812", ["vertex momr"] = "76480 51986",
    ["vertex random"] = "146753 107080" },
}

describe("orderings: every row's figures", function()
  it("on the classic graphs in each mode, and on Cavity (vertex)", function()
    for graph, rows in pairs(FIGURES) do
      local lg <close> = graph == "cavity" and assert(cgwb.linearize("examples/tapes/cavity.tap"))
        or assert(cgwb.read_graph("examples/graphs/" .. graph .. ".cg"))
      for key, want in pairs(rows) do
        local mode, name = key:match("^(%S+) (%S+)$")
        local c <close> = lg:copy()
        local cost = c[METHOD[mode]](c, { name, seed = 1 })
        assert.are.equal(want, cost.mults .. " " .. cost.fill, graph .. ": " .. key)
      end
    end
  end)
end)
