-- spec/63-rows_spec.lua: `double **` and `int **` parameters whose rows
-- the function reads (doc/kernel-ir.md, "Pointer-valued storage", its
-- first step): a matrix-vector product, a Gauss-Seidel sweep and a row
-- scaling in Numerical Recipes style (double **a), a sum of rows passed to
-- a callee, rows passed on to callees' double **, a quadratic form through
-- `const double *const *A` and an `int **idx`, and `const char **names`.  The interpreter equals the compiled kernel bit for bit
-- (rows that share an array and overlap); the tangent code (double **Ad,
-- scalar and vector mode) against central differences of the compiled
-- kernel, its primal bit for bit; the adjoint code (double **Ab, loops
-- "none" and "auto") by the dot-product test against central differences,
-- and a wrong --assume about the rows caught by it and by
-- -DCGWB_CHECK_ASSUME; what is not yet supported is refused with its place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local tangent = require "cgwb.tangent"
local adjoint = require "cgwb.adjoint"
local T = require "tdriver"
local rng = require "rng"

local MATVEC = [==[
void matvec(int n, int m, double **A, const double *x, double *y) {
  int i, j;
  for (i = 0; i < n; i++) {
    y[i] = 0;
    for (j = 0; j < m; j++) y[i] += A[i][j] * x[j];
  }
}
]==]

local GS = [==[
#include <math.h>
void gs(int n, double **a, const double *b, double *x, int sweeps) {
  int s, i, j;
  for (s = 0; s < sweeps; s++)
    for (i = 0; i < n; i++) {
      double *ai = a[i];
      double r = b[i];
      for (j = 0; j < n; j++)
        if (j != i) r -= ai[j] * x[j];
      x[i] = r / ai[i];
    }
}

void rowscale(int n, int m, double **A, const double *d) {
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) A[i][j] = A[i][j] * d[i];
  A[0][0] += (*A)[1] * sin(A[n - 1][0]);
}
]==]

local QUAD = [==[
double quad(int n, const double *const *A, int **idx, const double *x) {
  double s = 0;
  int i, j;
  for (i = 0; i < n; i++) {
    const double *r = A[i];
    for (j = 0; j < n; j++) s += x[i] * r[j] * x[j];
    s += x[idx[i][0]] * A[idx[i][1]][i];
  }
  return s;
}
]==]

-- A row passed to a callee's double * parameter.
local ROWSUM = [==[
#include <math.h>
static void axpy(int m, double a, const double *x, double *y) {
  int j;
  for (j = 0; j < m; j++) y[j] += a * x[j];
}

void rowsum(int n, int m, const double *const *A, const double *c, double *y) {
  int i;
  for (i = 0; i < m; i++) y[i] = 0;
  for (i = 0; i < n; i++) axpy(m, exp(c[i]), A[i], y);
}
]==]

-- The rows passed on to callees' double ** parameters (one reads them, one
-- writes through them).
local PASSON = [==[
#include <math.h>
static double rowdot(int m, double **A, int i, const double *x) {
  double s = 0;
  int j;
  for (j = 0; j < m; j++) s += A[i][j] * x[j];
  return s;
}
static void scale0(int n, double **B, double c) {
  int i;
  for (i = 0; i < n; i++) B[i][0] = B[i][0] * c;
}
void passon(int n, int m, double **A, const double *x, double *y) {
  int i;
  scale0(n, A, x[0]);
  for (i = 0; i < n; i++) y[i] = sin(rowdot(m, A, i, x));
}
]==]

