--- spec/lgen.lua: a seeded generator of random loop kernels whose loops'
-- verdicts are known by construction, for the property tests of the loop
-- analysis and of the adjoint code (spec/32-adjoint-props_spec.lua; the
-- rules: Hascoët, Fidanova & Held, sec. 2 and 3).
--
--   lgen.kernel(rng, opts) -> text, info
--     rng: spec/rng.lua's generator.  opts (all optional): name (default
--     "F"), loops (number of top-level loops, default 1..3 at random),
--     defects (probability that a top-level loop gets a planted defect,
--     default 0.35), reverse (set of top-level loop numbers written to run
--     backwards, i = n-1 down to 0: the same kernel otherwise, for the
--     generator's own check that its clean loops are independent).
--     text: a whole C file (#include <math.h>, maybe a static by-value
--     helper, the kernel) that compiles with cc -std=c99 -Wall -Wextra
--     -Werror; every run with a binding from lgen.call is defined: every
--     access in bounds, every local written before it is read, restrict
--     pointers never overlap.  The kernel:
--       void F(int n, int m, const int *restrict map, const double *restrict x,
--              double *restrict y, z, w, u, s, double c, double *a, const double *b)
--     with only the parameters it uses, in that order; 1-3 loops over
--     i < n or i < m, each body built from private temporaries (double and
--     int), own-index writes (y[i], y[2 * i + 1], y[3 * i + k] in an inner
--     loop over k < 3), in-place updates, increments through the map,
--     additive reductions into a scalar stored after the loop, ifs on x[i],
--     calls of the helper; and, with probability opts.defects, one planted
--     defect (below).
--     info = {
--       name = "F", helper = "h_F" | nil,
--       params = {{name=, type = "int" | "double" | "int *" | "double *",
--                  const =, restrict =}, ...} in parameter order,
--       loops = {L, ...}: every loop in source order (top-level and inner), L =
--         {line = of the `for`, col = 3 (top level) or more, top = bool,
--          parent = index of the enclosing loop or false, verdict =
--          "accept" | "refuse", defect = nil | "shift" | "mapread" |
--          "minmax" | "product" | "incread" | "overlap", names = {variables
--          a refusal's reason must name}, terminal = bool (the analysis' rule:
--          doc/adjoint-loops.md), pragma = bool, classes = {[name] = class}
--          (variables whose access class is known; temporaries of
--          canonicalization and inner counters are not listed)},
--       smooth = true when the kernel is differentiable away from a set of
--          measure zero the random calls avoid (always, today: min/max only
--          in a planted defect, whose ties random values do not meet),
--       branchy = bool (ifs: each condition reads only x[i], so a call
--          whose x repeats its first n cells takes the same branches),
--       thresholds = {t, ...}: the constants the ifs compare x[i] with,
--     }
--   Planted defects (the reason must name the variable):
--     shift    y[i + 1] = 0.5 * y[i] + e: a flow carried to the next iteration;
--     mapread  t = y[map[i]] beside own-index writes of y;
--     minmax   u[map[i]] = fmax(u[map[i]], e) (or fmin, or a ?: comparison);
--     product  p = p * e, a product reduction into a scalar;
--     incread  an increment target that the loop also reads;
--     overlap  a[i] = ... b[i] ..., a and b without restrict (may overlap).
--   lgen.call(rng, info, n [, base]) -> CALL (k:run's form) with n, m =
--     (2n + 2) // 3, every array of 3n + 3 cells (map: ints in 0..m-1,
--     repeats certain; doubles in [-1, 1], x 1e-4 or more away from every
--     threshold, so central differences with steps below that are smooth);
--     base (a call of the same kernel
--     for a smaller n0, m0): x's cells i < n repeat base's x[i % m0], so
--     every iteration takes the branches of one of base's iterations.
--     The CALL also has .n, .m, .size and .by_name = {[param] = arg index}.
local M = {}

local function pick(r, t) return t[r:int(1, #t)] end

local ARRAYS = { "y", "z", "w", "u" } -- the restrict arrays a loop may write
local OWN_SUB = { own1 = "i", own2 = "2 * i + 1", own3 = "3 * i + k" }

-- {==== the state of one kernel ====}
local G = {}
G.__index = G

local function new_gen(rng, opts)
  return setmetatable({ r = rng, opts = opts, lines = {}, ind = 1, ntemp = 0, used = {},
    loops = {}, items = {}, name = opts.name or "F", branchy = false, thresholds = {} }, G)
end

function G:emit(s) self.lines[#self.lines + 1] = ("  "):rep(self.ind) .. s end
function G:fresh(prefix) self.ntemp = self.ntemp + 1 return prefix .. self.ntemp end
function G:use(p) self.used[p] = true end

-- }====

-- {==== expressions ====}

--- A subscript of a read-only array in context ctx (cells 0..3n+2).
function G:anysub(ctx)
  local r = self.r
  local t = { "i", "i + 1", "2 * i + 1", "n - 1 - i", "map[i]", "map[2 * i]" }
  if ctx.inner then t[#t + 1] = "3 * i + k"; t[#t + 1] = "map[3 * i + k]" end
  local s = pick(r, t)
  if s:find("map") then self:use("map") end
  if s:find("n - 1", 1, true) then self:use("n") end
  return s
end

--- A double leaf readable in ctx: never an increment target, an
-- accumulator, a product; an own-index array only at its subscript.
function G:leaf(ctx)
  local r = self.r
  local L = ctx.loop
  local c = {}
  c[#c + 1] = function() self:use("x") return ("x[%s]"):format(self:anysub(ctx)) end
  c[#c + 1] = function() self:use("x") return ("x[%s]"):format(self:anysub(ctx)) end
  for _, v in ipairs(ARRAYS) do
    local role = L.roles[v]
    if role == "ro" then
      c[#c + 1] = function() self:use(v) L.read[v] = true return ("%s[%s]"):format(v, self:anysub(ctx)) end
    elseif (role == "own1" or role == "own2") or (role == "own3" and ctx.inner) then
      c[#c + 1] = function() self:use(v) L.read[v] = true return ("%s[%s]"):format(v, self:ownsub(ctx, role)) end
    end
  end
  for _, t in ipairs(ctx.temps) do
    c[#c + 1] = function() t.used = true return t.name end
  end
  c[#c + 1] = function() self:use("c") return "c" end
  c[#c + 1] = function() return ("%.3f"):format(r:float(-1.5, 1.5)) end
  c[#c + 1] = function() return ("(0.125 * %s)"):format(ctx.inner and pick(r, { "i", "k" }) or "i") end
  return pick(r, c)()
end

--- The subscript of an own-index array: its form, or an int temporary holding it.
function G:ownsub(ctx, role)
  local s = OWN_SUB[role]
  if role == "own2" then
    for _, t in ipairs(ctx.itemps) do if t.value == s then return t.name end end
  end
  return s
end

local UNARY = { "sin(%s)", "cos(%s)", "atan(%s)", "tanh(%s)", "exp(0.5 * sin(%s))", "sqrt(1.0 + %s * %s)" }

--- A smooth double expression of depth at most d from the leaves leaf()
-- gives, maybe calling helper(a, b) (a name, or nil); spec/cgen.lua's too.
function M.expr(r, d, leaf, helper)
  if d <= 0 or r:int(1, 3) == 1 then return leaf() end
  local k = r:int(1, 7)
  local a = M.expr(r, d - 1, leaf, helper)
  if k <= 3 then return ("(%s %s %s)"):format(a, pick(r, { "+", "-", "*" }), M.expr(r, d - 1, leaf, helper)) end
  if k == 4 then
    local b = M.expr(r, d - 1, leaf, helper)
    return ("(%s / (1.0 + %s * %s))"):format(a, b, b)
  end
  if k == 5 and helper then return ("%s(%s, %s)"):format(helper, a, leaf()) end
  return (pick(r, UNARY)):format(a, a)
end

function G:expr(ctx, d) return M.expr(self.r, d, function() return self:leaf(ctx) end, self.helper) end

function G:rhs(ctx)
  local e = self:expr(ctx, 2)
  if self.r:int(1, 3) == 1 then return ("atan(%s)"):format(e) end
  return e
end

-- }====

-- {==== statements of a loop body ====}

--- A private double temporary, written where it is declared.
function G:temp(ctx)
  local name = self:fresh("t")
  local e
  if self.helper and self.r:int(1, 4) == 1 then -- a call statement of its own (C3)
    e = ("%s(%s, %s)"):format(self.helper, self:leaf(ctx), self:leaf(ctx))
  else
    e = self:rhs(ctx)
  end
  self:emit(("double %s = %s;"):format(name, e))
  ctx.temps[#ctx.temps + 1] = { name = name, used = false }
  ctx.loop.classes[name] = "private"
end

--- An own-index write of array v (role own1/own2/own3), maybe in place.
function G:own_write(ctx, v, extra)
  local L, r = ctx.loop, self.r
  local role = L.roles[v]
  if role == "own2" and r:int(1, 3) == 1 and #ctx.itemps == 0 then -- through an int temporary
    local j = self:fresh("j")
    self:emit(("int %s = 2 * i + 1;"):format(j))
    ctx.itemps[#ctx.itemps + 1] = { name = j, value = OWN_SUB.own2 }
    L.classes[j] = "private"
  end
  local sub = self:ownsub(ctx, role)
  local e = self:rhs(ctx)
  if extra then e = ("%s * %s"):format(extra, e) end
  if r:int(1, 3) == 1 then -- in place: z[i] = f(z[i], ...)
    e = ("%s * %s[%s] + %s"):format(pick(r, { "0.5", "0.75", "-0.25" }), v, sub, e)
    L.read[v] = true
  end
  self:use(v)
  L.written[v] = true
  self:emit(("%s[%s] = %s;"):format(v, sub, e))
end

--- An increment of array v through the map (+=, -= or v[s] = v[s] + e).
function G:increment(ctx, v, extra)
  local L, r = ctx.loop, self.r
  local subs = { "map[i]", "map[2 * i]" }
  if ctx.inner then subs[#subs + 1] = "map[3 * i + k]"; subs[#subs + 1] = "map[3 * i + k]" end
  local sub = pick(r, subs)
  if v == "s" then sub = tostring(r:int(0, 3))
  elseif r:int(1, 4) == 1 then -- through an int temporary of the iteration
    local q = self:fresh("q")
    self:emit(("int %s = %s;"):format(q, sub))
    L.classes[q] = "private"
    sub = q
  end
  if sub:find("map") or sub:match("^q") then self:use("map") end
  self:use(v)
  L.inc[v] = true
  local e = self:rhs(ctx)
  if extra then e = ("%s * %s"):format(extra, e) end
  local how = r:int(1, 3)
  if how == 1 then self:emit(("%s[%s] += %s;"):format(v, sub, e))
  elseif how == 2 then self:emit(("%s[%s] -= %s;"):format(v, sub, e))
  else self:emit(("%s[%s] = %s[%s] + %s;"):format(v, sub, v, sub, e)) end
end

--- An additive reduction into accumulator a.
function G:reduce(ctx, a, extra)
  local e = self:rhs(ctx)
  if extra then e = ("%s * %s"):format(extra, e) end
  local how = self.r:int(1, 3)
  if how == 1 then self:emit(("%s += %s;"):format(a, e))
  elseif how == 2 then self:emit(("%s -= %s;"):format(a, e))
  else self:emit(("%s = %s + %s;"):format(a, a, e)) end
  ctx.loop.incs[a] = true
end

--- The writes ctx may make: own-index arrays of its level, increments, reductions.
function G:sinks(ctx)
  local L, out = ctx.loop, {}
  for _, v in ipairs(ARRAYS) do
    local role = L.roles[v]
    if ((role == "own1" or role == "own2") and not ctx.inner) or (role == "own3" and ctx.inner) then
      out[#out + 1] = function(extra) self:own_write(ctx, v, extra) end
    elseif role == "inc" then
      out[#out + 1] = function(extra) self:increment(ctx, v, extra) end
    end
  end
  if L.roles.s == "inc" then out[#out + 1] = function(extra) self:increment(ctx, "s", extra) end end
  for _, a in ipairs(L.accs) do out[#out + 1] = function(extra) self:reduce(ctx, a, extra) end end
  return out
end

--- Runs f in a new scope of ctx; a temporary left unread is then consumed
-- by a write that multiplies its right-hand side by it (so -Wunused cannot
-- fire and every temporary matters); s[0] += t when the scope has no sink.
function G:scoped(ctx, f)
  local nt, ni = #ctx.temps, #ctx.itemps
  self.ind = self.ind + 1
  f()
  for idx = nt + 1, #ctx.temps do
    local t = ctx.temps[idx]
    if not t.used then
      t.used = true
      local sinks = self:sinks(ctx)
      if #sinks > 0 then pick(self.r, sinks)(t.name)
      else
        self:use("s"); ctx.loop.inc.s = true
        self:emit(("s[0] += %s;"):format(t.name))
      end
    end
  end
  self.ind = self.ind - 1
  for idx = #ctx.temps, nt + 1, -1 do ctx.temps[idx] = nil end
  for idx = #ctx.itemps, ni + 1, -1 do ctx.itemps[idx] = nil end
end

--- One statement of a loop body at ctx.
function G:statement(ctx)
  local r, L = self.r, ctx.loop
  local k = r:int(1, 10)
  if k <= 3 then return self:temp(ctx) end
  if k == 4 and not ctx.inner and ctx.depth < 2 then
    self.branchy = true
    self:use("x")
    local t = ("%.3f"):format(r:float(-0.5, 0.5))
    self.thresholds[#self.thresholds + 1] = tonumber(t)
    self:emit(("if (x[i] %s %s) {"):format(pick(r, { ">", "<" }), t))
    self:scoped(ctx, function() self:stmts(ctx, r:int(1, 2), ctx.depth + 1) end)
    if r:int(1, 2) == 1 then
      self:emit("} else {")
      self:scoped(ctx, function() self:stmts(ctx, r:int(1, 2), ctx.depth + 1) end)
    end
    return self:emit("}")
  end
  if k == 5 and not ctx.inner and not L.has_inner and ctx.depth == 0 then return self:inner(ctx) end
  local sinks = self:sinks(ctx)
  if #sinks == 0 then return self:temp(ctx) end
  pick(r, sinks)()
end

function G:stmts(ctx, count, depth)
  local saved = ctx.depth
  ctx.depth = depth
  for _ = 1, count do self:statement(ctx) end
  ctx.depth = saved
end

--- The inner loop over k < 3 of the current top-level loop (3 * i + k subscripts).
function G:inner(ctx)
  local L = ctx.loop
  L.has_inner = true
  local rec = { line = #self.lines + 1 + self.head_lines, col = 1 + 2 * self.ind, top = false,
    parent = L.index, verdict = "accept", names = {}, terminal = false, pragma = false, classes = {} }
  self.loops[#self.loops + 1] = rec
  self:emit("for (int k = 0; k < 3; k++) {")
  local ictx = { loop = L, inner = true, temps = ctx.temps, itemps = ctx.itemps, depth = 0 }
  self:scoped(ictx, function()
    local n = self.r:int(1, 3)
    for _ = 1, n do self:statement(ictx) end
    for _, v in ipairs(ARRAYS) do -- an own3 array is written here or nowhere
      if L.roles[v] == "own3" and not L.written[v] then self:own_write(ictx, v) end
    end
  end)
  self:emit("}")
end

-- }====

-- {==== planted defects ====}

local DEFECTS = { "shift", "mapread", "minmax", "product", "incread", "overlap" }

--- Emits the planted defect of loop L (at the body's top level).
function G:defect(ctx)
  local L, r = ctx.loop, self.r
  local d = L.defect
  if d == "shift" or d == "mapread" then
    local v = L.dvar
    self:use(v)
    L.read[v] = true
    if d == "shift" then
      L.written[v] = true
      self:emit(("%s[i + 1] = 0.5 * %s[i] + %s;"):format(v, v, self:rhs(ctx)))
    else
      self:use("map")
      local t = self:fresh("t")
      self:emit(("double %s = %s[map[i]];"):format(t, v))
      ctx.temps[#ctx.temps + 1] = { name = t, used = false }
      L.classes[t] = "private"
    end
  elseif d == "minmax" then
    local v = L.dvar
    self:use(v); self:use("map")
    local e = self:rhs(ctx)
    local how = r:int(1, 3)
    if how == 3 then
      local t = self:fresh("t")
      self:emit(("double %s = %s;"):format(t, e))
      L.classes[t] = "private"
      self:emit(("%s[map[i]] = %s[map[i]] > %s ? %s[map[i]] : %s;"):format(v, v, t, v, t))
    else
      self:emit(("%s[map[i]] = %s(%s[map[i]], %s);"):format(v, how == 1 and "fmax" or "fmin", v, e))
    end
    L.classes[v] = "minmax"
  elseif d == "product" then
    local p = L.dvar
    local e = self:rhs(ctx)
    if r:int(1, 2) == 1 then self:emit(("%s *= 1.0 + 0.25 * sin(%s);"):format(p, e))
    else self:emit(("%s = %s * (1.0 + 0.25 * sin(%s));"):format(p, p, e)) end
    L.classes[p] = "other"
  elseif d == "incread" then
    local v = L.dvar
    self:use(v); self:use("map")
    self:increment(ctx, v)
    local t = self:fresh("t")
    self:emit(("double %s = %s[%s] * %s;"):format(t, v, pick(r, { "i", "map[2 * i]", "map[i]" }), self:leaf(ctx)))
    ctx.temps[#ctx.temps + 1] = { name = t, used = false }
    L.read[v] = true
  elseif d == "overlap" then
    self:use("a"); self:use("b")
    L.written.a = true; L.read.b = true
    self:emit(("a[i] = %s * b[i] + %s;"):format(pick(r, { "0.5", "1.25", "-0.75" }), self:rhs(ctx)))
  end
end

-- }====

-- {==== loops and the kernel ====}

--- Chooses the roles of a top-level loop: each of y z w u is unused,
-- read-only, own-index (three forms) or an increment target; s maybe
-- incremented; maybe accumulators; maybe a defect.
function G:plan_loop(index)
  local r = self.r
  local L = { index = index, roles = {}, accs = {}, written = {}, read = {}, inc = {}, incs = {},
    classes = {}, has_inner = false }
  local roles = { false, "ro", "own1", "own1", "own2", "own3", "inc", "inc" }
  for _, v in ipairs(ARRAYS) do L.roles[v] = pick(r, roles) or nil end
  if r:int(1, 3) == 1 then L.roles.s = "inc" end
  local nacc = r:int(1, 10)
  for _ = 1, nacc <= 2 and 1 or nacc == 3 and 2 or 0 do L.accs[#L.accs + 1] = self:fresh("r") end
  if r:float(0, 1) < (self.opts.defects or 0.35) then
    L.defect = pick(r, DEFECTS)
    if L.defect == "overlap" and self.overlap_used then L.defect = "shift" end
    local d = L.defect
    if d == "shift" or d == "mapread" then
      L.dvar = pick(r, ARRAYS); L.roles[L.dvar] = "own1"
    elseif d == "minmax" then
      L.dvar = pick(r, ARRAYS); L.roles[L.dvar] = "mm"
    elseif d == "incread" then
      L.dvar = pick(r, ARRAYS); L.roles[L.dvar] = "inc"
    elseif d == "product" then
      L.dvar = self:fresh("p")
    elseif d == "overlap" then
      self.overlap_used = true
    end
  end
  -- at least one sink at each level
  local has = #L.accs > 0 or L.roles.s == "inc"
  for _, v in ipairs(ARRAYS) do
    if L.roles[v] == "own1" or L.roles[v] == "own2" or L.roles[v] == "inc" then has = true end
  end
  if not has then
    local v = pick(r, ARRAYS)
    if L.roles[v] == "mm" then L.accs[#L.accs + 1] = self:fresh("r") else L.roles[v] = "own1" end
  end
  return L
end

--- Emits top-level loop number `index` with the declarations before it and
-- the stores after it; records its item sets for the terminal rule.
function G:top_loop(index)
  local r = self.r
  local L = self:plan_loop(index)
  for _, a in ipairs(L.accs) do
    self:emit(("double %s = 0.0;"):format(a))
    self.items[#self.items + 1] = { R = {}, W = { [a] = true }, I = {} }
  end
  if L.defect == "product" then
    self:emit(("double %s = 1.0;"):format(L.dvar))
    self.items[#self.items + 1] = { R = {}, W = { [L.dvar] = true }, I = {} }
  end
  local pragma = r:int(1, 3) == 1
  if pragma then self:emit("#pragma cgwb independent") end
  local bound = r:int(1, 3) == 1 and "m" or "n"
  self:use(bound)
  local rec = { line = #self.lines + 1 + self.head_lines, col = 3, top = true, parent = false,
    verdict = L.defect and "refuse" or "accept", defect = L.defect, names = {}, pragma = pragma,
    classes = L.classes }
  if L.defect == "overlap" then rec.names = { "a", "b" }
  elseif L.defect then rec.names = { L.dvar } end
  self.loops[#self.loops + 1] = rec
  L.index = #self.loops
  if self.opts.reverse and self.opts.reverse[index] then
    self:emit(("for (int i = %s - 1; i >= 0; i--) {"):format(bound))
  else
    self:emit(("for (int i = 0; i < %s; i++) {"):format(bound))
  end
  local ctx = { loop = L, inner = false, temps = {}, itemps = {}, depth = 0 }
  local nst = r:int(2, 5)
  local at = L.defect and r:int(0, nst) or -1
  self:scoped(ctx, function()
    for s = 0, nst do
      if s == at then self:defect(ctx) end
      if s < nst then self:statement(ctx) end
    end
    -- every role used: an own array written, an increment made, an accumulator fed
    for _, v in ipairs(ARRAYS) do
      local role = L.roles[v]
      if (role == "own1" or role == "own2") and not L.written[v] then self:own_write(ctx, v) end
      if role == "own3" and not L.written[v] then self:inner(ctx) end
      if role == "inc" and not L.inc[v] then self:increment(ctx, v) end
    end
    for _, a in ipairs(L.accs) do if not L.incs[a] then self:reduce(ctx, a) end end
  end)
  self:emit("}")
  self:after_loop(L, rec)
end

--- The classes the analysis must find, the loop's item sets, the stores after it.
function G:after_loop(L, rec)
  local r = self.r
  local R, W, I = { x = true, c = true, map = true }, {}, {}
  for _, v in ipairs(ARRAYS) do
    local role = L.roles[v]
    if L.written[v] then
      W[v] = true
      if role ~= "mm" and not (L.defect and L.dvar == v) then L.classes[v] = "own-index write" end
      if L.read[v] then R[v] = true end
    elseif L.inc[v] then
      I[v] = true
      if L.read[v] then R[v] = true; W[v] = true else L.classes[v] = "increment" end
    elseif role == "mm" then
      W[v] = true; R[v] = true
    elseif L.read[v] then
      R[v] = true; L.classes[v] = "read-only"
    end
  end
  if L.inc.s then I.s = true; L.classes.s = "increment" end
  if L.written.a then W.a = true; R.b = true end
  for _, a in ipairs(L.accs) do I[a] = true; L.classes[a] = "reduction" end
  if L.defect == "product" then W[L.dvar] = true; R[L.dvar] = true end
  self.items[#self.items + 1] = { R = R, W = W, I = I, loop = rec }
  -- the stores of the accumulators, and maybe a statement touching an array
  for _, a in ipairs(L.accs) do
    local c = r:int(0, 3)
    self:use("s")
    self:emit(("s[%d] += %s;"):format(c, a))
    self.items[#self.items + 1] = { R = { [a] = true }, W = {}, I = { s = true } }
  end
  if L.defect == "product" then
    self:use("s")
    self:emit(("s[%d] += %s;"):format(r:int(0, 3), L.dvar))
    self.items[#self.items + 1] = { R = { [L.dvar] = true }, W = {}, I = { s = true } }
  end
  local k = r:int(1, 8)
  local v = pick(r, ARRAYS)
  if k == 1 then
    self:use(v); self:use("c")
    self:emit(("%s[0] = 0.5 * %s[0] + c;"):format(v, v))
    self.items[#self.items + 1] = { R = { [v] = true, c = true }, W = { [v] = true }, I = {} }
  elseif k == 2 then
    self:use(v); self:use("c")
    self:emit(("%s[1] += 0.25 * c;"):format(v))
    self.items[#self.items + 1] = { R = { c = true }, W = {}, I = { [v] = true } }
  elseif k == 3 then
    self:use(v); self:use("s")
    self:emit(("s[3] += 0.5 * %s[2];"):format(v))
    self.items[#self.items + 1] = { R = { [v] = true }, W = {}, I = { s = true } }
  elseif k == 4 then -- its adjoint needs v[1]'s value: a later dry-run loop writing v must snapshot it
    self:use(v); self:use("s")
    self:emit(("s[2] += %s[1] * %s[1];"):format(v, v))
    self.items[#self.items + 1] = { R = { [v] = true }, W = {}, I = { s = true } }
  end
end

--- The terminal rule (doc/adjoint-loops.md) on the recorded item sets: an
-- accepted top-level loop none of whose written variables a later item
-- touches (unless both only increment it), none of whose read variables a
-- later item writes or increments.
local function terminal(items, at)
  local L = items[at]
  if L.loop.verdict ~= "accept" then return false end
  for j = at + 1, #items do
    local S = items[j]
    for v in pairs(L.W) do
      if S.R[v] or S.W[v] or S.I[v] then return false end
    end
    for v in pairs(L.I) do
      if S.R[v] or S.W[v] then return false end
    end
    for v in pairs(L.R) do
      if S.W[v] or S.I[v] then return false end
    end
  end
  return true
end

local PARAMS = {
  { name = "n", type = "int" }, { name = "m", type = "int" },
  { name = "map", type = "int *", const = true, restrict = true },
  { name = "x", type = "double *", const = true, restrict = true },
  { name = "y", type = "double *", restrict = true }, { name = "z", type = "double *", restrict = true },
  { name = "w", type = "double *", restrict = true }, { name = "u", type = "double *", restrict = true },
  { name = "s", type = "double *", restrict = true },
  { name = "c", type = "double" },
  { name = "a", type = "double *" }, { name = "b", type = "double *", const = true },
}

local function decl(p)
  if p.type == "int" or p.type == "double" then return p.type .. " " .. p.name end
  return ("%s%s%s%s"):format(p.const and "const " or "", p.type, p.restrict and "restrict " or "", p.name)
end

function M.kernel(rng, opts)
  opts = opts or {}
  local g = new_gen(rng, opts)
  g.helper = rng:int(1, 2) == 1 and ("h_" .. g.name) or nil
  g.head_lines = g.helper and 7 or 3 -- #include, blank, [helper: 4 lines], the signature
  local nl = opts.loops or rng:int(1, 3)
  for i = 1, nl do g:top_loop(i) end
  for at, it in ipairs(g.items) do
    if it.loop then it.loop.terminal = terminal(g.items, at) end
  end
  local params = {}
  for _, p in ipairs(PARAMS) do
    if g.used[p.name] then params[#params + 1] = { name = p.name, type = p.type, const = p.const or false,
      restrict = p.restrict or false } end
  end
  local head = { "#include <math.h>", "" }
  local helper_used = false
  for _, l in ipairs(g.lines) do if g.helper and l:find(g.helper, 1, true) then helper_used = true end end
  if g.helper then
    head[#head + 1] = ("static double %s(double a, double b) {"):format(g.helper)
    head[#head + 1] = "  return a * cos(b) + 0.5 * sin(a * b);"
    head[#head + 1] = "}"
    head[#head + 1] = ""
  end
  local sig = {}
  for i, p in ipairs(params) do sig[i] = decl(p) end
  head[#head + 1] = ("void %s(%s) {"):format(g.name, table.concat(sig, ", "))
  for _, l in ipairs(g.lines) do head[#head + 1] = l end
  head[#head + 1] = "}"
  local text = table.concat(head, "\n") .. "\n"
  if g.helper and not helper_used then -- an unused static function is a warning: blank it out
    text = text:gsub("static double " .. g.helper .. "%(double a, double b%) {\n[^\n]*\n}\n",
      "/* no helper */\n/*   */\n/*   */\n", 1)
  end
  local lines = {}
  for l in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  for _, L in ipairs(g.loops) do
    assert(lines[L.line] and lines[L.line]:find("for (int ", 1, true), "lgen: a loop's line is off")
  end
  return text, { name = g.name, helper = helper_used and g.helper or nil, params = params, loops = g.loops,
    smooth = true, branchy = g.branchy, thresholds = g.thresholds }
end

--- A binding for a kernel of lgen.kernel (see the top of the file).
function M.call(rng, info, n, base)
  local m = (2 * n + 2) // 3
  local size = 3 * n + 3
  local arrays, args, by_name = {}, {}, {}
  for i, p in ipairs(info.params) do
    by_name[p.name] = i
    if p.type == "int" then args[i] = { int = p.name == "n" and n or m }
    elseif p.type == "double" then args[i] = { double = rng:float(-1, 1) }
    else
      local vals = {}
      for j = 1, size do
        if p.type == "int *" then vals[j] = rng:int(0, m - 1) else vals[j] = rng:float(-1, 1) end
      end
      if p.name == "x" then -- 1e-4 or more from every threshold of an if: central differences see no jump
        for j = 1, size do
          for _, t in ipairs(info.thresholds) do
            if math.abs(vals[j] - t) < 1e-4 then vals[j] = t + (vals[j] < t and -2e-4 or 2e-4) end
          end
        end
      end
      if p.name == "x" and base then
        local bx = base.arrays[base.args[base.by_name.x].array].values
        for j = 1, n do vals[j] = bx[(j - 1) % base.m + 1] end -- cells every loop of base reads (m <= n)
      end
      arrays[#arrays + 1] = { name = p.name, type = p.type == "int *" and "int" or "double", values = vals }
      args[i] = { array = #arrays, offset = 0 }
    end
  end
  return { arrays = arrays, args = args, n = n, m = m, size = size, by_name = by_name }
end

return M
