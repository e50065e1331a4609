-- spec/05-sched_spec.lua: levels, storage slots and compiled code (Bischof & Hu 1991
-- section 3.1, 3.2 and 4.3; csrc/sched, csrc/lua/lcg_sched.c, `cgwb codegen`).
--
-- Figure 10 of Bischof & Hu as a text tape with the code it must give; the
-- built-in level schemes and Lua level functions (valid and invalid); the
-- slots of the double-stack live analysis checked by evaluating level by
-- level (forwards and backwards inside each level) against the graph, bit for
-- bit, on generated tapes and the example tapes; generated C compiled with
-- the strict flags and run against the graph's evaluation at several points.
local H = require "spec.helper"
local cgwb = require "cgwb"
local gen = require "spec.gen"

-- {==== helpers ====}

local same_bits, assert_bits = H.same_bits, H.assert_bits

local fig10 = [[
# x = 1.5; t1 = 1 + x; t2 = cos(x); t2 += t1; t3 = exp(t2); y = t3
assign_ind 1 1.5
plus_d_a 2 1 1.0
cos_op 3 4 1
eq_plus_a 3 2
exp_op 5 3
assign_a 6 5
assign_dep 6
]]

local function graph_of(text)
  local t = assert(cgwb.read_text(text, "t.txt"))
  return assert(cgwb.build_graph(t)), t
end

-- Every child strictly below each of its parents.
local function valid_levels(g, lv)
  for i in g:nodes() do
    for _, c in ipairs(g:children(i)) do
      if lv[c] >= lv[i] then return false, ("child %d, parent %d"):format(c, i) end
    end
  end
  return true
end

-- The values of every node at the build point, from the graph.
local function node_values(g)
  local v = {}
  for i in g:nodes() do v[i] = g:value(i) end
  return v
end

