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
    for i = #rows + 1, #elim.orderings do assert.is_true(elim.orderings[i].driver, elim.orderings[i].name) end
  end)

  it("each mode's list equals the registry's, drivers after", function()
    for _, mode in ipairs(MODES) do
      local names, lua = core_names(mode), cgwb.orderings(mode)
      assert.are.same(names, elim.ordering_names(mode, true))
      assert.are.same(names, { table.unpack(lua, 1, #names) })
      for i = #names + 1, #lua do assert.is_true(has({ "anneal", "exact", "best" }, lua[i]), lua[i]) end
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
