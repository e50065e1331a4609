-- spec/49-cpp_spec.lua: a C file as the compiler sees it (cgwb.kparse.cpp):
-- the system's preprocessor runs first with the user's -I, -D, -U and --std;
-- every message and every row still names the user's file:line:col, inside
-- a macro's expansion the place the macro is used.
local H = require "spec.helper"
local cgwb = require "cgwb"
local cpp = require "cgwb.kparse.cpp"

local have_cc = os.execute("cc --version >/dev/null 2>&1")

-- A fresh directory with files {name = text}; returns its path.
local function tree(files)
  local dir = H.tmp("-cpp")
  os.execute("mkdir -p '" .. dir .. "'")
  for name, text in pairs(files) do
    local sub = name:match("^(.*)/[^/]*$")
    if sub then os.execute("mkdir -p '" .. dir .. "/" .. sub .. "'") end
    H.write(dir .. "/" .. name, text)
  end
  return dir
end

-- The statements of function 1 as "line:col text" strings.
local function stmts(k)
  local out = {}
  for _, s in ipairs(k:statements(1)) do out[#out + 1] = ("%d:%d %s"):format(s.line, s.col, s.text) end
  return out
end

describe("cgwb.kparse.cpp.needed", function()
  it("runs the preprocessor only on a text with a directive other than #pragma, or with flags", function()
    assert.is_false(cpp.needed("void f(double *y) { y[0] = 1; }\n"))
    assert.is_false(cpp.needed("#pragma cgwb independent\nvoid f(void) {}\n"))
    assert.is_true(cpp.needed("  #  define N 3\nvoid f(void) {}\n"))
    assert.is_true(cpp.needed("#include <math.h>\n"))
    assert.is_false(cpp.needed('# 1 "k.c"\n# 12 "k.c" 2\nvoid f(void) {}\n')) -- already preprocessed
    assert.is_true(cpp.needed("void f(void) {}\n", { define = { "N=1" } }))
    assert.is_true(cpp.needed("void f(void) {}\n", { std = "c99" }))
    assert.is_false(cpp.needed("#define N 3\n", { preprocess = "never" }))
    assert.is_true(cpp.needed("void f(void) {}\n", { preprocess = "always" }))
  end)

  it("leaves a text without directives alone: no compiler is asked", function()
    local k = assert(cgwb.read_kernel("void f(double *y) {\n  y[0] =   1.5;\n}\n", "t.c", { cc = "/nonexistent/cc" }))
    assert.same({ "2:3 y[0] = 1.5" }, stmts(k))
  end)
end)

describe("the preprocessor before the front end", function()
  if not have_cc then
    pending("no cc on this machine")
    return
  end

  it("expands object- and function-like macros, #if, header guards and #pragma once", function()
    local dir = tree({
      ["sizes.h"] = "#ifndef SIZES_H\n#define SIZES_H\n#define N 4\n#define SQ(x) ((x) * (x))\n#endif\n",
      ["once.h"] = "#pragma once\n#define TWICE(a) (2 * (a))\n",
      ["k.c"] = "#include \"sizes.h\"\n#include \"sizes.h\"\n#include \"once.h\"\n#include \"once.h\"\n"
        .. "#if N > 3\n#define BIG 1\n#else\n#define BIG 0\n#endif\n"
        .. "void f(double *a, double *y) {\n  int i;\n  for (i = 0; i < N; i++)\n"
        .. "    y[i] = SQ(a[i] + 1) + TWICE(BIG);\n}\n",
    })
    local k = assert(cgwb.read_kernel(dir .. "/k.c"))
    local s = stmts(k)
    assert.equal("12:3 for (i < 4)", s[2])
    assert.equal("13:5 y[i] = (a[i] + (double)1) * (a[i] + (double)1) + (double)(2 * 1)", s[3])
  end)

  it("takes -I, -D NAME=VALUE, -D NAME, -U NAME and --std from the options", function()
    local dir = tree({
      ["inc/scale.h"] = "#define SCALE 2.5\n",
      ["k.c"] = "#include <scale.h>\n#ifdef HALF\n#define F 0.5\n#else\n#define F 1.0\n#endif\n"
        .. "#ifndef N\n#define N 2\n#endif\n"
        .. "void f(double *a, double *y) {\n  int i;\n  for (i = 0; i < N; i++) y[i] = a[i] * SCALE * F;\n}\n",
    })
    local k = assert(cgwb.read_kernel(dir .. "/k.c", nil, { include = { dir .. "/inc" }, define = { "N=7", "HALF" } }))
    assert.equal("12:3 for (i < 7)", stmts(k)[2])
    assert.equal("12:27 y[i] = a[i] * 2.5 * 0.5", stmts(k)[3])
    k = assert(cgwb.read_kernel(dir .. "/k.c", nil, { include = { dir .. "/inc" }, define = { "HALF" },
      undef = { "HALF" }, std = "c99" }))
    assert.equal("12:27 y[i] = a[i] * 2.5 * 1.0", stmts(k)[3])
    local none, err = cgwb.read_kernel(dir .. "/k.c")
    assert.is_nil(none)
    assert.equal(dir .. "/k.c:1:10: fatal error: scale.h: No such file or directory", err)
  end)

  it("names the user's file:line:col, the macro's use inside an expansion, a header's own place", function()
    local dir = tree({
      ["h.h"] = "static double g(double x) {\n  return x +   bad_in_header;\n}\n",
      ["k.c"] = "#define N 3\n#define BAD(x) ((x) + nowhere)\n\nvoid f(double *a,    double *y) {\n"
        .. "  int i;   double s = 0;\n  for (i = 0; i < N; i++)      s = s + BAD(a[i]);\n  y[0] = s;\n}\n",
      ["k2.c"] = "#define N 3\nvoid f(double *y) {\n  y[0] = N +     missing;\n}\n",
      ["k3.c"] = "#include \"h.h\"\nvoid f(double *y) { y[0] = g(1.0); }\n",
    })
    local _, e1 = cgwb.read_kernel(dir .. "/k.c")
    assert.equal(dir .. "/k.c:6:40: unknown identifier 'nowhere'", e1) -- BAD's use
    local _, e2 = cgwb.read_kernel(dir .. "/k2.c")
    assert.equal(dir .. "/k2.c:3:18: unknown identifier 'missing'", e2) -- the spaces squeezed by cc are put back
    local _, e3 = cgwb.read_kernel(dir .. "/k3.c")
    assert.equal(dir .. "/h.h:2:16: unknown identifier 'bad_in_header'", e3)
  end)

  it("keeps the rows' lines and columns, and #pragma cgwb, as in the user's file", function()
    local dir = tree({
      ["k.c"] = "#define N 8\n/* a comment\n   over lines */\nvoid f(double *a, double *y) {\n  int i;\n"
        .. "#pragma cgwb independent\n  for (i = 0; i < N; i++)\n    y[i] =    2 * a[i];\n}\n",
    })
    local k = assert(cgwb.read_kernel(dir .. "/k.c"))
    local s = k:statements(1)
    assert.equal("7:3 for (i < 8)", ("%d:%d %s"):format(s[2].line, s[2].col, s[2].text))
    assert.equal("8:5 y[i] = (double)2 * a[i]", ("%d:%d %s"):format(s[3].line, s[3].col, s[3].text))
    assert.equal("independent", s[2].pragma)
    local syms = {}
    for _, sy in ipairs(k:symbols(1)) do syms[sy.name] = ("%d:%d"):format(sy.line, sy.col) end
    assert.same({ a = "4:16", y = "4:27", i = "5:7" }, syms)
  end)

  it("reads <math.h> as the compiler does: M_PI under the default standard, not under -std=c99", function()
    local dir = tree({ ["k.c"] = "#include <math.h>\nvoid f(double *x, double *y) {\n  y[0] = sin(x[0]) * M_PI;\n}\n" })
    local k = assert(cgwb.read_kernel(dir .. "/k.c"))
    assert.equal("3:3 y[0] = sin(x[0]) * 3.1415926535897931", stmts(k)[1])
    local _, err = cgwb.read_kernel(dir .. "/k.c", nil, { std = "c99" })
    assert.equal(dir .. "/k.c:3:22: unknown identifier 'M_PI'", err)
  end)

  it("reads a text through the preprocessor too (includes relative to the working directory)", function()
    local k = assert(cgwb.read_kernel("#define K 2\nvoid f(double *y) {\n  y[0] = K;\n}\n", "mem.c"))
    assert.equal("3:3 y[0] = (double)2", stmts(k)[1])
    local _, err = cgwb.read_kernel("#define K 2\nvoid f(double *y) {\n  y[0] = K + zz;\n}\n", "mem.c")
    assert.equal("mem.c:3:14: unknown identifier 'zz'", err)
  end)

  it("gives a cached result only while every included file holds the same bytes", function()
    local dir = tree({ ["n.h"] = "#define N 3\n", ["k.c"] = "#include \"n.h\"\nvoid f(double *y) {\n  y[0] = N;\n}\n" })
    local text = H.read(dir .. "/k.c")
    cpp.clear_cache()
    local out1, map1 = assert(cpp.run_cached(text, "k.c", {}, dir .. "/k.c"))
    local plain = assert(cpp.run(text, "k.c", {}, dir .. "/k.c"))
    assert.equal(plain, out1)
    local out2, map2 = cpp.run_cached(text, "k.c", {}, dir .. "/k.c")
    assert.equal(out1, out2)
    assert.equal(map1, map2) -- the very same: no process
    assert.equal("3:3 y[0] = (double)3", stmts(assert(cgwb.read_kernel(dir .. "/k.c")))[1])
    H.write(dir .. "/n.h", "#define N 4\n") -- the header changes: the cache does not answer
    local out3 = cpp.run_cached(text, "k.c", {}, dir .. "/k.c")
    assert.not_equal(out1, out3)
    assert.equal("3:3 y[0] = (double)4", stmts(assert(cgwb.read_kernel(dir .. "/k.c")))[1])
    local out4 = cpp.run_cached(text, "k.c", { define = { "X" } }, dir .. "/k.c") -- other flags: another entry
    assert.equal(out3, out4)
  end)

  it("says so when the compiler cannot be run or refuses a flag", function()
    local _, err = cgwb.read_kernel("#define K 2\nvoid f(double *y) { y[0] = K; }\n", "m.c", { cc = "/nonexistent/cc" })
    assert.equal("m.c: cannot run the C preprocessor '/nonexistent/cc -E' (set CC to a C compiler)", err)
    _, err = cgwb.read_kernel("void f(double *y) { y[0] = 1; }\n", "m.c", { std = "c89" })
    assert.equal("--std 'c89': expected c99 or c11", err)
    _, err = cgwb.read_kernel("void f(double *y) { y[0] = 1; }\n", "m.c", { define = { "1X" } })
    assert.equal("-D '1X': expected NAME or NAME=VALUE", err)
  end)

  it("takes -I -D -U --std on the command line of kernel, flatten, loops and adjoint", function()
    local dir = tree({ ["k.c"] = "#ifndef N\n#error N is not defined\n#endif\n"
      .. "void f(double *a, double *y) {\n  int i;\n  for (i = 0; i < N; i++) y[i] = a[i] * a[i];\n}\n" })
    local k = dir .. "/k.c"
    local out, err, code = H.cgwb("kernel " .. k)
    assert.equal(2, code)
    assert.equal("", out)
    assert.equal("cgwb kernel: " .. k .. ":2:2: error: #error N is not defined\n", err)
    out, err, code = H.cgwb("kernel " .. k .. " -D N=5 -U M --std c99")
    assert.equal(0, code, err)
    assert.truthy(out:find("for (i < 5)", 1, true))
    out, err, code = H.cgwb("flatten " .. k .. " -DN=2 --json")
    assert.equal(0, code, err)
    out, err, code = H.cgwb("loops " .. k .. " -D N=2")
    assert.equal(0, code, err)
    local o = H.tmp(".c")
    out, err, code = H.cgwb("adjoint " .. k .. " -D N=2 -o " .. o)
    assert.equal(0, code, err)
    os.remove(o)
    _, err, code = H.cgwb("kernel " .. k .. " --std gnu89")
    assert.equal(2, code)
    assert.equal("cgwb kernel: --std 'gnu89': expected c99 or c11\n", err)
  end)
end)
