-- spec/53-heap_spec.lua: malloc, calloc and free in kernels (ALLOC and FREE
-- statements, one HEAP symbol per allocation site).  The interpreter's
-- values against the kernel compiled as C; its errors (a read of a malloc'd
-- cell before a write, a use after free, a double free, a free of memory no
-- allocation gave or of a block's inside) and the leak note, each with its
-- position; the front end's refusals with theirs; the alias analysis' object
-- per site; the tangent code against the interpreter's tangent mode (whose
-- Jacobian is checked against central differences of the interpreter); the
-- adjoint code against central differences of the compiled kernel and the
-- interpreter (spec/adcheck.lua), under ASan and UBSan where cc has them.
local H = require "spec.helper"
local cgwb = require "cgwb"
local AC = require "adcheck"
local TC = require "tcheck"

local HEAD = "#include <math.h>\n#include <stdlib.h>\n"

-- The kernels: text, function, call (core form).
local function dbl(vals) return { type = "double", values = vals } end
local function call_of(arrays, args)
  local out = { arrays = {}, args = {} }
  for i, a in ipairs(arrays) do out.arrays[i] = { name = a.name, type = a.type, values = a.values } end
  for i, a in ipairs(args) do out.args[i] = a end
  return out
end

local KERNELS = {
  { -- a block of doubles and a calloc'd block of ints, casts and sizeof *p
    name = "blocks", fname = "blocks", text = HEAD .. [[
void blocks(int n, const double *x, double *y) {
  double *h = (double *) malloc(2 * n * sizeof(double));
  int *c = calloc(n, sizeof *c);
  int i;
  for (i = 0; i < n; i++) {
    h[i] = x[i] * x[i];
    h[n + i] = sin(x[i]) * h[i];
    c[i] += i;
  }
  for (i = 0; i < n; i++) y[i] = h[i] * h[n + i] + c[i] * x[(i + 1) % n];
  free(h);
  free(c);
}
]], call = function() return call_of({ { name = "x", type = "double", values = { 0.5, -1.25, 0.75, 2.0 } },
    { name = "y", type = "double", values = { 0, 0, 0, 0 } } }, { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } }) end },
  { -- a block per iteration, the pointer reassigned in the loop
    name = "perloop", fname = "perloop", text = HEAD .. [[
void perloop(int n, int m, const double *x, double *y) {
  int k, i;
  double *w;
  for (k = 0; k < m; k++) {
    w = (double *) malloc((size_t) n * sizeof(double));
    for (i = 0; i < n; i++) w[i] = x[i] * (k + 1) + sin(x[(i + k) % n]);
    for (i = 0; i < n; i++) y[i] += w[i] * w[(i + 1) % n];
    free(w);
  }
}
]], call = function() return call_of({ { name = "x", type = "double", values = { 0.3, -0.7, 1.1 } },
    { name = "y", type = "double", values = { 0.25, 0.5, -0.5 } } },
    { { int = 3 }, { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } }) end },
  { -- two buffers swapped each step (ping-pong), a calloc'd sum, a callee reading a block
    name = "pingpong", fname = "pingpong", text = HEAD .. [[
static double dot(int n, const double *a, const double *b) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
static void smooth(int n, const double *a, double *b) {
  int i;
  b[0] = a[0];
  b[n - 1] = a[n - 1];
  for (i = 1; i < n - 1; i++) b[i] = a[i] + 0.25 * (a[i - 1] - 2.0 * a[i] + a[i + 1]) * a[i];
}
double pingpong(int n, int steps, const double *u0, double *out) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof *b), *t;
  double *acc = calloc(n, sizeof(double));
  double r;
  int s, i;
  for (i = 0; i < n; i++) a[i] = u0[i];
  for (s = 0; s < steps; s++) {
    smooth(n, a, b);
    for (i = 0; i < n; i++) acc[i] += b[i] * b[i];
    t = a;
    a = b;
    b = t;
  }
  for (i = 0; i < n; i++) out[i] = a[i] + acc[i];
  r = dot(n, a, acc);
  free(a);
  free(b);
  free(acc);
  return r;
}
]], call = function() return call_of({ { name = "u0", type = "double", values = { 0.5, 0.9, -0.4, 0.2, 1.3 } },
    { name = "out", type = "double", values = { 0, 0, 0, 0, 0 } } },
    { { int = 5 }, { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } }) end },
}

