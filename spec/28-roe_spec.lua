-- spec/28-roe_spec.lua: the Roe flux kernel (examples/kernels/roe.c), the
-- benchmark kernel of preaccumulated tangent code (doc/benchmarks.md): it is
-- consistent (equal states give the physical flux, a supersonic face the
-- upwind one: Roe's property A (qr - ql) = F(qr) - F(ql)); the interpreter
-- leaves the flux the compiled C computes, bit for bit, at states covering
-- subsonic, supersonic and sonic faces (the entropy fix active and not); its
-- tangent-mode Jacobian equals Debian's ADOL-C jacobian() on the same kernel
-- text retyped as adoubles (spec/adolc/roe.cpp) to 1e-12 of each row; and the
-- tangent code of `cgwb flatten --emit tangent`, compiled, gives that Jacobian
-- too.  Then the generated block of the flattening benchmark
-- (scripts/kbench-flat.lua): N active assignments in one basic block,
-- deterministic, and run by the interpreter as compiled.
local H = require "spec.helper"
local core = require "cgwb.core"
local kparse = require "cgwb.kparse"

local ROE = "examples/kernels/roe.c"

-- {==== the states ====}

--- Conserved variables of the primitive (rho, u, v, p) for gamma.
local function conserved(rho, u, v, p, gamma)
  return {rho, rho * u, rho * v, p / (gamma - 1) + 0.5 * rho * (u * u + v * v)}
end

--- A point: the 11 inputs in the kernel's order, ql, qr, nx, ny, gamma.
local function point(l, r, angle, gamma)
  local x = {}
  for _, q in ipairs({conserved(l[1], l[2], l[3], l[4], gamma), conserved(r[1], r[2], r[3], r[4], gamma)}) do
    for _, v in ipairs(q) do x[#x + 1] = v end
  end
  x[#x + 1], x[#x + 2], x[#x + 3] = math.cos(angle), math.sin(angle), gamma
  return x
end

local POINTS = {
  point({1.0, 0.3, 0.1, 1.0}, {0.9, 0.25, -0.05, 0.8}, 0.3, 1.4),   -- subsonic
  point({1.0, 0.0, 0.0, 1.0}, {0.125, 0.0, 0.0, 0.1}, 0.0, 1.4),    -- Sod's shock tube, x-normal
  point({1.2, 3.0, 0.4, 1.1}, {1.1, 2.8, 0.5, 0.9}, 0.7, 1.4),      -- supersonic
  point({1.0, 1.15, 0.0, 1.0}, {0.95, 1.2, 0.02, 0.97}, 0.0, 1.4),  -- sonic: |u - c| below delta
  point({0.8, -0.5, 1.2, 0.6}, {1.3, 0.4, -0.9, 1.5}, 2.1, 1.67),   -- shear, monatomic gas
  point({2.0, 0.1, -0.2, 3.0}, {1.9, -0.3, 0.6, 2.7}, -1.2, 1.3),   -- subsonic, oblique
}

--- Roe's average state of point x, as the kernel computes it, for the
--- coverage check below: un, c, delta.
local function roe_state(x)
  local g = x[11]
  local function prim(o)
    local r, u, v = x[o + 1], x[o + 2] / x[o + 1], x[o + 3] / x[o + 1]
    local p = (g - 1) * (x[o + 4] - 0.5 * r * (u * u + v * v))
    return r, u, v, (x[o + 4] + p) / r
  end
  local rl, ul, vl, hl = prim(0)
  local rr, ur, vr, hr = prim(4)
  local sl, sr = math.sqrt(rl), math.sqrt(rr)
  local u, v = (sl * ul + sr * ur) / (sl + sr), (sl * vl + sr * vr) / (sl + sr)
  local h = (sl * hl + sr * hr) / (sl + sr)
  local c = math.sqrt((g - 1) * (h - 0.5 * (u * u + v * v)))
  local un = u * x[9] + v * x[10]
  return un, c, 0.1 * (math.abs(un) + c)
end

-- }====

-- {==== the three computations ====}

--- The core's CALL table for point x: arrays QL, QR, F.
local function call_of(x)
  return {arrays = {{name = "QL", type = "double", values = {x[1], x[2], x[3], x[4]}},
                    {name = "QR", type = "double", values = {x[5], x[6], x[7], x[8]}},
                    {name = "F", type = "double", values = {0, 0, 0, 0}}},
          args = {{array = 1, offset = 0}, {array = 2, offset = 0}, {double = x[9]},
                  {double = x[10]}, {double = x[11]}, {array = 3, offset = 0}}}
end

--- Runs a shell command; returns its standard output, failing with its stderr.
local function run(cmd)
  local err = H.tmp(".err")
  local p = assert(io.popen(cmd .. " 2>" .. err))
  local out = p:read("a")
  local ok = p:close()
  local e = H.read(err)
  os.remove(err)
  assert(ok, cmd .. ": " .. e)
  return out
end

--- Numbers of a line of %a (or %.17g) fields.
local function numbers(line)
  local t = {}
  for w in line:gmatch("%S+") do t[#t + 1] = assert(tonumber(w), w) end
  return t
end

--- The flux of roe.c compiled with cc -O2 (no contraction into FMA, which
--- would round differently from the interpreter's separate operations).
local function compiled_fluxes()
  local src, exe = H.tmp(".c"), H.tmp(".exe")
  local out = {'#include <stdio.h>', '#include "' .. ROE .. '"', "int main(void) {",
               "  double x[][11] = {"}
  for _, x in ipairs(POINTS) do
    local f = {}
    for i, v in ipairs(x) do f[i] = ("%a"):format(v) end
    out[#out + 1] = "    {" .. table.concat(f, ", ") .. "},"
  end
  out[#out + 1] = ("  };\n  for (int p = 0; p < %d; p++) {"):format(#POINTS)
  out[#out + 1] = "    double f[4];\n    roe(x[p], x[p] + 4, x[p][8], x[p][9], x[p][10], f);"
  out[#out + 1] = '    printf("%a %a %a %a\\n", f[0], f[1], f[2], f[3]);\n  }\n  return 0;\n}'
  H.write(src, table.concat(out, "\n") .. "\n")
  run(("cc -std=c99 -O2 -ffp-contract=off -Wall -Wextra -I. -o %s %s -lm"):format(exe, src))
  local rows = {}
  for line in run(exe):gmatch("[^\n]+") do rows[#rows + 1] = numbers(line) end
  os.remove(src); os.remove(exe)
  return rows
end

--- ADOL-C's flux and jacobian() at every point: {{y = {4}, J = {{11} x 4}}...}.
local function adolc_results()
  local exe, pts = H.tmp(".exe"), H.tmp(".txt")
  run(("g++ -O2 -I. -o %s spec/adolc/roe.cpp -ladolc"):format(exe))
  local lines = {}
  for _, x in ipairs(POINTS) do
    local f = {}
    for i, v in ipairs(x) do f[i] = ("%.17g"):format(v) end
    lines[#lines + 1] = table.concat(f, " ")
  end
  H.write(pts, table.concat(lines, "\n") .. "\n")
  local out = {}
  local root = run("pwd"):gsub("\n$", "")
  local function abs(path) return path:sub(1, 1) == "/" and path or root .. "/" .. path end
  -- in the temporary directory: a tape that outgrows ADOL-C's buffers goes to a file there
  for line in run(("(cd %s && %s < %s)"):format(H.tmpdir, abs(exe), abs(pts))):gmatch("[^\n]+") do
    local v = numbers(line)
    local J = {}
    for i = 1, 4 do J[i] = table.move(v, 4 + (i - 1) * 11 + 1, 4 + i * 11, 1, {}) end
    out[#out + 1] = {y = {v[1], v[2], v[3], v[4]}, J = J}
  end
  os.remove(exe); os.remove(pts)
  return out
end

--- Largest difference of two 4 x 11 matrices relative to the scale of each
--- row (its largest magnitude in either): entries that vanish in exact
--- arithmetic (at a supersonic face the flux is the upwind one, so its
--- derivatives in the downwind state cancel) are rounding noise in both
--- tools, below 1e-15 of the row, and have no relative accuracy of their own.
local function rel_diff(A, B)
  local worst = 0
  for i = 1, 4 do
    local scale = 2.2250738585072014e-308 -- at least the smallest normal double
    for j = 1, 11 do scale = math.max(scale, math.abs(A[i][j]), math.abs(B[i][j])) end
    for j = 1, 11 do
      local d = math.abs(A[i][j] - B[i][j]) / scale
      if d ~= d then d = math.huge end -- NaN: a failure
      worst = math.max(worst, d)
    end
  end
  return worst
end

-- }====

--- The tangent code of tangent.emit (split strategy `split`), compiled
--- warning-free with a driver that calls roe_d once per unit input tangent
--- at every point: {{y = {4}, J = {{11} x 4}}...}.
local function tangent_results(split)
  local tangent = require "cgwb.tangent"
  local code = assert(tangent.emit(assert(require("cgwb").read_kernel(ROE)), "roe", {split = split}))
  local gen, src, exe = H.tmp("_d.c"), H.tmp(".c"), H.tmp(".exe")
  H.write(gen, code)
  local out = {'#include <stdio.h>', '#include <string.h>', '#include "' .. gen .. '"',
               "int main(void) {", "  double x[][11] = {"}
  for _, x in ipairs(POINTS) do
    local f = {}
    for i, v in ipairs(x) do f[i] = ("%a"):format(v) end
    out[#out + 1] = "    {" .. table.concat(f, ", ") .. "},"
  end
  out[#out + 1] = ([[  };
  for (int p = 0; p < %d; p++) {
    double f[4], fd[4], J[4][11];
    for (int j = 0; j < 11; j++) {
      double xd[11];
      memset(xd, 0, sizeof xd);
      xd[j] = 1.0;
      roe_d(x[p], xd, x[p] + 4, xd + 4, x[p][8], xd[8], x[p][9], xd[9], x[p][10], xd[10], f, fd);
      for (int i = 0; i < 4; i++) J[i][j] = fd[i];
    }
    printf("%%a %%a %%a %%a", f[0], f[1], f[2], f[3]);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 11; j++) printf(" %%a", J[i][j]);
    printf("\n");
  }
  return 0;
}]]):format(#POINTS)
  H.write(src, table.concat(out, "\n") .. "\n")
  -- the generated file alone, warning-free; then the driver around it
  run(("cc -std=c99 -Wall -Wextra -Werror -O2 -ffp-contract=off -c -o %s.o %s"):format(exe, gen))
  run(("cc -std=c99 -O2 -ffp-contract=off -I. -o %s %s -lm"):format(exe, src))
  local rows = {}
  for line in run(exe):gmatch("[^\n]+") do
    local v = numbers(line)
    local J = {}
    for i = 1, 4 do J[i] = table.move(v, 4 + (i - 1) * 11 + 1, 4 + i * 11, 1, {}) end
    rows[#rows + 1] = {y = {v[1], v[2], v[3], v[4]}, J = J}
  end
  os.remove(gen); os.remove(src); os.remove(exe); os.remove(exe .. ".o")
  return rows
end

describe("the Roe flux kernel (examples/kernels/roe.c)", function()
  local k = assert(core.kernel_load(assert(kparse.read(ROE))))

  it("is one basic block of 64 active assignments, flattened into one subgraph", function()
    local res = assert(core.kernel_flatten(k, "roe"))
    local active = {}
    for _, b in ipairs(res.blocks) do if #b.lines > 0 then active[#active + 1] = b end end
    assert.equal(1, #active)
    assert.equal(64, #active[1].lines)
    assert.equal(1, active[1].n_subgraphs)
    assert.equal(64, active[1].statement_level_subgraphs)
    assert.equal(4, #active[1].subgraphs[1].dependents)
  end)

  it("is consistent: equal states give the physical flux, a supersonic face the upwind one", function()
    local function physical(x, o) -- the Euler flux of the state at x[o+1..o+4] across (nx, ny)
      local g, r = x[11], x[o + 1]
      local u, v, e = x[o + 2] / r, x[o + 3] / r, x[o + 4]
      local p = (g - 1) * (e - 0.5 * r * (u * u + v * v))
      local un = u * x[9] + v * x[10]
      return {r * un, r * un * u + p * x[9], r * un * v + p * x[10], (e + p) * un}
    end
    local same = point({1.1, 0.4, -0.2, 0.9}, {1.1, 0.4, -0.2, 0.9}, 0.5, 1.4)
    local super = POINTS[3] -- Mach about 2.5 along the normal: every wave goes right
    for _, case in ipairs({{same, physical(same, 0)}, {super, physical(super, 0)}}) do
      local got = assert(k:run("roe", call_of(case[1]))).arrays[3].values
      for i = 1, 4 do
        assert(math.abs(got[i] - case[2][i]) <= 1e-13 * math.max(1, math.abs(case[2][i])),
               ("component %d: %.17g, want %.17g"):format(i, got[i], case[2][i]))
      end
    end
  end)

  it("the test states cover the entropy fix: |un - c| below and above delta", function()
    local fixed, free = 0, 0
    for _, x in ipairs(POINTS) do
      local un, c, delta = roe_state(x)
      if math.abs(un - c) < delta then fixed = fixed + 1 else free = free + 1 end
      assert.is_true(c > 0)
    end
    assert.is_true(fixed >= 1 and free >= 4)
  end)

  it("runs in the interpreter as the compiled C does, bit for bit", function()
    local want = compiled_fluxes()
    assert.equal(#POINTS, #want)
    for p, x in ipairs(POINTS) do
      local r = assert(k:run("roe", call_of(x)))
      H.assert_bits(want[p], r.arrays[3].values, "point " .. p)
      local kept = table.move(r.arrays[2].values, 1, 4, 5, table.move(r.arrays[1].values, 1, 4, 1, {}))
      H.assert_bits(table.move(x, 1, 8, 1, {}), kept, "the states are only read")
    end
  end)

  it("has the Jacobian of ADOL-C's jacobian() (same kernel text over adoubles) to 1e-12", function()
    local ad = adolc_results()
    local cc = compiled_fluxes()
    assert.equal(#POINTS, #ad)
    for p, x in ipairs(POINTS) do
      H.assert_bits(cc[p], ad[p].y, "ADOL-C's flux at point " .. p) -- the same operations
      local J = assert(k:jacobian("roe", call_of(x)))
      assert.equal(4, #J.rows)
      assert.equal(11, #J.cols)
      for i = 1, 4 do assert.same({array = 3, cell = i - 1}, J.rows[i]) end
      local worst = rel_diff(J.values, ad[p].J)
      assert(worst <= 1e-12, ("point %d: relative difference %.3g"):format(p, worst))
    end
  end)
  for _, split in ipairs({"minimal", "statement"}) do
    it("its tangent code (split " .. split .. ") compiles warning-free, keeps the flux bit for bit " ..
       "and has the interpreter's Jacobian to 1e-12", function()
      local got = tangent_results(split)
      local cc = compiled_fluxes()
      assert.equal(#POINTS, #got)
      for p, x in ipairs(POINTS) do
        H.assert_bits(cc[p], got[p].y, "the tangent code's flux at point " .. p)
        local J = assert(k:jacobian("roe", call_of(x)))
        local worst = rel_diff(J.values, got[p].J)
        assert(worst <= 1e-12, ("point %d: relative difference %.3g"):format(p, worst))
      end
    end)
  end
end)

describe("the flattening benchmark's block (scripts/kbench-flat.lua)", function()
  local function gen(n, seed)
    return run(("lua5.4 scripts/kbench-flat.lua %d %d"):format(n, seed or 1))
  end

  it("is one basic block of exactly N active assignments, the same bytes for the same N and seed", function()
    for _, n in ipairs({40, 300}) do
      local text = gen(n)
      assert.equal(text, gen(n))
      assert.are_not.equal(text, gen(n, 2))
      local k = assert(core.kernel_load(assert(kparse.parse(text, "big.c"))))
      local res = assert(core.kernel_flatten(k, "f"))
      local active = {}
      for _, b in ipairs(res.blocks) do if #b.lines > 0 then active[#active + 1] = b end end
      assert.equal(1, #active)
      assert.equal(n, #active[1].lines)
      assert.is_true(active[1].n_subgraphs > 1) -- the aliasing splits it
      assert.is_true(active[1].n_subgraphs < active[1].statement_level_subgraphs)
    end
  end)

  it("compiles warning-free and runs in the interpreter as compiled, a and b the same array", function()
    local text = gen(300)
    local k = assert(core.kernel_load(assert(kparse.parse(text, "big.c"))))
    local A, C = {}, {}
    for i = 1, 24 do A[i], C[i] = math.sin(i), math.cos(i) end
    local call = {arrays = {{name = "A", type = "double", values = A}, {name = "C", type = "double", values = C}},
                  args = {{array = 1, offset = 0}, {array = 1, offset = 2}, {array = 2, offset = 0},
                          {double = 0.75}, {double = -0.5}, {int = 5}}}
    local r = assert(k:run("f", call))
    for _, v in ipairs(r.arrays[1].values) do assert.is_true(v == v and math.abs(v) < 1e3) end
    local gen_c, src, exe = H.tmp(".c"), H.tmp(".c"), H.tmp(".exe")
    H.write(gen_c, text)
    local a = {}
    for i, v in ipairs(A) do a[i] = ("%a"):format(v) end
    local c = {}
    for i, v in ipairs(C) do c[i] = ("%a"):format(v) end
    H.write(src, ('#include <stdio.h>\n#include "%s"\nint main(void) {\n  double A[] = {%s};\n' ..
      '  double C[] = {%s};\n  f(A, A + 2, C, 0x1.8p-1, -0x1p-1, 5);\n' ..
      '  for (int i = 0; i < 24; i++) printf("%%a\\n", A[i]);\n  return 0;\n}\n')
      :format(gen_c, table.concat(a, ", "), table.concat(c, ", ")))
    run(("cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -ffp-contract=off -fno-builtin -c -o %s.o %s")
        :format(exe, gen_c))
    run(("cc -std=c99 -O2 -ffp-contract=off -fno-builtin -I. -o %s %s -lm"):format(exe, src))
    local want = {}
    for line in run(exe):gmatch("[^\n]+") do want[#want + 1] = assert(tonumber(line)) end
    H.assert_bits(want, r.arrays[1].values, "A after the block")
    os.remove(gen_c); os.remove(src); os.remove(exe); os.remove(exe .. ".o")
  end)
end)
