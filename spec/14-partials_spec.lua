-- spec/14-partials_spec.lua: the local partials of every graph operation,
-- checked against an independent computation: the Jacobian accumulated from
-- the linearized graph equals central differences of the tape's own forward
-- evaluation (which never looks at a partial), with the operation at the head
-- of a node's chain (its operand an independent) and inside a chain (after a
-- product that hoisting folds into the same node), at several points.  The
-- operations no tape records (the kernels' intrinsics pow, atan2, sinh,
-- cosh, tanh, log10, max: tape_op `none` in cg_gops.h) are made through the
-- graph builder instead, and differenced with the graph's own evaluation
-- (g:eval, the rows' values, which never look at a partial either).
local H = require "spec.helper"
local cgwb = require "cgwb"

-- One case per operation: the record applying it to location A (the
-- operand) with result in location R; points (x1, x2) inside its domain.
-- The head form applies it to x1; the chain form to x1 * x2 (+ shift).
local cases = {
  { op = "copy", rec = "assign_a R A" },
  { op = "pos_sign", rec = "pos_sign_a R A" },
  { op = "addc", rec = "plus_d_a R A 1.25" },
  { op = "addc (plus_a_d)", rec = "plus_a_d R A 1.25" },
  { op = "subc (min_a_d)", rec = "min_a_d R A 1.25" },
  { op = "rsub", rec = "min_d_a R A 1.25" },
  { op = "mulc", rec = "mult_d_a R A -2.5" },
  { op = "divc", rec = "div_a_d R A -2.5" },
  { op = "rdiv", rec = "div_d_a R A 3" },
  { op = "powc", rec = "pow_op R A 2.5" },
  { op = "powc 0", rec = "pow_op R A 0" },
  { op = "powc negative", rec = "pow_op R A -1.5" },
  { op = "neg", rec = "neg_sign_a R A" },
  { op = "exp", rec = "exp_op R A" },
  { op = "log", rec = "log_op R A" },
  { op = "sqrt", rec = "sqrt_op R A" },
  { op = "cbrt", rec = "cbrt_op R A" },
  { op = "sin", rec = "sin_op R 9 A" },
  { op = "cos", rec = "cos_op R 9 A" },
  { op = "tan", rec = "tan_op R A" },
  { op = "asin", rec = "asin_op R A A", small = true },
  { op = "acos", rec = "acos_op R A A", small = true },
  { op = "atan", rec = "atan_op R A A" },
  { op = "asinh", rec = "asinh_op R A A" },
  { op = "acosh", rec = "acosh_op R A A", shift = 2 },
  { op = "atanh", rec = "atanh_op R A A", small = true },
  { op = "erf", rec = "erf_op R A A" },
  { op = "abs", rec = "abs_val R A 1", both_signs = true },
  { op = "ceil", rec = "ceil_op R A 1" },
  { op = "floor", rec = "floor_op R A 0" },
}

-- Binary operations of the two independents (and the ternary conditionals).
local binary = {
  { op = "add", rec = "plus_a_a 3 0 1" },
  { op = "sub", rec = "min_a_a 3 0 1" },
  { op = "mul", rec = "mult_a_a 3 0 1" },
  { op = "div", rec = "div_a_a 3 0 1" },
  { op = "min", rec = "min_op 3 0 1 1", both_signs = true },
  { op = "cond", pre = "min_a_d 5 0 0.5\nmult_a_a 6 0 1\nexp_op 7 1", rec = "cond_assign 3 5 6 7 1",
    both_signs = true },
  { op = "condeq", pre = "min_a_d 5 0 0.5\nmult_a_a 6 0 1\nexp_op 7 1", rec = "cond_eq_assign 3 5 6 7 1",
    both_signs = true },
}

-- The operations no tape records, made through the graph builder (below),
-- at points on every side of their branches: atan2's four quadrants, max
-- taking either operand, pow with exponents of both signs.  pow's bases
-- stay positive: where the base is <= 0 its d/dy is the table's convention
-- (0, cg_gops.h), which spec/c/test_gops.c checks by hand; differences in y
-- there are NaN or one-sided.
local built = {
  { op = "pow", arity = 2, points = { { 0.6, 0.7 }, { 1.7, -0.9 }, { 2.5, 3 }, { 0.35, 1.3 } } },
  { op = "atan2", arity = 2, points = { { 0.6, 0.7 }, { 0.35, -1.3 }, { -1.7, 0.4 }, { -0.5, -0.5 } } },
  { op = "max", arity = 2, points = { { 0.6, 0.7 }, { 1.7, 0.4 }, { -0.8, 0.45 }, { 0.2, -0.9 } },
    outcome = function(u, v) return u >= v and 1 or 0 end },
  { op = "sinh", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1.7, -0.4 } } },
  { op = "cosh", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1.7, -0.4 } } },
  { op = "tanh", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1.7, -0.4 } } },
  { op = "log10", arity = 1, points = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 17, 0.4 } } },
  { op = "lgamma", arity = 1, points = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 1.7, 4.5 }, { -1.35, 1.3 }, { -0.6, 0.7 } } },
  { op = "tgamma", arity = 1, points = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 1.7, 2.5 }, { -1.35, 1.3 }, { -0.6, 0.7 } } },
  { op = "erfc", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1.7, -0.4 } } },
  { op = "expm1", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1e-3, -0.4 } } },
  { op = "log1p", arity = 1, points = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 17, 0.4 }, { -0.5, 0.3 } } },
  { op = "log2", arity = 1, points = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 17, 0.4 } } },
  { op = "exp2", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 1.7, -0.4 } } },
  { op = "hypot", arity = 2, points = { { 0.6, 0.7 }, { 0.35, -1.3 }, { -1.7, 0.4 }, { -0.5, -0.5 } } },
  { op = "round", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 2.7, -0.4 } },
    outcome = function(u) return u >= 0 and math.floor(u + 0.5) or -math.floor(0.5 - u) end },
  { op = "trunc", arity = 1, points = { { 0.6, 0.7 }, { -1.35, 1.3 }, { 2.7, -0.4 } },
    outcome = function(u) return u >= 0 and math.floor(u) or math.ceil(u) end },
  { op = "fmod", arity = 2, points = { { 2.6, 0.7 }, { -1.7, 0.4 }, { 1.35, -0.4 }, { 0.3, 0.7 } },
    outcome = function(u, v) local q = u / v; return q >= 0 and math.floor(q) or math.ceil(q) end },
  { op = "copysign", arity = 2, points = { { 0.6, 0.7 }, { -0.6, 0.7 }, { 0.6, -0.7 }, { -1.7, -0.4 } },
    outcome = function(u, v) return ((u < 0) == (v < 0)) and 1 or 0 end },
}

