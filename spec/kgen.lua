--- spec/kgen.lua: a seeded generator of random kernels in the C subset
-- (doc/kernel-language.md) and of calls that bind them, for property tests
-- (the front end, the interpreter against the compiled kernel, the alias
-- analysis' soundness).
--
--   kgen.kernel(rng, opts) -> text, info
--     rng: spec/rng.lua's generator.  opts (all optional): stmts (number of
--     statements at the top level, default 12), depth (expression depth,
--     default 3), nptr (pointer parameters, default 3), ndouble (by-value
--     doubles, default 2), nint (int parameters, default 2), loops, ifs,
--     calls (booleans, default true: loops, ifs, a helper function called
--     from the kernel), datasub (boolean, default true: subscripts that
--     depend on a double, which no alias analysis can pin down), loopsub
--     (boolean, default true: subscripts over loop counters, whose ranges
--     the alias analysis does not track), restrict (probability of a restrict pointer,
--     default 0.3), name (default "kern").
--     text: a whole C file (#include <math.h>, maybe a helper, the kernel);
--     it compiles with cc -std=c99 and every run with a binding from
--     kgen.call is defined behaviour: every access is in bounds, every local
--     is initialized before it is read, restrict pointers never overlap.
--     info = {name = "kern", params = {p1, p2, ...}} in parameter order, each
--       {name=, type = "double" | "int" | "double *",
--        const = bool, restrict = bool (pointers),
--        extent = n (pointers: cells [0, n) may be accessed),
--        max = m (ints: the kernel is defined for values 0..m)}.
--   kgen.call(rng, info [, opts]) -> CALL table of the shared convention:
--     {arrays = {{name="A", type="double", values={...}}, ...},
--      args = {{double=x} | {int=n} | {array=i, offset=o}, ...}}
--     opts.alias (probability that a non-restrict pointer shares array "A"
--     with the others, default 0.6): pointers sharing "A" are bound at random
--     offsets, overlapping or not, which are the cases where analyses go
--     wrong; a restrict pointer always gets an array of its own.
--   kgen.driver(text, info, call) -> a C program: the kernel text, then a
--     main that binds the call, calls the kernel and prints every array
--     cell in %a, one array a line ("A: 0x1p+0 ..."); the compiled
--     kernel's results to compare with, bit for bit.
local M = {}

local function pick(rng, t) return t[rng:int(1, #t)] end

-- {==== the state of one kernel ====}
local G = {}
G.__index = G

local function new_gen(rng, opts)
  local g = setmetatable({ rng = rng, opts = opts, lines = {}, ind = 1, nlocal = 0, loopvars = {},
    dlocals = {}, ilocals = {}, ptrs = {}, params = {} }, G)
  return g
end

function G:emit(s) self.lines[#self.lines + 1] = ("  "):rep(self.ind) .. s end

--- A fresh name.
function G:fresh(prefix)
  self.nlocal = self.nlocal + 1
  return prefix .. self.nlocal
end

--- An int subscript expression and its largest value (never negative).
function G:subscript()
  local r = self.rng
  local c = r:int(0, 3)
  local choices = { function() return tostring(c), c end }
  for _, v in ipairs(self.opts.loopsub ~= false and self.loopvars or {}) do
    choices[#choices + 1] = function() return ("%s + %d"):format(v.name, c), v.max + c end
  end
  for _, p in ipairs(self.params) do
    if p.type == "int" then
      choices[#choices + 1] = function() return ("%s + %d"):format(p.name, c), p.max + c end
    end
  end
  for _, v in ipairs(self.ilocals) do
    choices[#choices + 1] = function() return v.name, v.max end
  end
  if #self.dlocals > 0 and self.opts.datasub ~= false then -- a data-dependent subscript in 0..2
    choices[#choices + 1] = function()
      return ("(%s < 0.0 ? 2 : 0)"):format(pick(r, self.dlocals)), 2 -- defined for a NaN too
    end
  end
  return pick(r, choices)()
end

--- A cell through pointer p: text; records the extent it needs.
function G:cell(p)
  local s, max = self:subscript()
  local need = p.hi + max + 1
  if need > p.param.extent then p.param.extent = need end
  return ("%s[%s]"):format(p.name, s)
end

--- A double-valued leaf.
function G:leaf()
  local r = self.rng
  local choices = {}
  for _, p in ipairs(self.params) do
    if p.type == "double" then choices[#choices + 1] = function() return p.name end end
    if p.type == "int" then choices[#choices + 1] = function() return ("(double)%s"):format(p.name) end end
  end
  for _, v in ipairs(self.dlocals) do choices[#choices + 1] = function() return v end end
  for _, p in ipairs(self.ptrs) do choices[#choices + 1] = function() return self:cell(p) end end
  choices[#choices + 1] = function() return ("%.3f"):format(r:float(-2, 2)) end
  return pick(r, choices)()
end

local UNARY = { "sin", "cos", "atan", "tanh", "fabs" }
local SAFE = { "sqrt(fabs(%s) + 1.0)", "log(fabs(%s) + 1.0)", "exp(sin(%s))", "pow(fabs(%s) + 0.5, 1.5)" }

--- A double expression of at most depth d, bounded in size by its shape.
function G:expr(d)
  local r = self.rng
  if d <= 0 or r:int(1, 4) == 1 then return self:leaf() end
  local k = r:int(1, 9)
  local a = self:expr(d - 1)
  if k <= 3 then return ("(%s %s %s)"):format(a, pick(r, { "+", "-", "*" }), self:expr(d - 1)) end
  if k == 4 then return ("(%s / (1.0 + fabs(%s)))"):format(a, self:expr(d - 1)) end
  if k == 5 then return ("%s(%s)"):format(pick(r, UNARY), a) end
  if k == 6 then return (pick(r, SAFE)):format(a) end
  if k == 7 then return ("%s(%s, %s)"):format(pick(r, { "fmin", "fmax", "atan2" }), a, self:expr(d - 1)) end
  if k == 8 then return ("(%s < %s ? %s : %s)"):format(a, self:leaf(), self:leaf(), self:leaf()) end
  if self.helper then return ("%s(%s, %s)"):format(self.helper, a, self:leaf()) end
  return (a:sub(1, 1) == "-" and "-(%s)" or "-%s"):format(a) -- "--0.5" would be a decrement
end

--- A bounded right-hand side: often squashed by atan so values stay finite.
function G:rhs()
  local e = self:expr(self.opts.depth or 3)
  if self.rng:int(1, 2) == 1 then return ("atan(%s)"):format(e) end
  return e
end

--- An assignable place: a local, a by-value double, a cell of a writable pointer.
function G:lhs()
  local r = self.rng
  local choices = {}
  for _, v in ipairs(self.dlocals) do choices[#choices + 1] = function() return v end end
  for _, p in ipairs(self.params) do
    if p.type == "double" then choices[#choices + 1] = function() return p.name end end
  end
  for _, p in ipairs(self.ptrs) do
    if not p.param.const then
      choices[#choices + 1] = function() return self:cell(p) end
      choices[#choices + 1] = function() return self:cell(p) end
    end
  end
  return pick(r, choices)()
end
-- }====

-- {==== statements ====}

function G:assign()
  local r = self.rng
  local op = pick(r, { "=", "=", "=", "+=", "-=", "*=" })
  local lhs = self:lhs()
  local rhs = self:rhs()
  if op == "*=" then rhs = ("atan(%s)"):format(rhs) end
  self:emit(("%s %s %s;"):format(lhs, op, rhs))
end

function G:new_local()
  local name = self:fresh("d")
  self:emit(("double %s = %s;"):format(name, self:rhs()))
  self.dlocals[#self.dlocals + 1] = name
end

function G:new_ptr_local()
  local r = self.rng
  local bases = {}
  for _, p in ipairs(self.ptrs) do bases[#bases + 1] = p end
  local b = pick(r, bases)
  local name = self:fresh("q")
  local c = r:int(0, 2)
  local p = { name = name, param = b.param, hi = b.hi + c }
  local how = r:int(1, 3)
  local ints = {}
  for _, q in ipairs(self.params) do if q.type == "int" then ints[#ints + 1] = q end end
  local cq = b.param.const and "const " or ""
  if how == 1 and #ints > 0 then
    local k = pick(r, ints)
    p.hi = b.hi + k.max
    self:emit(("%sdouble *%s = %s + %s;"):format(cq, name, b.name, k.name))
  elseif how == 2 then
    self:emit(("%sdouble *%s = &%s[%d];"):format(cq, name, b.name, c))
  else
    self:emit(("%sdouble *%s = %s + %d;"):format(cq, name, b.name, c))
  end
  self.ptrs[#self.ptrs + 1] = p
  return p
end

--- Moves a pointer local forward by a constant (pointer arithmetic in place).
function G:move_ptr()
  local locals = {}
  for _, p in ipairs(self.ptrs) do if p.name:sub(1, 1) == "q" then locals[#locals + 1] = p end end
  if #locals == 0 then return self:assign() end
  local p = pick(self.rng, locals)
  local c = self.rng:int(1, 2)
  p.hi = p.hi + c
  if self.rng:int(1, 2) == 1 then self:emit(("%s += %d;"):format(p.name, c))
  else self:emit(("%s = %s + %d;"):format(p.name, p.name, c)) end
end

function G:block(n)
  for _ = 1, n do self:statement() end
end

function G:statement()
  local r = self.rng
  local k = r:int(1, 12)
  local o = self.opts
  if k <= 5 then return self:assign() end
  if k == 6 and self.ind <= 2 then return self:new_local() end
  if k == 7 and self.ind == 1 then return self:new_ptr_local() end
  if k == 8 and self.ind == 1 then return self:move_ptr() end
  if k == 9 and o.ifs ~= false and self.ind <= 3 then
    self:emit(("if (%s %s %s) {"):format(self:leaf(), pick(r, { "<", ">", "<=" }), self:leaf()))
    self:scoped(function() self:block(r:int(1, 3)) end)
    if r:int(1, 2) == 1 then
      self:emit("} else {")
      self:scoped(function() self:block(r:int(1, 2)) end)
    end
    return self:emit("}")
  end
  if k == 10 and o.loops ~= false and #self.loopvars < 2 then
    local v = { name = self:fresh("i"), max = r:int(1, 4) - 1 }
    self:emit(("for (int %s = 0; %s < %d; %s++) {"):format(v.name, v.name, v.max + 1, v.name))
    self:scoped(function()
      self.loopvars[#self.loopvars + 1] = v
      self:block(r:int(1, 3))
      self.loopvars[#self.loopvars] = nil
    end)
    return self:emit("}")
  end
  if k == 11 and o.loops ~= false and #self.loopvars < 2 then
    local v = { name = self:fresh("j"), max = r:int(1, 3) - 1 }
    self:emit(("int %s = 0;"):format(v.name))
    self:emit(("while (%s < %d) {"):format(v.name, v.max + 1))
    self:scoped(function()
      self.loopvars[#self.loopvars + 1] = v
      self:block(r:int(1, 2))
      self.loopvars[#self.loopvars] = nil
    end)
    self:emit(("  %s++;"):format(v.name))
    return self:emit("}")
  end
  if k == 12 and self.ind <= 2 then
    local name = self:fresh("m")
    local s, max = self:subscript()
    self:emit(("int %s = (%s) %% 3;"):format(name, s))
    self.ilocals[#self.ilocals + 1] = { name = name, max = math.min(max, 2) }
    return
  end
  return self:assign()
end

--- Runs f one block deeper; what it declares goes out of scope after.
function G:scoped(f)
  local nd, ni, np = #self.dlocals, #self.ilocals, #self.ptrs
  self.ind = self.ind + 1
  f()
  self.ind = self.ind - 1
  for i = #self.dlocals, nd + 1, -1 do self.dlocals[i] = nil end
  for i = #self.ilocals, ni + 1, -1 do self.ilocals[i] = nil end
  for i = #self.ptrs, np + 1, -1 do self.ptrs[i] = nil end
end
-- }====

function M.kernel(rng, opts)
  opts = opts or {}
  local g = new_gen(rng, opts)
  local name = opts.name or "kern"
  local params = {}
  for i = 1, opts.ndouble or 2 do params[#params + 1] = { name = "x" .. i, type = "double" } end
  for i = 1, opts.nint or 2 do params[#params + 1] = { name = "k" .. i, type = "int", max = rng:int(0, 3) } end
  local np = opts.nptr or 3
  for i = 1, np do
    local p = { name = "p" .. i, type = "double *", extent = 1,
      restrict = rng:float(0, 1) < (opts.restrict or 0.3), const = i > 1 and rng:int(1, 4) == 1 }
    params[#params + 1] = p
    g.ptrs[#g.ptrs + 1] = { name = p.name, param = p, hi = 0 }
  end
  -- shuffle the parameter order so "in parameter order" is exercised
  for i = #params, 2, -1 do
    local j = rng:int(1, i)
    params[i], params[j] = params[j], params[i]
  end
  g.params = params
  local head = { "#include <math.h>", "" }
  if opts.calls ~= false then
    g.helper = "h"
    head[#head + 1] = "double h(double a, double b) {"
    head[#head + 1] = "  double t = a * b;"
    head[#head + 1] = "  if (t > 1.0) t = 1.0 / t;"
    head[#head + 1] = "  return sin(t) + b;"
    head[#head + 1] = "}"
    head[#head + 1] = ""
  end
  g:block(opts.stmts or 12)
  local sig = {}
  for i, p in ipairs(params) do
    if p.type == "double *" then
      sig[i] = (p.const and "const " or "") .. "double *" .. (p.restrict and "restrict " or "") .. p.name
    else
      sig[i] = p.type .. " " .. p.name
    end
  end
  head[#head + 1] = ("void %s(%s) {"):format(name, table.concat(sig, ", "))
  for _, l in ipairs(g.lines) do head[#head + 1] = l end
  head[#head + 1] = "}"
  return table.concat(head, "\n") .. "\n", { name = name, params = params }
end

--- A binding for a kernel of kgen.kernel (see the top of the file).
function M.call(rng, info, opts)
  opts = opts or {}
  local alias = opts.alias or 0.6
  local arrays, args = {}, {}
  local shared -- array "A": pointers that may alias
  local function new_array(name, n)
    local vals = {}
    for i = 1, n do vals[i] = rng:float(-1.5, 1.5) end
    arrays[#arrays + 1] = { name = name, type = "double", values = vals }
    return #arrays
  end
  local placed = {}
  for i, p in ipairs(info.params) do
    if p.type == "double" then args[i] = { double = rng:float(-2, 2) }
    elseif p.type == "int" then args[i] = { int = rng:int(0, p.max) }
    elseif not p.restrict and rng:float(0, 1) < alias then
      placed[#placed + 1] = { i = i, p = p, offset = rng:int(0, 4) }
    else
      args[i] = { array = new_array("B" .. i, p.extent + rng:int(0, 2)), offset = 0 }
    end
  end
  if #placed > 0 then
    local size = 0
    for _, q in ipairs(placed) do size = math.max(size, q.offset + q.p.extent) end
    shared = new_array("A", size + rng:int(0, 2))
    for _, q in ipairs(placed) do args[q.i] = { array = shared, offset = q.offset } end
  end
  return { arrays = arrays, args = args }
end

--- A C program running the kernel on a call (see the top of the file).
--- The cells of run result res (k:run's) in M.driver's output form.
function M.run_lines(res, call)
  local lines = {}
  for i, a in ipairs(res.arrays) do
    local v = {}
    for j, x in ipairs(a.values) do v[j] = (" %a"):format(x) end
    lines[i] = call.arrays[i].name .. ":" .. table.concat(v)
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The cells the interpreter leaves when it runs function name of kernel
-- text (read as file) on call, in M.driver's output form.
function M.interp_lines(text, file, name, call)
  local k = assert(require("cgwb").read_kernel(text, file))
  return M.run_lines(assert(k:run(name, call)), call)
end

function M.driver(text, info, call)
  local out = { text, "#include <stdio.h>", "int main(void) {" }
  for i, a in ipairs(call.arrays) do
    local v = {}
    for j, x in ipairs(a.values) do v[j] = ("%a"):format(x) end
    out[#out + 1] = ("  static double arr%d[%d] = {%s};"):format(i, #a.values, table.concat(v, ", "))
  end
  local args = {}
  for i, a in ipairs(call.args) do
    if a.double then args[i] = ("%a"):format(a.double)
    elseif a.int then args[i] = tostring(a.int)
    else args[i] = ("arr%d + %d"):format(a.array, a.offset) end
  end
  out[#out + 1] = ("  %s(%s);"):format(info.name, table.concat(args, ", "))
  for i, a in ipairs(call.arrays) do
    out[#out + 1] = ('  printf("%s:");'):format(a.name)
    out[#out + 1] = ('  for (int c = 0; c < %d; c++) printf(" %%a", arr%d[c]);'):format(#a.values, i)
    out[#out + 1] = '  printf("\\n");'
  end
  out[#out + 1] = "  return 0;"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

-- A C driver that calls fname once on call (int and double arrays, int,
-- double and array arguments) and prints its result ("R %a" when ret) and
-- every array cell after it, exactly (%a, %d): compared with M.result_lines.
function M.exact_driver(text, fname, call, ret)
  local out = { text, "#include <stdio.h>", "int main(void) {" }
  local args = {}
  for i, a in ipairs(call.arrays) do
    local v = {}
    for j, x in ipairs(a.values) do v[j] = a.type == "int" and ("%d"):format(x) or ("%a"):format(x) end
    out[#out + 1] = ("  static %s A%d[%d] = {%s};"):format(a.type or "double", i, #v, table.concat(v, ", "))
  end
  for i, a in ipairs(call.args) do
    args[i] = a.int and tostring(a.int) or a.double and ("%a"):format(a.double) or ("A%d + %d"):format(a.array, a.offset)
  end
  local c = ("%s(%s)"):format(fname, table.concat(args, ", "))
  out[#out + 1] = ret and ('  printf("R %%a\\n", %s);'):format(c) or ("  %s;"):format(c)
  for i, a in ipairs(call.arrays) do
    out[#out + 1] = ('  for (int j = 0; j < %d; j++) printf("%s\\n", A%d[j]);'):format(#a.values,
      a.type == "int" and "%d" or "%a", i)
  end
  out[#out + 1] = "  return 0;\n}\n"
  return table.concat(out, "\n")
end

-- The interpreter's result r of k:run on call in M.exact_driver's form.
function M.result_lines(r, call)
  local out = {}
  if r.ret then out[#out + 1] = ("R %a"):format(r.ret) end
  for i, a in ipairs(r.arrays) do
    for _, v in ipairs(a.values) do
      out[#out + 1] = call.arrays[i].type == "int" and ("%d"):format(v) or ("%a"):format(v)
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- Kernel K ({name, text, ret}) read by read(text), run on call by the
-- interpreter and compiled by cc: the compiled run's lines, the
-- interpreter's lines, the interpreter's result.
function M.interp_vs_cc(read, K, call)
  local k = assert(read(K.text))
  local r = assert(k:run(K.name, call))
  return require("spec.helper").run_c(M.exact_driver(K.text, K.name, call, K.ret)), M.result_lines(r, call), r
end

return M
