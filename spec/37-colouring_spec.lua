-- The Jacobian by colouring on the linearized graph (Gebremedhin, Manne & Pothen 2005):
-- the structural pattern, ColPack's partial distance-2 colouring of the columns or rows,
-- one compressed tangent or adjoint sweep per colour, each entry read off its colour's
-- sweep; the strategies registry (elim.strategies) and `--strategy` on the command line.
-- Every result is checked against the forward and reverse sweeps (lg:jacobian) and an
-- independent reachability computation, on hand-made graphs, the examples and 200
-- generated graphs.
local H = require "spec.helper"
local core = require "cgwb.core"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"
local json = require "cgwb.json"
local RNG = require "spec.rng"

-- {==== helpers ====}

-- The entries of J as a table "row:col" -> value.
local function entries(J)
  local t = {}
  for k = 1, J.nnz do t[J.rows[k] .. ":" .. J.cols[k]] = J.vals[k] end
  return t
end

-- J (the structural pattern, explicit zeros allowed) equals the sweep F:
-- every entry of F in J with the same value (relative tol), the rest of J zero.
local function same_as_sweep(J, F, tol)
  local f = entries(F)
  if J.m ~= F.m or J.n ~= F.n then return false, "shape" end
  for k = 1, J.nnz do
    local key, v = J.rows[k] .. ":" .. J.cols[k], J.vals[k]
    local w = f[key] or 0
    if math.abs(v - w) > tol * math.max(1, math.abs(w)) then
      return false, ("entry %s: %.17g ~= %.17g"):format(key, v, w)
    end
    f[key] = nil
  end
  for key, w in pairs(f) do
    if w ~= 0 then return false, "entry " .. key .. " missing" end
  end
  for k = 2, J.nnz do -- row-major
    if J.rows[k] < J.rows[k - 1] or (J.rows[k] == J.rows[k - 1] and J.cols[k] <= J.cols[k - 1]) then
      return false, "not sorted"
    end
  end
  return true
end

-- Structural orthogonality of info.colour over J's pattern, checked here in
-- Lua: no two columns (rows) of one colour share a row (column); every
-- non-empty column (row) coloured.  Also returns the densest row's (column's)
-- entry count, the lower bound of the colours.
local function orthogonal(J, info)
  local side = info.side
  local seen, count, bound = {}, {}, 0
  for k = 1, J.nnz do
    local list, item = J.rows[k], J.cols[k]
    if side == "row" then list, item = J.cols[k], J.rows[k] end
    local c = info.colour[item]
    if not c or c < 1 or c > info.colours then return false, "item " .. item .. " uncoloured" end
    local key = list .. ":" .. c
    if seen[key] then return false, ("items %d and %d share %d"):format(seen[key], item, list) end
    seen[key] = item
    count[list] = (count[list] or 0) + 1
    bound = math.max(bound, count[list])
  end
  return true, bound
end

-- The pattern by propagating independent sets along the vertex order (ids
-- are topological): "row:col" -> true.
local function reach_pattern(lg)
  local dep, x, y = {}, lg:x(), lg:y()
  for j, v in ipairs(x) do dep[v] = dep[v] or {}; dep[v][j] = true end
  for v = 1, lg:nv() do
    for _, p in ipairs(lg:preds(v)) do
      if dep[p] then
        dep[v] = dep[v] or {}
        for j in pairs(dep[p]) do dep[v][j] = true end
      end
    end
  end
  local pat = {}
  for i, v in ipairs(y) do
    for j in pairs(dep[v] or {}) do pat[i .. ":" .. j] = true end
  end
  return pat
end

