-- spec/60-passive_spec.lua: the C library calls with no derivative in an
-- analysed function (printf, fprintf to stdout or stderr, puts, fputs,
-- putchar, fflush, exit, abort, assert in glibc's two expansions and under
-- NDEBUG; `(void) e`), one PASSIVE statement each (doc/kernel-language.md,
-- "Passive calls").  The interpreter's output must be the compiled
-- kernel's byte for byte (generated formats); exit ends a run as C's does,
-- abort and a failing assert are errors with their place; tangent and
-- adjoint code keep each call in the primal part, so the derivative code
-- prints what the kernel prints, once and in its order, and gives the
-- kernel's derivatives; a dry run that would print again is refused with
-- the reason; bad uses name their place.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local kp = require "cgwb.kparse"
local rng = require "rng"
local AC = require "adcheck"
local TC = require "tcheck"
local A = require "addriver"
local loops = require "cgwb.loops"

local function darr(vals) return { type = "double", values = vals } end
local function iarr(vals) return { type = "int", values = vals } end

-- A kernel of every passive form, its derivatives those of y = x * x + s.
local KERNEL = [[
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
void f(int n, const double *x, double *y) {
  int i;
  double s = 0.0;
  assert(n > 0 && "n is a count");
  if (n > 1000) {
    fprintf(stderr, "%s: n = %d is too big\n", "f", n);
    exit(3);
  }
  (void) s;
  for (i = 0; i < n; i++) {
    s += x[i];
    y[i] = x[i] * x[i] + s;
    printf("%d %.17g %+8.3e\n", i, y[i], s);
  }
  fputs("done\n", stdout);
  putchar('!');
  putchar('\n');
  fflush(stdout);
  puts("tab\there \"quoted\" 100%");
}
]]

