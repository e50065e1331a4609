-- Robustness of the Lua API: misuse gives a Lua error or works;
-- nothing crashes.  Each risky case runs in a child interpreter (under the
-- same sanitizers as the suite), so a crash fails one test, not the run.
local H = require "spec.helper"
local cgwb = require "cgwb"

local TAPE = "assign_ind 0 0.5\nassign_ind 1 1.5\nmult_a_a 2 0 1\nsin_op 3 4 2\n" ..
  "plus_a_a 5 3 0\nexp_op 6 5\nmult_a_a 7 6 2\nassign_dep 7\nassign_dep 5\n"

-- Runs `code` in a child lua5.4 with cgwb loaded as `cgwb` and the tape text
-- as TAPE; returns the exit status and the output.
local function child(code)
  local src = H.tmp(".lua")
  H.write(src, ("package.cpath = %q .. '/?.so;' .. package.cpath\n"):format(H.build) ..
    "package.path = 'lua/?.lua;lua/?/init.lua;' .. package.path\n" ..
    "local cgwb = require 'cgwb'\n" ..
    ("local TAPE = %q\n"):format(TAPE) .. code)
  local out = H.tmp(".out")
  local _, _, rc = os.execute(("lua5.4 %s >%s 2>&1"):format(src, out))
  local text = H.read(out)
  os.remove(src)
  os.remove(out)
  return rc, text
end

-- The child ends normally: every misuse raised an error it caught (or worked).
local function survives(code)
  local rc, text = child(code .. "\nprint('survived')\n")
  assert.are.equal(0, rc, text)
  assert.truthy(text:find("survived", 1, true), text)
end

local function tape() return assert(cgwb.read_text(TAPE, "t.txt")) end
local function lin() return assert(cgwb.linearize(tape())) end

describe("wrong argument types", function()
  it("raise errors naming the expected type", function()
    local t, g, lg = tape(), cgwb.build_graph(tape()), lin()
    local ok, err = pcall(g.n, {})
    assert.is_false(ok)
    assert.truthy(tostring(err):find("cgwb.Graph expected", 1, true))
    assert.is_false(pcall(lg.eliminate, t, "markowitz"))
    assert.is_false(pcall(cgwb.core.build_graph, g))
    assert.is_false(pcall(cgwb.core.build_graph, t, 5))
    assert.is_false(pcall(cgwb.core.build_graph, t, { at = "x" }))
    assert.is_false(pcall(cgwb.core.build_graph, t, { at = { 1 } }))
    assert.is_false(pcall(cgwb.core.build_graph, t, { mem_limit = -1 }))
    assert.is_false(pcall(lg.eliminate, lg, 42))
    assert.is_false(pcall(lg.eliminate, lg, "no-such-ordering"))
    assert.is_false(pcall(lg.eliminate, lg, {}))
    assert.is_false(pcall(lg.replay, lg, "1 2"))
    assert.is_false(pcall(t.push, t, "plus_a_a", "x", 1, 2))
    assert.is_false(pcall(t.push, t, "no_such_op", 1))
    assert.is_false(pcall(cgwb.read_text, nil))
    assert.is_false(pcall(cgwb.read_cg, {}))
  end)
end)

describe("0 and out-of-range ids", function()
  it("raise errors", function()
    local g, lg = cgwb.build_graph(tape()), lin()
    for _, id in ipairs { 0, -1, g:n() + 1, math.maxinteger, math.mininteger } do
      assert.is_false(pcall(g.children, g, id))
      assert.is_false(pcall(g.value, g, id))
      assert.is_false(pcall(g.chain, g, id))
    end
    for _, v in ipairs { 0, -1, lg:nv() + 1, math.maxinteger } do
      assert.is_false(pcall(lg.kind, lg, v))
      assert.is_false(pcall(lg.preds, lg, v))
      assert.is_false(pcall(lg.elim_vertex, lg, v))
      assert.is_false(pcall(lg.replay, lg, { v }))
    end
    assert.is_false(pcall(g.children, g, 1.5))
    -- an independent is not an intermediate
    local ok, r = pcall(lg.elim_vertex, lg, lg:x()[1])
    assert.is_true(not ok or r == nil)
    assert.is_nil((cgwb.read_text("plus_a_a 1 2\n")))
    assert.is_nil((cgwb.read_text("assign_d 4294967295 1\n")))
    assert.is_nil((cgwb.read_cg("X: 0\nY: 1\n1: 99999999999999999999\n")))
  end)
end)

describe("objects used after :free()", function()
  it("raise errors, and free twice is harmless", function()
    local t, g, lg = tape(), cgwb.build_graph(tape()), lin()
    t:free(); g:free(); lg:free()
    t:free(); g:free(); lg:free()
    assert.is_false(pcall(t.len, t))
    assert.is_false(pcall(g.n, g))
    assert.is_false(pcall(lg.nv, lg))
    assert.is_false(pcall(lg.eliminate, lg, "markowitz"))
    assert.is_false(pcall(cgwb.core.build_graph, t))
    assert.is_false(pcall(cgwb.core.linearize, g))
    assert.is_false(pcall(cgwb.core.schedule, g))
  end)
  it("a graph freed before what was made from it", function()
    survives [[
      local t = cgwb.read_text(TAPE)
      local g = cgwb.build_graph(t)
      local lg = cgwb.core.linearize(g)
      local s = cgwb.core.schedule(g)
      t:free(); g:free(); collectgarbage(); collectgarbage()
      lg:eliminate("markowitz")
      assert(lg:jacobian())
      pcall(s.eval, s)
      pcall(s.codegen, s)
    ]]
  end)
  it("<close> releases at once", function()
    survives [[
      do local g <close> = cgwb.build_graph(cgwb.read_text(TAPE)) end
      do local lg <close> = cgwb.linearize(cgwb.read_text(TAPE)) end
    ]]
  end)
end)

