-- spec/18-kparse_spec.lua: the kernel front end (lua/cgwb/kparse.lua).
-- First the canonical form (Utke, Flattening, sec. 2: C1-C5) of small
-- hand-made kernels, read in the unparsed C and in the rows; then every
-- class of error with its exact file:line:col message; then the papers'
-- examples in examples/kernels/; then properties: random texts never make
-- the front end raise or hang, and random kernels of spec/kgen.lua parse,
-- load, and unparse to C that computes what the source computes, bit for
-- bit, with aliased bindings too.
local H = require "spec.helper"
local core = require "cgwb.core"
local kp = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"

local LAY = core.kernel_layout()

-- {==== reading rows ====}

local function field(flat, tab, id, f) return flat[tab][id * LAY.width[tab] + LAY[tab][f]] end
local function count(flat, tab) return #flat[tab] // LAY.width[tab] end

--- The rows of a function's body: kinds of its statements in list order.
local function body_kinds(flat, f)
  local out = {}
  local b, n = field(flat, "func", f, "BODY"), field(flat, "func", f, "NBODY")
  for i = 1, n do out[i] = LAY.stmts[field(flat, "stmt", flat.list[b + i], "KIND") + 1] end
  return out
end

--- An expression as a prefix term: add(var:x, const_i:2), for the rows.
local function term(flat, x)
  local op = LAY.exprs[field(flat, "expr", x, "OP") + 1]
  local s = field(flat, "expr", x, "SYM")
  local head = op
  if op == "var" or op == "elem" or op == "addr" then head = op .. ":" .. flat.names[field(flat, "sym", s, "NAME") + 1]
  elseif op == "const_i" then head = op .. ":" .. field(flat, "expr", x, "IVAL")
  elseif op == "const_d" then head = op .. ":" .. ("%.17g"):format(flat.dconst[field(flat, "expr", x, "IVAL") + 1])
  elseif op == "intrin" then head = LAY.intrinsics[s + 1]
  elseif op == "cast" then head = "cast:" .. LAY.types[field(flat, "expr", x, "TYPE") + 1] end
  local args = {}
  for _, f in ipairs({ "A", "B", "C" }) do
    local c = field(flat, "expr", x, f)
    if c >= 0 then args[#args + 1] = term(flat, c) end
  end
  return #args > 0 and (head .. "(" .. table.concat(args, ", ") .. ")") or head
end

local function parse(text, name)
  local flat, err = kp.parse(text, name or "h.c")
  assert(flat, err)
  return flat
end

local function sym_named(flat, name)
  for s = 0, count(flat, "sym") - 1 do
    if flat.names[field(flat, "sym", s, "NAME") + 1] == name then return s end
  end
end
-- }====