-- The additions of the sweeps, recounted: per colour, each vertex with d
-- edges in the sweep's direction adds d - 1 products, and one more when it
-- was seeded in that colour (it already holds its seed).
local function recount_adds(lg, info)
  local col = info.side == "column"
  local ids = col and lg:x() or lg:y()
  local adds = 0
  for c = 1, info.colours do
    local seeded = {}
    for k, v in ipairs(ids) do
      if info.colour[k] == c then seeded[v] = true end
    end
    for v = 1, lg:nv() do
      local d = col and lg:in_degree(v) or lg:out_degree(v)
      if d > 0 then adds = adds + d - 1 + (seeded[v] and 1 or 0) end
    end
  end
  return adds
end

-- Checks lg's ColPack colourings of both sides and (unless no_trivial: the
-- strategies' spec does them on the big tapes) the trivial ones; returns the infos.
local function check_graph(lg, label, tol, no_trivial)
  tol = tol or 1e-12
  local F, R = lg:jacobian("forward"), lg:jacobian("reverse")
  local edges, infos = lg:counts().edges, {}
  for _, side in ipairs { "column", "row" } do
    for _, trivial in ipairs(no_trivial and { false } or { false, true }) do
      local what = ("%s %s%s"):format(label, side, trivial and " trivial" or "")
      local J, info = lg:jacobian_coloured { side = side, trivial = trivial }
      assert(J, info)
      local ok, why = same_as_sweep(J, F, tol)
      assert(ok, what .. ": " .. tostring(why))
      ok, why = same_as_sweep(J, R, tol)
      assert(ok, what .. " (reverse): " .. tostring(why))
      local valid, bound = orthogonal(J, info)
      assert(valid, what .. ": " .. tostring(bound))
      assert(info.colours >= bound, what .. ": fewer colours than the densest row or column")
      assert.are.equal(edges * info.colours, info.mults, what)
      assert.are.equal(info.colours, info.sweeps, what)
      if info.colours <= 64 then assert.are.equal(recount_adds(lg, info), info.adds, what) end
      assert(info.mults_nontrivial <= info.mults, what)
      if trivial then assert.are.equal(side == "column" and J.n or J.m, info.colours, what) end
      infos[side .. (trivial and "-trivial" or "")] = info
    end
  end
  return infos
end

