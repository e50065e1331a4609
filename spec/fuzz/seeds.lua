#!/usr/bin/env lua5.4
-- spec/fuzz/seeds.lua: regenerates the seed corpora of the fuzz targets
-- (spec/fuzz/corpus/<target>/) from the spec generators and the example
-- tapes.  Deterministic; every file is well under 64 KiB.
--
--   CGWB_BUILD=build/release lua5.4 spec/fuzz/seeds.lua
--
-- The adolc corpus comes from spec/fuzz/adolc-seeds.sh (it needs ADOL-C).
local build = os.getenv("CGWB_BUILD") or "build/release"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;./?.lua;" .. package.path
local cgwb = require "cgwb"
local gen = require "spec.gen"

local DIR = "spec/fuzz/corpus/"
local MAX = 60000

local function write(path, s)
  assert(#s < MAX, path .. ": seed too large")
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- A tape's text form (through the text writer).
local function text_of(t)
  local p = os.tmpname()
  assert(t:write(p, "text"))
  local s = read(p)
  os.remove(p)
  return s
end

local function classic_of(t)
  local p = os.tmpname()
  assert(t:write(p, "classic"))
  local s = read(p)
  os.remove(p)
  return s
end

-- The first `lines` records of a tape file, as text (a prefix is a tape).
local function head_of(path, lines)
  local t = assert(cgwb.read_tape(path))
  local s, n = {}, 0
  for line in text_of(t):gmatch("[^\n]*\n") do
    if n >= lines then break end
    s[#s + 1] = line
    n = n + 1
  end
  return table.concat(s)
end

local texts = {}
-- random tapes over every plain opcode, with and without death notices
for i = 1, 16 do
  local recs, x0 = gen.random_records(1000 + i, {
    n = 1 + i % 4, m = 1 + i % 3, len = 10 + 7 * i, store = 4 + i,
    ops = i % 2 == 0 and gen.names or gen.safe, deaths = i % 3 == 0 })
  texts[#texts + 1] = text_of(gen.tape(recs, i % 5 ~= 0 and x0 or nil))
end
-- hand-made records the generator does not make
texts[#texts + 1] = table.concat({
  "assign_ind 1 1.0", "assign_ind 2 2.0", "assign_d 3 3.0", "plus_a_a 5 1 2",
  "assign_a 4 5", "death_not 5 5", "mult_a_d 5 4 2.0", "death_not 5 5",
  "div_d_a 5 1 3.0", "sqrt_op 5 5", "sin_op 6 7 5", "take_stock_op 3 8 0.5 1.5 2.5",
  "plus_a_a 9 6 10", "assign_dep 5", "assign_dep 9", "" }, "\n")
texts[#texts + 1] = "# a chain\nassign_ind 0 0.5\nexp_op 0 0\nexp_op 0 0\nlog_op 0 0\nassign_dep 0\n"
texts[#texts + 1] = "assign_ind 0\nassign_ind 1\nmult_a_a 2 0 1\nassign_dep 2\n"
-- prefixes of the example tapes (C++ through ADOL-C, and the Lua tracer's)
for _, name in ipairs { "bratu", "cavity", "shallow", "bratu-lua", "shallow-lua" } do
  local p = "examples/tapes/" .. name .. ".tap"
  local f = io.open(p, "rb")
  if f then
    f:close()
    texts[#texts + 1] = head_of(p, 150)
  end
end

for _, t in ipairs { "text", "classic", "cg", "pipeline" } do
  os.execute("mkdir -p " .. DIR .. t)
end
local ncg = 0
for i, s in ipairs(texts) do
  write(("%stext/seed%02d.txt"):format(DIR, i), s)
  write(("%spipeline/seed%02d.txt"):format(DIR, i), s)
  local t = assert(cgwb.read_text(s))
  if t:x0() then -- a classic tape carries the point
    write(("%sclassic/seed%02d.tap"):format(DIR, i), classic_of(t))
    local lg = cgwb.linearize(t)
    if lg then
      ncg = ncg + 1
      write(("%scg/seed%02d.cg"):format(DIR, ncg), lg:write_cg())
    end
  end
end
-- hand-made graphs: the example of doc/formats.md, structural, a diamond
write(DIR .. "cg/hand1.cg", "# comment\nX: 0 1\nY: 5\n3: 0 1:2.5\n5: 3\n")
write(DIR .. "cg/hand2.cg", "X: 0 1 2\nY: 6 7\n3: 0 1\n4: 1 2\n5: 3 4\n6: 5\n7: 5 4\n")
write(DIR .. "cg/hand3.cg", "X: 0\nY: 0 4\n1: 0:-1\n2: 0:1\n3: 1:2 2:0.5\n4: 3:1e300\n")
print(("seeds: %d text/pipeline/classic, %d cg"):format(#texts, ncg + 3))

-- kernels: the example kernels' flat arrays in the byte form of
-- fuzz_kernel (spec/fuzz/fuzz.c), those small enough for it (each field
-- one signed byte; lines and columns clamped to 1..127)
package.path = "spec/?.lua;" .. package.path
os.execute("mkdir -p " .. DIR .. "kernel")
local kparse = require "cgwb.kparse"
local L = require("cgwb.core").kernel_layout()
local function kernel_bytes(flat)
  local w = L.width
  local n = {func = #flat.func // w.func, sym = #flat.sym // w.sym, expr = #flat.expr // w.expr,
             stmt = #flat.stmt // w.stmt, list = #flat.list, args = #flat.args, dconst = #flat.dconst}
  if n.func < 1 or n.func > 4 or n.sym > 15 or n.expr > 63 or n.stmt > 31 or n.list > 31 or
     n.args > 7 or n.dconst > 3 or #flat.names > 8 then return nil end
  local out = {string.char(n.func - 1, n.sym, n.expr, n.stmt, n.list, n.args, n.dconst)}
  local pos = {}
  for _, t in ipairs {"func", "sym", "expr", "stmt"} do
    for name, off in pairs(L[t]) do if name == "LINE" or name == "COL" then pos[t .. off] = true end end
  end
  for _, t in ipairs {"func", "sym", "expr", "stmt", "list", "args"} do
    for i, v in ipairs(flat[t]) do
      local off = (i - 1) % (w[t] or 1) + 1
      if pos[t .. off] then v = math.max(1, math.min(127, v)) end
      if v < -128 or v > 127 then return nil end
      out[#out + 1] = string.pack("b", v)
    end
  end
  for _, v in ipairs(flat.dconst) do out[#out + 1] = string.pack("b", math.max(-128, math.min(127, math.floor(v * 16)))) end
  return table.concat(out)
end
local nk = 0
local p = io.popen("ls examples/kernels/*.c")
for path in p:lines() do
  local flat = kparse.parse(io.open(path):read("a"), path)
  local bytes = flat and kernel_bytes(flat)
  if bytes then
    nk = nk + 1
    write(("%skernel/seed%02d"):format(DIR, nk), bytes)
  end
end
p:close()
-- kernels in the C99 of spec/50 (typedef names, enum constants, sizeof,
-- casts to type names, constant dimensions, a function left alone): the
-- rows the wider grammar lowers to
local c99 = {
  [[typedef double real; enum { N = 4, M = N * 2 };
void f(real A[N][M / 2], const real *restrict x, real *y) {
  for (int i = 0; i < N; i++) y[i] = A[i][i % (M / 2)] * ((const double *)x)[i] + (double)sizeof(int);
}]],
  [[typedef int idx; static const double c = 0.5;
static inline idx clampi(idx v, idx hi) { return v < hi ? v : hi; }
void g(double *__restrict y, idx n) { for (idx i = 0; i < clampi(n, 3); i++) y[i] = y[i] * c + (int)(y[i] * 2.5); }]],
  [[struct S { double a; }; int printf(const char *, ...);
void show(double *y) { printf("%g", y[0]); }
double h(double x, double const *p) { double t[sizeof(double) / 4] = { x }; return t[0] * p[1] - t[1]; }]],
}
-- and the rows of the constructs real programs brought in: the heap (ALLOC
-- and FREE), a rank-3 array, narrow ints (a symbol's CTYPE) under a switch's
-- if-chain, struct members scalarized, memset's loop, passive calls (printf, exit),
-- NULL, pointer comparisons and differences, bitwise operators
local realc = {
  [=[void f(int n, double *y) { double *w = malloc(4 * sizeof(double)); for (int i = 0; i < 4; i++) w[i] = y[i] * 2;
  y[0] = w[3]; free(w); }]=],
  [=[void g(double A[2][3][4], double *y) { for (int i = 0; i < 2; i++) y[i] = A[i][1][2] * A[1][i][3]; }]=],
  [=[void h(int k, double *y) { unsigned char c = k; short s = k * 100; switch (c) { case 1: y[0] = 2; break;
  default: y[0] = s; } }]=],
  [=[typedef struct { double g; int m; } W; typedef struct { double v[2]; } V;
double p(W w, V *q) { q->v[1] = w.g * q->v[0]; return q->v[1] + w.m; }]=],
  [=[void z(int *c, double *y) { memset(c, 0, 3 * sizeof(int)); y[c[1]] = 1; }]=],
  [=[int printf(const char *, ...); void exit(int);
void o(int n, double *y) { printf("%d %g", n, y[0]); if (n < 0) exit(2); }]=],
  [=[void q(int n, double *x, double *y) { double *p = (void *)0, *e = x + n; for (p = x; p < e; p++) y[p - x] = *p;
  if (y != 0 && !p) y[0] = 1; }]=],
  [=[void b(int n, int *c) { c[(n & 3) ^ 1] = (n << 2) | (~n >> 1); c[0] >>= 1; }]=],
}
local n_c99 = #c99
for _, t in ipairs(realc) do c99[#c99 + 1] = t end
for i, text in ipairs(c99) do
  local flat = assert(kparse.parse(text, "c99.c"))
  local bytes = kernel_bytes(flat)
  assert(bytes or i <= n_c99, "a seed too large for fuzz_kernel's byte form:\n" .. text)
  if bytes then
    nk = nk + 1
    write(("%skernel/seed%02d"):format(DIR, nk), bytes)
  end
end
print(("seeds: %d kernel"):format(nk))
