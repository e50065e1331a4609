-- spec/16-bindings_spec.lua: the bindings' own contracts (doc/robustness.md,
-- "Bindings"): what a call returns when it writes to a string rather than a
-- file, objects that outlive the one they came from, and 1-based ids read
-- and checked at the boundary.  Leaks under failing allocations are
-- spec/c/test_lua_oom.c's.
local H = require "spec.helper"
local core = require "cgwb.core"

local TEXT = "assign_ind 0 0.5\nassign_ind 1 1.5\nmult_a_a 2 0 1\nsin_op 3 4 2\n" ..
             "plus_a_a 5 3 0\nassign_dep 5\nassign_dep 2\n"

local function linearized()
  local t = assert(core.read_text(TEXT, "b.txt"))
  local g = assert(core.build_graph(t))
  return assert(core.linearize(g)), g, t
end

describe("bindings", function()
  it("write_mtx without a path returns the bytes it writes to a file", function()
    local lg = linearized()
    lg:eliminate("markowitz")
    local path = H.tmp(".mtx")
    assert.is_true(lg:write_mtx(path))
    assert.are.equal(H.read(path), lg:write_mtx())
    assert.are.equal(H.read(path), lg:write_mtx(nil, "bipartite"))
    local fwd = H.tmp(".mtx")
    assert.is_true(lg:write_mtx(fwd, "forward"))
    assert.are.equal(H.read(fwd), lg:write_mtx(nil, "forward"))
  end)

  it("write_mtx without a path still says why a Jacobian cannot be read off", function()
    local lg = linearized()
    local s, msg = lg:write_mtx()
    assert.is_nil(s)
    assert.matches("not eliminated yet", msg)
  end)

  it("a tape made from a graph outlives the graph", function()
    local t = assert(core.read_text(TEXT, "b.txt"))
    local g = assert(core.build_graph(t))
    local t2 = g:to_tape()
    local y = t2:forward({ 2, 3 })
    g = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    assert.are.same(y, (t2:forward({ 2, 3 })))
    t2:free()
  end)
end)

describe("1-based ids at the boundary", function()
  local lg, g, t = linearized()

  local function permutation(a, n, what)
    assert.are.equal(n, #a, what)
    local seen = {}
    for _, v in ipairs(a) do
      assert.is_true(math.type(v) == "integer" and v >= 1 and v <= n and not seen[v], what)
      seen[v] = true
    end
  end

  it("ids pushed are those read back", function()
    local n = g:n()
    permutation(core.schedule(g):order(), n, "schedule order")
    for v in g:nodes() do
      for _, k in ipairs(g:children(v)) do assert.is_true(k >= 1 and k < v) end -- operands first
      for _, p in ipairs(g:parents(v)) do assert.is_true(p > v and p <= n) end
    end
    local copy = lg:copy()
    local _, order = copy:eliminate("markowitz")
    local inter = {}
    for _, v in ipairs(lg:intermediates()) do inter[v] = true end
    assert.are.equal(#lg:intermediates(), #order)
    for _, v in ipairs(order) do
      assert.is_true(inter[v], "eliminated vertex " .. v .. " is an intermediate")
      inter[v] = nil
      assert.are.equal("intermediate", lg:kind(v))
    end
    local J = copy:jacobian()
    for i = 1, J.nnz do
      assert.is_true(J.rows[i] >= 1 and J.rows[i] <= J.m and J.cols[i] >= 1 and J.cols[i] <= J.n)
    end
    for v = 1, lg:nv() do
      local node = lg:node(v)
      assert.is_true(node == nil or (node >= 1 and node <= n))
    end
    local first = true
    for i in t:records() do
      if first then assert.are.equal(1, i) end
      first = false
    end
  end)

  it("an id out of range names the argument and the kind", function()
    for _, bad in ipairs({ 0, g:n() + 1 }) do
      local ok, msg = pcall(function() return g:children(bad) end)
      assert.is_false(ok)
      assert.matches("bad argument #1 to 'children' %(node id out of range%)", msg)
    end
    for _, bad in ipairs({ 0, lg:nv() + 1 }) do
      local ok, msg = pcall(function() return lg:kind(bad) end)
      assert.is_false(ok)
      assert.matches("bad argument #1 to 'kind' %(vertex id out of range%)", msg)
    end
  end)
end)
