-- spec/61-realloc_spec.lua: `p = realloc(p, bytes)` and `q = realloc(p,
-- bytes)` in kernels, lowered by the front end (kparse/heap.lua) to a new
-- block, a copy of min(old, new) cells, a free of the old block and the
-- pointer's assignment, the old count kept in a hidden int per pointer.
-- The interpreter's values against the kernel compiled as C, bit for bit;
-- a read of a grown cell before its write is an interpreter error; tangent
-- code (spec/tcheck.lua) and adjoint code (spec/adcheck.lua) against the
-- interpreter and central differences; the refusals, each with its place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local AC = require "adcheck"
local TC = require "tcheck"

local HEAD = "#include <math.h>\n#include <stdlib.h>\n"

local function darr(name, vals) return { name = name, type = "double", values = vals } end
local function iarr(name, vals) return { name = name, type = "int", values = vals } end

local KERNELS = {
  { -- a work array of doubles doubled m times in a loop, then shrunk
    name = "grow", text = HEAD .. [[
void grow(int m, const double *x, double *y) {
  int n = 2, k, i;
  double *w = (double *) malloc(n * sizeof(double));
  for (i = 0; i < n; i++) w[i] = x[i] * x[i];
  for (k = 0; k < m; k++) {
    n *= 2;
    w = (double *) realloc(w, n * sizeof(double));
    for (i = n / 2; i < n; i++) w[i] = sin(w[i - n / 2]) + x[i % 4];
  }
  n = n / 2 + 1;
  w = realloc(w, n * sizeof *w);
  for (i = 0; i < n; i++) y[i % 4] += w[i] * w[(i + 1) % n];
  free(w);
}
]], call = function()
      return { arrays = { darr("x", { 0.5, -1.25, 0.75, 2.0 }), darr("y", { 0.125, 0, -0.5, 0 }) },
        args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- an int block grown and shrunk; q = realloc(p, ...) to another pointer; a calloc'd block grown
    name = "moved", ret = "double", text = HEAD .. [[
double moved(int n, const double *x, int *c) {
  int *h = calloc(n, sizeof(int));
  double *p = malloc(sizeof(double) * n), *q;
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) { h[i] = c[i] * 3 + i; p[i] = x[i] * h[i]; }
  h = (int *) realloc(h, (size_t) (n + 3) * sizeof *h);
  for (i = n; i < n + 3; i++) h[i] = h[i - n] - 1;
  h = realloc(h, 2 * sizeof(int));
  q = realloc(p, 2 * n * sizeof *q);
  for (i = n; i < 2 * n; i++) q[i] = cos(q[i - n]) * h[i % 2];
  for (i = 0; i < 2 * n; i++) s += q[i] * q[(i + 3) % (2 * n)];
  c[0] = h[0] + h[1];
  free(h);
  free(q);
  return s;
}
]], call = function()
      return { arrays = { darr("x", { 0.3, -0.7, 1.1, 0.45, -0.2 }), iarr("c", { 2, -1, 4, 0, 7 }) },
        args = { { int = 5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end },
  { -- an array appended to in a loop: the realloc comes before the malloc in the text, not in the run
    name = "append", ret = "double", text = HEAD .. [[
double append(int n, const double *x) {
  double *w;
  double s = 0.0;
  int k, i, m = 0;
  for (k = 0; k < 3; k++) {
    if (k > 0) w = realloc(w, (m + n) * sizeof *w);
    else w = malloc(n * sizeof *w);
    for (i = 0; i < n; i++) w[m + i] = x[i] * (k + 1) + sin(s);
    m += n;
    s += w[m - 1];
  }
  for (i = 0; i < m; i++) s += w[i] * w[m - 1 - i];
  free(w);
  return s;
}
]], call = function()
      return { arrays = { darr("x", { 0.3, -0.7, 1.1 }) }, args = { { int = 3 }, { array = 1, offset = 0 } } }
    end },
}

local kgen = require "kgen"

local function read(text) return cgwb.read_kernel(text, "re.c") end

describe("realloc", function()
  it("lowers to a new block, a copy loop, free and the count's update: only existing statements", function()
    local k = assert(read(KERNELS[1].text))
    local heap, cells = {}, 0
    for _, s in ipairs(k:symbols("grow")) do
      if s.kind == "heap" then heap[#heap + 1] = s.name end
      if s.name == "w@cells" then cells = cells + 1 end
    end
    assert.same({ "w@5", "w@9", "w@13" }, heap) -- a site per allocation, realloc's own
    assert.equal(1, cells) -- one hidden count for w
    local kinds = {}
    for _, s in ipairs(k:statements("grow")) do if s.line == 9 then kinds[s.kind] = (kinds[s.kind] or 0) + 1 end end
    assert.same({ assign = 7, alloc = 1, loop = 1, free = 1 }, kinds)
    -- no allocation counts a pointer no realloc takes
    local k2 = assert(read(HEAD .. "void f(int n, double *y) { double *a = malloc(n * sizeof *a); a[0] = 1.0;"
      .. " y[0] = a[0]; free(a); }\n"))
    for _, s in ipairs(k2:symbols("f")) do assert.falsy(s.name:find("@cells", 1, true), s.name) end
  end)

  for _, K in ipairs(KERNELS) do
    it(K.name .. ": the interpreter gives the compiled kernel's values bit for bit", function()
      local want, got, r = kgen.interp_vs_cc(read, K, K.call())
      assert.is_nil(r.leak)
      assert.equal(want, got)
    end)
  end

  it("keeps the first min(old, new) cells: grown cells are uninitialized, shrunk cells gone", function()
    local function f(b)
      return HEAD .. "void f(int n, const double *x, double *y) {\n  double *w = malloc(n * sizeof *w);\n"
        .. "  int i;\n  for (i = 0; i < n; i++) w[i] = x[i];\n" .. b .. "  free(w);\n}\n"
    end
    local call = { arrays = { darr("x", { 1.5, 2.5, 3.5 }), darr("y", { 0, 0, 0 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    local cases = {
      { "  w = realloc(w, 2 * n * sizeof *w);\n  y[0] = w[n];\n", nil, "re.c:8:11: read of uninitialized w@7[3]" },
      { "  w = realloc(w, 2 * n * sizeof *w);\n  w[n] = 4.0;\n  y[0] = w[n] + w[n - 1];\n", 7.5 },
      { "  w = realloc(w, 2 * sizeof *w);\n  y[0] = w[2];\n", nil,
        "re.c:8:11: access to cell 2 of w@7, which has 2 cells" },
      { "  w = realloc(w, 2 * sizeof *w);\n  y[0] = w[0] + w[1];\n", 4.0 },
      { "  free(w);\n  w = realloc(w, 2 * sizeof *w);\n", nil, "re.c:8:15: use of w@4 after its free (line 7)" },
    }
    for _, c in ipairs(cases) do
      local k = assert(read(f(c[1])))
      local r, err = k:run("f", call)
      if c[2] then
        assert.truthy(r, err)
        assert.equal(c[2], r.arrays[2].values[1])
        assert.is_nil(r.leak)
      else
        assert.equal(c[3], err)
      end
    end
  end)

  it("tangent code: the copy carries the tangents, the interpreter's values and Jacobian", function()
    local cases = {}
    for _, K in ipairs(KERNELS) do cases[#cases + 1] = TC.make_case(K.text, K.name .. ".c", K.name, K.call()) end
    TC.check(cases, AC.SAN and { cc = require("tdriver").CC .. " " .. AC.SAN.flags, env = AC.SAN.env } or nil)
    assert.truthy(cases[1].code:find("t3_9 = (w_cells < t1_9) ? w_cells : t1_9;", 1, true), cases[1].code)
    assert.truthy(cases[1].code:find("cg_d1 = wd[t4_9];\n        cg_t1 = &t2_9d[t4_9];", 1, true), cases[1].code)
    -- vector mode: nd tangents a cell in the new tangent block, compiled warning-free (not append: gcc
    -- cannot see that its w is set before the realloc runs, a maybe-uninitialized of the kernel's own)
    for _, K in ipairs { KERNELS[1], KERNELS[2] } do
      local code = assert(require("cgwb.tangent").emit(assert(read(K.text)), K.name, { vector = true }))
      local src = H.write(H.tmp(".c"), code)
      assert(os.execute(("%s -c -o %s %s 2>&1"):format(require("tdriver").CC, H.tmp(".o"), src)), code)
    end
  end)

  it("adjoint code, loops auto and none: against central differences of the compiled kernel", function()
    for n, K in ipairs(KERNELS) do -- (moved's int loops are not terminal: spec 31, "a loop that writes ints")
      for _, loops in ipairs { "auto", "none" } do
        AC.check(K.text, K.name, K.call(), { loops = loops, seed = 60 + n, flags = AC.SAN and AC.SAN.flags,
          env = AC.SAN and AC.SAN.env })
      end
    end
  end)

  it("refuses what has no known count or does not read, with the place", function()
    local function f(b) return HEAD .. "void f(int n, double *x, double *y) {\n  " .. b .. "\n  y[0] = x[0];\n}\n" end
    local cases = {
      { "x = realloc(x, 2 * n * sizeof *x);",
        "re.c:4:15: a realloc of the parameter 'x' is outside the kernel subset (the caller's block" },
      { "double *h; h = realloc(h, n * sizeof *h); free(h);",
        "re.c:4:26: a realloc of 'h' is outside the kernel subset (no malloc, calloc or realloc of this function" },
      { "double *h = malloc(n * sizeof *h); h = y; h = realloc(h, 2 * n * sizeof *h); free(h);",
        "re.c:4:57: a realloc of 'h' is outside the kernel subset ('h' is also assigned at line 4, not by an alloc" },
      { "double *h = malloc(n * sizeof *h); int i;\n"
        .. "  for (i = 0; i < 2; i++) { h = realloc(h, 2 * n * sizeof *h); h = h + 1; }",
        "re.c:5:41: a realloc of 'h' is outside the kernel subset ('h' is also assigned at line 5" },
      { "double *h = malloc(n * sizeof *h); y[1] = *(double *) realloc(h, 8);",
        "re.c:4:57: a call of 'realloc' inside an expression is outside the kernel subset" },
      { "double *h = malloc(n * sizeof *h); x[1] = realloc(h, 8);",
        "re.c:4:45: the result of 'realloc' stored in this place is outside" },
      { "double *h = realloc(NULL, n * sizeof *h); free(h);",
        "re.c:4:15: a realloc of a null pointer is outside the kernel subset (allocate with malloc)" },
      { "double *h = realloc(0, n * sizeof *h); free(h);", "re.c:4:15: a realloc of a null pointer is outside" },
      { "double *h = realloc(n, n * sizeof *h); free(h);", "re.c:4:23: 'realloc' of int, not a pointer" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h + 1, n * sizeof *h); free(h);",
        "re.c:4:52: a realloc of a pointer expression is outside" },
      { "double *h = malloc(n * sizeof *h); int *c = realloc(h, n * sizeof *h); free(c);",
        "re.c:4:55: the result of 'realloc' of 'double *' assigned to 'int *'" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h, n * 12); free(h);",
        "re.c:4:55: this size of 'realloc' is outside the kernel subset (the size must read as a count" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h, n * sizeof(int)); free(h);",
        "re.c:4:57: a size of 'realloc' counted in sizeof of 4 bytes is outside the kernel subset" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h, 12); free(h);",
        "re.c:4:53: a size of 'realloc' of 12 bytes for cells of 8 is outside" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h, 0);",
        "re.c:4:53: a realloc to 0 bytes is outside the kernel subset (whether it frees the block" },
      { "double *h = malloc(n * sizeof *h); h = realloc(h);", "re.c:4:42: 'realloc' takes 2 arguments, not 1" },
      { "struct B { double *p; } b; b.p = malloc(n * sizeof(double)); b.p = realloc(b.p, 2 * n * sizeof(double));",
        "re.c:4:79: a realloc of a struct's member is outside the kernel subset (the count of a block is kept" },
    }
    for _, c in ipairs(cases) do
      local k, err = cgwb.read_kernel(f(c[1]), "re.c", { functions = { "f" } })
      assert.is_nil(k, c[1])
      assert.truthy(err:find(c[2], 1, true), c[1] .. "\n" .. tostring(err))
    end
    -- what reads: casts of the argument and of the result, a declaration's initializer
    for _, b in ipairs { "double *h = malloc(n * sizeof *h); h = (double *) realloc((void *) h, sizeof(double) * n * 2);"
      .. " free(h);", "double *h = malloc(n * sizeof *h); double *g = realloc(h, n * sizeof *g); free(g);",
      "int *c = calloc(n, sizeof *c); c = (int *) realloc(c, (size_t) (2 * n) * sizeof(int)); free(c);" } do
      assert(cgwb.read_kernel(f(b), "re.c", { functions = { "f" } }))
    end
  end)

  it("the command line prints the lowering", function()
    local src = H.write(H.tmp(".c"), KERNELS[1].text)
    local text, err, code = H.cgwb("kernel " .. src .. " --function grow")
    assert.equal(0, code, err)
    assert.truthy(text:find("w@cells = n\n", 1, true), text)
    assert.truthy(text:find("t3@9 = w@cells < t1@9 ? w@cells : t1@9", 1, true), text)
    assert.truthy(text:find("free%(w%)\n%s+s19%s+9:5%s+w = t2@9\n%s+s20%s+9:5%s+w@cells = t1@9"), text)
  end)
end)
