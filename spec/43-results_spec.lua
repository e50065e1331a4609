-- spec/43-results_spec.lua: what `make results` relies on, without running it.
-- The claim checks of scripts/results-lib.lua fail on numbers that break a
-- claim; the cost model of the level-by-level schedule (Bischof & Hu 1991,
-- sec. 4.3, Table 5) fits exact synthetic data exactly and predicts sensible
-- values; a page (graph-optimizations.md) and a figure (Figure 11's PNG)
-- generated twice are the same bytes.
local H = require "spec.helper"
local R = dofile("scripts/results-lib.lua")

-- {==== claims ====}

describe("results claims", function()
  it("hold when true and fail, naming the claim, when not", function()
    local c = R.claims("t")
    assert.is_true(c:check(true, "fine"))
    assert.is_true(c:equal("sum", 68024, 68024))
    assert.is_true(c:result())
    assert.is_false(c:check(false, "Cavity is close to the paper"))
    assert.is_false(c:equal("the paper's counts add up", 68000, 68024))
    local ok, msg = c:result()
    assert.is_nil(ok)
    assert.matches("Cavity is close to the paper", msg, 1, true)
    assert.matches("the paper's counts add up: 68000, not 68024", msg, 1, true)
  end)

  it("make the script fail with the claim on stderr", function()
    local script = H.tmp(".lua")
    H.write(script, [[
local R = dofile("scripts/results-lib.lua")
local c = R.claims("doctored")
c:check(1 + 1 == 3, "one and one make three")
c:finish()
print("not reached")]])
    local p = assert(io.popen("lua5.4 " .. script .. " 2>&1; echo rc=$?"))
    local out = p:read("a")
    p:close()
    os.remove(script)
    assert.matches("doctored: a claim the page makes does not hold", out, 1, true)
    assert.matches("one and one make three", out, 1, true)
    assert.matches("rc=1", out, 1, true)
    assert.not_matches("not reached", out, 1, true)
  end)

  it("call shares close within the tolerance only", function()
    -- the Lua tracer's assignment shares against Bischof & Hu's Table 2
    local v = R.share_verdicts({ { "Shallow", 34.0, 21.7 }, { "Bratu", 35.9, 13.8 }, { "Cavity", 35.1, 35.9 } }, 2.0)
    assert.same({ false, false, true }, { v[1].close, v[2].close, v[3].close })
    -- a doctored Cavity share 2.5 points off is no longer close
    assert.is_false(R.share_verdicts({ { "Cavity", 33.4, 35.9 } }, 2.0)[1].close)
    assert.is_true(R.close(35.9, 33.9, 2.0))
  end)

  it("find the misprinted shares of the paper's Table 4", function()
    -- Bischof & Hu 1991, Table 4, Cavity: counts and printed shares, 68024 nodes
    assert.is_true(R.printed_share_ok("91.16", 62008, 68024))
    assert.is_false(R.printed_share_ok("3.84", 5890, 68024))
    assert.is_false(R.printed_share_ok("0.08", 124, 68024))
    assert.is_true(R.printed_share_ok("<0.01", 2, 68024))
    assert.is_false(R.printed_share_ok("<0.01", 124, 68024))
    assert.is_true(R.printed_share_ok("80.65", 123791, 153485)) -- Shallow
    assert.is_true(R.printed_share_ok("16.96", 24178, 142579)) -- Bratu
  end)

  it("summarize a level distribution as Figure 11's description does", function()
    local s = R.level_summary({ 1453, 6758, 9610, 9610, 4805, 2884, 3844, 2882, 961, 960 }, 1000, 3000)
    assert.same({ 10, 43767, 9610, 2, 5, 9140, 10, 5 },
      { s.levels, s.nodes, s.widest, s.widest_at, s.under, s.nodes_under, s.max_batches, s.over3 })
  end)
end)

-- {==== the cost model ====}

describe("the cost model of the level-by-level schedule", function()
  local nodes = { 1453, 6758, 9610, 9610, 4805, 2884, 3844, 2882, 961, 960 }
  local bytes = {}
  for l, n in ipairs(nodes) do bytes[l] = 8 * n + 16 * n - (l == 1 and 16 * n or 0) end

  it("counts the critical path, barriers and traffic of the schedule", function()
    local f0, f1, f2 = R.features(nodes, bytes, 0, 1000), R.features(nodes, bytes, 1, 1000),
      R.features(nodes, bytes, 2, 1000)
    assert.equal(43767, f0[1])
    assert.equal(43767, f1[1])
    assert.equal(0, f0[2])
    assert.equal(10, f1[2])
    assert.equal(20, f2[2])
    -- 2 threads: a level of 9610 nodes (10 batches) leaves 5 batches, 5000 nodes, to the
    -- busiest thread; one of 1453 (2 batches) leaves one full batch, 1000
    assert.equal(1000 + 4000 + 5000 + 5000 + 3000 + 2000 + 2000 + 2000 + 961 + 960, f2[1])
    assert.equal(f0[3], f2[3])
  end)

  it("fits exact synthetic data exactly", function()
    local truth = { 2e-9, 1.5e-6, 4e-11 }
    local X, T = {}, {}
    for _, p in ipairs { 0, 1, 2, 3 } do
      X[#X + 1] = R.features(nodes, bytes, p, 1000)
      T[#T + 1] = R.predict(truth, X[#X])
    end
    local c, err = R.fit(X, T)
    assert.is_truthy(c)
    for j = 1, 3 do assert.is_true(math.abs(c[j] - truth[j]) <= 1e-9 * truth[j], "coefficient " .. j) end
    assert.is_true(err < 1e-12)
  end)

  it("predicts sensible values: positive, no slower with threads when barriers are free", function()
    local c = { 2e-9, 0, 1e-12 }
    local prev = math.huge
    for p = 1, 8 do
      local t = R.predict(c, R.features(nodes, bytes, p, 1000))
      assert.is_true(t > 0)
      assert.is_true(t <= prev, "no slower at " .. p .. " threads")
      prev = t
    end
    -- never faster than the work of one batch per level allows
    local floor = 0
    for _, n in ipairs(nodes) do floor = floor + math.min(n, 1000) end
    assert.is_true(R.predict(c, R.features(nodes, bytes, 8, 1000)) >= c[1] * floor)
    -- with a barrier cost: where the critical path stays (5 and 6 threads), only the barriers grow
    local cb = { 2e-9, 1e-7, 1e-12 }
    local f5, f6 = R.features(nodes, bytes, 5, 1000), R.features(nodes, bytes, 6, 1000)
    assert.equal(f5[1], f6[1])
    local d = R.predict(cb, f6) - R.predict(cb, f5)
    assert.is_true(d > 0 and math.abs(d - 1e-7 * 10 * math.log(6 / 5, 2)) < 1e-15)
  end)

  it("keeps every cost >= 0 and says so when no fit is admissible", function()
    -- measured as on a shared 2-core machine: 2 threads slower than 1
    local X = { R.features(nodes, bytes, 0, 1000), R.features(nodes, bytes, 1, 1000), R.features(nodes, bytes, 2, 1000) }
    local c = assert(R.fit(X, { 4.4e-5, 4.7e-5, 9.0e-5 }))
    for j = 1, 3 do assert.is_true(c[j] >= 0) end
    local none, msg = R.fit({}, {})
    assert.is_nil(none)
    assert.matches("no measurements", msg, 1, true)
  end)
end)

-- {==== the same bytes twice ====}

describe("results pages and figures", function()
  it("graph-optimizations.md comes out the same bytes twice", function()
    local a, b = H.tmp(".md"), H.tmp(".md")
    for _, p in ipairs { a, b } do
      local _, err, code = H.cgwb("run scripts/results-graph.lua " .. p)
      assert.equal(0, code, err)
    end
    local ta, tb = H.read(a), H.read(b)
    os.remove(a)
    os.remove(b)
    assert.is_true(#ta > 1000)
    assert.matches("close to the paper's (within 2 percentage points) for Cavity only", ta, 1, true)
    assert.is_true(ta == tb)
  end)

  it("Figure 11's PNG comes out the same bytes twice", function()
    local hist = { 1453, 6758, 9610, 9610, 4805, 2884, 3844, 2882, 961, 960 }
    local a, b, dat = H.tmp(".png"), H.tmp(".png"), H.tmp(".dat")
    assert(R.plot_levels(hist, a, dat, "t"))
    assert(R.plot_levels(hist, b, dat, "t"))
    local ta, tb = H.read(a), H.read(b)
    os.remove(a)
    os.remove(b)
    os.remove(dat)
    assert.equal("\137PNG", ta:sub(1, 4))
    assert.is_nil(ta:find("tIME", 1, true)) -- no timestamp chunk
    assert.is_true(ta == tb)
  end)
end)