-- The cases: arrays {name, type, values}; args in parameter order: {int =},
-- {ptr = array, off =}, {rows = array, offs = {...}} (row r at offs[r]).
local function ramp(n, a, b) local t = {}; for i = 1, n do t[i] = a + b * i + 0.125 * (i * i % 7) end; return t end
local CASES = {
  { name = "matvec", text = MATVEC, fname = "matvec",
    arrays = { { "M", "double", ramp(9, 0.5, 0.25) }, { "x", "double", { 1.5, -0.75, 2.0 } }, { "y", "double", { 0, 0, 0 } } },
    args = { { int = 3 }, { int = 3 }, { rows = "M", offs = { 0, 3, 1 } }, { ptr = "x", off = 0 }, { ptr = "y", off = 0 } } },
  { name = "matvec writing into its own rows' array", text = MATVEC, fname = "matvec",
    arrays = { { "M", "double", ramp(12, 0.5, -0.25) }, { "x", "double", { 1.5, -0.75, 2.0 } } },
    args = { { int = 3 }, { int = 3 }, { rows = "M", offs = { 0, 4, 6 } }, { ptr = "x", off = 0 }, { ptr = "M", off = 7 } } },
  { name = "Gauss-Seidel", text = GS, fname = "gs",
    arrays = { { "M", "double", { 4, 1, 0.5, 1, 5, 1, 0.5, 1, 6, 0.25 } }, { "b", "double", { 1, 2, 3 } },
      { "x", "double", { 0.1, 0.2, 0.3 } } },
    args = { { int = 3 }, { rows = "M", offs = { 0, 3, 6 } }, { ptr = "b", off = 0 }, { ptr = "x", off = 0 }, { int = 3 } } },
  { name = "row scaling (writes through the rows)", text = GS, fname = "rowscale",
    arrays = { { "M", "double", ramp(8, 0.75, -0.125) }, { "d", "double", { 1.25, -0.5, 2.0 } } },
    args = { { int = 3 }, { int = 2 }, { rows = "M", offs = { 0, 3, 6 } }, { ptr = "d", off = 0 } } },
  { name = "a row passed to a double * parameter", text = ROWSUM, fname = "rowsum",
    arrays = { { "M", "double", ramp(6, 0.25, 0.5) }, { "c", "double", { 0.5, -0.25, 0.125 } }, { "y", "double", { 0, 0, 0 } } },
    args = { { int = 3 }, { int = 3 }, { rows = "M", offs = { 0, 2, 1 }, const = true }, { ptr = "c", off = 0 }, { ptr = "y", off = 0 } } },
  { name = "the rows passed on to callees' double **", text = PASSON, fname = "passon",
    arrays = { { "M", "double", ramp(8, 0.25, -0.375) }, { "x", "double", { 0.75, -0.5, 1.25 } }, { "y", "double", { 0, 0, 0 } } },
    args = { { int = 3 }, { int = 3 }, { rows = "M", offs = { 0, 3, 5 } }, { ptr = "x", off = 0 }, { ptr = "y", off = 0 } } },
  { name = "const double *const * and int **", text = QUAD, fname = "quad", ret = true,
    arrays = { { "M", "double", ramp(7, -0.5, 0.375) }, { "I", "int", { 2, 0, 1, 2, 0, 1 } }, { "x", "double", { 0.5, 1.5, -1.0 } } },
    args = { { int = 3 }, { rows = "M", offs = { 0, 2, 4 }, const = true }, { rows = "I", offs = { 0, 2, 4 } }, { ptr = "x", off = 0 } } },
}

local function fn_of(k, fname)
  for _, f in ipairs(k:functions()) do if f.name == fname then return f end end
end

-- The interpreter's call of case c.
local function core_call(c)
  local ix, arrays, args = {}, {}, {}
  for i, a in ipairs(c.arrays) do ix[a[1]], arrays[i] = i, { type = a[2], values = a[3] } end
  for i, a in ipairs(c.args) do
    if a.int then args[i] = { int = a.int }
    elseif a.ptr then args[i] = { array = ix[a.ptr], offset = a.off }
    else
      local rows = {}
      for r, o in ipairs(a.offs) do rows[r] = { array = ix[a.rows], offset = o } end
      args[i] = { rows = rows }
    end
  end
  return { arrays = arrays, args = args }
end

local function lits(t, int) local s = {}; for i, v in ipairs(t) do s[i] = int and ("%d"):format(v) or T.lit(v) end; return table.concat(s, ", ") end