-- A .cg text of a random DAG: nx independents, ni intermediates, ny
-- dependents, 1 to maxp predecessors among the window before each vertex
-- (.cg files cannot make a vertex both: spec/c/test_colour.c covers that).
local function random_cg(rnd, nx, ni, ny, maxp, window)
  local nv, lines, has, succ = nx + ni + ny, {}, {}, {}
  local x, y = {}, {}
  for i = 0, nx - 1 do x[#x + 1] = i end
  for i = nx + ni, nv - 1 do y[#y + 1] = i end
  local preds = {}
  for v = nx, nv - 1 do
    local top, lo = math.min(v - 1, nx + ni - 1), math.max(0, v - window)
    preds[v] = {}
    for _ = 1, rnd:int(1, maxp) do
      local p = rnd:int(math.min(lo, top), top)
      if not has[p .. ":" .. v] then
        has[p .. ":" .. v], succ[p] = true, true
        table.insert(preds[v], ("%d:%.17g"):format(p, rnd:int(0, 3) == 0 and 1 or rnd:float(-2, 2)))
      end
    end
  end
  for u = nx, nx + ni - 1 do
    if not succ[u] then
      local v = rnd:int(nx + ni, nv - 1)
      table.insert(preds[v], ("%d:%.17g"):format(u, rnd:float(-2, 2)))
    end
  end
  lines[1], lines[2] = "X: " .. table.concat(x, " "), "Y: " .. table.concat(y, " ")
  for i = 0, nx - 1 do lines[#lines + 1] = i .. ":" end
  for v = nx, nv - 1 do lines[#lines + 1] = v .. ": " .. table.concat(preds[v], " ") end
  return table.concat(lines, "\n") .. "\n"
end

local examples_tapes = { "bratu", "shallow", "cavity", "bratu-lua", "shallow-lua", "cavity-lua" }

-- {==== the Lua surface ====}

describe("colouring: lg:jacobian_coloured", function()
  it("Lighthouse by hand: 4 columns share both rows (4 colours, 48 = 12 edges * 4); rows: 2", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    local J, info = lg:jacobian_coloured()
    assert.are.same({ 4, 4, 48, "column", "SMALLEST_LAST" }, { info.colours, info.sweeps, info.mults,
      info.side, info.colouring })
    assert(same_as_sweep(J, lg:jacobian("forward"), 1e-15))
    J, info = lg:jacobian_coloured { side = "row" }
    assert.are.same({ 2, 24 }, { info.colours, info.mults })
    assert(same_as_sweep(J, lg:jacobian("forward"), 1e-15))
    check_graph(lg, "lighthouse")
  end)

  it("a banded pattern needs only the band's width of colours, whatever n", function()
    -- y_i = x_{i-1} + x_i + x_{i+1}: tridiagonal, 3 colours for 30 columns
    local lines = { "X: " .. table.concat((function() local t = {} for i = 0, 29 do t[#t + 1] = i end return t end)(), " ") }
    local ys = {}
    for i = 0, 29 do
      local ps = {}
      for j = math.max(0, i - 1), math.min(29, i + 1) do ps[#ps + 1] = j .. ":" .. (j + 2) end
      lines[#lines + 1] = (30 + i) .. ": " .. table.concat(ps, " ")
      ys[#ys + 1] = 30 + i
    end
    table.insert(lines, 2, "Y: " .. table.concat(ys, " "))
    local lg = assert(core.read_cg(table.concat(lines, "\n") .. "\n", "band.cg"))
    local infos = check_graph(lg, "band")
    assert.are.equal(3, infos.column.colours)
    assert.are.equal(3, infos.row.colours)
    assert.are.equal(30, infos["column-trivial"].colours)
  end)

  it("every example graph and tape: both sides equal the sweeps; valid, bounded colourings", function()
    for _, f in ipairs { "lighthouse.cg", "lion.cg", "hovland-fig2.cg", "heart-dipole.cg",
                         "speelpenning10.cg", "lion.eliad", "speelpenning10.eliad" } do
      local lg = assert(cgwb.read_graph("examples/graphs/" .. f))
      check_graph(lg, f)
    end
    for _, name in ipairs(examples_tapes) do
      local lg = assert(elim.linearize("examples/tapes/" .. name .. ".tap"))
      local infos = check_graph(lg, name, 1e-12, true)
      if name:match("^shallow") then -- one dependent: a gradient is one reverse sweep
        assert.are.equal(1, infos.row.colours)
      end
      lg:free()
    end
  end)

  it("the ADOL-C tape sets (at the points the examples recorded): both sides equal the sweeps", function()
    for tag, name in ipairs { "bratu", "shallow", "cavity" } do
      local t = assert(cgwb.read_tape(("examples/tapes/ADOLC-Operations_%d.tap"):format(tag)))
      local x = assert(cgwb.read_point("examples/tapes/" .. name .. ".x"))
      local lg = assert(elim.linearize(t, { at = x }))
      check_graph(lg, "ADOL-C " .. name, 1e-12, true)
      lg:free()
    end
  end)

  it("200 generated graphs: the pattern is reachability; both sides equal the sweeps", function()
    local rnd = RNG.new(37)
    for i = 1, 200 do
      local nx, ny = rnd:int(1, 10), rnd:int(1, 10)
      local text = random_cg(rnd, nx, rnd:int(0, 60), ny, rnd:int(1, 4), rnd:int(2, 25))
      local lg = assert(core.read_cg(text, ("gen%d.cg"):format(i)))
      check_graph(lg, "gen" .. i)
      local J = lg:jacobian_coloured()
      local pat, got = reach_pattern(lg), 0
      for k = 1, J.nnz do
        assert(pat[J.rows[k] .. ":" .. J.cols[k]], "gen" .. i .. ": entry outside the reachable pattern")
      end
      for _ in pairs(pat) do got = got + 1 end
      assert.are.equal(got, J.nnz, "gen" .. i)
    end
  end)

  it("every ColPack ordering offered gives a valid colouring and the same Jacobian", function()
    local lg = assert(elim.linearize("examples/tapes/cavity.tap"))
    local F = lg:jacobian("forward")
    for _, order in ipairs(core.colouring_orders()) do
      for _, side in ipairs { "column", "row" } do
        local J, info = assert(lg:jacobian_coloured { side = side, order = order })
        assert.are.equal(order, info.colouring)
        assert(same_as_sweep(J, F, 1e-12), order)
        assert(orthogonal(J, info), order)
      end
    end
  end)

  it("no path from an independent to a dependent: an empty pattern, no colour, no sweep", function()
    local lg = assert(core.read_cg("X: 0 1\nY: 2\n0:\n1:\n2:\n", "empty.cg"))
    for _, side in ipairs { "column", "row" } do
      local J, info = assert(lg:jacobian_coloured { side = side })
      assert.are.same({ 0, 0, 0, 0 }, { J.nnz, info.colours, info.sweeps, info.mults })
      assert.are.same(side == "column" and { 0, 0 } or { 0 }, info.colour)
    end
    local _, info = lg:jacobian_coloured { trivial = true } -- forward mode: one sweep per independent
    assert.are.same({ 2, 2, 0 }, { info.colours, info.sweeps, info.mults })
  end)

  it("the graph is left as it was (counts, edges, weights)", function()
    local lg = assert(elim.linearize("examples/tapes/cavity.tap"))
    local before, text = lg:counts(), lg:write_cg()
    lg:jacobian_coloured { side = "row" }
    elim.strategy("reverse").run(lg, {})
    assert.are.same(before, lg:counts())
    assert.are.equal(text, lg:write_cg())
  end)

  it("bad options: an unknown ordering is nil, message; a wrong side raises", function()
    local lg = assert(cgwb.read_graph("examples/graphs/lighthouse.cg"))
    local J, err = lg:jacobian_coloured { order = "ALPHABETICAL" }
    assert.is_nil(J)
    assert.matches("unknown colouring order 'ALPHABETICAL'", err)
    assert.has_error(function() lg:jacobian_coloured { side = "diagonal" } end)
    assert.has_error(function() lg:jacobian_coloured(7) end)
  end)
end)

describe("colouring: elim.strategies", function()
  it("the registry: one row and one function per strategy, elimination first", function()
    assert.are.same({ "elimination", "colouring", "reverse", "forward" }, elim.strategy_names())
    for _, s in ipairs(elim.strategies) do
      assert.is_string(s.about)
      assert.is_function(s.run)
    end
    local none, err = elim.strategy("guess")
    assert.is_nil(none)
    assert.matches("unknown strategy 'guess'", err)
  end)

  it("reverse and forward are the reverse and forward sweeps, one per dependent or independent", function()
    for _, name in ipairs { "bratu", "shallow", "cavity" } do
      local lg = assert(elim.linearize("examples/tapes/" .. name .. ".tap"))
      local c = lg:counts()
      local J, info = elim.strategy("reverse").run(lg, {})
      assert(same_as_sweep(J, lg:jacobian("reverse"), 1e-12), name)
      assert.are.same({ c.dependents, c.dependents * c.edges }, { info.sweeps, info.mults })
      J, info = elim.strategy("forward").run(lg, {})
      assert(same_as_sweep(J, lg:jacobian("forward"), 1e-12), name)
      assert.are.same({ c.independents, c.independents * c.edges }, { info.sweeps, info.mults })
      lg:free()
    end
  end)

  it("elimination: the default ordering's cost and Jacobian, as elim.eliminate gives them", function()
    local lg = assert(elim.linearize("examples/tapes/bratu.tap"))
    local c <close> = lg:copy()
    local cost = elim.eliminate(c, "markowitz")
    local J, info = elim.strategy("elimination").run(lg, {})
    assert.are.equal(cost.mults, info.mults)
    assert(same_as_sweep(J, c:jacobian("bipartite"), 0))
  end)
end)

-- {==== the command line ====}

describe("colouring: cgwb jacobian --strategy", function()
  it("--json reports strategy, colours, sweeps, its own mults and, with --compare, elim_mults", function()
    local out, err, code = H.cgwb("jacobian examples/tapes/bratu.tap --strategy colouring --compare --json --check")
    assert.are.equal(0, code, err)
    local r = json.decode(out)
    local lg = assert(elim.linearize("examples/tapes/bratu.tap"))
    local _, info = lg:jacobian_coloured()
    assert.are.same({ "colouring", "column", info.colours, info.colours, info.mults },
      { r.strategy, r.side, r.colours, r.sweeps, r.mults })
    local plain = json.decode((H.cgwb("jacobian examples/tapes/bratu.tap --json")))
    assert.are.equal(plain.mults, r.elim_mults)
    assert.are.equal("markowitz", r.elim_order)
    assert.are.equal(0, r.check_forward)
  end)

  it("--side row, reverse and forward; the Jacobian written equals the elimination's", function()
    local ref = H.tmp(".mtx")
    assert.are.equal(0, select(3, H.cgwb("jacobian examples/tapes/cavity.tap -o " .. ref)))
    local function mtx(path)
      local t = {}
      for r, c, v in H.read(path):gmatch("\n(%d+) (%d+) (%S+)") do
        if tonumber(v) ~= 0 then t[r .. ":" .. c] = tonumber(v) end
      end
      return t
    end
    local want = mtx(ref)
    for _, args in ipairs { "--strategy colouring --side row", "--strategy reverse", "--strategy forward",
                            "--strategy colouring --colouring-order NATURAL" } do
      local path = H.tmp(".mtx")
      local _, err, code = H.cgwb("jacobian examples/tapes/cavity.tap " .. args .. " -o " .. path)
      assert.are.equal(0, code, err)
      assert.matches("strategy: %d+ colours", err)
      local got, n = mtx(path), 0
      for k, v in pairs(want) do
        n = n + 1
        assert(got[k] and math.abs(got[k] - v) <= 1e-12 * math.max(1, math.abs(v)), args .. " " .. k)
      end
      for k in pairs(got) do assert(want[k], args .. " " .. k) end
      assert(n > 0)
    end
  end)

  it("cgwb eliminate on a graph file; a gradient tape by one reverse sweep", function()
    local out, err, code = H.cgwb("eliminate examples/graphs/lion.cg --strategy reverse --json")
    assert.are.equal(0, code, err)
    local r = json.decode(out)
    assert.are.equal("reverse", r.strategy)
    assert.are.equal(r.m, r.sweeps)
    out, err, code = H.cgwb("jacobian examples/tapes/shallow.tap --strategy reverse --json --compare")
    assert.are.equal(0, code, err)
    r = json.decode(out)
    assert.are.same({ 1, 1, r.edges }, { r.colours, r.sweeps, r.mults })
    assert.is_number(r.elim_mults)
  end)

  it("usage errors exit 2: unknown strategy, --side without colouring, unknown colouring order", function()
    for _, args in ipairs { "--strategy guess", "--strategy reverse --side row",
                            "--strategy elimination --colouring-order NATURAL",
                            "--strategy colouring --colouring-order ALPHABETICAL",
                            "--strategy colouring --side diagonal" } do
      local _, err, code = H.cgwb("jacobian examples/tapes/bratu.tap " .. args)
      assert.are.equal(2, code, args .. ": " .. err)
    end
  end)

  it("--help names the strategies and the colouring options", function()
    local out = H.cgwb("help jacobian")
    for _, s in ipairs { "--strategy", "--side", "--colouring-order", "--compare", "colouring", "reverse" } do
      assert.matches(s, out, 1, true)
    end
  end)
end)
