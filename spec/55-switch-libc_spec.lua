-- spec/55-switch-libc_spec.lua: `switch` (with fall-through, break inside
-- a group, continue of the loop around it, nested switches, GNU case
-- ranges) and `memcpy`/`memset` on arrays, lowered by the front end to the
-- rows the subset has (doc/kernel-language.md).  The interpreter must leave
-- the cells the compiled kernel leaves, bit for bit, on hand kernels and on
-- generated switches; tangent and adjoint code must give the derivatives
-- of the compiled kernel; bad uses are errors with their place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local kp = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"
local AC = require "adcheck"
local TC = require "tcheck"

local run_c = H.run_c

-- The cells the interpreter leaves, in kgen.driver's output form.
local function interp_lines(text, name, call) return kgen.interp_lines(text, "sw.c", name, call) end

local function darr(name, vals) return { name = name, type = "double", values = vals } end
local function ramp(n, a, b) return AC.ramp(n, a, b) end

-- A switch in a loop over x's cells: every lowering path at once.
local SWITCHES = [[
void sw(int n, double *x, double *y) {
  double s = 0.5;
  int i, j;
  for (i = 0; i < n; i++) {
    switch (i % 7) {
    case 0: s += x[i]; break;                          /* a plain group */
    case 1: case 2: s = s * x[i] + 1.0;                /* falls through */
    case 3: if (s > 2.0) break; s -= x[i] * x[i];      /* break inside an if */
    case 4 ... 5:
      if (i == 9) continue;                            /* the for loop's continue */
      for (j = 0; j < 2; j++) { if (j == 1) break; s += 0.125 * x[j]; }
      break;
    default:
      switch (i % 3) {                                 /* nested, an if/else chain */
      case 0: y[i] = s; break;
      default: y[i] = -s; continue;
      }
    }
    y[i] += s * x[i];
  }
  switch (n) { case 1: y[0] = 1.0; }                   /* no default, no match */
  switch (n) { }                                       /* empty */
}
]]

