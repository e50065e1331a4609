--[[--
cgwb.trace: record a tape from a Lua function by operator overloading.

  local trace = require "cgwb.trace"
  local tape, info = trace.record(function(x, T)
    local t = T.var()          -- assign_d_zero (ADOL-C's `adouble t;`)
    local z = T.var(3.0)       -- assign_d; T.var(active) records assign_a
    t:assign(x[1] + x[2])      -- plus_a_a into a temporary, then assign_a t <- temp
    t:add(z)                   -- eq_plus_a (eq_plus_d for a number); also sub mul div
    if t > 2 then ... end      -- min_a_d d t 2.0, then gt_zero d or le_zero d
    return { T.exp(t), t }     -- the dependents in order (a single active is accepted)
  end, { 1.0, 2.0 })           -- the recording point x0; returns a cgwb.Tape

Operators on actives: + - * / ^ unary minus, < <= > >= with numbers or actives.
Mixed with numbers they use Bischof & Hu's names: x+c plus_a_d, c+x plus_d_a,
x-c min_a_d, c-x min_d_a, x*c mult_a_d, c*x mult_d_a, x/c div_a_d, c/x div_d_a.
x^c is pow_op; c^x and x^y are exp(x*log(c)) and exp(y*log(x)) as ordinary ops.
T.exp log sqrt sin cos tan atan asin acos abs pow(a, b) eq(a, b) ne(a, b) and
T.value(a) / a:value(); on plain numbers the functions fall back to math.*.
Equality cannot be overloaded against numbers in Lua, hence T.eq / T.ne.

Values.  Every operation computes its value in Lua doubles exactly as the C
forward evaluator does (same operation, same operand order), so
tape:forward() at x0 reproduces the traced values bit for bit.  Two functions
have no bit-exact Lua counterpart: math.atan(y) is C's atan2(y, 1) and x^2 is
x*x in Lua, while the core uses atan() and pow(); the tracer evaluates those
two through a tiny cgwb.core tape (so a value is exactly what the core
computes) and falls back to Lua's math only when cgwb.core is absent.

Locations.  Records are first kept with virtual locations: a fresh one for
each temporary, a stable one for each variable (T.var, the independents, any
active updated by assign/add/...).  After the function returns, each virtual
location is live from its first write to its last access, independents until
the end of the assign_ind block; virtual locations are then mapped to
physical slots, lowest free slot first, outputs allocated before the record's
dying inputs are released (so a record never writes a slot it reads, except
the in-place eq_* records).  When slots die, `death_not lo hi` records (one
per contiguous range) follow the record of their last access, as in Bischof & Hu 1991
section 1.2; none is written after the last record that writes a location.

opts (third argument of record):
  opts.sink  object with :push(op, locs..., vals...) and :set_x0(x) that
             receives the records instead of a new cgwb.Tape (for tests and
             for tools that want the records in Lua); record returns it.
  opts.raw   true: emit the virtual locations (0-based) and no death notices.
  opts.options  the table f receives as third argument and as T.opts.
The second result of record is a table: records, operations, death_notices,
max_live (physical slots used), virtual (virtual locations), n, m, branches,
y (the dependents' values at x0).

trace.run_script(path, opts) loads a script returning
{ name = ..., options = {defaults}, x0 = array or function(options),
  f = function(x, T, options) }, merges options (script defaults, then
opts.options, then the other keys of opts: the CLI's --set NAME=VALUE) and
records it: tape, info (with info.name) or nil, "file:line: message".

Messages.  Every error names the user's file and line, never one of this
file: the innermost frame outside it (see user_where); what f returns and a
misuse in f's own tail call name the line where f is defined.
doc/tracer.md is the manual.
@module cgwb.trace
]]

local M = {}

local mtype = math.type
local sort = table.sort
local getinfo = debug.getinfo

-- {==== positions in the user's code ====}

-- Errors name the user's file and line, never a line of this file: an
-- operator misused deep inside T.exp or a comparison is reported where the
-- user's code used it.  Only error paths walk the stack.

local SOURCE = getinfo(1, "S").source -- this file, as the frames name it
local SHORT = getinfo(1, "S").short_src -- as Lua's own messages name it
-- The functions trace.record is running, innermost last: the position of a
-- misuse in `return T.exp(a)` of f itself, whose frame the tail call dropped.
local running = {}
local record -- the body of trace.record (below), whose frame user_where recognises

-- "file:line: " of a frame's current line (the full path of a file chunk).
local function frame_where(info)
  local src = info.source:sub(1, 1) == "@" and info.source:sub(2) or info.short_src
  return src .. ":" .. info.currentline .. ": "
end

-- "file:line: " of where function f is defined (for what f returned).
local function def_where(f)
  local info = getinfo(f, "S")
  local src = info.source:sub(1, 1) == "@" and info.source:sub(2) or info.short_src
  return src .. ":" .. info.linedefined .. ": "
end

-- "file:line: " of the innermost Lua function outside this file from stack
-- level `level` up (the user's code), or "" when there is none.  When a
-- tail call dropped a frame and record's frame comes next, the dropped frame
-- was the function being recorded (`return T.exp(a)`): its definition is named.
local function user_where(level)
  local lost = false -- the caller of the last frame walked is gone
  while true do
    local info = getinfo(level + 1, "Sltf")
    if not info then return "" end
    if info.what ~= "C" then
      if info.source ~= SOURCE and info.currentline > 0 then return frame_where(info) end
      if info.func == record and lost and #running > 0 then return def_where(running[#running]) end
      lost = info.istailcall
    else
      lost = lost or info.istailcall
    end
    level = level + 1
  end
end

-- Raises "file:line: cgwb.trace: msg" at the user's code that caused it.
local function raise(msg)
  error(user_where(2) .. "cgwb.trace: " .. msg, 0)
end

-- A message placed at the user's code: one without a position, or with a
-- position in this file (Lua's own errors raised here), gets the user's.
local function place(e, level)
  local src = e:match("^([^\n]-):%d+: ")
  if src and src ~= SHORT and src ~= SOURCE:sub(2) then return e end
  if src then e = e:gsub("^[^\n]-:%d+: ", "", 1) end
  return user_where(level + 1) .. e
end

-- xpcall handler for f under trace.record: string messages are placed at the
-- user's code; other error values pass as they are.
local function position_strings(e)
  if type(e) ~= "string" then return e end
  return place(e, 2)
end

-- xpcall handler for a script's code (run_script returns a message): as
-- position_strings, and another value is described as lua.c does, so the
-- message names the position and stays deterministic.
local function position_all(e)
  if type(e) ~= "string" then
    local mt = getmetatable(e)
    if not (mt and mt.__tostring) then
      return user_where(2) .. "(error object is a " .. type(e) .. " value)"
    end
    e = tostring(e)
  end
  return place(e, 2)
end

-- {==== opcode layout (mirrors csrc/tape/cg_ops.h for the ops emitted) ====}

-- [name] = { nloc, nval, nout } in canonical order: outputs, inputs, constants.
local OPS = {
  death_not = { 2, 0, 0 }, assign_ind = { 1, 0, 1 }, assign_dep = { 1, 0, 0 },
  assign_a = { 2, 0, 1 }, assign_d = { 1, 1, 1 }, assign_d_zero = { 1, 0, 1 },
  eq_plus_d = { 1, 1, 1 }, eq_plus_a = { 2, 0, 1 }, eq_min_d = { 1, 1, 1 },
  eq_min_a = { 2, 0, 1 }, eq_mult_d = { 1, 1, 1 }, eq_mult_a = { 2, 0, 1 },
  eq_div_d = { 1, 1, 1 }, eq_div_a = { 2, 0, 1 },
  plus_a_a = { 3, 0, 1 }, plus_a_d = { 2, 1, 1 }, plus_d_a = { 2, 1, 1 },
  min_a_a = { 3, 0, 1 }, min_a_d = { 2, 1, 1 }, min_d_a = { 2, 1, 1 },
  mult_a_a = { 3, 0, 1 }, mult_a_d = { 2, 1, 1 }, mult_d_a = { 2, 1, 1 },
  div_a_a = { 3, 0, 1 }, div_a_d = { 2, 1, 1 }, div_d_a = { 2, 1, 1 },
  neg_sign_a = { 2, 0, 1 }, exp_op = { 2, 0, 1 }, log_op = { 2, 0, 1 },
  sqrt_op = { 2, 0, 1 }, tan_op = { 2, 0, 1 }, pow_op = { 2, 1, 1 },
  sin_op = { 3, 0, 2 }, cos_op = { 3, 0, 2 }, atan_op = { 3, 0, 1 },
  asin_op = { 3, 0, 1 }, acos_op = { 3, 0, 1 }, abs_val = { 2, 1, 1 },
  eq_zero = { 1, 0, 0 }, neq_zero = { 1, 0, 0 }, le_zero = { 1, 0, 0 },
  gt_zero = { 1, 0, 0 }, ge_zero = { 1, 0, 0 }, lt_zero = { 1, 0, 0 },
}
M.OPS = OPS

-- {==== bit-exact elementary functions ====}

local core_mod -- false once require failed, the module once loaded

local function get_core()
  if core_mod == nil then
    local ok, mod = pcall(require, "cgwb.core")
    core_mod = ok and mod or false
  end
  return core_mod or nil
end

-- A one-input tape of the core, evaluated at a: f(a) as the core computes it.
local function core_unary(build)
  local core = get_core()
  if not core then return nil end
  local tape = core.tape_new()
  build(tape)
  tape:set_x0({ 0.0 })
  return function(a) return (tape:forward({ a }))[1] end
end

local exact = {} -- name -> function, built on first use

local function exact_fn(name, build, fallback)
  local f = exact[name]
  if f == nil then
    f = core_unary(build) or fallback
    exact[name] = f
  end
  return f
end

-- C atan(a): Lua's math.atan(a) is atan2(a, 1), which differs in the last bit.
local function c_atan(a)
  return exact_fn("atan", function(t)
    t:push("assign_ind", 0); t:push("assign_d", 1, 1.0)
    t:push("atan_op", 2, 0, 1); t:push("assign_dep", 2)
  end, math.atan)(a)
end

-- C pow(a, 2): Lua's a^2 is a*a, which differs from glibc's pow in the last bit.
local function c_pow2(a)
  return exact_fn("pow2", function(t)
    t:push("assign_ind", 0); t:push("pow_op", 1, 0, 2.0); t:push("assign_dep", 1)
  end, function(v) return v * v end)(a)
end

local function c_pow(a, c)
  if c == 2 then return c_pow2(a) end
  return a ^ c -- luai_numpow calls C pow() for every other exponent
end

--- True when atan and pow(., 2) come from the core (bit-exact), false on fallback.
function M.exact()
  return get_core() ~= nil
end

-- {==== the recorder ====}

-- Recorder invariants: ops[1..n] are opcode names; their virtual locations
-- (1-based ids) are in L and constants in V, consumed in record order with
-- the counts of OPS.  last[v] is the index of the last record touching v;
-- every v is first touched as an output.  nv counts virtual locations.
local function new_recorder()
  return { ops = {}, L = {}, V = {}, nL = 0, nV = 0, n = 0, nv = 0,
           last = {}, lastw = 0, nind = 0, branches = 0, open = true }
end

local Active = {}   -- metatable of active numbers
local methods = {}  -- their methods (assign, add, ...)
Active.__index = methods

local function is_active(a) return getmetatable(a) == Active end

-- Lua integers become doubles; -0.0 keeps its sign.
local function tofloat(c)
  if mtype(c) == "integer" then return c + 0.0 end
  return c
end

-- Appends one record; l1..l3 are virtual ids (as many as OPS says), c a constant.
local function emit(R, op, l1, l2, l3, c)
  local info = OPS[op]
  local k = R.n + 1
  R.n = k
  R.ops[k] = op
  local L, last, nL = R.L, R.last, R.nL
  local nloc = info[1]
  L[nL + 1] = l1; last[l1] = k
  if nloc >= 2 then L[nL + 2] = l2; last[l2] = k end
  if nloc >= 3 then L[nL + 3] = l3; last[l3] = k end
  R.nL = nL + nloc
  if info[2] == 1 then R.nV = R.nV + 1; R.V[R.nV] = c end
  if info[3] > 0 then R.lastw = k end
end

local function new_active(R, val)
  local v = R.nv + 1
  R.nv = v
  return setmetatable({ id = v, val = val, R = R }, Active)
end

-- The recorder of an active, checking it is still recording.
local function rec_of(a)
  local R = a.R
  if not R.open then raise("active used after its recording ended") end
  return R
end

local function check_number(c, what)
  if type(c) ~= "number" then
    raise(what .. " expects an active or a number, got " .. type(c))
  end
  return tofloat(c)
end

-- Both actives of a binary operation must belong to one recording.
local function rec_of2(a, b)
  local R = rec_of(a)
  if rec_of(b) ~= R then raise("actives of two recordings mixed") end
  return R
end

-- {==== arithmetic ====}

-- A binary operator: names for active/active, active/const, const/active, and
-- the value function f(left, right) applied in the operator's own order.
local function binop(aa, ad, da, f, what)
  return function(a, b)
    if is_active(a) then
      if is_active(b) then
        local R = rec_of2(a, b)
        local r = new_active(R, f(a.val, b.val))
        emit(R, aa, r.id, a.id, b.id)
        return r
      end
      local R, c = rec_of(a), check_number(b, what)
      local r = new_active(R, f(a.val, c))
      emit(R, ad, r.id, a.id, nil, c)
      return r
    end
    local R, c = rec_of(b), check_number(a, what)
    local r = new_active(R, f(c, b.val))
    emit(R, da, r.id, b.id, nil, c)
    return r
  end
end

Active.__add = binop("plus_a_a", "plus_a_d", "plus_d_a", function(p, q) return p + q end, "+")
Active.__sub = binop("min_a_a", "min_a_d", "min_d_a", function(p, q) return p - q end, "-")
Active.__mul = binop("mult_a_a", "mult_a_d", "mult_d_a", function(p, q) return p * q end, "*")
Active.__div = binop("div_a_a", "div_a_d", "div_d_a", function(p, q) return p / q end, "/")

local function unary(op, f)
  return function(a)
    local R = rec_of(a)
    local r = new_active(R, f(a.val))
    emit(R, op, r.id, a.id)
    return r
  end
end

Active.__unm = unary("neg_sign_a", function(p) return -p end)
local exp_a = unary("exp_op", math.exp)
local log_a = unary("log_op", math.log)
local sqrt_a = unary("sqrt_op", math.sqrt)
local tan_a = unary("tan_op", math.tan)

-- sin_op s c a / cos_op c s a: two outputs like ADOL-C 2.x; the second one is
-- a fresh location nobody reads, so it dies right after the record.
local function sincos(op, f, g)
  return function(a)
    local R = rec_of(a)
    local r = new_active(R, f(a.val))
    local aux = new_active(R, g(a.val))
    emit(R, op, r.id, aux.id, a.id)
    return r
  end
end
local sin_a = sincos("sin_op", math.sin, math.cos)
local cos_a = sincos("cos_op", math.cos, math.sin)

-- atan/asin/acos as ADOL-C records them: the derivative computed by ordinary
-- ops into a location that the op reads as its extra input.
local function quad(op, f, deriv)
  return function(a)
    local d = deriv(a)
    local R = rec_of(a)
    local r = new_active(R, f(a.val))
    emit(R, op, r.id, a.id, d.id)
    return r
  end
end
local atan_a = quad("atan_op", c_atan, function(a) return 1.0 / (1.0 + a * a) end)
local asin_a = quad("asin_op", math.asin, function(a) return 1.0 / sqrt_a(1.0 - a * a) end)
local acos_a = quad("acos_op", math.acos, function(a) return -1.0 / sqrt_a(1.0 - a * a) end)

-- abs_val r a coval: coval = 1 when a >= 0 at taping (fabs(a) == a), else 0.
local function abs_a(a)
  local R = rec_of(a)
  local v = a.val
  local r = new_active(R, math.abs(v))
  emit(R, "abs_val", r.id, a.id, nil, (math.abs(v) == v) and 1.0 or 0.0)
  return r
end

-- a^c is pow_op; an active exponent goes through exp(b*log(a)).
local function pow_any(a, b)
  if is_active(a) then
    if is_active(b) then return exp_a(b * log_a(a)) end
    local R, c = rec_of(a), check_number(b, "^")
    local r = new_active(R, c_pow(a.val, c))
    emit(R, "pow_op", r.id, a.id, nil, c)
    return r
  end
  local c = check_number(a, "^")
  return exp_a(b * math.log(c))
end
Active.__pow = pow_any

local function unsupported(what)
  return function() raise(what .. " is not supported on actives") end
end
Active.__idiv = unsupported("//")
Active.__mod = unsupported("%")
Active.__concat = unsupported("..")
Active.__len = unsupported("#")  -- would be 0: an active is a table
Active.__band, Active.__bor, Active.__bxor = unsupported("&"), unsupported("|"), unsupported("~")
Active.__shl, Active.__shr, Active.__bnot = unsupported("<<"), unsupported(">>"), unsupported("~")

function Active.__tostring(a)
  return string.format("active(%.17g)", a.val)
end

-- {==== comparisons ====}

-- Records d = p - q and the branch record that holds for d at taping time;
-- returns d's value.  sign tests: "lt" (d < 0), "le" (d <= 0), "eq" (d == 0).
local BRANCH = { lt = { "lt_zero", "ge_zero" }, le = { "le_zero", "gt_zero" },
                 gt = { "gt_zero", "le_zero" }, ge = { "ge_zero", "lt_zero" },
                 eq = { "eq_zero", "neq_zero" } }
local TEST = {
  lt = function(d) return d < 0 end, le = function(d) return d <= 0 end,
  gt = function(d) return d > 0 end, ge = function(d) return d >= 0 end,
  eq = function(d) return d == 0 end,
}

local function branch(d, test)
  local R = rec_of(d)
  local holds = TEST[test](d.val)
  emit(R, BRANCH[test][holds and 1 or 2], d.id)
  R.branches = R.branches + 1
  return holds
end

-- p < q: an active left operand gives d = p - q < 0; a number on the left
-- (Lua turns t > 2 into 2 < t) gives d = t - 2 > 0, the form ADOL-C records.
-- The operand of a comparison, checked so a message names the comparison.
local function compared(c, what)
  if is_active(c) then return c end
  return check_number(c, what)
end

function Active.__lt(p, q)
  if is_active(p) then return branch(p - compared(q, "<"), "lt") end
  return branch(q - compared(p, "<"), "gt")
end

function Active.__le(p, q)
  if is_active(p) then return branch(p - compared(q, "<="), "le") end
  return branch(q - compared(p, "<="), "ge")
end

local function eq_any(p, q)
  if not is_active(p) then
    if not is_active(q) then return p == q end
    p, q = q, p
  end
  return branch(p - compared(q, "T.eq"), "eq")
end

-- {==== variables: in-place updates ====}

-- t:assign(e): assign_a t e, or assign_d t c.  Returns t.
function methods.assign(t, e)
  local R = rec_of(t)
  if is_active(e) then
    rec_of2(t, e)
    t.val = e.val
    emit(R, "assign_a", t.id, e.id)
  else
    local c = check_number(e, "assign")
    t.val = c
    emit(R, "assign_d", t.id, nil, nil, c)
  end
  return t
end

-- An in-place update t op= e (eq_*_a / eq_*_d).
local function inplace(opa, opd, f, what)
  return function(t, e)
    local R = rec_of(t)
    if is_active(e) then
      rec_of2(t, e)
      t.val = f(t.val, e.val)
      emit(R, opa, t.id, e.id)
    else
      local c = check_number(e, what)
      t.val = f(t.val, c)
      emit(R, opd, t.id, nil, nil, c)
    end
    return t
  end
end

methods.add = inplace("eq_plus_a", "eq_plus_d", function(p, q) return p + q end, "add")
methods.sub = inplace("eq_min_a", "eq_min_d", function(p, q) return p - q end, "sub")
methods.mul = inplace("eq_mult_a", "eq_mult_d", function(p, q) return p * q end, "mul")
methods.div = inplace("eq_div_a", "eq_div_d", function(p, q) return p / q end, "div")

function methods.value(t) return t.val end

-- {==== the helper table T ====}

-- Applies an active version to actives and math's version to numbers.
local function lift(fa, fn, name)
  return function(a)
    if is_active(a) then return fa(a) end
    return fn(check_number(a, name))
  end
end

local function make_T(R, options)
  local T = { opts = options }
  -- T.var(): assign_d_zero; T.var(c): assign_d; T.var(active): assign_a.
  function T.var(init)
    if init == nil then
      local t = new_active(R, 0.0)
      emit(R, "assign_d_zero", t.id)
      return t
    end
    if is_active(init) and rec_of(init) ~= R then
      raise("T.var of an active from another recording")
    end
    local t = new_active(R, 0.0)
    return methods.assign(t, init)
  end
  function T.value(a)
    if is_active(a) then return a.val end
    return a
  end
  T.is_active = is_active
  T.exp, T.log = lift(exp_a, math.exp, "T.exp"), lift(log_a, math.log, "T.log")
  T.sqrt, T.sin = lift(sqrt_a, math.sqrt, "T.sqrt"), lift(sin_a, math.sin, "T.sin")
  T.cos, T.tan = lift(cos_a, math.cos, "T.cos"), lift(tan_a, math.tan, "T.tan")
  T.atan, T.asin = lift(atan_a, math.atan, "T.atan"), lift(asin_a, math.asin, "T.asin")
  T.acos, T.abs = lift(acos_a, math.acos, "T.acos"), lift(abs_a, math.abs, "T.abs")
  function T.pow(a, b)
    if is_active(a) or is_active(b) then return pow_any(a, b) end
    return check_number(a, "T.pow") ^ check_number(b, "T.pow")
  end
  T.eq = eq_any
  function T.ne(p, q) return not eq_any(p, q) end
  return T
end

-- {==== slot mapping and emission ====}

-- A binary min-heap of free slot numbers: lowest free slot first.
local function heap_push(h, x)
  local i = #h + 1
  h[i] = x
  while i > 1 do
    local p = i // 2
    if h[p] <= x then break end
    h[i], h[p] = h[p], x
    i = p
  end
end

local function heap_pop(h)
  local n = #h
  local top, x = h[1], h[n]
  h[n] = nil
  n = n - 1
  local i = 1
  while true do
    local c = 2 * i
    if c > n then break end
    if c < n and h[c + 1] < h[c] then c = c + 1 end
    if h[c] >= x then break end
    h[i] = h[c]
    i = c
  end
  if n >= 1 then h[i] = x end
  return top
end

-- Pushes one record to the sink with the right number of arguments.
local function push(sink, op, a, nloc, c, nval)
  if nval == 1 then
    if nloc == 1 then return sink:push(op, a[1], c) end
    if nloc == 2 then return sink:push(op, a[1], a[2], c) end
    return sink:push(op, a[1], a[2], a[3], c)
  end
  if nloc == 1 then return sink:push(op, a[1]) end
  if nloc == 2 then return sink:push(op, a[1], a[2]) end
  return sink:push(op, a[1], a[2], a[3])
end

-- Emits death_not records for the sorted slots in dead[1..n], one per
-- contiguous range; returns how many were emitted.
local function push_deaths(sink, dead, n)
  sort(dead)
  local count, lo = 0, dead[1]
  for i = 2, n + 1 do
    local s = dead[i]
    if s ~= dead[i - 1] + 1 then
      sink:push("death_not", lo, dead[i - 1])
      count = count + 1
      lo = s
    end
  end
  return count
end

-- Slot allocator state: slot[v] is v's physical slot (false once freed),
-- free a min-heap of released slots, n the number of slots ever used.
local function new_slots() return { slot = {}, free = {}, n = 0 } end

-- Gives each output of a record its slot on its first write (lowest free first).
local function alloc_outputs(S, L, li, nout)
  local slot, free = S.slot, S.free
  for j = 1, nout do
    local v = L[li + j]
    if not slot[v] then
      if #free > 0 then slot[v] = heap_pop(free) else slot[v] = S.n; S.n = S.n + 1 end
    end
  end
end

-- Releases the slots of the locations whose last access is record k, into
-- dead[1..]; returns how many.  Runs after the record is pushed, so no
-- output of record k takes a slot record k reads.
local function release(S, last, L, li, nloc, k, dead)
  local slot, nd = S.slot, 0
  for j = 1, nloc do
    local v = L[li + j]
    if last[v] == k and slot[v] then -- false: already released by this record
      nd = nd + 1
      dead[nd] = slot[v]
      heap_push(S.free, slot[v])
      slot[v] = false
    end
  end
  for j = nd + 1, #dead do dead[j] = nil end
  return nd
end

-- Walks the records, maps virtual locations to slots and pushes everything.
-- Returns the number of death notices and the number of slots used.
local function flush(R, sink, raw)
  local ops, L, V, last = R.ops, R.L, R.V, R.last
  local S, ndeath, li, vi = new_slots(), 0, 0, 0
  local a, dead = {}, {}
  for k = 1, R.n do
    local op = ops[k]
    local nloc, nval, nout = OPS[op][1], OPS[op][2], OPS[op][3]
    local c = nval == 1 and V[vi + 1] or nil
    vi = vi + nval
    if raw then
      for j = 1, nloc do a[j] = L[li + j] - 1 end
      push(sink, op, a, nloc, c, nval)
    else
      alloc_outputs(S, L, li, nout)
      for j = 1, nloc do a[j] = S.slot[L[li + j]] end
      push(sink, op, a, nloc, c, nval)
      local nd = release(S, last, L, li, nloc, k, dead)
      if nd > 0 and k < R.lastw then -- after the last write a notice frees nothing useful
        ndeath = ndeath + push_deaths(sink, dead, nd)
      end
    end
    li = li + nloc
  end
  return ndeath, raw and R.nv or S.n
end

-- {==== recording ====}

-- Records the assign_ind block: x[i] are variables holding x0[i] (checked).
local function independents(R, x0)
  local x = {}
  for i = 1, #x0 do
    x[i] = new_active(R, tofloat(x0[i]))
    emit(R, "assign_ind", x[i].id)
  end
  R.nind = #x0
  return x
end

-- Records assign_dep for each dependent (numbers become assign_d temporaries).
-- What f returned is wrong at f's return, which no frame shows any more:
-- the messages name the line where f is defined.
local function dependents(R, ys, f)
  if is_active(ys) or type(ys) == "number" then ys = { ys } end
  if type(ys) ~= "table" or #ys == 0 then
    error(def_where(f) .. "cgwb.trace: the function defined here must return an active or "
          .. "an array of them, got " .. (type(ys) == "table" and "an empty table" or type(ys)), 0)
  end
  local y = {}
  for i = 1, #ys do
    local d = ys[i]
    if not is_active(d) then
      if type(d) ~= "number" then
        error(def_where(f) .. "cgwb.trace: dependent " .. i .. " returned by the function defined "
              .. "here is a " .. type(d) .. ", not an active or a number", 0)
      end
      local c = tofloat(d)
      d = new_active(R, c)
      emit(R, "assign_d", d.id, nil, nil, c)
    elseif d.R ~= R then
      error(def_where(f) .. "cgwb.trace: dependent " .. i .. " returned by the function defined "
            .. "here belongs to another recording", 0)
    end
    y[i] = d.val
    emit(R, "assign_dep", d.id)
  end
  return y
end

-- An independent nobody reads still occupies its slot until the block ends,
-- so the independents get slots 0..n-1 in order.
local function extend_independents(R)
  local last = R.last
  for v = 1, R.nind do
    if last[v] < R.nind then last[v] = R.nind end
  end
end

-- nil when x0 is an array of numbers, else what is wrong with it.
local function x0_problem(x0)
  if type(x0) ~= "table" then return "x0 must be an array of numbers, got " .. type(x0) end
  for i = 1, #x0 do
    if type(x0[i]) ~= "number" then
      return "x0[" .. i .. "] is a " .. type(x0[i]) .. ", not a number"
    end
  end
  return nil
end

-- trace.record with the xpcall handler for errors raised by f.
function record(f, x0, opts, handler)
  opts = opts or {}
  if type(f) ~= "function" then raise("record expects a function, got " .. type(f)) end
  local bad = x0_problem(x0)
  if bad then raise(bad) end
  local sink = opts.sink
  if not sink then
    local core = get_core()
    if not core then raise("cgwb.core is not available (pass opts.sink)") end
    sink = core.tape_new()
  end
  local R = new_recorder()
  local x = independents(R, x0)
  local T = make_T(R, opts.options or {})
  running[#running + 1] = f
  local ok, ys = xpcall(f, handler, x, T, T.opts)
  running[#running] = nil
  if not ok then R.open = false; error(ys, 0) end
  local ok2, y = pcall(dependents, R, ys, f)
  if not ok2 then R.open = false; error(y, 0) end
  R.open = false
  extend_independents(R)
  local ndeath, nslots = flush(R, sink, opts.raw)
  local xs = {}
  for i = 1, #x0 do xs[i] = tofloat(x0[i]) end
  sink:set_x0(xs)
  return sink, { records = R.n + ndeath, operations = R.n, death_notices = ndeath,
                 max_live = nslots, virtual = R.nv, n = R.nind, m = #y, y = y,
                 branches = R.branches }
end

--- trace.record(f, x0 [, opts]) -> tape (or opts.sink), info: records f at x0 (see above).
function M.record(f, x0, opts)
  return record(f, x0, opts, position_strings)
end

-- {==== scripts ====}

-- Keys of t in sorted order (deterministic messages and copies).
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  sort(keys, function(p, q) return tostring(p) < tostring(q) end)
  return keys
end

local RESERVED = { sink = true, raw = true, options = true }

-- Options: the script's `options` defaults, overridden by opts.options and by
-- the other keys of opts (the CLI's --set NAME=VALUE).  A script that declares
-- options refuses names it does not declare, so a typo is not ignored.
-- Returns the table, or nil and a message.
local function merge_options(path, script, opts)
  local defaults = script.options or {}
  local o = {}
  for _, k in ipairs(sorted_keys(defaults)) do o[k] = defaults[k] end
  local function set(k, v)
    if script.options and defaults[k] == nil then
      return path .. ": unknown option '" .. tostring(k) .. "' (the script declares: "
             .. table.concat(sorted_keys(defaults), ", ") .. ")"
    end
    o[k] = v
  end
  for _, src in ipairs({ opts.options or {}, opts }) do
    for _, k in ipairs(sorted_keys(src)) do
      if src ~= opts or not RESERVED[k] then
        local err = set(k, src[k])
        if err then return nil, err end
      end
    end
  end
  return o
end

-- "path:line: " of the first line of the script that sets `key` (key = ...),
-- for a table value no frame can place; "path: " when no line does.
local function key_where(path, key)
  local fh = io.open(path, "r")
  if not fh then return path .. ": " end
  local n = 0
  for line in fh:lines() do
    n = n + 1
    if line:find("%f[%w_]" .. key .. "%s*=%f[^=]") then
      fh:close()
      return path .. ":" .. n .. ": "
    end
  end
  fh:close()
  return path .. ": "
end

--- Loads SCRIPT.lua (which returns { name, x0, f [, options] }) and records it.
-- Returns tape, info (info.name = script name) or nil, "file:line: message";
-- the line is the script's, where its code raised or misused an active.
function M.run_script(path, opts)
  opts = opts or {}
  -- a plug-in (cgwb.util.plugin): run once, in an environment of its own with cgwb preloaded
  local script, err = require("cgwb.util.plugin").pload(path, { on_error = position_all,
    expect = function(s)
      if type(s) ~= "table" or type(s.f) ~= "function" or s.x0 == nil then
        return nil, path .. ": the script must return a table { name = ..., x0 = ..., f = function(x, T) ... end }"
      end
      return s
    end })
  if not script then return nil, err end
  local ok
  local options, oerr = merge_options(path, script, opts)
  if not options then return nil, oerr end
  local x0, where = script.x0, nil
  if type(x0) == "function" then
    where = def_where(x0)
    ok, x0 = xpcall(x0, position_all, options)
    if not ok then return nil, x0 end
  end
  local bad = x0_problem(x0)
  if bad then return nil, (where or key_where(path, "x0")) .. "cgwb.trace: " .. bad end
  if not opts.sink and not get_core() then
    return nil, path .. ": cgwb.trace: cgwb.core is not available (pass opts.sink)"
  end
  local rec_opts = { sink = opts.sink, raw = opts.raw, options = options }
  local res, tape, info = pcall(record, script.f, x0, rec_opts, position_all)
  if not res then return nil, tape end
  info.name = script.name or path:match("([^/]+)%.lua$") or path
  return tape, info
end

return M