-- The rows of CG_GOPS as the header spells them: name, arity, tape_op.
local function header_rows()
  local text = H.read("csrc/graph/cg_gops.h")
  local body = assert(text:match("#define CG_GOPS%(X%)(.-)\n\n"), "CG_GOPS not found in cg_gops.h")
  local rows = {}
  for nm, ar, top in body:gmatch("X%(%s*[%w_]+%s*,%s*([%w_]+)%s*,%s*(%d+)%s*,%s*%d+%s*,%s*([%w_]+)") do
    rows[#rows + 1] = { name = nm, arity = tonumber(ar), tape_op = top }
  end
  return rows
end

-- Points: positive ones (every domain but acosh's, shifted), small ones for
-- asin/acos/atanh, and for kinks both sides.
local function points(c)
  local pts = { { 0.6, 0.7 }, { 0.35, 1.3 }, { 1.7, 0.4 } }
  if c.small then pts = { { 0.3, 0.5 }, { 0.6, 0.7 }, { -0.4, 0.6 } } end
  if c.both_signs then pts[#pts + 1] = { -0.8, 0.45 }; pts[#pts + 1] = { 0.2, -0.9 } end
  return pts
end

-- Central differences of the tape's forward evaluation: J[i][j].
local function fd_jacobian(tape, x)
  local J = {}
  for j = 1, #x do
    local h = 1e-6 * math.max(1, math.abs(x[j]))
    local xp, xm = { table.unpack(x) }, { table.unpack(x) }
    xp[j], xm[j] = x[j] + h, x[j] - h
    local yp, ym = assert(tape:forward(xp)), assert(tape:forward(xm))
    for i = 1, #yp do
      J[i] = J[i] or {}
      J[i][j] = (yp[i] - ym[i]) / (2 * h)
    end
  end
  return J
end

-- The accumulated Jacobian equals the differences at x (the elimination
-- result, dense).
local function check_at(tape, x, what)
  local lg <close> = assert(cgwb.linearize(tape, { at = x }))
  local c <close> = lg:copy()
  assert(c:eliminate({ "markowitz" }))
  local J, F = c:jacobian(), fd_jacobian(tape, x)
  local dense = {}
  for i = 1, #F do dense[i] = {} for j = 1, #x do dense[i][j] = 0 end end
  for k = 1, J.nnz do dense[J.rows[k]][J.cols[k]] = dense[J.rows[k]][J.cols[k]] + J.vals[k] end
  for i = 1, #F do
    for j = 1, #x do
      local a, b = dense[i][j], F[i][j]
      assert(math.abs(a - b) <= 1e-6 * math.max(1, math.abs(b)),
        ("%s at (%.17g, %.17g): dy%d/dx%d = %.17g, central differences %.17g"):format(what, x[1], x[2], i, j, a, b))
    end
  end
end

-- The text tape of case c at x0: y1 = op(x1) * x2 (head form), y2 = op(x1 x2 + shift) + x1
-- (chain form).
local function unary_tape(c, x0)
  local shift = c.shift or 0
  local head = c.rec:gsub("R", "3"):gsub("A", shift ~= 0 and "8" or "0")
  local chain = c.rec:gsub("R", "5"):gsub("A", "4")
  return table.concat({
    ("assign_ind 0 %.17g"):format(x0[1]),
    ("assign_ind 1 %.17g"):format(x0[2]),
    ("plus_d_a 8 0 %.17g"):format(shift),
    head,
    "mult_a_a 6 3 1",
    "mult_a_a 4 0 1",
    ("eq_plus_d 4 %.17g"):format(shift),
    chain,
    "plus_a_a 7 5 0",
    "assign_dep 6",
    "assign_dep 7",
  }, "\n")
end

describe("partials of every operation against central differences of the tape", function()
  for _, c in ipairs(cases) do
    it(c.op, function()
      for _, x in ipairs(points(c)) do
        local text = unary_tape(c, x)
        if c.op == "abs" then
          text = text:gsub("abs_val 3 0 1", "abs_val 3 0 " .. (x[1] >= 0 and 1 or 0))
            :gsub("abs_val 5 4 1", "abs_val 5 4 " .. (x[1] * x[2] >= 0 and 1 or 0))
        elseif c.op == "ceil" or c.op == "floor" then
          local f = c.op == "ceil" and math.ceil or math.floor
          text = text:gsub("(_op 3 %d+ )%S+", "%1" .. ("%.17g"):format(f(x[1])))
            :gsub("(_op 5 4 )%S+", "%1" .. ("%.17g"):format(f(x[1] * x[2])))
        end
        local tape <close> = assert(cgwb.read_text(text, c.op .. ".txt"))
        local _, changes = tape:forward()
        assert.are.equal(0, changes, c.op .. ": the taped flags hold at the recorded point")
        check_at(tape, x, c.op)
      end
    end)
  end

  for _, c in ipairs(binary) do
    it(c.op, function()
      for _, x in ipairs(points(c)) do
        local rec = c.rec
        if c.op == "min" then rec = rec:gsub("1$", x[1] <= x[2] and "1" or "0") end
        if c.op == "cond" or c.op == "condeq" then rec = rec:gsub("1$", ("%.17g"):format(x[1] - 0.5)) end
        local text = table.concat({
          ("assign_ind 0 %.17g"):format(x[1]), ("assign_ind 1 %.17g"):format(x[2]),
          c.pre or "", rec, "mult_a_a 4 3 3", "assign_dep 3", "assign_dep 4" }, "\n")
        local tape <close> = assert(cgwb.read_text(text, c.op .. ".txt"))
        check_at(tape, x, c.op)
      end
    end)
  end

  it("covers every operation of the graph operation table", function()
    local covered = { indep = true, const = true }
    local alias = { ["pos_sign"] = "copy", ["addc (plus_a_d)"] = "addc", ["subc (min_a_d)"] = "addc",
                    ["powc 0"] = "powc", ["powc negative"] = "powc" }
    for _, c in ipairs(cases) do covered[alias[c.op] or c.op] = true end
    for _, c in ipairs(binary) do covered[c.op] = true end
    for _, c in ipairs(built) do covered[c.op] = true end
    local rows = header_rows()
    assert.is_true(#rows > 40, "too few rows read from CG_GOPS")
    for _, r in ipairs(rows) do
      assert.is_true(covered[r.name] ~= nil, "no partials case for graph operation " .. r.name)
    end
  end)
end)

-- {==== the operations no tape records, through the graph builder ====}

-- A graph of operation c.op on two independents at x, made verb by verb:
-- unary: y1 = op(x1 + shift) * x2 (op heads a chain), y2 = op(x1 x2 +
-- shift) + x1 (op inside the chain that hoisting makes of mul, addc, op);
-- binary: y1 = op(x1, x2), y2 = op(x1 + x2, 0.5 x2) * 0.5 (on statements,
-- heading a chain).  c.outcome gives the taped outcome (of max, round,
-- trunc, fmod, copysign) from the operands' values.
local function built_graph(c, x)
  local b <close> = cgwb.graph_builder({ name = c.op })
  local shift = c.shift or 0
  assert(b:independent(0, x[1]))
  assert(b:independent(1, x[2]))
  if c.arity == 1 then
    local a = 0
    local function outcome(u) return c.outcome and c.outcome(u) or 0 end
    if shift ~= 0 then a = 8; assert(b:op(8, "addc", { 0 }, shift)) end
    assert(b:op(3, c.op, { a }, outcome(assert(b:value(a)))))
    assert(b:op(6, "mul", { 3, 1 }))
    assert(b:op(4, "mul", { 0, 1 }))
    if shift ~= 0 then assert(b:op(4, "addc", { 4 }, shift)) end
    assert(b:op(5, c.op, { 4 }, outcome(assert(b:value(4)))))
    assert(b:unlink(4))
    assert(b:op(7, "add", { 5, 0 }))
    assert(b:dependent(6))
    assert(b:dependent(7))
  else
    local function outcome(u, v) return c.outcome and c.outcome(u, v) or 0 end
    assert(b:op(3, c.op, { 0, 1 }, outcome(x[1], x[2])))
    assert(b:op(4, "add", { 0, 1 }))
    assert(b:op(5, "mulc", { 1 }, 0.5))
    assert(b:op(6, c.op, { 4, 5 }, outcome(x[1] + x[2], 0.5 * x[2])))
    assert(b:unlink(4, 5))
    assert(b:op(6, "mulc", { 6 }, 0.5))
    assert(b:dependent(3))
    assert(b:dependent(6))
  end
  return assert(b:finish())
end

-- Central differences of the graph's evaluation (the rows' values only).
local function fd_graph(g, x)
  local J = {}
  for j = 1, #x do
    local h = 1e-6 * math.max(1, math.abs(x[j]))
    local xp, xm = { table.unpack(x) }, { table.unpack(x) }
    xp[j], xm[j] = x[j] + h, x[j] - h
    local yp, cp = assert(g:eval(xp))
    local ym, cm = assert(g:eval(xm))
    assert(cp == 0 and cm == 0, "the differences cross a recorded outcome")
    for i = 1, #yp do
      J[i] = J[i] or {}
      J[i][j] = (yp[i] - ym[i]) / (2 * h)
    end
  end
  return J
end

-- The accumulated Jacobian of g (built at x) equals the differences.
local function check_graph_at(g, x, what)
  local lg <close> = assert(cgwb.core.linearize(g))
  assert(lg:eliminate({ "markowitz" }))
  local J, F = lg:jacobian(), fd_graph(g, x)
  local dense = {}
  for i = 1, #F do dense[i] = {} for j = 1, #x do dense[i][j] = 0 end end
  for k = 1, J.nnz do dense[J.rows[k]][J.cols[k]] = dense[J.rows[k]][J.cols[k]] + J.vals[k] end
  for i = 1, #F do
    for j = 1, #x do
      local a, b = dense[i][j], F[i][j]
      assert(math.abs(a - b) <= 1e-6 * math.max(1, math.abs(b)),
        ("%s at (%.17g, %.17g): dy%d/dx%d = %.17g, central differences %.17g"):format(what, x[1], x[2], i, j, a, b))
    end
  end
end

describe("partials of the operations no tape records against central differences of g:eval", function()
  it("each case makes its graph as described: op heads a chain, and (unary) sits inside one", function()
    for _, c in ipairs(built) do
      local g <close> = built_graph(c, c.points[1])
      local head, inner = false, false
      for i in g:nodes() do
        local ops = g:chain(i)
        head = head or ops[1] == c.op
        for k = 2, #ops do inner = inner or ops[k] == c.op end
      end
      assert(head, c.op .. ": no chain starts with it")
      assert(c.arity == 2 or inner, c.op .. ": no chain holds it inside")
    end
  end)

  for _, c in ipairs(built) do
    it(c.op, function()
      for _, x in ipairs(c.points) do
        local g <close> = built_graph(c, x)
        check_graph_at(g, x, c.op)
      end
    end)
  end

  it("covers every row without a tape opcode, with its arity", function()
    local by = {}
    for _, c in ipairs(built) do by[c.op] = c end
    for _, r in ipairs(header_rows()) do
      if r.tape_op == "none" then
        assert(by[r.name], "no builder case for " .. r.name)
        assert.are.equal(r.arity, by[r.name].arity, r.name)
      end
    end
  end)
end)
