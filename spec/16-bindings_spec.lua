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
