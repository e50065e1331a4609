-- spec/25-flatpoint_spec.lua: flattened subgraphs at a point the kernel
-- interpreter reaches, and as linearized graphs (doc/flattening.md, "Values
-- at a point and linearized graphs"): res.values(call [, {instance = n}])
-- against hand values on the papers' examples; on random kernels with
-- random aliasing, every subgraph that ran, built at its point, evaluates to
-- the values the interpreter wrote at its dependents' statements, bit for
-- bit; the LinGraph of a one-subgraph kernel has the interpreter's tangent
-- Jacobian; the split collapsed vertex of Utke, Flattening, Fig. 6c and the
-- augmented vertex of sec. 6.2 are vertices of their own with unit edges.
local H = require "spec.helper"
local core = require "cgwb.core"
local kparse = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"

local K = "examples/kernels/"

local function load_file(path)
  return assert(core.kernel_load(assert(kparse.read(path))))
end
local function load_text(text, name)
  return assert(core.kernel_load(assert(kparse.parse(text, name or "hand.c"))))
end
local function first_active(res)
  for i, b in ipairs(res.blocks) do if #b.lines > 0 then return i end end
end

--- The Jacobian of a LinGraph as a dense table (rows of columns).
local function lin_jacobian(lg)
  lg:eliminate("markowitz")
  local J = assert(lg:jacobian())
  local D = {}
  for i = 1, J.m do D[i] = {} for j = 1, J.n do D[i][j] = 0 end end
  for i = 1, J.nnz do D[J.rows[i]][J.cols[i]] = D[J.rows[i]][J.cols[i]] + J.vals[i] end
  return D
end

local function same_bits(a, b)
  if a ~= a or b ~= b then return a ~= a and b ~= b end
  return a == b and (a ~= 0 or 1 / a == 1 / b)
end

describe("values at a point on the papers' examples", function()
  it("Utke Fig. 1 at x = 3, z = 0.5: z and x read at the start, y = -(z x)/x written", function()
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig1.c"), "fig1"))
    local bi = first_active(res)
    local pts = assert(res.values({args = {{double = 3}, {double = 0.5}}}))
    local p = pts[bi][1]
    assert.same({0.5, 3}, p.indep) -- vertex order: z, x
    assert.same({}, p.passive)
    assert.same({-0.5}, p.dependents)
    assert.equal(1, p.count)
    assert.equal(-0.5, assert(res.graph(bi, 1, p.indep, p.passive)):eval()[1])
  end)

  it("Utke Fig. 2: the second subgraph reads *z after a1 wrote it (k = 0) or a cell of its own", function()
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2"))
    local bi = first_active(res)
    local function at(k, cells)
      return assert(res.values({arrays = {{name = "Z", values = cells}},
        args = {{double = 0.5}, {array = 1, offset = 0}, {int = k}}}))[bi]
    end
    local p = at(0, {3, 4})
    assert.same({3, 0.5}, p[1].indep) -- z[0], x
    assert.same({-1.5}, p[1].dependents)
    assert.same({-1.5, 0.5}, p[2].indep) -- z[k] = z[0], a1's value; x
    assert.same({-3}, p[2].dependents)
    p = at(1, {3, 4})
    assert.same({4, 0.5}, p[2].indep)
    assert.same({8}, p[2].dependents)
  end)

  it("Hovland et al. Fig. 1 aliased with a == b: statement 3 reads statement 2's value twice", function()
    local res = assert(core.kernel_flatten(load_file(K .. "hovland-fig1-aliased.c"), "fig1"))
    local bi = first_active(res)
    local x, y = 0.3, 0.7
    local a, b = math.cos(x), math.sin(y) * y * y
    local function bound(oa, ob, of)
      return {arrays = {{name = "M", values = {0, 0, 0}}},
        args = {{double = x}, {double = y}, {array = 1, offset = oa}, {array = 1, offset = ob},
                {array = 1, offset = of}}}
    end
    local p = assert(res.values(bound(0, 0, 2)))[bi]
    assert.same({x, y}, p[1].indep)
    assert.same({a, b}, p[1].dependents) -- *a, then *b over it
    assert.same({b, b}, p[2].indep)      -- *a and *b: may-aliased, two vertices, one cell
    assert.same({math.exp(b * b)}, p[2].dependents)
    p = assert(res.values(bound(0, 1, 2)))[bi]
    assert.same({a, b}, p[2].indep)
    assert.same({math.exp(a * b)}, p[2].dependents)
  end)

  it("Hovland et al. Fig. 1 with locals: one subgraph, x and y, f = exp(cos(x) sin(y) y y)", function()
    local res = assert(core.kernel_flatten(load_file(K .. "hovland-fig1-locals.c"), "fig1"))
    local bi = first_active(res)
    local x, y = 0.3, 0.7
    local p = assert(res.values({args = {{double = x}, {double = y}}}))[bi][1]
    assert.same({x, y}, p.indep)
    assert.same({math.exp(math.cos(x) * (math.sin(y) * y * y))}, p.dependents)
  end)

  it("Hovland et al. Fig. 1 with restrict pointers: one subgraph, *a and *b written and read inside", function()
    local res = assert(core.kernel_flatten(load_file(K .. "hovland-fig1-restrict.c"), "fig1"))
    local bi = first_active(res)
    local x, y = 0.3, 0.7
    local a, b = math.cos(x), math.sin(y) * y * y
    local p = assert(res.values({arrays = {{name = "A", values = {0}}, {name = "B", values = {0}},
      {name = "F", values = {0}}}, args = {{double = x}, {double = y}, {array = 1}, {array = 2}, {array = 3}}}))[bi]
    assert.equal(1, #res.blocks[bi].subgraphs)
    assert.same({x, y}, p[1].indep)
    assert.same({a, b, math.exp(a * b)}, p[1].dependents)
    local lg, map = assert(res.lingraph(bi, 1, p[1].indep, p[1].passive))
    -- *a and *b feed the product: augmented, each a copy of its own with a unit edge
    for d = 1, 2 do
      local pred = lg:preds(map.dependent[d])
      assert.equal(1, #pred)
      assert.same({1, "+1"}, {lg:weight(pred[1], map.dependent[d])})
    end
    local J = lin_jacobian(lg) -- (eliminates lg)
    assert.equal(-math.sin(x), J[1][1])
    assert.near(math.exp(a * b) * b * -math.sin(x), J[3][1], 1e-15)
  end)

  it("a loop body's subgraph: the n-th run's values, and its count", function()
    local k = load_text([[
void scale(double *a, double x, int n) {
  int i;
  for (i = 0; i < n; i++) {
    a[i] = a[i] * x + (double)i;
  }
}
]])
    local res = assert(core.kernel_flatten(k, "scale"))
    local bi = first_active(res)
    local call = {arrays = {{name = "A", values = {1, 2, 3}}}, args = {{array = 1, offset = 0}, {double = 10}, {int = 3}}}
    local p1 = assert(res.values(call))[bi][1]
    assert.same({1, 10}, p1.indep)
    assert.same({0}, p1.passive) -- (double)i
    assert.same({10}, p1.dependents)
    assert.equal(3, p1.count)
    local p3 = assert(res.values(call, {instance = 3}))[bi][1]
    assert.same({3, 10}, p3.indep)
    assert.same({2}, p3.passive)
    assert.same({32}, p3.dependents)
    assert.equal(32, assert(res.graph(bi, 1, p3.indep, p3.passive)):eval()[1])
    -- a run that never happened: no entry
    assert.is_nil(assert(res.values(call, {instance = 4}))[bi][1])
  end)

  it("an independent only an untaken ?: side reads is NaN; the values do not depend on it", function()
    local k = load_text([[
double pick(double *a, double x, int i, int n) {
  double y;
  y = i < n ? a[i] * x : x;
  return y;
}
]])
    local res = assert(core.kernel_flatten(k, "pick"))
    local bi = first_active(res)
    local p = assert(res.values({arrays = {{name = "A", values = {5}}},
      args = {{array = 1, offset = 0}, {double = 2}, {int = 1}, {int = 1}}}))[bi][1]
    local g = res.blocks[bi].subgraphs[1]
    local nan = 0
    for _, v in ipairs(p.indep) do if v ~= v then nan = nan + 1 end end
    assert.equal(1, nan) -- a[1] is outside A: the interpreter never reads it
    assert.same({2}, p.dependents)
    assert.equal(2, assert(res.graph(bi, 1, p.indep, p.passive)):eval()[1])
    local lg = assert(res.lingraph(bi, 1, p.indep, p.passive))
    local J = lin_jacobian(lg)
    for j, v in ipairs(g.independents) do
      local want = g.vertices[v].text == "x" and 1 or 0
      assert.equal(want, J[1][j])
    end
  end)
end)

describe("errors", function()
  local k, res
  before_each(function()
    k = load_file(K .. "utke-fig1.c")
    res = assert(core.kernel_flatten(k, "fig1"))
  end)

  it("an interpreter error is nil and its message", function()
    local pts, msg = res.values({args = {{double = 1}}})
    assert.is_nil(pts)
    assert.matches("utke%-fig1.c: call of fig1: 1 arguments for 2 parameters", msg)
    local k2 = load_text("double f(double *a) {\n  double y;\n  y = a[0] * 2.0;\n  return y;\n}\n")
    local r2 = assert(core.kernel_flatten(k2, "f"))
    pts, msg = r2.values({arrays = {{values = {1}, init = {false}}}, args = {{array = 1}}})
    assert.is_nil(pts)
    assert.matches("hand.c:3:%d+: read of uninitialized", msg)
  end)

  it("bad arguments raise", function()
    assert.error_matches(function() res.values({args = {{double = 1}, {double = 2}}}, {instance = 0}) end,
      "instance must be >= 1")
    assert.error_matches(function() res.values(5) end, "table expected")
    local bi = first_active(res)
    assert.error_matches(function() res.lingraph(bi, 2, {1, 2}) end, "subgraph id out of range")
    assert.error_matches(function() res.lingraph(bi, 1, {1}) end, "1 values for 2 independents")
    assert.error_matches(function() res.lingraph(bi, 1, {1, 2}, {7}) end,
      "1 passive values for 0 passive arguments")
  end)

  it("after k:free() values and lingraph raise instead of reading freed rows", function()
    local bi = first_active(res)
    k:free()
    assert.error_matches(function() res.values({args = {{double = 1}, {double = 2}}}) end, "Kernel was freed")
    assert.error_matches(function() res.lingraph(bi, 1, {1, 2}) end, "Kernel was freed")
  end)
end)

describe("Fig. 6c and augmented vertices in the built graph", function()
  it("y = x; r[0] = y * y; return y: the collapsed vertex split in two with a unit edge", function()
    local k = load_text([[
double f(double x, double *r) {
  double y;
  y = x;
  r[0] = y * y;
  return y;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    local bi = first_active(res)
    local g = res.blocks[bi].subgraphs[1]
    assert.same({3, 4, 5}, g.lines) -- the return: an assignment to the dependent "return"
    assert.equal(2, #g.vertices) -- x and the product: y, and the returned value, are x's vertex
    local dy = g.dependents[2] -- statement order: r[0], then the return
    assert.equal("return", dy.text)
    assert.is_true(dy.collapsed)
    local x = 1.5
    local lg, map = assert(res.lingraph(bi, 1, {x}))
    local vx, vy = map.vertex[1], map.dependent[2]
    assert.is_not_nil(vx)
    assert.are_not.equal(vx, vy) -- two vertices: the independent x and the dependent return
    assert.equal("dependent", lg:kind(vy))
    assert.equal("independent", lg:kind(vx))
    assert.same({vx}, lg:preds(vy))
    local w, mark = lg:weight(vx, vy)
    assert.equal(1, w); assert.equal("+1", mark)
    assert.same({vx}, lg:x())
    assert.same({map.dependent[1], vy}, lg:y())
    assert.equal(map.vertex[2], map.dependent[1]) -- r[0]: the product itself, maximal
    assert.same({{2 * x}, {1}}, lin_jacobian(lg))
    -- the plain graph has the copy node too: x, the product, the copy
    assert.equal(3, assert(res.graph(bi, 1, {x})):n())
    -- at a point the interpreter reaches, the return's value is recorded before it runs
    local p = assert(res.values({args = {{double = x}, {array = 1, offset = 0}},
                                 arrays = {{name = "R", type = "double", values = {0}}}}))
    assert.same({x * x, x}, p[bi][1].dependents)
  end)

  it("y = x * x; r[0] = y * 2.0; return y: the augmented dependent gets a unit edge", function()
    local k = load_text([[
double f(double x, double *r) {
  double y;
  y = x * x;
  r[0] = y * 2.0;
  return y;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    local bi = first_active(res)
    local g = res.blocks[bi].subgraphs[1]
    assert.equal(3, #g.vertices) -- x, x * x, y * 2.0: the augmented vertex is not one of them
    assert.is_false(g.dependents[1].augmented) -- r[0]
    assert.is_true(g.dependents[2].augmented) -- the return of x * x, which feeds y * 2.0
    local x = 1.5
    local lg, map = assert(res.lingraph(bi, 1, {x}))
    local vsq, vy = map.vertex[2], map.dependent[2]
    assert.are_not.equal(vsq, vy)
    assert.same({vsq}, lg:preds(vy))
    assert.same({1, "+1"}, {lg:weight(vsq, vy)})
    assert.is_not_nil(lg:weight(vsq, map.vertex[3])) -- the product still feeds r[0]
    assert.equal(map.vertex[3], map.dependent[1])
    assert.same({{4 * x}, {2 * x}}, lin_jacobian(lg))
    local G = assert(res.graph(bi, 1, {x}))
    assert.same({x * x * 2.0, x * x}, G:eval())
    assert.is_true(G:flags(G:dependents()[2]).dependent)
    assert.same({"copy"}, G:chain(G:dependents()[2])) -- the augmented vertex: a copy node
  end)
end)

-- {==== properties on random kernels ====}

--- Every subgraph that ran at the instance-th run, built at its point
-- (passive values as an array), evaluates to the dependents' values the
-- interpreter wrote; returns the number checked and the first mismatch.
local function check_points(res, call, instance, text)
  local pts, msg = res.values(call, {instance = instance})
  if not pts then return 0, nil, msg end
  local n, first = 0, nil
  for bi, b in ipairs(res.blocks) do
    for si in ipairs(b.subgraphs) do
      local p = pts[bi][si]
      if p then
        local G = assert(res.graph(bi, si, p.indep, p.passive))
        local y = G:eval()
        n = n + 1
        for d = 1, #p.dependents do
          if not same_bits(y[d], p.dependents[d]) and not first then
            first = ("%s block %d sub %d dependent %d (run %d): graph %.17g, interpreter %.17g\n%s"):format(
              res.strategy, bi, si, d, instance, y[d], p.dependents[d], text)
          end
        end
      end
    end
  end
  return n, first, pts
end

describe("properties on random kernels", function()
  it("each subgraph that ran, built at its point, gives the interpreter's values bit for bit", function()
    local r = rng.new(2525)
    local n, later, first = 0, 0, nil
    for _ = 1, 50 do
      local text, info = kgen.kernel(r, {stmts = 12})
      local k = load_text(text, "gen.c")
      for _, strategy in ipairs {"minimal", "statement"} do
        local res = assert(core.kernel_flatten(k, info.name, {strategy = strategy}))
        for _ = 1, 3 do
          local call = kgen.call(r, info)
          local m, bad, pts = check_points(res, call, 1, text)
          n, first = n + m, first or bad
          if m > 0 then -- the last run of each subgraph that ran more than once
            local most = 1
            for bi in ipairs(res.blocks) do
              for _, p in pairs(pts[bi]) do most = math.max(most, p.count) end
            end
            if most > 1 then
              m, bad = check_points(res, call, most, text)
              later, first = later + m, first or bad
            end
          end
        end
      end
    end
    assert.is_nil(first, first)
    assert.is_true(n > 2000, "too few subgraphs: " .. n)
    assert.is_true(later > 300, "too few later runs: " .. later)
  end)

  --- Per by-value parameter (1-based) its object in the trace: the binds
  -- of the call (writes without a statement) in parameter order, pointers
  -- having none.
  local function param_objects(info, trace)
    local objs, n = {}, 0
    for i, prm in ipairs(info.params) do
      if not prm.type:find("%*") then
        repeat n = n + 1 until trace[n].write and not trace[n].stmt
        objs[i] = trace[n].object
      end
    end
    return objs
  end

  it("a kernel that is one subgraph: the LinGraph's Jacobian is the interpreter's, to 1e-12", function()
    local r = rng.new(1212)
    local checked, entries, nonzero, first = 0, 0, 0, nil
    local function note(msg) first = first or msg end
    for _ = 1, 300 do -- restrict pointers: fewer may-aliased cells, more one-subgraph kernels
      local text, info = kgen.kernel(r, {stmts = 6, loops = false, ifs = false, calls = false, restrict = 0.8})
      local flat = kparse.parse(text, "gen.c") -- nil for kgen's "- -0.5" printed as "--0.5"
      local k = flat and assert(core.kernel_load(flat))
      local res = k and assert(core.kernel_flatten(k, info.name))
      local blocks = {}
      for bi, b in ipairs(res and res.blocks or {}) do if #b.lines > 0 then blocks[#blocks + 1] = bi end end
      if #blocks == 1 and res.blocks[blocks[1]].n_subgraphs == 1 then
        local bi = blocks[1]
        local g = res.blocks[bi].subgraphs[1]
        local call = kgen.call(r, info)
        local run = k:run(info.name, call, {trace = true})
        local pts = run and assert(res.values(call))
        local KJ = run and assert(k:jacobian(info.name, call))
        if run and pts[bi][1] then
          local p = pts[bi][1]
          local lg, map = assert(res.lingraph(bi, 1, p.indep, p.passive))
          assert.same(lg:y(), map.dependent)
          local xs, nind = lg:x(), 0
          for _, v in ipairs(g.independents) do nind = nind + 1; assert.equal(xs[nind], map.vertex[v]) end
          local LJ = lin_jacobian(lg)
          -- each independent's cell (object:cell) from the trace, unless a
          -- statement wrote it before (then it is no column of k:jacobian)
          local cell_of, written, last_writer = {}, {}, {}
          local expr_vertex, col_of_indep = {}, {}
          for j, v in ipairs(g.independents) do col_of_indep[v] = j end
          for _, rd in ipairs(g.reads) do
            if not rd.def and col_of_indep[rd.vertex] then expr_vertex[rd.expr] = rd.vertex end
          end
          for _, t in ipairs(run.trace) do
            local c = t.object .. ":" .. t.cell
            if t.write then
              if t.stmt then written[c] = true; last_writer[c] = t.stmt end
            elseif t.expr and expr_vertex[t.expr] and not cell_of[expr_vertex[t.expr]] and not written[c] then
              cell_of[expr_vertex[t.expr]] = c
            end
          end
          local pobj = param_objects(info, run.trace)
          local function col_cell(col)
            if col.array then return col.array .. ":" .. col.cell end
            return pobj[col.param] .. ":0"
          end
          local dep_of_stmt = {}
          for d, dep in ipairs(g.dependents) do dep_of_stmt[dep.stmt] = d end
          for ri, row in ipairs(KJ.rows) do
            local c = row.array .. ":" .. row.cell
            local d = last_writer[c] and dep_of_stmt[last_writer[c]]
            if d then
              checked = checked + 1
              for ci, col in ipairs(KJ.cols) do
                local want, cc = 0, col_cell(col)
                for v, j in pairs(col_of_indep) do
                  if cell_of[v] == cc then want = want + LJ[d][j] end
                end
                local got = KJ.values[ri][ci]
                entries = entries + 1
                if want ~= 0 then nonzero = nonzero + 1 end
                if math.abs(got - want) > 1e-12 * math.max(math.abs(got), math.abs(want)) then
                  note(("row %s col %s: interpreter %.17g, LinGraph %.17g\n%s"):format(c, cc, got, want, text))
                end
              end
            end
          end
        end
      end
      if k then k:free() end
    end
    assert.is_nil(first, first)
    assert.is_true(checked > 40, "too few rows: " .. checked)
    assert.is_true(entries > 200, "too few entries: " .. entries)
    assert.is_true(nonzero > 80, "too few nonzero entries: " .. nonzero)
  end)
end)