-- A C driver of case c: mode "primal" (prints P: the cells after the call
-- and the result), "tangent" (code: the tangent code; prints T: the
-- tangent code's primal cells, D: its tangents, P: the kernel's cells, C:
-- central differences) or "adjoint" (prints A: <xb, xd> and <yb, dy/dx xd>
-- by central differences).  The directions and seeds come from r.
local function driver(c, k, mode, code, r, vcode)
  local fn = fn_of(k, c.fname)
  local decls = T.c_params(fn)
  local L = { "#include <stdio.h>", "#include <math.h>" }
  if mode == "adjoint" then L[#L + 1] = '#include "cgwb_adstack.h"' end
  L[#L + 1] = ("%s %s(%s);"):format(c.ret and "double" or "void", c.fname, table.concat(decls, ", "))
  if code then L[#L + 1] = assert(code:match("\n((%w+) " .. c.fname .. "_[db]%b();)"), "no prototype") end
  if vcode then L[#L + 1] = assert(vcode:match("\n(int " .. c.fname .. "_dv%b();)"), "no prototype") end
  local isint = {}
  for _, a in ipairs(c.arrays) do
    local nm, ty, v = a[1], a[2], a[3]
    isint[nm] = ty == "int"
    if ty == "int" then
      L[#L + 1] = ("static const int %s0[%d] = {%s};\nstatic int %sP[%d];"):format(nm, #v, lits(v, true), nm, #v)
    else
      local d, s = {}, {}
      for i = 1, #v do d[i], s[i] = r:float(-1, 1), r:float(-1, 1) end
      L[#L + 1] = ("static const double %s0[%d] = {%s}, %sD[%d] = {%s}, %sS[%d] = {%s};"):format(nm, #v, lits(v), nm, #v,
        lits(d), nm, #v, lits(s))
      L[#L + 1] = ("static double %sP[%d], %sT[%d], %sB[%d], %sH[%d], %sV[%d];"):format(nm, #v, nm, #v, nm, #v, nm, #v,
        nm, 2 * #v)
    end
  end
  L[#L + 1] = ("static double ret, retH, retd, retV[2], RS = %s;"):format(T.lit(r:float(-1, 1)))
  local fill = { "static void fill(double h) {", "  int c;" }
  for _, a in ipairs(c.arrays) do
    local nm, n = a[1], #a[3]
    fill[#fill + 1] = isint[nm] and ("  for (c = 0; c < %d; c++) %sP[c] = %s0[c];"):format(n, nm, nm)
      or ("  for (c = 0; c < %d; c++) %sP[c] = %s0[c] + h * %sD[c];"):format(n, nm, nm, nm)
  end
  fill[#fill + 1] = "}"
  L[#L + 1] = table.concat(fill, "\n")
  -- the row pointers (P: the primal's, T: tangents, B: adjoints) and the argument lists
  -- pa: the primal's arguments, ta: the tangent code's, va: vector mode's (2 directions, V: 2 tangents a
  -- cell), ba: the adjoint code's
  local rows, pa, ta, va, ba = {}, {}, {}, {}, {}
  local function both(x) pa[#pa + 1] = x; ta[#ta + 1] = x; va[#va + 1] = x; ba[#ba + 1] = x end
  for i, a in ipairs(c.args) do
    if a.int then both(tostring(a.int))
    elseif a.ptr then
      both(("%sP + %d"):format(a.ptr, a.off))
      if not isint[a.ptr] then
        ta[#ta + 1] = ("%sT + %d"):format(a.ptr, a.off); ba[#ba + 1] = ("%sB + %d"):format(a.ptr, a.off)
        va[#va + 1] = ("%sV + %d"):format(a.ptr, 2 * a.off)
      end
    else
      local ty = isint[a.rows] and "int" or (a.const and "const double" or "double")
      for _, w in ipairs(isint[a.rows] and { "P" } or { "P", "T", "B", "V" }) do
        local o = {}
        for j, off in ipairs(a.offs) do o[j] = ("%s%s + %d"):format(a.rows, w, w == "V" and 2 * off or off) end
        rows[#rows + 1] = ("  %s *R%d%s[%d] = {%s};"):format(w == "B" and "double" or ty, i, w, #o, table.concat(o, ", "))
      end
      both(("R%dP"):format(i))
      if not isint[a.rows] then
        ta[#ta + 1] = ("R%dT"):format(i); ba[#ba + 1] = ("R%dB"):format(i); va[#va + 1] = ("R%dV"):format(i)
      end
    end
  end
  local rowtext = table.concat(rows, "\n")
  L[#L + 1] = ("static void prim(double h) {\n%s\n  fill(h);\n  %s%s(%s);\n}"):format(rowtext, c.ret and "ret = " or "",
    c.fname, table.concat(pa, ", "))
  local function each(fmt) -- a loop over every double array's cells
    local o = {}
    for _, a in ipairs(c.arrays) do
      if not isint[a[1]] then o[#o + 1] = ("  for (c = 0; c < %d; c++) "):format(#a[3]) .. fmt:gsub("%$", a[1]) end
    end
    return table.concat(o, "\n")
  end
  local body = { "int main(void) {", "  int c;", "  double h = 1e-6, dot1 = 0, dot2 = 0;", rowtext,
    "  (void)dot1; (void)dot2; (void)h;" }
  local function out(tag, w, r0)
    body[#body + 1] = ('  printf("%s");'):format(tag)
    body[#body + 1] = each('printf(" %a", $' .. (w:find("%[") and w or (w .. '[c]')) .. ');')
    body[#body + 1] = ('  printf(" %%a\\n", %s);'):format(c.ret and r0 or "0.0")
  end
  if mode == "primal" then
    body[#body + 1] = "  prim(0);"
    out("P", "P", "ret")
  elseif mode == "tangent" then
    body[#body + 1] = "  fill(0);\n" .. each("$T[c] = $D[c];")
    if c.ret then ta[#ta + 1] = "&retd" end
    body[#body + 1] = ("  %s%s_d(%s);"):format(c.ret and "retH = " or "", c.fname, table.concat(ta, ", "))
    out("T", "P", "retH")
    out("D", "T", "retd")
    body[#body + 1] = "  fill(0);\n" .. each("{ $V[2 * c] = $D[c]; $V[2 * c + 1] = 2 * $D[c]; }")
    if c.ret then va[#va + 1] = "&retH"; va[#va + 1] = "retV" end
    body[#body + 1] = ("  if (%s_dv(2, %s)) return 1;"):format(c.fname, table.concat(va, ", "))
    out("V", "V[2 * c + 0]", "retV[0]")
    out("W", "V[2 * c + 1]", "retV[1]")
    body[#body + 1] = "  prim(h);\n" .. each("$H[c] = $P[c];") .. "\n  retH = ret;\n  prim(-h);"
    body[#body + 1] = each("$H[c] = ($H[c] - $P[c]) / (2 * h);") .. "\n  retH = (retH - ret) / (2 * h);"
    out("C", "H", "retH")
    body[#body + 1] = "  prim(0);"
    out("P", "P", "ret")
  else
    body[#body + 1] = "  fill(0);\n" .. each("$B[c] = $S[c];")
    if c.ret then ba[#ba + 1] = "RS" end
    body[#body + 1] = ("  %s_b(%s);"):format(c.fname, table.concat(ba, ", "))
    body[#body + 1] = each("dot1 += $B[c] * $D[c];")
    body[#body + 1] = "  prim(h);\n" .. each("$H[c] = $P[c];") .. "\n  retH = ret;\n  prim(-h);"
    body[#body + 1] = each("dot2 += $S[c] * ($H[c] - $P[c]) / (2 * h);")
    if c.ret then body[#body + 1] = "  dot2 += RS * (retH - ret) / (2 * h);" end
    body[#body + 1] = '  printf("A %a %a\\n", dot1, dot2);'
  end
  body[#body + 1] = "  return 0;\n}"
  L[#L + 1] = table.concat(body, "\n")
  return table.concat(L, "\n") .. "\n"
end

-- Compiles and runs the kernel text, the derivative code (or none) and the
-- driver; the printed lines by tag: {P = {...}, ...}.
local function run(c, k, mode, code, seed, vcode, flags)
  local files = { H.write(H.tmp(".c"), c.text), H.write(H.tmp(".c"), driver(c, k, mode, code, rng.new(seed or 63), vcode)) }
  if code then files[#files + 1] = H.write(H.tmp(".c"), code) end
  if vcode then files[#files + 1] = H.write(H.tmp(".c"), vcode) end
  local exe, log = H.tmp(".exe"), H.tmp(".log")
  local ok = os.execute(("%s %s -Wno-unused-parameter -Wno-unused-variable -Ilua/cgwb/runtime -o %s %s -lm 2>%s"):format(T.CC,
    flags or "", exe, table.concat(files, " "), log))
  local msg = H.read(log)
  os.remove(log)
  assert(ok, "does not compile: " .. table.concat(files, " ") .. "\n" .. msg:sub(1, 3000))
  for _, f in ipairs(files) do os.remove(f) end
  local p = assert(io.popen(exe .. " 2>" .. log))
  local res = {}
  for line in p:lines() do
    local tag, rest = line:match("^(%u) (.*)$")
    local v = {}
    for x in rest:gmatch("%S+") do v[#v + 1] = T.num(x) end
    res[tag] = v
  end
  p:close()
  res.stderr = H.read(log)
  os.remove(exe)
  os.remove(log)
  return res
end

local function close(a, b, tol) return math.abs(a - b) <= tol * math.max(1, math.abs(a), math.abs(b)) end

describe("double ** parameters read through", function()
  for _, c in ipairs(CASES) do
    it(c.name .. ": the interpreter equals the compiled kernel bit for bit", function()
      local k = assert(cgwb.read_kernel(c.text, c.fname .. ".c"))
      local r = assert(k:run(c.fname, core_call(c)))
      local got = {}
      for i, a in ipairs(c.arrays) do
        if a[2] == "double" then for _, v in ipairs(r.arrays[i].values) do got[#got + 1] = v end end
      end
      got[#got + 1] = c.ret and r.ret or 0.0
      H.assert_bits(got, run(c, k, "primal").P, c.name)
    end)

    it(c.name .. ": tangent code (double **Ad; vector mode too) against central differences, its primal bit for bit", function()
      local k = assert(cgwb.read_kernel(c.text, c.fname .. ".c"))
      local code = assert(tangent.emit(k, c.fname))
      local vcode = assert(tangent.emit(k, c.fname, { vector = true }))
      local res = run(c, k, "tangent", code, nil, vcode)
      H.assert_bits(res.T, res.P, c.name .. ": the tangent code's primal")
      assert.equal(#res.C, #res.D)
      for i = 1, #res.D do
        assert.is_true(close(res.D[i], res.C[i], 1e-6), ("%s: tangent %d: %.17g, differences %.17g"):format(c.name, i,
          res.D[i], res.C[i]))
      end
      H.assert_bits(res.V, res.D, c.name .. ": vector mode's first direction, the scalar mode's")
      for i = 1, #res.V do assert.equal(2 * res.V[i], res.W[i], "the second direction, twice the first") end
    end)

    for _, loops in ipairs { "none", "auto" } do
      it(c.name .. ": adjoint code (double **Ab, loops " .. loops .. ") passes the dot-product test", function()
        local k = assert(cgwb.read_kernel(c.text, c.fname .. ".c"))
        local code = assert(adjoint.emit(k, c.fname, { loops = loops }))
        local res = run(c, k, "adjoint", code, 7)
        assert.is_true(res.A[1] ~= 0, "a dot product of 0 tests nothing")
        assert.is_true(close(res.A[1], res.A[2], 1e-6), ("%s: <xb, xd> %.17g, <yb, J xd> %.17g"):format(c.name,
          res.A[1], res.A[2]))
      end)
    end
  end

  it("the rows' aliasing matters: told A!=y, the adjoint of a call where y lies in a row fails the test", function()
    local c = CASES[2]
    local k = assert(cgwb.read_kernel(c.text, c.fname .. ".c"))
    local code, rep = assert(adjoint.emit(k, c.fname, { loops = "auto", assume = { "A!=y", "x!=y" } })) -- x!=y: true
    assert.is_true(rep.loops[1].transformed, "the outer loop adjoined per iteration")
    local res = run(c, k, "adjoint", code, 7)
    assert.is_false(close(res.A[1], res.A[2], 1e-6), ("<xb, xd> %.17g, <yb, J xd> %.17g"):format(res.A[1], res.A[2]))
    res = run(c, k, "adjoint", code, 7, nil, "-DCGWB_CHECK_ASSUME") -- a row's cell is A's: the check sees A and y meet
    assert.is_nil(res.A)
    assert.truthy(res.stderr:find("matvec_b: CGWB_CHECK_ASSUME: A and y share the cell at", 1, true), res.stderr)
  end)

  it("a read of a row past the rows given is an error with its place; CALL.json gives rows as [ARRAY, OFFSET] pairs", function()
    local k = assert(cgwb.read_kernel(MATVEC, "matvec.c"))
    local c = core_call(CASES[1])
    c.args[3].rows[3] = nil
    local r, err = k:run("matvec", c)
    assert.is_nil(r)
    assert.truthy(err:find("^matvec%.c:5:38: read of row 2 of A, which has 2 rows given"), err)
    c.args[3] = { array = 1, offset = 0 }
    r, err = k:run("matvec", c)
    assert.is_nil(r)
    assert.truthy(err:find("argument 3 (A): rows expected", 1, true), err)
    local src = H.write(H.tmp(".c"), MATVEC)
    local call = H.write(H.tmp(".json"), [==[{"arrays": {"M": [1, 2, 3, 4, 5, 6], "x": [1, 10, 100], "y": [0, 0]},
      "args": {"n": 2, "m": 3, "A": [["M", 3], ["M", 0]], "x": ["x", 0], "y": ["y", 0]}}]==])
    local out, e2, code = H.cgwb(("kernel %s --function matvec --call %s"):format(src, call))
    assert.equal(0, code, e2)
    assert.truthy(out:find('"y": [654, 321]', 1, true), out)
    H.write(call, [==[{"arrays": {"M": [1, 2, 3]}, "args": {"n": 2, "m": 3, "A": ["M", 0], "x": ["M", 0], "y": ["M", 0]}}]==])
    _, e2, code = H.cgwb(("kernel %s --function matvec --call %s"):format(src, call))
    assert.equal(2, code)
    assert.truthy(e2:find("args.A[0]: expected [ARRAY, OFFSET]", 1, true), e2)
  end)

  it("a passive double ** gets NULL shadows: its Ab is never read", function()
    local text = "void f(int n, double **A, double *y) {\n  double *r = A[1];\n  if (r[0] > 0) y[0] = y[0] * 2;\n}\n"
    local k = assert(cgwb.read_kernel(text, "p.c"))
    local code = assert(adjoint.emit(k, "f"))
    assert.truthy(code:find("void f_b(int n, double **A, double **Ab, double *y, double *yb)", 1, true), code)
    assert.falsy(code:find("Ab[", 1, true), code)
    assert.truthy(code:find("rb = 0;", 1, true), code)
  end)

  it("the signatures: double **Ad after double **A, double **Ab after it (const: double *const *Ab)", function()
    local k = assert(cgwb.read_kernel(QUAD, "quad.c"))
    local code = assert(tangent.emit(k, "quad"))
    assert.truthy(code:find("double quad_d(int n, const double *const *A, const double *const *Ad, int **idx, "
      .. "const double *x, const double *xd, double *quad_ret_d)", 1, true), code)
    code = assert(adjoint.emit(k, "quad"))
    assert.truthy(code:find("double quad_b(int n, const double *const *A, double *const *Ab, int **idx, "
      .. "const double *x, double *xb, double quad_retb)", 1, true), code)
    k = assert(cgwb.read_kernel(MATVEC, "matvec.c"))
    code = assert(adjoint.emit(k, "matvec"))
    assert.truthy(code:find("t1_5b = Ab%[i%];\n%s*t1_5 = A%[i%]; /%* 5 %*/"), code) -- the shadow first
  end)
end)

describe("double ** parameters: the rows' alias analysis", function()
  it("a load points into the rows' one object at an unknown offset; --assume A!=y separates them", function()
    local out, err, code = H.cgwb("kernel " .. H.write(H.tmp(".c"), MATVEC) .. " --function matvec --alias --activity")
    assert.equal(0, code, err)
    assert.truthy(out:find("S%d+ {A%[%]%[%]%[%?%]}"), out)
    assert.truthy(out:find("active symbols   A x y", 1, true), out)
    local o2 = H.cgwb("kernel " .. H.write(H.tmp(".c"), MATVEC) .. " --function matvec --alias --assume 'A!=y' --assume 'A!=x'")
    -- t1@5[j] (a cell of a row) no longer meets y[i]
    local row, yi = out:match("use%s+t1@5%[j%]%s+S(%d+)"), out:match("def must%s+y%[i%]%s+S(%d+)")
    row, yi = tonumber(row), tonumber(yi)
    assert.truthy(out:find(("S%s S%s may"):format(math.min(row, yi), math.max(row, yi)), 1, true), out)
    row, yi = o2:match("use%s+t1@5%[j%]%s+S(%d+)"), o2:match("def must%s+y%[i%]%s+S(%d+)")
    row, yi = tonumber(row), tonumber(yi)
    assert.falsy(o2:find(("S%s S%s may"):format(math.min(row, yi), math.max(row, yi)), 1, true), o2)
    local _, e3, c3 = H.cgwb("kernel " .. H.write(H.tmp(".c"), MATVEC) .. " --function matvec --alias --assume 'A==x'")
    assert.are_not.equal(0, c3)
    assert.truthy(e3:find("a double ** or int ** takes only '!='", 1, true), e3)
  end)
end)

describe("char ** parameters", function()
  local NAMES = [==[
#include <math.h>
static double weight(int n, const char **names, const double *x) {
  return x[0] * (names[1][0] == 'b' ? 2.0 : 1.0) + n * (names[0][1] != 0);
}
double obj(int n, const char **names, const double *theta, double *err) {
  int i;
  for (i = 0; i < n; i++) err[i] = sin(theta[i]) * weight(n, names, theta);
  return err[0];
}
]==]
  it("are read through and passed on (an objective's bone names): the interpreter as the compiled program", function()
    local k = assert(cgwb.read_kernel(NAMES, "names.c"))
    local call = { arrays = { { name = "S", type = "int", values = { 97, 0, 98, 99, 0 } }, { name = "T", type = "double",
      values = { 0.5, -1.25 } }, { name = "E", type = "double", values = { 0, 0 } } },
      args = { { int = 2 }, { rows = { { array = 1, offset = 0 }, { array = 1, offset = 2 } } }, { array = 2, offset = 0 },
        { array = 3, offset = 0 } } }
    local r = assert(k:run("obj", call))
    local bad = { arrays = { { name = "S", type = "int", values = { 300, 0 } }, call.arrays[2], call.arrays[3] },
      args = { { int = 1 }, { rows = { { array = 1, offset = 0 } } }, call.args[3], call.args[4] } }
    local none, err = k:run("obj", bad)
    assert.is_nil(none)
    assert.truthy(err:find("argument 2 (names): row 0: cell 0 of array 1 is 300, not a char", 1, true), err)
    local main = NAMES .. [==[
#include <stdio.h>
int main(void) {
  const char *names[2] = { "a", "bc" };
  double theta[2] = { 0.5, -1.25 }, err[2];
  double r = obj(2, names, theta, err);
  printf("%a %a %a\n", r, err[0], err[1]);
  return 0;
}
]==]
    assert.equal(H.run_c(main), ("%a %a %a\n"):format(r.ret, r.arrays[3].values[1], r.arrays[3].values[2]))
    for _, code in ipairs { (assert(tangent.emit(k, "obj"))), (assert(adjoint.emit(k, "obj"))) } do
      assert.truthy(code:find("const char *const *names, const double *theta", 1, true), code)
      local src = H.write(H.tmp(".c"), code)
      assert(os.execute(("%s -I%s -c -o %s %s 2>&1"):format(T.CC, require("addriver").RUNTIME, H.tmp(".o"), src)), code)
    end
  end)
end)

describe("double ** parameters: what is not yet supported", function()
  -- f is refused: alone in the file, the reading fails; beside g (fine), f is left alone with the reason
  local function refused(body, msg, params)
    local text = ("void g(double **B) { B[0][0] = 1; }\nvoid f(int n, double **A, double *p%s) {\n  int i = 0;\n%s\n}\n"):format(params or "", body)
    local k = assert(cgwb.read_kernel(text, "f.c"))
    local left = k:left_alone()
    assert.equal(1, #left, body)
    assert.equal("f", left[1].name)
    assert.truthy(left[1].why:find(msg, 1, true), left[1].why)
    if not body:find("g%(") then
      local none, err = cgwb.read_kernel(text:gsub("^[^\n]*\n", ""), "f.c")
      assert.is_nil(none)
      assert.truthy(err:find(msg:gsub("^f%.c:(%d+)", function(l) return "f.c:" .. (tonumber(l) - 1) end), 1, true), err)
    end
  end
  it("each refusal names its place and why", function()
    refused("  A[i] = p;", "f.c:4:4: a store into a row pointer of 'A' is outside the kernel subset (the rows of a "
      .. "pointer to pointers are read, never stored: not yet supported)")
    refused("  *A = p;", "f.c:4:3: a store into a row pointer of 'A'")
    refused("  A = A;", "f.c:4:3: an assignment to the pointer to pointers 'A' is outside the kernel subset (its rows "
      .. "are read, never stored or moved: not yet supported)")
    refused("  double **B = A;", "f.c:4:12: the local pointer to pointers 'B' is outside the kernel subset")
    refused("  double **B;", "not yet supported")
    refused("  double *q = p; g(q);", "f.c:4:20: argument 1 of 'g', a double **, that is not a double ** parameter is "
      .. "outside the kernel subset (a pointer to pointers is a parameter, passed on as it is)")
    refused("  p[0] = *(A + 1)[0];", "f.c:4:14: arithmetic on the pointer to pointers 'A'")
    refused("  p[0] = A == A;", "f.c:4:12: arithmetic on the pointer to pointers 'A'")
    refused("  p[0] = n ? A[0][0] : 1;", "f.c:4:12: a call or side effect in an operand of '?:' is outside the kernel "
      .. "subset") -- the row's load is a statement of its own, which C would run only when n != 0
    refused("  p = (A + 1)[0];", "f.c:4:10: arithmetic on the pointer to pointers 'A' is outside the kernel subset "
      .. "(only its rows are read: not yet supported)")
    refused("  if (A) p[0] = 1;", "f.c:4:7: a pointer to pointers used as a condition is outside the kernel subset (only its rows are read)")
    refused("  p[0] = 0;", "f.c:2:48: a pointer to a pointer to a pointer is outside the kernel subset", ", double ***C")
    local none, err = cgwb.read_kernel("void f(double **A, double *p) { p[0] = A[0][0][0]; }", "f.c")
    assert.is_nil(none)
    assert.truthy(err:find("f.c:1:", 1, true) and err:find("subscripted value is not an array or pointer", 1, true), err)
    refused("  double *r[2];", "an array of pointers")
    none, err = cgwb.read_kernel("void f(const double *const *A) { A[0][0] = 1; }", "f.c")
    assert.is_nil(none)
    assert.equal("f.c:1:38: the rows of 'A' point to const cells", err)
    assert.truthy(cgwb.read_kernel("void f(double *const *A) { A[0][0] = 1; }", "f.c"), "const rows, cells not const")
  end)

  it("the loader refuses a pointer-to-pointer symbol that is not a parameter, and a row that is not a load", function()
    local core = require "cgwb.core"
    local L = core.kernel_layout()
    local k = assert(cgwb.read_kernel(MATVEC, "matvec.c"))
    local flat = k:ir()
    assert.truthy(core.kernel_load(flat))
    local function sym_of(name)
      for s = 0, #flat.sym // L.width.sym - 1 do
        if flat.names[flat.sym[s * L.width.sym + L.sym.NAME] + 1] == name then return s end
      end
    end
    local at = sym_of("i") * L.width.sym + L.sym.PTR
    flat.sym[at] = 2 -- the local i as a double **
    local none, msg = core.kernel_load(flat)
    assert.is_nil(none)
    assert.truthy(msg:find("^matvec%.c: kernel form: sym %d+: a pointer to pointers that is not a plain parameter"), msg)
    flat.sym[at] = 0
    flat.sym[sym_of("x") * L.width.sym + L.sym.PTR] = 2 -- x[j] is then a row outside a load
    none, msg = core.kernel_load(flat)
    assert.is_nil(none)
    assert.truthy(msg:find("a row of sym %d+ that is not the rhs of an assignment"), msg)
  end)

  it("XAIF refuses a function with a double ** parameter, naming it", function()
    local k = assert(cgwb.read_kernel(MATVEC, "matvec.c"))
    local res = assert(require("cgwb.flatten").run(k, "matvec"))
    local x, err = require("cgwb.xaif").write(k, "matvec", res)
    assert.is_nil(x)
    assert.truthy(err:find("matvec.c:1:36: the parameter 'A', a pointer to pointers", 1, true), err)
  end)
end)
