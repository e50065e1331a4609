-- spec/36-jplan_spec.lua: kept Jacobian plans (cgwb.jacobian_plan, doc/api.md,
-- "Jacobians at many points").  A plan records a vertex elimination once
-- (Hovland, Norris, Utke & Strout, sec. 1) and replays it at new points; at
-- every point its Jacobian must equal an independent computation: a fresh
-- build, linearization and elimination at that point (the same pattern,
-- values to 1e-12 relative), the forward sweep of that fresh graph, and
-- ADOL-C's jacobian() on the ADOL-C tapes; J*v and w^T*J from the plan's
-- sweeps must equal the products with that J.
local H = require "spec.helper"
local cgwb = require "cgwb"
local gen = require "spec.gen"
local rng = require "spec.rng"

-- a and b equal to rounding: |a - b| <= 1e-12 * max(|a|, |b|) + 1e-15.
local function close(a, b)
  return math.abs(a - b) <= 1e-12 * math.max(math.abs(a), math.abs(b)) + 1e-15
end

-- Asserts J (a plan's) has R's pattern and R's values to rounding.
local function same_jacobian(J, R, what)
  assert.are.equal(R.m, J.m, what .. ": m")
  assert.are.equal(R.n, J.n, what .. ": n")
  assert.are.equal(R.nnz, J.nnz, what .. ": nnz")
  for k = 1, R.nnz do
    if J.rows[k] ~= R.rows[k] or J.cols[k] ~= R.cols[k] or not close(J.vals[k], R.vals[k]) then
      error(("%s: entry %d: (%d, %d) %.17g, expected (%d, %d) %.17g"):format(what, k, J.rows[k],
        J.cols[k], J.vals[k], R.rows[k], R.cols[k], R.vals[k]), 2)
    end
  end
end

-- Asserts J equals R, computed otherwise (a sweep, ADOL-C), entry by entry,
-- a missing entry reading as 0: to 1e-10 of the row's largest entry, as the
-- two accumulate in different orders and the example tapes cancel (shallow).
local function same_values(J, R, what)
  local a, b, rowmax = {}, {}, {}
  for k = 1, J.nnz do a[J.rows[k] * (J.n + 1) + J.cols[k]] = J.vals[k] end
  for k = 1, R.nnz do
    b[R.rows[k] * (R.n + 1) + R.cols[k]] = R.vals[k]
    rowmax[R.rows[k]] = math.max(rowmax[R.rows[k]] or 0, math.abs(R.vals[k]))
  end
  local function check(key)
    local row, x, y = key // (J.n + 1), a[key] or 0, b[key] or 0
    if math.abs(x - y) > 1e-10 * (rowmax[row] or math.abs(x)) + 1e-15 then
      error(("%s: (%d, %d) %.17g, expected %.17g"):format(what, row, key % (J.n + 1), x, y), 3)
    end
  end
  for key in pairs(a) do check(key) end
  for key in pairs(b) do if a[key] == nil then check(key) end end
end

-- Asserts the vector a equals b to 1e-10 of scale[i] (the sum of the
-- magnitudes of the terms of b[i]; a sweep over the graph cancels inside it, shallow
-- by about 1e-11 of that).
local function same_numbers(a, b, what, scale)
  assert.are.equal(#b, #a, what .. ": length")
  for i = 1, #b do
    local tol = scale and 1e-10 * scale[i] + 1e-15
    if tol and math.abs(a[i] - b[i]) > tol or not tol and not close(a[i], b[i]) then
      error(("%s: %d: %.17g, expected %.17g"):format(what, i, a[i], b[i]), 2)
    end
  end
end

-- The Jacobian at x by a fresh build, linearization and elimination (ordering
-- spec), plus the fresh graph's forward sweep and values; nil, changes when
-- x leaves a recorded branch.
local function fresh(tape, x, spec)
  local g = assert(cgwb.build_graph(tape, { at = x }))
  local changes = g:branch_changes()
  if changes > 0 then g:free() return nil, changes end
  local lg = assert(cgwb.core.linearize(g))
  local y = g:eval(x)
  g:free()
  local F = assert(lg:jacobian("forward"))
  local cost = assert(require("cgwb.elim").eliminate(lg, spec or "markowitz"))
  local E = assert(lg:jacobian())
  return E, F, y, cost
end

-- A seeded point near x0: each value times 1 + u, |u| <= scale.
local function near(r, x0, scale)
  local x = {}
  for i, v in ipairs(x0) do x[i] = v * (1 + r:float(-scale, scale)) + r:float(-scale, scale) * 1e-3 end
  return x
end

-- J*v and w^T*J from a coordinate J, and the sums of the terms' magnitudes.
local function jv(J, v)
  local r, s = {}, {}
  for i = 1, J.m do r[i], s[i] = 0, 0 end
  for k = 1, J.nnz do
    local t = J.vals[k] * v[J.cols[k]]
    r[J.rows[k]], s[J.rows[k]] = r[J.rows[k]] + t, s[J.rows[k]] + math.abs(t)
  end
  return r, s
end
local function wj(J, w)
  local r, s = {}, {}
  for i = 1, J.n do r[i], s[i] = 0, 0 end
  for k = 1, J.nnz do
    local t = w[J.rows[k]] * J.vals[k]
    r[J.cols[k]], s[J.cols[k]] = r[J.cols[k]] + t, s[J.cols[k]] + math.abs(t)
  end
  return r, s
end

local function read_x(path)
  return assert(cgwb.read_point(path))
end

-- {==== hand-made ====}

describe("jacobian plans: a hand-made tape", function()
  -- f(x1, x2) = (x1 x2 + x1, x1 x2): J = [[x2 + 1, x1], [x2, x1]]
  local text = "assign_ind 1 2.0\nassign_ind 2 3.0\nmult_a_a 3 1 2\nplus_a_a 4 3 1\n"
    .. "assign_dep 4\nassign_dep 3\n"
  local path
  setup(function() path = H.write(H.tmp(".txt"), text) end)

  it("gives J and y at new points by hand", function()
    local p = assert(cgwb.jacobian_plan(path))
    local J, y = assert(p:at({ 5, 7 }))
    assert.are.same({ 1, 1, 2, 2 }, J.rows)
    assert.are.same({ 1, 2, 1, 2 }, J.cols)
    assert.are.same({ 8, 5, 7, 5 }, J.vals)
    assert.are.same({ 40, 35 }, y)
    local J2 = assert(p:at({ -1, 0.5 }, J))
    assert.are.equal(J, J2) -- the same table, its values overwritten
    assert.are.same({ 1.5, -1, 0.5, -1 }, J.vals)
    assert.are.same({ 8 * 1 + 5 * 2, 7 * 1 + 5 * 2 }, (p:jvp({ 5, 7 }, { 1, 2 })))
    assert.are.same({ 8 * 1 + 7 * 3, 5 * 1 + 5 * 3 }, (p:vjp({ 5, 7 }, { 1, 3 })))
    local pat = p:pattern()
    assert.are.same({ m = 2, n = 2, nnz = 4, rows = { 1, 1, 2, 2 }, cols = { 1, 2, 1, 2 } }, pat)
    p:free()
  end)

  it("costs: the program's products are the elimination's mults", function()
    for _, spec in ipairs({ "forward", "reverse", "markowitz", "min-fill" }) do
      local p = assert(cgwb.jacobian_plan(path, { order = spec }))
      local _, _, _, cost = fresh(path, { 2, 3 }, spec)
      local c = p:costs()
      assert.are.equal(cost.mults, c.mults, spec)
      assert.are.equal(cost.mults, c.ops, spec)
      assert.are.equal(cost.mults_nontrivial, c.mults_nontrivial, spec)
      assert.are.equal(cost.fill, c.fill, spec)
      assert.are.equal(spec, c.order)
      p:free()
    end
  end)

  it("refuses a bad point and a freed graph", function()
    local p = assert(cgwb.jacobian_plan(path))
    assert.has_error(function() p:at({ 1 }) end)
    assert.has_error(function() p:jvp({ 1, 2 }, { 1 }) end)
    p.graph:free()
    local ok, err = pcall(p.at, p, { 1, 2 })
    assert.is_false(ok)
    assert.matches("the plan's cgwb.Graph was freed", err, 1, true)
  end)
end)

-- {==== branches ====}

describe("jacobian plans: branch changes", function()
  local text = "assign_ind 1 2.0\nplus_a_d 2 1 -1.0\ngt_zero 2\nmult_a_a 3 1 1\nassign_dep 3\n"
  local cond = "assign_ind 1 2.0\nplus_a_d 2 1 -1.0\nmult_a_d 3 1 10.0\nmult_a_a 4 1 1\n"
    .. "cond_assign 5 2 4 3 1.0\nassign_dep 5\n"

  it("a point across a guard: nil, a message naming the record, the changes", function()
    local p = assert(cgwb.jacobian_plan(H.write(H.tmp(".txt"), text)))
    local J = assert(p:at({ 3 }))
    assert.are.same({ 6 }, J.vals)
    local none, msg, changes = p:at({ 0.5 })
    assert.is_nil(none)
    assert.are.equal(1, changes)
    assert.matches("differ from the recorded point, first at record 3 (gt_zero)", msg, 1, true)
    assert.is_nil((p:jvp({ 0.5 }, { 1 })))
    assert.is_nil((p:vjp({ 0.5 }, { 1 })))
    assert.are.same({ 8 }, (p:jvp({ 4 }, { 1 })))
  end)

  it("a conditional whose outcome changes: no Jacobian of the other branch", function()
    local p = assert(cgwb.jacobian_plan(H.write(H.tmp(".txt"), cond)))
    assert.are.same({ 2 * 1.5 }, assert(p:at({ 1.5 })).vals)
    local none, msg = p:at({ 0.5 })
    assert.is_nil(none)
    assert.matches("record", msg, 1, true)
  end)

  it("a build point that leaves the branch gives no plan", function()
    local none, msg, changes = cgwb.jacobian_plan(H.write(H.tmp(".txt"), text), { at = { 0.5 } })
    assert.is_nil(none)
    assert.matches("build point", msg, 1, true)
    assert.are.equal(1, changes)
  end)
end)

-- {==== the example tapes ====}

local NP = H.sized(20, 8) -- points per example tape
describe(("jacobian plans: the example tapes at %d points each"):format(NP), function()
  for _, name in ipairs({ "bratu", "cavity", "shallow" }) do
    it(name .. ": J == a fresh build + eliminate == the forward sweep; jvp, vjp", function()
      local tape = "examples/tapes/" .. name .. ".tap"
      local x0 = read_x("examples/tapes/" .. name .. ".x")
      local p = assert(cgwb.jacobian_plan(tape))
      local r = rng.new(#name)
      local seen = 0
      for k = 1, NP do
        local x = near(r, x0, 0.05)
        local E, F, y = fresh(tape, x)
        local J, py, changes = p:at(x)
        if not E then
          assert.is_nil(J)
          assert.are.equal(F, changes)
        else
          assert.is_table(J, name .. " point " .. k .. ": " .. tostring(py))
          same_jacobian(J, E, name .. " point " .. k)
          same_values(J, F, name .. " point " .. k .. " (forward sweep)")
          same_numbers(py, y, name .. " y")
          if k <= 5 then
            local v, w = {}, {}
            for i = 1, J.n do v[i] = r:float(-1, 1) end
            for i = 1, J.m do w[i] = r:float(-1, 1) end
            local jr, js = jv(J, v)
            local wr, ws = wj(J, w)
            same_numbers((p:jvp(x, v)), jr, name .. " jvp", js)
            same_numbers((p:vjp(x, w)), wr, name .. " vjp", ws)
          end
          seen = seen + 1
        end
      end
      assert.is_true(seen >= NP * 3 // 4, name .. ": too few points on the recorded branch")
      p:free()
    end)
  end
end)

-- {==== ADOL-C ====}

-- ADOL-C's jacobian() at the points (one process: spec/adolc/jacobian-points.cpp),
-- its nonzeros as a coordinate J per point.
local function adolc_jacobians(tag, n, m, points)
  local dir = H.tmp("-adolc")
  os.execute("mkdir -p " .. dir)
  local exe = dir .. "/jacobian-points"
  assert(os.execute("g++ -O1 -o " .. exe .. " spec/adolc/jacobian-points.cpp -ladolc"))
  os.execute(("cp examples/tapes/ADOLC-*_%d.tap %s/"):format(tag, dir))
  local lines = {}
  for i, x in ipairs(points) do
    local s = {}
    for j, v in ipairs(x) do s[j] = ("%.17g"):format(v) end
    lines[i] = table.concat(s, " ")
  end
  H.write(dir .. "/points", table.concat(lines, "\n") .. "\n")
  assert(os.execute(("cd %s && ./jacobian-points %d %d %d points out"):format(dir, tag, n, m)))
  local out, cur = {}, nil
  for line in io.lines(dir .. "/out") do
    if line:match("^point") then
      cur = { m = m, n = n, nnz = 0, rows = {}, cols = {}, vals = {} }
      out[#out + 1] = cur
    else
      local i, j, v = line:match("^(%d+) (%d+) (%S+)$")
      cur.nnz = cur.nnz + 1
      cur.rows[cur.nnz], cur.cols[cur.nnz], cur.vals[cur.nnz] = tonumber(i), tonumber(j), tonumber(v)
    end
  end
  os.execute("rm -rf " .. dir)
  return out
end

describe("jacobian plans: ADOL-C tapes against ADOL-C's jacobian()", function()
  for _, ex in ipairs({ { "bratu", 1 }, { "shallow", 2 }, { "cavity", 3 } }) do
    it(ex[1] .. " (tag " .. ex[2] .. "): 20 points", function()
      local x0 = read_x("examples/tapes/" .. ex[1] .. ".x")
      local p = assert(cgwb.jacobian_plan(("examples/tapes/ADOLC-Operations_%d.tap"):format(ex[2]),
                                          { at = x0 }))
      local pat = p:pattern()
      local r, points = rng.new(ex[2] + 100), {}
      for k = 1, 20 do points[k] = near(r, x0, 0.05) end
      local A = adolc_jacobians(ex[2], pat.n, pat.m, points)
      assert.are.equal(20, #A)
      local J
      for k, x in ipairs(points) do
        J = assert(p:at(x, J))
        same_values(J, A[k], ("%s point %d (ADOL-C)"):format(ex[1], k))
      end
      p:free()
    end)
  end
end)

-- {==== generated tapes ====}

describe("jacobian plans: generated tapes", function()
  it("60 tapes, 5 points each, 4 orderings: J == a fresh build + eliminate", function()
    local specs = { "markowitz", "forward", "reverse", "min-fill" }
    local checked = 0
    for seed = 1, 60 do
      local recs, x0 = gen.random_records(seed, { n = 2 + seed % 4, m = 1 + seed % 3, len = 40,
                                                  store = 8, deaths = seed % 2 == 0 })
      local path = H.tmp(".tap")
      assert(gen.tape(recs, x0):write(path))
      local spec = specs[seed % #specs + 1]
      local p = assert(cgwb.jacobian_plan(path, { order = spec }))
      local r = rng.new(seed)
      for k = 1, 5 do
        local x = near(r, x0, 0.3)
        local E, F = fresh(path, x, spec)
        local J, _, changes = p:at(x)
        if E then
          assert.is_table(J)
          same_jacobian(J, E, ("seed %d point %d"):format(seed, k))
          same_values(J, F, ("seed %d point %d (forward)"):format(seed, k))
          local v, w = {}, {}
          for i = 1, J.n do v[i] = r:float(-1, 1) end
          for i = 1, J.m do w[i] = r:float(-1, 1) end
          local jr, js = jv(J, v)
          local wr, ws = wj(J, w)
          same_numbers((p:jvp(x, v)), jr, "jvp", js)
          same_numbers((p:vjp(x, w)), wr, "vjp", ws)
          checked = checked + 1
        else
          assert.is_nil(J)
          assert.are.equal(F, changes)
        end
      end
      p:free()
      os.remove(path)
    end
    assert.is_true(checked >= 250)
  end)
end)

-- {==== cgwb jacobian --points ====}

describe("cgwb jacobian --points", function()
  local branchy = "assign_ind 1 2.0\nplus_a_d 2 1 -1.0\ngt_zero 2\nmult_a_a 3 1 1\nassign_dep 3\n"

  it("a Matrix Market block per point, each the one `--at` gives", function()
    local x0 = read_x("examples/tapes/cavity.x")
    local r, lines, points = rng.new(7), { "# two points" }, {}
    for k = 1, 2 do
      points[k] = near(r, x0, 0.02)
      local s = {}
      for i, v in ipairs(points[k]) do s[i] = ("%.17g"):format(v) end
      lines[#lines + 1] = table.concat(s, " ")
    end
    local pts = H.write(H.tmp(".pts"), table.concat(lines, "\n") .. "\n")
    local out, err, code = H.cgwb("jacobian examples/tapes/cavity.tap --points " .. pts)
    assert.are.equal(0, code, err)
    local blocks = {}
    local at = 1
    while true do -- split before each header
      local nxt = out:find("%%MatrixMarket", at + 1, true)
      blocks[#blocks + 1] = out:sub(at, nxt and nxt - 1)
      if not nxt then break end
      at = nxt
    end
    assert.are.equal(2, #blocks)
    assert.matches("%% point 2 %(" .. pts:gsub("%p", "%%%0") .. ":3%)", out)
    for k = 1, 2 do
      local at = H.write(H.tmp(".x"), table.concat(lines, "\n", k + 1, k + 1):gsub(" ", "\n") .. "\n")
      local one, _, c1 = H.cgwb("jacobian examples/tapes/cavity.tap --at " .. at .. " -o -")
      assert.are.equal(0, c1)
      -- the same entries: the plan replays the same elimination
      assert.are.equal(one:gsub("^[^\n]*\n", ""), blocks[k]:gsub("^[^\n]*\n[^\n]*\n", ""))
    end
    local js = H.cgwb("jacobian examples/tapes/cavity.tap --points " .. pts .. " --json --check")
    local t = require("cgwb.json").decode(js)
    assert.are.equal(2, t.points)
    assert.are.equal(75306, t.mults)
    assert.is_true(t.seconds_per_point > 0)
    assert.is_true(t.check <= 1e-10)
  end)

  it("exit 3 at the first point across a branch, naming its line and record", function()
    local tape = H.write(H.tmp(".txt"), branchy)
    local pts = H.write(H.tmp(".pts"), "3\n# skip\n\n4\n0.5\n5\n")
    local out, err, code = H.cgwb("jacobian " .. tape .. " --points " .. pts)
    assert.are.equal(3, code)
    assert.matches(":5: point 3: 1 branch or conditional outcome(s) differ from the recorded point, "
      .. "first at record 3 (gt_zero)", err, 1, true)
    assert.matches("1 1 8\n", out, 1, true) -- the points before it
  end)

  it("bad input: exit 2", function()
    local tape = H.write(H.tmp(".txt"), branchy)
    local _, err, code = H.cgwb("jacobian " .. tape .. " --points " .. H.write(H.tmp(".pts"), "3 4\n"))
    assert.are.equal(2, code)
    assert.matches(":1: 2 values for 1 independents", err, 1, true)
    _, err, code = H.cgwb("jacobian " .. tape .. " --points " .. H.write(H.tmp(".pts"), "x\n"))
    assert.are.equal(2, code)
    assert.matches(":1: not a number: x", err, 1, true)
    _, err, code = H.cgwb("jacobian " .. tape .. " --mode edge --points " .. H.write(H.tmp(".pts"), "3\n"))
    assert.are.equal(2, code)
    assert.matches("--mode vertex only", err, 1, true)
    _, err, code = H.cgwb("jacobian " .. tape .. " --points " .. H.tmp(".missing"))
    assert.are.equal(2, code)
    assert.matches("cannot open", err, 1, true)
  end)
end)

-- {==== cgwb codegen --jacobian ====}

-- Compiles the generated file with a driver reading points from stdin (n
-- numbers each) and printing, per point, the value of NAME_jac_checked, then
-- y and J; returns the output's numbers per point as {checked=, y=, J=}.
local function compiled(code_path, name, n, m, points)
  local drv = H.write(H.tmp(".c"), ([[
#include <stdio.h>
int NAME_jac_checked(const double *x, double *y, double *J);
void NAME_jac(const double *x, double *y, double *J);
extern const int NAME_jac_nnz, NAME_jac_rows[], NAME_jac_cols[];
static double x[N + 1], y[M + 1], J[NNZ + 1];
int main(void) {
  for (;;) {
    int i, c;
    for (i = 0; i < N; i++) if (scanf("%lf", &x[i]) != 1) return 0;
    for (i = 0; i < NAME_jac_nnz; i++) J[i] = -7.0;
    c = NAME_jac_checked(x, y, J);
    printf("%d\n", c);
    for (i = 0; i < M; i++) printf("%.17g\n", y[i]);
    for (i = 0; i < NAME_jac_nnz; i++) printf("%d %d %.17g\n", NAME_jac_rows[i], NAME_jac_cols[i], J[i]);
  }
}
]]):gsub("NAME", name):gsub("NNZ", "4000000"):gsub("N", tostring(n)):gsub("M", tostring(m)))
  local exe = H.tmp(".exe")
  assert(os.execute(("gcc -std=c99 -O2 -Wall -Wextra -Werror %s %s -lm -o %s"):format(code_path, drv, exe)))
  local lines = {}
  for i, x in ipairs(points) do
    local s = {}
    for j, v in ipairs(x) do s[j] = ("%.17g"):format(v) end
    lines[i] = table.concat(s, " ")
  end
  local pts = H.write(H.tmp(".pts"), table.concat(lines, "\n") .. "\n")
  local fh = io.popen(exe .. " < " .. pts)
  local out = fh:read("a")
  fh:close()
  local res, it = {}, out:gmatch("[^\n]+")
  for _ = 1, #points do
    local r = { checked = tonumber(it()), y = {}, J = { vals = {}, rows = {}, cols = {} } }
    for i = 1, m do r.y[i] = tonumber(it()) end
    res[#res + 1] = r
    r.lines = r.checked
  end
  return res, out
end

describe("cgwb codegen --jacobian", function()
  it("F_jac compiled with gcc -O2 -Werror == plan:at on generated tapes", function()
    for seed = 1, 8 do
      local recs, x0 = gen.random_records(seed, { n = 2 + seed % 3, m = 1 + seed % 3, len = 40, store = 8 })
      local path = H.tmp(".tap")
      assert(gen.tape(recs, x0):write(path))
      local code = H.tmp(".c")
      local _, err, rc = H.cgwb(("codegen %s --jacobian --order %s -o %s --name g%d --chunk 7")
        :format(path, seed % 2 == 0 and "forward" or "markowitz", code, seed))
      assert.are.equal(0, rc, err)
      local p = assert(cgwb.jacobian_plan(path, { order = seed % 2 == 0 and "forward" or "markowitz" }))
      local pat = p:pattern()
      local r, points = rng.new(seed), {}
      for k = 1, 5 do points[k] = near(r, x0, 0.3) end
      local _, out = compiled(code, "g" .. seed, pat.n, pat.m, points)
      local it = out:gmatch("[^\n]+")
      for k, x in ipairs(points) do
        local J, y, changes = p:at(x)
        local checked = tonumber(it())
        if J then
          assert.are.equal(0, checked)
          for i = 1, pat.m do assert.is_true(close(tonumber(it()), y[i]), "y") end
          for q = 1, J.nnz do
            local row, col, v = it():match("^(%d+) (%d+) (%S+)$")
            assert.are.equal(J.rows[q], tonumber(row))
            assert.are.equal(J.cols[q], tonumber(col))
            if not close(tonumber(v), J.vals[q]) then
              error(("seed %d point %d entry %d: %s, plan %.17g"):format(seed, k, q, v, J.vals[q]))
            end
          end
        else
          assert.are.equal(changes, checked)
          for _ = 1, pat.m + pat.nnz do it() end
        end
      end
      p:free()
    end
  end)

  it("a point across a branch: F_jac_checked > 0 and J untouched", function()
    local tape = H.write(H.tmp(".txt"), "assign_ind 1 2.0\nplus_a_d 2 1 -1.0\ngt_zero 2\n"
      .. "mult_a_d 3 1 10.0\nmult_a_a 4 1 1\ncond_assign 5 2 4 3 1.0\nassign_dep 5\n")
    local code = H.tmp(".c")
    local _, err, rc = H.cgwb(("codegen %s --jacobian -o %s --name b"):format(tape, code))
    assert.are.equal(0, rc, err)
    local _, out = compiled(code, "b", 1, 1, { { 3 }, { 0.5 } })
    assert.are.equal("0\n9\n1 1 6\n2\n5\n1 1 -7\n", out) -- 0.5 takes the other branch: 10 x
  end)

  it("usage: --name must be a C identifier; no --parallel", function()
    local _, err, rc = H.cgwb("codegen examples/tapes/cavity.tap --jacobian --name 1x -o " .. H.tmp(".c"))
    assert.are.equal(2, rc)
    assert.matches("not a C identifier", err, 1, true)
    _, err, rc = H.cgwb("codegen examples/tapes/cavity.tap --jacobian --parallel -o " .. H.tmp(".c"))
    assert.are.equal(2, rc)
    assert.matches("straight-line code", err, 1, true)
  end)
end)
