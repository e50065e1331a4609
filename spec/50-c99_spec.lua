-- spec/50-c99_spec.lua: whole C99 translation units as `cc -E` writes them
-- (doc/kernel-language.md, "What parses"): this machine's glibc headers
-- parse under each -std; a PolyBench-style program of our own is read with
-- its kernel lowered (the interpreter's result against the compiled
-- program's) and the other functions left alone with their reasons;
-- typedefs, enum constants, sizeof, casts and constant dimensions lower as
-- cc computes them; each construct that parses but is not lowered is
-- refused with file:line:col.
local H = require "spec.helper"
local kp = require "cgwb.kparse"
local grammar = require "cgwb.kparse.grammar"
local cgwb = require "cgwb"

local have_cc = os.execute("cc --version >/dev/null 2>&1")

--- `cc -E` of text with flags (a string): the preprocessed text.
local function preprocess(text, flags)
  local src, out = H.tmp(".c"), H.tmp(".i")
  H.write(src, text)
  assert(os.execute(("cc -E %s %s -o %s"):format(flags, src, out)), "cc -E failed")
  local t = H.read(out)
  os.remove(src); os.remove(out)
  return t
end

local run_c = H.run_c

local function numbers(s)
  local t = {}
  for w in s:gmatch("%S+") do t[#t + 1] = assert(tonumber(w), w) end
  return t
end

local HEADERS = table.concat({ "#include <stdio.h>", "#include <stdlib.h>", "#include <math.h>",
  "#include <string.h>", "#include <assert.h>", "#include <unistd.h>", "#include <time.h>",
  "#include <sys/time.h>", "#include <stdint.h>", "" }, "\n")

-- A PolyBench/C-style benchmark of our own: macros, a typedef'd element
-- type, an enum, `#pragma scop`, static helpers that print to stderr, a main.
local ATAX = HEADERS .. [[
#define N 20
#define M 30
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define POLYBENCH_DUMP_TARGET stderr

typedef double real;
typedef real row_t[M + 0];
enum { TSTEPS = 3, EXTRA = TSTEPS * 2 + 1 };

static void init_array(int n, int m, DATA_TYPE A[N + 0][M + 0], DATA_TYPE *restrict x)
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = (DATA_TYPE)(i % 7) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (DATA_TYPE) ((i * j + 1) % n) / (5.0 * n);
  }
}

static void print_array(int n, DATA_TYPE const *y)
{
  int i;
  for (i = 0; i < n; i++) {
    if (i % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, "%0.6f ", y[i]);
  }
}

static inline int clampi(int v, int hi) { return v < hi ? v : hi; }

void kernel_atax(int n, int m, row_t A[N], const real *__restrict x, real y[static N], double tmp[N * 1])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) y[i] = SCALAR_VAL(0.0);
  for (i = 0; i < m && i < (int)(sizeof(tmp[0]) * N / sizeof(double)); i++) {
    tmp[i] = 0.0 * sizeof(int);
    for (j = 0; j < clampi(n, N); j++)
      tmp[i] = tmp[i] + A[i % N][j] * ((const double *)x)[j] * EXTRA;
    for (j = 0; j < n; j++)
      y[j] = y[j] + A[i % N][j] * tmp[i];
  }
#pragma endscop
}

static double now(void) { return (double) clock() / CLOCKS_PER_SEC; }

void run_all(int n, double *y) { print_array(n, y); printf("%g\n", now()); }

int main(int argc, char **argv)
{
  int n = N, m = M, i;
  double (*A)[M] = (double (*)[M]) malloc(N * sizeof(*A));
  double *x = (double *) malloc(N * sizeof(double)), y[N], tmp[N];
  init_array(n, m, A, x);
  kernel_atax(n, m, A, x, y, tmp);
  print_array(n, y);
  for (i = 0; i < n; i++) printf("%.17g\n", y[i]);
  free((void *) A);
  free((void *) x);
  return argc > 1 ? atoi(argv[1]) : 0;
}
]]

