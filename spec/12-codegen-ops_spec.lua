-- spec/12-codegen-ops_spec.lua: generated C for every graph operation, bit for bit
-- (Bischof & Hu 1991, sec. 2.2 for the operation set, sec. 2.3 for hoisted
-- chains, sec. 3.2 for the code; csrc/graph/cg_gops.h, csrc/sched/cg_codegen.c).
--
-- The operations are read from the enum's own text (CG_GOPS in cg_gops.h), so
-- an operation added there without a tape here fails the coverage test.  For
-- each operation a text tape holds it alone on its independents (the head of
-- a one-operation chain), at the head of a hoisted chain, inside a hoisted
-- chain (after a binary head, before a trailing operation), on operands that
-- are statements of their own, and with constant leaves.  Every form of the
-- generated C (levels, straight, chunked; with and without inlined leaves) is
-- compiled with the strict flags and run at points where each branching
-- operation (min, abs, ceil, floor, cond, condeq) takes each side, and must
-- print exactly what tape:forward and g:eval give (%.17g, which tells -0
-- from 0 and keeps every bit of a finite double).  The operations no tape
-- records (tape_op `none`: the kernels' pow, atan2, sinh, cosh, tanh, log10,
-- max) are made through the graph builder in the same blocks and checked
-- the same way against g:eval, which computes the rows' own values.
local H = require "spec.helper"
local cgwb = require "cgwb"

-- {==== the operation table, from the header ====}