local function call(n, vals)
  return { arrays = { darr(vals), darr(AC.ramp(#vals, 0, 0)) },
    args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
end

describe("passive calls: the front end", function()
  it("makes one statement of each, printed back as the kernel's author wrote it", function()
    local text = kp.unparse(assert(cgwb.read_kernel(KERNEL, "p.c")):flat())
    for _, want in ipairs { 'assert(n > 0);', 'fprintf(stderr, "f: n = %d is too big\\n", n);', "exit(3);",
      'printf("%d %.17g %+8.3e\\n", i, y[i], s);', 'fputs("done\\n", stdout);', "putchar(33);", "fflush(stdout);",
      'puts("tab\\there \\"quoted\\" 100%");', "#include <assert.h>", "#include <stdio.h>", "#include <stdlib.h>" } do
      assert.truthy(text:find(want, 1, true), want .. "\n" .. text)
    end
    assert.falsy(text:find("(void)", 1, true), "a cast to void is dropped")
    assert.is_nil(text:find("__assert_fail", 1, true))
  end)

  it("reads assert in strict ISO C and under NDEBUG too", function()
    for _, flags in ipairs { { std = "c99" }, { define = { "NDEBUG" } } } do
      local k, err = cgwb.read_kernel(KERNEL, "p.c", flags)
      assert.truthy(k, err)
      local text = kp.unparse(k:flat())
      assert.equal(flags.std and 1 or 0, select(2, text:gsub("assert%(n > 0%);", "")), text)
    end
  end)

  it("refuses what the subset cannot print, naming the place", function()
    local cases = {
      { "void f(double *y) { FILE *fp = 0; fprintf(fp, \"%g\", y[0]); }", "" },
      { "void f(double *y) { printf(\"%s\", y); }", "3:" },
      { "void f(double *y) { printf(\"%p\", (void *) y); }", "the conversion '%p'" },
      { "void f(double *y) { printf(\"%d\", y[0]); }", "converts an int" },
      { "void f(double *y) { printf(\"%g %g\", y[0]); }", "takes 2 arguments, not 1" },
      { "void f(double *y) { printf(\"%ld\", 1); }", "length modifier" },
      { "void f(double *y) { y[0] = printf(\"x\"); }", "the value of 'printf'" },
      { "void f(double *y) { char *s = 0; puts(s); }", "" },
      { "void f(double *y) { printf(\"%99999d\", 1); }", "more than 4 digits" },
      { "void f(double *y) { printf(\"a\\0b\"); }", "a NUL byte" },
    }
    for _, c in ipairs(cases) do
      local src = "#include <stdio.h>\n\n" .. c[1]
      local k, err = cgwb.read_kernel(src, "bad.c")
      assert.is_nil(k, c[1])
      assert.truthy(err:find("^bad%.c:3:%d+: "), err)
      assert.truthy(err:find(c[2], 1, true), c[1] .. ": " .. err)
    end
  end)

  it("the loader checks hand-made rows: the row of the table, a format the interpreter can format", function()
    local flat = assert(kp.parse('#include <stdio.h>\nvoid f(int n) { printf("%d\\n", n); }', "l.c"))
    local lay = kp.layout()
    local s0 = nil
    for s = 0, #flat.stmt // lay.width.stmt - 1 do
      if lay.stmts[flat.stmt[s * lay.width.stmt + lay.stmt.KIND] + 1] == "passive" then s0 = s end
    end
    assert.is_number(s0)
    local base = s0 * lay.width.stmt
    local saved = flat.stmt[base + lay.stmt.FLAGS]
    flat.stmt[base + lay.stmt.FLAGS] = 99
    local k, err = core.kernel_load(flat)
    assert.is_nil(k)
    assert.truthy(err:find("passive call 99", 1, true), err)
    flat.stmt[base + lay.stmt.FLAGS] = saved
    flat.names[flat.stmt[base + lay.stmt.X0] + 1] = "%s\n"
    k, err = core.kernel_load(flat)
    assert.is_nil(k)
    assert.truthy(err:find("converts a string", 1, true), err)
    flat.names[#flat.names + 1] = "%n"
    flat.stmt[base + lay.stmt.X0] = #flat.names - 1
    k, err = core.kernel_load(flat)
    assert.is_nil(k)
    assert.truthy(err:find("the conversion '%n'", 1, true), err)
  end)
end)

-- A random printf conversion and the C text of a value it converts: ints
-- from m[], doubles from x[] (their values given), so the kernel evaluates them.
local function conversion(r, ints, dbls)
  local flags = ({ "", "-", "+", " ", "#", "0", "-+", "0+" })[r:int(1, 8)]
  local width = r:int(0, 3) == 0 and "" or tostring(r:int(1, 14))
  local prec = r:int(0, 2) == 0 and "" or ("." .. r:int(0, 9))
  local conv = ({ "d", "i", "x", "X", "o", "u", "c", "f", "e", "E", "g", "G", "a", "A", "lf", "hd" })[r:int(1, 16)]
  if conv == "c" then flags, prec = flags:gsub("[+ #0]", ""), "" end
  if conv:find("[diouxXh]") then flags = flags:gsub("#", "") end
  local star = r:int(0, 5) == 0
  local args = {}
  if star then ints[#ints + 1] = r:int(-12, 12); args[#args + 1] = ("m[%d]"):format(#ints - 1); width = "*" end
  if conv:find("[cdiouxXh]") then
    local v = conv == "c" and r:int(32, 126) or (conv:find("[diuh]") and r:int(-2000000, 2000000) or r:int(0, 2000000))
    ints[#ints + 1] = v
    args[#args + 1] = ("m[%d]"):format(#ints - 1)
  else
    local mag = 10 ^ r:int(-9, 14)
    dbls[#dbls + 1] = ({ 0.0, r:float(-1, 1) * mag, r:float(-1, 1), 1 / 3, -2.5e-310 })[r:int(1, 5)]
    args[#args + 1] = ("x[%d]"):format(#dbls - 1)
  end
  return "%" .. flags .. width .. prec .. conv, args
end

describe("passive calls: the interpreter", function()
  it("prints what the compiled kernel prints, byte for byte, on generated formats", function()
    local r = rng.new(60)
    local ints, dbls, body = {}, {}, {}
    for _ = 1, H.sized(60, 20) do
      local fmt, args = {}, {}
      for _ = 1, r:int(1, 4) do
        local spec, a = conversion(r, ints, dbls)
        fmt[#fmt + 1] = spec .. ({ " ", "|", "%%", ":" })[r:int(1, 4)]
        for _, x in ipairs(a) do args[#args + 1] = x end
      end
      local stream = ({ "printf(", "fprintf(stdout, " })[r:int(1, 2)]
      body[#body + 1] = ("  %s\"%s\\n\", %s);"):format(stream, table.concat(fmt), table.concat(args, ", "))
    end
    if #ints == 0 then ints[1] = 0 end
    if #dbls == 0 then dbls[1] = 0 end
    local kernel = "#include <stdio.h>\nvoid f(const double *x, const int *m) {\n" .. table.concat(body, "\n") .. "\n}\n"
    local k = assert(cgwb.read_kernel(kernel, "gen.c"))
    local res = assert(k:run("f", { arrays = { darr(dbls), iarr(ints) },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 } } }))
    local xs, ms = {}, {}
    for i, v in ipairs(dbls) do xs[i] = ("%a"):format(v) end
    for i, v in ipairs(ints) do ms[i] = tostring(v) end
    local prog = kernel .. ("int main(void) {\n  static const double x[] = {%s};\n  static const int m[] = {%s};\n"
      .. "  f(x, m);\n  return 0;\n}\n"):format(table.concat(xs, ", "), table.concat(ms, ", "))
    assert.equal(H.run_c(prog), res.stdout)
  end)

  it("keeps stderr apart, ends a run at exit as C does, and reports abort and a failing assert", function()
    local k = assert(cgwb.read_kernel(KERNEL, "p.c"))
    local r = assert(k:run("f", call(2, { 1.5, -0.5 })))
    assert.equal("0 3.75 +1.500e+00\n1 1.25 +1.000e+00\ndone\n!\ntab\there \"quoted\" 100%\n", r.stdout)
    assert.is_nil(r.stderr)
    assert.is_nil(r.exit)
    r = assert(k:run("f", call(1001, AC.ramp(1001, 0, 1))))
    assert.equal("f: n = 1001 is too big\n", r.stderr)
    assert.is_nil(r.stdout)
    assert.equal(3, r.exit)
    assert.truthy(r.exit_note:find("^p%.c:10:5: note: the kernel called exit%(3%)"), r.exit_note)
    assert.equal(0, r.arrays[2].values[1], "y as it stood: not written")
    local bad, err = k:run("f", call(0, { 1 }))
    assert.is_nil(bad)
    assert.truthy(err:find("^p%.c:7:3: assertion 'n > 0 && \"n is a count\"' failed"), err) -- the macro's use
    local ka = assert(cgwb.read_kernel('#include <stdlib.h>\nvoid g(int n) { if (n) abort(); }', "a.c"))
    bad, err = ka:run("g", { args = { { int = 1 } } })
    assert.is_nil(bad)
    assert.truthy(err:find("^a%.c:2:%d+: the kernel called abort%(%)"), err)
  end)

  it("names the column of a statement after a macro on its line (stderr is one)", function()
    local src = '#include <stdio.h>\n#include <stdlib.h>\nvoid g(int n) {\n  if (n > 1) { fprintf(stderr, "%d\\n", n); exit(n); }\n}\n'
    local k = assert(cgwb.read_kernel(src, "m.c"))
    local r = assert(k:run("g", { args = { { int = 4 } } }))
    assert.equal("4\n", r.stderr)
    assert.truthy(r.exit_note:find("^m%.c:4:44: note: the kernel called exit%(4%)"), r.exit_note)
  end)

  it("cgwb kernel --call prints the output and the exit", function()
    local src = H.write(H.tmp(".c"), KERNEL)
    local cj = H.write(H.tmp(".json"), '{"arrays": {"X": [2], "Y": [0]}, "args": {"n": 1, "x": ["X", 0], "y": ["Y", 0]}}')
    local out, err, code = H.cgwb(("kernel %s --function f --call %s"):format(src, cj))
    assert.equal(0, code, err)
    assert.truthy(out:find('"stdout": "0 6 +2.000e+00\\ndone\\n!\\ntab\\there \\"quoted\\" 100%\\n"', 1, true), out)
    local list = H.cgwb(("kernel %s --function f"):format(src)) -- the listing names the stream as the source does
    assert.truthy(list:find('fprintf(stderr, "%s: n = %d is too big\\n", "f", n)', 1, true) == nil, list)
    assert.truthy(list:find('fprintf(stderr, "f: n = %d is too big\\n", n)', 1, true), list)
  end)
end)

describe("passive calls: derivative code", function()
  it("tangent and adjoint code print what the kernel prints, once, in its order, with the kernel's derivatives", function()
    local c = call(4, { 0.5, -1.25, 2.0, 0.75 })
    TC.check({ TC.make_case(KERNEL, "p.c", "f", c) })
    local out = AC.check(KERNEL, "f", c, { loops = "auto", seed = 60, keep = true })
    local k = assert(cgwb.read_kernel(KERNEL, "p.c"))
    local want = {}
    for line in assert(k:run("f", c)).stdout:gmatch("[^\n]+") do want[#want + 1] = line end
    for _, v in ipairs { "std", "tr" } do
      assert.same(want, out[v].other, v)
      assert.same(want, A.primal(out[v .. "_exe"], c).other, v .. " primal")
    end
    A.free(out.std_exe); A.free(out.tr_exe)
  end)

  it("adjoins a terminal loop that prints per iteration, and refuses a dry run that would print again", function()
    local src = [[
#include <math.h>
#include <stdio.h>
void g(int n, const double *restrict x, double *restrict y, double *restrict z) {
  int i;
  for (i = 0; i < n; i++) {
    y[i] = sin(x[i]) * x[i];
    printf("%d %.17g\n", i, y[i]);
  }
  for (i = 0; i < n; i++) z[i] = y[i] * 2.0;
}
]]
    local k = assert(cgwb.read_kernel(src, "g.c"))
    local info = assert(loops.analyse(k, "g"))
    assert.equal("refuse", info.loops[1].verdict)
    assert.truthy(info.loops[1].reason:find("a dry run would run printf at 7:%d+ again"), info.loops[1].reason)
    local c = { arrays = { darr { 0.5, 1.5, -2 }, darr { 0, 0, 0 }, darr { 0, 0, 0 } },
      args = { { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
    local out = AC.check(src, "g", c, { loops = "auto", seed = 61, keep = true })
    assert.equal(3, #out.tr.other)
    A.free(out.std_exe); A.free(out.tr_exe)
    local term = src:gsub("  for %(i = 0; i < n; i%+%+%) z%[i%] = y%[i%] %* 2%.0;\n", "  z[0] = 2.0;\n")
    local kt = assert(cgwb.read_kernel(term, "t.c"))
    local lt = assert(loops.analyse(kt, "g")).loops[1]
    assert.same({ "accept", true }, { lt.verdict, lt.terminal })
    out = AC.check(term, "g", c, { loops = "auto", seed = 62, keep = true })
    local want = {}
    for line in assert(kt:run("g", c)).stdout:gmatch("[^\n]+") do want[#want + 1] = line end
    assert.equal(3, #want)
    assert.same(want, out.tr.other) -- the fused loop (Fig. 4) prints each iteration once, in order
    A.free(out.std_exe); A.free(out.tr_exe)
  end)

  it("XAIF has them as front-end statements (Marker)", function()
    local src = '#include <stdio.h>\nvoid h(double *y) { y[0] = y[0] * y[0]; printf("%g\\n", y[0]); }'
    local k = assert(cgwb.read_kernel(src, "h.c"))
    local res = assert(require("cgwb.flatten").run(k, "h"))
    local x = assert(require("cgwb.xaif").write(k, "h", res))
    assert.truthy(x:find('annotation="passive printf"', 1, true), x)
  end)
end)
