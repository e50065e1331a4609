#!/usr/bin/env lua5.4
-- scripts/kbench-gen.lua N [SEED]: writes to standard output a kernel file in
-- the C subset of doc/kernel-language.md with about N statements, for the
-- kernel benchmarks (scripts/bench.sh, doc/benchmarks.md).  The shape of a
-- numerical code: many functions over the same arrays, each a few loops
-- (three-point stencils, gathers and scatters through an index map, local
-- scratch arrays, a 2-D local matrix, a pointer walking an array, while
-- loops on int counters, branches on locals) with straight-line blocks of
-- local arithmetic and math.h intrinsics between them, and a helper function
-- called from loops.  The last function, `all(u, v, idx, w, s, n)`, runs
-- every other one through a tree of drivers: the interpreter benchmark runs it.  Every array access
-- stays inside n cells for n >= 8 (idx holds cells 0..n-1), every local is
-- written before it is read, and the values stay bounded (tanh, sin), so the
-- kernel runs at any n >= 8.  "Statements" counts the source's statements
-- (assignments, calls, loops, ifs, returns), not the canonical form's.
-- Deterministic: the same N and SEED give the same bytes.
local N = math.tointeger(tonumber(arg[1] or "")) or error("usage: kbench-gen.lua N [SEED]")
local seed = math.tointeger(tonumber(arg[2] or "1")) or 1

