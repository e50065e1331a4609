-- spec/56-inttypes_spec.lua: the integer types narrower than int (char,
-- signed and unsigned char, short, unsigned short, _Bool; doc/kernel-language.md,
-- "Integer types"): int arithmetic, storage of a type of their own.  The
-- interpreter against the compiled kernel bit for bit on stores of
-- out-of-range values (wrap-around, _Bool's != 0), casts and constants; the
-- C that cgwb.ir prints compiles cleanly and computes the same; a
-- nussinov-style dynamic program over a char sequence; a lookup and a
-- histogram indexed by chars, whose tangent code (spec/tcheck.lua) and
-- adjoint code (spec/adcheck.lua) are checked against the interpreter and
-- central differences; the errors at file:line:col.
local H = require "spec.helper"
local cgwb = require "cgwb"
local core = require "cgwb.core"
local kp = require "cgwb.kparse"
local unparse = require "cgwb.ir.unparse"
local T = require "tdriver"

local have_cc = os.execute("cc --version >/dev/null 2>&1")

-- The stdout of C program text compiled with the specs' strict flags (or cc).
local function run_strict(text, cc)
  local src, exe, log = H.tmp(".c"), H.tmp(".exe"), H.tmp(".log")
  H.write(src, text)
  local ok = os.execute(("%s -o %s %s -lm 2>%s"):format(cc or T.CC, exe, src, log))
  if not ok then error("does not compile:\n" .. H.read(log) .. "\n" .. text) end
  local p = assert(io.popen(exe))
  local out = p:read("a")
  p:close()
  os.remove(src); os.remove(exe); os.remove(log)
  return out
end

local function numbers(s)
  local t = {}
  for w in s:gmatch("%S+") do t[#t + 1] = assert(tonumber(w), w) end
  return t
end

local function zeros(n) local z = {}; for i = 1, n do z[i] = 0 end; return z end

local WRAP = [[
static const char G[4] = {300, 'a', -1, '\xff'};
static const unsigned char UG[2] = {-1, 256 + 7};
static const _Bool BG[3] = {2, 0, 0.5};
void wrap(int n, char *c, unsigned char *u, short *s, unsigned short *us, _Bool *b, int *out) {
  int i;
  signed char sc;
  short t = 0;
  double q;
  for (i = 0; i < n; i++) {
    q = 0.25 * i;
    c[i] = 100 * i + 27;
    u[i] = -7 * i - 3;
    s[i] = 20000 * i;
    us[i] = -30000 * i + 5;
    b[i] = i - 2;
    b[i] = b[i] + (i == 3);
    sc = (signed char)(c[i] * 3);
    t += 12345;
    c[i]++;
    u[i] += 200;
    out[i] = c[i] + u[i] + s[i] + us[i] + b[i] + sc + t + (char)(i * 77) + (unsigned char)(-i) + G[i % 4]
      + UG[i % 2] + BG[i % 3] + (_Bool)q + (_Bool)(i - 1) + (short)(70000 * i) + (unsigned short)(-i)
      + 'z' - '\n' + '\0' + '\101' + sizeof(short) + sizeof(char) + sizeof(_Bool) + sizeof c[0] + sizeof(u[i]);
  }
}
]]

local WRAP_MAIN = [[
#include <stdio.h>
int main(void) {
  char c[7]; unsigned char u[7]; short s[7]; unsigned short us[7]; _Bool b[7]; int out[7], i;
  wrap(7, c, u, s, us, b, out);
  for (i = 0; i < 7; i++) printf("%d %d %d %d %d %d\n", c[i], u[i], s[i], us[i], b[i], out[i]);
  return 0;
}
]]

local WRAP_CALL = { arrays = { C = zeros(7), U = zeros(7), S = zeros(7), US = zeros(7), B = zeros(7), O = zeros(7) },
  args = { n = 7, c = { "C", 0 }, u = { "U", 0 }, s = { "S", 0 }, us = { "US", 0 }, b = { "B", 0 }, out = { "O", 0 } } }

describe("integer types narrower than int", function()
  it("are int cells of their own C type in the IR, printed as declared", function()
    local k = assert(cgwb.read_kernel(WRAP, "wrap.c"))
    local types = {}
    for _, s in ipairs(k:symbols("wrap")) do types[s.name] = s.type end
    assert.same({ n = "int", c = "char *", u = "unsigned char *", s = "short *", us = "unsigned short *",
      b = "_Bool *", out = "int *", i = "int", sc = "signed char", t = "short", q = "double" }, types)
    local lay = core.kernel_layout()
    assert.equal("char", lay.ctypes[lay.ctypes.char + 1])
    assert.equal(8, lay.ctype_bits.char)
    assert.is_false(lay.ctype_signed["unsigned short"])
    local c = unparse.unparse(k:flat(), lay)
    assert.truthy(c:find("void wrap(int n, char *c, unsigned char *u, short *s, unsigned short *us, _Bool *b, int *out)",
      1, true))
    assert.truthy(c:find("static const char G[4] = {44, 97, (-1), (-1)};", 1, true))
    assert.truthy(c:find("static const _Bool BG[3] = {1, 0, 1};", 1, true))
    assert.truthy(c:find("signed char sc;", 1, true))
    assert.truthy(c:find("(signed char)(c[i] * 3)", 1, true))
  end)

  it("store wrapped values, as the compiled kernel does, bit for bit (and so does the printed IR)", function()
    if not have_cc then return pending("no cc") end
    local k = assert(cgwb.read_kernel(WRAP, "wrap.c"))
    local r = assert(k:call("wrap", WRAP_CALL))
    -- the source as cc reads it (its constants overflow on purpose: warnings), the printed IR strictly
    for v, src in ipairs { WRAP, unparse.unparse(k:flat(), core.kernel_layout()) } do
      local want = numbers(run_strict(src .. WRAP_MAIN, v == 1 and "cc -std=c99 -w" or nil))
      assert.equal(42, #want)
      for i = 0, 6 do
        for j, a in ipairs { "C", "U", "S", "US", "B", "O" } do
          assert.equal(want[i * 6 + j], r.arrays[a][i + 1], a .. "[" .. i .. "]")
        end
      end
    end
    -- the values themselves: 127 + 1 wraps to -128, -3 + 200 to 197, 60000 to -5536
    assert.equal(-128, r.arrays.C[2])
    assert.equal(197, r.arrays.U[1])
    assert.equal(-25536, r.arrays.S[3])
    assert.equal(1, r.arrays.B[1])
  end)

  local NUSS = [[
typedef char base;
#define match(b1, b2) (((b1)+(b2)) == 3)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
int nussinov(int n, base seq[24], int table[24][24]) {
  int i, j, k;
  for (i = n - 1; i >= 0; i--) {
    for (j = i + 1; j < n; j++) {
      if (j - 1 >= 0) table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < n) table[i][j] = max_score(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < n) {
        if (i < j - 1) table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
        else table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++) table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
    }
  }
  return table[0][n - 1];
}
]]

  it("run a nussinov-style dynamic program over a char sequence as cc does", function()
    if not have_cc then return pending("no cc") end
    local k = assert(cgwb.read_kernel(NUSS, "nuss.c"))
    local seq = {}
    for i = 1, 24 do seq[i] = (i * 7 + i // 3) % 4 end
    local r = assert(k:call("nussinov", { arrays = { S = seq, T = zeros(24 * 24) },
      args = { n = 24, seq = { "S", 0 }, table = { "T", 0 } } }))
    local list = {}
    for i, v in ipairs(seq) do list[i] = tostring(v) end
    local want = numbers(run_strict(NUSS .. ([[
#include <stdio.h>
int main(void) {
  static base seq[24] = { %s };
  static int table[24][24];
  int i, j, r = nussinov(24, seq, table);
  printf("%%d\n", r);
  for (i = 0; i < 24; i++) for (j = 0; j < 24; j++) printf("%%d\n", table[i][j]);
  return 0;
}
]]):format(table.concat(list, ", "))))
    assert.equal(want[1], r["return"])
    assert.is_true(r["return"] > 0)
    for c = 1, 24 * 24 do assert.equal(want[c + 1], r.arrays.T[c], "table cell " .. (c - 1)) end
  end)

  -- char indices of double arithmetic: a lookup, a histogram, a char local
  local LOOK = [=[
void look(int n, const char *code, unsigned char *tag, const double *w, const double *x, double *y, double *h) {
  int i;
  char c;
  for (i = 0; i < n; i++) {
    c = code[i];
    tag[i] = (unsigned char)(c * 100 + i);
    y[i] = w[(int)c] * x[i] * x[i] + w[(unsigned char)code[(i + 1) % n]] * sin(x[i])
      + (signed char)(c * 90) * x[i] + (_Bool)x[i];
    h[(int)c] = h[(int)c] + x[i] * w[(int)c];
  }
  y[0] = y[0] + tag[1] * x[0];
}
]=]
  local function look_call()
    local C = require "adcheck"
    local arr = C.arr
    return { arrays = { arr("int", { 2, 0, 3, 3, 1, 2 }), arr("int", zeros(6)), arr("double", { 0.5, -1.25, 2, 0.75 }),
      arr("double", C.ramp(6, -0.7, 1.3)), arr("double", zeros(6)), arr("double", { 0.1, 0.2, 0.3, 0.4 }) },
      args = { { int = 6 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
        { array = 4, offset = 0 }, { array = 5, offset = 0 }, { array = 6, offset = 0 } } }
  end

  it("index double arithmetic: tangent code against the interpreter's tangent mode", function()
    if not have_cc then return pending("no cc") end
    local TC = require "tcheck"
    local text = "#include <math.h>\n" .. LOOK
    local call = look_call()
    call.arrays[1].ctype, call.arrays[2].ctype = "char", "unsigned char"
    local c = TC.make_case(text, "look.c", "look", call)
    assert.truthy(c.code:find("const char *code, unsigned char *tag", 1, true))
    TC.check({ c })
    -- the wrapped tags: 2 * 100 + 0 = 200, 0 + 1, 300 + 2 = 46 (mod 256)
    assert.same({ 200, 1, 46, 47, 104, 205 }, c.run.arrays[2].values)
  end)

  it("index double arithmetic: adjoint code against central differences", function()
    if not have_cc then return pending("no cc") end
    local C = require "adcheck"
    local text = "#include <math.h>\n" .. LOOK
    local out = C.check(text, "look", look_call(), { zero = { 4, 6 } })
    assert.truthy(out.code:find("const char *code, unsigned char *tag", 1, true))
  end)

  it("snapshot unsigned char and short cells of a dry-run loop through runtime calls of their own type", function()
    if not have_cc then return pending("no cc") end
    local C = require "adcheck"
    local arr = C.arr
    local text = [=[
void snap(int n, const char *restrict code, unsigned char *restrict tag, short *restrict cnt,
          const double *restrict w, const double *restrict x, double *restrict y) {
  int i;
  for (i = 0; i < n; i++) {
    tag[i] = (unsigned char)(tag[i] * 3 + code[i]);
    cnt[i] += 30000;
    y[i] = y[i] * x[i] + w[(int)code[i]] * tag[i] * x[i] * cnt[i] * 1e-5;
  }
  y[0] = y[0] * x[1] + tag[0] + cnt[1];
}
]=]
    local call = { arrays = { arr("int", { 1, 2, 0, 2, 1 }), arr("int", { 100, 7, 255, 0, 90 }),
      arr("int", { 5000, -20000, 30000, 0, 2767 }), arr("double", { 0.5, -1.5, 2 }), arr("double", C.ramp(5, -0.9, 1.1)),
      arr("double", C.ramp(5, 0.3, -0.6)) },
      args = { { int = 5 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
        { array = 4, offset = 0 }, { array = 5, offset = 0 }, { array = 6, offset = 0 } } }
    local out = C.check(text, "snap", call)
    assert.equal(1, #out.rep.loops)
    assert.is_true(out.rep.loops[1].transformed)
    assert.is_true(out.rep.loops[1].dry_run)
    assert.truthy(out.code:find("cgwb_snap_cuc%(%d, tag, &tag%[i%]%)"))
    assert.truthy(out.code:find("cgwb_snap_cs%(%d, cnt, &cnt%[i%]%)"))
  end)

  it("wrap in the alias analysis too: a store of n + 256 into an unsigned char is n", function()
    local text = "void f(int n, double *y) {\n  unsigned char c;\n  c = n + 256;\n  y[c] = 1.0;\n  y[300] = y[n] * 2.0;\n}\n"
    local k = assert(cgwb.read_kernel(text, "a.c"))
    local r = assert(k:call("f", { arrays = { Y = zeros(301) }, args = { n = 0, y = { "Y", 0 } } }))
    assert.equal(2, r.arrays.Y[301]) -- y[0] written by line 4 and read by line 5
    local ud = assert(k:analyze("f")).chains.ud
    -- the use y[n] (A6) is reached by the entry (0) and by s2, `y[c] = 1.0`: with c taken as
    -- n + 256 it would be a cell apart, and s2 would not reach it
    assert.same({ 0, 2 }, ud[6] or ud["6"])
    -- as an int, c is n + 256: s2 does not reach y[n]
    k = assert(cgwb.read_kernel((text:gsub("unsigned char c", "int c")), "a.c"))
    ud = assert(k:analyze("f")).chains.ud
    assert.same({ 0 }, ud[6] or ud["6"])
  end)

  it("are refused with file:line:col where C refuses them, and checked at the call", function()
    local function err(src)
      local flat, e = kp.parse(src, "e.c")
      assert.is_nil(flat)
      return e
    end
    assert.equal("e.c:2:39: argument 1 of 'g' must be int *, not char *",
      err("void g(int *p) { p[0] = 1; }\nvoid f(char *c, int *q) { q[0] = 0; g(c); }"))
    assert.equal("e.c:1:41: cannot assign short * to unsigned short *",
      err("void f(short *s, unsigned short *u) { u = s; u[0] = 1; }"))
    assert.equal("e.c:1:60: the branches of '?:' have different types",
      err("void f(int n, char *c, signed char *d, int *o) { o[0] = (n ? c : d)[0]; }"))
    assert.matches("^e%.c:1:34: a cast of a pointer of another type to 'char %*' is outside the kernel subset",
      err("void f(int *p, int *o) { o[0] = ((char *)p)[0]; }"))
    assert.equal("e.c:1:6: a function returning 'char' is outside the kernel subset (functions return void, int or double)",
      err("char f(int x) { return x; }"))
    assert.equal("e.c:1:27: the constant 300.5 converted to char: out of its range (undefined in C)",
      err("static const char G[1] = {300.5};\nvoid f(int *o) { o[0] = G[0]; }"))
    assert.matches("^e%.c:1:%d+: the character constant 'ab' is outside the kernel subset",
      err("void f(int *o) { o[0] = 'ab'; }"))
    -- the interpreter: a char parameter's values must be chars; a double out of a char's range is an error
    local k = assert(cgwb.read_kernel("void f(int n, char *c, int *o) { o[0] = c[0] + n; }", "v.c"))
    local r, e = k:call("f", { arrays = { C = { 200 }, O = { 0 } }, args = { n = 1, c = { "C", 0 }, o = { "O", 0 } } })
    assert.is_nil(r)
    assert.matches("cell 0 of array 1 %(C%) is 200, not a char", e)
    k = assert(cgwb.read_kernel("void f(double x, signed char *c) { c[0] = x; }", "v.c"))
    r, e = k:call("f", { arrays = { C = { 0 } }, args = { x = 300.5, c = { "C", 0 } } })
    assert.is_nil(r)
    assert.matches("^v%.c:1:43: conversion of 300%.5 to signed char: out of range", e)
    r = assert(k:call("f", { arrays = { C = { 0 } }, args = { x = -128.9, c = { "C", 0 } } }))
    assert.equal(-128, r.arrays.C[1])
  end)
end)