-- {name = arity} of every CG_GOPS row, the names in enum order, and
-- {name = tape opcode} (`none` for an operation no tape records).
local function header_ops()
  local text = H.read("csrc/graph/cg_gops.h")
  local body = assert(text:match("#define CG_GOPS%(X%)(.-)\n\n"), "CG_GOPS not found in cg_gops.h")
  local arity, names, tape_op = {}, {}, {}
  for nm, ar, top in body:gmatch("X%(%s*[%w_]+%s*,%s*([%w_]+)%s*,%s*(%d+)%s*,%s*%d+%s*,%s*([%w_]+)") do
    arity[nm] = tonumber(ar)
    names[#names + 1] = nm
    tape_op[nm] = top
  end
  assert(#names > 40, "too few rows read from CG_GOPS")
  return arity, names, tape_op
end

-- The tape opcodes the builder's normalization table (norm_rows in
-- csrc/graph/cg_build.c) turns into graph operations.
local function normalized_opcodes()
  local text = H.read("csrc/graph/cg_build.c")
  local body = assert(text:match("norm_rows%[%] = {(.-)\n};"), "norm_rows not found in cg_build.c")
  local names = {}
  for op in body:gmatch("{CG_OP_([%w_]+),%s*CG_G_") do names[#names + 1] = op end
  assert(#names > 40, "too few rows read from norm_rows")
  return names
end

-- {==== the operations on a tape ====}

local NAN = -(0 / 0)

-- One row per graph operation that reads operands: the record that makes
-- it (r: result, a, b, c: operands, d: a scratch location, c0: the taped
-- outcome), and the values its operands take at the points.  The first
-- three values keep the taped outcome of a branching operation, the rest
-- leave it (or sit on its boundary: 0, -0, equal operands, NaN).
local unary = {
  copy = { "assign_a %r %a" },
  addc = { "plus_a_d %r %a 0.10000000000000001" },
  rsub = { "min_d_a %r %a 0.29999999999999999" },
  mulc = { "mult_a_d %r %a -1.3333333333333333" },
  divc = { "div_a_d %r %a 3" },
  rdiv = { "div_d_a %r %a 0.69999999999999996", dom = { 0.6, -1.3, 2.2, 0.05, -7, 3e-5, 1e10 } },
  powc = { "pow_op %r %a 2.5", dom = { 1.7, 0.3, 2.9, 1e-3, 17.25, 0.9999, 5 } },
  neg = { "neg_sign_a %r %a" },
  exp = { "exp_op %r %a" },
  log = { "log_op %r %a", dom = { 1.5, 0.25, 3e-5, 7.1, 1, 1e300, 0.7 } },
  sqrt = { "sqrt_op %r %a", dom = { 2, 0.5, 0, 1e-300, 7.1, 123.456, 0.7 } },
  cbrt = { "cbrt_op %r %a" },
  sin = { "sin_op %r %d %a", second = true },
  cos = { "cos_op %r %d %a", second = true },
  tan = { "tan_op %r %a" },
  asin = { "asin_op %r %a %d", deriv = true, dom = { 0.3, -0.7, 0.999, 0, -1, 1, 0.123 } },
  acos = { "acos_op %r %a %d", deriv = true, dom = { 0.3, -0.7, 0.999, 0, -1, 1, 0.123 } },
  atan = { "atan_op %r %a %d", deriv = true },
  asinh = { "asinh_op %r %a %d", deriv = true },
  acosh = { "acosh_op %r %a %d", deriv = true, dom = { 1.5, 1, 4.25, 1.0000001, 9, 1.25, 2 } },
  atanh = { "atanh_op %r %a %d", deriv = true, dom = { 0.3, -0.7, 0.999, 0, -0.25, 0.5, 0.123 } },
  erf = { "erf_op %r %a %d", deriv = true },
  abs = { "abs_val %r %a %c0", dom = { 0.5, 2, 0, -0.5, -0.0, -3, 1 },
          c0 = function(a) return a >= 0 and 1 or 0 end },
  ceil = { "ceil_op %r %a %c0", dom = { 0.5, 0.25, 0.75, -0.5, 2, -2.5, -0.0 },
           c0 = function(a) return math.ceil(a) + 0.0 end },
  floor = { "floor_op %r %a %c0", dom = { 0.5, 0.25, 0.75, -0.5, 2, -2.5, 1 },
            c0 = function(a) return math.floor(a) + 0.0 end },
}
local DEFAULT_DOM = { 0.6, -1.3, 2.2, 0.05, -0.0, 3.75, -2.5 }

-- Binary and ternary operations: doms[k] are the values of operand k.
local nary = {
  add = { "plus_a_a %r %a %b" },
  sub = { "min_a_a %r %a %b" },
  mul = { "mult_a_a %r %a %b" },
  div = { "div_a_a %r %a %b", doms = { { 1, -2.5, 0.1, 3, -0.0, 7, 1e-300 }, { 3, 0.7, -7, 1e-3, 2, -0.0, 1e300 } } },
  min = { "min_op %r %a %b %c0", doms = { { 1, 0.5, 2, 2, 0, -0.0, NAN }, { 2, 0.75, 2, 1, -0.0, 0, 1 } },
          c0 = function(a, b) return a <= b and 1 or 0 end },
  cond = { "cond_assign %r %a %b %c %c0", doms = { { 1, 0.5, 2, -1, 0, -0.0, NAN }, { 3, 4, 5, 6, 7, 8, 9 },
                                                   { -4, -5, -6, -7, -8, -9, -10 } },
           c0 = function(c) return c end, inplace = "cond_assign_s %r %a %b %c0" },
  condeq = { "cond_eq_assign %r %a %b %c %c0", doms = { { 1, 0.5, 2, -1, 0, -0.0, NAN }, { 3, 4, 5, 6, 7, 8, 9 },
                                                        { -4, -5, -6, -7, -8, -9, -10 } },
             c0 = function(c) return c end, inplace = "cond_eq_assign_s %r %a %b %c0" },
}
local BINARY_DOMS = { { 0.6, -1.3, 2.2, 0.05, -0.0, 3.75, -2.5 }, { 1.7, 0.3, -2.9, 1e-3, 0.0, -0.0, 5 } }
local NPOINTS, KEEP = 7, 3 -- points 1..KEEP keep every taped outcome

-- Fills a record template.
local function rec(tmpl, f)
  return (tmpl:gsub("%%(%w+)", function(k) return tostring(assert(f[k], k)) end))
end

-- A %.17g literal (the text reader takes nan and inf).
local function lit(v) return ("%.17g"):format(v) end

-- A tape under construction: independents first (their values at every
-- point), then the records of each block.
local function new_tape()
  local T = { ind = {}, recs = {}, next = 1 }
  function T.loc() T.next = T.next + 1; return T.next - 1 end
  function T.indep(values)
    local l = T.loc()
    T.ind[#T.ind + 1] = { l, values }
    return l, values[1]
  end
  function T.add(s) T.recs[#T.recs + 1] = s end
  function T.dep(l) T.add("assign_dep " .. l) end
  function T.kill(l) T.add(("death_not %d %d"):format(l, l)) end
  function T.text()
    local out = {}
    for _, p in ipairs(T.ind) do out[#out + 1] = ("assign_ind %d %s"):format(p[1], lit(p[2][1])) end
    for _, s in ipairs(T.recs) do out[#out + 1] = s end
    return table.concat(out, "\n") .. "\n"
  end
  function T.point(k)
    local x = {}
    for i, p in ipairs(T.ind) do x[i] = p[2][(k - 1) % #p[2] + 1] end
    return x
  end
  return T
end

-- The record of unary op nm from a (taped value av) into a new location.
local function put_unary(T, nm, a, av)
  local u, r, d = unary[nm], T.loc(), T.loc()
  if u.deriv then T.add(("assign_d %d 1"):format(d)) end
  T.add(rec(u[1], { r = r, a = a, d = d, c0 = u.c0 and lit(u.c0(av)) or "" }))
  if u.second or u.deriv then T.kill(d) end -- the other output or the derivative: dead
  return r
end

-- Every block of unary op nm (x: its independent, one: the independent 1).
local function unary_blocks(T, nm, one)
  local x, xv = T.indep(unary[nm].dom or DEFAULT_DOM)
  T.dep(put_unary(T, nm, x, xv))                -- [op] on x
  local r = put_unary(T, nm, x, xv)             -- [op, mulc]: op heads a hoisted chain
  local s = T.loc()
  T.add(("mult_a_d %d %d 0.5"):format(s, r))
  T.kill(r)
  T.dep(s)
  local t = T.loc()                             -- [mul, op, mulc]: op inside a chain
  T.add(("mult_a_a %d %d %d"):format(t, x, one))
  r = put_unary(T, nm, t, xv)
  T.kill(t)
  s = T.loc()
  T.add(("mult_a_d %d %d 0.5"):format(s, r))
  T.kill(r)
  T.dep(s)
  r = put_unary(T, nm, x, xv)                   -- a statement read by two parents
  local p, q = T.loc(), T.loc()
  T.add(("plus_a_a %d %d %d"):format(p, r, one))
  T.add(("min_a_a %d %d %d"):format(q, one, r))
  T.dep(p)
  T.dep(q)
end

-- The record of n-ary op nm on the operand locations ls (taped values vs).
local function put_nary(T, nm, ls, vs)
  local o, r = nary[nm], T.loc()
  local f = { r = r, a = ls[1], b = ls[2], c = ls[3], c0 = o.c0 and lit(o.c0(table.unpack(vs))) or "" }
  T.add(rec(o[1], f))
  return r
end

-- Every block of binary or ternary op nm.
local function nary_blocks(T, nm, one)
  local o = nary[nm]
  local doms = o.doms or BINARY_DOMS
  local xs, vs = {}, {}
  for k, d in ipairs(doms) do xs[k], vs[k] = T.indep(d) end
  T.dep(put_nary(T, nm, xs, vs))                -- on independents
  local r, s = put_nary(T, nm, xs, vs), T.loc() -- [op, mulc, exp]
  T.add(("mult_a_d %d %d 0.25"):format(s, r))
  T.kill(r)
  local e = T.loc()
  T.add(("exp_op %d %d"):format(e, s))
  T.kill(s)
  T.dep(e)
  local ps = {}                                 -- on statements, in both orders
  for k, x in ipairs(xs) do
    ps[k] = T.loc()
    T.add(("mult_a_a %d %d %d"):format(ps[k], x, one))
  end
  T.dep(put_nary(T, nm, ps, vs))
  local rev, rv = {}, {}
  for k = 1, #ps do rev[k], rv[k] = ps[#ps + 1 - k], vs[#ps + 1 - k] end
  T.dep(put_nary(T, nm, rev, rv))
  if o.inplace then                             -- the in-place form on a copy of the last operand
    local t = T.loc()
    T.add(("assign_a %d %d"):format(t, ps[3]))
    T.add(rec(o.inplace, { r = t, a = ps[1], b = ps[2], c0 = lit(o.c0(vs[1])) }))
    T.dep(t)
  end
end

-- Leaves as dependents and as operands: constants (with -0, inf, nan and a
-- long fraction), an independent, a constant read by an operation.
local function leaf_blocks(T, one)
  local x = T.indep(DEFAULT_DOM)
  T.dep(x)
  for _, c in ipairs({ "2.5", "-0", "inf", "-inf", "nan", "0.1", "-1.0000000000000002" }) do
    local l, r = T.loc(), T.loc()
    T.add(("assign_d %d %s"):format(l, c))
    T.dep(l)
    T.add(("mult_a_a %d %d %d"):format(r, x, l))
    T.dep(r)
    local s = T.loc()
    T.add(("plus_a_a %d %d %d"):format(s, l, one))
    T.dep(s)
  end
end

-- Every other opcode that becomes a graph operation (in-place forms,
-- operand orders, constants folded in, the second output of sin and cos),
-- alone on a copy of x and, for the in-place unary ones, one after another
-- on one location (a hoisted chain of them).
local function opcode_blocks(T, one)
  local x = T.indep(DEFAULT_DOM)
  local z = T.indep({ 1.7, 0.3, -2.9, 1e-3, 4, -0.5, 5 })
  local inplace = { "eq_plus_d %r 0.10000000000000001", "eq_min_d %r 0.29999999999999999",
                    "eq_mult_d %r 1.5", "eq_div_d %r 3", "incr_a %r", "decr_a %r" }
  local binplace = { "eq_plus_a %r %b", "eq_min_a %r %b", "eq_mult_a %r %b", "eq_div_a %r %b",
                     "eq_plus_prod %r %a %b", "eq_min_prod %r %b %b" }
  local fresh = { "plus_d_a %r %a 0.25", "plus_a_d %r %a -0.75", "min_a_d %r %a 0.125", "min_d_a %r %a 2",
                  "mult_d_a %r %a -3", "mult_a_d %r %a 0.1", "div_a_d %r %a 7", "div_d_a %r %b 7",
                  "pos_sign_a %r %a", "assign_d_zero %r", "assign_d_one %r", "assign_a %r %a",
                  "eq_plus_d %r 1" }
  local function copy_of(a)
    local r = T.loc()
    T.add(("assign_a %d %d"):format(r, a))
    return r
  end
  for _, l in ipairs(inplace) do
    local r = copy_of(x)
    T.add(rec(l, { r = r }))
    T.dep(r)
  end
  for _, l in ipairs(binplace) do
    local r = copy_of(x)
    T.add(rec(l, { r = r, a = x, b = z }))
    T.dep(r)
  end
  for _, l in ipairs(fresh) do
    local r = T.loc()
    if l:match("^eq_") then T.add(("assign_d %d 0.5"):format(r)) end -- in place on a constant
    T.add(rec(l, { r = r, a = x, b = z }))
    T.dep(r)
  end
  local r = copy_of(z)                          -- a chain of in-place records on one location
  for _, l in ipairs(inplace) do T.add(rec(l, { r = r })) end
  for _, l in ipairs(binplace) do T.add(rec(l, { r = r, a = x, b = z })) end
  T.dep(r)
  for _, op in ipairs({ "sin_op", "cos_op" }) do -- both outputs
    local a, b = T.loc(), T.loc()
    T.add(("%s %d %d %d"):format(op, a, b, x))
    T.dep(a)
    T.dep(b)
  end
end

-- The whole tape: every operation of the table, in its blocks.
local function all_ops_tape()
  local T = new_tape()
  local one = T.indep({ 1 })
  local names = {}
  for nm in pairs(unary) do names[#names + 1] = nm end
  for nm in pairs(nary) do names[#names + 1] = nm end
  table.sort(names)
  for _, nm in ipairs(names) do
    if unary[nm] then unary_blocks(T, nm, one) else nary_blocks(T, nm, one) end
  end
  leaf_blocks(T, one)
  opcode_blocks(T, one)
  return T
end

-- {==== compile and run (as spec/05-sched_spec.lua) ====}

local function fmt_all(y)
  local o = {}
  for i, v in ipairs(y) do o[i] = ("%.17g"):format(v) end
  return table.concat(o, "\n") .. (#o > 0 and "\n" or "")
end

-- Output lines with the sign of a NaN dropped: C leaves it unspecified, and
-- GCC at -O2 computes x * (-inf) as -(x * inf), so 0 * -inf prints nan where
-- the graph's own multiplication gives -nan.  Every other bit counts.
local function canon(s)
  return (s:gsub("%-nan\n", "nan\n"))
end

local CFLAGS = "-O2 -std=c99 -Wall -Wextra -Werror -ffp-contract=off -DCGWB_MAIN"

-- Compiles C code (with CFLAGS and the extra flags more); returns the
-- executable's path (asserting a clean compile).
local function compile(code, more)
  local src, exe, log = H.tmp(".c"), H.tmp(".exe"), H.tmp(".log")
  H.write(src, code)
  local ok = os.execute(("cc %s%s %s -o %s -lm >%s 2>&1"):format(CFLAGS, more or "", src, exe, log))
  local msg = H.read(log)
  os.remove(log)
  assert(ok and msg == "", "generated code does not compile cleanly:\n" .. msg)
  os.remove(src)
  return exe
end

-- Runs a compiled evaluator at x; returns its stdout.
local function run(exe, x)
  local xin, out = H.tmp(".x"), H.tmp(".y")
  H.write(xin, fmt_all(x))
  assert(os.execute(("%s <%s >%s"):format(exe, xin, out)))
  local r = H.read(out)
  os.remove(xin)
  os.remove(out)
  return r
end

-- The first line where two outputs differ, with the dependent's number.
local function first_diff(a, b)
  local la, lb = {}, {}
  for s in a:gmatch("[^\n]*\n") do la[#la + 1] = s end
  for s in b:gmatch("[^\n]*\n") do lb[#lb + 1] = s end
  for i = 1, math.max(#la, #lb) do
    if la[i] ~= lb[i] then
      return ("dependent %d: %s ~= %s"):format(i, tostring(la[i]):gsub("\n", ""),
        (tostring(lb[i]):gsub("\n", "")))
    end
  end
end

-- {==== the specification ====}

-- {==== the operations no tape records, through the graph builder ====}

-- Operand values of the operations without a tape opcode, as above: the
-- first KEEP points keep max's taped outcome, the fourth leaves it, the
-- rest sit on ties (0 and -0, NaN).  pow's points hold a zero base, a
-- negative base with integer exponents, a -0 exponent.
-- C's round and trunc in Lua (the taped outcomes of those rows).
local function c_trunc(u) return u >= 0 and math.floor(u) or math.ceil(u) end
local function c_round(u) return u >= 0 and math.floor(u + 0.5) or -math.floor(0.5 - u) end
-- An outcome's domain keeps it at points 1..KEEP (the first three values).
local built_unary = {
  sinh = {}, cosh = {}, tanh = {},
  log10 = { dom = { 1.5, 0.25, 3e-5, 7.1, 1, 1e300, 0.7 } },
  lgamma = {}, tgamma = {}, erfc = {}, expm1 = {}, exp2 = {},
  log1p = { dom = { 1.5, 0.25, 3e-5, 7.1, 0, 1e300, -0.5 } },
  log2 = { dom = { 1.5, 0.25, 3e-5, 7.1, 1, 1e300, 0.7 } },
  round = { dom = { 0.6, 0.75, 1.2, 2.5, -0.0, -2.5, 1e300 }, outcome = c_round },
  trunc = { dom = { 1.6, 1.75, 1.2, 2.5, -0.0, -2.5, 1e300 }, outcome = c_trunc },
}
local built_nary = {
  pow = { doms = { { 1.7, 0.3, 2.9, 0, -2, -0.0, 4 }, { 2.5, -1.5, 0.5, 2, 3, 3, -0.0 } } },
  atan2 = {},
  max = { doms = { { 1, 0.5, 2, 2, 0, -0.0, NAN }, { 0.5, 0.25, 1, 3, -0.0, 0, 1 } },
          outcome = function(a, b) return a >= b and 1 or 0 end },
  hypot = {},
  fmod = { doms = { { 7, 7.2, 6.5, -7, 5.5, 1e10, -0.0 }, { 2, 2.1, 1.9, 2, -1.5, 3, 1 } },
           outcome = function(a, b) return c_trunc(a / b) end },
  copysign = { doms = { { 0.6, 1.3, 2.2, -0.05, -0.0, 3.75, -2.5 }, { 1.7, 0.3, 2.9, 1e-3, 0.0, -0.0, 5 } },
               outcome = function(a, b) return ((1 / a < 0) == (1 / b < 0)) and 1 or 0 end },
}

-- A graph under construction through the builder, at point 1; ind holds
-- each independent's values at every point.
local function new_built(opts)
  local B = { b = cgwb.graph_builder(opts), ind = {}, next = 1 }
  function B.loc() B.next = B.next + 1; return B.next - 1 end
  function B.indep(values)
    local l = B.loc()
    assert(B.b:independent(l, values[1]))
    B.ind[#B.ind + 1] = values
    return l
  end
  function B.const(c)
    local l = B.loc()
    assert(B.b:constant(l, c))
    return l
  end
  -- op nm on locations ins into a new location (its outcome from the values now)
  function B.op(nm, ins, c)
    local o, r = built_nary[nm] or built_unary[nm], B.loc()
    if o and o.outcome then
      local v = {}
      for i, l in ipairs(ins) do v[i] = assert(B.b:value(l)) end
      c = o.outcome(table.unpack(v))
    end
    assert(B.b:op(r, nm, ins, c))
    return r
  end
  function B.dep(l) assert(B.b:dependent(l)) end
  function B.kill(l) assert(B.b:unlink(l)) end
  function B.point(k)
    local x = {}
    for i, v in ipairs(B.ind) do x[i] = v[(k - 1) % #v + 1] end
    return x
  end
  return B
end

-- The blocks of unary_blocks for a unary operation without a tape opcode.
local function built_unary_blocks(B, nm, one)
  local x = B.indep(built_unary[nm].dom or DEFAULT_DOM)
  B.dep(B.op(nm, { x }))                        -- [op] on x
  local r = B.op(nm, { x })                     -- [op, mulc]: op heads a hoisted chain
  local s = B.op("mulc", { r }, 0.5)
  B.kill(r)
  B.dep(s)
  local t = B.op("mul", { x, one })             -- [mul, op, mulc]: op inside a chain
  r = B.op(nm, { t })
  B.kill(t)
  s = B.op("mulc", { r }, 0.5)
  B.kill(r)
  B.dep(s)
  r = B.op(nm, { x })                           -- a statement read by two parents
  B.dep(B.op("add", { r, one }))
  B.dep(B.op("sub", { one, r }))
end

-- The blocks of nary_blocks for a binary operation without a tape opcode.
local function built_nary_blocks(B, nm, one)
  local doms = built_nary[nm].doms or BINARY_DOMS
  local xs = { B.indep(doms[1]), B.indep(doms[2]) }
  B.dep(B.op(nm, xs))                           -- on independents
  local r = B.op(nm, xs)                        -- [op, mulc, exp]
  local s = B.op("mulc", { r }, 0.25)
  B.kill(r)
  local e = B.op("exp", { s })
  B.kill(s)
  B.dep(e)
  local ps = { B.op("mul", { xs[1], one }), B.op("mul", { xs[2], one }) }
  B.dep(B.op(nm, ps))                           -- on statements, in both orders
  B.dep(B.op(nm, { ps[2], ps[1] }))
end

-- Each operation without a tape opcode on constant leaves: unary ones on
-- a constant, binary ones with a constant on either side and on two.
local function built_leaf_blocks(B, nm)
  if built_unary[nm] then
    B.dep(B.op(nm, { B.const(0.75) }))
    return
  end
  local x = B.indep((built_nary[nm].doms or BINARY_DOMS)[1])
  B.dep(B.op(nm, { x, B.const(2.5) }))
  B.dep(B.op(nm, { B.const(0.5), x }))
  B.dep(B.op(nm, { B.const(1.5), B.const(-0.0) }))
end

-- The graph of every operation without a tape opcode, in its blocks (on
-- constant leaves with leaves true).
local function none_ops_graph(opts, leaves)
  local B = new_built(opts)
  local one = B.indep({ 1 })
  local names = {}
  for nm in pairs(built_unary) do names[#names + 1] = nm end
  for nm in pairs(built_nary) do names[#names + 1] = nm end
  table.sort(names)
  for _, nm in ipairs(names) do
    if leaves then built_leaf_blocks(B, nm)
    elseif built_unary[nm] then built_unary_blocks(B, nm, one)
    else built_nary_blocks(B, nm, one) end
  end
  local g = assert(B.b:finish())
  return g, B
end

local ARITY, ORDER, TAPE_OP = header_ops()
local T = all_ops_tape()
local TEXT = T.text()
-- The builder's graphs; a call that reads only constants is compiled with
-- -fno-builtin (doc/codegen.md: GCC otherwise evaluates it at compile time,
-- correctly rounded, where glibc's log10(0.75) is one unit in the last place
-- off).
local BUILT = {
  { "hoisted", {} },
  { "not hoisted", { hoist = false } },
  { "on constant leaves", nil, true, cflags = " -fno-builtin" },
}
for _, b in ipairs(BUILT) do
  local g, B = none_ops_graph(b[2], b[3])
  b[2], b.point = g, B.point
end

describe("codegen of every graph operation", function()
  local tape = assert(cgwb.read_text(TEXT, "ops.txt"))
  local builds = {
    { "assignments removed", assert(cgwb.build_graph(tape)) },
    { "assignments kept", assert(cgwb.build_graph(tape, { assign_removal = false })) },
  }

  it("the tape (or, for rows without a tape opcode, the builder's graph) covers every CG_GOPS row: "
     .. "as a head, and (unary ones) inside a chain", function()
    local function chains(graphs)
      local head, inner = {}, {}
      for _, b in ipairs(graphs) do
        for i in b[2]:nodes() do
          local ops = b[2]:chain(i)
          head[ops[1]] = true
          for k = 2, #ops do inner[ops[k]] = true end
        end
      end
      return head, inner
    end
    local th, ti = chains(builds)
    local bh, bi = chains(BUILT)
    for _, nm in ipairs(ORDER) do
      local none = TAPE_OP[nm] == "none"
      local head, inner, by = none and bh or th, none and bi or ti, none and "builder's graph" or "tape"
      assert(head[nm], ("no chain of the %s starts with %s"):format(by, nm))
      if ARITY[nm] == 1 then assert(inner[nm], ("no hoisted chain of the %s holds %s"):format(by, nm)) end
    end
  end)

  it("the tape holds every opcode of the builder's normalization table", function()
    local used = {}
    for _, name in tape:records() do used[name] = true end
    for _, op in ipairs(normalized_opcodes()) do assert(used[op], "no record of the tape is " .. op) end
  end)

  it("the points keep the taped outcomes first, then leave them", function()
    for k = 1, NPOINTS do
      local _, changes = assert(tape:forward(T.point(k)))
      if k <= KEEP then assert.are.equal(0, changes, "point " .. k)
      else assert.is_true(changes > 0, "point " .. k) end
    end
  end)

  -- Every form and leaf treatment of each build, compiled once, run at every point.
  local configs = {
    { "levels", "height", false }, { "levels", "alap", true }, { "straight", nil, false },
    { "straight", nil, true }, { "chunked", nil, false, 3 }, { "chunked", nil, true },
    { "levels", "asap", false, 5, true },
  }
  for _, b in ipairs(builds) do
    for _, cf in ipairs(configs) do
      local form, scheme, inl, chunk, par = cf[1], cf[2], cf[3], cf[4], cf[5]
      local what = ("%s, %s%s%s%s%s"):format(b[1], form, scheme and " " .. scheme or "",
        inl and ", leaves inlined" or "", chunk and ", chunk " .. chunk or "", par and ", parallel" or "")
      it(what .. ": the compiled code equals tape:forward and g:eval bit for bit", function()
        local g = b[2]
        local s = cgwb.schedule(g, scheme, { inline_leaves = inl })
        local exe = compile((s:codegen(nil, { form = form, chunk = chunk, name = "f", parallel = par })))
        for k = 1, NPOINTS do
          local x = T.point(k)
          local got = canon(run(exe, x))
          local yg, gchanges = assert(g:eval(x))
          local want = canon(fmt_all(yg))
          assert(got == want, ("point %d, against g:eval: %s"):format(k, first_diff(got, want) or ""))
          local yt, tchanges = assert(tape:forward(x))
          if tchanges == 0 then
            assert.are.equal(0, gchanges, "point " .. k)
            local wt = canon(fmt_all(yt))
            assert(got == wt, ("point %d, against tape:forward: %s"):format(k, first_diff(got, wt) or ""))
          else -- off the recorded branch: the graph must notice it too
            assert.is_true(gchanges > 0, "point " .. k .. ": g:eval reports no change")
          end
        end
        os.remove(exe)
      end)
    end
  end
end)

describe("codegen: dependents that are leaves", function()
  -- A dependent that is an independent or a constant is read in place in
  -- every form; the chunked form once read it back from y[], which no chunk
  -- writes for a leaf.
  local text = "assign_ind 1 0.5\nassign_d 2 3\nassign_dep 1\nassign_dep 2\n"
            .. "plus_a_a 3 1 2\nassign_dep 3\nassign_dep 1\n"
  for _, form in ipairs({ "levels", "straight", "chunked" }) do
    it(form .. ": y holds x and the constant", function()
      local g = assert(cgwb.build_graph(assert(cgwb.read_text(text, "leaves.txt"))))
      for _, inl in ipairs({ false, true }) do
        local s = cgwb.schedule(g, nil, { inline_leaves = inl })
        local exe = compile((s:codegen(nil, { form = form, chunk = 1 })))
        assert.are.equal("-1.25\n3\n1.75\n-1.25\n", run(exe, { -1.25 }))
        os.remove(exe)
      end
    end)
  end
end)

describe("codegen of the operations no tape records (through the graph builder)", function()
  it("the points keep max's taped outcomes first, then leave them", function()
    local g = BUILT[1][2]
    for k = 1, NPOINTS do
      local _, changes = assert(g:eval(BUILT[1].point(k)))
      if k <= KEEP then assert.are.equal(0, changes, "point " .. k)
      elseif k == KEEP + 1 then assert.is_true(changes > 0, "point " .. k) end
    end
  end)

  it("a graph holding them cannot be written as a tape, and says which operation", function()
    local t, err = BUILT[1][2]:to_tape()
    assert.is_nil(t)
    assert.matches("^node %d+: operation %w+ has no tape opcode$", err)
  end)

  local configs = {
    { "levels", "height", false }, { "levels", "alap", true }, { "straight", nil, false },
    { "straight", nil, true }, { "chunked", nil, false, 3 }, { "levels", "asap", false, 5, true },
  }
  for _, b in ipairs(BUILT) do
    for _, cf in ipairs(configs) do
      local form, scheme, inl, chunk, par = cf[1], cf[2], cf[3], cf[4], cf[5]
      local what = ("%s, %s%s%s%s%s"):format(b[1], form, scheme and " " .. scheme or "",
        inl and ", leaves inlined" or "", chunk and ", chunk " .. chunk or "", par and ", parallel" or "")
      it(what .. ": the compiled code equals g:eval bit for bit", function()
        local g = b[2]
        local s = cgwb.schedule(g, scheme, { inline_leaves = inl })
        local exe = compile((s:codegen(nil, { form = form, chunk = chunk, name = "f", parallel = par })),
                            b.cflags)
        for k = 1, NPOINTS do
          local x = b.point(k)
          local got = canon(run(exe, x))
          local want = canon(fmt_all((assert(g:eval(x)))))
          assert(got == want, ("point %d, against g:eval: %s"):format(k, first_diff(got, want) or ""))
        end
        os.remove(exe)
      end)
    end
  end
end)
