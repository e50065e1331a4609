-- spec/51-rank3_spec.lua: arrays of rank 3 (doc/kernel-language.md;
-- doc/kernel-ir.md: DIM2 and the third subscript C of ELEM and ADDR), on kernels in the style of PolyBench/C's heat-3d and doitgen and
-- on one that passes planes and rows to callees: the interpreter leaves the
-- compiled kernel's cells bit for bit; the canonical form, the tangent code
-- (scalar and vector mode) and the adjoint code compile with -Werror
-- -pedantic; the tangent code gives the interpreter's Jacobian
-- (spec/tcheck.lua; vector mode: a dozen columns in one call), which agrees
-- with central differences; the adjoint
-- passes the dot-product test (spec/adcheck.lua); the alias analysis tells
-- planes, rows and cells apart as it tells rows apart for rank 2 (spec/20),
-- and its chains and relations hold on traced runs (spec/ktrace.lua);
-- XAIF writes the three subscripts and reads them back; and bad input is
-- refused with file:line:col: rank 4, a plane where a callee wants rows of
-- another length, a subscript outside its dim at run time.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local kparse = require "cgwb.kparse"
local tangent = require "cgwb.tangent"
local adjoint = require "cgwb.adjoint"
local rng = require "rng"
local TC = require "tcheck"
local AC = require "adcheck"

-- {==== the kernels ====}

local HEAT = [[
#define N 5

void kernel_heat_3d(int tsteps, int n, double A[N][N][N], double B[N][N][N]) {
  int t, i, j, k;
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
}
]]

local DOITGEN = [[
#define NR 3
#define NQ 2
#define NP 4

void kernel_doitgen(int nr, int nq, int np, double A[NR][NQ][NP], double C4[NP][NP], double sum[NP]) {
  int r, q, p, s;
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}
]]

-- planes and rows passed to callees, an open first dim, a 3-D global with
-- a nested initializer, a 3-D local, a cell's address and a row's pointer
local PLANES = [[
#include <math.h>
#define NQ 3
#define NP 4

static const double W[2][NQ][NP] = {{{0.5, 1.5, 2.0}, {0.25}}, {{1.0, -1.0}, {2.0, 0.5, 0.125, 3.0}}};

static void scale_row(int np, double r[], double s) {
  int p;
  for (p = 0; p < np; p++) r[p] = r[p] * s;
}

static void smooth_plane(int nq, int np, double P[][NP]) {
  int q, p;
  for (q = 1; q < nq; q++)
    for (p = 0; p < np; p++) P[q][p] = 0.5 * (P[q][p] + P[q - 1][p]);
}

static void mix(int nr, double X[][NQ][NP], double Y[][NQ][NP]) {
  int r, q, p;
  for (r = 0; r < nr; r++)
    for (q = 0; q < NQ; q++)
      for (p = 0; p < NP; p++) Y[r][q][p] = Y[r][q][p] + sin(X[r][q][p]) * W[r % 2][q][p];
}

void planes(int nr, double A[][NQ][NP], double B[][NQ][NP], double *out) {
  double T[2][NQ][NP] = {{{1.0, 2.0}, {3.0}}, {{4.0}}};
  double *row;
  int r, q;
  for (r = 0; r < 2; r++)
    for (q = 0; q < NQ; q++) T[r][q][NP - 1] = A[r][q][0] * A[r][q][1];
  smooth_plane(NQ, NP, A[1]);
  smooth_plane(NQ, NP, T[0]);
  scale_row(NP, B[0][2], 1.5);
  scale_row(NP, T[1][1], -0.5);
  mix(nr, A, B);
  mix(2, T, B);
  row = A[nr - 1][1];
  out[0] = *(row + 2) + *(A[0][2] + 1) * T[1][2][3];
  scale_row(1, &A[0][0][3], out[0]);
}
]]

