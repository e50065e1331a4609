-- spec/57-structs_spec.lua: C structs in kernels (issue 28).  A struct
-- variable is scalarized by the front end: a symbol per member, named
-- "VAR.MEMBER" (doc/kernel-ir.md, "Struct variables"), so a struct passed by
-- value is one parameter per member for the interpreter (k:run takes its
-- members' values in member order where the struct stands).  The
-- interpreter against the kernel compiled as C, bit for bit; the canonical
-- form (kparse.unparse, the struct types printed before the functions)
-- compiling with -Wall -Wextra -Werror -pedantic and computing the same;
-- pointers to structs (a pointer per member, p->MEMBER) the same way; tangent
-- code (spec/tcheck.lua, against the interpreter's tangent mode, itself against
-- central differences) and adjoint code (spec/adcheck.lua, against central
-- differences and the interpreter) of a by-value struct and of S *p in/out
-- members; XAIF's refusal; the errors with file:line:col.
local H = require "spec.helper"
local cgwb = require "cgwb"
local kparse = require "cgwb.kparse"

local CC = "cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -ffp-contract=off"

-- A GMM-style objective of our own: a Wishart-like prior passed by value
-- down two calls, a local struct with an array member initialized by a
-- brace list, struct assignment, members written.
local GMM = [[
#include <math.h>
typedef struct { double gamma; int m; } Prior;
struct Acc { double v[3]; int n; double w[2][2]; };

static double sqnorm(int d, const double *x) {
  double s = 0.0;
  int i;
  for (i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}

static double prior_term(int d, int k, Prior pr, const double *icf) {
  double out = 0.0;
  int i;
  for (i = 0; i < k; i++) {
    double sum_q = icf[i * d];
    out += 0.5 * pr.gamma * pr.gamma * sqnorm(d, icf + i * d) - pr.m * sum_q;
  }
  return out;
}

static double with_copy(int d, int k, Prior pr, const double *icf) {
  Prior p2;
  p2 = pr;
  p2.m = p2.m + 1;
  p2.gamma *= 0.5;
  return prior_term(d, k, p2, icf) + prior_term(d, k, pr, icf);
}

void gmm_like(int d, int k, const double *alphas, const double *icf, Prior prior, double *err) {
  struct Acc acc = {{0.25, -1.0, 0.0}, 2, {{0.0, 0.5}, {1.0, 0.0}}};
  Prior local = prior;
  int i;
  double lse = 0.0;
  for (i = 0; i < k; i++) lse += exp(alphas[i]);
  for (i = 0; i < 3; i++) acc.v[i] = acc.v[i] + alphas[i % k] * local.gamma;
  acc.w[1][0] = acc.v[2] * acc.n;
  acc.w[0][1] = acc.w[1][0] + acc.w[1][1];
  err[0] = log(lse) + with_copy(d, k, local, icf) + acc.v[0] * acc.v[1] + acc.w[0][1];
}
]]

-- Source-level arguments: {int=}, {double=}, {array=, offset=} or
-- {struct = "TYPE", members = {{double=}, {int=}...}}.
local GMM_CALL = {
  arrays = { { type = "double", values = { 0.5, -0.25, 1.5 } },
             { type = "double", values = { 0.3, -0.6, 0.9, 1.2, -0.4, 0.7 } },
             { type = "double", values = { 0.0 } } },
  args = { { int = 2 }, { int = 3 }, { array = 1, offset = 0 }, { array = 2, offset = 0 },
           { struct = "Prior", members = { { double = 1.75 }, { int = 3 } } }, { array = 3, offset = 0 } },
}

-- The interpreter's call: each struct argument as its members' values.
local function core_call(call)
  local args = {}
  for _, a in ipairs(call.args) do
    if a.struct then
      for _, m in ipairs(a.members) do args[#args + 1] = m end
    else args[#args + 1] = a end
  end
  return { arrays = call.arrays, args = args }
end

local function lit(v) return ("%a"):format(v) end
local function arg_text(a)
  if a.array then return ("A%d + %d"):format(a.array, a.offset) end
  if a.int then return tostring(a.int) end
  if a.double then return lit(a.double) end
  local ms = {}
  for i, m in ipairs(a.members) do ms[i] = m.int and tostring(m.int) or lit(m.double) end
  return ("(%s){%s}"):format(a.struct, table.concat(ms, ", "))
end

-- A driver calling fname of text once and printing every cell with %a.
local function driver(text, fname, call)
  local out = { text, "#include <stdio.h>", "int main(void) {" }
  for i, a in ipairs(call.arrays) do
    local vals = {}
    for j, v in ipairs(a.values) do vals[j] = lit(v) end
    out[#out + 1] = ("  double A%d[%d] = {%s};"):format(i, #vals, table.concat(vals, ", "))
  end
  local args = {}
  for i, a in ipairs(call.args) do args[i] = arg_text(a) end
  out[#out + 1] = ("  %s(%s);"):format(fname, table.concat(args, ", "))
  for i, a in ipairs(call.arrays) do
    out[#out + 1] = ("  { int j; for (j = 0; j < %d; j++) printf(\"%%a\\n\", A%d[j]); }"):format(#a.values, i)
  end
  out[#out + 1] = "  return 0;\n}\n"
  return table.concat(out, "\n")
end

local function compiled(text, fname, call)
  local src, exe = H.tmp(".c"), H.tmp(".exe")
  H.write(src, driver(text, fname, call))
  assert(os.execute(("%s -o %s %s -lm 2>%s.err"):format(CC, exe, src, src)), "does not compile: " .. src)
  local p = assert(io.popen(exe))
  local t = p:read("a")
  p:close()
  os.remove(src); os.remove(exe); os.remove(src .. ".err")
  return t
end

local function interpreted(k, fname, call)
  local r = assert(k:run(fname, core_call(call)))
  local out = {}
  for _, arr in ipairs(r.arrays) do
    for _, v in ipairs(arr.values) do out[#out + 1] = lit(v) end
  end
  return table.concat(out, "\n") .. "\n"
end

describe("structs: scalarized members", function()
  it("a by-value struct is one parameter per member, named VAR.MEMBER", function()
    local k = assert(cgwb.read_kernel(GMM, "gmm.c"))
    local names = {}
    for _, f in ipairs(k:functions()) do
      if f.name == "gmm_like" then
        for i, p in ipairs(f.params) do names[i] = p.name .. ":" .. p.type end
      end
    end
    assert.are.same({ "d:int", "k:int", "alphas:const double *", "icf:const double *", "prior.gamma:double",
      "prior.m:int", "err:double *" }, names)
  end)

  it("the interpreter gives the compiled kernel's values bit for bit", function()
    local k = assert(cgwb.read_kernel(GMM, "gmm.c"))
    local want = compiled(GMM, "gmm_like", GMM_CALL)
    assert.are.equal(want, interpreted(k, "gmm_like", GMM_CALL))
    assert.is_truthy(want:find("\n", 1, true))
  end)

  it("the canonical form declares the structs once, compiles with -Werror -pedantic, computes the same", function()
    local flat = assert(kparse.parse(GMM, "gmm.c"))
    local text = kparse.unparse(flat)
    assert.is_truthy(text:find("typedef struct { double gamma; int m; } Prior;", 1, true))
    assert.is_truthy(text:find("struct Acc { double v[3]; int n; double w[2][2]; };", 1, true))
    assert.is_truthy(text:find("Prior p2;", 1, true))
    assert.is_truthy(text:find("p2.gamma = pr.gamma;", 1, true))
    assert.is_truthy(text:find("prior_term(d, k, p2, icf)", 1, true))
    assert.is_truthy(text:find("void gmm_like(int d, int k, const double *alphas, const double *icf, Prior prior, "
      .. "double *err)", 1, true))
    assert.are.equal(compiled(GMM, "gmm_like", GMM_CALL), compiled(text, "gmm_like", GMM_CALL))
  end)

  it("a CALL.json names a struct's members VAR.MEMBER", function()
    local k = assert(cgwb.read_kernel(GMM, "gmm.c"))
    local c = { arrays = { alphas = { 0.5, -0.25, 1.5 }, icf = { 0.3, -0.6, 0.9, 1.2, -0.4, 0.7 }, err = { 0 } },
      args = { d = 2, k = 3, alphas = { "alphas", 0 }, icf = { "icf", 0 }, ["prior.gamma"] = 1.75, ["prior.m"] = 3,
        err = { "err", 0 } } }
    local r = assert(k:call("gmm_like", c))
    local want = assert(k:run("gmm_like", core_call(GMM_CALL)))
    assert.are.equal(lit(want.arrays[3].values[1]), lit(r.arrays.err[1]))
  end)
end)

describe("structs: errors name file:line:col", function()
  local W = "typedef struct { double g; int m; } W;\n"
  local cases = {
    { W .. "void f(W w, double *y) { y[0] = w.h; }", "e.c:2:34: 'W' has no member 'h'" },
    { "void f(double x, double *y) { y[0] = x.h; }", "e.c:1:39: 'x' is not a struct: '.h' needs one" },
    { "void f(double x, double *y) { y[0] = x->h; }", "e.c:1:39: 'x' is not a struct: '->h' needs one" },
    { W .. "void f(W w, double *y) { y[0] = w; }", "e.c:2:33: the struct 'w' used as a value (its members are values: w.g)" },
    { W .. "typedef struct { double g; int m; } V;\nvoid f(W w, double *y) { V v; v = w; y[0] = v.g; }",
      "e.c:3:35: struct assignment: 'w' is a 'W', not a 'V'" },
    { "struct s { double a; };\nstruct s f(double x) { struct s r; r.a = x; return r; }",
      "e.c:2:10: a function returning a struct is outside the kernel subset (void, int or double: return the "
      .. "members through pointer parameters)" },
    { W .. "void f(W w, double *y) { w += w; y[0] = w.g; }", "e.c:2:28: '+=' on a struct" },
    { W .. "void f(W w, double *y) { y[0] = g(w); }\n", "e.c:2:33: unknown function 'g'" },
    { "typedef struct { double g[2]; int m; } W;\nvoid f(W w, double *y) { y[0] = w.g[0]; }",
      "e.c:2:10: the struct parameter 'w' with the array member 'g' is outside the kernel subset (a struct passed "
      .. "by value has int and double members)" },
    { "typedef struct { double g; int m : 3; } W;\nvoid f(W w, double *y) { y[0] = w.g; }",
      "e.c:2:8: the type 'W' is outside the kernel subset (its definition at e.c:1:41: a bit-field is outside the "
      .. "kernel subset (members are int or double scalars or arrays))" },
    { W .. "static double h(W w) { return w.g; }\nvoid f(double *y) { W w = {1.0, 2}; y[0] = h(y); }",
      "e.c:3:46: argument 1 of 'h': a 'W' variable expected" },
    { "struct P { double x; };\nvoid f(struct P p[2]) { }",
      "e.c:2:17: an array of structs is outside the kernel subset (struct variables, one struct each)" },
    { W .. "void f(double *y) { W w = {1.0, 2, 3}; y[0] = w.g; }", "e.c:2:36: too many initializers for 'w'" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      local flat, err = kparse.parse(c[1], "e.c", { functions = { "f" } })
      assert.is_nil(flat)
      assert.are.equal(c[2], err)
    end)
  end
end)

describe("structs: tangent code", function()
  local TC = require "tcheck"
  it("F_d takes S sd after S s; against the interpreter's tangent mode bit for bit in the primal", function()
    local c = TC.make_case(GMM, "gmm.c", "gmm_like", core_call(GMM_CALL))
    assert.is_truthy(c.code:find("Prior prior, Prior priord, double *err, double *errd)", 1, true))
    assert.is_truthy(c.code:find("#ifndef CGWB_USER_TYPES", 1, true))
    TC.check({ c }, { cc = CC .. " -Wno-unused-function" })
  end)

  it("the interpreter's tangent mode agrees with central differences on the struct's member", function()
    local k = assert(cgwb.read_kernel(GMM, "gmm.c"))
    local call = core_call(GMM_CALL)
    local J = assert(k:jacobian("gmm_like", call))
    local col
    for j, c in ipairs(J.cols) do if c.param == 5 then col = j end end
    assert.is_truthy(col, "a column for prior.gamma")
    local h, g = 1e-6, call.args[5].double
    local function f(x)
      call.args[5] = { double = x }
      return assert(k:run("gmm_like", call)).arrays[3].values[1]
    end
    local fd = (f(g + h) - f(g - h)) / (2 * h)
    call.args[5] = { double = g }
    local row
    for r, rw in ipairs(J.rows) do if rw.array == 3 then row = r end end
    assert.is_true(math.abs(J.values[row][col] - fd) <= 1e-6 * math.max(1, math.abs(fd)),
      ("J %.17g, central differences %.17g"):format(J.values[row][col], fd))
  end)
end)

describe("structs: adjoint code", function()
  local AC = require "adcheck"
  it("F_b takes S *sb after S s: against central differences and the interpreter", function()
    local out = AC.check(GMM, "gmm_like", core_call(GMM_CALL))
    assert.is_truthy(out.code:find("Prior prior, Prior *priorb, double *err, double *errb)", 1, true))
    assert.is_truthy(out.code:find("#ifndef CGWB_USER_TYPES", 1, true))
    -- the struct's double member has its adjoint, its int member none
    assert.is_number(out.std.S[5])
    assert.is_true(out.std.S[5] ~= 0)
    assert.is_nil(out.std.S[6])
  end)
end)

describe("structs: XAIF", function()
  it("a function with a struct variable is refused with its place", function()
    local k = assert(cgwb.read_kernel(GMM, "gmm.c"))
    local res = assert(require("cgwb.flatten").run(k, "gmm_like"))
    local x, err = require("cgwb.xaif").write(k, "gmm_like", res)
    assert.is_nil(x)
    assert.are.equal("gmm.c:30:76: the struct variable 'prior' is outside XAIF (the schema subset has no records: its "
      .. "members would be variables of their own)", err)
  end)
end)

-- A kernel with pointers to structs: in/out members through S *p, a
-- const S *q read, &loc of a local struct passed on.
local PTR = [[
#include <math.h>
typedef struct { double x; int n; double v[3]; double w[2][2]; } State;

static void scale(State *s, double f) {
  int i;
  s->x = s->x * f;
  for (i = 0; i < 3; i++) s->v[i] *= f;
  s->w[1][1] = s->w[0][0] + s->n;
}

static double energy(const State *s) {
  return s->x * s->x + (*s).v[0] * s->v[1] + s->w[1][1] * s->n;
}

double step(State *p, const State *q, double h) {
  State loc = {1.0, 2, {0.5, 0.25, 0.125}, {{1.0, 0.0}, {0.0, 1.0}}};
  double e;
  scale(p, h);
  scale(&loc, 2.0);
  p->v[2] = p->v[2] + q->x * loc.v[1] + sin(q->v[0]);
  e = energy(p) + energy(q) + energy(&loc);
  p->n = p->n + 1;
  return e + loc.w[1][1];
}
]]

-- The states *p and *q of step(p, q, 1.5): x, n, v, w.
local STATES = { { 0.75, 3, { 0.5, -1.25, 2.0 }, { 0.25, -0.5, 1.5, 0.125 } },
                 { -0.4, 2, { 0.3, 0.6, -0.9 }, { 1.0, 2.0, 3.0, 4.0 } } }

--- The call step(&P, &Q, 1.5) in the core form: each member of *p and *q an array of its own.
local function step_call()
  local arrays, args = {}, {}
  for _, s in ipairs(STATES) do
    for j, m in ipairs(s) do
      arrays[#arrays + 1] = { type = j == 2 and "int" or "double", values = type(m) == "table" and { table.unpack(m) } or { m } }
      args[#args + 1] = { array = #arrays, offset = 0 }
    end
  end
  args[#args + 1] = { double = 1.5 }
  return { arrays = arrays, args = args }
end

describe("structs: pointers to structs", function()
  local function init(s)
    return ("{%s, %d, {%s, %s, %s}, {{%s, %s}, {%s, %s}}}"):format(lit(s[1]), s[2], lit(s[3][1]), lit(s[3][2]),
      lit(s[3][3]), lit(s[4][1]), lit(s[4][2]), lit(s[4][3]), lit(s[4][4]))
  end

  it("S *p is a pointer per member, named p->MEMBER; the interpreter gives the compiled values bit for bit", function()
    local k = assert(cgwb.read_kernel(PTR, "ptr.c"))
    local names = {}
    for _, f in ipairs(k:functions()) do
      if f.name == "step" then for i, p in ipairs(f.params) do names[i] = p.name .. ":" .. p.type end end
    end
    assert.are.same({ "p->x:double[1]", "p->n:int[1]", "p->v:double[3]", "p->w:double[2][2]",
      "q->x:const double[1]", "q->n:const int[1]", "q->v:const double[3]", "q->w:const double[2][2]", "h:double" },
      names)
    -- the interpreter: each member of *p and *q an array of its own
    local call = step_call()
    local arrays = call.arrays
    local r = assert(k:run("step", call))
    local got = { lit(r.ret) }
    for i = 1, 4 do
      for _, v in ipairs(r.arrays[i].values) do got[#got + 1] = arrays[i].type == "int" and ("%d"):format(v) or lit(v) end
    end
    local text = PTR .. "\n#include <stdio.h>\nint main(void) {\n  State P = " .. init(STATES[1]) .. ", Q = " .. init(STATES[2])
      .. ";\n  int i, j;\n  printf(\"%a\\n\", step(&P, &Q, 1.5));\n  printf(\"%a\\n%d\\n\", P.x, P.n);\n"
      .. "  for (i = 0; i < 3; i++) printf(\"%a\\n\", P.v[i]);\n"
      .. "  for (i = 0; i < 2; i++) for (j = 0; j < 2; j++) printf(\"%a\\n\", P.w[i][j]);\n  return 0;\n}\n"
    local src, exe = H.tmp(".c"), H.tmp(".exe")
    H.write(src, text)
    assert(os.execute(("%s -o %s %s -lm"):format(CC, exe, src)))
    local p = assert(io.popen(exe))
    local want = p:read("a")
    p:close()
    os.remove(src); os.remove(exe)
    assert.are.equal(want, table.concat(got, "\n") .. "\n")
    -- the canonical form prints S *p, p->x, &loc, and computes the same
    local u = kparse.unparse(assert(kparse.parse(PTR, "ptr.c")))
    assert.is_truthy(u:find("double step(State *p, const State *q, double h)", 1, true))
    assert.is_truthy(u:find("scale(&loc, 2.0);", 1, true))
    assert.is_truthy(u:find("s->x = s->x * f;", 1, true))
    local ok_src = H.tmp(".c")
    H.write(ok_src, u)
    assert(os.execute(("%s -c -o %s.o %s"):format(CC, ok_src, ok_src)), "the canonical form does not compile")
    os.remove(ok_src); os.remove(ok_src .. ".o")
  end)

  it("cgwb kernel declares a struct parameter once in a function's head line, as the source does", function()
    local path = H.write(H.tmp(".c"), PTR)
    local out, err, code = H.cgwb("kernel " .. path)
    os.remove(path)
    assert.equal(0, code, err)
    assert.is_truthy(out:find("double step(State *p, const State *q, double h)", 1, true), out)
  end)

  local P = "typedef struct { double g; int m; } W;\n"
  local cases = {
    { P .. "void f(W *p, double *y) { y[0] = p.g; }", "e.c:2:35: 'p' is a pointer to a struct: write p->g" },
    { P .. "void f(W *p, double *y) { y[0] = p->h; }", "e.c:2:35: 'W' has no member 'h'" },
    { P .. "void f(const W *p) { p->g = 1.0; }", "e.c:2:23: 'p->g' points to const cells" },
    { P .. "static void g(W *p) { p->g = 1.0; }\nvoid f(const W *q) { g(q); }",
      "e.c:3:24: argument 1 of 'g' points to a const struct, the parameter is not const" },
    { P .. "static void g(W *p) { p->g = 1.0; }\nvoid f(double *y) { g(y); }",
      "e.c:3:23: argument 1 of 'g': a pointer to a 'W' expected" },
    { P .. "void f(double *y) { W *p; y[0] = 1; }",
      "e.c:2:24: a local pointer to a struct is outside the kernel subset (pointers to structs are parameters)" },
    { P .. "void f(W *p, double *y) { y[0] = p[1].g; }",
      "e.c:2:38: an array of structs is outside the kernel subset (struct variables, one struct each)" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      local flat, err = kparse.parse(c[1], "e.c", { functions = { "f" } })
      assert.is_nil(flat)
      assert.are.equal(c[2], err)
    end)
  end
end)

describe("structs: tangent code of pointers to structs", function()
  local TC = require "tcheck"
  it("S *p is followed by S *pd; against the interpreter's tangent mode", function()
    local c = TC.make_case(PTR, "ptr.c", "step", step_call())
    assert.is_truthy(c.code:find("double step_d(State *p, State *pd, const State *q, const State *qd, double h, "
      .. "double hd, double *step_ret_d)", 1, true))
    TC.check({ c }, { cc = CC .. " -Wno-unused-function" })
  end)
end)

describe("structs: adjoint code of pointers to structs", function()
  local AC = require "adcheck"
  it("S *p is followed by S *pb: in/out members against central differences and the interpreter", function()
    local out = AC.check(PTR, "step", step_call())
    assert.is_truthy(out.code:find("double step_b(State *p, State *pb, const State *q, State *qb, double h, double *hb, "
      .. "double step_retb)", 1, true))
    assert.is_truthy(out.code:find("pb->v[", 1, true))
  end)
end)

-- Pointer members: a Matrix by value and through a pointer, read through
-- m->data[i] and m.data[i], a local struct's pointer member assigned.
local MAT = [[
typedef struct { int nrows; int ncols; double *data; } Matrix;
typedef struct { int n; CONST double *w; double scale; } Weights;

static double trace(const Matrix *m) {
  double t = 0.0;
  int i;
  for (i = 0; i < m->nrows && i < m->ncols; i++) t += m->data[i * m->ncols + i] * m->data[i];
  return t;
}

static void axpy(Matrix m, Weights w) {
  int i;
  for (i = 0; i < m.nrows * m.ncols && i < w.n; i++) m.data[i] += w.scale * w.w[i] * m.data[i];
}

double objective(Matrix *a, Weights w, double *out) {
  Matrix b;
  b.nrows = a->nrows;
  b.ncols = a->ncols;
  b.data = a->data;
  axpy(b, w);
  out[0] = trace(a) * w.scale;
  a->ncols = a->ncols + 0;
  return out[0] + a->data[0] * w.w[1];
}
]]

describe("structs: pointer members", function()
  local function mat(const)
    return (MAT:gsub("CONST ", const and "const " or ""))
  end
  -- the call: a's nrows, ncols (one cell each), data (an array); w's n, w (an array), scale; out
  local function call()
    return { arrays = { { type = "int", values = { 2 } }, { type = "int", values = { 3 } },
      { type = "double", values = { 0.5, -1.0, 1.5, 0.25, 2.0, -0.75 } },
      { type = "double", values = { 0.3, -0.2, 0.8, 1.1, -0.6, 0.4 } }, { type = "double", values = { 0.0 } } },
      args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 }, { int = 5 },
        { array = 4, offset = 0 }, { double = 0.625 }, { array = 5, offset = 0 } } }
  end

  it("the interpreter gives the compiled kernel's values bit for bit; the canonical form compiles", function()
    local text = mat(true)
    local k = assert(cgwb.read_kernel(text, "mat.c"))
    local r = assert(k:run("objective", call()))
    local got = { lit(r.ret) }
    for _, v in ipairs(r.arrays[3].values) do got[#got + 1] = lit(v) end
    got[#got + 1] = lit(r.arrays[5].values[1])
    local drv = text .. [[
#include <stdio.h>
int main(void) {
  double D[6] = {0.5, -1.0, 1.5, 0.25, 2.0, -0.75}, W[6] = {0.3, -0.2, 0.8, 1.1, -0.6, 0.4}, out[1] = {0.0};
  Matrix a = {2, 3, D};
  Weights w = {5, W, 0.625};
  int i;
  printf("%a\n", objective(&a, w, out));
  for (i = 0; i < 6; i++) printf("%a\n", D[i]);
  printf("%a\n", out[0]);
  return 0;
}
]]
    local src, exe = H.tmp(".c"), H.tmp(".exe")
    H.write(src, drv)
    assert(os.execute(("%s -o %s %s -lm"):format(CC, exe, src)))
    local p = assert(io.popen(exe))
    local want = p:read("a")
    p:close()
    os.remove(src); os.remove(exe)
    assert.are.equal(want, table.concat(got, "\n") .. "\n")
    local u = kparse.unparse(assert(kparse.parse(text, "mat.c")))
    assert.is_truthy(u:find("typedef struct { int n; const double *w; double scale; } Weights;", 1, true))
    assert.is_truthy(u:find("m.data[i] = m.data[i] + ", 1, true))
    local usrc = H.tmp(".c")
    H.write(usrc, u)
    assert(os.execute(("%s -c -o %s.o %s"):format(CC, usrc, usrc)), "the canonical form does not compile")
    os.remove(usrc); os.remove(usrc .. ".o")
  end)

  it("tangent code: the derivative struct's pointer member points to the tangents", function()
    local TC = require "tcheck"
    local c = TC.make_case(mat(true), "mat.c", "objective", call())
    assert.is_truthy(c.code:find("bd.data = ad->data;", 1, true))
    TC.check({ c }, { cc = CC .. " -Wno-unused-function" })
  end)

  it("adjoint code: the adjoint struct's pointer member points to the adjoints", function()
    local AC = require "adcheck"
    local out = AC.check(mat(false), "objective", call())
    assert.is_truthy(out.code:find("bb.data = ab->data;", 1, true))
    local k = assert(cgwb.read_kernel(mat(true), "mat.c"))
    local a, err = require("cgwb.adjoint").emit(k, "objective")
    assert.is_nil(a)
    assert.are.equal("mat.c:16:37: the member 'w' of 'w' points to const double: its adjoints, in the same member "
      .. "of the adjoint struct, could not be written (not yet supported)", err)
  end)

  local M0 = "typedef struct { int n; double *data; } M;\n"
  for _, c in ipairs {
    { M0 .. "void f(M *m, double *y) { m->data = y; }",
      "e.c:2:28: a write to the pointer member 'm->data' is outside the kernel subset (a pointer member of *p is read only)" },
    { M0 .. "static double g(M *m) { return m->data[0]; }\nvoid f(double *y) { M t; t.n = 1; t.data = y; y[0] = g(&t); }",
      "e.c:3:56: the address of 't', a struct with the pointer member 'data' is outside the kernel subset (not yet "
      .. "supported: pass the struct by value)" },
    { "typedef struct { int n; double **data; } M;\nvoid f(M m, double *y) { y[0] = m.n; }",
      "e.c:2:8: the type 'M' is outside the kernel subset (its definition at e.c:1:42: the member 'data', a pointer to "
      .. "a pointer is outside the kernel subset (one level of pointers))" },
  } do
    it(c[2], function()
      local flat, err = kparse.parse(c[1], "e.c", { functions = { "f" } })
      assert.is_nil(flat)
      assert.are.equal(c[2], err)
    end)
  end
end)
