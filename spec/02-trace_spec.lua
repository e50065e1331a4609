-- spec/02-trace_spec.lua: the Lua tracer (lua/cgwb/trace.lua).
--
-- Records are captured through opts.sink and checked against hand-written
-- lists, replayed by an evaluator and a liveness checker written here
-- independently of the tracer, and, when cgwb.core is built, evaluated by the
-- C core (tape:forward) and compared bit for bit with the traced values.

package.path = "spec/?.lua;" .. package.path
local H = require "helper" -- package paths for lua/ and the build ($CGWB_BUILD)

local trace = require "cgwb.trace"
local have_core, core = pcall(require, "cgwb.core")

-- {==== helpers ====}

-- A sink that keeps records as { op, locs = {...}, vals = {...} }.
local function capture()
  local s = { recs = {} }
  function s:push(op, ...)
    local info = assert(trace.OPS[op], "unknown opcode " .. tostring(op))
    local args = table.pack(...)
    assert(args.n == info[1] + info[2], op .. ": wrong operand count " .. args.n)
    local r = { op = op, locs = {}, vals = {} }
    for i = 1, info[1] do
      assert(math.type(args[i]) == "integer", op .. ": location not an integer")
      r.locs[i] = args[i]
    end
    for i = 1, info[2] do
      assert(math.type(args[info[1] + i]) == "float", op .. ": constant not a float")
      r.vals[i] = args[info[1] + i]
    end
    self.recs[#self.recs + 1] = r
  end
  function s:set_x0(x) self.x0 = x end
  return s
end

local function rec(f, x0, opts)
  opts = opts or {}
  opts.sink = capture()
  local s, info = trace.record(f, x0, opts)
  return s.recs, info, s
end

-- "op l1 l2 c" strings, %.17g for constants.
local function lines(recs, keep_deaths)
  local out = {}
  for _, r in ipairs(recs) do
    if keep_deaths or r.op ~= "death_not" then
      local t = { r.op }
      for _, l in ipairs(r.locs) do t[#t + 1] = tostring(l) end
      for _, v in ipairs(r.vals) do t[#t + 1] = string.format("%.17g", v) end
      out[#out + 1] = table.concat(t, " ")
    end
  end
  return out
end

local function opnames(recs)
  local out = {}
  for _, r in ipairs(recs) do
    if r.op ~= "death_not" then out[#out + 1] = r.op end
  end
  return out
end

-- What each opcode computes, written from cg_ops.h / Bischof & Hu 1991, not from the
-- tracer: fn(s, L, V) with s the store, L the locations, V the constants.
local SEM = {
  assign_a = function(s, L) s[L[1]] = s[L[2]] end,
  assign_d = function(s, L, V) s[L[1]] = V[1] end,
  assign_d_zero = function(s, L) s[L[1]] = 0.0 end,
  eq_plus_a = function(s, L) s[L[1]] = s[L[1]] + s[L[2]] end,
  eq_min_a = function(s, L) s[L[1]] = s[L[1]] - s[L[2]] end,
  eq_mult_a = function(s, L) s[L[1]] = s[L[1]] * s[L[2]] end,
  eq_div_a = function(s, L) s[L[1]] = s[L[1]] / s[L[2]] end,
  eq_plus_d = function(s, L, V) s[L[1]] = s[L[1]] + V[1] end,
  eq_min_d = function(s, L, V) s[L[1]] = s[L[1]] - V[1] end,
  eq_mult_d = function(s, L, V) s[L[1]] = s[L[1]] * V[1] end,
  eq_div_d = function(s, L, V) s[L[1]] = s[L[1]] / V[1] end,
  plus_a_a = function(s, L) s[L[1]] = s[L[2]] + s[L[3]] end,
  min_a_a = function(s, L) s[L[1]] = s[L[2]] - s[L[3]] end,
  mult_a_a = function(s, L) s[L[1]] = s[L[2]] * s[L[3]] end,
  div_a_a = function(s, L) s[L[1]] = s[L[2]] / s[L[3]] end,
  plus_a_d = function(s, L, V) s[L[1]] = s[L[2]] + V[1] end,
  plus_d_a = function(s, L, V) s[L[1]] = V[1] + s[L[2]] end,
  min_a_d = function(s, L, V) s[L[1]] = s[L[2]] - V[1] end,
  min_d_a = function(s, L, V) s[L[1]] = V[1] - s[L[2]] end,
  mult_a_d = function(s, L, V) s[L[1]] = s[L[2]] * V[1] end,
  mult_d_a = function(s, L, V) s[L[1]] = V[1] * s[L[2]] end,
  div_a_d = function(s, L, V) s[L[1]] = s[L[2]] / V[1] end,
  div_d_a = function(s, L, V) s[L[1]] = V[1] / s[L[2]] end,
  neg_sign_a = function(s, L) s[L[1]] = -s[L[2]] end,
  exp_op = function(s, L) s[L[1]] = math.exp(s[L[2]]) end,
  log_op = function(s, L) s[L[1]] = math.log(s[L[2]]) end,
  sqrt_op = function(s, L) s[L[1]] = math.sqrt(s[L[2]]) end,
  tan_op = function(s, L) s[L[1]] = math.tan(s[L[2]]) end,
  pow_op = function(s, L, V) s[L[1]] = s[L[2]] ^ V[1] end,
  sin_op = function(s, L) local a = s[L[3]]; s[L[2]] = math.cos(a); s[L[1]] = math.sin(a) end,
  cos_op = function(s, L) local a = s[L[3]]; s[L[2]] = math.sin(a); s[L[1]] = math.cos(a) end,
  atan_op = function(s, L) s[L[1]] = math.atan(s[L[2]]) end,
  asin_op = function(s, L) s[L[1]] = math.asin(s[L[2]]) end,
  acos_op = function(s, L) s[L[1]] = math.acos(s[L[2]]) end,
  abs_val = function(s, L) s[L[1]] = math.abs(s[L[2]]) end,
}
local BRANCH = {
  eq_zero = function(d) return d == 0 end, neq_zero = function(d) return d ~= 0 end,
  le_zero = function(d) return d <= 0 end, gt_zero = function(d) return d > 0 end,
  ge_zero = function(d) return d >= 0 end, lt_zero = function(d) return d < 0 end,
}

-- Replays records at x: returns y, the number of branch records that no
-- longer hold, and the first liveness violation (nil when there is none).
-- A slot is live from a write to a death notice; reading a slot that is not
-- live, or a death notice on a slot that is not live, is a violation.
local function replay(recs, x)
  local s, live, y, ix, nbranch, bad = {}, {}, {}, 0, 0, nil
  local function read(k, l)
    if not live[l] and not bad then bad = ("record %d (%s) reads dead slot %d"):format(k, recs[k].op, l) end
  end
  for k, r in ipairs(recs) do
    local op, L, info = r.op, r.locs, trace.OPS[r.op]
    if op == "death_not" then
      for l = L[1], L[2] do
        if not live[l] and not bad then bad = ("record %d kills dead slot %d"):format(k, l) end
        live[l] = nil
      end
    elseif op == "assign_ind" then
      ix = ix + 1; s[L[1]] = x[ix]; live[L[1]] = true
    elseif op == "assign_dep" then
      read(k, L[1]); y[#y + 1] = s[L[1]]
    elseif BRANCH[op] then
      read(k, L[1]); if not BRANCH[op](s[L[1]]) then nbranch = nbranch + 1 end
    else
      local inplace = op:match("^eq_") ~= nil
      for i = inplace and 1 or info[3] + 1, info[1] do read(k, L[i]) end
      assert(SEM[op], "no semantics for " .. op)(s, L, r.vals)
      for i = 1, info[3] do live[L[i]] = true end
    end
  end
  return y, nbranch, bad
end

-- Bit equality of two arrays of doubles (NaN equal to NaN of the same bits).
local function same_bits(a, b)
  if #a ~= #b then return false, ("lengths %d and %d"):format(#a, #b) end
  for i = 1, #a do
    if string.pack("<d", a[i]) ~= string.pack("<d", b[i]) then
      return false, ("entry %d: %.17g vs %.17g"):format(i, a[i], b[i])
    end
  end
  return true
end

local function core_it(name, fn)
  if have_core then it(name, fn) else pending(name .. " (cgwb.core not built)") end
end

-- Records f at x0 into a real tape and checks tape:forward against the
-- traced values bit for bit; returns the tape and the info table.
local function core_check(f, x0)
  local tape, info = trace.record(f, x0)
  local y, nb = tape:forward()
  assert.are.equal(0, nb)
  local ok, msg = same_bits(y, info.y)
  assert.is_true(ok, msg)
  return tape, info
end

-- {==== the specification ====}

describe("trace.record: Bischof & Hu 1991, sec. 1.2, f(x, y) with z = 3", function()
  local function f(x, T)
    local z = 3.0
    local t = T.var()
    t:assign(x[1] + x[2])
    if 2 * t > 2 then return x[1] * z end
    return T.sqrt(z / x[1])
  end

  it("records the then-branch at (1, 2) with stable slots and death notices", function()
    local recs, info = rec(f, { 1, 2 })
    assert.are.same({
      "assign_ind 0", "assign_ind 1", "assign_d_zero 2", -- t keeps slot 2 (seed: slot 4)
      "plus_a_a 3 0 1", "death_not 1 1", "assign_a 2 3", "death_not 3 3",
      "mult_d_a 1 2 2", "death_not 2 2", "min_a_d 2 1 2", "death_not 1 1",
      "gt_zero 2", "death_not 2 2", "mult_a_d 1 0 3", "assign_dep 1",
    }, lines(recs, true))
    assert.are.equal(4, info.max_live)
    assert.are.same({ 3.0 }, info.y)
  end)

  it("records the else-branch at (-1, 0.5): le_zero, div_d_a, sqrt_op", function()
    local recs, info = rec(f, { -1, 0.5 })
    assert.are.same({ "assign_ind", "assign_ind", "assign_d_zero", "plus_a_a", "assign_a",
      "mult_d_a", "min_a_d", "le_zero", "div_d_a", "sqrt_op", "assign_dep" }, opnames(recs))
    assert.is_true(info.y[1] ~= info.y[1]) -- sqrt(3 / -1) is NaN, as in C
  end)

  it("emits virtual locations and no death notices with opts.raw", function()
    local recs = rec(f, { 1, 2 }, { raw = true })
    assert.are.same({ "assign_ind 0", "assign_ind 1", "assign_d_zero 2", "plus_a_a 3 0 1",
      "assign_a 2 3", "mult_d_a 4 2 2", "min_a_d 5 4 2", "gt_zero 5", "mult_a_d 6 0 3",
      "assign_dep 6" }, lines(recs, true))
  end)

  it("passes x0 as doubles to the sink", function()
    local _, _, sink = rec(f, { 1, 2 })
    assert.are.equal("float", math.type(sink.x0[1]))
    assert.are.same({ 1.0, 2.0 }, sink.x0)
  end)
end)

describe("trace.record: operators and their opcodes", function()
  local cases = {
    { "x+y", function(x) return x[1] + x[2] end, "plus_a_a 2 0 1" },
    { "x+c", function(x) return x[1] + 3 end, "plus_a_d 2 0 3" },
    { "c+x", function(x) return 3 + x[1] end, "plus_d_a 2 0 3" },
    { "x-y", function(x) return x[1] - x[2] end, "min_a_a 2 0 1" },
    { "x-c", function(x) return x[1] - 3 end, "min_a_d 2 0 3" },
    { "c-x", function(x) return 3 - x[1] end, "min_d_a 2 0 3" },
    { "x*y", function(x) return x[1] * x[2] end, "mult_a_a 2 0 1" },
    { "x*c", function(x) return x[1] * 3 end, "mult_a_d 2 0 3" },
    { "c*x", function(x) return 3 * x[1] end, "mult_d_a 2 0 3" },
    { "x/y", function(x) return x[1] / x[2] end, "div_a_a 2 0 1" },
    { "x/c", function(x) return x[1] / 3 end, "div_a_d 2 0 3" },
    { "c/x", function(x) return 3 / x[1] end, "div_d_a 2 0 3" },
    { "-x", function(x) return -x[1] end, "neg_sign_a 2 0" },
    { "x^c", function(x) return x[1] ^ 3 end, "pow_op 2 0 3" },
    { "exp", function(x, T) return T.exp(x[1]) end, "exp_op 2 0" },
    { "log", function(x, T) return T.log(x[1]) end, "log_op 2 0" },
    { "sqrt", function(x, T) return T.sqrt(x[1]) end, "sqrt_op 2 0" },
    { "tan", function(x, T) return T.tan(x[1]) end, "tan_op 2 0" },
    { "abs", function(x, T) return T.abs(x[1]) end, "abs_val 2 0 1" },
    { "abs<0", function(x, T) return T.abs(-x[1]) end, "abs_val 3 2 0" },
    { "pow(x,c)", function(x, T) return T.pow(x[1], 0.5) end, "pow_op 2 0 0.5" },
  }
  for _, c in ipairs(cases) do
    it("records " .. c[1] .. " as " .. c[3], function()
      local recs = rec(c[2], { 0.75, 2 }, { raw = true })
      local l = lines(recs)
      assert.are.equal(c[3], l[#l - 1])
      assert.are.equal("assign_dep", recs[#recs].op)
    end)
  end

  it("records an active exponent as exp(b*log(a))", function()
    local recs = rec(function(x) return x[1] ^ x[2] end, { 0.75, 2 }, { raw = true })
    assert.are.same({ "assign_ind", "assign_ind", "log_op", "mult_a_a", "exp_op", "assign_dep" },
      opnames(recs))
    assert.are.same({ 3, 1, 2 }, recs[4].locs) -- b * log(a): b first
    local recs2 = rec(function(x) return 2 ^ x[1] end, { 0.75, 2 }, { raw = true })
    assert.are.same({ "mult_a_d 2 0 0.69314718055994529", "exp_op 3 2" },
      { lines(recs2)[3], lines(recs2)[4] })
  end)

  it("records sin_op s c a and cos_op c s a with a second output that dies at once", function()
    local recs = rec(function(x, T) return T.sin(x[1]) * T.cos(x[1]) end, { 0.5, 1 })
    assert.are.same({ "assign_ind 0", "assign_ind 1", "death_not 1 1",
      "sin_op 1 2 0", "death_not 2 2", "cos_op 2 3 0", "death_not 0 0", "death_not 3 3",
      "mult_a_a 0 1 2", "assign_dep 0" }, lines(recs, true))
  end)

  it("records atan, asin, acos with the derivative chain as the extra input", function()
    local function chain(fname)
      local recs = rec(function(x, T) return T[fname](x[1]) end, { 0.5 }, { raw = true })
      return lines(recs)
    end
    assert.are.same({ "assign_ind 0", "mult_a_a 1 0 0", "plus_d_a 2 1 1", "div_d_a 3 2 1",
      "atan_op 4 0 3", "assign_dep 4" }, chain("atan"))
    assert.are.same({ "assign_ind 0", "mult_a_a 1 0 0", "min_d_a 2 1 1", "sqrt_op 3 2",
      "div_d_a 4 3 1", "asin_op 5 0 4", "assign_dep 5" }, chain("asin"))
    assert.are.same("div_d_a 4 3 -1", chain("acos")[5])
    assert.are.same("acos_op 5 0 4", chain("acos")[6])
  end)

  it("falls back to math.* on plain numbers", function()
    local recs, info = rec(function(x, T)
      return x[1] * (T.exp(1) + T.sin(0.5) + T.sqrt(4) + T.abs(-2) + T.pow(2, 3))
    end, { 1 }, { raw = true })
    assert.are.same({ "assign_ind", "mult_a_d", "assign_dep" }, opnames(recs))
    assert.are.equal(math.exp(1) + math.sin(0.5) + 2 + 2 + 8, info.y[1])
  end)

  it("rejects operands that are neither actives nor numbers, and // and %", function()
    assert.has_error(function() rec(function(x) return x[1] + "2" end, { 1 }) end)
    assert.has_error(function() rec(function(x) return x[1] + {} end, { 1 }) end)
    assert.has_error(function() rec(function(x) return x[1] // 2 end, { 1 }) end)
    assert.has_error(function() rec(function(x) return x[1] % 2 end, { 1 }) end)
  end)
end)

describe("trace.record: variables", function()
  it("T.var() is assign_d_zero, T.var(c) assign_d, T.var(a) assign_a", function()
    local recs = rec(function(x, T)
      local a, b, c = T.var(), T.var(3), T.var(x[1])
      return { a, b, c }
    end, { 5 }, { raw = true })
    assert.are.same({ "assign_ind 0", "assign_d_zero 1", "assign_d 2 3", "assign_a 3 0",
      "assign_dep 1", "assign_dep 2", "assign_dep 3" }, lines(recs))
  end)

  it("assign copies a temporary into the variable (the copy is visible)", function()
    local recs = rec(function(x, T)
      local t = T.var()
      t:assign(x[1] * x[1])
      t:assign(2)
      return t
    end, { 5 }, { raw = true })
    assert.are.same({ "assign_ind 0", "assign_d_zero 1", "mult_a_a 2 0 0", "assign_a 1 2",
      "assign_d 1 2", "assign_dep 1" }, lines(recs))
  end)

  it("add/sub/mul/div record eq_*_a and eq_*_d in place and return the variable", function()
    local recs, info = rec(function(x, T)
      local t = T.var(1)
      t:add(x[1]):sub(x[1]):mul(x[1]):div(x[1])
      t:add(2):sub(0.5):mul(4):div(8)
      return t
    end, { 3 }, { raw = true })
    assert.are.same({ "assign_ind 0", "assign_d 1 1",
      "eq_plus_a 1 0", "eq_min_a 1 0", "eq_mult_a 1 0", "eq_div_a 1 0",
      "eq_plus_d 1 2", "eq_min_d 1 0.5", "eq_mult_d 1 4", "eq_div_d 1 8", "assign_dep 1" },
      lines(recs))
    assert.are.same({ (((1 + 3 - 3) * 3 / 3) + 2 - 0.5) * 4 / 8 }, info.y)
  end)

  it("keeps a variable in one slot across in-place updates", function()
    local recs = rec(function(x, T)
      local s = T.var(0)
      for i = 1, 10 do s:add(x[1] * i) end
      return s
    end, { 2 })
    for _, r in ipairs(recs) do
      if r.op == "eq_plus_a" then assert.are.equal(1, r.locs[1]) end
    end
  end)

  it("accepts a single active, an array, and numbers as dependents", function()
    local recs = rec(function(x) return { x[1], 7, x[1] } end, { 2 }, { raw = true })
    assert.are.same({ "assign_ind 0", "assign_dep 0", "assign_d 1 7", "assign_dep 1",
      "assign_dep 0" }, lines(recs))
    assert.has_error(function() rec(function() return {} end, { 1 }) end)
    assert.has_error(function() rec(function() return nil end, { 1 }) end)
  end)

  it("T.value and :value give the current double", function()
    rec(function(x, T)
      local t = T.var(x[1])
      t:mul(3)
      assert.are.equal(6.0, T.value(t))
      assert.are.equal(6.0, t:value())
      assert.are.equal(4, T.value(4))
      return t
    end, { 2 })
  end)

  it("refuses actives after their recording and from another recording", function()
    local keep
    rec(function(x) keep = x[1]; return x[1] end, { 1 })
    assert.has_error(function() return keep + 1 end)
    assert.has_error(function() rec(function(x) return x[1] + keep end, { 1 }) end)
    assert.has_error(function() rec(function(_, T) return T.var(keep) end, { 1 }) end)
  end)

  it("refuses a bad x0 or f", function()
    assert.has_error(function() rec(function(x) return x[1] end, { "a" }) end)
    assert.has_error(function() rec(function(x) return x[1] end, 5) end)
    assert.has_error(function() trace.record(5, { 1 }, { sink = capture() }) end)
  end)
end)

describe("trace.record: comparisons record d and the branch that held", function()
  -- { source, compare function, x0, expected ops after the independents, result }
  local cases = {
    { "t > 2", function(t) return t > 2 end, 3, "min_a_d 1 0 2", "gt_zero 1", true },
    { "t > 2", function(t) return t > 2 end, 1, "min_a_d 1 0 2", "le_zero 1", false },
    { "t >= 2", function(t) return t >= 2 end, 2, "min_a_d 1 0 2", "ge_zero 1", true },
    { "t >= 2", function(t) return t >= 2 end, 1, "min_a_d 1 0 2", "lt_zero 1", false },
    { "t < 2", function(t) return t < 2 end, 1, "min_a_d 1 0 2", "lt_zero 1", true },
    { "t < 2", function(t) return t < 2 end, 2, "min_a_d 1 0 2", "ge_zero 1", false },
    { "t <= 2", function(t) return t <= 2 end, 2, "min_a_d 1 0 2", "le_zero 1", true },
    { "t <= 2", function(t) return t <= 2 end, 3, "min_a_d 1 0 2", "gt_zero 1", false },
    { "t < t*t", function(t) return t < t * t end, 3, "min_a_a 2 0 1", "lt_zero 2", true },
    { "t >= t*t", function(t) return t >= t * t end, 3, "min_a_a 2 1 0", "gt_zero 2", false },
    { "eq(t, 2)", function(t, T) return T.eq(t, 2) end, 2, "min_a_d 1 0 2", "eq_zero 1", true },
    { "eq(2, t)", function(t, T) return T.eq(2, t) end, 3, "min_a_d 1 0 2", "neq_zero 1", false },
    { "ne(t, 2)", function(t, T) return T.ne(t, 2) end, 3, "min_a_d 1 0 2", "neq_zero 1", true },
  }
  for _, c in ipairs(cases) do
    it(("%s at %g records %s, %s"):format(c[1], c[3], c[4], c[5]), function()
      local got
      local recs, info = rec(function(x, T)
        got = c[2](x[1], T)
        return x[1]
      end, { c[3] }, { raw = true })
      local l = lines(recs)
      local skip = c[1]:find("t%*t") and 1 or 0 -- the product t*t comes first
      assert.are.same({ c[4], c[5] }, { l[2 + skip], l[3 + skip] })
      assert.are.equal(c[6], got)
      assert.are.equal(1, info.branches)
    end)
  end
end)

-- A loop-heavy function: a 1-D diffusion with named variables, like the
-- examples (each step reads the previous state and writes a new one).
local function diffusion(steps)
  return function(x, T)
    local n = #x
    local u = {}
    for i = 1, n do u[i] = T.var(x[i]) end
    local t = T.var()
    for _ = 1, steps do
      local v = {}
      for i = 1, n do
        v[i] = T.var()
        t:assign(u[i % n + 1] - 2 * u[i])
        t:add(u[(i - 2) % n + 1])
        v[i]:assign(u[i] + 0.1 * t)
        if v[i] > 1 then v[i]:mul(0.5) end
      end
      u = v
    end
    local s = T.var(0)
    for i = 1, n do s:add(u[i] * u[i]) end
    return { s, u[1] }
  end
end

describe("liveness and slots", function()
  local x0 = {}
  for i = 1, 20 do x0[i] = math.sin(i) + 1 end

  it("keeps max live far below the number of records", function()
    local recs, info = rec(diffusion(40), x0)
    assert.is_true(info.operations > 7000)
    assert.is_true(info.max_live < 70, "max live " .. info.max_live)
    assert.is_true(info.max_live * 50 < info.operations)
    assert.are.equal(#recs, info.records)
  end)

  it("never kills a slot that is read later (independent replay)", function()
    local recs = rec(diffusion(40), x0)
    local _, nb, bad = replay(recs, x0)
    assert.is_nil(bad)
    assert.are.equal(0, nb)
  end)

  it("computes the same values with slots as with virtual locations", function()
    local recs, info = rec(diffusion(10), x0)
    local raw = rec(diffusion(10), x0, { raw = true })
    assert.is_true(same_bits(replay(recs, x0), replay(raw, x0)))
    assert.is_true(same_bits(replay(recs, x0), info.y))
  end)

  it("merges contiguous deaths, gives independents slots 0..n-1, none after the last write", function()
    local recs = rec(function(x) return x[3] + x[2] * x[1] end, { 1, 2, 3, 4 })
    assert.are.same({ "assign_ind 0", "assign_ind 1", "assign_ind 2", "assign_ind 3",
      "death_not 3 3", "mult_a_a 3 1 0", "death_not 0 1", "plus_a_a 0 2 3", "assign_dep 0" },
      lines(recs, true))
  end)

  it("the checker catches a death notice that kills a live slot", function()
    local recs = rec(function(x) return x[1] * x[2] end, { 1, 2 })
    table.insert(recs, 3, { op = "death_not", locs = { 0, 0 }, vals = {} })
    local _, _, bad = replay(recs, { 1, 2 })
    assert.is_not_nil(bad)
  end)
end)

-- {==== random programs ====}

-- A program is a list of statements over nv variables; expressions are trees.
-- exact = false also allows what the tape cannot compute as Lua does: atan
-- and x^2 (C atan and pow differ from Lua's atan2 and x*x in the last bit)
-- and an active exponent (exp(b*log(a)) on the tape, C pow in Lua).
local function gen_expr(depth, nx, exact)
  local r = math.random
  if depth == 0 or r() < 0.25 then
    if r() < 0.8 then return { "x", r(nx) } end
    return { "c", (r(-40, 40)) / 8 }
  end
  local k = r(exact and 16 or 19)
  local a = gen_expr(depth - 1, nx, exact)
  if k <= 4 then
    local ops = { "+", "-", "*", "/" }
    local b = r() < 0.7 and gen_expr(depth - 1, nx, exact) or { "c", r(1, 9) / 4 }
    if r() < 0.3 then a, b = b, a end
    if ops[k] == "/" then b = { "safe", b } end
    return { ops[k], a, b }
  end
  local unary = { "neg", "exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "abs",
                  "pow", "if", "powa", "atan", "pow2" }
  local u = unary[k - 4]
  if u == "if" then
    return { "if", a, gen_expr(depth - 1, nx, exact), gen_expr(depth - 1, nx, exact),
             gen_expr(depth - 1, nx, exact), r(1, 4) }
  end
  if u == "pow" then return { u, a, ({ 3, 0.5, -1, 1.5, 0.25 })[r(5)] } end
  if u == "powa" then return { u, a, gen_expr(depth - 1, nx, exact) } end
  return { u, a }
end

-- Evaluates an expression; M holds the operations (plain or traced).
local function eval(e, x, M)
  local tag = e[1]
  if tag == "x" then return x[e[2]] end
  if tag == "c" then return e[2] end
  local a = eval(e[2], x, M)
  if tag == "+" then return a + eval(e[3], x, M) end
  if tag == "-" then return a - eval(e[3], x, M) end
  if tag == "*" then return a * eval(e[3], x, M) end
  if tag == "/" then return a / eval(e[3], x, M) end
  if tag == "safe" then return a * a + 0.5 end -- a denominator away from zero
  if tag == "neg" then return -a end
  if tag == "log" or tag == "sqrt" then return M[tag](M.abs(a) + 0.25) end
  if tag == "exp" then return M.exp(M.sin(a)) end -- bounded arguments: no overflow
  if tag == "asin" or tag == "acos" then return M[tag](a / (M.abs(a) + 1)) end
  if tag == "pow" then return (M.abs(a) + 0.5) ^ e[3] end
  if tag == "pow2" then return a ^ 2 end
  if tag == "powa" then return (M.abs(a) + 0.5) ^ M.sin(eval(e[3], x, M)) end
  if tag == "if" then
    local b = eval(e[3], x, M)
    local c = ({ a < b, a <= b, a > b, a >= b })[e[6]]
    if c then return eval(e[4], x, M) end
    return eval(e[5], x, M)
  end
  return M[tag](a)
end

local function gen_program(nx, nv, nstat, exact)
  local r = math.random
  local p = { nv = nv, stats = {}, deps = {} }
  for i = 1, nstat do
    p.stats[i] = { ({ "assign", "add", "sub", "mul", "div" })[r(5)], r(nv), gen_expr(r(1, 4), nx, exact) }
  end
  for i = 1, r(1, 3) do p.deps[i] = r() < 0.7 and { "v", r(nv) } or gen_expr(2, nx, exact) end
  return p
end

-- Plain Lua evaluation of a program.
local PLAIN = setmetatable({ abs = math.abs }, { __index = math })
local function run_plain(p, x)
  local v = {}
  for i = 1, p.nv do v[i] = x[(i - 1) % #x + 1] end
  for _, s in ipairs(p.stats) do
    local e = eval(s[3], x, PLAIN)
    local w = s[2]
    if s[1] == "assign" then v[w] = e
    elseif s[1] == "add" then v[w] = v[w] + e
    elseif s[1] == "sub" then v[w] = v[w] - e
    elseif s[1] == "mul" then v[w] = v[w] * e
    else v[w] = v[w] / (e * e + 0.5) end
  end
  local y = {}
  for i, d in ipairs(p.deps) do y[i] = d[1] == "v" and v[d[2]] or eval(d, x, PLAIN) end
  return y
end

-- The same program traced: variables are T.var, statements their methods.
local function traced(p)
  return function(x, T)
    local v = {}
    for i = 1, p.nv do v[i] = T.var(x[(i - 1) % #x + 1]) end
    for _, s in ipairs(p.stats) do
      local e = eval(s[3], x, T)
      local w = v[s[2]]
      if s[1] == "div" then w:div(e * e + 0.5) else w[s[1]](w, e) end
    end
    local y = {}
    for i, d in ipairs(p.deps) do y[i] = d[1] == "v" and v[d[2]] or eval(d, x, T) end
    return y
  end
end

-- A readable form of an expression or program, for failure messages.
local function show(e)
  if type(e) ~= "table" then return tostring(e) end
  if e.stats then
    local t = {}
    for _, st in ipairs(e.stats) do t[#t + 1] = ("v%d:%s(%s)"):format(st[2], st[1], show(st[3])) end
    for _, d in ipairs(e.deps) do t[#t + 1] = "dep " .. (d[1] == "v" and "v" .. d[2] or show(d)) end
    return table.concat(t, "; ")
  end
  local t = {}
  for i = 2, #e do t[#t + 1] = show(e[i]) end
  return e[1] .. "(" .. table.concat(t, ", ") .. ")"
end

local function random_x(n)
  local x = {}
  for i = 1, n do x[i] = (math.random() - 0.5) * 4 end
  return x
end

describe("property: random programs", function()
  it("trace values equal plain Lua evaluation and the replay, liveness holds (400 programs)", function()
    math.randomseed(20240611)
    for trial = 1, 400 do
      local nx = math.random(1, 5)
      local p, x = gen_program(nx, math.random(1, 4), math.random(1, 12), true), random_x(nx)
      local recs, info = rec(traced(p), x)
      local plain = run_plain(p, x)
      local ok, msg = same_bits(info.y, plain)
      assert.is_true(ok, "program " .. trial .. ": " .. tostring(msg) .. "\n" .. show(p))
      local y, nb, bad = replay(recs, x)
      assert.is_nil(bad, "program " .. trial)
      assert.are.equal(0, nb)
      ok, msg = same_bits(y, plain)
      assert.is_true(ok, "program " .. trial .. " replay: " .. tostring(msg))
    end
  end)

  it("a replay at another point flags the branch records that no longer hold", function()
    local f = function(x) if x[1] > 0 then return x[1] end return -x[1] end
    local recs = rec(f, { 1 })
    local _, nb = replay(recs, { -1 })
    assert.are.equal(1, nb)
  end)

  core_it("tape:forward equals the traced values bit for bit (400 programs, atan, x^2, x^y included)", function()
    math.randomseed(977)
    for trial = 1, 400 do
      local nx = math.random(1, 5)
      local p, x = gen_program(nx, math.random(1, 4), math.random(1, 12), false), random_x(nx)
      local tape, info = trace.record(traced(p), x)
      local y, nb = tape:forward()
      assert.are.equal(0, nb, "program " .. trial)
      local ok, msg = same_bits(y, info.y)
      assert.is_true(ok, "program " .. trial .. ": " .. tostring(msg))
      local plain = run_plain(p, x) -- atan, x^2, x^y differ from Lua in the last bits
      for i = 1, #y do
        local scale = math.max(1, math.abs(plain[i]))
        assert.is_true(y[i] ~= y[i] or math.abs(y[i] - plain[i]) <= 1e-9 * scale,
          ("program %d: %.17g vs %.17g"):format(trial, y[i], plain[i]))
      end
    end
  end)
end)

describe("with cgwb.core", function()
  core_it("builds a cgwb.Tape whose records and counts match the sink's", function()
    local f = diffusion(3)
    local x0 = { 0.5, 1.5, 0.25 }
    local tape, info = core_check(f, x0)
    local recs = rec(f, x0)
    assert.are.equal(#recs, tape:len())
    assert.are.equal(3, tape:n())
    assert.are.equal(2, tape:m())
    local k = 0
    for _, op, locs, vals in tape:records() do
      k = k + 1
      assert.are.equal(recs[k].op, op)
      assert.are.same(recs[k].locs, locs)
      assert.are.same(recs[k].vals, vals)
    end
    assert.are.equal(info.records, k)
  end)

  core_it("tape:forward is bit-exact on the Bischof & Hu 1991 example and the loop function", function()
    core_check(function(x, T)
      local t = T.var()
      t:assign(x[1] + x[2])
      if 2 * t > 2 then return x[1] * 3 end
      return T.sqrt(3 / x[1])
    end, { 1, 2 })
    local x0 = {}
    for i = 1, 12 do x0[i] = math.cos(i) + 1.2 end
    core_check(diffusion(25), x0)
  end)

  core_it("atan and x^2 are computed as the core does (C atan, C pow)", function()
    local xs = {}
    math.randomseed(5)
    for i = 1, 200 do xs[i] = (math.random() - 0.5) * 10 end
    core_check(function(x, T)
      local y = {}
      for i = 1, #x do y[#y + 1] = T.atan(x[i]); y[#y + 1] = x[i] ^ 2 end
      return y
    end, xs)
  end)

  core_it("tape:forward at another point counts the branch that flips", function()
    local tape = trace.record(function(x) if x[1] > 0 then return x[1] end return -x[1] end, { 1 })
    local y, nb = tape:forward({ -2 })
    assert.are.same({ -2.0 }, y)
    assert.are.equal(1, nb)
  end)
end)

describe("trace.run_script", function()
  local function write(name, text) return H.write(H.tmp("_" .. name), text) end

  it("returns nil, 'file:line: message' on a syntax error", function()
    local path = write("bad.lua", "return {\n  f = function(x, T) return x[1] +  end,\n}\n")
    local tape, msg = trace.run_script(path, { sink = capture() })
    assert.is_nil(tape)
    assert.matches("_bad%.lua:2: ", msg)
    os.remove(path)
  end)

  it("returns nil, message for a missing file, a bad table and a runtime error", function()
    assert.is_nil((trace.run_script(H.tmp("_none.lua"), { sink = capture() })))
    local p1 = write("notable.lua", "return 5\n")
    local t1, m1 = trace.run_script(p1, { sink = capture() })
    assert.is_nil(t1)
    assert.matches("must return a table", m1)
    local p2 = write("boom.lua", "return { x0 = {1}, f = function(x) error('boom') end }\n")
    local t2, m2 = trace.run_script(p2, { sink = capture() })
    assert.is_nil(t2)
    assert.matches("_boom%.lua:1: boom", m2)
    os.remove(p1); os.remove(p2)
  end)

  it("records a script with options, x0 as a function, and the name", function()
    local path = write("ok.lua", [[
      return { name = "sq", options = { n = 3, c = 2 },
               x0 = function(o) local x = {} for i = 1, o.n do x[i] = i end return x end,
               f = function(x, T, o)
                 local s = T.var(0)
                 for i = 1, #x do s:add(x[i] * T.opts.c) end
                 return s
               end }
    ]])
    local sink, info = trace.run_script(path, { sink = capture() })
    assert.are.equal("sq", info.name)
    assert.are.same({ 12.0 }, info.y)
    assert.are.equal(3, info.n)
    local sink2, info2 = trace.run_script(path, { sink = capture(), options = { n = 4 } })
    assert.are.same({ 20.0 }, info2.y)
    assert.are.equal(4, #sink2.x0)
    assert.is_not_nil(sink)
    local _, info3 = trace.run_script(path, { sink = capture(), n = 2, c = 5 }) -- CLI style
    assert.are.same({ 15.0 }, info3.y)
    local t4, m4 = trace.run_script(path, { sink = capture(), nz = 2 })
    assert.is_nil(t4)
    assert.matches("unknown option 'nz' %(the script declares: c, n%)", m4)
    os.remove(path)
  end)
end)

describe("examples/lua: ports of the ADOL-C example programs", function()
  local function readv(path)
    local fh = io.open(path)
    if not fh then return nil end
    local v = {}
    for l in fh:lines() do v[#v + 1] = tonumber(l) end
    fh:close()
    return v
  end

  for _, name in ipairs({ "bratu", "shallow", "cavity" }) do
    it(name .. ".lua on a small grid: liveness holds and the replay gives the traced values", function()
      local options = { nx = 5, ny = 4 }
      if name == "shallow" then options.steps = 3 end
      local sink, info = trace.run_script("examples/lua/" .. name .. ".lua",
        { sink = capture(), options = options })
      assert.is_not_nil(sink, info)
      local y, nb, bad = replay(sink.recs, sink.x0)
      assert.is_nil(bad)
      assert.are.equal(0, nb)
      assert.is_true(same_bits(y, info.y))
      assert.is_true(info.max_live * 3 < info.operations)
    end)

    local xref = readv("examples/tapes/" .. name .. ".x")
    local yref = readv("examples/tapes/" .. name .. ".y")
    local runs = have_core and xref and yref
    local title = name .. ".lua at the default grid matches the C++ program's x0 and y"
    if not runs then
      pending(title .. " (needs cgwb.core and examples/tapes/" .. name .. ".y)")
    else
      it(title, function()
        local tape, info = trace.run_script("examples/lua/" .. name .. ".lua")
        assert.is_not_nil(tape, info)
        assert.are.equal(#xref, tape:n())
        assert.are.equal(#yref, tape:m())
        assert.are.same(xref, tape:x0())
        local y, nb = tape:forward()
        assert.are.equal(0, nb)
        assert.is_true(same_bits(y, info.y))
        for i = 1, #yref do
          local rel = math.abs(y[i] - yref[i]) / math.max(1, math.abs(yref[i]))
          assert.is_true(rel <= 1e-12, ("%s y[%d]: %.17g vs %.17g"):format(name, i, y[i], yref[i]))
        end
      end)
    end
  end
end)

describe("cgwb trace (the command line over run_script)", function()
  core_it("writes a tape whose forward values are the traced ones", function()
    local out = H.tmp(".tap")
    local _, err, code = H.cgwb("trace examples/lua/cavity.lua -o " .. out .. " --set nx=4 --set ny=3")
    assert.are.equal(0, code, err)
    local tape = assert(core.read_tape(out))
    local _, info = trace.run_script("examples/lua/cavity.lua", { sink = capture(), nx = 4, ny = 3 })
    local y = tape:forward() -- the classic tape carries x0
    assert.is_true(same_bits(y, info.y))
    assert.are.equal(info.records, tape:len())
    os.remove(out)
  end)

  core_it("reports a syntax error in the script as file:line with exit status 2", function()
    local path = H.write(H.tmp("_syn.lua"), "return {\n\n  f = = 1 }\n")
    local _, err, code = H.cgwb("trace " .. path .. " -o " .. H.tmp(".tap"))
    assert.are.equal(2, code)
    assert.matches("_syn%.lua:3: ", err)
    os.remove(path)
  end)
end)

-- {==== messages name the user's file and line ====}

describe("messages name the user's file and line (doc/tracer.md)", function()
  -- Runs a script (lines joined by newlines) through run_script; returns its
  -- path and the message, which must name neither trace.lua nor lack a position.
  local function fails(...)
    local path = H.write(H.tmp("_msg.lua"), table.concat({ ... }, "\n") .. "\n")
    local tape, msg = trace.run_script(path, { sink = capture() })
    assert.is_nil(tape)
    assert.is_string(msg)
    assert.is_falsy(msg:find("trace.lua", 1, true), msg)
    os.remove(path)
    return path, msg
  end

  -- Asserts msg is "path:line: " .. text exactly.
  local function at(path, line, text, msg)
    assert.are.equal(("%s:%d: %s"):format(path, line, text), msg)
  end

  -- The line of the caller's next line (for misuse written in this file).
  local function next_line() return debug.getinfo(2, "l").currentline + 1 end

  it("errors raised by the script's code, with or without a position", function()
    local p, m = fails("return { x0 = {1}, f = function(x)", "  local y = x[1] * 2",
                       "  error('boom')", "end }")
    at(p, 3, "boom", m)
    p, m = fails("return { x0 = {1}, f = function(x)", "  local y = x[1] * 2",
                 "  error('boom', 0)", "end }")
    at(p, 3, "boom", m)
    p, m = fails("return { x0 = {1}, f = function(x)", "", "  error({ code = 1 })", "end }")
    at(p, 3, "(error object is a table value)", m)
    p, m = fails("return { x0 = {1}, f = function(x)", "", "  local k = math.floor('a')",
                 "  return x[1] end }")
    at(p, 3, "bad argument #1 to 'floor' (number expected, got string)", m)
    p, m = fails("local t = nil", "local n = t.field", "return {}")
    at(p, 2, "attempt to index a nil value (local 't')", m)
    p, m = fails("return { x0 = function()", "  error('no x0')", "end, f = function(x) return x end }")
    at(p, 2, "no x0", m)
  end)

  it("operations actives do not support", function()
    for _, op in ipairs { "x[1] // 2", "x[1] % 2", "x[1] .. 'a'", "#x[1]", "x[1] & 1",
                          "x[1] | 1", "x[1] ~ 1", "x[1] << 1", "x[1] >> 1", "~x[1]" } do
      local sym = op:gsub("x%[1%]", ""):gsub("[%s%d']", ""):gsub("a$", "")
      local p, m = fails("return { x0 = {1}, f = function(x)", "  local y = x[1] * 2",
                         "  local z = " .. op, "  return y end }")
      at(p, 3, "cgwb.trace: " .. sym .. " is not supported on actives", m)
    end
  end)

  it("operands that are neither actives nor numbers, in operators, comparisons and T", function()
    for _, case in ipairs {
      { "x[1] + 'a'", "+ expects an active or a number, got string" },
      { "{} * x[1]", "* expects an active or a number, got table" },
      { "x[1] < 'a'", "< expects an active or a number, got string" },
      { "true <= x[1]", "<= expects an active or a number, got boolean" },
      { "T.exp('a')", "T.exp expects an active or a number, got string" },
      { "T.sin({})", "T.sin expects an active or a number, got table" },
      { "T.pow('a', 2)", "T.pow expects an active or a number, got string" },
      { "T.eq(x[1], 'a')", "T.eq expects an active or a number, got string" },
      { "T.var():add('a')", "add expects an active or a number, got string" },
      { "T.var():assign({})", "assign expects an active or a number, got table" },
    } do
      local p, m = fails("return { x0 = {1}, f = function(x, T)", "  local y = x[1] * 2",
                         "  local z = " .. case[1], "  return y end }")
      at(p, 3, "cgwb.trace: " .. case[2], m)
    end
  end)

  it("an active used after its recording ended, from a script and from Lua", function()
    local T_exp
    rec(function(_, T) T_exp = T.exp; return 1 end, { 1 })
    local p, m = fails(
      "local trace = require 'cgwb.trace'",
      "local old = trace.record(function(x) return x[1] end, { 1 }, { sink = { push = function() end, set_x0 = function() end } })",
      "local keep",
      "trace.record(function(x) keep = x[1]; return x[1] end, { 1 }, { sink = { push = function() end, set_x0 = function() end } })",
      "return { x0 = {1}, f = function(x, T)",
      "  local y = x[1] * 2",
      "  local z = T.exp(keep)",
      "  return y end }")
    at(p, 7, "cgwb.trace: active used after its recording ended", m)
    local keep
    rec(function(x) keep = x[1]; return x[1] end, { 1 })
    local me = debug.getinfo(1, "S").short_src
    -- each use on the one line of its function, which names the line
    for _, use in ipairs {
      function() local y = keep + 1; return y end,
      function() local y = keep < 1; return y end,
      function() local y = keep:add(1); return y end,
      function() local y = -keep; return y end,
      function() local y = T_exp(keep); return y end,
    } do
      local ok, err = pcall(use)
      assert.is_false(ok)
      assert.are.equal(("%s:%d: cgwb.trace: active used after its recording ended")
        :format(me, debug.getinfo(use, "S").linedefined), err)
    end
  end)

  it("actives of two recordings mixed", function()
    local p, m = fails(
      "local trace = require 'cgwb.trace'",
      "local sink = { push = function() end, set_x0 = function() end }",
      "return { x0 = {1}, f = function(x, T)",
      "  trace.record(function(z)",
      "    local w = z[1] + x[1]",
      "    return w end, { 2 }, { sink = sink })",
      "  return x[1] end }")
    at(p, 5, "cgwb.trace: actives of two recordings mixed", m)
    p, m = fails(
      "local trace = require 'cgwb.trace'",
      "local sink = { push = function() end, set_x0 = function() end }",
      "return { x0 = {1}, f = function(x, T)",
      "  trace.record(function(z, U)",
      "    local w = U.var(x[1])",
      "    return w end, { 2 }, { sink = sink })",
      "  return x[1] end }")
    at(p, 5, "cgwb.trace: T.var of an active from another recording", m)
    p, m = fails(
      "local trace = require 'cgwb.trace'",
      "local sink = { push = function() end, set_x0 = function() end }",
      "return { x0 = {1}, f = function(x, T)",
      "  trace.record(function(z)",
      "    local w = z[1] < x[1]",
      "    return z[1] end, { 2 }, { sink = sink })",
      "  return x[1] end }")
    at(p, 5, "cgwb.trace: actives of two recordings mixed", m)
  end)

  it("a bad x0: the line that sets it, or where its function is defined", function()
    local p, m = fails("return {", "  name = 'x',", "  x0 = { 1, 'a' },",
                       "  f = function(x) return x[1] end }")
    at(p, 3, "cgwb.trace: x0[2] is a string, not a number", m)
    p, m = fails("return {", "  x0 = function()", "    return 5", "  end,",
                 "  f = function(x) return x[1] end }")
    at(p, 2, "cgwb.trace: x0 must be an array of numbers, got number", m)
    -- from Lua: the line that called record
    local me = debug.getinfo(1, "S").short_src
    local line = next_line()
    local ok, err = pcall(function() return (trace.record(function(x) return x[1] end, { 1, true })) end)
    assert.is_false(ok)
    assert.are.equal(("%s:%d: cgwb.trace: x0[2] is a boolean, not a number"):format(me, line), err)
    line = next_line()
    ok, err = pcall(function() return (trace.record(function(x) return x[1] end, "x")) end)
    assert.are.equal(("%s:%d: cgwb.trace: x0 must be an array of numbers, got string"):format(me, line), err)
  end)

  it("what f returns: the line where f is defined", function()
    local p, m = fails("return { x0 = {1},", "  f = function(x)", "    local y = x[1]",
                       "    return nil", "  end }")
    at(p, 2, "cgwb.trace: the function defined here must return an active or an array of them, got nil", m)
    p, m = fails("return { x0 = {1},", "  f = function(x) return { x[1], 'a' } end }")
    at(p, 2, "cgwb.trace: dependent 2 returned by the function defined here is a string, not an active or a number", m)
    p, m = fails("local trace = require 'cgwb.trace'",
                 "local keep",
                 "trace.record(function(x) keep = x[1]; return x[1] end, { 1 }, { sink = { push = function() end, set_x0 = function() end } })",
                 "return { x0 = {1},", "  f = function(x) return { x[1], keep } end }")
    at(p, 5, "cgwb.trace: dependent 2 returned by the function defined here belongs to another recording", m)
  end)

  it("a misuse in f's own `return T.op(...)` (a tail call) names f's definition", function()
    local p, m = fails("return { x0 = {1},", "  f = function(x, T)", "    local y = x[1]",
                       "    return T.exp('a')", "  end }")
    at(p, 2, "cgwb.trace: T.exp expects an active or a number, got string", m)
    -- inside a helper the helper's caller is still on the stack
    p, m = fails("local function g(T, a) return T.exp(a) end",
                 "return { x0 = {1},", "  f = function(x, T)", "    local y = g(T, 'a')",
                 "    return y", "  end }")
    at(p, 4, "cgwb.trace: T.exp expects an active or a number, got string", m)
  end)

  core_it("cgwb trace: exit status 2 and the script's file and line", function()
    local path = H.write(H.tmp("_cli.lua"), "return { x0 = {1}, f = function(x)\n  local y = x[1] + 'a'\n  return y end }\n")
    local _, err, code = H.cgwb("trace " .. path .. " -o " .. H.tmp(".tap"))
    assert.are.equal(2, code, err)
    assert.are.equal(("cgwb trace: %s:2: cgwb.trace: + expects an active or a number, got string\n"):format(path), err)
    os.remove(path)
  end)
end)
