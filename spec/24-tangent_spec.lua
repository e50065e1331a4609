-- spec/24-tangent_spec.lua: preaccumulated tangent code (doc/tangent-code.md).
-- The generated C is compiled (cc -std=c99 -Wall -Wextra -Werror -pedantic)
-- and run by a driver generated here, once per input direction with a unit
-- tangent; the primal results must equal the interpreter's (k:run) bit for
-- bit and the tangents the interpreter's tangent mode (k:jacobian) to
-- 1e-12 relative, with an absolute floor of 1e-12 for entries of magnitude
-- below 1 (the two sum the same products in different orders); an entry the
-- interpreter gives as NaN is skipped (close_enough says why).  A function
-- returning a double is checked through a wrapper kernel that stores its
-- result through a pointer (so F_d is also called as a callee, with the
-- address of its result's tangent).  Then the costs by hand, the orderings,
-- and what is refused.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local tangent = require "cgwb.tangent"
local kgen = require "kgen"
local rng = require "rng"
local T = require "tdriver" -- the driver helpers spec 24 and 29 share
local lit, param_decl, subject, num = T.lit, T.param_decl, T.subject, T.num
local close_enough, any_call, CC = T.close_enough, T.any_call, T.CC


local TC = require "tcheck" -- the driver: cases compiled together, checked against the interpreter
local run_cases, make_case, check = TC.run_cases, TC.make_case, TC.check


local K = "examples/kernels/"

describe("the generated code", function()
  it("is Utke Fig. 1's graph: partials, two products, the dependent's tangent", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig1.c"))
    local code = assert(tangent.emit(k, "fig1"))
    assert.truthy(code:find("double fig1_d(double x, double xd, double z, double zd, double *fig1_ret_d)", 1, true))
    -- the unary minus is a -1 edge: its product is a negation, no multiplication
    assert.truthy(code:find("cg_w3_5 = -cg_w4_5;", 1, true))
    -- `return y;` is the graph's dependent: the result's tangent is its row, the
    -- value returned after the graph
    assert.truthy(code:find("*fig1_ret_d = cg_w1_5 * cg_d1 + cg_w2_5 * cg_d2;", 1, true))
    assert.truthy(code:find("cg_rval = cg_v5;\n.-}\n  return cg_rval;\n}"))
    local path = H.write(H.tmp(".c"), code)
    assert.is_true(os.execute(CC .. " -c -o " .. path .. ".o " .. path) == true)
    os.remove(path); os.remove(path .. ".o")
  end)

  it("gives the interpreter's results on every example kernel, separate and aliased", function()
    local r = rng.new(24)
    local p = io.popen("ls " .. K .. "*.c")
    local cases = {}
    for path in p:lines() do
      local text = H.read(path)
      local k = assert(cgwb.read_kernel(text, path))
      for _, f in ipairs(k:functions()) do
        for _, shared in ipairs { false, true } do
          cases[#cases + 1] = make_case(text, path, f.name, any_call(k, f.name, r, shared))
        end
      end
    end
    p:close()
    assert.is_true(#cases >= 24)
    check(cases)
    -- and each file as emitted (its functions external), warning-free on its own
    local files = {}
    for i = 1, #cases, 2 do files[#files + 1] = H.write(H.tmp(".c"), cases[i].code) end
    local log = H.tmp(".log")
    local ok = os.execute(("%s -fsyntax-only %s 2>%s"):format(CC, table.concat(files, " "), log))
    assert(ok, H.read(log))
    for _, f in ipairs(files) do os.remove(f) end
    os.remove(log)
  end)

  it("gives the interpreter's results on the papers' calls (Utke Fig. 2, Hovland et al. Fig. 1 aliased)", function()
    local cases = {}
    for _, f in ipairs { { "utke-fig2", "fig2" }, { "hovland-fig1-aliased", "fig1" } } do
      local k = assert(cgwb.read_kernel(K .. f[1] .. ".c"))
      local call = assert(require("cgwb.kernel").core_call(k, f[2], require("cgwb.json").decode(H.read(K .. f[1] .. ".json"))))
      for _, split in ipairs { "minimal", "statement" } do
        cases[#cases + 1] = make_case(H.read(K .. f[1] .. ".c"), f[1] .. ".c", f[2], call, { split = split })
      end
    end
    check(cases)
  end)

  it("gives the interpreter's results on random kernels with random aliasing", function()
    local r = rng.new(1524)
    local cases = {}
    for n = 1, 40 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      local call = kgen.call(r, info)
      local split = n % 4 == 0 and "statement" or "minimal"
      cases[#cases + 1] = make_case(text, "kgen" .. n .. ".c", info.name, call, { split = split })
    end
    check(cases)
  end)

  it("handles globals, addresses of scalars, local arrays passed on, do loops with continue, moving pointers", function()
    local text, call, sep = T.hand_kernel()
    check { make_case(text, "hand.c", "f", call), make_case(text, "hand.c", "f", sep),
            make_case(text, "hand.c", "f", call, { split = "statement" }) }
  end)

  it("follows a Lua split strategy (a cut before each statement calling an intrinsic)", function()
    local r = rng.new(4711)
    local cases, cuts = {}, 0
    local function split(info)
      if info.intrinsic then cuts = cuts + 1 end
      return info.intrinsic or not info.legal -- a cut wherever joining is illegal too
    end
    for n = 1, 8 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      cases[#cases + 1] = make_case(text, "kgen" .. n .. ".c", info.name, kgen.call(r, info), { split = split })
    end
    assert.is_true(cuts > 0)
    check(cases)
  end)

  it("with prune, the columns of the independents asked for are the interpreter's, the others 0", function()
    -- Hovland et al. Fig. 1 with restrict pointers, independent x only:
    -- statement 2 (*b = sin(y) * y * y) is inactive, pruned, its tangent 0
    local text = H.read(K .. "hovland-fig1-restrict.c")
    local k = assert(cgwb.read_kernel(text, "h.c"))
    local res = assert(core.kernel_flatten(k, "fig1", { prune = true, independents = { "x" } }))
    assert.equal(1, res.pruned)
    local call = { arrays = { { name = "a", type = "double", values = { 0.0 } },
                              { name = "b", type = "double", values = { 0.0 } },
                              { name = "f", type = "double", values = { 0.0 } } },
      args = { { double = 0.25 }, { double = 1.5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 },
               { array = 3, offset = 0 } } }
    local c = make_case(text, "h.c", "fig1", call, { prune = true, independents = { "x" } })
    local got = run_cases { c }[1]
    local x, y -- the columns of x and y
    for j, col in ipairs(c.J.cols) do
      if col.param == 1 then x = j elseif col.param == 2 then y = j end
    end
    for r = 1, 3 do
      assert.is_true(close_enough(got.T[x][r][1], c.J.values[r][x]), "row " .. r)
    end
    assert.is_true(c.J.values[3][y] ~= 0) -- the interpreter: f depends on y through b
    assert.equal(0, got.T[y][3][1])
    assert.equal(0, got.T[y][2][1])
  end)

  it("gives the same Jacobian under every vertex ordering", function()
    local r = rng.new(77)
    local cases = {}
    for n = 1, 6 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      local call = kgen.call(r, info)
      for _, order in ipairs { "markowitz", "forward", "reverse", "min-fill" } do
        cases[#cases + 1] = make_case(text, "kgen" .. n .. ".c", info.name, call, { order = order })
      end
    end
    local text = H.read(K .. "hovland-fig1-restrict.c")
    local k = assert(cgwb.read_kernel(text, "h.c"))
    for _, order in ipairs { "markowitz", "forward", "reverse", "min-fill" } do
      cases[#cases + 1] = make_case(text, "h.c", "fig1", any_call(k, "fig1", r, false), { order = order })
    end
    check(cases)
  end)
end)

--- Compiles code with main (C text) and runs it: its output lines.
local function run_main(code, main)
  local src, exe, log = H.write(H.tmp(".c"), code .. "\n#include <stdio.h>\n" .. main), H.tmp(".exe"), H.tmp(".log")
  local ok = os.execute(("%s -o %s %s -lm 2>%s"):format(CC, exe, src, log))
  assert(ok, H.read(log))
  local p = assert(io.popen(exe))
  local lines = {}
  for l in p:lines() do lines[#lines + 1] = l end
  p:close()
  os.remove(src); os.remove(exe); os.remove(log)
  return lines
end

--- main() printing, at each point {x, y}, f_d's value, its result's tangent
-- in the directions x and y, and the central differences of the value
-- (steps 1e-6 relative).
local function return_main(points)
  local out = { "int main(void) {", "  double t;" }
  for _, pt in ipairs(points) do
    local x, y = lit(pt[1]), lit(pt[2])
    out[#out + 1] = ("  { double x = %s, y = %s, hx = 1e-6 * (1 + fabs(x)), hy = 1e-6 * (1 + fabs(y)), v, dx, dy;"):format(x, y)
    out[#out + 1] = "    v = f_d(x, 1.0, y, 0.0, &dx); f_d(x, 0.0, y, 1.0, &dy);"
    out[#out + 1] = "    printf(\"%.17g %.17g %.17g %.17g %.17g\\n\", v, dx, dy,"
    out[#out + 1] = "      (f_d(x + hx, 0.0, y, 0.0, &t) - f_d(x - hx, 0.0, y, 0.0, &t)) / (2 * hx),"
    out[#out + 1] = "      (f_d(x, 0.0, y + hy, 0.0, &t) - f_d(x, 0.0, y - hy, 0.0, &t)) / (2 * hy)); }"
  end
  out[#out + 1] = "  return 0;\n}"
  return table.concat(out, "\n") .. "\n"
end

--- The printed lines as {v, dx, dy, cdx, cdy}.
local function numbers(line)
  local t = {}
  for w in line:gmatch("%S+") do t[#t + 1] = num(w) end
  return t
end

describe("a returned expression is a graph (the dependent \"return\")", function()
  it("return sin(x * y) * exp(x) / (y + x * x): the graph's partials and products, against central differences", function()
    local text = "double f(double x, double y) {\n  return sin(x * y) * exp(x) / (y + x * x);\n}\n"
    local k = assert(cgwb.read_kernel(text, "ret.c"))
    local code, report = assert(tangent.emit(k, "f"))
    -- one subgraph of nine vertices; the result's tangent is its row, no symbolic tangent
    assert.same({ mults = 9, nontrivial = 7, application = 2, tangent = 9 }, report.subgraphs[1][1])
    assert.truthy(code:find("*f_ret_d = cg_w1_9 * cg_d1 + cg_w2_9 * cg_d2;", 1, true))
    assert.is_nil(code:find("cos((x * y))", 1, true)) -- the forward-mode expression of the return is gone
    local points = { { 0.7, 1.3 }, { -0.4, 2.1 }, { 1.9, 0.2 } }
    for i, line in ipairs(run_main(code, return_main(points))) do
      local v, dx, dy, cdx, cdy = table.unpack(numbers(line))
      local x, y = points[i][1], points[i][2]
      assert.near(math.sin(x * y) * math.exp(x) / (y + x * x), v, 1e-15 * math.max(1, math.abs(v)))
      assert.near(cdx, dx, 1e-7 * math.max(1, math.abs(dx)), line)
      assert.near(cdy, dy, 1e-7 * math.max(1, math.abs(dy)), line)
    end
    -- and against the interpreter's tangent mode, through the wrapper that stores the result
    check { make_case(text, "ret.c", "f", { arrays = {}, args = { { double = 0.7 }, { double = 1.3 } } }),
            make_case(text, "ret.c", "f", { arrays = {}, args = { { double = 0.7 }, { double = 1.3 } } },
                      { split = "statement" }) }
  end)

  it("a product of 2000 factors: the file grows linearly (one line per vertex, partial and product) and compiles at once", function()
    -- factors y, x, exp(x - y), (y + 1.0) / (x + 1.0), repeated after two more y, x
    -- (the first factors are the deepest of the product, the subset nests
    -- expressions 2000 deep): at x = y = 1 the product is 1, d/dx = nx + ne - nd / 2,
    -- d/dy = ny - ne + nd / 2 (n: the factors of each kind)
    local count
    local function product(n)
      local pattern, f = { "y", "x", "exp(x - y)", "((y + 1.0) / (x + 1.0))" }, { "y", "x" }
      for i = 3, n do f[i] = pattern[(i - 3) % 4 + 1] end
      count = {}
      for _, x in ipairs(f) do count[x] = (count[x] or 0) + 1 end
      return "double f(double x, double y) {\n  return " .. table.concat(f, " * ") .. ";\n}\n"
    end
    local sizes = {}
    for _, n in ipairs { 500, 2000 } do
      local k = assert(cgwb.read_kernel(product(n), "prod.c"))
      local code = assert(tangent.emit(k, "f"))
      local longest = 0
      for l in code:gmatch("[^\n]+") do longest = math.max(longest, #l) end
      sizes[n] = #code
      -- before, the result's tangent was one symbolic expression: 18.5 MB on one line at 2000 factors
      assert.is_true(#code < 600 * n, ("%d factors: %d bytes"):format(n, #code))
      if n == 2000 then
        local t0 = os.time()
        local line = run_main(code, return_main { { 1.0, 1.0 }, { 1.0005, 0.9995 } })
        assert.is_true(os.time() - t0 < 60, "compiling and running took " .. (os.time() - t0) .. " s")
        local v, dx, dy = table.unpack(numbers(line[1]))
        assert.equal(1, v)
        local ne, nd = count["exp(x - y)"], count["((y + 1.0) / (x + 1.0))"]
        local ddx, ddy = count.x + ne - nd / 2, count.y - ne + nd / 2
        assert.near(ddx, dx, 1e-9 * ddx); assert.near(ddy, dy, 1e-9 * ddy)
        local _, dx2, dy2, cdx, cdy = table.unpack(numbers(line[2]))
        assert.near(cdx, dx2, 1e-6 * math.abs(dx2)); assert.near(cdy, dy2, 1e-6 * math.abs(dy2))
      end
      -- the declarations of the graph's locals are the one long line: linear too
      assert.is_true(longest < 200 * n, ("%d factors: a line of %d bytes"):format(n, longest))
    end
    assert.is_true(sizes[2000] < 4.5 * sizes[500], ("%d bytes for 500 factors, %d for 2000"):format(sizes[500], sizes[2000]))
  end)
end)

describe("the operation table from Lua", function()
  it("graph_ops gives the C spellings and marks; kernel_layout maps each intrinsic to its row", function()
    local ops, by = core.graph_ops(), {}
    for _, o in ipairs(ops) do by[o.name] = o end
    assert.same({ "1", "-1" }, by.sub.partials)
    assert.same({ "+1", "-1" }, by.sub.marks)
    assert.same({ "A1", "A0" }, by.mul.partials)
    assert.same({ "variable", "variable" }, by.mul.marks)
    assert.equal("(A0 * A1)", by.mul.value)
    assert.same({ "-1" }, by.neg.partials)
    local lay = core.kernel_layout()
    assert.equal("abs", ops[lay.gop.fabs].name)
    assert.equal("max", ops[lay.gop.fmax].name)
    assert.equal("atan2", ops[lay.gop.atan2].name)
    for _, name in ipairs(lay.intrinsics) do
      assert.equal(lay.arity[name], ops[lay.gop[name]].arity, name)
    end
  end)
end)

describe("costs", function()
  it("Utke Fig. 1 by hand", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig1.c"))
    local res = assert(core.kernel_flatten(k, "fig1"))
    local rep = tangent.costs(res)
    local b
    for i, blk in ipairs(res.blocks) do if #blk.subgraphs > 0 then b = i end end
    assert.equal(1, #res.blocks[b].subgraphs)
    -- Markowitz: the unary minus (1 x 1, a product by -1), then z * x (2 x 1)
    -- the report's blocks are those with active assignments (flatten.describe's): this one is 1
    assert.same({ mults = 3, nontrivial = 2, application = 2, tangent = 4 }, rep.subgraphs[1][1])
    -- statement level: a1 eliminates z * x into the minus (2 products by -1),
    -- two tangent products each; plain tangent mode: four non-unit partials
    assert.same({ elimination = 2, mults = 3, application = 2, total = 4 }, rep.cost.preaccumulation)
    assert.same({ elimination = 0, mults = 2, application = 4, total = 4 }, rep.cost.statement_level)
    assert.equal(4, rep.cost.tangent)
    local _, report = tangent.emit(k, "fig1")
    assert.same(rep.cost, report.cost)
    assert.same(rep.subgraphs, report.subgraphs)
  end)

  it("Hovland et al. Fig. 1 with locals and with restrict pointers by hand", function()
    -- statement level: cos(x): 1 partial, no intermediate, 1 application
    -- product; sin(y) * y * y: 5 partials, Markowitz eliminates sin (1 x 1,
    -- its fill y -> sin*y adds to the edge there), then sin*y (1 x 1), 1
    -- application product; exp(a * b): 3 partials, the product 2 x 1, 2
    -- application products.  Elimination 2 + 2 = 4, application 1 + 1 + 2
    -- = 4; tangent mode: 1 + 5 + 3 = 9 partials times a tangent
    for _, f in ipairs { "hovland-fig1-locals.c", "hovland-fig1-restrict.c" } do
      local k = assert(cgwb.read_kernel(K .. f))
      local rep = tangent.costs(assert(core.kernel_flatten(k, "fig1")))
      assert.equal(9, rep.cost.tangent)
      assert.same({ elimination = 4, mults = 4, application = 4, total = 8 }, rep.cost.statement_level)
    end
    -- one graph: with locals only f is a result (row f: x, y, 2 products
    -- of the application), the elimination 6; with restrict pointers *a and
    -- *b are results too (augmented: unit vertices), 2 more application
    -- products: 10 > 8 for one direction (elimination is paid once for all
    -- directions, application once per direction)
    local k = assert(cgwb.read_kernel(K .. "hovland-fig1-locals.c"))
    local rep = tangent.costs(assert(core.kernel_flatten(k, "fig1")))
    assert.same({ elimination = 6, mults = 6, application = 2, total = 8 }, rep.cost.preaccumulation)
    k = assert(cgwb.read_kernel(K .. "hovland-fig1-restrict.c"))
    rep = tangent.costs(assert(core.kernel_flatten(k, "fig1")))
    assert.same({ elimination = 6, mults = 8, application = 4, total = 10 }, rep.cost.preaccumulation)
  end)

  it("the statement level derived from a flattening is the statement strategy's preaccumulation", function()
    local r = rng.new(31)
    local ks = {}
    local p = io.popen("ls " .. K .. "*.c")
    for path in p:lines() do
      local k = assert(cgwb.read_kernel(path))
      for _, f in ipairs(k:functions()) do ks[#ks + 1] = { k, f.name } end
    end
    p:close()
    for n = 1, 30 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      ks[#ks + 1] = { assert(cgwb.read_kernel(text, "kgen.c")), info.name }
    end
    for _, kf in ipairs(ks) do
      local k, f = kf[1], kf[2]
      local minimal = tangent.costs(assert(core.kernel_flatten(k, f)))
      local statement = tangent.costs(assert(core.kernel_flatten(k, f, { strategy = "statement" })))
      assert.same(statement.cost.preaccumulation, minimal.cost.statement_level, f)
      assert.same(statement.cost.statement_level, statement.cost.preaccumulation, f)
      assert.equal(statement.cost.tangent, minimal.cost.tangent, f)
    end
  end)

  it("tangent.costs counts what the emitted code does, per subgraph, under cached and uncached orderings", function()
    -- tangent.costs replays each elimination on integer keys and reuses the
    -- costs of graphs of the same shape; emit counts the products it writes
    local r = rng.new(1931)
    local ks = {}
    local p = io.popen("ls " .. K .. "*.c")
    for path in p:lines() do
      local k = assert(cgwb.read_kernel(path))
      for _, f in ipairs(k:functions()) do ks[#ks + 1] = { k, f.name } end
    end
    p:close()
    for n = 1, 25 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      ks[#ks + 1] = { assert(cgwb.read_kernel(text, "kgen.c")), info.name }
    end
    p = io.popen("lua5.4 scripts/kbench-flat.lua 400 3") -- many subgraphs of repeated shapes
    ks[#ks + 1] = { assert(cgwb.read_kernel(p:read("a"), "big.c")), "f" }
    p:close()
    local compared = 0
    for _, kf in ipairs(ks) do
      for _, order in ipairs { "markowitz", "min-fill,forward", "random" } do
        local _, report = tangent.emit(kf[1], kf[2], { order = order, seed = 5 })
        if report then
          local rep = tangent.costs(assert(core.kernel_flatten(kf[1], kf[2])), { order = order, seed = 5 })
          assert.same(report.subgraphs, rep.subgraphs, kf[2] .. " " .. order)
          for _, blk in ipairs(rep.subgraphs) do compared = compared + #blk end
        end
      end
    end
    assert.is_true(compared > 500, "subgraphs compared: " .. compared)
  end)

  it("preaccumulation is no dearer than statement level on the examples that flatten to one graph", function()
    for _, f in ipairs { { "utke-fig1.c", "fig1" }, { "hovland-fig1-locals.c", "fig1" },
                         { "hovland-sec5.c", "sec5" }, { "stencil1d.c", "heat" } } do
      local k = assert(cgwb.read_kernel(K .. f[1]))
      local rep = tangent.costs(assert(core.kernel_flatten(k, f[2])))
      assert.is_true(rep.cost.preaccumulation.total <= rep.cost.statement_level.total, f[1])
    end
  end)
end)

describe("refusals", function()
  it("an edge ordering or mode is refused with the reason", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig1.c"))
    local code, err = tangent.emit(k, "fig1", { order = "markowitz,front" })
    assert.is_nil(code)
    assert.matches("'front' belongs to edge elimination; tangent code preaccumulates by vertex elimination", err)
    code, err = tangent.emit(k, "fig1", { mode = "edge" })
    assert.is_nil(code)
    assert.matches("the edge mode is not available", err)
    code, err = tangent.emit(k, "fig1", { order = "fastest" })
    assert.is_nil(code)
    assert.matches("unknown ordering 'fastest'", err)
  end)

  it("a Lua split that would join an illegal run is nil, message with the reason", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    local code, err = tangent.emit(k, "fig2", { split = function() return false end })
    assert.is_nil(code)
    assert.matches("which would change the results", err)
  end)

  it("an unknown function or split is nil, message", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig1.c"))
    local code, err = tangent.emit(k, "nope")
    assert.is_nil(code)
    assert.matches("no function 'nope'", err)
    code, err = tangent.emit(k, "fig1", { split = "best" })
    assert.is_nil(code)
    assert.matches("'best' is not a split strategy", err)
  end)
end)