-- A C driver printing the kernel's arrays and result after one call.
local function driver(kt, call, fname, k)
  local fn
  for _, f in ipairs(k:functions()) do if f.name == fname then fn = f end end
  local lines = { kt, "#include <stdio.h>", "int main(void) {" }
  local args = {}
  for i, a in ipairs(call.arrays) do
    local vals = {}
    for j, v in ipairs(a.values) do vals[j] = ("%.17g"):format(v) end
    lines[#lines + 1] = ("  double A%d[%d] = {%s};"):format(i, #vals, table.concat(vals, ", "))
  end
  for i, a in ipairs(call.args) do
    args[i] = a.array and ("A" .. a.array) or a.int and tostring(a.int) or ("%.17g"):format(a.double)
  end
  local c = fname .. "(" .. table.concat(args, ", ") .. ")"
  lines[#lines + 1] = fn.ret == "double" and ('  printf("R %.17g\\n", ' .. c .. ");") or ("  " .. c .. ";")
  for i, a in ipairs(call.arrays) do
    lines[#lines + 1] = ("  { int j; for (j = 0; j < %d; j++) printf(\"%%.17g\\n\", A%d[j]); }"):format(#a.values, i)
  end
  lines[#lines + 1] = "  return 0;\n}"
  return table.concat(lines, "\n")
end

local function numbers(text)
  local t = {}
  for x in text:gmatch("[^\n]+") do t[#t + 1] = tonumber((x:gsub("^R ", ""))) end
  return t
end

-- A kernel text's function read, run and its messages.
local function read(text) return cgwb.read_kernel(text, "heap.c") end
local function run(text, fname, call) return assert(read(text)):run(fname, call) end

describe("malloc, calloc and free", function()
  for _, K in ipairs(KERNELS) do
    it(K.name .. ": the interpreter gives the compiled kernel's values bit for bit", function()
      local k = assert(read(K.text))
      local call = K.call()
      local r = assert(k:run(K.fname, call))
      assert.is_nil(r.leak)
      local got = numbers(H.run_c(driver(K.text, call, K.fname, k)))
      local want = {}
      if r.ret then want[1] = r.ret end
      for _, a in ipairs(r.arrays) do for _, v in ipairs(a.values) do want[#want + 1] = v end end
      H.assert_bits(want, got, K.name)
    end)
  end

  it("each allocation site is one object of the alias analysis, a heap symbol", function()
    local k = assert(read(KERNELS[3].text))
    local kinds = {}
    for _, s in ipairs(k:symbols("pingpong")) do if s.kind == "heap" then kinds[#kinds + 1] = s.name end end
    assert.same({ "a@16", "b@16", "acc@17" }, kinds)
    local an = assert(k:analyze("pingpong"))
    local heap = {}
    for _, o in ipairs(an.alias.objects) do if o.kind == "heap" then heap[#heap + 1] = o.name end end
    assert.same({ "a@16", "b@16", "acc@17" }, heap)
    -- the swapped pointers may reach both blocks
    local text = select(1, H.cgwb("kernel " .. H.write(H.tmp(".c"), KERNELS[3].text) .. " --function pingpong --alias"))
    assert.truthy(text:find("a@16", 1, true) and text:find("b@16", 1, true), text)
  end)

  it("the interpreter's errors name their place", function()
    local call = KERNELS[1].call()
    local function body(b)
      return HEAD .. "void blocks(int n, const double *x, double *y) {\n  double *h = malloc(n * sizeof(double));\n"
        .. "  int i;\n  for (i = 0; i < n; i++) h[i] = x[i];\n" .. b .. "}\n"
    end
    local cases = {
      { "  y[0] = h[0];\n  free(h);\n", nil },
      { "  free(h);\n  y[0] = h[1];\n", "heap.c:8:11: use of h@4 after its free (line 7)" },
      { "  free(h);\n  free(h);\n", "heap.c:8:3: double free of h@4 (freed before at line 7)" },
      { "  free(h);\n  free(y);\n", "heap.c:8:3: free of y, which malloc or calloc did not give" },
      { "  free(h + 1);\n", "heap.c:7:3: free of cell 1 of h@4, not its start" },
      { "  { double *g = malloc(2 * sizeof *g); g[0] = 1.0; y[0] = g[1]; free(g); }\n  free(h);\n",
        "heap.c:7:60: read of uninitialized g@7[1]" },
      { "  y[0] = h[n];\n  free(h);\n", "heap.c:7:11: access to cell 4 of h@4, which has 4 cells" },
    }
    for _, c in ipairs(cases) do
      local k = assert(read(body(c[1])))
      local r, err = k:run("blocks", call)
      if c[2] then assert.equal(c[2], err) else assert.truthy(r, err) end
    end
    -- a leak is a note of the result, not an error
    local r = assert(run(body("  y[0] = h[0];\n"), "blocks", call))
    assert.equal(1, r.leaks)
    assert.equal("heap.c:4:11: note: 1 block of malloc or calloc never freed (the first from here)", r.leak)
    local src = H.write(H.tmp(".c"), body("  y[0] = h[0];\n"))
    local callf = H.write(H.tmp(".json"), '{"args": {"n": 4, "x": ["X", 0], "y": ["Y", 0]}, '
      .. '"arrays": {"X": [1, 2, 3, 4], "Y": [0, 0, 0, 0]}}')
    local _, err, code = H.cgwb("kernel " .. src .. " --function blocks --call " .. callf)
    assert.equal(0, code, err)
    assert.truthy(err:find("4:11: note: 1 block of malloc or calloc never freed", 1, true), err)
  end)

  it("the front end refuses what it cannot read, with the place", function()
    local function f(b) return HEAD .. "void f(int n, double *x, double *y) {\n  " .. b .. "\n  y[0] = x[0];\n}\n" end
    local cases = {
      { "double *h = malloc(n * 12); free(h);", "heap.c:4:24: this size of 'malloc' is outside the kernel subset" },
      { "double *h = malloc(20); free(h);", "heap.c:4:22: a size of 'malloc' of 20 bytes for cells of 8 is outside" },
      { "double *h = malloc(n * sizeof(int)); free(h);",
        "heap.c:4:26: a size of 'malloc' counted in sizeof of 4 bytes is outside the kernel subset (the cells are double" },
      { "double *h = realloc(x, 8);", "heap.c:4:23: a realloc of the parameter 'x' is outside the kernel subset" },
      { "y[1] = *(double *) malloc(8);", "heap.c:4:22: a call of 'malloc' inside an expression is outside" },
      { "double *h = (int *) malloc(8);", "heap.c:4:23: the result of 'malloc' cast to 'int *' assigned to 'double *'" },
      { "x[1] = malloc(8);", "heap.c:4:10: the result of 'malloc' stored in this place is outside" },
      { "double *h = calloc(n, 3); free(h);", "heap.c:4:25: a size of 'calloc' of 3 bytes for cells of 8 is outside" },
    }
    for _, c in ipairs(cases) do
      local k, err = cgwb.read_kernel(f(c[1]), "heap.c", { functions = { "f" } })
      assert.is_nil(k)
      assert.truthy(err:find(c[2], 1, true), c[1] .. "\n" .. tostring(err))
    end
    -- what reads: a cast to an integer type in the size, (void *) on free, a size as a constant
    for _, b in ipairs { "double *h = malloc((size_t)n * sizeof *h); free((void *) h);",
      "double *h = malloc(sizeof(double) * n * 2); free(h);", "int *c = calloc(4, 8); free(c);" } do
      assert(cgwb.read_kernel(f(b), "heap.c", { functions = { "f" } }))
    end
  end)

  it("XAIF has no allocation: refused with the place", function()
    local src = H.write(H.tmp(".c"), KERNELS[1].text)
    local _, err, code = H.cgwb("flatten " .. src .. " --function blocks --xaif " .. H.tmp(".xaif"))
    assert.are_not.equal(0, code)
    assert.truthy(err:find(":4:11: an allocation is outside XAIF (XAIF has no allocation", 1, true), err)
  end)

  it("the interpreter's tangent mode matches central differences", function()
    for _, K in ipairs(KERNELS) do
      local k = assert(read(K.text))
      local call = K.call()
      local J = assert(k:jacobian(K.fname, call))
      local h = 1e-6
      for j, c in ipairs(J.cols) do
        if c.array then
          local function at(d)
            local cl = K.call()
            cl.arrays[c.array].values[c.cell + 1] = cl.arrays[c.array].values[c.cell + 1] + d
            local r = assert(k:run(K.fname, cl))
            return r
          end
          local rp, rm = at(h), at(-h)
          for i, row in ipairs(J.rows) do
            local fp = row.array and rp.arrays[row.array].values[row.cell + 1] or rp.ret
            local fm = row.array and rm.arrays[row.array].values[row.cell + 1] or rm.ret
            local cd = (fp - fm) / (2 * h)
            assert(math.abs(cd - J.values[i][j]) <= 1e-6 * (1 + math.abs(cd)),
              ("%s: J[%d][%d] %.17g, central differences %.17g"):format(K.name, i, j, J.values[i][j], cd))
          end
        end
      end
    end
  end)

  it("tangent code: a tangent block beside each block of doubles, the interpreter's values and Jacobian", function()
    local cases = {}
    for _, K in ipairs(KERNELS) do cases[#cases + 1] = TC.make_case(K.text, K.name .. ".c", K.fname, K.call()) end
    TC.check(cases, AC.SAN and { cc = require("tdriver").CC .. " " .. AC.SAN.flags, env = AC.SAN.env } or nil)
    assert.truthy(cases[1].code:find("hd = calloc((size_t)(2 * n), sizeof(double));", 1, true), cases[1].code)
    assert.truthy(cases[1].code:find("free(hd);\n  free(h);", 1, true), cases[1].code)
  end)

  it("vector-mode tangent code: nd tangents a cell in each tangent block, compiled warning-free", function()
    for _, K in ipairs(KERNELS) do
      local k = assert(read(K.text))
      local code = assert(require("cgwb.tangent").emit(k, K.fname, { vector = true }))
      assert.truthy(code:find(" * (size_t)cg_nd, sizeof(double));", 1, true), code)
      local src = H.write(H.tmp(".c"), code)
      assert(os.execute(("%s -c -o %s %s 2>&1"):format(require("tdriver").CC, H.tmp(".o"), src)), code)
    end
  end)

  it("adjoint code: frees after the reverse sweep, adjoint blocks beside, against central differences", function()
    for n, K in ipairs(KERNELS) do
      local out = AC.check(K.text, K.fname, K.call(), { seed = n, flags = AC.SAN and AC.SAN.flags,
        env = AC.SAN and AC.SAN.env })
      assert.truthy(out.code:find("free(", 1, true), out.code)
    end
  end)

  it("a loop that allocates is not adjoined per iteration, and says why", function()
    local k = assert(read(KERNELS[2].text))
    local loops = assert(require("cgwb.loops").analyse(k, "perloop"))
    local why
    for _, l in ipairs(loops.loops) do if l.line == 6 then why = l.reason end end
    assert.equal("an allocation at 7:5 inside the loop (its blocks are one object of the analysis)", why)
  end)
end)