local CASES = {
  { name = "heat.c", text = HEAT, fname = "kernel_heat_3d", ints = { 2, 5 }, arrays = { 125, 125 } },
  { name = "doitgen.c", text = DOITGEN, fname = "kernel_doitgen", ints = { 3, 2, 4 }, arrays = { 24, 16, 4 } },
  { name = "planes.c", text = PLANES, fname = "planes", ints = { 2 }, arrays = { 24, 24, 1 } },
}

-- The call of case c (core form): ints in order, then one array per
-- pointer parameter, filled from r.
local function call_of(c, r)
  local arrays, args = {}, {}
  for i, v in ipairs(c.ints) do args[i] = { int = v } end
  for j, n in ipairs(c.arrays) do
    local v = {}
    for i = 1, n do v[i] = r:float(0.2, 1.2) end
    arrays[j] = { name = "A" .. j, type = "double", values = v }
    args[#args + 1] = { array = j, offset = 0 }
  end
  return { arrays = arrays, args = args }
end

-- }====

-- {==== the compiled kernel ====}

-- The text of C source text compiled with flags; nil, the log when it does not.
local function compiles(text, flags)
  local src, log = H.write(H.tmp(".c"), text), H.tmp(".log")
  local ok = os.execute(("cc -std=c99 -Wall -Wextra -Werror -pedantic %s -c -o /dev/null %s 2>%s")
    :format(flags or "", src, log))
  local msg = H.read(log)
  os.remove(src); os.remove(log)
  return ok, msg
end