describe("c99: the system headers", function()
  for _, flags in ipairs({ "-std=c99", "-std=c11", "", "-D_GNU_SOURCE" }) do
    it("parse whole as cc -E " .. flags .. " writes them", function()
      if not have_cc then return pending("no cc") end
      local text = preprocess(HEADERS, flags)
      local tree, where, expected = grammar.parse(text)
      if not tree then
        error(("%d: expected %s near %q"):format(where, table.concat(expected, " or "), text:sub(where, where + 60)))
      end
      assert.is_true(#tree > 300)
      -- and read with a function of the subset after them
      local k = assert(cgwb.read_kernel(text .. "\ndouble sq(double x) { return x * fabs(x); }\n", "h.i"))
      assert.equal(1, #k:functions())
      -- the headers' own inline functions (gnu17's byte swaps) are left alone, each with why
      for _, x in ipairs(k:left_alone()) do
        assert.matches("^h%.i:%d+:%d+: .* is outside the kernel subset %(", x.why)
      end
    end)
  end
end)

describe("c99: a PolyBench-style program", function()
  local text
  local function get()
    text = text or preprocess(ATAX, "-std=c99")
    return text
  end

  it("parses in under 0.1 s with the headers, its kernel and helpers lowered, the rest left alone", function()
    if not have_cc then return pending("no cc") end
    local t = get()
    local c = os.clock()
    local flat = assert(kp.parse(t, "atax.i"))
    local dt = os.clock() - c
    assert.is_true(dt < 0.1, ("%.3f s"):format(dt))
    local k = assert(cgwb.read_kernel(t, "atax.i"))
    local names = {}
    for _, f in ipairs(k:functions()) do names[#names + 1] = f.name end
    -- print_array's fprintf(stderr, ...) is a passive call (doc/kernel-language.md)
    assert.same({ "init_array", "print_array", "clampi", "kernel_atax" }, names)
    local left = k:left_alone()
    assert.equal(3, #left)
    assert.same({ "now", "run_all", "main" }, { left[1].name, left[2].name, left[3].name })
    assert.matches("^atax%.i:%d+:%d+: a call of 'clock' is outside the kernel subset %(it has no definition", left[1].why)
    assert.matches("^atax%.i:%d+:%d+: a call of 'now' is outside the kernel subset %('now' is left alone: atax%.i:", left[2].why)
    -- main's `char **argv` is a char ** parameter (its rows are read where they are); its
    -- `double (*A)[M]` is not in the subset
    assert.matches("^atax%.i:%d+:%d+: a pointer to an array is outside the kernel subset", left[3].why)
    -- the line and column are the function name's
    local line = select(2, t:sub(1, t:find("double now(void)", 1, true)):gsub("\n", "")) + 1
    assert.equal(line, left[1].line)
    assert.same(left, flat.left_alone)
  end)

  it("computes the kernel as the compiled program does", function()
    if not have_cc then return pending("no cc") end
    local k = assert(cgwb.read_kernel(get(), "atax.i", { functions = { "kernel_atax" } }))
    local zeros = function(n) local z = {}; for i = 1, n do z[i] = 0 end; return z end
    local init = assert(k:call("init_array", { arrays = { A = zeros(600), X = zeros(20) },
      args = { n = 20, m = 30, A = { "A", 0 }, x = { "X", 0 } } }))
    local r = assert(k:call("kernel_atax", { arrays = { A = init.arrays.A, X = init.arrays.X, Y = zeros(20),
      T = zeros(20) }, args = { n = 20, m = 30, A = { "A", 0 }, x = { "X", 0 }, y = { "Y", 0 }, tmp = { "T", 0 } } }))
    local want = numbers(run_c(ATAX))
    assert.equal(20, #want)
    for i = 1, 20 do assert.equal(want[i], r.arrays.Y[i], "y[" .. (i - 1) .. "]") end
  end)

  it("fails with --function naming a function that calls a left-alone one, at file:line:col", function()
    if not have_cc then return pending("no cc") end
    local flat, err = kp.parse(get(), "atax.i", { functions = { "run_all" } })
    assert.is_nil(flat)
    assert.matches("^atax%.i:%d+:%d+: a call of 'clock' is outside the kernel subset", err)
    -- a name with no definition: the reader of the rows reports it
    local k = assert(cgwb.read_kernel(get(), "atax.i", { functions = { "nosuch" } }))
    assert.matches("no function 'nosuch'", select(2, k:function_id("nosuch")))
    -- the command line: exit 2 with the message
    local path = H.tmp(".i")
    H.write(path, get())
    local _, e, code = H.cgwb("kernel " .. path .. " --function run_all")
    os.remove(path)
    assert.equal(2, code)
    assert.matches(":%d+:%d+: a call of 'clock' is outside the kernel subset", e)
  end)
end)

describe("c99: types in lowered code", function()
  local KERN = [[
typedef double real;
typedef int idx;
typedef real vec[4];
typedef const double *cdp;
enum color { RED, GREEN = 5, BLUE, NEG = -2, BIG = (1 << 4) | 3, NEXT };
static const int W = 4;

inline static double g(cdp x, real const *y, double *const z, idx n);
static inline double g(const double *x, const double *y, double *const z, int n)
{
  double s = 0.0;
  for (idx i = 0; i < n; i++) s += x[i] * y[n - 1 - i];
  z[0] = s;
  return s;
}

void kern(double A[2 + 1][sizeof(double) / 2], vec v, real *restrict out, idx n, double w[BLUE - GREEN + 1])
{
  real loc[NEXT - BIG + 1][BIG - 16] = { { 1, 2 }, { 3 } };
  const idx k = GREEN * 2 + NEG;
  for (int i = 0; i < n; i++)
    out[i] = A[i % 3][i % 4] * (int)(v[i % 4] * 10) / 10 + (double)sizeof(int) + BLUE + NEG + NEXT
      + sizeof v[0] + ((const double *)out)[0] * 0 + loc[i % 2][i % 3] + k + W;
  out[n] = (double)(sizeof(A[0]) / sizeof A[0][0]) + sizeof(loc) + sizeof(vec) + sizeof(real *) + sizeof(idx *const);
  out[n + 1] = g((cdp)out, v, w, 3) + (double)(idx)(2.75 * w[1]);
}
]]
  it("typedefs, enum constants, sizeof, casts and constant dimensions compute what cc computes", function()
    if not have_cc then return pending("no cc") end
    local k = assert(cgwb.read_kernel(KERN, "t.c"))
    assert.same({}, k:left_alone())
    local A, v, w = {}, { 0.5, -1.25, 2.0, 3.5 }, { 0.25, 1.5 }
    for i = 1, 12 do A[i] = i * 0.375 - 2 end
    local out = {}
    for i = 1, 8 do out[i] = 0 end
    local r = assert(k:call("kern", { arrays = { A = A, V = v, O = out, W = w },
      args = { A = { "A", 0 }, v = { "V", 0 }, out = { "O", 0 }, n = 6, w = { "W", 0 } } }))
    local function list(t) local s = {}; for i, x in ipairs(t) do s[i] = ("%.17g"):format(x) end; return table.concat(s, ", ") end
    local prog = "#include <stdio.h>\n" .. KERN .. ([[
int main(void) {
  double A[3][4], v[4] = { %s }, out[8] = { 0 }, w[2] = { %s };
  double a[12] = { %s };
  for (int i = 0; i < 12; i++) A[i / 4][i %% 4] = a[i];
  kern(A, v, out, 6, w);
  for (int i = 0; i < 8; i++) printf("%%.17g\n", out[i]);
  printf("%%.17g\n%%.17g\n", w[0], w[1]);
  return 0;
}
]]):format(list(v), list(w), list(A))
    local want = numbers(run_c(prog))
    for i = 1, 8 do assert.equal(want[i], r.arrays.O[i], "out[" .. (i - 1) .. "]") end
    assert.equal(want[9], r.arrays.W[1])
  end)
end)

describe("c99: constructs that parse and are not lowered are refused at file:line:col", function()
  local cases = {
    { "struct P { double x; };\nvoid f(struct P p[2]) { }", "e.c:2:17: an array of structs is outside the kernel subset (struct variables, one struct each)" },
    { "union U { double x; int i; };\nvoid f(double *y) { union U u; y[0] = 1; }", "e.c:2:21: 'union U' is outside the kernel subset (union types are not yet supported)" },
    { "void f(double *y) { float t = 1; y[0] = t; }", "e.c:1:21: 'float' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "void f(unsigned n, double *y) { y[0] = n; }", "e.c:1:8: 'unsigned int' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "void f(double *y) { long long n = 2; y[0] = n; }", "e.c:1:21: 'long long' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "void f(double *y) { long n = 2; y[0] = n; }", "e.c:1:21: 'long' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "void f(double *y) { unsigned long n = 2; y[0] = n; }", "e.c:1:21: 'unsigned long' is outside the kernel subset (the types are double, int, char, signed and unsigned char, short, unsigned short, _Bool and pointers to them)" },
    { "void f(int *y) { switch (y[0]) { case 1: { y[1] = 2; case 2: break; } } }", "e.c:1:54: a 'case' label inside a nested statement of its switch is outside the kernel subset (labels directly in the switch's block)" },
    { "void f(int *y) { out: y[0] = 1; goto out; }", "e.c:1:33: a backward 'goto' (to 'out' at line 1, column 18) is outside the kernel subset (a goto jumps forward: write the loop as a loop)" },
    { "double f(const char ***s) { return 1.0; }", "e.c:1:24: a pointer to a pointer to a pointer is outside the kernel subset (at most two levels of pointers)" },
    { "void f(double *y) { y[0] = h(\"a\"); }", "e.c:1:30: a string literal is outside the kernel subset (numbers and character constants only)" },
    { "double h(double x);\nvoid f(double *y) { y[0] = h(1); }", "e.c:2:28: a call of 'h' is outside the kernel subset (it has no definition in the file; an external function is declared with its derivatives by --externals)" },
    { "void f(int *y) { y[0] = L'a'; }", "e.c:1:25: the character constant L'a' is outside the kernel subset (one character or escape, no L, u or U prefix)" },
    { "void f(int *y) { y[0] = 'ab'; }", "e.c:1:25: the character constant 'ab' is outside the kernel subset (one character or escape, no L, u or U prefix)" },
    { "double f(int n, ...) { return 1.0; }", "e.c:1:17: a variadic function is outside the kernel subset (parameters are int, double and pointers to them)" },
    { "void f(int *y) { y[0] = (y[1], 2); }", "e.c:1:30: the comma operator is outside the kernel subset (one expression per statement)" },
    { "void f(double *y) { y[0] = ((double[2]){ 1, 2 })[1]; }", "e.c:1:29: a compound literal is outside the kernel subset (arrays are declared)" },
    { "void f(int *y) { static int n = 0; y[0] = n; }", "e.c:1:18: a static local variable is outside the kernel subset (locals live for one call)" },
    { "void f(int *y) { volatile int n = 0; y[0] = n; }", "e.c:1:18: 'volatile' is outside the kernel subset (no volatile memory)" },
    { "void f(int *y) { y[0] = (int)(void)y[0]; }", "e.c:1:30: a cast to void is outside the kernel subset (casts to int, double or a pointer's own type)" },
    { "void f(int *y, double *z) { z[0] = ((double *)y)[0]; }", "e.c:1:37: a cast of a pointer of another type to 'double *' is outside the kernel subset (a pointer is cast only to its own type)" },
    { "void f(const double *y, double *z) { ((double *)y)[0] = z[0]; }", "e.c:1:39: a cast that drops const is outside the kernel subset (read-only cells stay read-only)" },
    { "typedef struct { struct { double re; } z; } cplx;\nvoid f(cplx c) { }", "e.c:2:8: the type 'cplx' is outside the kernel subset (its definition at e.c:1:45: a struct member of struct type is outside the kernel subset (members are int or double scalars or arrays))" },
    { "enum E { A, B };\nvoid f(int *y) { enum E e = B; y[0] = e; }", "e.c:2:18: 'enum E' is outside the kernel subset (enum types are not yet supported: declare the variable int)" },
    { "struct S { int a; };\nvoid f(int *y) { y[0] = sizeof(struct S); }", "e.c:2:25: sizeof of a struct is outside the kernel subset (sizes of int, double and pointers)" },
    { "void f(int *y) { y[0] = __builtin_offsetof(struct { int a, b; }, b); }", "e.c:1:25: '__builtin_offsetof' is outside the kernel subset (sizes are known constants)" },
    { "void f(double *y) { int (*g)(int) = 0; y[0] = 1; }", "e.c:1:21: a function pointer is outside the kernel subset (no calls through pointers)" },
    { "void f(double *y) { __asm__ volatile (\"nop\"); y[0] = 1; }", "e.c:1:21: an asm statement is outside the kernel subset (see doc/kernel-language.md)" },
    { "extern double scale;\nvoid f(double *y) { y[0] = scale; }", "e.c:2:28: the global 'scale' is outside the kernel subset (declared at e.c:1:15: the extern variable 'scale' is outside the kernel subset (one file: its definition is elsewhere))" },
  }
  for _, c in ipairs(cases) do
    it(c[2], function()
      local flat, err = kp.parse(c[1], "e.c")
      assert.is_nil(flat)
      assert.equal(c[2], err)
    end)
  end
end)
