-- spec/64-null_spec.lua: NULL, pointer comparisons and pointer differences
-- in kernels. NULL (`((void *)0)` from the headers, or 0 where a pointer is
-- expected) is the NULLP expression of the pointer type the context gives;
-- `p == q`, `p != q` compare any two pointers of one type, `<` and the
-- others and `p - q` (PTRDIFF, an int) only within one object (C99 6.5.6,
-- 6.5.8). A pointer as a condition is `p != NULL`. The interpreter against
-- the kernel compiled as C, bit for bit; its errors (a dereference of NULL,
-- arithmetic on it, an order or difference across objects) with their
-- place; tangent code (spec/tcheck.lua) and adjoint code (spec/adcheck.lua)
-- against the interpreter and central differences; the front end's
-- refusals; XAIF's; NULL arguments from Lua and CALL.json.
local H = require "spec.helper"
local cgwb = require "cgwb"
local AC = require "adcheck"
local TC = require "tcheck"

local HEAD = "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"

local function darr(name, vals) return { name = name, type = "double", values = vals } end
local function iarr(name, vals) return { name = name, type = "int", values = vals } end

local KERNELS = {
  { -- a pointer walk, an optional output (NULL from the caller), a checked malloc, free(NULL)
    name = "work", ret = "double", text = HEAD .. [[
static double sumsq(int n, double *x, double *scaled)
{
  double *p, *end = x + n;
  double s = 0.0;
  for (p = x; p < end; p++) s += *p * *p;
  if (scaled != NULL) {
    double *q = scaled;
    while (q != scaled + n) { *q = sin(x[q - scaled]) / s; q++; }
  }
  return s;
}

double work(int n, double *x, double *out)
{
  double *buf = (double *) malloc(n * sizeof(double));
  double *opt = NULL;
  double r;
  int k;
  if (!buf) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  r = sumsq(n, x, buf);
  r += sumsq(n - 1, x + 1, opt);
  for (k = 0; k < n; k++) out[k] = buf[k] * r;
  free(buf);
  buf = NULL;
  free(buf);
  if (buf == 0 && opt == buf) r = r * 2.0;
  return r;
}
]], call = function()
      return { arrays = { darr("x", { 0.5, -1.25, 0.75, 2.0 }), darr("out", { 0, 0, 0, 0 }) },
        args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- the largest cell by pointer (best starts NULL), its index as a difference, a backward walk
    name = "pick", ret = "double", text = HEAD .. [[
double pick(int n, double *a, double *y, int *at)
{
  double *best = NULL, *p;
  double s = 0.0;
  int i;
  if (!y || at == NULL) n = 0;
  for (i = 0; i < n; i++)
    if (best == NULL || a[i] > *best) best = &a[i];
  if (n > 0) {
    at[0] = best - a;
    for (p = a + n; p > a; ) {
      p--;
      y[(p - a) % 2] += *p * *best;
      if (p >= best) s += cos(*p);
    }
    p = at[0] > 1 ? best : NULL;
    if (p) s += *p * a[0];
    s += (best != a + 1 ? 1.0 : 0.0) * a[1];
  }
  return s;
}
]], call = function()
      return { arrays = { darr("a", { 0.3, -0.7, 1.1, 0.45, -0.2 }), darr("y", { 0.5, -0.25 }), iarr("at", { 0 }) },
        args = { { int = 5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    end },
  { -- a dry-run loop (independent, not terminal) assigning a pointer read after it: its shadow follows
    name = "dry", text = HEAD .. [[
void dry(int n, double c, double *a, double *y)
{
  double *q = NULL;
  int i;
  for (i = 0; i < n; i++) {
    q = &a[i];
    *q = sin(*q) * c;
  }
  y[0] += *q * a[0];
}
]], call = function()
      return { arrays = { darr("a", { 0.3, -0.7, 1.1 }), darr("y", { 0.5 }) },
        args = { { int = 3 }, { double = 1.25 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- a pointer assigned from itself under a test that reads it: the shadow (and tangent) is
    -- computed before the primal (it was after, testing the new best: silently wrong derivatives)
    name = "argmax", ret = "double", text = HEAD .. [[
double argmax(int n, double *a, double *y)
{
  double *best = &a[0];
  int i;
  for (i = 1; i < n; i++)
    best = a[i] > *best ? &a[i] : best;
  return *best * y[0] + a[n - 1];
}
]], call = function()
      return { arrays = { darr("a", { 0.3, 1.7, -0.2, 1.1 }), darr("y", { 0.5 }) },
        args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- guard clauses: early returns (a NULL check among them) are lowered to one return at the end
    name = "guard", ret = "double", text = HEAD .. [[
double guard(int n, double *x, double *y)
{
  int i;
  double s = 0.0;
  if (n <= 0 || x == NULL) return 0.0;
  for (i = 0; i < n; i++) { s += sin(x[i]); y[i] = s * x[i]; }
  if (s < 0) return s * s;
  return s * x[0];
}
]], call = function()
      return { arrays = { darr("x", { 0.1, -0.5, -0.3, -0.8 }), darr("y", { 0, 0, 0, 0 }) },
        args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- double buffering, as stencil codes step in time: the buffers' pointers swapped each step
    name = "heat", text = HEAD .. [[
void heat(int n, int steps, double *u, double *out)
{
  double *cur = (double *) malloc(n * sizeof(double)), *next = (double *) malloc(n * sizeof(double)), *tmp;
  int i, t;
  if (cur == NULL || next == NULL) exit(1);
  for (i = 0; i < n; i++) cur[i] = u[i];
  next[0] = cur[0]; next[n - 1] = cur[n - 1];
  for (t = 0; t < steps; t++) {
    for (i = 1; i < n - 1; i++) next[i] = cur[i] + 0.25 * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]) + 0.01 * sin(cur[i]);
    tmp = cur; cur = next; next = tmp;
  }
  for (i = 0; i < n; i++) out[i] = cur[i] * cur[i];
  free(cur); free(next);
}
]], call = function()
      return { arrays = { darr("u", { 0.1, 0.5, -0.3, 0.8, 0.2 }), darr("out", { 0, 0, 0, 0, 0 }) },
        args = { { int = 5 }, { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- two pointers swapped by a comparison of their cells, then read
    name = "swaprow", text = HEAD .. [[
void swaprow(int n, double *a, double *b, double *y)
{
  double *lo = a, *hi = b, *t;
  int i;
  for (i = 0; i < n; i++) {
    if (lo[i] > hi[i]) { t = lo; lo = hi; hi = t; }
    y[n - 1 - (&y[i] - y)] = lo[i] * cos(hi[i]);
  }
}
]], call = function()
      return { arrays = { darr("a", { 0.1, 0.9, -0.3, 0.8 }), darr("b", { 0.4, 0.2, 0.5, -0.1 }), darr("y", { 0, 0, 0, 0 }) },
        args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    end },
}

local kgen = require "kgen"

local function read(text, opts) return cgwb.read_kernel(text, "nu.c", opts) end

describe("NULL and pointer comparisons", function()
  it("lowers NULL to the pointer type of its context, a pointer condition to p != NULL", function()
    local k = assert(read(KERNELS[2].text))
    local ir = require("cgwb.ir").view(k:ir())
    local ops, types = {}, {}
    for x = 0, ir.nexpr - 1 do
      local e = ir:expr(x)
      ops[e.op] = (ops[e.op] or 0) + 1
      if e.op == "null" then types[e.type] = true end
    end
    assert.equal(6, ops.null) -- best = NULL, !y, at == NULL, best == NULL, ?: NULL, if (p)
    assert.equal(3, ops.ptrdiff) -- best - a; (p - a) % 2 twice: y[...] += is y[...] = y[...] + ...
    assert.same({ ["double *"] = true, ["int *"] = true }, types)
    local text = assert(H.cgwb("kernel " .. H.write(H.tmp(".c"), KERNELS[2].text) .. " --function pick"))
    assert.truthy(text:find("if (y == NULL || at == NULL)", 1, true), text)
    assert.truthy(text:find("at[0] = (int)(best - a)", 1, true), text)
    assert.truthy(text:find("if (p != NULL)", 1, true), text)
  end)

  for _, K in ipairs(KERNELS) do
    it(K.name .. ": the interpreter gives the compiled kernel's values bit for bit", function()
      local want, got, r = kgen.interp_vs_cc(read, K, K.call())
      assert.is_nil(r.leak)
      assert.equal(want, got)
    end)
  end

  it("the interpreter's errors: NULL dereferenced or moved, orders and differences across objects", function()
    local function f(b)
      return HEAD .. "double f(int n, double *x, double *y) {\n  double *p = NULL, w[3];\n  int d = 0;\n  w[0] = 1.0;\n  "
        .. b .. "\n  return x[0] + d;\n}\n"
    end
    local call = { arrays = { darr("x", { 1.5, 2.5, 3.5 }), darr("y", { 0, 0, 0 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    local cases = {
      { "y[0] = *p;", "nu.c:8:10: access through p, which is NULL" },
      { "p[1] = 2.0;", "nu.c:8:4: access through p, which is NULL" },
      { "p = p + 1;", "nu.c:8:9: arithmetic on a null pointer" },
      { "if (x < y) d = 1;", "nu.c:8:9: ordered comparison of pointers into x and y (only within one object)" },
      { "d = y - x;", "nu.c:8:9: difference of pointers into y and x (only within one object)" },
      { "d = w - x;", "nu.c:8:9: difference of pointers into w and x (only within one object)" },
      { "d = (&w[2] - w) + (w + 1 - &w[0]); y[0] = d;", nil, 4.5 },
      { "if (p == x || x == y || x + 3 == y) d = 2; else d = (x + 3) - x;", nil, 4.5 },
      { "if (p == NULL && !p && x != NULL && p != x) d = 1;", nil, 2.5 },
      { "free(p); p = x; if (p >= x && p <= x + 3 && x + 3 > p) d = 5;", nil, 6.5 },
    }
    for _, c in ipairs(cases) do
      local k = assert(read(f(c[1])))
      local r, err = k:run("f", call)
      if c[2] then assert.equal(c[2], err, c[1])
      else
        assert.truthy(r, err)
        assert.equal(c[3], r.ret, c[1])
      end
    end
  end)

  it("tangent code: NULL's tangent pointer is NULL; the interpreter's values and Jacobian", function()
    local cases = {}
    for _, K in ipairs(KERNELS) do cases[#cases + 1] = TC.make_case(K.text, K.name .. ".c", K.name, K.call()) end
    TC.check(cases, AC.SAN and { cc = require("tdriver").CC .. " " .. AC.SAN.flags, env = AC.SAN.env } or nil)
    assert.truthy(cases[1].code:find("#include <stddef.h>", 1, true), cases[1].code)
    assert.truthy(cases[1].code:find("optd = NULL;", 1, true), cases[1].code)
    for _, K in ipairs(KERNELS) do -- vector mode, compiled warning-free
      local code = assert(require("cgwb.tangent").emit(assert(read(K.text)), K.name, { vector = true }))
      local src = H.write(H.tmp(".c"), code)
      assert(os.execute(("%s -c -o %s %s 2>&1"):format(require("tdriver").CC, H.tmp(".o"), src)), code)
    end
  end)

  it("adjoint code, loops auto and none: against central differences of the compiled kernel", function()
    for n, K in ipairs(KERNELS) do
      for _, loops in ipairs { "auto", "none" } do
        local out = AC.check(K.text, K.name, K.call(), { loops = loops, seed = 64 + n, flags = AC.SAN and AC.SAN.flags,
          env = AC.SAN and AC.SAN.env })
        if n == 1 then -- opt is only ever NULL: its shadow is NULL, and so is the callee's adjoint argument
          assert.truthy(out.code:find("optb = NULL;", 1, true), out.code)
        end
        if n == 3 and loops == "auto" then -- the dry run sets the shadow the reverse sweep reads after it
          assert.truthy(out.code:find("dry run: no tape", 1, true), out.code)
          assert.truthy(out.code:find("qb = &ab[i];\n    q = &a[i]; /* 9 */", 1, true), out.code)
        end
      end
    end
  end)

  it("a loop reading a pointer an earlier iteration assigned carries a dependence: not adjoined per iteration", function()
    local src = H.write(H.tmp(".c"), KERNELS[2].text)
    local text, err, code = H.cgwb("loops " .. src .. " --function pick")
    assert.equal(0, code, err)
    assert.truthy(text:find("loop at 10:3 (depth 1, counter i): refuse\n  reason:      the pointer best at 11:9 may "
      .. "hold an earlier iteration's value", 1, true), text)
    local function verdict(body)
      local k = assert(read(HEAD .. "void f(int n, double *restrict a, double *restrict y) {\n  double *p = a, *q = NULL;\n  int i;\n"
        .. body .. "\n}\n"))
      local an = assert(require("cgwb.loops").analyse(k, "f"))
      return an.loops[1].reason
    end
    assert.equal("the pointer p at 7:36 may hold an earlier iteration's value",
      verdict("  for (i = 0; i < n; i++) { y[i] = *p; p = p + 1; }"))
    assert.equal("the pointer q at 7:62 may hold an earlier iteration's value", -- assigned on one branch only
      verdict("  for (i = 0; i < n; i++) { if (a[i] > 0) q = &a[i]; y[i] = q[0]; }"))
    assert.equal("no loop-carried dependence", -- assigned first on every path
      verdict("  for (i = 0; i < n; i++) { if (a[i] > 0) q = &a[i]; else q = a; y[i] = *q * 2.0; }"))
  end)

  it("refuses what C does not define or the subset lacks, with the place", function()
    local function f(b) return HEAD .. "void f(int n, double *x, double *y, int *c) {\n  " .. b .. "\n  y[0] = x[0];\n}\n" end
    local cases = {
      { "if (x < NULL) y[1] = 1.0;", "nu.c:5:9: '<' with NULL (an order is defined only within one object)" },
      { "if (x == c) y[1] = 1.0;", "nu.c:5:9: '==' between double * and int * (pointers to different types)" },
      { "if (x == 1) y[1] = 1.0;", "nu.c:5:9: '==' between a pointer and int" },
      { "int k = x - c;", "nu.c:5:13: the difference of double * and int * (pointers to different types)" },
      { "int k = NULL;", "nu.c:5:11: type mismatch: cannot convert NULL to int" },
      { "if (NULL == 0) y[1] = 1.0;", "nu.c:5:12: a comparison of two null pointer constants is outside the kernel subset" },
      { "y[1] = x + x;", "nu.c:5:12: '+' of two pointers" },
      { "double a[2][3]; int k = &a[1][0] - &a[0][0]; k = a[1] - a[0]; k = a - a;",
        "nu.c:5:71: the difference of pointers to rows of an array is outside" },
      { "double *p = (void *) x;", "nu.c:5:15: a cast to 'void *' is outside the kernel subset" },
      { "y[1] = NULL ? 1.0 : 2.0;", nil },
      { "double *p = (double *) 0, *q = (double *) NULL; if (p == q) y[1] = 1.0;", nil },
    }
    for _, c in ipairs(cases) do
      local k, err = read(f(c[1]), { functions = { "f" } })
      if c[2] then
        assert.is_nil(k, c[1])
        assert.truthy(err:find(c[2], 1, true), c[1] .. "\n" .. tostring(err))
      else
        assert.truthy(k, err)
      end
    end
  end)

  it("NULL as an argument: k:run's {null = true}, CALL.json's null; a dereference of it is the callee's error", function()
    local k = assert(read(KERNELS[1].text))
    local call = KERNELS[1].call()
    call.args[3] = { null = true }
    local r, err = k:run("work", call)
    assert.is_nil(r)
    assert.equal("nu.c:28:30: access through out, which is NULL", err)
    r = assert(k:run("sumsq", { arrays = { darr("x", { 1, 2, 3 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { null = true } } }))
    assert.equal(14, r.ret)
    r, err = k:run("sumsq", { arrays = { darr("x", { 1, 2, 3 }) }, args = { { null = true }, { array = 1, offset = 0 }, { null = true } } })
    assert.is_nil(r)
    assert.truthy(err:find("argument 1 (n): an int expected", 1, true), err)
    local src = H.write(H.tmp(".c"), KERNELS[1].text)
    local cj = H.write(H.tmp(".json"), '{"arrays": {"X": [1, 2, 3]}, "args": {"n": 3, "x": ["X", 0], "scaled": null}}')
    local text, e2, code = H.cgwb("kernel " .. src .. " --function sumsq --call " .. cj)
    assert.equal(0, code, e2)
    assert.truthy(text:find('"return": 14', 1, true), text)
  end)

  it("XAIF refuses NULL, pointer comparisons and differences with their place", function()
    local xaif = require "cgwb.xaif"
    local k = assert(read(KERNELS[2].text))
    local doc, err = xaif.write(k, "pick", {})
    assert.is_nil(doc)
    assert.equal("nu.c:6:18: NULL is outside XAIF (the schema subset has no pointer values)", err)
    local k2 = assert(read(HEAD .. "void g(int n, double *x, double *y) {\n  y[0] = x[0] * (double)(x + n - y);\n}\n"))
    doc, err = xaif.write(k2, "g", {})
    assert.is_nil(doc)
    assert.equal("nu.c:5:32: a pointer difference is outside XAIF (the schema subset has no pointer values)", err)
  end)
end)