-- A 64-bit LCG (Knuth's MMIX constants): reproducible on every Lua 5.4.
local state = seed
local function rand(n) -- 1..n
  state = state * 6364136223846793005 + 1442695040888963407
  return ((state >> 33) % n) + 1
end
local function pick(t) return t[rand(#t)] end

local out, count = {}, 0
local function emit(indent, s, stmts)
  out[#out + 1] = ("  "):rep(indent) .. s
  count = count + (stmts or 0)
end

local NLOC = 6 -- scalar locals t0..t5 of each function
local function loc() return "t" .. (rand(NLOC) - 1) end
local function const() return ("%d.%d"):format(rand(3) - 1, rand(999)) end

-- A bounded double expression over the locals and, inside a loop, v[i] / u[i].
local function expr(in_loop)
  local atoms = { loc(), loc(), const() }
  if in_loop then atoms[#atoms + 1] = "v[i]"; atoms[#atoms + 1] = "u[i]" end
  local a, b = pick(atoms), pick(atoms)
  local forms = {
    "%s * %s", "%s + %s", "%s - 0.5 * %s", "tanh(%s) * %s", "sin(%s) + %s", "%s * cos(%s)",
    "sqrt(fabs(%s) + 1.0) - %s", "log(1.0 + %s * %s)", "exp(-fabs(%s)) * %s", "fmax(%s, %s)",
    "sq(%s) * 0.25 + %s",
  }
  return pick(forms):format(a, b)
end

-- A straight-line block of k assignments to locals (bounded by tanh each time).
local function block(indent, k, in_loop)
  for _ = 1, k do
    local t = loc()
    emit(indent, ("%s = tanh(%s);"):format(t, expr(in_loop)), 1)
  end
end

local blocks = {
  function() -- three-point stencil
    emit(1, "for (i = 1; i < n - 1; i++) {", 1)
    emit(2, ("u[i] = %s * (v[i - 1] - 2.0 * v[i] + v[i + 1]) + %s;"):format(const(), loc()), 1)
    block(2, rand(2), true)
    emit(1, "}")
  end,
  function() -- gather and scatter through the index map
    emit(1, "for (i = 0; i < n; i++) {", 1)
    emit(2, "j = idx[i];", 1)
    emit(2, ("w[j] += %s * v[i];"):format(loc()), 1)
    emit(2, ("%s = tanh(%s + u[j]);"):format(loc(), loc()), 1)
    emit(1, "}")
  end,
  function() -- local scratch array
    emit(1, "for (j = 0; j < 8; j++) {", 1)
    emit(2, ("loc[j] = %s * v[j] + %s;"):format(const(), loc()), 1)
    emit(1, "}")
    emit(1, "for (j = 1; j < 8; j++) {", 1)
    emit(2, "loc[j] = tanh(loc[j] + loc[j - 1]);", 1)
    emit(1, "}")
    emit(1, ("%s = loc[%d];"):format(loc(), rand(8) - 1), 1)
  end,
  function() -- a 2-D local matrix times a vector
    emit(1, "for (j = 0; j < 4; j++) {", 1)
    emit(2, "for (i = 0; i < 4; i++) {", 1)
    emit(3, ("m[j][i] = %s * (double)(i + j) + v[i];"):format(const()), 1)
    emit(2, "}")
    emit(1, "}")
    emit(1, "for (j = 0; j < 4; j++) {", 1)
    emit(2, "w[j] = tanh(m[j][0] * u[0] + m[j][1] * u[1] + m[j][2] * u[2] + m[j][3] * u[3]);", 1)
    emit(1, "}")
  end,
  function() -- a pointer walking an array
    emit(1, "p = &u[1];", 1)
    emit(1, "for (i = 1; i < n - 1; i++) {", 1)
    emit(2, ("*p = tanh(*p + %s * w[i]);"):format(loc()), 1)
    emit(2, "p += 1;", 1)
    emit(1, "}")
  end,
  function() -- a while loop on an int counter
    emit(1, "k = 0;", 1)
    emit(1, "while (k < n) {", 1)
    emit(2, ("%s = tanh(%s + v[k]);"):format(loc(), loc()), 1)
    emit(2, "k += 2;", 1)
    emit(1, "}")
  end,
  function() -- a branch on locals
    emit(1, ("if (%s > %s) {"):format(loc(), loc()), 1)
    block(2, rand(3), false)
    emit(1, "} else {")
    block(2, rand(3), false)
    emit(1, "}")
  end,
  function() block(1, 2 + rand(4), false) end,
}

local funcs = {}
emit(0, "#include <math.h>")
emit(0, "")
emit(0, "double sq(double x) {")
emit(1, "return x * x;", 1)
emit(0, "}")
local f = 0
while count < N - 10 do
  local name = ("k%d"):format(f)
  funcs[#funcs + 1] = name
  emit(0, "")
  emit(0, ("void %s(double *restrict u, const double *v, const int *idx, double *w, double s, int n) {"):format(name))
  emit(1, "double t0, t1, t2, t3, t4, t5;")
  emit(1, "double loc[8];")
  emit(1, "double m[4][4];")
  emit(1, "double *p;")
  emit(1, "int i, j, k;")
  for t = 0, NLOC - 1 do emit(1, ("t%d = s * %s;"):format(t, const()), 1) end
  local target = math.min(count + 20 + rand(40), N - 10)
  while count < target do pick(blocks)() end
  emit(1, "u[0] = tanh(u[0] + t0 + t1 + t2 + t3 + t4 + t5);", 1)
  emit(0, "}")
  f = f + 1
end
-- The drivers: a tree of fan-out 16 over the functions, `all` at its root.
-- (One function with thousands of calls on the same arrays is no real
-- code's shape: each call may write every cell, so its chains grow with the
-- square of the calls.)
local SIG = "(double *restrict u, const double *v, const int *idx, double *w, double s, int n)"
local function driver(name, callees)
  emit(0, "")
  emit(0, "void " .. name .. SIG .. " {")
  for _, c in ipairs(callees) do emit(1, ("%s(u, v, idx, w, s, n);"):format(c), 1) end
  emit(0, "}")
end
local level, depth = funcs, 0
while #level > 16 do
  local up = {}
  for i = 1, #level, 16 do
    local name = ("d%d_%d"):format(depth, #up)
    driver(name, { table.unpack(level, i, math.min(i + 15, #level)) })
    up[#up + 1] = name
  end
  level, depth = up, depth + 1
end
driver("all", level)
local ndrivers = 1
do local n = #funcs; while n > 16 do n = (n + 15) // 16; ndrivers = ndrivers + n end end
io.write(table.concat(out, "\n"), "\n")
io.stderr:write(("kbench-gen: %d statements in %d functions\n"):format(count, #funcs + ndrivers + 1))