-- The cells the compiled kernel leaves, one "a i %a" line each.
local function compiled_cells(c, call)
  local out = { "#include <math.h>", "#include <stdio.h>", c.text, "int main(void) {" }
  local args = {}
  for a, arr in ipairs(call.arrays) do
    local vals = {}
    for i, v in ipairs(arr.values) do vals[i] = ("%a"):format(v) end
    out[#out + 1] = ("  static double X%d[%d] = {%s};"):format(a, #vals, table.concat(vals, ", "))
  end
  for i, g in ipairs(call.args) do
    args[i] = g.array and ("(void *)X%d"):format(g.array) or ("%d"):format(g.int)
  end
  out[#out + 1] = ("  %s(%s);"):format(c.fname, table.concat(args, ", "))
  for a, arr in ipairs(call.arrays) do
    out[#out + 1] = ('  for (int i = 0; i < %d; i++) printf("%d %%d %%a\\n", i, X%d[i]);'):format(#arr.values, a, a)
  end
  out[#out + 1] = "  return 0;\n}\n"
  local src, exe = H.write(H.tmp(".c"), table.concat(out, "\n")), H.tmp(".exe")
  assert(os.execute(("cc -std=c99 -O2 -ffp-contract=off -Wall -Wextra -Werror -o %s %s -lm"):format(exe, src)),
    "the driver does not compile: " .. src)
  local p = io.popen(exe)
  local text = p:read("a")
  p:close()
  os.remove(src); os.remove(exe)
  return text
end

local function interpreted_cells(k, c, call)
  local r = assert(k:run(c.fname, call))
  local out = {}
  for a, arr in ipairs(r.arrays) do
    for i, v in ipairs(arr.values) do out[#out + 1] = ("%d %d %a"):format(a, i - 1, v) end
  end
  return table.concat(out, "\n") .. "\n"
end

-- }====

describe("rank-3 arrays: the interpreter and the canonical form", function()
  for n, c in ipairs(CASES) do
    it(c.name .. ": the interpreter leaves the compiled kernel's cells bit for bit", function()
      local k = assert(cgwb.read_kernel(c.text, c.name))
      local call = call_of(c, rng.new(51 + n))
      assert.equal(compiled_cells(c, call), interpreted_cells(k, c, call))
    end)
  end

  it("the canonical form keeps the dims, the third subscript, planes and rows, and compiles with -Werror", function()
    for _, c in ipairs(CASES) do
      local flat = assert(kparse.parse(c.text:gsub("#define (%w+) (%d+)\n", function(m, v)
        c.macros = c.macros or {}
        c.macros[m] = v
        return ""
      end):gsub("%f[%w_]([%u][%u%d]*)%f[^%w_]", function(m) return c.macros and c.macros[m] or m end), c.name))
      local text = kparse.unparse(flat)
      local ok, log = compiles(text)
      assert(ok, log .. "\n" .. text)
      if c.fname == "planes" then
        assert.truthy(text:find("double A[][3][4]", 1, true), text)
        assert.truthy(text:find("smooth_plane(3, 4, A[1])", 1, true), text)
        assert.truthy(text:find("scale_row(4, B[0][2], 1.5)", 1, true), text)
        assert.truthy(text:find("{{{0.5, 1.5, 2.0, 0.0}, {0.25", 1, true), text)
        assert.truthy(text:find("double T[2][3][4];", 1, true), text)
      end
    end
  end)

  it("the interpreter's errors name the subscript, its dim and file:line:col", function()
    local text = "void f(double A[2][3][4], int i, int j) {\n  A[i][j][1] = 1.0;\n}\n"
    local k = assert(cgwb.read_kernel(text, "oob.c"))
    local function run(i, j)
      return k:run("f", { arrays = { { name = "A", type = "double", values = (function()
        local v = {} for x = 1, 24 do v[x] = 0 end return v end)() } },
        args = { { array = 1, offset = 0 }, { int = i }, { int = j } } })
    end
    assert(run(1, 2))
    local r, err = run(1, 3)
    assert.is_nil(r)
    assert.truthy(err:find("^oob.c:2:%d+: "), err)
    assert.truthy(err:find("row 3 of A outside 0..2", 1, true), err)
    local text2 = "void f(int i) {\n  double T[2][3][4];\n  T[i][0][0] = 1.0;\n}\n"
    local k2 = assert(cgwb.read_kernel(text2, "oob2.c"))
    local _, err2 = k2:run("f", { arrays = {}, args = { { int = 2 } } })
    assert.truthy(err2:find("^oob2.c:3:%d+: "), err2)
    assert.truthy(err2:find("plane 2 of T outside 0..1", 1, true), err2)
  end)

  it("refuses rank 4 and planes or rows of another shape, with file:line:col", function()
    local bad = {
      { "void f(double A[2][2][2][2]) { }",
        "r.c:1:25: an array of more than 3 dimensions is outside the kernel subset (arrays have 1, 2 or 3 dimensions)" },
      { "void f(void) { double T[2][2][2][2]; T[0][0][0][0] = 1.0; }",
        "r.c:1:33: an array of more than 3 dimensions is outside the kernel subset (arrays have 1, 2 or 3 dimensions)" },
      { "void g(double P[][5]) { P[0][0] = 1.0; }\nvoid f(double A[2][3][4]) { g(A[1]); }",
        "r.c:2:32: argument 1 of 'g': rows of 5 cells expected, not 4" },
      { "void g(double P[][3][5]) { P[0][0][0] = 1.0; }\nvoid f(double A[2][3][4]) { g(A); }",
        "r.c:2:31: argument 1 of 'g': planes of 3x5 cells expected, not planes of 3x4 cells" },
      { "void g(double *p) { p[0] = 1.0; }\nvoid f(double A[2][3][4]) { g(A[1]); }",
        "r.c:2:32: argument 1 of 'g': rows of no cells expected, not 4" },
      { "void f(double A[2][3][4]) { A[0][0] = 1.0; }", "r.c:1:33: not assignable" },
      { "void f(double A[2][3][4]) { double x; x = A[0][0][0][0]; }", "r.c:1:53: subscripted value is not an array or pointer" },
    }
    for _, b in ipairs(bad) do
      local k, err = cgwb.read_kernel(b[1], "r.c")
      assert.is_nil(k, b[1])
      assert.truthy(err:find(b[2], 1, true), ("%s\nwant %s\ngot  %s"):format(b[1], b[2], err))
    end
  end)
end)

describe("rank-3 arrays: alias analysis", function()
  it("tells planes, rows and cells apart (offsets over the dims), as spec/20 rows", function()
    local text = table.concat({
      "void f(double A[2][3][4], double *y, int i) {",
      "  A[0][1][2] = y[0];",
      "  A[1][1][2] = y[1];",
      "  A[0][2][2] = y[2];",
      "  A[i][1][3] = y[4];",
      "  y[3] = A[0][1][2] + A[i][1][2];",
      "}", "" }, "\n")
    local k = assert(core.kernel_load(assert(kparse.parse(text, "alias.c"))))
    local res = assert(core.kernel_analyze(k, "f"))
    local acc = {}
    for i, a in ipairs(res.alias.accesses) do acc[a.text .. " " .. a.kind .. " " .. a.line] = i end
    local function set(key) return res.alias.sets[res.alias.accesses[assert(acc[key], key)].set] end
    local function rel(a, b)
      return res.alias.relation(res.alias.accesses[acc[a]].set, res.alias.accesses[acc[b]].set)
    end
    assert.same({ "A[6]" }, set("A[0][1][2] def 2").addresses)   -- 0*12 + 1*4 + 2
    assert.same({ "A[18]" }, set("A[1][1][2] def 3").addresses)  -- another plane
    assert.same({ "A[10]" }, set("A[0][2][2] def 4").addresses)  -- another row
    assert.equal("must", rel("A[0][1][2] def 2", "A[0][1][2] use 6"))
    assert.equal("no", rel("A[1][1][2] def 3", "A[0][1][2] use 6"))
    assert.equal("no", rel("A[0][2][2] def 4", "A[0][1][2] use 6"))
    assert.equal("no", rel("A[i][1][3] def 5", "A[i][1][2] use 6")) -- the same plane, another cell
    assert.equal("may", rel("A[i][1][3] def 5", "A[0][1][2] use 6"))
    -- reaching A[0][1][2]: its definition and A[i][1][3] (12 i + 7 = 6 has
    -- no int solution, which the affine offsets do not see: may), not the
    -- other plane's or row's
    local ud = res.chains.ud[acc["A[0][1][2] use 6"]]
    assert.same({ res.alias.accesses[acc["A[0][1][2] def 2"]].stmt, res.alias.accesses[acc["A[i][1][3] def 5"]].stmt }, ud)
  end)
end)

describe("rank-3 arrays: the analyses against traced runs", function()
  it("every read finds its last writer in the chains, one block's accesses relate soundly (spec/ktrace.lua)", function()
    local check_trace = require("ktrace").check_trace
    local reads = 0
    for n, c in ipairs(CASES) do
      local k = assert(cgwb.read_kernel(c.text, c.name))
      local res = assert(k:analyze(c.fname))
      for m = 1, 2 do
        local out = assert(k:run(c.fname, call_of(c, rng.new(540 + 10 * n + m)), { trace = true }))
        for _, t in ipairs(out.trace) do if t.frame == 0 and t.expr and not t.write then reads = reads + 1 end end
        local bad = check_trace(res, out.trace)
        assert.equal(0, #bad, c.name .. ": " .. tostring(bad[1]))
      end
    end
    assert.is_true(reads > 1000, "only " .. reads .. " reads traced")
  end)
end)

describe("rank-3 arrays: derivative code", function()
  it("tangent code (cgwb.tangent) gives the interpreter's primal bits and Jacobian", function()
    local cases = {}
    for n, c in ipairs(CASES) do
      cases[n] = TC.make_case(c.text, c.name, c.fname, call_of(c, rng.new(510 + n)))
    end
    TC.check(cases)
  end)

  it("the interpreter's Jacobian of heat-3d agrees with central differences", function()
    local c = CASES[1]
    local k = assert(cgwb.read_kernel(c.text, c.name))
    local call = call_of(c, rng.new(77))
    local J = assert(k:jacobian(c.fname, call))
    local r = rng.new(5)
    for _ = 1, 6 do
      local j = r:int(1, #J.cols)
      local col = J.cols[j]
      local h = 1e-6
      local function at(delta)
        local cl = { arrays = {}, args = call.args }
        for a, arr in ipairs(call.arrays) do
          cl.arrays[a] = { name = arr.name, type = arr.type, values = { table.unpack(arr.values) } }
        end
        local v = cl.arrays[col.array].values
        v[col.cell + 1] = v[col.cell + 1] + delta
        return assert(k:run(c.fname, cl))
      end
      local up, down = at(h), at(-h)
      for i, row in ipairs(J.rows) do
        local fd = (up.arrays[row.array].values[row.cell + 1] - down.arrays[row.array].values[row.cell + 1]) / (2 * h)
        assert(math.abs(fd - J.values[i][j]) <= 1e-6 * (1 + math.abs(fd)),
          ("J[%d][%d]: central differences %.17g, tangent mode %.17g"):format(i, j, fd, J.values[i][j]))
      end
    end
  end)

  it("vector-mode tangent code compiles with -Werror -pedantic and gives the Jacobian's columns in one call", function()
    local T = require "tdriver"
    for n, c in ipairs(CASES) do
      local k = assert(cgwb.read_kernel(c.text, c.name))
      local code = assert(tangent.emit(k, c.fname, { vector = true }))
      local ok, log = compiles(code)
      assert(ok, log .. "\n" .. code)
      local call = call_of(c, rng.new(530 + n))
      local J = assert(k:jacobian(c.fname, call))
      local run = assert(k:run(c.fname, call))
      local fn
      for _, f in ipairs(k:functions()) do if f.name == c.fname then fn = f end end
      -- up to 12 of the Jacobian's columns (unit seeds), all in one F_dv call
      local r, cols, picked = rng.new(n), {}, {}
      while #cols < math.min(12, #J.cols) do
        local j = r:int(1, #J.cols)
        if not picked[j] then picked[j] = true; cols[#cols + 1] = j end
      end
      local nd = #cols
      local out = { code, "#include <stdio.h>", "int main(void) {", "  int i, d;" }
      for a, arr in ipairs(call.arrays) do
        local vals = {}
        for i, v in ipairs(arr.values) do vals[i] = T.lit(v) end
        out[#out + 1] = ("  static double A%d[%d] = {%s};"):format(a, #vals, table.concat(vals, ", "))
        out[#out + 1] = ("  static double V%d[%d];"):format(a, #vals * nd)
      end
      for d, j in ipairs(cols) do
        out[#out + 1] = ("  V%d[%d * %d + %d] = 1.0;"):format(J.cols[j].array, J.cols[j].cell, nd, d - 1)
      end
      local args = { tostring(nd) }
      for i, g in ipairs(call.args) do
        local p = fn.params[i]
        if g.int then args[#args + 1] = tostring(g.int)
        else
          local dims = p.type:match("^.-%[%d*%](%[.*)$")
          args[#args + 1] = (dims and ("(double (*)" .. dims .. ")") or "") .. "A" .. g.array
          args[#args + 1] = "V" .. g.array
        end
      end
      out[#out + 1] = ('  if (%s_dv(%s) != 0) printf("status\\n");'):format(c.fname, table.concat(args, ", "))
      for a, arr in ipairs(call.arrays) do
        out[#out + 1] = ('  for (i = 0; i < %d; i++) printf("P %d %%d %%a\\n", i, A%d[i]);'):format(#arr.values, a, a)
        out[#out + 1] = ('  for (i = 0; i < %d; i++) for (d = 0; d < %d; d++) printf("V %d %%d %%d %%a\\n", i, d, V%d[i * %d + d]);')
          :format(#arr.values, nd, a, a, nd)
      end
      out[#out + 1] = "  return 0;\n}\n"
      local src, exe = H.write(H.tmp(".c"), table.concat(out, "\n")), H.tmp(".exe")
      assert(os.execute(("cc -std=c99 -O2 -ffp-contract=off -Wall -Wextra -Werror -o %s %s -lm"):format(exe, src)), src)
      local P, V = {}, {}
      local p = io.popen(exe)
      for line in p:lines() do
        assert(line ~= "status", "F_dv refused nd")
        local kind, a, i, rest = line:match("^(%u) (%d+) (%d+) (.*)$")
        a, i = tonumber(a), tonumber(i)
        if kind == "P" then P[a] = P[a] or {}; P[a][i + 1] = T.num(rest)
        else
          local d, v = rest:match("^(%d+) (%S+)$")
          V[a .. ":" .. i .. ":" .. d] = T.num(v)
        end
      end
      p:close()
      os.remove(src); os.remove(exe)
      for a, arr in ipairs(run.arrays) do H.assert_bits(arr.values, P[a], c.name .. ": primal of array " .. a) end
      assert.is_true(#J.rows > 0 and nd > 0)
      for ri, row in ipairs(J.rows) do
        for d, j in ipairs(cols) do
          local have, want = V[row.array .. ":" .. row.cell .. ":" .. (d - 1)], J.values[ri][j]
          assert(T.close_enough(have, want), ("%s: J[%d][%d]: vector mode %.17g, interpreter %.17g"):format(c.name, ri, j,
            have, want))
        end
      end
    end
  end)

  for n, c in ipairs(CASES) do
    it(c.name .. ": adjoint code passes the dot-product test, standard and transformed loops", function()
      local out = AC.check(c.text, c.fname, call_of(c, rng.new(520 + n)), { loops = "auto", seed = n })
      assert.truthy(out.code:find("[%w_]+b%[%d+%]%[%d+%]%[%d+%]") or out.code:find("%]%[%d+%]%[%d+%]"), out.code)
    end)
  end

  it("adjoint code of a local 3-D array declares its adjoint with the array's dims", function()
    local k = assert(cgwb.read_kernel(PLANES, "planes.c"))
    local code = assert(adjoint.emit(k, "planes", {}))
    assert.truthy(code:find("double Tb[2][3][4] = {{{0.0}}};", 1, true), code)
  end)
end)

describe("rank-3 arrays: XAIF", function()
  it("writes three subscripts and the shape three_tensor, valid against the schema subset, and reads them back as they were", function()
    local xaif = require "cgwb.xaif"
    local flatten = require "cgwb.flatten"
    for _, c in ipairs(CASES) do
      local k = assert(cgwb.read_kernel(c.text, c.name))
      local res = assert(flatten.run(k, c.fname))
      local text = assert(xaif.write(k, c.fname, res))
      assert.truthy(text:find('shape="three_tensor"', 1, true))
      local path = H.write(H.tmp(".xaif"), text)
      local p = io.popen(("xmllint --noout --schema spec/xaif/xaif-subset.xsd %s 2>&1; echo rc=$?"):format(path))
      local log = p:read("a")
      p:close()
      assert.truthy(log:find("rc=0", 1, true), log)
      local model = assert(xaif.read(text, "r3.xaif"))
      -- a reference read back with three subscripts (the model's references: tables with index)
      local seen, visited = 0, {}
      local function walk(t)
        if type(t) ~= "table" or visited[t] then return end
        visited[t] = true
        if type(t.index) == "table" and t.sym and #t.index == 3 then seen = seen + 1 end
        for _, v in pairs(t) do walk(v) end
      end
      walk(model)
      assert.is_true(seen > 0, c.name)
      -- the Lua flattening of the import equals the C engine's (as spec/26)
      local function plain(t)
        if type(t) ~= "table" then return t end
        local o = {}
        for key, v in pairs(t) do o[key] = plain(v) end
        return o
      end
      local want = plain(flatten.describe(res))
      want.cost = nil
      for _, b in ipairs(want.blocks) do for _, g in ipairs(b.subgraphs) do g.mults = nil end end
      assert.same(want, plain(xaif.describe(model)), c.name)
    end
  end)
end)
