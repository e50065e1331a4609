#!/usr/bin/env lua5.4
-- scripts/kbench-flat.lua N [SEED]: writes to standard output a kernel whose
-- function `f` is one basic block of N active assignments, for the
-- flattening benchmark (scripts/bench-flatten.sh, doc/benchmarks.md).  The
-- mix: assignments to scalar locals, writes through the pointer parameters
-- a and b (which may be the same array: the alias analysis relates every
-- a[i] with every b[j]), reads through them and through c (const, may
-- alias both), cells at a run-time offset (a[k]: may be any cell of a),
-- a pointer moved by int arithmetic (`p = a + 3;` then `*p`, `p[1]`: passive
-- statements between the active ones), and math.h intrinsics.  The cells
-- are few (CELLS per array), so reaching definitions stay bounded and the
-- flattening's work is linear in N.  Every value stays bounded (tanh,
-- sin), so the kernel also runs.  Deterministic: the same N and SEED give
-- the same bytes.
local N = math.tointeger(tonumber(arg[1] or "")) or error("usage: kbench-flat.lua N [SEED]")
local seed = math.tointeger(tonumber(arg[2] or "1")) or 1

-- A 64-bit LCG (Knuth's MMIX constants), as scripts/kbench-gen.lua.
local state = seed
local function rand(n) -- 1..n
  state = state * 6364136223846793005 + 1442695040888963407
  return ((state >> 33) % n) + 1
end
local function pick(t) return t[rand(#t)] end

local NLOC, CELLS = 16, 16
local function loc() return "t" .. (rand(NLOC) - 1) end
local function const() return ("%d.%d"):format(rand(3) - 1, rand(999)) end
local function cell(arr) return ("%s[%d]"):format(arr, rand(CELLS) - 1) end

-- A double operand: mostly locals, some memory reads, a few inputs and constants.
local function atom()
  local r = rand(20)
  if r <= 10 then return loc()
  elseif r <= 12 then return cell("a")
  elseif r <= 14 then return cell("b")
  elseif r <= 15 then return cell("c")
  elseif r <= 16 then return "a[k]"
  elseif r <= 17 then return pick({"*p", "p[1]"})
  elseif r <= 18 then return pick({"x", "y"})
  else return const() end
end

local FORMS = {
  "%s * %s", "%s + %s", "%s - 0.5 * %s", "tanh(%s) * %s", "sin(%s) + %s", "%s * cos(%s)",
  "sqrt(fabs(%s) + 1.0) - %s", "exp(-fabs(%s)) * %s", "-%s * %s", "%s / (2.0 + sin(%s))",
}
local function expr() -- the first operand never a constant: every assignment is active
  local a = atom()
  while a:find("^%d") do a = atom() end
  return pick(FORMS):format(a, atom())
end

local out = {}
local function emit(s) out[#out + 1] = s end
emit("#include <math.h>")
emit("")
emit("void f(double *a, double *b, const double *c, double x, double y, int k) {")
local decl = {}
for i = 0, NLOC - 1 do decl[#decl + 1] = "t" .. i end
emit("  double " .. table.concat(decl, ", ") .. ";")
emit("  double *p;")
emit("  int m;")
emit("  p = a;")
emit("  m = 0;")
for i = 0, NLOC - 1 do emit(("  t%d = %s * x + %s * y;"):format(i, const(), const())) end
local count = NLOC
while count < N do
  local r = rand(20)
  if r <= 12 then emit(("  %s = tanh(%s);"):format(loc(), expr()))
  elseif r <= 15 then emit(("  %s = %s;"):format(cell(pick({"a", "b"})), expr()))
  elseif r <= 16 then emit(("  a[k] = %s;"):format(expr()))
  elseif r <= 17 then emit(("  *p = %s;"):format(expr()))
  elseif r <= 18 then emit(("  %s += %s * %s;"):format(cell("b"), atom(), atom()))
  else -- passive: the pointer moves by int arithmetic (no assignment counted)
    emit(("  m = k + %d;"):format(rand(4) - 1))
    emit("  p = a + m;")
    count = count - 1
  end
  count = count + 1
end
emit("}")
io.write(table.concat(out, "\n"), "\n")
