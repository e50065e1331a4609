-- spec/31-adjoint_spec.lua: adjoint code (doc/adjoint-code.md).
-- Each case is compiled (cc -std=c99 -Wall -Wextra -Werror -pedantic) with a
-- driver (spec/addriver.lua) and checked against independent computations:
-- the primal results equal the kernel's own F (compiled from its text) bit
-- for bit; the dot-product test <yb, J xd> = <J^T yb, xd> with J xd from
-- central finite differences of the compiled kernel (1e-6 relative) and
-- from the interpreter's tangent mode (k:jacobian, 1e-12); the standard and
-- the per-iteration (transformed) adjoint agree to 1e-12 relative; the
-- transformed tape does not grow with the loop length.
local H = require "spec.helper"
local cgwb = require "cgwb"
local adjoint = require "cgwb.adjoint"
local rng = require "rng"
local T = require "tdriver"
local A = require "addriver"
local C = require "adcheck"
local close, check, arr, ramp, stmt_of_line = C.close, C.check, C.arr, C.ramp, C.stmt_of_line
local SAN = C.SAN -- ASan and UBSan flags, or nil

describe("the standard and transformed adjoints", function()
  it("scalar chain with a double result", function()
    local text = [[
#include <math.h>
double f(double x, double y) {
  double t = x * y;
  t = sin(t) + x / y;
  t = t * t - exp(-x);
  return t * sqrt(y);
}
]]
    check(text, "f", { arrays = {}, args = { { double = 0.7 }, { double = 1.3 } } })
  end)

  it("x = x * y self-reference, in-out array", function()
    local text = [[
#include <math.h>
void g(double *restrict x, const double *restrict y, int n) {
  int i;
  for (i = 0; i < n; i++) {
    x[i] = x[i] * y[i];
    x[i] = x[i] * x[i] + y[i];
  }
}
]]
    local res = check(text, "g", { arrays = { arr("double", ramp(6, 0.5, 1.5)), arr("double", ramp(6, -1, 2)) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { int = 6 } } })
    assert.is_true(res.rep.loops[1].transformed)
  end)

  it("ints and moving pointers, if/else, while and do loops", function()
    local text = [[
#include <math.h>
void h(double *a, const double *b, int n) {
  double *p = a;
  const double *q = b + 1;
  int i = 0;
  int m = 0;
  while (i < n) {
    if (i % 2 == 0) {
      *p = *p * q[0] + (double)i;
    } else {
      *p = cos(*p) - q[-1];
    }
    p = p + 1;
    q = q + 1;
    i++;
  }
  do {
    m = m + 1;
    a[m] = a[m] * a[m - 1];
  } while (m < 3);
}
]]
    check(text, "h", { arrays = { arr("double", ramp(8, 0.2, 1.1)), arr("double", ramp(8, -0.5, 0.9)) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { int = 5 } } })
  end)

  it("calls in loop conditions (the pre slice), while and do", function()
    local text = [[
#include <math.h>
static double g(double v, int i) { return v * (double)(3 - i); }
void h(double *a, int n) {
  int i = 0;
  double s = a[0];
  while (g(s, i) > 0.0 && i < n) {
    s = s * a[i + 1] + sin(s);
    i = i + 1;
  }
  a[0] = s;
  do {
    a[i] = a[i] * s;
    i = i - 1;
  } while (g(a[i + 1], i) > -5.0 && i > 0);
}
]]
    check(text, "h", { arrays = { arr("double", ramp(8, 0.6, 1.1)) }, args = { { array = 1, offset = 0 }, { int = 3 } } })
  end)

  it("nested loops and local arrays (2-D too)", function()
    local text = [[
void m(const double *x, double *y, int n) {
  double L[3];
  double M[2][2];
  int i, j;
  for (i = 0; i < 3; i++) L[i] = x[i] * x[i];
  M[0][0] = L[0]; M[0][1] = L[1]; M[1][0] = L[2]; M[1][1] = x[3];
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < 2; j++) {
      y[i] = y[i] + M[j][i % 2] * x[i + j];
    }
  }
}
]]
    check(text, "m", { arrays = { arr("double", ramp(8, 0.3, 1.7)), arr("double", ramp(8, 0, 0)) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { int = 5 } } })
  end)

  it("calls with by-value and pointer arguments and double results", function()
    local text = [[
#include <math.h>
static double sq(double v) { return v * v; }
static void acc(double *s, const double *w, double v) {
  *s += w[1] * v;
  v = v * 2.0;
  *s += sin(v);
}
static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }
void c(const double *x, double *y, double t, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    acc(&s, x + i, sq(x[i]) * t);
    y[i] = dot2(x + i, y + i) + s;
  }
  y[0] = sq(s + t);
}
]]
    check(text, "c", { arrays = { arr("double", ramp(8, 0.3, 1.7)), arr("double", ramp(8, -1, 1)) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { double = 0.8 }, { int = 5 } } },
      { no_interp = false })
  end)

  it("globals (read-only, also in a callee), a local array and the address of a scalar passed on", function()
    local text = [[
#include <math.h>
static const double W[3] = {0.5, -1.25, 2.0};
static const double c0 = 1.5;
static const double G2[2][2] = {{0.5, 1.0}, {1.5, 2.0}};
static void acc(double *s, const double *w, double v) {
  *s += w[1] * v + c0;
}
double f(double *a, const double *b, int n, double x) {
  double s = 0.0, t;
  double L[3] = {0.25, 0.5, 0.75};
  int i;
  for (i = 0; i < n; i++) {
    t = b[i] * x + W[i % 3] + G2[i % 2][1] * x;
    acc(&s, L, t * t);
    L[i % 3] = t * W[0];
    a[i] = t * t - s;
  }
  return s / (1.0 + a[0] * a[0]);
}
]]
    check(text, "f", { arrays = { arr("double", ramp(6, 0.5, -0.5)), arr("double", ramp(6, 0.2, 1.2)) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { int = 4 }, { double = 0.625 } } })
  end)

  it("a passive double parameter's adjoint stays untouched", function()
    local text = [[
void p(int n, const double *x, double *y, double c) {
  int i;
  for (i = 0; i < n; i++) y[i] = c * x[i] * x[i];
}
]]
    local k = assert(cgwb.read_kernel(text, "p.c"))
    local code = assert(adjoint.emit(k, "p", { independents = { "x" }, dependents = { "y" } }))
    local exe = A.compile_adjoint(code, "p", text)
    local call = { arrays = { arr("double", { 1, 2, 3 }), arr("double", { 0, 0, 0 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { double = 1.5 } } }
    local res = A.run(exe, call, { arrays = { [2] = { 1, 1, 1 } }, args = { [4] = 7.25 } })
    A.free(exe)
    assert.equal(7.25, res.S[4]) -- never written
    assert.same({ 3.0, 6.0, 9.0 }, res.B[1]) -- 2 c x[i]
    assert.same({ 0.0, 0.0, 0.0 }, res.B[2]) -- the dependents' adjoints consumed
    assert.is_nil(code:find("cg_cb +=", 1, true))
  end)

  it("a reduction needs no special code; the dry-run loop's tape stays flat", function()
    local text = [[
#include <math.h>
void r(int n, const double *x, double *out) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) {
    double t = x[i] * x[i];
    s = s + sin(t);
  }
  out[0] = s * s;
}
]]
    local function call(n)
      return { arrays = { arr("double", ramp(n, 0.1, 1.3)), arr("double", { 0.0 }) },
        args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    end
    local a = check(text, "r", call(10))
    local b = check(text, "r", call(40))
    assert.equal("reduction", a.rep.loops[1].access.s)
    assert.is_true(a.rep.loops[1].dry_run)
    assert.is_true(a.rep.loops[1].transformed)
    assert.equal(a.tr.stats.high_water, b.tr.stats.high_water) -- independent of the loop length
    assert.is_true(b.std.stats.high_water > 3 * a.std.stats.high_water) -- the standard tape grows
  end)

  it("a terminal own-index loop: tape high-water independent of n, n and 4n", function()
    local text = [[
#include <math.h>
void t(int n, const double *restrict x, double *restrict y, double c) {
  int i;
  for (i = 0; i < n; i++) {
    double u = x[i] * c;
    y[i] = u * exp(-u) + y[i] * y[i];
  }
}
]]
    local function call(n)
      return { arrays = { arr("double", ramp(n, 0.1, 1.3)), arr("double", ramp(n, 0.5, -0.5)) },
        args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { double = 0.9 } } }
    end
    local a = check(text, "t", call(16))
    local b = check(text, "t", call(64))
    assert.is_true(a.rep.loops[1].terminal)
    assert.equal(a.tr.stats.high_water, b.tr.stats.high_water)
    assert.is_true(b.std.stats.high_water > 3 * a.std.stats.high_water)
  end)

  it("a dry-run while loop whose counter an earlier statement reads", function()
    local text = [[
#include <math.h>
void w(int n, const double *restrict x, double *restrict y) {
  int i = 1;
  y[i] = x[0] * x[0];
  while (i < n) {
    y[i + 1] = sin(x[i]) * x[i];
    i = i + 1;
  }
  y[0] = y[2] * x[1] + y[1];
}
]]
    -- the analysis knows no while-loop counter: a hand-made row (the loop is independent: y[i + 1] own-index)
    local k = assert(cgwb.read_kernel(text, "w.c"))
    local syms = {}
    for i, s in ipairs(k:symbols("w")) do syms[s.name] = i end
    local info = { loops = { { stmt = stmt_of_line(k, "w", 5), line = 5, col = 3, depth = 1, parent = false, index = "i",
      verdict = "accept", independent = true, reason = "no loop-carried dependence", terminal = false, dry_run = true,
      snapshot = { { name = "i", sym = syms.i, scalar = true } }, access = {} } } }
    local a = check(text, "w", { arrays = { arr("double", ramp(7, 0.2, 1.4)), arr("double", ramp(7, 0, 0)) },
      args = { { int = 5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }, { info = info })
    assert.is_true(a.rep.loops[1].transformed)
    assert.is_true(a.rep.loops[1].dry_run)
  end)

  it("a hand-made analysis: a dry-run loop that overwrites what it reads, snapshot restored", function()
    local text = [[
void d(int n, double *restrict q, double *restrict y) {
  int i;
  y[0] = q[0] * q[1];
  for (i = 0; i < n; i++) {
    q[i] = q[i] * q[i] + 1.0;
  }
  y[1] = y[0] + q[2];
}
]]
    local k = assert(cgwb.read_kernel(text, "d.c"))
    local st = stmt_of_line(k, "d", 4)
    local syms = {}
    for i, s in ipairs(k:symbols("d")) do syms[s.name] = i end
    local info = { loops = { { stmt = st, line = 4, col = 3, depth = 1, parent = false, index = "i", verdict = "accept",
      independent = true, reason = "no loop-carried dependence", terminal = false, dry_run = true,
      snapshot = { { name = "q", sym = syms.q, scalar = false } }, access = {} } } }
    local call = { arrays = { arr("double", ramp(6, 0.4, 1.4)), arr("double", { 0, 0 }) },
      args = { { int = 6 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    local a = check(text, "d", call, { info = info, loops = { 4 } })
    assert.equal(6 * 24 + 8, a.tr.stats.snapshot) -- six cells (value, offset, array, tag) and their count
  end)

  it("the example kernels: meshflux, roe, flux1d", function()
    local r = rng.new(7)
    for _, c in ipairs { { "examples/kernels/meshflux.c", "residual" }, { "examples/kernels/roe.c", "roe" },
                         { "examples/kernels/flux1d.c", "flux1d" } } do
      local text = H.read(c[1])
      local k = assert(cgwb.read_kernel(text, c[1]))
      local call = T.any_call(k, c[2], r, false)
      if c[2] == "residual" then call.args[1] = { int = 5 } end
      if c[2] == "roe" then -- a physical state: positive densities and pressures
        call = { arrays = { arr("double", { 1.0, 0.3, 0.2, 2.5 }), arr("double", { 0.9, 0.25, -0.1, 2.2 }),
          arr("double", { 0, 0, 0, 0 }) }, args = { { array = 1, offset = 0 }, { array = 2, offset = 0 },
          { double = 0.6 }, { double = 0.8 }, { double = 1.4 }, { array = 3, offset = 0 } } }
      end
      check(text, c[2], call)
    end
  end)
end)

describe("the mesh kernel with q and res apart", function()
  it("adjoins the triangle loop per iteration (terminal), the tape flat in the number of triangles", function()
    local text = H.read("examples/kernels/meshflux.c")
    local function call(ntri)
      local tri, r = {}, rng.new(ntri)
      for i = 1, 3 * ntri do tri[i] = r:int(0, 9) end
      return { arrays = { arr("int", tri), arr("double", ramp(10, 0.3, 1.9)), arr("double", ramp(10, 0, 0)) },
        args = { { int = ntri }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
          { double = 0.7 } } }
    end
    -- the triangle loop is independent: f, a local array of the body, is written before it is read in
    -- each iteration (private), res only incremented; the analysis proves it once q and res are apart
    local a = check(text, "residual", call(8), { emit = { assume = { "q!=res" } } })
    local b = check(text, "residual", call(32), { emit = { assume = { "q!=res" } } })
    assert.equal("accept", a.rep.loops[1].verdict)
    assert.is_true(a.rep.loops[1].terminal and a.rep.loops[1].transformed)
    assert.is_false(a.rep.loops[2].transformed) -- nested in the transformed loop
    assert.equal(a.tr.stats.high_water, b.tr.stats.high_water)
    assert.is_true(b.std.stats.high_water > 3 * a.std.stats.high_water)
  end)
end)

describe("the paper's loops (examples/kernels/hfh-*.c)", function()
  it("standard and transformed adjoints agree and pass the dot-product tests; accepted loops are transformed", function()
    local r = rng.new(16)
    local p = io.popen("ls examples/kernels/hfh-*.c")
    local n, transformed = 0, 0
    for path in p:lines() do
      local text = H.read(path)
      local k = assert(cgwb.read_kernel(text, path))
      for _, f in ipairs(k:functions()) do
        local call = T.any_call(k, f.name, r, false)
        for i, prm in ipairs(f.params) do
          if prm.type == "int" then call.args[i] = { int = 6 } end -- loop lengths within the 64 cells
        end
        local res = check(text, f.name, call, { seed = n })
        for _, l in ipairs(res.rep.loops) do
          if l.verdict ~= "accept" then assert.is_false(l.transformed, path .. ":" .. l.line) end
          if l.transformed then transformed = transformed + 1 end
        end
        n = n + 1
      end
    end
    p:close()
    assert.is_true(n >= 9)
    assert.is_true(transformed >= 3)
  end)
end)

describe("every example kernel", function()
  it("every function of examples/kernels/*.c through both adjoints (roe at a physical state)", function()
    local r = rng.new(43)
    local p = io.popen("ls examples/kernels/*.c")
    local n = 0
    for path in p:lines() do
      local text = H.read(path)
      local k = assert(cgwb.read_kernel(text, path))
      for _, f in ipairs(k:functions()) do
        if text:find("static%s+[%w_]+%s+" .. f.name .. "%(") then goto next end -- the driver cannot call it
        if f.name == "nsloops" then goto next end -- needs a mesh and a physical state: spec 33 runs it
        local call = T.any_call(k, f.name, r, false)
        for i, prm in ipairs(f.params) do if prm.type == "int" then call.args[i] = { int = 3 } end end
        if f.name == "roe" then
          call.arrays[1].values = { 1.0, 0.3, 0.2, 2.5 }
          call.arrays[2].values = { 0.9, 0.25, -0.1, 2.2 }
          call.args[1].offset, call.args[2].offset = 0, 0
          call.args[5] = { double = 1.4 }
        end
        check(text, f.name, call, { seed = n })
        n = n + 1
        ::next::
      end
    end
    p:close()
    assert.is_true(n >= 20)
  end)
end)

describe("aliased pointer parameters", function()
  it("every example kernel with its pointers into one array (what restrict does not forbid)", function()
    local r = rng.new(41)
    local files = { { "examples/kernels/meshflux.c", "residual" }, { "examples/kernels/hfh-overlap.c", "overlap" },
                    { "examples/kernels/stencil1d.c" }, { "examples/kernels/hovland-fig1-aliased.c" },
                    { "examples/kernels/utke-fig2.c" } }
    local n = 0
    for _, c in ipairs(files) do
      local text = H.read(c[1])
      local k = assert(cgwb.read_kernel(text, c[1]))
      for _, f in ipairs(k:functions()) do
        if not c[2] or c[2] == f.name then
          local call = T.any_call(k, f.name, r, true)
          for i, prm in ipairs(f.params) do if prm.type == "int" then call.args[i] = { int = 3 } end end
          check(text, f.name, call, { seed = n })
          n = n + 1
        end
      end
    end
    assert.is_true(n >= 5)
  end)
end)

describe("choosing loops", function()
  it("by a list of lines and by a Lua function of the loop's row", function()
    local text = H.read("examples/kernels/hfh-dryrun.c")
    local k = assert(cgwb.read_kernel(text, "hfh-dryrun.c"))
    local _, rep = assert(adjoint.emit(k, "dryrun", { loops = { 16 } }))
    assert.is_false(rep.loops[1].transformed)
    assert.is_true(rep.loops[2].transformed)
    local seen = {}
    local _, rep2 = assert(adjoint.emit(k, "dryrun", { loops = function(row)
      seen[#seen + 1] = row.line
      return row.dry_run
    end }))
    assert.same({ 12, 16 }, seen)
    assert.is_true(rep2.loops[1].transformed)
    assert.is_false(rep2.loops[2].transformed)
    local _, rep3 = assert(adjoint.emit(k, "dryrun", { loops = "none" }))
    assert.is_false(rep3.loops[1].transformed or rep3.loops[2].transformed)
  end)
end)

describe("refusals", function()
  it("break, continue and an early return out of a loop (a guard's early return is an if: it reads)", function()
    assert(adjoint.emit(assert(cgwb.read_kernel("void f(int n, const double *x, double *y) {\n  int i;\n  "
      .. "if (n > 2) return; y[0] = x[0];\n}\n", "b.c")), "f"))
    for _, body in ipairs { "for (i = 0; i < n; i++) { if (x[i] > 0.0) break; y[i] = x[i]; }",
                            "for (i = 0; i < n; i++) { if (x[i] > 0.0) continue; y[i] = x[i]; }",
                            "for (i = 0; i < n; i++) { if (x[i] > 0.0) return; y[i] = x[i]; }" } do
      local k = assert(cgwb.read_kernel("void f(int n, const double *x, double *y) {\n  int i;\n  " .. body .. "\n}\n",
        "b.c"))
      local code, err = adjoint.emit(k, "f")
      assert.is_nil(code)
      assert.matches("^b%.c:3:%d+: adjoint code: %a[%a ]+ is not supported yet", err)
    end
  end)

  it("a call in an accepted loop's condition: standard with auto, refused by line", function()
    local text = "static double g(double v) { return v; }\nvoid f(int n, const double *restrict x, double *restrict y) {\n"
      .. "  int i;\n  for (i = 0; g(x[i]) > -1.0e300 && i < n; i++) {\n    y[i] = x[i] * x[i];\n  }\n}\n"
    local k = assert(cgwb.read_kernel(text, "g.c"))
    local info = assert(require("cgwb.core").kernel_loops(k, "f"))
    info.loops[1].verdict, info.loops[1].terminal = "accept", true -- whatever the analysis says of it
    local code, rep = adjoint.emit(k, "f", { loops = "auto", info = info })
    assert.truthy(code, rep)
    assert.is_false(rep.loops[1].transformed)
    local code2, err = adjoint.emit(k, "f", { loops = { 4 }, info = info })
    assert.is_nil(code2)
    assert.matches("^g%.c:4:%d+: adjoint code: a call in the control of a loop adjoined per iteration is not supported yet", err)
  end)

  it("a loop the analysis refuses, asked for by line", function()
    local text = "void f(int n, double *q) {\n  int i;\n  for (i = 1; i < n; i++) {\n    q[i] = q[i - 1] * q[i];\n  }\n}\n"
    local k = assert(cgwb.read_kernel(text, "c.c"))
    local code, err = adjoint.emit(k, "f", { loops = { 3 } })
    assert.is_nil(code)
    assert.matches("^c%.c:3:%d+: loop at line 3 is not independent: ", err)
    local code2, rep = adjoint.emit(k, "f", { loops = "auto" })
    assert.truthy(code2)
    assert.is_false(rep.loops[1].transformed)
    assert.equal("refuse", rep.loops[1].verdict)
  end)
end)

describe("cgwb adjoint", function()
  local K = "examples/kernels/meshflux.c"

  it("--help names the options", function()
    local out, _, code = H.cgwb("adjoint --help")
    assert.equal(0, code)
    for _, o in ipairs { "--function", "--independents", "--dependents", "--loops", "--assume", "--output", "--report",
                         "--call" } do
      assert.truthy(out:find(o, 1, true), o)
    end
  end)

  it("writes the code, the runtime header next to it and the report; measures both variants on a call", function()
    local dir = H.tmp("-dir")
    os.execute("mkdir -p " .. dir)
    local call = H.write(dir .. "/call.json", [[
{"arrays": {"T": [0,1,2,1,2,3,2,3,0], "Q": [0.5,1.5,-0.25,2], "R": [0,0,0,0]},
 "args": {"ntri": 3, "tri": ["T", 0], "q": ["Q", 0], "res": ["R", 0], "c": 0.7}}
]])
    local _, err, code = H.cgwb(("adjoint %s --function residual --loops auto -o %s/r_b.c --report %s/r.json --call %s")
      :format(K, dir, dir, call))
    assert.equal(0, code, err)
    local rep = require("cgwb.json").decode(H.read(dir .. "/r.json"))
    assert.equal("residual", rep["function"])
    assert.same({ "res" }, rep.dependents)
    assert.equal(3, #rep.loops)
    for _, l in ipairs(rep.loops) do
      for _, key in ipairs { "line", "independent", "verdict", "reason", "access", "terminal", "dry_run", "snapshot",
                             "transformed" } do
        assert.is_not_nil(l[key], key)
      end
    end
    assert.equal(14, rep.loops[1].line)
    assert.equal("refuse", rep.loops[1].verdict)
    assert.equal("increment", rep.loops[3].access.res)
    for _, v in ipairs { "standard", "transformed" } do
      for _, key in ipairs { "tape_bytes", "tape_high_water", "snapshot_bytes", "snapshot_high_water" } do
        assert.is_number(rep.variants[v][key], v .. " " .. key)
      end
    end
    assert.equal(0, rep.variants.standard.snapshot_bytes)
    assert.is_true(rep.variants.transformed.tape_high_water < rep.variants.standard.tape_high_water)
    -- the file compiles on its own with the header written next to it
    assert.is_true(os.execute(("%s -I%s -c -o %s/r_b.o %s/r_b.c"):format(A.CC, dir, dir, dir)) == true)
    os.execute("rm -rf " .. dir)
  end)

  it("--loops FILE.lua: a function of the loop's row decides, the analysis still checks", function()
    local dir = H.tmp("-dir")
    os.execute("mkdir -p " .. dir)
    local _, err, code = H.cgwb(("adjoint examples/kernels/nsloops.c --loops examples/adjoint-big-loops.lua -o %s/n.c "
      .. "--report %s/n.json"):format(dir, dir))
    assert.equal(0, code, err)
    local rep = require("cgwb.json").decode(H.read(dir .. "/n.json"))
    local top = 0
    for _, l in ipairs(rep.loops) do
      if l.transformed then top = top + 1 end
    end
    assert.equal(7, top) -- the kernel's seven top-level loops, every one accepted
    local all = H.write(dir .. "/all.lua", "return function(loop) return true end\n")
    _, err, code = H.cgwb(("adjoint %s --function residual --loops %s -o %s/o.c"):format(K, all, dir))
    assert.equal(2, code)
    assert.matches("meshflux%.c:14:%d+: loop at line 14 is not independent: q and res may overlap", err)
    local boom = H.write(dir .. "/boom.lua", "return function(loop) error('boom') end\n")
    _, err, code = H.cgwb(("adjoint %s --function residual --loops %s -o %s/o.c"):format(K, boom, dir))
    assert.equal(2, code)
    assert.matches("the loops' function: .*boom", err)
    local num = H.write(dir .. "/num.lua", "return 3\n")
    _, err, code = H.cgwb(("adjoint %s --function residual --loops %s -o %s/o.c"):format(K, num, dir))
    assert.equal(2, code)
    assert.matches("must return a function decide%(loop%) %(returned a number%)", err)
    assert.is_nil(io.open(dir .. "/o.c"))
    os.execute("rm -rf " .. dir)
  end)

  it("bad input: exit 2 with the position, no output file", function()
    local dir = H.tmp("-dir")
    os.execute("mkdir -p " .. dir)
    local bad = H.write(dir .. "/b.c", "void f(int n, double *y) {\n  int i;\n  for (i = 0; i < n; i++) { if (y[i] > 0.0) break; y[i] = 1.0; }\n}\n")
    local _, err, code = H.cgwb(("adjoint %s -o %s/o.c"):format(bad, dir))
    assert.equal(2, code)
    assert.matches("b%.c:3:%d+: adjoint code: break is not supported yet", err)
    assert.is_nil(io.open(dir .. "/o.c"))
    assert.is_nil(io.open(dir .. "/cgwb_adstack.h"))
    local cases = {
      ("%s --function residual"):format(K), -- no -o
      ("%s --function nosuch -o %s/o.c"):format(K, dir),
      ("%s --function residual --loops 3x -o %s/o.c"):format(K, dir),
      ("%s --function residual --loops 15 -o %s/o.c"):format(K, dir), -- no loop there
      ("%s --function residual --loops 14 -o %s/o.c"):format(K, dir), -- refused: q and res may overlap
      ("%s --function residual --independents zz -o %s/o.c"):format(K, dir),
      ("%s --function residual -o %s/o.c --call %s/none.json --report %s/r.json"):format(K, dir, dir, dir),
    }
    for _, c in ipairs(cases) do
      local _, e, st = H.cgwb("adjoint " .. c)
      assert.equal(2, st, c .. ": " .. e)
      assert.is_nil(io.open(dir .. "/o.c"), c)
      assert.is_nil(io.open(dir .. "/r.json"), c)
    end
    local _, e = H.cgwb(("adjoint %s --function residual --loops 14 -o %s/o.c"):format(K, dir))
    assert.matches("meshflux%.c:14:%d+: loop at line 14 is not independent: q and res may overlap", e)
    _, e = H.cgwb(("adjoint %s --function residual --independents ntri,q -o %s/o.c"):format(K, dir))
    assert.truthy(e:find("'ntri' is an int parameter of residual (they are double parameters or pointers to double)",
      1, true), e)
    _, e = H.cgwb(("adjoint %s --function residual --dependents return -o %s/o.c"):format(K, dir))
    assert.truthy(e:find("'return': residual does not return a double", 1, true), e)
    assert.is_nil(io.open(dir .. "/o.c"))
    os.execute("rm -rf " .. dir)
  end)
end)

describe("under AddressSanitizer and UndefinedBehaviorSanitizer", function()
  local run = SAN and it or pending
  run("the examples and a dry-run loop with a local array run clean, standard and transformed", function()
    local flags = SAN.flags
    local text = H.read("examples/kernels/meshflux.c")
    local call = { arrays = { arr("int", { 0, 1, 2, 1, 2, 3, 2, 3, 0 }), arr("double", { 0.5, 1.5, -0.25, 2 }),
      arr("double", { 0, 0, 0, 0 }) }, args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 },
      { array = 3, offset = 0 }, { double = 0.7 } } }
    local res = check(text, "residual", call, { flags = flags, no_interp = true })
    assert.is_true(res.rep.loops[2].transformed and res.rep.loops[2].dry_run)
    local r = rng.new(5)
    local ftext = H.read("examples/kernels/flux1d.c")
    local fk = assert(cgwb.read_kernel(ftext, "flux1d.c"))
    check(ftext, "flux1d", T.any_call(fk, "flux1d", r, false), { flags = flags, no_interp = true })
    for _, c in ipairs { { "hfh-dryrun", "dryrun" }, { "hfh-assembly", "assembly" }, { "hfh-reduction", "reduction" } } do
      local htext = H.read("examples/kernels/" .. c[1] .. ".c")
      local hk = assert(cgwb.read_kernel(htext, c[1]))
      local call = T.any_call(hk, c[2], r, false)
      for i, prm in ipairs(hk:functions()[1].params) do if prm.type == "int" then call.args[i] = { int = 6 } end end
      check(htext, c[2], call, { flags = flags, no_interp = true })
    end
  end)
end)

-- The forward sweep's frame is gone when the reverse sweep runs: a pointer it
-- saves that holds the address of one of its locals must come back as the same
-- place in the reverse sweep's own locals (the runtime's frame registry).
describe("pointers into the locals of a sweep", function()
  local run = SAN and it or pending
  local flags, env = SAN and SAN.flags, SAN and SAN.env
  local x = function(vals) return { arrays = { arr("double", vals), arr("double", { 0 }) },
    args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } } end
  run("a pointer into a local array: the gradient of the reported 7-line function", function()
    local text = [[
#include <math.h>
void f(const double *x, double *y) {
  double t[2];
  double *p = &t[0];
  p[0] = x[0] * x[0];
  p[1] = sin(x[1]);
  y[0] = p[0] * p[1];
}
]]
    local out = check(text, "f", x { 0.7, 0.3 }, { flags = flags, env = env, no_interp = true, keep = true })
    local res = A.run(out.std_exe, x { 0.7, 0.3 }, { arrays = { {}, { 1 } } })
    assert(close(res.B[1][1], 2 * 0.7 * math.sin(0.3), 1e-14) and close(res.B[1][2], 0.49 * math.cos(0.3), 1e-14),
      ("dy/dx = (%.17g, %.17g)"):format(res.B[1][1], res.B[1][2]))
    assert.matches("cgwb_frame_region%(t, sizeof t%);", out.code)
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
  run("the address of a scalar local, a block's local array, and a callee's pointers into its caller's locals", function()
    local text = [[
#include <math.h>
static void g(double *q, const double *x) {
  double *r = q + 1;
  r[0] = x[0] * x[1];
  q[0] = sin(r[0]);
  r = q + 3;
  r[-1] = r[-1] * x[0];
}
void f(const double *x, double *y) {
  double t[3];
  double s;
  double *ps = &s;
  {
    double u[2];
    double *pu = u;
    pu[1] = x[1] * x[1];
    t[2] = pu[1];
  }
  g(t, x);
  ps[0] = t[0] * t[1] + t[2];
  y[0] = s * x[0];
}
]]
    check(text, "f", x { 0.7, 0.3 }, { flags = flags, env = env, no_interp = true })
  end)
  it("kernels whose locals no pointer can hold save pointers as they are", function()
    local text = "void h(int n, const double *x, double *y) {\n  int i;\n  const double *p = x;\n"
      .. "  for (i = 0; i < n; i++) y[i] = p[i] * p[i];\n}\n"
    local code = assert(adjoint.emit(assert(cgwb.read_kernel(text, "h.c")), "h", { loops = "none" }))
    assert.is_nil(code:find("cgwb_frame_", 1, true))
    assert.truthy(code:find("cgwb_push_p(p);", 1, true))
  end)
end)

-- A dry-run loop is re-run from its snapshot: the snapshot holds every cell
-- the re-run reads before the loop overwrites it, an in-place increment of
-- its own cell included (the re-run from the updated cells gave y = 12 24 36
-- where F gives 11 22 33).
describe("dry-run snapshots", function()
  it("hold a loop's in-place increments of its own cells: F_b's primal results are F's", function()
    local text = [[
void f(int n, const double *a, double *y, double *z) {
  int i;
  for (i = 0; i < n; i++) y[i] = y[i] + a[i];
  for (i = 0; i < n; i++) z[i] = y[i] * y[i];
}
]]
    local call = { arrays = { arr("double", { 1, 2, 3 }), arr("double", { 10, 20, 30 }), arr("double", { 0, 0, 0 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    local out = check(text, "f", call, { emit = { assume = { "a!=y", "y!=z", "a!=z" } }, keep = true })
    assert.is_true(out.rep.loops[1].dry_run, "the first loop is dry-run")
    assert.are.same({ "i", "y" }, out.rep.loops[1].snapshot)
    assert.are.same({ 11, 22, 33 }, out.tr.P[2])
    assert.are.same({ 121, 484, 1089 }, out.tr.P[3])
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
  it("of a 2-D array parameter compile with -Werror=incompatible-pointer-types (its cells by &A[0][0])", function()
    local text = [[
void f(int n, double A[3][3], const double *u, double *x) {
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * u[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + A[i][0] * A[i][1];
}
]]
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local call = T.any_call(k, "f", rng.new(7), false)
    call.args[1] = { int = 3 }
    local out = check(text, "f", call, { emit = { assume = { "A!=u", "A!=x", "u!=x" } },
      flags = "-Werror=incompatible-pointer-types", no_interp = true, keep = true })
    local inner = out.rep.loops[2]
    assert.is_true(inner.dry_run, "the inner loop is dry-run")
    assert.are.same({ "A", "j" }, inner.snapshot)
    assert.truthy(out.code:find("cgwb_snap_cd(0, &A[0][0], &A[i][j])", 1, true))
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
  it("hold the cells a loop writes through a pointer into the array (the alias analysis's object)", function()
    -- the row zeroed through p is A's: without its cells on the snapshot
    -- the reverse sweep restored nothing and F_b's primal results lost B's row
    local text = [[
void f(double *y, double A[3][4], double B[3][4]) {
  int i;
  for (i = 0; i < 12; i++) B[i / 4][i % 4] = A[i / 4][i % 4];
  double *p = &A[1][0];
  for (i = 0; i < 4; i++) p[i] = 0.0;
  y[1] = y[1] * B[1][0] + A[1][3] * A[0][1];
}
]]
    local call = { arrays = { arr("double", { 0.5, 2 }), arr("double", C.ramp(12, 0.25, 2)),
      arr("double", C.ramp(12, -2, 1)) }, args = { { array = 1, offset = 0 }, { array = 2, offset = 0 },
      { array = 3, offset = 0 } } }
    local out = check(text, "f", call, { keep = true })
    local l2 = out.rep.loops[2]
    assert.is_true(l2.dry_run, "the loop through p is dry-run")
    assert.truthy(out.code:find("cgwb_snap_cd(0, &A[0][0], &p[i])", 1, true))
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
end)

describe("pointers to read-only globals", function()
  it("as arguments, in a local pointer and as &g[0]: adjoint, interpreter and differences agree", function()
    local text = [[
static const double coef[2] = {0.5, 2.0};
static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }
void f(const double *x, double *y) {
  const double *p = coef;
  y[0] = dot2(coef, x) + p[1] * x[0] * x[1];
  y[1] = dot2(&coef[0], x) * p[0];
}
]]
    local call = { arrays = { arr("double", { 0.7, 0.3 }), arr("double", { 0, 0 }) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    check(text, "f", call)
  end)
end)

-- An objective written as ADBench's LSTM is (spec/support/lstm-adbench.c):
-- pointers into local arrays in three functions of the call tree (the gates,
-- a layer's input, the prediction), which the old scheme left dangling.
describe("an LSTM objective in ADBench's style", function()
  local run = SAN and it or pending
  run("its gradient passes the dot-product test against differences, clean under stack-use-after-return", function()
    local text = H.read("spec/support/lstm-adbench.c")
    local function vals(n, f) local t = {} for i = 0, n - 1 do t[#t + 1] = f(i) end return t end
    local call = { arrays = { arr("double", vals(64, function(i) return math.sin(0.37 * i + 0.1) end)),
      arr("double", vals(12, function(i) return math.cos(0.21 * i) end)),
      arr("double", vals(16, function(i) return 0.1 * math.sin(i) end)),
      arr("double", vals(12, function(i) return math.cos(0.5 * i) end)), arr("double", { 0 }) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
               { array = 4, offset = 0 }, { array = 5, offset = 0 } } }
    check(text, "lstm_objective", call, { emit = { independents = { "main_params", "extra_params" },
      dependents = { "loss" } }, flags = SAN.flags, env = SAN.env, no_interp = true })
  end)
end)

-- Passive parameters reaching callees (directly, through a local pointer,
-- offset, by value): the callee's variant for that activity pattern never
-- touches their adjoints, which the driver passes as NULL (check's rule
-- for every passive double parameter), under ASan and UBSan.
describe("passive parameters passed to callees", function()
  local san = SAN or {}
  local text = [[
#include <math.h>
static double dot(const double *p, const double *q, int n) {
  int i;
  double acc = 0.0;
  for (i = 0; i < n; i++) acc = acc + p[i] * q[i];
  return acc;
}
static void g(const double *u, const double *v, double k, double *z) {
  int i;
  for (i = 0; i < 3; i++) z[i] = z[i] + k * u[i] * sin(v[i]) + dot(u, v, 2);
}
void f(const double *s, const double *a, double c, double w, double *y) {
  const double *p = s;
  g(p, a, c, y);
  g(s + 1, a, w * c, y);
  g(a, s, w, y);
  y[0] = y[0] * dot(&s[2], a, 2) + dot(p + 1, p, 2);
}
]]
  local call = { arrays = { arr("double", { 0.3, -0.7, 1.1, 0.5, 0.9 }), arr("double", { 0.2, 0.4, -0.6 }),
    arr("double", { 0.1, 0.2, 0.3 }) },
    args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { double = 1.5 }, { double = -0.25 },
             { array = 3, offset = 0 } } }
  local emit = { independents = { "a", "w" }, dependents = { "y" }, assume = { "s!=y", "a!=y" } }
  it("s and c are passive; F_b runs with NULL for sb and cb and the gradient passes the dot-product test", function()
    local out = check(text, "f", call, { emit = emit, flags = san.flags, env = san.env, keep = true })
    assert.is_true(out.null.s and out.null.c, "s and c are passive")
    assert.same({ "a", "w" }, out.rep.independents)
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
  it("the callee has one variant per activity pattern, and the passive adjoints appear in no statement", function()
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local code = assert(adjoint.emit(k, "f", emit))
    assert.truthy(code:find("static void g_fwd_paaa%("), "g with p passive")
    assert.truthy(code:find("static void g_fwd_apaa%("), "g with a passive (s as a)")
    for line in code:gmatch("[^\n]+") do
      if not line:find("^static") and not line:find("^void") and not line:find("%(void%)")
          and not line:find("^  f_[fr][we][dv]%(s, sb,") then -- F_b hands them to F's sweeps
        assert.falsy(line:find("%f[%w_]sb%f[^%w_]") or line:find("%f[%w_]cb%f[^%w_]"), line)
      end
    end
  end)
  it("a call with every argument passive still restores the primal state (the callee's all-passive variant)", function()
    local t2 = text:gsub("g%(a, s, w, y%);", "g(s, s, 2.0, y);")
    check(t2, "f", call, { emit = emit, flags = san.flags, env = san.env })
  end)
end)

-- A work array (active, neither independent nor dependent): the report
-- names it, and with its adjoint zeroed on entry the gradient is res's.
describe("a work array passed in", function()
  it("is listed as work, and with a zero adjoint on entry the gradient passes the dot-product test", function()
    local text = [[
void fv1d(int n, const double *u, double eps, double *flux, double *res) {
  int i;
  for (i = 0; i < n - 1; i++) flux[i] = 0.5 * (u[i] * u[i] + u[i + 1] * u[i + 1]) - eps * (u[i + 1] - u[i]);
  for (i = 1; i < n - 1; i++) res[i] = flux[i] - flux[i - 1];
}
]]
    local call = { arrays = { arr("double", { 0.3, 0.5, 0.9, 1.4, 1.1 }), arr("double", ramp(5, 0, 0)),
      arr("double", ramp(5, 0, 0)) },
      args = { { int = 5 }, { array = 1, offset = 0 }, { double = 0.05 }, { array = 2, offset = 0 },
               { array = 3, offset = 0 } } }
    local out = check(text, "fv1d", call, { emit = { independents = { "u", "eps" }, dependents = { "res" },
      assume = { "u!=flux", "u!=res", "flux!=res" } }, zero = { 2 } })
    assert.same({ "flux" }, out.rep.work)
    assert.same({}, out.rep.passive)
    -- -DCGWB_CHECK_ASSUME checks the rule: a nonzero work adjoint where F overwrites aborts, naming it
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local code = assert(adjoint.emit(k, "fv1d", { independents = { "u", "eps" }, dependents = { "res" },
      assume = { "u!=flux", "u!=res", "flux!=res" } }))
    local exe = A.compile_adjoint(code, "fv1d", text, { flags = "-DCGWB_CHECK_ASSUME" })
    local seeds = { arrays = { ramp(5, 0, 0), ramp(5, 0, 0), ramp(5, 1, 1) } }
    local okz, res = pcall(A.run, exe, call, seeds)
    assert(okz, tostring(res))
    seeds.arrays[2][3] = 123
    local okn, err = pcall(A.run, exe, call, seeds)
    A.free(exe)
    assert.is_false(okn)
    assert.truthy(tostring(err):find("fv1d_b: CGWB_CHECK_ASSUME: the adjoint of flux, a work array", 1, true), tostring(err))
  end)
end)

-- A by-value argument reading what the same call writes through a pointer
-- (ha(&t, t * x[1])): g_rev gets the value g_fwd got, not t's value after
-- the call (the reverse sweep reaches the call before ha_rev restores t).
describe("a by-value argument the call itself changes", function()
  it("reaches the reverse sweep as the forward sweep passed it", function()
    local text = [[
#include <math.h>
static void ha(double *v, double a) {
  *v = *v * cos(a) + 0.5 * a;
}
void f(const double *x, double *y) {
  double t = sin(x[0]);
  ha(&t, t * x[1]);
  y[0] = t * x[0];
  ha(&y[0], y[0] + x[1]);
}
]]
    check(text, "f", { arrays = { arr("double", { 0.7, 0.3 }), arr("double", { 0 }) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } })
  end)
end)

-- -DCGWB_CHECK_ASSUME: the forward sweeps record the cells they touch
-- through F's pointer parameters (through callees too) and F_b aborts
-- when two that an --assume or a restrict keeps apart share one.
describe("-DCGWB_CHECK_ASSUME", function()
  local text = [[
#include <math.h>
static void g(const double *p, double *q, int n) {
  int i;
  for (i = 0; i < n; i++) q[i] = q[i] + sin(p[i]);
}
void f(int n, const double *x, double *y, double *restrict w) {
  int i;
  g(x, y, n);
  for (i = 0; i < n; i++) w[i] = x[i] * y[i];
}
]]
  local function run(args, assume)
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local code = assert(adjoint.emit(k, "f", { assume = assume }))
    local exe = A.compile_adjoint(code, "f", text, { flags = "-DCGWB_CHECK_ASSUME" })
    local call = { arrays = { arr("double", ramp(12, 0.1, 1.2)) }, args = args }
    local ok, res = pcall(A.run, exe, call, { arrays = { ramp(12, 1, 1) } })
    A.free(exe)
    return ok, res
  end
  local n = { int = 4 }
  local function at(o) return { array = 1, offset = o } end
  it("is quiet when the arrays are apart, and the gradient is the unchecked one's", function()
    local ok, res = run({ n, at(0), at(4), at(8) }, { "x!=y" })
    assert(ok, tostring(res))
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local exe = A.compile_adjoint(assert(adjoint.emit(k, "f", { assume = { "x!=y" } })), "f", text)
    local plain = A.run(exe, { arrays = { arr("double", ramp(12, 0.1, 1.2)) }, args = { n, at(0), at(4), at(8) } },
      { arrays = { ramp(12, 1, 1) } })
    A.free(exe)
    H.assert_bits(plain.B[1], res.B[1], "the adjoints")
  end)
  it("aborts naming the parameters when an --assume is false (the cells shared in a callee)", function()
    local ok, err = run({ n, at(0), at(2), at(8) }, { "x!=y" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("f_b: CGWB_CHECK_ASSUME: x and y share the cell", 1, true), tostring(err))
  end)
  it("follows the parameters into callees", function()
    local k = assert(cgwb.read_kernel(text, "case.c"))
    local code = assert(adjoint.emit(k, "f", { assume = { "x!=y" } }))
    local g = code:match("static void g_fwd%([^\n]-%) {\n.-\n}")
    assert.truthy(g:find("CGWB_CHK_TOUCH(CGWB_CHK_TAG(1), &q[i]);", 1, true), g)
    assert.truthy(g:find("CGWB_CHK_TOUCH(CGWB_CHK_TAG(0), &p[i]);", 1, true), g)
    assert.truthy(code:find("CGWB_CHK_ARG(0, CGWB_CHK_TAG(1));", 1, true), "f passes x's tag to g's p")
  end)
  it("aborts when a restrict parameter overlaps another", function()
    local ok, err = run({ n, at(0), at(4), at(6) }, { "x!=y" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("y and w share the cell", 1, true), tostring(err))
  end)
  it("checks an a==b assumption on entry", function()
    local ok, err = run({ n, at(0), at(4), at(8) }, { "x==y" })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("x and y differ, but the derivative code assumed --assume x==y", 1, true), tostring(err))
  end)
end)

-- A GMM objective written as ADBench's is (spec/support/gmm-adbench.c):
-- the data points x, passive, passed straight to a helper (`subtract(d,
-- &x[ix * d], ...)`), which the code before activity variants refused; the
-- gradient in alphas, means and icf with xb = NULL, under ASan and UBSan.
describe("a GMM objective in ADBench's style", function()
  local run = SAN and it or pending
  run("its gradient passes the dot-product test with the data's adjoint NULL", function()
    local text = H.read("spec/support/gmm-adbench.c")
    local function vals(n, f) local t = {} for i = 0, n - 1 do t[#t + 1] = f(i) end return t end
    local d, k, n = 3, 3, 5
    local icf_sz = d * (d + 1) // 2
    local call = { arrays = { arr("double", vals(k, function(i) return 0.3 * math.sin(i + 1) end)),
      arr("double", vals(k * d, function(i) return math.cos(0.7 * i) end)),
      arr("double", vals(k * icf_sz, function(i) return 0.2 * math.sin(0.9 * i + 0.3) end)),
      arr("double", vals(n * d, function(i) return math.sin(0.37 * i + 0.1) end)), arr("double", { 0 }) },
      args = { { int = d }, { int = k }, { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 },
               { array = 3, offset = 0 }, { array = 4, offset = 0 }, { double = 1.5 }, { int = 2 },
               { array = 5, offset = 0 } } }
    local out = check(text, "gmm_objective", call, { emit = { independents = { "alphas", "means", "icf" },
      dependents = { "err" }, assume = { "alphas!=err", "means!=err", "icf!=err", "x!=err" } },
      flags = SAN.flags, env = SAN.env, keep = true })
    assert.is_true(out.null.x, "x is passive: its adjoint is NULL")
    assert.same({ "x", "wishart_gamma" }, out.rep.passive)
    A.free(out.std_exe); A.free(out.tr_exe)
  end)
end)

-- A terminal loop (Hascoët, Fidanova & Held, Fig. 4) runs each iteration's
-- reverse right after it, which puts back what the iteration overwrote: an
-- int the body writes and later code reads would be read as it was before
-- the loop.  Such a loop is not terminal (it was: ints carry no adjoint, so
-- the test skipped them, and the adjoint was silently wrong); the loop's
-- own counter runs plainly and a scalar set again after it (the next
-- loop's i = 0) keep a terminal loop terminal.
describe("a loop that writes ints read after it", function()
  local INTS = [[
void f(const double *x, double *y) {
  int h[8], g[8], i, m = 0;
  double s = 0.0;
  for (i = 0; i < 8; i++) h[i] = i % 3;
  for (i = 0; i < 8; i++) { g[i] = h[i] + 1; m = m + g[i]; }
  for (i = 0; i < 8; i++) s += x[i] * g[i];
  y[0] = s * m;
}
]]
  it("is not terminal, and its adjoint passes the dot-product test", function()
    local k = assert(cgwb.read_kernel(INTS, "ints.c"))
    local info = assert(require("cgwb.loops").analyse(k, "f"))
    for _, l in ipairs(info.loops) do
      if l.line <= 5 then assert.is_false(l.terminal, "loop at line " .. l.line) end
    end
    local call = { arrays = { arr("double", { -1, -0.5, 0.25, 0.5, 1, 1.25, 1.5, 2 }), arr("double", { 0 }) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    check(INTS, "f", call, { loops = "auto", seed = 31 })
  end)
  it("stays terminal when only its counter is read again, after being set", function()
    local src = [[
void f(int n, const double *restrict x, double *restrict y, double *restrict z) {
  int i, k = 0;
  for (i = 0; i < n; i++) y[i] = x[i] * x[i];
  for (i = 0; i < n; i++) { z[i] = sin(x[i]); }
  k = i;
  y[0] += k;
}
]]
    local info = assert(require("cgwb.loops").analyse(assert(cgwb.read_kernel(src, "two.c")), "f"))
    assert.same({ false, true }, { info.loops[1].terminal, info.loops[2].terminal })
  end)
end)
