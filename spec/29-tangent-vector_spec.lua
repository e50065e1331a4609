-- spec/29-tangent-vector_spec.lua: the vector mode of the tangent code
-- (doc/tangent-code.md, "Vector mode").  Per case the generated F_dv is
-- called once with all the Jacobian's directions (nd = its columns, unit
-- tangents), and F_d (spec/24's subject) once per direction; the driver
-- prints both.  F_dv's primal results must equal the interpreter's (k:run)
-- bit for bit, its tangents k:jacobian's to spec/24's tolerance and F_d's
-- bit for bit (the same arithmetic per direction), on every example kernel
-- (separate and aliased arrays) and on random kernels with aliasing.
local H = require "spec.helper"
local cgwb = require "cgwb"
local tangent = require "cgwb.tangent"
local kgen = require "kgen"
local rng = require "rng"
local T = require "tdriver" -- the driver helpers spec 24 and 29 share
local lit, param_decl, subject, num = T.lit, T.param_decl, T.subject, T.num
local close_enough, any_call, CC = T.close_enough, T.any_call, T.CC


--- Two C files for case n (F_dv's and F_d's globals may share names): F_dv
-- and case_n() printing "n 0 P a v..." (F_dv's primal cells) and "n d V a
-- v..." (F_dv's tangents of direction d); F_d and case_n_s() printing "n d
-- S a v..." (F_d's, one call per direction).
local function case_files(n, c)
  local arrs, nd = c.call.arrays, math.max(1, #c.cols)
  local out = { (c.vcode:gsub("\n(%a+ [%w_]+_dv%()", "\nstatic %1")), "#include <stdio.h>", "#include <string.h>",
    "void case_" .. n .. "(void);", "void case_" .. n .. "(void) {", "  int d, i;", "  (void)i;" }
  local sout = { (c.code:gsub("\n(%a+ [%w_]+_d%()", "\nstatic %1")), "#include <stdio.h>", "#include <string.h>",
    "void case_" .. n .. "_s(void);", "void case_" .. n .. "_s(void) {", "  int d, i;", "  (void)i;" }
  for i, a in ipairs(arrs) do
    local ty = a.type or "double"
    local vals = {}
    for j, v in ipairs(a.values) do vals[j] = ty == "int" and ("%d"):format(v) or lit(v) end
    out[#out + 1] = ("  static const %s I%d[%d] = {%s};"):format(ty, i, #vals, table.concat(vals, ", "))
    out[#out + 1] = ("  %s A%d[%d];"):format(ty, i, #vals)
    sout[#sout + 1], sout[#sout + 2] = out[#out - 1], out[#out]
    if ty == "double" then sout[#sout + 1] = ("  double T%d[%d];"):format(i, #vals) end
    out[#out + 1] = ("  memcpy(A%d, I%d, sizeof A%d);"):format(i, i, i)
    if ty == "double" then
      out[#out + 1] = ("  static double V%d[%d];"):format(i, #vals * nd)
      out[#out + 1] = ("  memset(V%d, 0, sizeof V%d);"):format(i, i)
    end
  end
  local vargs, args = { tostring(nd) }, {}
  for i, a in ipairs(c.call.args) do
    local p = c.params[i]
    if a.double then
      out[#out + 1] = ("  double sv%d[%d] = {0.0};"):format(i, nd)
      sout[#sout + 1] = ("  double s%d = 0.0;"):format(i)
      vargs[#vargs + 1], vargs[#vargs + 2] = lit(a.double), "sv" .. i
      args[#args + 1], args[#args + 2] = lit(a.double), "s" .. i
    elseif a.int then
      vargs[#vargs + 1] = ("%d"):format(a.int)
      args[#args + 1] = ("%d"):format(a.int)
    else
      local cast = p.type:find("%[%d+%]%[") and ("(double (*)" .. p.type:match("(%[%d+%])$") .. ")") or ""
      vargs[#vargs + 1] = ("%s(A%d + %d)"):format(cast, a.array, a.offset)
      args[#args + 1] = vargs[#vargs]
      if p.type:find("double") then
        vargs[#vargs + 1] = ("(V%d + %d * %d)"):format(a.array, a.offset, nd) -- flat: nd tangents a cell
        args[#args + 1] = ("%s(T%d + %d)"):format(cast, a.array, a.offset)
      end
    end
  end
  local function seed(j, col, scalar)
    if col.array and (arrs[col.array].type or "double") == "int" then return nil end -- an int cell: no tangent
    if scalar then
      return col.array and ("T%d[%d] = 1.0;"):format(col.array, col.cell) or ("s%d = 1.0;"):format(col.param)
    end
    return col.array and ("V%d[%d * %d + %d] = 1.0;"):format(col.array, col.cell, nd, j - 1)
      or ("sv%d[%d] = 1.0;"):format(col.param, j - 1)
  end
  for j, col in ipairs(c.cols) do out[#out + 1] = "  " .. (seed(j, col, false) or "") end
  if c.ret == "int" then out[#out + 1] = "  int ret;"; vargs[#vargs + 1] = "&ret" end -- the result through cg_ret
  out[#out + 1] = ("  if (%s_dv(%s) != 0) printf(\"%d 0 F 0\\n\");"):format(c.fname, table.concat(vargs, ", "), n)
  for i, a in ipairs(arrs) do
    if (a.type or "double") == "double" then
      out[#out + 1] = ("  printf(\"%d 0 P %d\"); for (i = 0; i < %d; i++) printf(\" %%a\", A%d[i]); printf(\"\\n\");")
        :format(n, i, #a.values, i)
      out[#out + 1] = ("  for (d = 0; d < %d; d++) { printf(\"%d %%d V %d\", d); for (i = 0; i < %d; i++) "
        .. "printf(\" %%a\", V%d[i * %d + d]); printf(\"\\n\"); }"):format(nd, n, i, #a.values, i, nd)
    end
  end
  out[#out + 1] = "}"
  local vout = out
  out = sout
  out[#out + 1] = ("  for (d = 0; d < %d; d++) {"):format(nd)
  for i, a in ipairs(arrs) do
    out[#out + 1] = ("    memcpy(A%d, I%d, sizeof A%d);"):format(i, i, i)
    if (a.type or "double") == "double" then out[#out + 1] = ("    memset(T%d, 0, sizeof T%d);"):format(i, i) end
  end
  for i, a in ipairs(c.call.args) do if a.double then out[#out + 1] = ("    s%d = 0.0;"):format(i) end end
  for j, col in ipairs(c.cols) do
    local s = seed(j, col, true)
    if s then out[#out + 1] = ("    if (d == %d) %s"):format(j - 1, s) end
  end
  out[#out + 1] = ("    %s_d(%s);"):format(c.fname, table.concat(args, ", "))
  for i, a in ipairs(arrs) do
    if (a.type or "double") == "double" then
      out[#out + 1] = ("    printf(\"%d %%d S %d\", d); for (i = 0; i < %d; i++) printf(\" %%a\", T%d[i]); printf(\"\\n\");")
        :format(n, i, #a.values, i)
    end
  end
  out[#out + 1] = "  }"
  out[#out + 1] = "}"
  return table.concat(vout, "\n") .. "\n", table.concat(sout, "\n") .. "\n"
end

--- Compiles and runs the cases: per case {P = {[a] = values}, V = {[d] =
-- {[a] = values}}, S = {[d] = {[a] = values}}}.
local function run_cases(cases)
  local files, main = {}, { "#include <stdio.h>" }
  for n, c in ipairs(cases) do
    local v, sc = case_files(n, c)
    files[#files + 1] = H.write(H.tmp(".c"), v)
    files[#files + 1] = H.write(H.tmp(".c"), sc)
    main[#main + 1] = ("void case_%d(void);\nvoid case_%d_s(void);"):format(n, n)
  end
  main[#main + 1] = "int main(void) {"
  for n = 1, #cases do main[#main + 1] = ("  case_%d();\n  case_%d_s();"):format(n, n) end
  main[#main + 1] = "  return 0;\n}"
  files[#files + 1] = H.write(H.tmp(".c"), table.concat(main, "\n") .. "\n")
  local exe, log = H.tmp(".exe"), H.tmp(".log")
  local ok = os.execute(("%s -o %s %s -lm 2>%s"):format(CC, exe, table.concat(files, " "), log))
  if not ok then error("the generated code does not compile:\n" .. H.read(log):sub(1, 3000)) end
  local p = assert(io.popen(exe))
  local got = {}
  for line in p:lines() do
    local n, d, kind, a, rest = line:match("^(%d+) (%d+) (%u) (%d+)(.*)$")
    n, d, a = tonumber(n), tonumber(d), tonumber(a)
    got[n] = got[n] or { P = {}, V = {}, S = {} }
    local vals = {}
    for x in rest:gmatch("%S+") do vals[#vals + 1] = num(x) end
    if kind == "F" then error(cases[n].label .. ": F_dv returned a nonzero status") end
    if kind == "P" then got[n].P[a] = vals
    else got[n][kind][d + 1] = got[n][kind][d + 1] or {}; got[n][kind][d + 1][a] = vals end
  end
  p:close()
  for _, f in ipairs(files) do os.remove(f) end
  os.remove(exe); os.remove(log)
  return got
end

local function same_bits(a, b) return (a ~= a and b ~= b) or lit(a) == lit(b) end

local function make_case(text, name, fname, call, opts)
  local k0 = assert(cgwb.read_kernel(text, name))
  local stext, sname = subject(text, k0, fname)
  local k = assert(cgwb.read_kernel(stext, name))
  if sname ~= fname then
    call = { arrays = { table.unpack(call.arrays) }, args = { table.unpack(call.args) } }
    call.arrays[#call.arrays + 1] = { name = "OUT", type = "double", values = { 0.0 } }
    call.args[#call.args + 1] = { array = #call.arrays, offset = 0 }
  end
  opts = opts or {}
  local code = assert(tangent.emit(k, sname, opts))
  local vopts = { vector = true }
  for key, v in pairs(opts) do vopts[key] = v end
  local vcode = assert(tangent.emit(k, sname, vopts))
  local fn
  for _, f in ipairs(k:functions()) do if f.name == sname then fn = f end end
  local J = assert(k:jacobian(sname, call))
  local cols = {}
  for j, c in ipairs(J.cols) do cols[j] = c.param and { param = c.param } or { array = c.array, cell = c.cell } end
  return { code = code, vcode = vcode, fname = sname, params = fn.params, ret = fn.ret, call = call,
           run = assert(k:run(sname, call)),
           J = J, cols = cols, label = name .. ":" .. fname }
end

local function check(cases)
  local got = run_cases(cases)
  local n_entries = 0
  for n, c in ipairs(cases) do
    local g = assert(got[n], c.label .. ": no output")
    for a, arr in ipairs(c.run.arrays) do
      if (c.call.arrays[a].type or "double") == "double" then
        for i, v in ipairs(arr.values) do
          assert(same_bits(v, g.P[a][i]), ("%s: primal of array %d cell %d"):format(c.label, a, i - 1))
        end
      end
    end
    for r, row in ipairs(c.J.rows) do
      for j = 1, #c.J.cols do
        local want, have = c.J.values[r][j], g.V[j][row.array][row.cell + 1]
        if not close_enough(have, want) then
          error(("%s: J[%d][%d]: vector tangent code %.17g, interpreter %.17g\n%s"):format(c.label, r, j, have,
            want, c.vcode))
        end
        n_entries = n_entries + 1
      end
    end
    for d = 1, math.max(1, #c.cols) do -- every tangent cell, against F_d's
      for a, vals in pairs(g.S[d]) do
        for i, v in ipairs(vals) do
          if not same_bits(v, g.V[d][a][i]) then
            error(("%s: direction %d array %d cell %d: F_dv %.17g, F_d %.17g\n%s"):format(c.label, d, a, i - 1,
              g.V[d][a][i], v, c.vcode))
          end
        end
      end
    end
  end
  return n_entries
end

local K = "examples/kernels/"

describe("the vector tangent code F_dv", function()
  it("has the vector signature: nd first, flat tangent pointers, a by-value tangent copied", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    local code = assert(tangent.emit(k, "fig2", { vector = true }))
    assert.truthy(code:find("int fig2_dv(int cg_nd, double x, const double *cg_in_xd, double *z, double *zd, "
      .. "int k, double *cg_ret, double *fig2_ret_d)", 1, true)) -- the status returned, the result through cg_ret
    assert.truthy(code:find("zd = (zd + k * cg_nd);", 1, true))       -- the pointer moves by k cells
    assert.truthy(code:find("if (cg_nd < 0 || cg_nd > CG_MAXDIR) return -1;", 1, true))
    assert.truthy(code:find("*cg_ret = cg_rval;\n  return 0;\n}", 1, true)) -- the flattened return
    -- one elimination, then the loop over the directions
    local _, nw = code:gsub("cg_w1_4 = %-cg_w1_3;", "")
    assert.equal(1, nw)
    assert.truthy(code:find("for (cg_i = 0; cg_i < cg_nd; cg_i++) cg_t1[cg_i] = cg_w1_4 * cg_d1[cg_i] "
      .. "+ cg_w2_4 * cg_d2[cg_i];", 1, true))
    -- F_d is unchanged by the option
    assert.equal(assert(tangent.emit(k, "fig2")), assert(tangent.emit(k, "fig2", { vector = false })))
  end)

  it("returns -1 for nd out of 0..CG_MAXDIR, touching nothing; 0 otherwise; nd = 0 gives the primal alone", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    local code = assert(tangent.emit(k, "fig2", { vector = true }))
    local drv = code .. [[
#include <stdio.h>
static void call(int nd) {
  double z[4] = {1.5, 2.5, 0.5, 3.0}, zd[12], xd[3] = {1.0, 0.0, 0.0}, rd[3] = {7.0, 7.0, 7.0}, y = 9.0;
  int i, rc, same = 1;
  for (i = 0; i < 12; i++) zd[i] = 5.0;
  rc = fig2_dv(nd, 0.75, xd, z, zd, 1, &y, rd);
  for (i = 0; i < 12; i++) same = same && zd[i] == 5.0;
  printf("%d %d %a %a %a %a %d\n", nd, rc, y, z[0], z[1], rd[0], same);
}
int main(void) {
  call(CG_MAXDIR + 1); /* CG_MAXDIR is 2 here */
  call(-1);
  call(0);
  call(CG_MAXDIR);
  return 0;
}
]]
    local src, exe = H.write(H.tmp(".c"), drv), H.tmp(".exe")
    assert.is_true(os.execute(("%s -DCG_MAXDIR=2 -o %s %s -lm"):format(CC, exe, src)) == true)
    local p = assert(io.popen(exe))
    local out = p:read("a")
    p:close()
    os.remove(src); os.remove(exe)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(4, #lines)
    local untouched = ("%a %a %a %a 1"):format(9.0, 1.5, 2.5, 7.0) -- y, z, rd as they were, zd too
    assert.equal("3 -1 " .. untouched, lines[1])
    assert.equal("-1 -1 " .. untouched, lines[2])
    -- nd = 0: z[0] = -(z[0] * x), the result z[1] / x, no tangent written
    assert.equal(("0 0 %a %a %a %a 1"):format(2.5 / 0.75, -(1.5 * 0.75), 2.5, 7.0), lines[3])
    local nd, rc = lines[4]:match("^(%S+) (%S+)")
    assert.same({ "2", "0" }, { nd, rc })
    assert.is_nil(lines[4]:find(" 1$")) -- zd written
  end)

  it("is written by cgwb flatten --emit tangent-vector", function()
    local out = H.tmp(".c")
    local ok = os.execute(("scripts/cgwb flatten %sutke-fig2.c --function fig2 --emit tangent-vector -o %s > /dev/null")
      :format(K, out))
    assert.is_true(ok == true)
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    assert.equal(assert(tangent.emit(k, "fig2", { vector = true })), H.read(out))
    os.remove(out)
    local log = H.tmp(".log")
    local _, _, status = os.execute(("scripts/cgwb flatten %sutke-fig2.c --function fig2 --emit tangent-vector 2>%s")
      :format(K, log))
    assert.equal(2, status)
    assert.truthy(H.read(log):find("--emit tangent-vector needs -o OUT.c", 1, true))
    os.remove(log)
  end)

  it("gives the interpreter's Jacobian and F_d's bits on every example kernel, separate and aliased", function()
    local r = rng.new(29)
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
    assert.is_true(check(cases) > 100)
    -- each file as emitted (its functions external), warning-free on its own
    local files = {}
    for i = 1, #cases, 2 do files[#files + 1] = H.write(H.tmp(".c"), cases[i].vcode) end
    local log = H.tmp(".log")
    local ok = os.execute(("%s -fsyntax-only %s 2>%s"):format(CC, table.concat(files, " "), log))
    assert(ok, H.read(log))
    for _, f in ipairs(files) do os.remove(f) end
    os.remove(log)
  end)

  it("gives the interpreter's Jacobian and F_d's bits on random kernels with random aliasing", function()
    local r = rng.new(2924)
    local cases = {}
    for n = 1, 40 do
      local text, info = kgen.kernel(r, { name = "kern" .. n })
      local split = n % 4 == 0 and "statement" or "minimal"
      cases[#cases + 1] = make_case(text, "kgen" .. n .. ".c", info.name, kgen.call(r, info), { split = split })
    end
    assert.is_true(check(cases) > 100)
  end)

  it("handles globals, addresses of scalars, local arrays passed on, do loops, moving pointers (spec/24's)", function()
    local text, call, sep = T.hand_kernel()
    check { make_case(text, "hand.c", "f", call), make_case(text, "hand.c", "f", sep),
            make_case(text, "hand.c", "f", call, { split = "statement" }) }
  end)

  it("gives a flattened return's value through cg_ret and status 0", function()
    local text = [[
#include <math.h>
double f(double x, double y) {
  return sin(x * y) * exp(x) / (y + x * x);
}
double g(const double *a, int n) {
  int i;
  double s = 0.0;
  for (i = 0; i < n; i++) s = s + a[i] * a[i];
  return s * f(a[0], a[1]);
}
]]
    check { make_case(text, "ret.c", "f", { arrays = {}, args = { { double = 0.7 }, { double = 1.3 } } }),
            make_case(text, "ret.c", "g", { arrays = { { type = "double", values = { 0.4, -0.9, 1.1 } } },
              args = { { array = 1, offset = 0 }, { int = 3 } } }) }
  end)

  it("gives the same on the papers' calls under both splits", function()
    local cases = {}
    for _, f in ipairs { { "utke-fig2", "fig2" }, { "hovland-fig1-aliased", "fig1" } } do
      local k = assert(cgwb.read_kernel(K .. f[1] .. ".c"))
      local call = assert(require("cgwb.kernel").core_call(k, f[2],
        require("cgwb.json").decode(H.read(K .. f[1] .. ".json"))))
      for _, split in ipairs { "minimal", "statement" } do
        cases[#cases + 1] = make_case(H.read(K .. f[1] .. ".c"), f[1] .. ".c", f[2], call, { split = split })
      end
    end
    check(cases)
  end)
end)