describe("kparse: canonical form", function()
  it("Utke, Flattening, Fig. 1: two assignments on scalars, rows and C", function()
    local flat = parse(H.read("examples/kernels/utke-fig1.c"), "utke-fig1.c")
    assert.same({ "assign", "assign", "return" }, body_kinds(flat, 0))
    local s1 = flat.list[field(flat, "func", 0, "BODY") + 1]
    assert.equal("var:z", term(flat, field(flat, "stmt", s1, "X0")))
    assert.equal("neg(mul(var:z, var:x))", term(flat, field(flat, "stmt", s1, "X1")))
    assert.equal(11, field(flat, "stmt", s1, "LINE"))
    assert.equal(3, field(flat, "stmt", s1, "COL"))
    assert.equal(2, field(flat, "func", 0, "NPARAM"))
    assert.equal(LAY.sym_kinds.param, field(flat, "sym", sym_named(flat, "z"), "KIND"))
    assert.equal(LAY.sym_kinds["local"], field(flat, "sym", sym_named(flat, "y"), "KIND"))
    assert.equal(table.concat({
      "#include <math.h>",
      "double fig1(double x, double z);",
      "double fig1(double x, double z) {",
      "  double y;",
      "  z = -(z * x);",
      "  y = z / x;",
      "  return y;",
      "}", "" }, "\n"), kp.unparse(flat))
  end)

  it("Utke, Flattening, Fig. 2: *z is ELEM(z, 0), z += k a PTRADD", function()
    local flat = parse(H.read("examples/kernels/utke-fig2.c"), "utke-fig2.c")
    local b = field(flat, "func", 0, "BODY")
    local function st(i) return flat.list[b + i] end
    assert.equal("elem:z(const_i:0)", term(flat, field(flat, "stmt", st(1), "X0")))
    assert.equal("neg(mul(elem:z(const_i:0), var:x))", term(flat, field(flat, "stmt", st(1), "X1")))
    assert.equal("ptradd(var:z, var:k)", term(flat, field(flat, "stmt", st(2), "X1")))
    assert.equal("div(elem:z(const_i:0), var:x)", term(flat, field(flat, "stmt", st(3), "X1")))
    local z = sym_named(flat, "z")
    assert.equal(1, field(flat, "sym", z, "PTR"))
  end)

  it("hoists calls into CALL statements with temporaries t<N>@<line> (C3, C4)", function()
    local flat = parse("double g(double v) { return v * v; }\n"
      .. "void f(double *a, int i, double x) {\n"
      .. "  a[i] += g(x) * 2;\n"
      .. "  x = g(g(x));\n"
      .. "}\n")
    assert.same({ "call", "assign", "call", "call" }, body_kinds(flat, 1))
    local t = sym_named(flat, "t1@3")
    assert.equal(LAY.sym_kinds.temp, field(flat, "sym", t, "KIND"))
    assert.equal(3, field(flat, "sym", t, "LINE"))
    assert.is_truthy(sym_named(flat, "t2@4"))
    assert.is_nil(sym_named(flat, "t3@4")) -- x = g(...) receives the outer call directly
    assert.equal(table.concat({
      "void f(double *a, int i, double x) {",
      "  double t1_3;",
      "  double t2_4;",
      "  t1_3 = g(x);",
      "  a[i] = a[i] + (t1_3 * ((double)2));",
      "  t2_4 = g(x);",
      "  x = g(t2_4);",
      "}", "" }, "\n"), kp.unparse(flat):match("void f%(double %*a, int i, double x%) {\n.*"))
  end)

  it("expands compound assignments with a copied subscript tree", function()
    local flat = parse("void f(double *a, int i) { a[i + 1] *= a[i]; }")
    local s = flat.list[field(flat, "func", 0, "BODY") + 1]
    assert.equal("elem:a(add(var:i, const_i:1))", term(flat, field(flat, "stmt", s, "X0")))
    assert.equal("mul(elem:a(add(var:i, const_i:1)), elem:a(var:i))", term(flat, field(flat, "stmt", s, "X1")))
    -- the copy is new rows: every expression has one parent
    local parents = {}
    for x = 0, count(flat, "expr") - 1 do
      for _, f in ipairs({ "A", "B", "C" }) do
        local c = field(flat, "expr", x, f)
        if c >= 0 then
          assert.is_nil(parents[c])
          parents[c] = x
        end
      end
    end
  end)

  it("hoists ++ and --: prefix before the statement, postfix after it", function()
    local flat = parse("void f(double *a, int i, double x) {\n  x = a[i++] + a[++i];\n  --i;\n}\n")
    local text = kp.unparse(flat)
    assert.truthy(text:find("  i = i + 1;\n  x = a[i] + a[i];\n  i = i + 1;\n  i = i - 1;\n", 1, true), text)
  end)

  it("each statement's postfix ++ and -- happen once, after it, whatever the statements around it", function()
    -- statements without a postfix between ones with them: the pending
    -- list is emptied by each statement and never carried to the next
    local flat = parse("void f(double *a, int i, int j) {\n  a[0] = 1.0;\n  a[i++] = 2.0;\n  a[1] = 3.0;\n"
      .. "  a[j--] = a[i++];\n  a[2] = 4.0;\n  j++;\n  a[3] = a[i];\n}\n")
    local text = kp.unparse(flat)
    assert.truthy(text:find("  a[0] = 1.0;\n  a[i] = 2.0;\n  i = i + 1;\n  a[1] = 3.0;\n  a[j] = a[i];\n"
      .. "  j = j - 1;\n  i = i + 1;\n  a[2] = 4.0;\n  j = j + 1;\n  a[3] = a[i];\n}", 1, true), text)
  end)

  it("a postfix ++ in a condition goes through a temporary", function()
    local flat = parse("void f(double *a, int i) {\n  if (i++ < 3) a[i] = 1.0;\n}\n")
    assert.truthy(kp.unparse(flat):find("  t1_2 = i;\n  i = i + 1;\n  if (t1_2 < 3) {\n", 1, true))
  end)

  it("a loop condition's calls go to its pre slice, a for's init before it, its step to the step slice", function()
    local flat = parse("double g(double v) { return v - 1.0; }\n"
      .. "void f(double *a, double x, int n) {\n"
      .. "  while (g(x) > 0.0) x = x / 2;\n"
      .. "  for (int k = 0; k < n; k++) a[k] = x;\n"
      .. "}\n")
    assert.same({ "loop", "assign", "loop" }, body_kinds(flat, 1))
    local b = field(flat, "func", 1, "BODY")
    local w, fl = flat.list[b + 1], flat.list[b + 3]
    assert.equal(LAY.loop_kinds["while"], field(flat, "stmt", w, "FLAGS"))
    assert.equal(1, field(flat, "stmt", w, "X6")) -- one pre statement: the call
    assert.equal("call", LAY.stmts[field(flat, "stmt", flat.list[field(flat, "stmt", w, "X5") + 1], "KIND") + 1])
    assert.equal("gt(var:t1@3, const_d:0)", term(flat, field(flat, "stmt", w, "X0")))
    assert.equal(LAY.loop_kinds["for"], field(flat, "stmt", fl, "FLAGS"))
    assert.equal(1, field(flat, "stmt", fl, "X4")) -- the step k = k + 1
    local step = flat.list[field(flat, "stmt", fl, "X3") + 1]
    assert.equal("add(var:k, const_i:1)", term(flat, field(flat, "stmt", step, "X1")))
    assert.truthy(kp.unparse(flat):find("while ((t1_3 = g(x), (t1_3 > 0.0))) {", 1, true))
  end)

  it("C's conversions become CAST nodes; a double tests as x != 0.0", function()
    local flat = parse("void f(double *a, int n, double x) {\n  n = x;\n  x = n / 2;\n"
      .. "  if (x) a[0] = n;\n  a[1] = !x;\n}\n")
    local b = field(flat, "func", 0, "BODY")
    local function rhs(i) return term(flat, field(flat, "stmt", flat.list[b + i], "X1")) end
    assert.equal("cast:int(var:x)", rhs(1))
    assert.equal("cast:double(div(var:n, const_i:2))", rhs(2))
    assert.equal("ne(var:x, const_d:0)", term(flat, field(flat, "stmt", flat.list[b + 3], "X0")))
    assert.equal("cast:double(eq(var:x, const_d:0))", rhs(4))
  end)

  it("local initializers are statements; a list fills the rest with 0", function()
    local flat = parse("double f(void) {\n  double b[2][2] = {{1.5}, {2}};\n  return b[1][1];\n}\n")
    assert.same({ "assign", "assign", "assign", "assign", "return" }, body_kinds(flat, 0))
    local b = field(flat, "func", 0, "BODY")
    local want = { "const_d:1.5", "const_d:0", "cast:double(const_i:2)", "const_d:0" }
    for i = 1, 4 do
      assert.equal(want[i], term(flat, field(flat, "stmt", flat.list[b + i], "X1")))
    end
    assert.equal("elem:b(const_i:1, const_i:0)", term(flat, field(flat, "stmt", flat.list[b + 3], "X0")))
  end)

  it("pointers: &a[2] is ADDR, *(p + i) is ELEM(p, i), &x marks x addr", function()
    local flat = parse("void f(double *a, int i, double x) {\n  double *p = &a[2];\n  *(p + i) = 1.0;\n"
      .. "  double *q = &x;\n  *q = 2.0;\n}\n")
    local b = field(flat, "func", 0, "BODY")
    local function st(i) return flat.list[b + i] end
    assert.equal("addr:a(const_i:2)", term(flat, field(flat, "stmt", st(1), "X1")))
    assert.equal("elem:p(var:i)", term(flat, field(flat, "stmt", st(2), "X0")))
    assert.equal("addr:x", term(flat, field(flat, "stmt", st(3), "X1")))
    assert.equal(LAY.qual.addr, field(flat, "sym", sym_named(flat, "x"), "QUAL") & LAY.qual.addr)
    assert.equal(0, field(flat, "sym", sym_named(flat, "i"), "QUAL") & LAY.qual.addr)
  end)

  it("parameters keep const, restrict and dims; globals their initializers", function()
    local flat = parse("static const double c[3] = {1, 2.5};\n"
      .. "void f(const double *restrict a, double b[][4], double d[5], int *idx) { }\n")
    local c = sym_named(flat, "c")
    assert.equal(LAY.sym_kinds.global, field(flat, "sym", c, "KIND"))
    assert.equal(-1, field(flat, "sym", c, "FUNC"))
    assert.equal(2, field(flat, "sym", c, "NINIT"))
    assert.same({ 1.0, 2.5 }, { flat.dconst[field(flat, "sym", c, "INIT") + 1],
      flat.dconst[field(flat, "sym", c, "INIT") + 2] })
    local a, b, d = sym_named(flat, "a"), sym_named(flat, "b"), sym_named(flat, "d")
    assert.equal(LAY.qual.const | LAY.qual.restrict, field(flat, "sym", a, "QUAL"))
    assert.same({ 1, 2, 0, 4 }, { field(flat, "sym", b, "PTR"), field(flat, "sym", b, "NDIM"),
      field(flat, "sym", b, "DIM0"), field(flat, "sym", b, "DIM1") })
    assert.same({ 1, 1, 5 }, { field(flat, "sym", d, "PTR"), field(flat, "sym", d, "NDIM"),
      field(flat, "sym", d, "DIM0") })
    assert.equal(LAY.types.int, field(flat, "sym", sym_named(flat, "idx"), "BASE"))
  end)

  it("each declaration is its own symbol: shadowing and a for's own i", function()
    local flat = parse("void f(double *a) {\n  double x = 1.0;\n  { double x = 2.0; a[0] = x; }\n"
      .. "  for (int i = 0; i < 2; i++) a[i] = x;\n  for (int i = 0; i < 2; i++) a[i] = 0.0;\n}\n")
    local xs, is = 0, 0
    for s = 0, count(flat, "sym") - 1 do
      local n = flat.names[field(flat, "sym", s, "NAME") + 1]
      if n == "x" then xs = xs + 1 elseif n == "i" then is = is + 1 end
    end
    assert.same({ 2, 2 }, { xs, is })
    local text = kp.unparse(flat)
    assert.truthy(text:find("  x_2 = 2.0;\n  a[0] = x_2;\n", 1, true), text)
  end)

  it("C5: INFINITY, HUGE_VAL and NAN are constants", function()
    local flat = parse("void f(double *a) { a[0] = INFINITY; a[1] = -HUGE_VAL; a[2] = NAN; }")
    local d = flat.dconst
    assert.equal(math.huge, d[1])
    assert.equal(math.huge, d[2])
    assert.is_true(d[3] ~= d[3])
  end)

  it("#pragma cgwb TEXT is kept on the statement that follows", function()
    local flat = parse("void f(double *a, int n) {\n#pragma cgwb parallel\n"
      .. "  for (int i = 0; i < n; i++)\n    a[i] = 0.0;\n  a[0] = 1.0;\n}\n")
    local b = field(flat, "func", 0, "BODY")
    local init, loop, last = flat.list[b + 1], flat.list[b + 2], flat.list[b + 3]
    assert.equal(-1, field(flat, "stmt", init, "PRAGMA"))
    assert.equal("parallel", flat.names[field(flat, "stmt", loop, "PRAGMA") + 1])
    assert.equal(-1, field(flat, "stmt", last, "PRAGMA"))
    assert.truthy(kp.unparse(flat):find("#pragma cgwb parallel\n  for (", 1, true))
  end)

  it("comments and preprocessor lines are ignored; positions count from them", function()
    local flat = parse("#include <math.h>\n#define N 3 \\\n  + 1\n/* a\n comment */ double f(double x) {\n"
      .. "  // here\n  return sin(x); }\n")
    assert.equal(5, field(flat, "func", 0, "LINE"))
    assert.equal(20, field(flat, "func", 0, "COL"))
    local r = flat.list[field(flat, "func", 0, "BODY") + 1]
    assert.same({ 7, 3 }, { field(flat, "stmt", r, "LINE"), field(flat, "stmt", r, "COL") })
  end)
end)