describe("switch", function()
  it("lowers to an if/else-if chain when every group ends in a jump, else to guarded groups, never a loop", function()
    local chain = "void f(int k, double *y) { switch (k) { case 1: y[0] = 1; break; default: y[0] = 3; break;"
      .. " case 2: y[0] = 2; } }"
    local text = kp.unparse(assert(kp.parse(chain, "c.c")))
    assert.truthy(text:find("if (k == 1)", 1, true), text)
    assert.falsy(text:find("while", 1, true), text) -- no loop
    local fall = "void f(int k, double *y) { switch (k) { case 1: y[0] = 1; if (y[1] > 0) break; y[2] = 0;"
      .. " case 2: y[1] = 2; } }"
    text = kp.unparse(assert(kp.parse(fall, "f.c")))
    assert.falsy(text:find("while", 1, true), text)
    assert.truthy(text:find("t2_1 = 1;\n    }\n    if (!t2_1) {\n      y[2]", 1, true), text) -- the rest of the group
    assert.truthy(text:find("if ((!t2_1) && (t1_1 <= 2)) {", 1, true), text) -- the next group, entered or fallen into
  end)

  it("runs in the interpreter as the compiled kernel does, bit for bit", function()
    for _, n in ipairs { 0, 1, 5, 14 } do
      local call = { arrays = { darr("X", ramp(14, -1.25, 1.5)), darr("Y", ramp(14, 0.5, -0.5)) },
        args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
      local info = { name = "sw" }
      assert.equal(run_c(kgen.driver(SWITCHES, info, call)), interp_lines(SWITCHES, "sw", call))
    end
  end)

  it("a break inside a block of a group skips the rest of the block, as in C", function()
    local text = [[
void bb(int n, double *x, double *y) {
  double s = 0.25;
  for (int i = 0; i < n; i++) {
    s = s * 0.75 + x[(i + 3) % 14];
    switch ((int)s % 3) {
    case 0: { } break;
    case 1: {
      if (s > 1.25) break;
      s = s * 0.75 + x[(i + 1) % 14];
      if (s > 0.5) { y[i] = 2.0; if (s > 0.75) break; y[i] += 1.0; }
    }
    default: y[i] -= s;
    }
    y[i] += s;
  }
}
]]
    for _, n in ipairs { 5, 14 } do
      local call = { arrays = { darr("X", ramp(14, -1.25, 1.5)), darr("Y", ramp(14, 0.5, -0.5)) },
        args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
      assert.equal(run_c(kgen.driver(text, { name = "bb" }, call)), interp_lines(text, "bb", call))
    end
  end)

  it("generated switches: the interpreter equals cc on every path", function()
    -- groups with random labels (constants, ranges, default anywhere), each
    -- ending in break, continue, nothing (fall-through) or a break inside an
    -- if; some nested one level
    local function group_body(r, depth, out, loopvar)
      local k = r:int(1, 3)
      for _ = 1, k do
        local c = r:int(1, 4)
        if c == 1 then out[#out + 1] = ("s = s * 0.75 + x[%s %% 6];"):format(loopvar)
        elseif c == 2 then out[#out + 1] = ("if (s > %d.5) break;"):format(r:int(0, 2))
        elseif c == 3 and depth == 0 then
          out[#out + 1] = ("switch ((%s + %d) %% 4) { case 0: s += 1.0; break; case 1: s -= 0.5; default: s *= 1.25; }")
            :format(loopvar, r:int(0, 3))
        else out[#out + 1] = ("y[%s %% 6] += s;"):format(loopvar) end
      end
      local e = r:int(1, 4)
      if e == 1 then out[#out + 1] = "break;" elseif e == 2 then out[#out + 1] = "continue;" end
    end
    for seed = 1, 30 do
      local r = rng.new(5500 + seed)
      local out = { "void g(int n, double *x, double *y) {", "  double s = 0.25;",
        "  for (int i = 0; i < n; i++) {", ("    switch ((i * %d) %% 9) {"):format(r:int(1, 5)) }
      local used, ngroups = {}, r:int(1, 5)
      local dflt = r:int(0, ngroups) -- 0: none
      for gi = 1, ngroups do
        local nl = r:int(1, 2)
        for _ = 1, nl do
          local v = r:int(0, 8)
          if not used[v] then
            used[v] = true
            if r:int(1, 5) == 1 and not used[v + 1] and v < 8 then
              used[v + 1] = true
              out[#out + 1] = ("    case %d ... %d:"):format(v, v + 1)
            else
              out[#out + 1] = ("    case %d:"):format(v)
            end
          end
        end
        if gi == dflt then out[#out + 1] = "    default:" end
        if out[#out]:find(":$") then group_body(r, 0, out, "i") else out[#out] = nil end
      end
      out[#out + 1] = "    }"
      out[#out + 1] = "    y[i % 6] += 0.5 * s;"
      out[#out + 1] = "  }"
      out[#out + 1] = "}"
      local text = table.concat(out, "\n") .. "\n"
      local call = { arrays = { darr("X", ramp(6, -0.75, 1.25)), darr("Y", ramp(6, 0.25, -0.5)) },
        args = { { int = 11 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
      local want = run_c(kgen.driver(text, { name = "g" }, call))
      assert(want == interp_lines(text, "g", call), ("seed %d: the interpreter computes otherwise\n%s"):format(seed,
        text))
      assert(core.kernel_load(assert(kp.parse(text, "g.c")))) -- the loader's checks hold
    end
  end)

  it("tangent and adjoint code of a switch give the compiled kernel's derivatives", function()
    local call = { arrays = { AC.arr("double", ramp(14, -1.25, 1.5)), AC.arr("double", ramp(14, 0.5, -0.5)) },
      args = { { int = 14 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    TC.check({ TC.make_case(SWITCHES, "sw.c", "sw", call) })
    -- the adjoint generator has no break or continue of a loop yet: the same
    -- switches, each group's jumps out of the switch only
    local text = SWITCHES:gsub("if %(i == 9%) continue;", "if (i == 9) break;")
      :gsub("for %(j = 0; j < 2; j%+%+%) { if %(j == 1%) break; s %+= 0.125 %* x%[j%]; }", "s += 0.125 * x[0];")
      :gsub("default: y%[i%] = %-s; continue;", "default: y[i] = -s; break;")
    assert.falsy(text:find("continue;", 1, true))
    AC.check(text, "sw", call, { loops = "auto", seed = 55, lenient_kernel = true }) -- (F itself falls through)
  end)

  it("refuses what C forbids or the lowering cannot keep, with the place", function()
    local cases = {
      { "void f(int k, double *y) { switch (k) { case 1: y[0] = 1; break; case 1: y[0] = 2; } }",
        "e.c:1:66: duplicate case value 1 (first at line 1, column 41)" },
      { "void f(int k, double *y) { switch (k) { case 1 ... 3: y[0] = 1; break; case 2: y[0] = 2; } }",
        "e.c:1:72: duplicate case value 2 (first at line 1, column 41)" },
      { "void f(int k, double *y) { switch (k) { default: y[0] = 1; break; default: y[0] = 2; } }",
        "e.c:1:67: more than one 'default' label in one switch" },
      { "void f(double k, double *y) { switch (k) { case 1: y[0] = 1; } }",
        "e.c:1:39: the switch's controlling expression must be an integer, not a double" },
      { "void f(int k, double *y) { switch (k) { case 1: if (k) { case 2: y[0] = 1; } } }",
        "e.c:1:58: a 'case' label inside a nested statement of its switch is outside the kernel subset" },
      { "void f(int k, double *y) { case 1: y[0] = 1; }", "e.c:1:28: 'case' outside a switch" },
      { "void f(int k, double *y) { switch (k) { y[0] = 3; case 1: y[0] = 1; } }",
        "e.c:1:41: a statement before the switch's first label is never run" },
      { "void f(int k, double *y) { switch (k) { case 1: y[0] = 1; continue; } }",
        "e.c:1:59: 'continue' outside a loop" },
      { "void f(int k, double *y) { switch (k) { case 1: y[0] = 1; case 2: continue; } }",
        "e.c:1:67: 'continue' outside a loop" },
      { "void f(int k, double *y) { switch (k) { case k: y[0] = 1; } }", "e.c:1:46: a case label must be an integer constant expression" },
      { "void f(void) { break; }", "e.c:1:16: 'break' outside a loop or switch" },
    }
    for _, c in ipairs(cases) do
      local flat, err = kp.parse(c[1], "e.c")
      assert.is_nil(flat, c[1])
      assert.truthy(err:find(c[2], 1, true), err .. "\nwanted: " .. c[2])
    end
  end)
end)

-- memcpy and memset over 1-D arrays, rows, whole 2-D arrays, with counts
-- written as the programs write them.
local LIBC = [[
#include <string.h>
void mc(int n, double *x, double *y, double A[3][4], double B[3][4], int *c) {
  double t[8];
  int w[5];
  memcpy(t, x, 8 * sizeof(double));
  memset(y, 0, n * sizeof(double));
  memset(w, 0, sizeof w);
  for (int i = 0; i < n; i++) y[i] += t[i % 8] * x[i];
  memcpy(B, A, sizeof(double) * 12);
  memcpy(y + 2, x, (size_t)(n - 2) * sizeof *x);
  memset(A[1], 0, sizeof(A[1]));
  memcpy(&B[2][1], &A[0][0], 3 * sizeof(double));
  memset(c, 1, 2 * sizeof(int));
  memset(c + 2, -1, sizeof(int));
  w[1] = c[0] + c[2];
  y[1] = y[1] * B[2][2] + (double)w[1] * 1e-9 + A[1][3];
}
]]

describe("memcpy and memset", function()
  local function call()
    return { arrays = { AC.arr("double", ramp(10, -1.25, 1.5)), AC.arr("double", ramp(10, 0.5, -0.5)),
      AC.arr("double", ramp(12, 0.25, 2)), AC.arr("double", ramp(12, -2, 1)), AC.arr("int", { 7, 8, 9, 10 }) },
      args = { { int = 10 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
        { array = 4, offset = 0 }, { array = 5, offset = 0 } } }
  end

  it("are the loops they stand for: the interpreter's cells are the compiled kernel's", function()
    local k = assert(cgwb.read_kernel(LIBC, "mc.c"))
    local res = assert(k:run("mc", call()))
    -- the C library's own run, printed exactly
    local drv = { LIBC, "#include <stdio.h>", "int main(void) {", "  double X[10], Y[10], A[3][4], B[3][4];",
      "  int C[4] = {7, 8, 9, 10};" }
    local c = call()
    for i, nm in ipairs { "X", "Y" } do
      for j, v in ipairs(c.arrays[i].values) do drv[#drv + 1] = ("  %s[%d] = %a;"):format(nm, j - 1, v) end
    end
    for i, nm in ipairs { "A", "B" } do
      for j, v in ipairs(c.arrays[i + 2].values) do
        drv[#drv + 1] = ("  %s[%d][%d] = %a;"):format(nm, (j - 1) // 4, (j - 1) % 4, v)
      end
    end
    drv[#drv + 1] = "  mc(10, X, Y, A, B, C);"
    drv[#drv + 1] = '  for (int i = 0; i < 10; i++) printf("%a %a\\n", X[i], Y[i]);'
    drv[#drv + 1] = '  for (int i = 0; i < 12; i++) printf("%a %a\\n", A[i / 4][i % 4], B[i / 4][i % 4]);'
    drv[#drv + 1] = '  for (int i = 0; i < 4; i++) printf("%d\\n", C[i]);'
    drv[#drv + 1] = "  return 0;\n}"
    local want = run_c(table.concat(drv, "\n") .. "\n")
    local got = {}
    local a = res.arrays
    for i = 1, 10 do got[#got + 1] = ("%a %a"):format(a[1].values[i], a[2].values[i]) end
    for i = 1, 12 do got[#got + 1] = ("%a %a"):format(a[3].values[i], a[4].values[i]) end
    for i = 1, 4 do got[#got + 1] = ("%d"):format(a[5].values[i]) end
    assert.equal(want, table.concat(got, "\n") .. "\n")
    assert.equal(16843009, a[5].values[1]) -- memset's byte pattern 0x01010101
    assert.equal(-1, a[5].values[3])
  end)

  it("tangent and adjoint code carry the copies' derivatives and none of the fills'", function()
    TC.check({ TC.make_case(LIBC, "mc.c", "mc", call()) })
    AC.check(LIBC, "mc", call(), { loops = "auto", seed = 56 })
  end)

  it("refuses sizes that are not whole cells, memmove, and mixed types, with the place", function()
    local pre = "#include <string.h>\n"
    local cases = {
      { "void f(double *x, double *y) { memcpy(x, y, 12); }",
        "e.c:2:45: a memcpy of 12 bytes for cells of 8 is outside the kernel subset (the size must be a whole number" },
      { "void f(int n, double *x, double *y) { memcpy(x, y, n * 4); }",
        "e.c:2:54: this memcpy is outside the kernel subset (the size must read as a count times sizeof(double)" },
      { "void f(int n, double *x, double *y) { memcpy(x, y, n * sizeof(int)); }",
        "e.c:2:56: a memcpy counted in sizeof of 4 bytes is outside the kernel subset (the cells are double" },
      { "void f(double *x, int *y) { memcpy(x, y, 4 * sizeof(int)); }",
        "e.c:2:29: a memcpy between arrays of different types is outside the kernel subset" },
      { "void f(double *x, double *y) { memmove(x, y, 8); }", "e.c:2:32: a call of 'memmove' is outside" },
      { "void f(int b, double *x) { memset(x, b, 8); }", "e.c:2:38: a memset with a byte not known to the compiler" },
      { "void f(double *x) { memset(x, 255, 8); }", "e.c:2:31: memset: the byte 0xff makes every double a NaN" },
      { "void f(const double *x, double *y) { memcpy(x, y, 8); }", "e.c:2:45: 'memcpy' into a const array" },
      { "void f(double *x, double *y) { double *p = memcpy(x, y, 8); }", "e.c:2:44: the value of 'memcpy'" },
    }
    for _, c in ipairs(cases) do
      local k, err = cgwb.read_kernel(pre .. c[1], "e.c", { functions = { "f" } })
      assert.is_nil(k, c[1])
      assert.truthy(tostring(err):find(c[2], 1, true), tostring(err) .. "\nwanted: " .. c[2])
    end
  end)
end)
