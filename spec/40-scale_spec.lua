-- Runs that cannot scale are refused before they start (doc/elimination.md,
-- "What each ordering costs"): elim.check_scale compares cheap counts
-- (lg:scale_counts: reach counts, Markowitz degrees, components) with
-- elim.LIMITS; a refusal names the estimate and the option that bounds it
-- (exit 2 on the command line, nil and the message from Lua) and leaves the
-- graph untouched; raising the limit lets the run go; the estimates are the
-- operation counts the runs then perform (forward and reverse exactly).
local H = require "spec.helper"
local core = require "cgwb.core"
local elim = require "cgwb.elim"
local graphgen = require "spec.graphgen"

-- A gradient-like chain: n independents, L intermediates, v_k = f(v_{k-1},
-- x_{k mod n}), one dependent after the last.  Vertex forward fills every
-- v_k with an edge from each of the min(k+1, n) independents reaching it.
local function chain_text(n, L)
  local lines = { "X: " .. table.concat((function()
    local t = {}
    for i = 0, n - 1 do t[#t + 1] = i end
    return t
  end)(), " "), "Y: " .. (n + L) }
  for k = 0, L - 1 do
    local v = n + k
    lines[#lines + 1] = k == 0 and ("%d: %d"):format(v, k % n) or ("%d: %d %d"):format(v, v - 1, k % n)
  end
  lines[#lines + 1] = ("%d: %d"):format(n + L, n + L - 1)
  return table.concat(lines, "\n") .. "\n"
end

local function chain(n, L) return assert(core.read_cg(chain_text(n, L), ("chain%d.cg"):format(n))) end

-- sum over k < L of min(k + 1, n): vertex forward's fill on the chain.
local function chain_fill(n, L)
  local s = 0
  for k = 0, L - 1 do s = s + math.min(k + 1, n) end
  return s
end

-- A random structural DAG (spec/graphgen.lua).
local function random_dag(seed, nx, ni, ny) return graphgen.dag(seed, nx, ni, ny, true) end

-- Runs f with elim.LIMITS[name] = value, restoring it after.
local function with_limit(name, value, f)
  local old = elim.LIMITS[name]
  elim.LIMITS[name] = value
  local ok, a, b, c = pcall(f)
  elim.LIMITS[name] = old
  if not ok then error(a, 0) end
  return a, b, c
end

describe("scale: the counts", function()
  it("are the chain's by hand: fill, multiplications, components, degrees", function()
    local lg <close> = chain(7, 30)
    local s = lg:scale_counts()
    assert.equal(30, s.intermediates)
    assert.equal(chain_fill(7, 30), s.forward_fill)
    assert.equal(chain_fill(7, 30), s.forward_mults) -- out-degree 1 everywhere
    assert.equal(30, s.reverse_fill)                 -- one dependent
    assert.equal(1, s.components)
    assert.equal(30, s.max_component)
    assert.is_false(s.partial)
  end)

  it("capped, are lower bounds and say so", function()
    local lg <close> = chain(200, 400)
    local full, capped = lg:scale_counts(), lg:scale_counts(3 * (lg:nv() + lg:counts().edges))
    assert.is_true(capped.partial)
    assert.is_true(capped.forward_fill < full.forward_fill)
    assert.is_true(capped.forward_fill > 0)
  end)
end)

describe("scale: refusals", function()
  local big_text = chain_text(25000, 25000) -- forward: 3.1e8 multiplications, over mults = 2e8

  it("refuse vertex, edge and face forward on a chain of 3.1e8 multiplications, graph untouched", function()
    local lg <close> = assert(core.read_cg(big_text, "big.cg"))
    local before = lg:counts()
    for _, mode in ipairs { "vertex", "edge", "face" } do
      local run = mode == "vertex" and elim.eliminate or elim.modes[mode]
      local cost, msg = run(lg, "forward", {})
      assert.is_nil(cost)
      local key = mode == "vertex" and "mults = 2e+08" or "x_mults = 5e+06"
      assert.matches("^forward %(" .. mode .. " elimination%): it would perform about 3.1e%+08 multiplications", msg)
      assert.matches("elim.LIMITS." .. key .. "; bound it with --order markowitz", msg, 1, true)
      assert.matches("--limit " .. key:match("^%S+") .. "=N", msg, 1, true)
      assert.same(before, lg:counts())
    end
    assert.is_nil((elim.eliminate(lg, "forward,markowitz", {}))) -- a chain is decided by its first rule
    local rev = lg:scale_counts().reverse_mults
    local cost = assert(elim.eliminate(lg, "markowitz", {})) -- bounded by itself: not refused
    assert.equal(rev, cost.mults) -- 1 + 2 x 24999: Markowitz eliminates the chain from its end, as reverse
  end)

  it("on the command line: exit 2, '<ordering> on <file>: <why>; bound it with <option>'", function()
    local path = H.tmp(".cg")
    H.write(path, big_text)
    local out, err, code = H.cgwb("eliminate " .. path .. " --order forward --json")
    assert.equal(2, code)
    assert.equal("", out)
    assert.matches("^cgwb eliminate: forward on " .. path:gsub("%p", "%%%0") .. ": it would perform about 3.1e%+08 multiplications", err)
    assert.matches("bound it with --order markowitz, or raise the limit with --limit mults=N\n",
                   err, 1, true)
    local _, _, ok = H.cgwb("eliminate " .. path .. " --order reverse --json")
    assert.equal(0, ok)
    os.remove(path)
  end)

  it("raising the limit lets a small case run; --limit takes NAME=N only", function()
    local path = H.tmp(".cg")
    H.write(path, chain_text(20, 100))
    local _, err, code = H.cgwb("eliminate " .. path .. " --order forward --limit mults=1000")
    assert.equal(2, code)
    assert.matches("over elim.LIMITS.mults = 1000;", err, 1, true)
    local out, _, code2 = H.cgwb("eliminate " .. path .. " --order forward --limit mults=1000 --limit mults=1e6 --json")
    assert.equal(0, code2)
    assert.matches('"mults": ' .. chain_fill(20, 100), out, 1, true)
    local _, err3, code3 = H.cgwb("eliminate " .. path .. " --order forward --limit nosuch=3")
    assert.equal(2, code3)
    assert.matches("--limit takes NAME=N with N >= 0 and NAME one of hub_work, lua_steps, mults, random_mults", err3, 1, true)
    os.remove(path)
    local lg <close> = chain(20, 100)
    local cost, msg = with_limit("mults", 1000, function() return elim.eliminate(lg:copy(), "forward") end)
    assert.is_nil(cost)
    assert.matches("mults = 1000", msg, 1, true)
    assert.equal(chain_fill(20, 100), assert(elim.eliminate(lg, "forward")).mults)
  end)

  it("edge and face anneal and exact: --budget x edges Lua steps, bounded by --budget", function()
    local lg <close> = random_dag(3, 4, 30, 3)
    local edges = lg:counts().edges
    with_limit("lua_steps", 20 * edges, function()
      for _, mode in ipairs { "edge", "face" } do
        for _, o in ipairs { "anneal", "exact" } do
          local c <close> = lg:copy()
          local cost, msg = elim.modes[mode](c, o, { budget = 200, time_limit = 0.2 })
          assert.is_nil(cost)
          assert.matches(("--budget 200 evaluations x %d edges = %d edge steps replayed in Lua"):format(edges,
            200 * edges), msg, 1, true)
          assert.matches("bound it with --budget 20 (opts.budget)", msg, 1, true)
          assert.truthy(elim.modes[mode](c, o, { budget = 20, time_limit = 0.2 }))
        end
      end
      local c <close> = lg:copy()
      assert.truthy(elim.eliminate(c, "anneal", { budget = 200 })) -- vertex anneal replays in C
    end)
  end)

  it("vertex anneal and exact: --budget x (edges + sqrt(forward x reverse multiplications)) replays", function()
    local lg <close> = random_dag(4, 4, 30, 3)
    local est = elim.estimate(lg, "anneal", "vertex", { budget = 1 })
    local per = est.per_replay
    assert.equal(est.counts.edges + math.sqrt(est.counts.forward_mults * est.counts.reverse_mults), per)
    with_limit("replay_work", 10 * per, function()
      local cost, msg = elim.eliminate(lg, "anneal", { budget = 11 })
      assert.is_nil(cost)
      assert.matches("bound it with --budget 10 (opts.budget)", msg, 1, true)
      assert.truthy(elim.eliminate(lg:copy(), "anneal", { budget = 10 }))
    end)
  end)

  it("relative-markowitz: its reach counts; the reverse and forward strategies: sweeps x edges", function()
    local lg <close> = random_dag(5, 70, 60, 70)
    local c = lg:counts()
    local reach = (c.vertices + c.edges) * 4 -- ceil(70 / 64) + ceil(70 / 64)
    with_limit("reach_work", reach - 1, function()
      local cost, msg = elim.eliminate(lg:copy(), "relative-markowitz")
      assert.is_nil(cost)
      assert.matches("bound it with --order markowitz", msg, 1, true)
      assert.is_nil((elim.modes.edge(lg:copy(), "relative-markowitz")))
    end)
    with_limit("reach_work", reach, function() assert.truthy(elim.eliminate(lg:copy(), "relative-markowitz")) end)
    for _, st in ipairs { "reverse", "forward" } do
      local sweeps = st == "reverse" and c.dependents or c.independents
      with_limit("sweeps_work", sweeps * c.edges - 1, function()
        local J, msg = elim.strategy(st).run(lg:copy(), {})
        assert.is_nil(J)
        assert.matches(("strategy %s: %d sweeps x %d edges"):format(st, sweeps, c.edges), msg, 1, true)
        assert.matches("bound it with --strategy colouring", msg, 1, true)
      end)
      local _, info = assert(elim.strategy(st).run(lg:copy(), {}))
      assert.equal(sweeps * c.edges, info.mults) -- the estimate is the sweeps' multiplications
    end
  end)

  it("edge min-fill, Lua edge and face rules: edges x the largest component", function()
    local lg <close> = chain(10, 40) -- one component of 40 intermediates
    local work = lg:counts().edges * 40
    assert.equal(40, lg:scale_counts().max_component)
    with_limit("hub_work", work - 1, function()
      assert.truthy(elim.modes.edge(lg:copy(), "relative-markowitz")) -- its rescoring reads degrees only
      for _, o in ipairs { "min-fill" } do
        local cost, msg = elim.modes.edge(lg:copy(), o)
        assert.is_nil(cost)
        assert.matches(("%d edges x 40 intermediates in the largest component = %d"):format(work // 40, work), msg, 1, true)
        assert.matches("bound it with --order markowitz (or --mode vertex)", msg, 1, true)
        assert.truthy(elim.eliminate(lg:copy(), o))
      end
    end)
    with_limit("hub_work", work, function() assert.truthy(elim.modes.edge(lg:copy(), "min-fill")) end)
    local edge_rule = function(i, j, side, g) return side == "front" and g:out_degree(j) or g:in_degree(i) end
    local face_rule = function(i, j, k, g) return g:in_degree(j) * g:out_degree(j) end
    with_limit("hub_work", work - 1, function() -- Lua score functions: each rescoring a Lua call
      local cost, msg = elim.modes.edge(lg:copy(), { edge_rule, "forward" })
      assert.is_nil(cost)
      assert.matches("^lua %(edge elimination%): .* %(the Lua score function's candidates", msg)
      assert.is_nil((elim.modes.face(lg:copy(), face_rule)))
      assert.truthy(elim.modes.edge(lg:copy(), { "markowitz", lowest_first = true })) -- names only: no Lua
      assert.truthy(elim.eliminate(lg:copy(), function(_, _, din, dout) return din * dout end))
    end)
    assert.truthy(elim.modes.face(lg:copy(), face_rule))
  end)

  it("best skips the candidates over a limit instead of refusing", function()
    local lg <close> = chain(30, 90)
    with_limit("mults", 0, function()
      local _, mults, name = elim.best(lg, {})
      assert.is_true(name ~= "forward" and name ~= "reverse")
      assert.equal(1 + 2 * 89, mults) -- reverse's cost, found by markowitz
      with_limit("x_mults", 0, function()
        for _, mode in ipairs { "edge", "face" } do
          local cost, _, bname = assert(elim.modes[mode](lg:copy(), "best", {}))
          assert.equal(179, cost.mults)
          assert.is_nil(bname:find("forward") or bname:find("reverse"))
        end
      end)
    end)
  end)
end)

describe("scale: the estimates are the operation counts", function()
  it("forward and reverse exactly, random within 10x, in every mode, on generated graphs", function()
    for seed = 1, 8 do
      local lg <close> = random_dag(seed, 3 + seed, 40 + 10 * seed, 2 + seed % 4)
      for _, o in ipairs { "forward", "reverse", "random" } do
        local est = elim.estimate(lg, o, "vertex")
        for _, mode in ipairs { "vertex", "edge", "face" } do
          local c <close> = lg:copy()
          local cost = assert((mode == "vertex" and elim.eliminate or elim.modes[mode])(c, o, { seed = seed }))
          if o == "random" then
            assert.is_true(cost.mults <= 10 * est.mults and est.mults <= 10 * cost.mults,
              ("seed %d %s random: %d mults, estimate %g"):format(seed, mode, cost.mults, est.mults))
          else
            assert.equal(est.mults, cost.mults, ("seed %d %s %s"):format(seed, mode, o))
          end
        end
      end
    end
  end)
end)