describe("kparse: errors name file:line:col", function()
  local cases = {
    { "double f(double x) { return x +; }", "e.c:1:32: found ';', expected an expression" },
    { "double f(double x) { return x }", "e.c:1:31: found '}', expected ';'" },
    { "double f(double x) {\n  x = 1", "e.c:2:8: found end of input, expected ';'" },
    { "double f(double x) { return x; } }", "e.c:1:34: found '}', expected a declaration" },
    { "double f(double x) { /* open", "e.c:1:22: unterminated comment" },
    { "struct s { double a; };\nstruct s f(double x) { struct s r; r.a = x; return r; }",
      "e.c:2:10: a function returning a struct is outside the kernel subset (void, int or double: return the members through pointer parameters)" },
    { "void f(void) {\n  goto L;\n}", "e.c:2:3: label 'L' used but not defined" },
    { "void f(double x) { L: x = 1; L: x = 2; }", "e.c:1:30: duplicate label 'L' (first at line 1, column 20)" },
    { "void f(int x) { switch (x) { case 1: if (x) { default: x = 2; } } }", "e.c:1:47: a 'default' label inside a nested statement of its switch is outside the kernel subset (labels directly in the switch's block)" },
    { "float f(void) { return 1; }",
      "e.c:1:1: 'float' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "double f(double (*g)(double)) { return 1.0; }",
      "e.c:1:10: a function pointer is outside the kernel subset (no calls through pointers)" },
    { "double f(double x, ...) { return x; }",
      "e.c:1:20: a variadic function is outside the kernel subset (parameters are int, double and pointers to them)" },
    { "void f(double *y) { y[0] = \"ab\"[0]; }",
      "e.c:1:28: a string literal is outside the kernel subset (numbers and character constants only)" },
    { "double f(double x) { return foo(x); }", "e.c:1:29: unknown function 'foo'" },
    { "double f(double x) { return y; }", "e.c:1:29: unknown identifier 'y'" },
    { "double f(Wishart w, const double *x) { return x[0]; }", "e.c:1:10: unknown type name 'Wishart' (no typedef declares it)" },
    { "double f(const double *x, Matrix *m) { return x[0]; }", "e.c:1:27: unknown type name 'Matrix' (no typedef declares it)" },
    { "void f(double *y) {\n  Wishart w;\n  y[0] = 1;\n}", "e.c:2:3: unknown type name 'Wishart' (no typedef declares it)" },
    { "void f(double *y, double a, double b) { y[0] = a b; }", "e.c:1:50: found 'b', expected ';'" },
    { "", "e.c:1:1: no function definition (a kernel is a file of C functions: doc/kernel-language.md)" },
    { "void f(double x, double *y) { y[65536 * 65536 + 1] = x * x; }",
      "e.c:1:39: integer overflow in a constant expression: 65536 * 65536 is outside int" },
    { "void f(double x, double *y) { int i = -(-2147483647 - 1); y[0] = x + i; }",
      "e.c:1:39: integer overflow in a constant expression: -(-2147483648) is outside int" },
    { "void f(double x, double *y) { y[7 % (3 - 3)] = x; }",
      "e.c:1:35: division by zero in an integer constant expression" },
    { "double f(double x);\n", "e.c:1:8: no function definition (a kernel is a file of C functions: doc/kernel-language.md)" },
    { "void f(double *y) { y[0] = 1; }\n\227\129\130", "e.c:2:1: found '\\xe3', expected a declaration" },
    { "void f(double *y) { y[0] = 1; }\n\0zz", "e.c:2:1: found '\\x00', expected a declaration" },
    { "double g = 1.0;\nvoid f(double x) { g = x; }",
      "e.c:2:20: a write to the global 'g' is outside the kernel subset (globals are read-only)" },
    { "static const double c[2] = {1, 2};\nvoid f(void) { double *p = c; }",
      "e.c:2:28: a pointer to read-only cells assigned to a pointer that is not const" },
    { "int f(double x, double y) { return x > 0 && (y = 2) > 1; }",
      "e.c:1:42: a call or side effect in an operand of '&&' is outside the kernel subset (it would be evaluated unconditionally once hoisted)" },
    { "double h(double x) { return x; }\ndouble f(double x) { return x > 0 ? h(x) : 1.0; }",
      "e.c:2:35: a call or side effect in an operand of '?:' is outside the kernel subset (it would be evaluated unconditionally once hoisted)",
      { functions = { "f" } } }, -- without it, h is lowered and f left alone
    { "int f(double *p, double *q) { return p * q; }",
      "e.c:1:40: '*' on a pointer is outside the kernel subset (only + and - move a pointer, by an int)" },
    { "int f(double *p, int *q) { return p < q; }",
      "e.c:1:37: '<' between double * and int * (pointers to different types)" },
    { "double h(double x) { return x; }\ndouble f(double x) { return h(x, x); }", "e.c:2:29: 'h' takes 1 argument, not 2" },
    { "double f(double x) { return sin(x, x); }", "e.c:1:29: 'sin' takes 1 argument, not 2" },
    { "void h(double *x) { }\nvoid f(int *p) { h(p); }", "e.c:2:20: argument 1 of 'h' must be double *, not int *" },
    { "void f(double *p, int *q) { q = p; }", "e.c:1:31: cannot assign double * to int *" },
    { "int f(double x) { return &(x + 1) == 0; }",
      "e.c:1:26: taking the address of an expression is outside the kernel subset (only of a variable or an array cell)" },
    { "void f(void) { double a[]; }",
      "e.c:1:23: an array of unknown size is outside the kernel subset (locals have constant sizes)" },
    { "void f(int n) { double a[n]; }",
      "e.c:1:26: the array size 'n' is outside the kernel subset (sizes are integer constants; a #define'd name is unknown)" },
    { "int f(double x) { return x % 2; }", "e.c:1:28: '%' needs int operands, not double" },
    { "void f(double x) { x++; }", "e.c:1:21: '++' on a double is outside the kernel subset (++ and -- are for ints and pointers)" },
    { "double f(void) { return 1.0f; }",
      "e.c:1:25: the constant suffix 'f' is outside the kernel subset (float, long and unsigned constants)" },
    { "void f(const double *a) { a[0] = 1; }", "e.c:1:28: 'a' points to const cells" },
    { "void f(void) { break; }", "e.c:1:16: 'break' outside a loop or switch" },
    { "void f(void) { }\n#pragma cgwb dangling\n", "e.c:2:1: #pragma cgwb is not followed by a statement" },
    { "void f(double x) { double x; }", "e.c:1:27: 'x' is declared twice in the same scope" },
    { "void f(void) { int i; i = 99999999999; }",
      "e.c:1:27: the constant 99999999999 is outside the kernel subset (larger than an int)" },
    { "int f(void) { return 08; }", "e.c:1:22: invalid octal constant '08'" },
    { "void f(void) { double **p; }", "e.c:1:25: the local pointer to pointers 'p' is outside the kernel subset (a double ** or int ** is a parameter whose rows are read; other pointers to pointers are not yet supported)" },
    { "void f(double ***p) { }", "e.c:1:18: a pointer to a pointer to a pointer is outside the kernel subset (at most two levels of pointers)" },
    { "void f(double a[2][2][2][2]) { }",
      "e.c:1:25: an array of more than 3 dimensions is outside the kernel subset (arrays have 1, 2 or 3 dimensions)" },
    { "void g(double p[][5]) { }\nvoid f(double a[2][3][4]) { g(a[1]); }",
      "e.c:2:32: argument 1 of 'g': rows of 5 cells expected, not 4" },
    { "void g(double p[][3][4]) { }\nvoid f(double a[2][3][4]) { g(a[1]); }",
      "e.c:2:32: argument 1 of 'g': planes of 3x4 cells expected, not rows of 4 cells" },
    { "void g(double p[][4]) { }\nvoid f(double a[2][3][4]) { g(a); }",
      "e.c:2:31: argument 1 of 'g': rows of 4 cells expected, not planes of 3x4 cells" },
    { "void f(double a[2][3][4]) { a[1][2][3][0] = 1.0; }", "e.c:1:39: subscripted value is not an array or pointer" },
    { "void f(double a[2][3][4]) { double *p; p = a[1] + 1; }",
      "e.c:1:49: arithmetic on a pointer to rows of a 2-D array is outside the kernel subset (index it: a[i][j])" },
    { "void f(double a[2][3][4]) { double *p; p = a + 1; }",
      "e.c:1:46: arithmetic on a pointer to planes of a 3-D array is outside the kernel subset (index it: a[i][j])" },
    { "void f(void) { double t[2][2][2] = {{{1, 2, 3}}}; }", "e.c:1:45: too many initializers for a row of 't'" },
    { "void f(void) { double t[2][2][2] = {{1, 2, 3, 4, 5}}; }", "e.c:1:50: too many initializers for a plane of 't'" },
    { "double h(double x);\ndouble f(double x) { return h(x); }", "e.c:2:29: a call of 'h' is outside the kernel subset (it has no definition in the file; an external function is declared with its derivatives by --externals)" },
    { "void h(double x) { }\ndouble f(double x) { return h(x); }", "e.c:2:29: the void function 'h' used as a value" },
    { "void f(double x) { x; }", "e.c:1:20: a statement without effect" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      local flat, err = kp.parse(c[1], "e.c", c[3])
      assert.is_nil(flat)
      assert.equal(c[2], err)
    end)
  end

  it("nesting beyond max_nesting is refused, below it accepted", function()
    local n = kp.max_nesting
    local ok = kp.parse("double f(double x) { return " .. ("("):rep(n - 3) .. "x" .. (")"):rep(n - 3) .. "; }")
    assert.is_table(ok)
    local flat, err = kp.parse("double f(double x) { return " .. ("("):rep(n + 1) .. "x" .. (")"):rep(n + 1) .. "; }",
      "e.c")
    assert.is_nil(flat)
    assert.equal(("e.c:1:%d: brackets nested deeper than %d is outside the kernel subset (max_nesting)")
      :format(28 + n, n), err)
  end)

  it("an expression deeper than max_depth is refused", function()
    local terms = {}
    for i = 1, LAY.max_depth + 1 do terms[i] = "x" end
    local flat, err = kp.parse("double f(double x) { return " .. table.concat(terms, " + ") .. "; }", "e.c")
    assert.is_nil(flat)
    assert.truthy(err:find("^e%.c:1:%d+: an expression nested deeper than " .. LAY.max_depth), err)
  end)

  it("read names the path of a file it cannot open", function()
    local flat, err = kp.read("spec/no-such-kernel.c")
    assert.is_nil(flat)
    assert.equal("spec/no-such-kernel.c: cannot open: No such file or directory", err)
  end)
end)

-- {==== compiling ====}

local function cc_ok(text)
  local src, obj = H.tmp(".c"), H.tmp(".o")
  H.write(src, text)
  local ok = os.execute(("cc -std=c99 -Wall -Werror -Wno-unused-variable -Wno-unused-but-set-variable "
    .. "-Wno-unknown-pragmas " -- #pragma cgwb lines (the kernel language's, C's compilers ignore them)
    .. "-c %s -o %s 2>%s.err"):format(src, obj, src))
  local err = H.read(src .. ".err")
  os.remove(src); os.remove(obj); os.remove(src .. ".err")
  return ok, err
end

local run_c = H.run_c
-- }====