-- Section 3.1's rule: a slot is shared only by a later node on a level above
-- every parent of the earlier one (and a dependent's slot is never reused).
local function check_slot_rule(g, s)
  local lv, sl, by = s:levels(), s:slots(), {}
  local dep = {}
  for _, d in ipairs(g:dependents()) do dep[d] = true end
  for i in g:nodes() do
    if sl[i] >= 0 then
      by[sl[i]] = by[sl[i]] or {}
      table.insert(by[sl[i]], i)
    end
  end
  for slot, list in pairs(by) do
    table.sort(list, function(a, b) return lv[a] < lv[b] or (lv[a] == lv[b] and a < b) end)
    for k = 1, #list - 1 do
      local u, w = list[k], list[k + 1]
      assert(not dep[u], ("slot %d: dependent %d overwritten by %d"):format(slot, u, w))
      local top = lv[u]
      for _, p in ipairs(g:parents(u)) do top = math.max(top, lv[p]) end
      assert(lv[w] > top, ("slot %d: node %d (level %d) reuses it before level %d")
        :format(slot, w, lv[w], top + 1))
    end
  end
end

local function random_graph(seed, len)
  local recs, x0 = gen.random_records(seed, { n = 4, m = 3, len = len or 60, store = 10,
                                              deaths = true })
  local t = gen.tape(recs, x0)
  return assert(cgwb.build_graph(t)), t, x0
end

-- Points near x0: x0 itself, then each coordinate scaled a little.
local function points(x0, k)
  local out = { x0 }
  for j = 1, k - 1 do
    local x = {}
    for i, v in ipairs(x0) do x[i] = v * (1 + 0.013 * j * ((i % 3) - 1)) + 0.001 * j end
    out[#out + 1] = x
  end
  return out
end

local function fmt_all(y)
  local o = {}
  for i, v in ipairs(y) do o[i] = ("%.17g"):format(v) end
  return table.concat(o, "\n") .. (#o > 0 and "\n" or "")
end

local CFLAGS = "-O2 -std=c99 -Wall -Wextra -Werror -ffp-contract=off -DCGWB_MAIN"

-- Compiles C code; returns the executable's path (asserting a clean compile).
local function compile(code, extra)
  local src, exe, log = H.tmp(".c"), H.tmp(".exe"), H.tmp(".log")
  H.write(src, code)
  local ok = os.execute(("cc %s %s %s -o %s -lm >%s 2>&1"):format(CFLAGS, extra or "", src, exe, log))
  local msg = H.read(log)
  os.remove(log)
  assert(ok and msg == "", "generated code does not compile cleanly:\n" .. msg)
  os.remove(src)
  return exe
end

-- Runs a compiled evaluator at x; returns its stdout.
local function run(exe, x, env)
  local xin, out = H.tmp(".x"), H.tmp(".y")
  H.write(xin, fmt_all(x))
  assert(os.execute(("%s %s <%s >%s"):format(env or "", exe, xin, out)))
  local r = H.read(out)
  os.remove(xin)
  os.remove(out)
  return r
end

-- The compiled code of g equals the graph's evaluation at every point.
local function check_compiled(g, code, pts, extra, env)
  local exe = compile(code, extra)
  for k, x in ipairs(pts) do
    local y = assert(g:eval(x))
    assert.are.equal(fmt_all(y), run(exe, x, env), "point " .. k)
  end
  os.remove(exe)
end

-- {==== Figure 10 ====}

describe("sched: Figure 10 of Bischof & Hu 1991", function()
  it("heights give three levels, three slots, and t[0] reused on level 2", function()
    local g = graph_of(fig10)
    local s = cgwb.schedule(g, "height")
    assert.are.equal(3, s:nlevels())
    assert.are.equal(3, s:nslots())
    assert.are.same({ 1, 2, 1 }, s:histogram())
    local x, y = 1, g:dependents()[1]
    assert.are.equal(0, s:slots()[x])
    assert.are.equal(0, s:slots()[y]) -- x's slot, free once both its parents are done
    assert_bits(s:eval(), g:eval(), "Figure 10")
  end)

  it("generates the code of Figure 10c: do_level_0 .. do_level_2, root copied out", function()
    local g = graph_of(fig10)
    local code, st = cgwb.schedule(g):codegen(nil, { name = "f" })
    assert.are.equal(4, st.statements)
    assert.are.equal(3, st.functions)
    assert.are.equal(3, st.slots)
    assert.truthy(code:find("static void f_level_0(const double *restrict x) {\n  (void)x;\n  f_t[0] = x[0];\n}", 1, true))
    assert.truthy(code:find("f_t[0] = exp((f_t[1] + f_t[2]));", 1, true)
               or code:find("f_t[0] = exp((f_t[2] + f_t[1]));", 1, true))
    assert.truthy(code:find("(f_t[0] + 1.0)", 1, true))
    assert.truthy(code:find("cos(f_t[0])", 1, true))
    assert.truthy(code:find("  f_level_0(x);\n  f_level_1(x);\n  f_level_2(x);\n  y[0] = f_t[0];\n", 1, true))
    check_compiled(g, code, { { 1.5 }, { -0.25 }, { 3 } })
  end)

  it("is deterministic: the same graph gives the same bytes", function()
    local a = cgwb.schedule((graph_of(fig10))):codegen(nil, { form = "chunked" })
    local b = cgwb.schedule((graph_of(fig10))):codegen(nil, { form = "chunked" })
    assert.are.equal(a, b)
  end)
end)

-- {==== levels ====}

describe("sched: level schemes", function()
  it("built-in schemes are valid on generated tapes", function()
    for seed = 1, 20 do
      local g = random_graph(seed)
      for _, name in ipairs(cgwb.level_schemes()) do
        local lv = cgwb.levels(g, name)
        assert.are.equal(g:n(), #lv)
        assert(valid_levels(g, lv))
      end
      local h = cgwb.levels(g, "height")
      for i in g:nodes() do assert.are.equal(g:height(i), h[i]) end
    end
  end)

  it("depth puts every root on the top level; alap keeps roots at their height", function()
    local g = random_graph(7)
    local d, a, top = cgwb.levels(g, "depth"), cgwb.levels(g, "alap"), 0
    for i in g:nodes() do top = math.max(top, d[i]) end
    for _, r in ipairs(g:roots()) do
      assert.are.equal(top, d[r])
      assert.are.equal(g:height(r), a[r])
    end
  end)

  it("takes a Lua function level(id, g) and an array", function()
    local g = random_graph(3)
    local s = cgwb.schedule(g, function(i, gg) return 3 * gg:height(i) + 1 end)
    assert.are.equal(0, s:histogram()[1]) -- level 0 is empty: leaves are on level 1
    for i, l in ipairs(s:levels()) do assert.are.equal(3 * g:height(i) + 1, l) end
    local lv = cgwb.levels(g, "alap")
    assert.are.same(lv, cgwb.schedule(g, lv):levels())
  end)

  it("rejects a level function that puts a child on its parent's level, naming both", function()
    local g = graph_of(fig10)
    local ok, err = pcall(cgwb.schedule, g, function() return 0 end)
    assert.is_false(ok)
    assert.matches("child 1 %(level 0%) is not below its parent %d %(level 0%)", err)
    ok, err = pcall(cgwb.levels, g, function(i) return 5 - g:height(i) end)
    assert.is_false(ok)
    assert.matches("child 1 %(level 5%) is not below its parent %d %(level 4%)", err)
  end)

  it("rejects non-integers, negative levels, unknown names and wrong lengths", function()
    local g = graph_of(fig10)
    assert.matches("not an integer", select(2, pcall(cgwb.levels, g, function() return 0.5 end)))
    assert.matches("not an integer", select(2, pcall(cgwb.levels, g, function() return -1 end)))
    assert.matches("unknown scheme", select(2, pcall(cgwb.levels, g, "tallest")))
    assert.matches("3 levels for 4 nodes", select(2, pcall(cgwb.levels, g, { 0, 1, 2 })))
  end)
end)

-- {==== slots ====}

describe("sched: slots of the live analysis (section 3.1)", function()
  local function check_schedule(g, s, what)
    check_slot_rule(g, s)
    local want = node_values(g)
    for _, rev in ipairs({ false, true }) do
      local y, vals = assert(s:eval(nil, rev))
      assert_bits(y, (g:eval()), what .. " y")
      assert_bits(vals, want, what .. " nodes")
    end
  end

  it("level by level through the slots gives the graph's values, every scheme", function()
    for seed = 1, 25 do
      local g = random_graph(seed, 80)
      for _, name in ipairs(cgwb.level_schemes()) do
        check_schedule(g, cgwb.schedule(g, name), ("seed %d %s"):format(seed, name))
        check_schedule(g, cgwb.schedule(g, name, { inline_leaves = true }),
          ("seed %d %s inline"):format(seed, name))
      end
      check_schedule(g, cgwb.schedule(g, nil, { sequential = true }), "sequential")
    end
  end)

  it("also at other points", function()
    for seed = 30, 34 do
      local g, _, x0 = random_graph(seed)
      local s = cgwb.schedule(g, "asap")
      for _, x in ipairs(points(x0, 3)) do
        assert_bits((s:eval(x, true)), (g:eval(x)), "seed " .. seed)
      end
    end
  end)

  for _, name in ipairs({ "bratu", "cavity", "shallow" }) do
    it(name .. ".tap: slots give the graph's values; fewer slots than nodes", function()
      local g = assert(cgwb.build_graph("examples/tapes/" .. name .. ".tap"))
      local want = node_values(g)
      for _, scheme in ipairs({ "height", "alap" }) do
        local s = cgwb.schedule(g, scheme)
        local y, vals = assert(s:eval(nil, true))
        assert_bits(vals, want, name .. " " .. scheme)
        assert_bits(y, (g:eval()), name .. " y")
        assert.is_true(s:nslots() < g:n())
      end
    end)
  end
end)

-- {==== compiled code ====}

describe("sched: generated C (section 3.2)", function()
  it("every form compiles with -Wall -Wextra -Werror and equals the graph bit for bit", function()
    for seed = 40, 45 do
      local g, _, x0 = random_graph(seed, 70)
      local pts = points(x0, 3)
      for _, form in ipairs({ "levels", "straight", "chunked" }) do
        local s = cgwb.schedule(g, seed % 2 == 0 and "height" or "alap",
          { inline_leaves = seed % 3 == 0 })
        check_compiled(g, (s:codegen(nil, { form = form, chunk = 7, name = "eval_" .. form })), pts)
      end
    end
  end)

  it("--parallel compiles with and without -fopenmp and gives the same values", function()
    for seed = 50, 52 do
      local g, _, x0 = random_graph(seed, 90)
      local code = cgwb.schedule(g):codegen(nil, { parallel = true, chunk = 3 })
      check_compiled(g, code, points(x0, 2))
      check_compiled(g, code, points(x0, 2), "-fopenmp", "OMP_NUM_THREADS=2")
    end
  end)

  it("bratu.tap, chunked: equals the graph at three points", function()
    local g = assert(cgwb.build_graph("examples/tapes/bratu.tap"))
    local x0 = assert(cgwb.read_point("examples/tapes/bratu.x"))
    local code = cgwb.schedule(g, nil, { sequential = true }):codegen(nil, { form = "chunked" })
    check_compiled(g, code, points(x0, 3), "-O1")
  end)

  it("refuses --parallel outside the levels form and names that are not C identifiers", function()
    local s = cgwb.schedule((graph_of(fig10)))
    assert.matches("levels form", select(2, pcall(s.codegen, s, nil, { form = "chunked", parallel = true })))
    assert.matches("not a C identifier", select(2, pcall(s.codegen, s, nil, { name = "2f" })))
    assert.matches("unknown form", select(2, pcall(s.codegen, s, nil, { form = "wide" })))
  end)
end)

-- {==== command line ====}

describe("sched: cgwb codegen", function()
  it("writes the code, a summary and the level histogram", function()
    local tap, out, csv = H.write(H.tmp(".txt"), fig10), H.tmp(".c"), H.tmp(".csv")
    local o, e, code = H.cgwb(("codegen %s -o %s --histogram %s --json"):format(tap, out, csv))
    assert.are.equal(0, code, e)
    assert.are.equal("3", o:match('"live_analysis_slots": (%d+)'))
    assert.are.equal("4", o:match('"nodes": (%d+)'))
    assert.are.equal("level,nodes\n0,1\n1,2\n2,1\n", H.read(csv))
    assert.truthy(H.read(out):find("f_level_2", 1, true))
  end)

  it("takes a level scheme from a Lua file", function()
    local tap, out = H.write(H.tmp(".txt"), fig10), H.tmp(".c")
    local lf = H.write(H.tmp(".lua"), "return function(i, g) return 2 * g:height(i) end\n")
    local o, e, code = H.cgwb(("codegen %s -o %s --levels %s"):format(tap, out, lf))
    assert.are.equal(0, code, e)
    assert.truthy(o:find("levels %(.-%) 5"))
    assert.truthy(H.read(out):find("f_level_4", 1, true))
  end)

  it("fails with status 2 on bad usage, naming the problem", function()
    local tap, out = H.write(H.tmp(".txt"), fig10), H.tmp(".c")
    local _, e, code = H.cgwb(("codegen %s -o %s --levels tallest"):format(tap, out))
    assert.are.equal(2, code)
    assert.matches("unknown level scheme", e)
    _, e, code = H.cgwb(("codegen %s -o %s --form straight --parallel"):format(tap, out))
    assert.are.equal(2, code)
    assert.matches("%-%-parallel", e)
    local bad = H.write(H.tmp(".lua"), "return function() return 1 end\n")
    _, e, code = H.cgwb(("codegen %s -o %s --levels %s"):format(tap, out, bad))
    assert.are_not.equal(0, code)
    assert.matches("is not below its parent", e)
  end)
end)
