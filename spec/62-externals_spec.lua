-- spec/62-externals_spec.lua: external functions (a prototype in the
-- file, no definition; declared with their derivatives by --externals,
-- doc/kernels.md "External functions"): a function row without a body;
-- tangent code calls the user's g_d, adjoint code tapes what g overwrites,
-- calls g forward and the user's g_b backward.  Checked on our own
-- BLAS-style routines (spec/support/externals/blas.c, with hand-written
-- derivatives): the tangent against central differences of the compiled
-- kernel and its primal bit for bit, the adjoint by the dot-product test
-- (standard and with the loop that calls an external adjoined per
-- iteration); declarations and uses that are wrong name their place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local tangent = require "cgwb.tangent"
local AC = require "adcheck"
local T = require "tdriver"

local DIR = "spec/support/externals"
local KERNEL = H.read(DIR .. "/energy.c")
local BLAS = dofile(DIR .. "/blas.lua")
local BLAS_C = H.read(DIR .. "/blas.c")
local ABS = os.getenv("PWD") .. "/" .. DIR

local function read(text, ext) return cgwb.read_kernel(text, "energy.c", { externals = ext or BLAS }) end

describe("external functions: reading", function()
  it("are function rows without a body, listed as external; a call without a declaration is refused", function()
    local k = assert(read(KERNEL))
    local names = {}
    for _, f in ipairs(k:functions()) do names[#names + 1] = f.name .. (f.external and " (external)" or "") end
    assert.same({ "energy", "nrm2 (external)", "scal (external)" }, names)
    local text = require("cgwb.kparse").unparse(k:flat())
    assert.truthy(text:find("void scal(int n, double a, double *x);", 1, true), text)
    assert.falsy(text:find("scal(int n, double a, double *x) {", 1, true), "no body is printed")
    local none, err = cgwb.read_kernel(KERNEL, "energy.c")
    assert.is_nil(none)
    assert.truthy(err:find("^energy%.c:10:3: a call of 'scal' is outside the kernel subset %(it has no definition in the "
      .. "file; an external function is declared with its derivatives by %-%-externals%)"), err)
    local out, e2, code = H.cgwb(("kernel %s --externals %s/blas.lua"):format(DIR .. "/energy.c", DIR))
    assert.equal(0, code, e2)
    assert.truthy(out:find("function 3: external void scal(int n, double a, double *x)", 1, true), out)
  end)

  it("refuses a wrong declaration, naming the function and the field", function()
    local cases = {
      { { scal = { cell = {} } }, "externals: scal: unknown field 'cell'" },
      { { scal = { cells = { a = "n" } } }, "externals: scal: cells.a: no pointer parameter 'a'" },
      { { scal = { cells = { x = "n * a" } } }, "externals: scal: cells.x: 'a' is no int parameter of scal" },
      { { scal = { cells = { x = "n; exit(1)" } } }, "cells.x: a C int expression" },
      { { scal = { adjoint = "not a name" } }, "externals: scal: adjoint must be a C function name" },
      { { energy = {} }, "externals: energy: defined in the file" },
      { { scal = 1 }, "externals: scal: the declaration must be a table" },
    }
    for _, c in ipairs(cases) do
      local k, err = read(KERNEL, c[1])
      assert.is_nil(k)
      assert.truthy(err:find(c[2], 1, true), err)
    end
    local bad = H.write(H.tmp(".lua"), "return 42")
    local _, err, code = H.cgwb(("kernel %s --externals %s"):format(DIR .. "/energy.c", bad))
    assert.equal(2, code)
    assert.truthy(err:find("must return a table", 1, true), err)
  end)

  it("an external is no function to differentiate or analyse: its body is elsewhere", function()
    local k = assert(read(KERNEL))
    for _, f in ipairs { function() return tangent.emit(k, "scal") end,
      function() return require("cgwb.adjoint").emit(k, "scal") end,
      function() return require("cgwb.flatten").run(k, "scal") end,
      function() return require("cgwb.loops").analyse(k, "scal") end } do
      local r, err = f()
      assert.is_nil(r)
      assert.equal("energy.c: scal is an external function (--externals): its body is elsewhere", err)
    end
  end)

  it("the interpreter runs the Lua values, and names a call it cannot run", function()
    local c = { arrays = { AC.arr("double", { 1, 2, 3 }), AC.arr("double", { 0, 0, 0 }), AC.arr("double", { 0, 0, 0 }) },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    local k = assert(read(KERNEL))
    local r = assert(k:run("energy", c))
    local prog = KERNEL .. BLAS_C:gsub("#include[^\n]*\n", "") .. [[
#include <stdio.h>
int main(void) { double u[3] = {1, 2, 3}, w[3], g[3]; printf("%a\n", energy(3, u, w, g)); return 0; }
]]
    assert.equal(tonumber(H.run_c("#include <math.h>\n#include <stddef.h>\n" .. prog)), r.ret, "the compiled kernel's, bit for bit")
    local plain = { nrm2 = {}, scal = { cells = { x = "n" } } }
    local r2, err = assert(read(KERNEL, plain)):run("energy", c)
    assert.is_nil(r2)
    assert.truthy(err:find("^energy%.c:10:3: the external function 'scal': it has no Lua value"), err)
    local bad = { nrm2 = BLAS.nrm2, scal = { cells = { x = "n" }, value = function() error("boom") end } }
    r2, err = assert(read(KERNEL, bad)):run("energy", c)
    assert.is_nil(r2)
    assert.truthy(err:find("^energy%.c:10:3: the external function 'scal': .*boom"), err)
  end)
end)

-- The tangent of energy at u along ud: F_d's value and tangent, and the
-- compiled kernel's value and central difference, from one program.
local function tangent_run(code, n, u, ud, h)
  local lit = function(t) local s = {}; for i, v in ipairs(t) do s[i] = ("%a"):format(v) end; return table.concat(s, ", ") end
  local main = ([[
#include <stdio.h>
double energy(int n, const double *u, double *w, double *g);
double energy_d(int n, const double *u, const double *ud, double *w, double *wd, double *g, double *gd, double *rd);
int main(void) {
  double u[%d] = {%s}, ud[%d] = {%s}, up[%d], um[%d], w[%d], wd[%d], g[%d], gd[%d], rd = 0.0, h = %a;
  int i;
  double r = energy_d(%d, u, ud, w, wd, g, gd, &rd), r0;
  for (i = 0; i < %d; i++) { up[i] = u[i] + h * ud[i]; um[i] = u[i] - h * ud[i]; }
  r0 = energy(%d, u, w, g);
  printf("%%a %%a %%a %%a\n", r, rd, r0, (energy(%d, up, w, g) - energy(%d, um, w, g)) / (2 * h));
  return 0;
}
]]):format(n, lit(u), n, lit(ud), n, n, n, n, n, n, h, n, n, n, n, n)
  local files = { H.write(H.tmp(".c"), code), H.write(H.tmp(".c"), KERNEL), H.write(H.tmp(".c"), BLAS_C),
    H.write(H.tmp(".c"), main) }
  local exe = H.tmp(".exe")
  assert(os.execute(("%s -o %s %s -lm"):format(T.CC, exe, table.concat(files, " "))), "does not compile")
  local p = assert(io.popen(exe))
  local out = p:read("a")
  p:close()
  for _, f in ipairs(files) do os.remove(f) end
  os.remove(exe)
  local vals = {}
  for x in out:gmatch("%S+") do vals[#vals + 1] = tonumber(x) end
  return vals
end

describe("external functions: derivative code", function()
  it("tangent code calls the user's tangents and gives the compiled kernel's derivative", function()
    local k = assert(read(KERNEL))
    local code = assert(tangent.emit(k, "energy"))
    assert.truthy(code:find("void scal_d(int n, double a, double ad, double *x, double *xd); /* external", 1, true), code)
    assert.truthy(code:find("double nrm2_d(int n, const double *x, const double *xd, double *nrm2_ret_d);", 1, true), code)
    local v = tangent_run(code, 4, { 0.75, -1.5, 2.0, 0.5 }, { 0.3, -0.2, 0.9, 0.4 }, 1e-6)
    assert.equal(4, #v)
    assert.equal(v[3], v[1], "the primal result, bit for bit")
    assert.is_true(math.abs(v[2] - v[4]) <= 1e-6 * math.max(1, math.abs(v[2])), ("tangent %.17g, differences %.17g"):format(v[2], v[4]))
  end)

  it("adjoint code tapes what the external overwrites, calls its adjoint, and passes the dot-product test", function()
    local c = { arrays = { AC.arr("double", { 0.75, -1.5, 2.0, 0.5, 1.25 }), AC.arr("double", { 0, 0, 0, 0, 0 }),
      AC.arr("double", { 0, 0, 0, 0, 0 }) },
      args = { { int = 5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    local blas = H.write(H.tmp(".c"), BLAS_C)
    local out = AC.check(KERNEL, "energy", c, { read = { externals = BLAS }, extra = { blas }, -- (interpreter: the Lua values)
      loops = "auto", seed = 62, emit = { assume = { "u!=w", "u!=g", "w!=g" } } })
    os.remove(blas)
    assert.truthy(out.code:find("cgwb_push_n(w, (size_t)((n)) * sizeof(double)); /* 10: what scal may write */", 1, true),
      out.code)
    assert.truthy(out.code:find("scal_b(n, ", 1, true), out.code)
    local by_line = {}
    for _, l in ipairs(out.rep.loops) do by_line[l.line] = l end
    assert.is_true(by_line[12].transformed, "the loop of nrm2 calls, adjoined per iteration")
  end)

  it("adjoint code refuses a call whose writes the declaration does not bound", function()
    local k = assert(read(KERNEL, { nrm2 = {}, scal = {} }))
    local code, err = require("cgwb.adjoint").emit(k, "energy")
    assert.is_nil(code)
    assert.truthy(err:find("energy.c:10:3: adjoint code: the call of the external scal may write through x: its "
      .. "declaration needs cells.x", 1, true), err)
    local dst = H.tmp(".c")
    local _, e2, rc = H.cgwb(("adjoint %s --function energy --externals %s/blas.lua -o %s"):format(ABS .. "/energy.c", DIR, dst))
    assert.equal(0, rc, e2)
    local out = H.read(dst)
    os.remove(dst)
    assert.truthy(out:find("void nrm2_b(int n, const double *x, double *xb, double nrm2_retb); /* its adjoint", 1, true), out)
  end)

  it("XAIF refuses a function that calls an external, naming the call", function()
    local k = assert(read(KERNEL))
    local res = assert(require("cgwb.flatten").run(k, "energy"))
    local x, err = require("cgwb.xaif").write(k, "energy", res)
    assert.is_nil(x)
    assert.truthy(err:find("energy.c:10:3: a call of the external function scal", 1, true), err)
  end)
end)
