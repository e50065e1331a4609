-- spec/58-valuetypes_spec.lua: C's arithmetic types outside the kernel subset
-- (unsigned int, long, long long, their unsigned forms, size_t and the
-- <stdint.h> typedefs, float, long double; doc/kernel-language.md, "Integer
-- types"): sizeof of them is the compiler's (LP64), checked against cc; every
-- other use is refused at file:line:col naming the type (through a chain of
-- typedefs: the type at its definition), the constant suffix, or the float
-- and long double math functions.  Their value types are designed in
-- doc/kernel-ir.md ("Value types beyond int and double").
local H = require "spec.helper"
local cgwb = require "cgwb"
local kp = require "cgwb.kparse"
local T = require "tdriver"

local have_cc = os.execute("cc --version >/dev/null 2>&1")

-- The type names whose sizes are compared, each in `sizeof(NAME)`.
local NAMES = { "unsigned", "unsigned int", "long", "long int", "signed long", "unsigned long", "long long",
  "unsigned long long", "long long int", "float", "long double", "size_t", "ptrdiff_t", "int64_t", "uint64_t",
  "int32_t", "uint32_t", "int16_t", "uint8_t", "intptr_t", "float *", "long *", "size_t *", "long [3]",
  "float [2][3]", "unsigned long [4]", "int64_t [5]", "unsigned short", "signed char", "double", "int *",
  "L3", "FP", "SZ2" }
local HEAD = "#include <stddef.h>\n#include <stdint.h>\ntypedef long L3[3];\ntypedef float *FP;\n"
  .. "typedef size_t SZ2[2];\n"

describe("C's arithmetic types outside the subset", function()
  it("have the compiler's sizes in sizeof", function()
    local body = {}
    for i, n in ipairs(NAMES) do body[#body + 1] = ("  o[%d] = sizeof(%s);"):format(i - 1, n) end
    local fn = "void f(int *o) {\n" .. table.concat(body, "\n") .. "\n}\n"
    local k = assert(cgwb.read_kernel(HEAD .. fn, "s.c"))
    local z = {}
    for i = 1, #NAMES do z[i] = 0 end
    local r = assert(k:call("f", { arrays = { O = z }, args = { o = { "O", 0 } } }))
    local got = r.arrays.O
    if not have_cc then pending("no cc") return end
    local main = HEAD .. fn .. "#include <stdio.h>\nint main(void) {\n  int o[" .. #NAMES .. "], i;\n  f(o);\n"
      .. "  for (i = 0; i < " .. #NAMES .. "; i++) printf(\"%d\\n\", o[i]);\n  return 0;\n}\n"
    local src, exe = H.tmp(".c"), H.tmp(".exe")
    H.write(src, main)
    assert(os.execute(("%s -o %s %s"):format(T.CC, exe, src)))
    local p = assert(io.popen(exe))
    local i = 0
    for line in p:lines() do
      i = i + 1
      assert.equal(tonumber(line), got[i], NAMES[i])
    end
    p:close()
    os.remove(src); os.remove(exe)
    assert.equal(#NAMES, i)
  end)

  it("are refused elsewhere at file:line:col, naming the type", function()
    local function err(src)
      local flat, e = kp.parse_c(src, "e.c")
      assert.is_nil(flat)
      return e
    end
    local TYPES = "(the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and "
      .. "pointers to them)"
    for _, c in ipairs {
      { "void f(unsigned n, double *y) { y[0] = n; }", "1:8", "unsigned int" },
      { "void f(double *y) { long n = 2; y[0] = n; }", "1:21", "long" },
      { "void f(double *y) { long long n = 2; y[0] = n; }", "1:21", "long long" },
      { "void f(double *y) { unsigned long long n = 2; y[0] = n; }", "1:21", "unsigned long long" },
      { "float f(double x) { return x; }", "1:1", "float" },
      { "void f(float *a, int n) { a[0] = n; }", "1:8", "float" },
      { "void f(double *y) { y[0] = (float)y[1]; }", "1:29", "float" },
      { "void f(double *y) { y[0] = (unsigned)y[1]; }", "1:29", "unsigned int" },
      { "void f(double *y) { long double t = y[0]; y[0] = t; }", "1:21", "long double" },
    } do
      assert.equal(("e.c:%s: '%s' is outside the kernel subset %s"):format(c[2], c[3], TYPES), err(c[1]))
    end
    -- a loop counter of type size_t: the refused typedef, and where its type is
    local e = err("#include <stddef.h>\ndouble f(const double *a, int n) {\n  double s = 0;\n"
      .. "  for (size_t i = 0; i < n; i++) s += a[i];\n  return s;\n}\n")
    assert.matches("^e%.c:4:8: the type 'size_t' is outside the kernel subset %(its definition at [^,]*stddef%.h:%d+:%d+: "
      .. "'unsigned long' is outside the kernel subset", e)
    -- a chain of typedefs names the last one, at its definition
    e = err("#include <stdint.h>\nvoid f(int64_t n, double *y) { y[0] = n; }\n")
    assert.matches("^e%.c:2:8: the type 'int64_t' is outside the kernel subset %(its definition at [^,]*:%d+:%d+, "
      .. "through the type '__int64_t' defined at [^:]*:%d+:%d+: 'signed long' is outside the kernel subset", e)
    e = err("typedef unsigned long A;\ntypedef A B;\ntypedef B C;\nvoid f(C n, double *y) { y[0] = n; }")
    assert.equal("e.c:4:8: the type 'C' is outside the kernel subset (its definition at e.c:3:11, through the type "
      .. "'A' defined at e.c:1:23: 'unsigned long' is outside the kernel subset " .. TYPES .. ")", e)
    -- constant suffixes
    for _, c in ipairs { { "1.0f", 28 }, { "10u", 28 }, { "5L", 28 }, { "3UL", 28 }, { "7ll", 28 } } do
      local sfx = c[1]:match("[%a]+$")
      assert.equal(("e.c:1:%d: the constant suffix '%s' is outside the kernel subset (float, long and unsigned "
        .. "constants)"):format(c[2], sfx), err("void f(double *y) { y[0] = " .. c[1] .. "; }"))
    end
    -- the float and long double math functions, with and without <math.h>
    assert.equal("e.c:2:29: a call of 'sqrtf' is outside the kernel subset (float is not yet supported; 'sqrt' is, "
      .. "in double)", err("#include <math.h>\ndouble f(double x) { return sqrtf(x); }"))
    assert.equal("e.c:1:29: a call of 'expl' is outside the kernel subset (long double is not yet supported; 'exp' "
      .. "is, in double)", err("double f(double x) { return expl(x); }"))
    -- a function of the file's own named so is the file's
    local k = assert(cgwb.read_kernel("double sinf(double x) { return 2 * x; }\ndouble f(double x) { return sinf(x); }",
      "o.c"))
    assert.equal(3, assert(k:call("f", { args = { x = 1.5 } }))["return"])
    -- sizeof of an expression of such a type cannot be written: the type is refused first
    assert.matches("^e%.c:1:%d+: 'float' is outside the kernel subset", err("int f(void) { float x = 1; return sizeof x; }"))
  end)
end)