describe("errors inside Lua callbacks", function()
  it("a score function that raises gives a Lua error", function()
    local lg = lin()
    local ok, err = pcall(lg.eliminate, lg, function() error("x") end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("x"))
    assert.is_true(lg:check() ~= false) -- still a valid graph
  end)
  it("a score function returning a non-number, or nothing", function()
    local lg = lin()
    assert.is_false(pcall(lg.eliminate, lg, function() return "a" end))
    assert.is_false(pcall(lg.eliminate, lg, function() end))
    assert.is_false(pcall(lg.eliminate, lg, { "markowitz", function() return {} end }))
  end)
  it("a choose function that raises, or returns a bad vertex", function()
    local elim = require "cgwb.elim"
    for _, f in ipairs {
      function() error("x") end, function() return 0 end, function() return "1" end,
      function(g) return g:x()[1] end, function() return nil end } do
      assert.is_false(pcall(elim.eliminate, lin(), { choose = f }))
    end
  end)
  it("a level function that raises or returns a bad level", function()
    local g = cgwb.build_graph(tape())
    for _, f in ipairs {
      function() error("x") end, function() return -1 end, function() return 0.5 end,
      function() return "x" end, function() return 0 end } do
      assert.is_false(pcall(cgwb.core.schedule, g, f))
      assert.is_false(pcall(cgwb.levels, g, f))
    end
    assert.is_false(pcall(cgwb.levels, g, { 1, 2 }))
    assert.is_false(pcall(cgwb.levels, g, "no-such-scheme"))
  end)
  it("collectgarbage() inside callbacks", function()
    survives [[
      local lg = cgwb.linearize(cgwb.read_text(TAPE))
      lg:eliminate(function(v, g) collectgarbage(); collectgarbage(); return v end)
      local lg2 = cgwb.linearize(cgwb.read_text(TAPE))
      require("cgwb.elim").eliminate(lg2, { choose = function(g, c) collectgarbage(); return c[1] end })
      local g = cgwb.build_graph(cgwb.read_text(TAPE))
      cgwb.core.schedule(g, function(id, gg) collectgarbage(); return gg:height(id) end)
      -- objects made and dropped inside a callback
      cgwb.linearize(cgwb.read_text(TAPE)):eliminate(function(v)
        local t = cgwb.read_text(TAPE); t = nil; collectgarbage(); return -v end)
    ]]
  end)
  it("a callback that frees the object being worked on", function()
    survives [[
      local lg = cgwb.linearize(cgwb.read_text(TAPE))
      pcall(lg.eliminate, lg, function(v, g) g:free(); return 0 end)
      local g = cgwb.build_graph(cgwb.read_text(TAPE))
      pcall(cgwb.core.schedule, g, function(id, gg) gg:free(); return 0 end)
    ]]
  end)
  it("a callback that eliminates in the graph being eliminated", function()
    survives [[
      local lg = cgwb.linearize(cgwb.read_text(TAPE))
      pcall(lg.eliminate, lg, function(v, g)
        for _, w in ipairs(g:intermediates()) do pcall(g.elim_vertex, g, w) end
        return 0 end)
    ]]
  end)
end)

describe("memory limit", function()
  it("a graph that would not fit is refused with the estimate", function()
    local g, err = cgwb.build_graph(tape(), { mem_limit = 1000 })
    assert.is_nil(g)
    assert.truthy(err:find("MiB, over the memory limit", 1, true))
    assert.truthy(cgwb.build_graph(tape(), { mem_limit = 0 }))
  end)
  it("CGWB_MEMORY_LIMIT applies to the command", function()
    local _, err, code = H.cgwb("graph examples/tapes/bratu.tap 2>&1 >/dev/null | head -1; exit 0")
    assert.are.equal(0, code or 0, err)
    local out = H.tmp(".out")
    local _, _, rc = os.execute(("CGWB_MEMORY_LIMIT=3M CGWB_BUILD=%s scripts/cgwb graph %s >/dev/null 2>%s")
      :format(H.build, "examples/tapes/bratu.tap", out))
    local msg = H.read(out)
    os.remove(out)
    assert.are.equal(1, rc) -- running out of memory is a runtime failure, not bad input
    assert.truthy(msg:find("over the memory limit of 3.0 MiB", 1, true), msg)
  end)
  it("below what the tape itself takes, reading it stops at the limit (exit 1)", function()
    local out = H.tmp(".out")
    local _, _, rc = os.execute(("CGWB_MEMORY_LIMIT=64K CGWB_BUILD=%s scripts/cgwb graph %s >/dev/null 2>%s")
      :format(H.build, "examples/tapes/bratu.tap", out))
    local msg = H.read(out)
    os.remove(out)
    assert.are.equal(1, rc)
    assert.truthy(msg:find("memory limit of 64 KiB reached (CGWB_MEMORY_LIMIT)", 1, true), msg)
  end)
end)