describe("kparse: the papers' examples", function()
  local files = {}
  local p = io.popen("ls examples/kernels/*.c")
  for f in p:lines() do files[#files + 1] = f end
  p:close()
  it("are all there", function()
    for _, n in ipairs({ "utke-fig1", "utke-fig2", "utke-fig4a", "utke-fig4b", "utke-fig5",
      "hovland-fig1-locals", "hovland-fig1-aliased", "hovland-fig1-restrict", "hovland-sec5" }) do
      assert.truthy(H.read("examples/kernels/" .. n .. ".c"):find("Fig%.") or n:find("sec5"), n)
    end
  end)
  for _, f in ipairs(files) do
    it(f .. " compiles, parses, loads, and unparses to C that compiles", function()
      assert.is_true(cc_ok(H.read(f)))
      local flat, err = kp.read(f)
      assert.is_table(flat, err)
      local k, lerr = core.kernel_load(flat)
      assert.is_truthy(k, lerr)
      local ok, cerr = cc_ok(kp.unparse(flat))
      assert.is_true(ok, cerr)
    end)
  end
end)

describe("kparse: properties", function()
  it("random texts never raise or hang: a flat table or nil, 'name:line:col: ...'", function()
    local r = rng.new(18)
    local seeds = {}
    for i = 1, 6 do seeds[i] = (kgen.kernel(rng.new(i), { stmts = 6 })) end
    local ex = io.popen("ls examples/kernels/*.c")
    for f in ex:lines() do seeds[#seeds + 1] = H.read(f) end
    ex:close()
    local tokens = { "double", "int", "void", "const", "restrict", "*", "&", "(", ")", "[", "]", "{", "}",
      ";", ",", "=", "+=", "++", "--", "-", "+", "/", "%", "?", ":", "<", "&&", "||", "!", "if", "else",
      "for", "while", "do", "return", "break", "continue", "x", "a", "f", "sin", "1", "2.5", "0x1f",
      "1e3", "#pragma cgwb t\n", "/*", "*/", "//", "\n", "struct", "goto", "...", "\"s\"", "'c'", "\0" }
    local n, ok_count = 0, 0
    local function check(text)
      n = n + 1
      local t0 = os.clock()
      local flat, err = kp.parse(text, "fz.c")
      assert(os.clock() - t0 < 2, "slow: " .. text)
      if flat then
        ok_count = ok_count + 1
        assert.is_table(flat.expr)
      else
        assert(type(err) == "string" and err:find("^fz%.c:%d+:%d+: "), tostring(err) .. "\n" .. text)
      end
    end
    for _ = 1, 1500 do -- mutations of valid kernels: a byte changed, deleted, inserted, truncated
      local s = seeds[r:int(1, #seeds)]
      local k = r:int(1, 4)
      local i = r:int(1, #s)
      if k == 1 then s = s:sub(1, i - 1) .. string.char(r:int(0, 127)) .. s:sub(i + 1)
      elseif k == 2 then s = s:sub(1, i - 1) .. s:sub(i + r:int(1, 8))
      elseif k == 3 then s = s:sub(1, i) .. tokens[r:int(1, #tokens)] .. " " .. s:sub(i + 1)
      else s = s:sub(1, i) end
      check(s)
    end
    for _ = 1, 800 do -- random token strings, some inside a function body
      local t = {}
      for j = 1, r:int(1, 40) do t[j] = tokens[r:int(1, #tokens)] end
      local body = table.concat(t, " ")
      check(r:int(1, 2) == 1 and body or ("double f(double x, double *a) { " .. body .. " }"))
    end
    for _ = 1, 40 do -- deep nesting of each kind of bracket, and of statements
      local d = r:int(1, 600)
      check("double f(double x) { return " .. ("("):rep(d) .. "x" .. (")"):rep(d) .. "; }")
      check("void f(double *a) { " .. ("{"):rep(d) .. "a[0] = 1;" .. ("}"):rep(d) .. " }")
      check("void f(double *a) { " .. ("if (a[0] > 0) "):rep(d) .. "a[0] = 1; }")
      check("double f(double x) { return " .. ("- "):rep(d) .. "x; }")
    end
    assert.is_true(n > 2400)
    assert.is_true(ok_count > 0)
  end)

  it("kgen kernels parse, load, and unparse to C that computes the same cells, bit for bit", function()
    for seed = 1, 25 do
      local r = rng.new(1800 + seed)
      local text, info = kgen.kernel(r, { stmts = 10 })
      local flat, err = kp.parse(text, "kgen.c")
      assert(flat, err)
      assert(core.kernel_load(flat))
      local canon = kp.unparse(flat)
      for _ = 1, 2 do
        local call = kgen.call(r, info)
        local want = run_c(kgen.driver(text, info, call))
        local got = run_c(kgen.driver(canon, info, call))
        assert(want == got, ("seed %d: the canonical form computes otherwise\n%s\n%s"):format(seed, text, canon))
      end
    end
  end)

  it("kgen keeps its promise: the interpreter, which reports every out-of-bounds or uninitialized "
    .. "access, runs each binding and leaves the compiled kernel's cells", function()
    local aliased = 0
    for seed = 1, 20 do
      local r = rng.new(1850 + seed)
      local text, info = kgen.kernel(r, { stmts = 10 })
      local k = assert(core.kernel_load(assert(kp.parse(text, "kgen.c"))))
      for _ = 1, 2 do
        local call = kgen.call(r, info)
        local uses = {}
        for _, a in ipairs(call.args) do
          if a.array then uses[a.array] = (uses[a.array] or 0) + 1 end
        end
        for _, n in pairs(uses) do if n > 1 then aliased = aliased + 1 end end
        local res, err = k:run(info.name, call)
        assert(res, err)
        assert.equal(run_c(kgen.driver(text, info, call)), kgen.run_lines(res, call))
      end
    end
    assert.is_true(aliased >= 5) -- pointers bound into one array are most of the cases
  end)

  it("hand kernels with ++, --, calls and compound assignments compute the same after canonicalization", function()
    local text = table.concat({
      "#include <math.h>",
      "double g(double v) { return v * 0.5 + 1.0; }",
      "void kern(double *a, int i, double x) {",
      "  double s = a[i++];",
      "  s += a[++i] * s;",
      "  a[i--] += g(s) * 2;",
      "  for (int k = 0; k < 3; ++k) a[k] -= g(a[k + 1]) / (1 + k);",
      "  while (g(x) > 1.0) x = x / 2;",
      "  int m = 3;",
      "  do { a[m] *= x; m--; } while (m > 0 && x < 10.0);",
      "  double *p = &a[1];",
      "  *(p + i) = -*p + (i % 2 ? x : s);",
      "  p++;",
      "  *p = (int)(x * 7) / 2;",
      "}", "" }, "\n")
    local info = { name = "kern" }
    local call = { arrays = { { name = "A", type = "double", values = { 1.5, -2, 0.25, 3, 0.75, 1, 2 } } },
      args = { { array = 1, offset = 0 }, { int = 1 }, { double = 5.5 } } }
    local flat = parse(text)
    local want = run_c(kgen.driver(text, info, call))
    assert.equal(want, run_c(kgen.driver(kp.unparse(flat), info, call)))
  end)
end)

-- The front end's fast paths, each against the plain computation it
-- replaces (a 10^5-statement kernel is parsed in about a second only with
-- them; spec/18's other tests see the fast paths alone).
describe("kparse: fast paths agree with plain ones", function()
  --- The bracket check as first written: byte by byte, skipping what
  -- grammar.skip skips at each `/`, `#` and white space.
  local grammar = require "cgwb.kparse.grammar"
  local function plain_too_deep(text, limit)
    local depth, pos = 0, grammar.skip:match(text, 1)
    while pos <= #text do
      local c = text:sub(pos, pos)
      if c == "(" or c == "[" or c == "{" then
        depth = depth + 1
        if depth > limit then return pos end
      elseif c == ")" or c == "]" or c == "}" then depth = depth - 1 end
      local nxt = pos + 1
      if c == "/" or c == "#" or c:find("%s") then nxt = math.max(grammar.skip:match(text, pos), pos + 1) end
      pos = nxt
    end
  end

  it("the bracket check finds the same first position past the limit on random texts", function()
    local r = rng.new(1818)
    local pieces = { "(", ")", "[", "]", "{", "}", "/", "*", "#", "\n", "\r\n", " ", "\t", "x", '"', "\\",
      "//", "/*", "*/", "#pragma cgwb p\n", "#define A (\\\n(\n" }
    local found = 0
    for _ = 1, 3000 do
      local t = {}
      for j = 1, r:int(0, 60) do t[j] = pieces[r:int(1, #pieces)] end
      local text = table.concat(t)
      for _, limit in ipairs({ 0, 1, 2, 4 }) do
        local want = plain_too_deep(text, limit)
        assert.equal(want, kp.too_deep(text, limit), ("%q limit %d"):format(text, limit))
        if want then found = found + 1 end
      end
    end
    assert.is_true(found > 1000) -- most texts do pass a small limit somewhere
    -- the brackets of a comment, a directive and a string literal
    assert.is_nil(kp.too_deep("/* ((( */ #if (((\n( )", 1))
    assert.equal(4, kp.too_deep('"((("', 2))
  end)

  it("quick numerals give the rows the general reading gives", function()
    local lower = require "cgwb.kparse.lower"
    local r = rng.new(1819)
    local parts = {}
    for i = 1, 400 do
      local k = r:int(1, 6)
      local d = tostring(r:int(0, math.tointeger(10 ^ r:int(0, 10))))
      if k == 1 then parts[i] = d
      elseif k == 2 then parts[i] = d .. "." .. tostring(r:int(0, math.tointeger(10 ^ r:int(0, 17))))
      elseif k == 3 then parts[i] = "0" .. tostring(r:int(0, 7777))
      elseif k == 4 then parts[i] = d .. "e" .. tostring(r:int(-30, 30))
      elseif k == 5 then parts[i] = "." .. d
      else parts[i] = d .. "." end
    end
    local quick, general = 0, 0
    for _, p in ipairs(parts) do
      local text = "void f(double *a) { a[0] = " .. p .. "; }"
      lower.use_quick_numbers = true
      local fast, ferr = kp.parse(text, "n.c")
      lower.use_quick_numbers = false
      local plain, perr = kp.parse(text, "n.c")
      lower.use_quick_numbers = true
      assert.equal(perr, ferr, p)
      if plain then assert.same(plain, fast, p) end
      if lower.quick_number(p) then quick = quick + 1 else general = general + 1 end
    end
    assert.is_true(quick > 100 and general > 100)
  end)
end)
