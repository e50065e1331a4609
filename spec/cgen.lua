--- spec/cgen.lua: a seeded generator of kernels that put every construct of
-- the kernel language the adjoint and tangent generators treat differently
-- into every position they treat differently, for
-- spec/45-adjoint-constructs_spec.lua.  Unlike spec/lgen.lua it plants no
-- verdicts: where a loop ends up (adjoined per iteration, terminal or
-- dry-run, or standard) is read off the adjoint's report, and the spec
-- counts the construct x position cells the draws realize.
--
--   cgen.kernel(rng, opts) -> text, info
--     opts.name (default "F").  text: a C file (#include <math.h>, a global
--     table, helpers, one or two callees, F) that compiles with cc -std=c99
--     -Wall -Wextra -pedantic -Werror; every run with a binding of cgen.call
--     is defined (in bounds, every local written before it is read, the
--     restrict arrays apart).  F's parameters, those it uses in this order:
--       int n, const double *restrict x, const double *restrict d,
--       const double A[][3], const double B3[][2][3], double *restrict y,
--       double *restrict z, double Y2[][3], double *restrict s, double c
--     d is passive data (never an independent, never written: its adjoint
--     is passed as NULL); the independents are the other double
--     parameters F reads, the dependents those it writes.
--     info = { name, params = {{name, type}, ...}, independents = {...},
--       assume = {"A!=Y2", "B3!=Y2"} for those that are parameters (the
--       --assume a caller gives: a 2-D or 3-D parameter cannot be restrict),
--       uses = {{c = construct, pos = "F" | "callee" | "loop", line =
--         the enclosing top-level loop's line (pos "loop"), ptr = bool
--         (through a pointer), passive = bool (on passive data)}, ...} }
--   cgen.call(rng, info, n) -> CALL (k:run's form), arrays of 3n + 6 cells
--     (A and Y2: n + 2 rows of 3; B3: n + 2 planes of 2 x 3), doubles in
--     [-1, 1].
--   cgen.CONSTRUCTS: the construct names, in the table's order.
local lgen = require "lgen"

local M = {}

M.CONSTRUCTS = { "arith", "cond", "inner", "helper", "global", "passive", "ptrparam", "localarr", "addr",
  "inplace", "increment", "reduction", "twod", "rank3", "call", "heap" }

local function pick(r, t) return t[r:int(1, #t)] end

local G = {}
G.__index = G

function G:emit(s) self.out[#self.out + 1] = ("  "):rep(self.ind) .. s end
function G:fresh(p) self.nt = self.nt + 1 return p .. self.nt end
function G:use(ctx, c, ptr, passive)
  self.uses[#self.uses + 1] = { c = c, pos = ctx.pos, loopi = ctx.loop, ptr = ptr or false, passive = passive or false }
end

-- {==== expressions ====}

--- A subscript of a read-only array in ctx (0 .. 3n + 5 in F's arrays; a
-- callee's pointers have 4 cells past them).
function G:sub(ctx)
  if ctx.pos == "callee" then return tostring(self.r:int(0, 3)) end
  if ctx.pos == "F" then return tostring(self.r:int(0, 3)) end
  local t = { "i", "i + 1", "2 * i + 1", "n - 1 - i" }
  if ctx.inner then t[#t + 1] = "3 * i + k" end
  local s = pick(self.r, t)
  if s:find("n - 1", 1, true) then self.used.n = true end
  return s
end

--- A double leaf: an active input, a temporary, c, a constant.
function G:leaf(ctx)
  local r = self.r
  local c = {}
  c[#c + 1] = function() return ctx.xname .. "[" .. self:sub(ctx) .. "]" end
  c[#c + 1] = function() return ctx.xname .. "[" .. self:sub(ctx) .. "]" end
  for _, t in ipairs(ctx.temps) do c[#c + 1] = function() t.used = true return t.name end end
  c[#c + 1] = function() return ctx.cname end
  c[#c + 1] = function() return ("%.3f"):format(r:float(-1.5, 1.5)) end
  if ctx.pos == "loop" then c[#c + 1] = function() return "(0.125 * i)" end end
  local x = pick(r, c)()
  if x:find("^x%[") then self.used.x = true end
  if x == "c" then self.used.c = true end
  return x
end

function G:expr(ctx, d) return lgen.expr(self.r, d, function() return self:leaf(ctx) end, nil) end

-- }====

-- {==== constructs: each emits statements at ctx and leaves a temporary ====}

--- A new double temporary t = e (declared here), for later leaves.
function G:temp(ctx, e)
  local t = self:fresh("t")
  self:emit(("double %s = %s;"):format(t, e))
  ctx.temps[#ctx.temps + 1] = { name = t, used = false }
  return t
end

local C = {}

function C.arith(g, ctx)
  g:use(ctx, "arith")
  g:temp(ctx, g:expr(ctx, 3))
end

function C.cond(g, ctx) -- on passive data: the differences see no jump
  g:use(ctx, "cond", false, true)
  g.used.d = true
  local t = g:temp(ctx, g:expr(ctx, 1))
  g:emit(("if (%s[%s] %s %.3f) {"):format(ctx.dname, g:sub(ctx), pick(g.r, { ">", "<" }), g.r:float(-0.5, 0.5)))
  g.ind = g.ind + 1
  g:emit(("%s = %s;"):format(t, g:expr(ctx, 2))) -- not t = t * e: the loop analysis calls that a product
  g.ind = g.ind - 1
  if g.r:int(1, 2) == 1 then
    g:emit("} else {")
    g.ind = g.ind + 1
    g:emit(("%s = 0.5 + %s;"):format(t, g:expr(ctx, 2)))
    g.ind = g.ind - 1
  end
  g:emit("}")
end

function C.inner(g, ctx) -- an inner loop over k < 3 writing own cells (or a local sum)
  g:use(ctx, "inner")
  local t = g:temp(ctx, "0.0")
  local ictx = setmetatable({ inner = true, temps = {} }, { __index = ctx })
  g:emit("for (k = 0; k < 3; k++) {")
  g.ind = g.ind + 1
  g.used.k = true
  if ctx.pos == "loop" and ctx.own3 then
    g:emit(("%s[3 * i + k] = %s;"):format(ctx.own3, g:expr(ictx, 2)))
    g.used[ctx.own3] = true
    ctx.wrote[ctx.own3] = true
  end
  local sub = ctx.pos == "loop" and "3 * i + k" or "k"
  g:emit(("%s = %s + %s[%s] * %s;"):format(t, t, ctx.xname, sub, g:expr(ictx, 1)))
  if ctx.xname == "x" then g.used.x = true end
  g.ind = g.ind - 1
  g:emit("}")
end

function C.helper(g, ctx)
  g:use(ctx, "helper")
  g.used.helper = true
  g:temp(ctx, ("hs(%s, %s)"):format(g:expr(ctx, 1), g:leaf(ctx)))
end

function C.global(g, ctx)
  g:use(ctx, "global", true)
  g.used.coef = true
  g:temp(ctx, ("coef[%d] * %s + coef[%s]"):format(g.r:int(0, 3), g:expr(ctx, 1),
    ctx.inner and "k" or tostring(g.r:int(0, 3))))
end

function C.passive(g, ctx)
  g:use(ctx, "passive", false, true)
  g.used.d = true
  g:temp(ctx, ("%s[%s] * %s"):format(ctx.dname, g:sub(ctx), g:expr(ctx, 2)))
end

function C.ptrparam(g, ctx) -- a pointer into a parameter's array, read through
  local passive = g.r:int(1, 3) == 1
  g:use(ctx, "ptrparam", true, passive)
  local q = g:fresh("q")
  local base = passive and ctx.dname or ctx.xname
  if base == "x" then g.used.x = true elseif base == "d" then g.used.d = true end
  local off = ctx.pos == "loop" and "i" or tostring(g.r:int(0, 1))
  g:emit(("const double *%s = %s + %s;"):format(q, base, off))
  g:temp(ctx, ("%s[0] * %s + %s[1]"):format(q, g:expr(ctx, 1), q))
end

function C.localarr(g, ctx) -- a local array, a pointer into it, writes through both
  g:use(ctx, "localarr", true)
  local a, p = g:fresh("la"), g:fresh("lp")
  g:emit(("double %s[3];"):format(a))
  g:emit(("double *%s = &%s[1];"):format(p, a))
  g:emit(("%s[0] = %s;"):format(a, g:expr(ctx, 2)))
  g:emit(("%s[0] = %s * %s[0];"):format(p, g:expr(ctx, 1), a))
  g:emit(("%s[1] = %s[0] + %s;"):format(p, a, g:expr(ctx, 1)))
  g:temp(ctx, ("%s[2] * %s[0] + %s[1]"):format(a, p, a))
end

function C.addr(g, ctx) -- a local whose address is taken, updated by a callee
  g:use(ctx, "addr", true)
  g.used.addrhelper = true
  local t = g:temp(ctx, g:expr(ctx, 2))
  g:emit(("ha(&%s, %s);"):format(t, g:expr(ctx, 1)))
end

function C.inplace(g, ctx) -- an own cell updated in place
  g:use(ctx, "inplace")
  local v, sub = ctx.own, ctx.pos == "loop" and "i" or tostring(g.r:int(0, 3))
  g.used[v] = true
  ctx.wrote[v] = true
  if g.r:int(1, 2) == 1 then g:emit(("%s[%s] = %s * %s[%s] + %s;"):format(v, sub, pick(g.r, { "0.5", "-0.75" }), v, sub,
    g:expr(ctx, 2)))
  else g:emit(("%s[%s] += %s;"):format(v, sub, g:expr(ctx, 2))) end
end

function C.increment(g, ctx) -- into s at a fixed cell
  g:use(ctx, "increment")
  g.used[ctx.sname] = true
  ctx.wrote[ctx.sname] = true
  g:emit(("%s[%d] %s %s;"):format(ctx.sname, g.r:int(0, 3), pick(g.r, { "+=", "-=" }), g:expr(ctx, 2)))
end

function C.reduction(g, ctx)
  if ctx.pos ~= "loop" then return C.arith(g, ctx) end -- a reduction is a loop's
  g:use(ctx, "reduction")
  local acc = ctx.acc
  ctx.acc_used = true
  g:emit(("%s = %s + %s;"):format(acc, acc, g:expr(ctx, 2)))
end

function C.twod(g, ctx) -- a 2-D parameter read by rows, another written
  if ctx.pos == "callee" then return C.ptrparam(g, ctx) end -- a callee's parameters are 1-D
  g:use(ctx, "twod")
  g.used.A = true
  local row = ctx.pos == "loop" and "i" or tostring(g.r:int(0, 1))
  local col = tostring(g.r:int(0, 2))
  g:temp(ctx, ("A[%s][%s] * %s"):format(row, col, g:expr(ctx, 1)))
  if ctx.pos == "loop" or g.r:int(1, 2) == 1 then
    g.used.Y2 = true
    ctx.wrote.Y2 = true
    g:emit(("Y2[%s][%s] = %s;"):format(row, col, g:expr(ctx, 2)))
  end
end

function C.rank3(g, ctx) -- a 3-D parameter read by cells and through a row, a 3-D local
  if ctx.pos == "callee" then return C.ptrparam(g, ctx) end -- a callee's parameters are 1-D
  g:use(ctx, "rank3", true)
  g.used.B3 = true
  local r = g.r
  local plane = ctx.pos == "loop" and pick(r, { "i", "i + 1" }) or tostring(r:int(0, 1))
  local l3, rw = g:fresh("l3_"), g:fresh("rw")
  g:emit(("double %s[2][2][3];"):format(l3))
  g:emit(("const double *%s = B3[%s][%d];"):format(rw, plane, r:int(0, 1))) -- a row of a plane
  g:emit(("%s[0][1][2] = B3[%s][%d][%d] * %s;"):format(l3, plane, r:int(0, 1), r:int(0, 2), g:expr(ctx, 1)))
  local c1 = r:int(0, 2)
  g:emit(("%s[1][0][%d] = %s[%d] + %s[0][1][2] * %s;"):format(l3, c1, rw, r:int(0, 2), l3, g:expr(ctx, 1)))
  g:temp(ctx, ("%s[1][0][%d] * %s[0][1][2] + %s[0]"):format(l3, c1, l3, rw))
end

function C.call(g, ctx) -- the callee with active and passive pointer arguments
  if ctx.pos == "callee" then return C.localarr(g, ctx) end -- no recursion
  local passive = g.r:int(1, 2) == 1
  g:use(ctx, "call", true, passive)
  g.callee = true
  local off = ctx.pos == "loop" and "i" or tostring(g.r:int(0, 1))
  g.used.x, g.used.d = true, true
  g.used[ctx.own] = true
  ctx.wrote[ctx.own] = true
  local p = passive and ("d + " .. off) or ("x + " .. off)
  local a = passive and "c" or g:leaf(ctx)
  if a == "c" then g.used.c = true end
  g:emit(("gc(%s, d + %s, %s + %s, %s);"):format(p, off, ctx.own, off, a))
end

function C.heap(g, ctx) -- a block from malloc or calloc, written, read, freed
  g:use(ctx, "heap", true)
  g.used.stdlib = true
  local h = g:fresh("hp")
  if g.r:int(1, 2) == 1 then
    g:emit(("double *%s = (double *) malloc(3 * sizeof(double));"):format(h))
    g:emit(("%s[1] = %s;"):format(h, g:expr(ctx, 1)))
  else
    g:emit(("double *%s = calloc(3, sizeof *%s);"):format(h, h)) -- its [1] stays 0
  end
  g:emit(("%s[0] = %s;"):format(h, g:expr(ctx, 2)))
  g:emit(("%s[2] = %s * %s[0] + %s[1];"):format(h, g:expr(ctx, 1), h, h))
  g:temp(ctx, ("%s[2] - 0.5 * %s[0]"):format(h, h))
  g:emit(("free(%s);"):format(h))
end

-- }====

--- Consumes the unread temporaries of ctx into a write (so -Wunused is
-- quiet and every temporary reaches a dependent).
function G:sink(ctx)
  local unread = {}
  for _, t in ipairs(ctx.temps) do if not t.used then unread[#unread + 1] = t.name; t.used = true end end
  if #unread == 0 then unread[1] = ctx.temps[#ctx.temps] and ctx.temps[#ctx.temps].name or "1.0" end
  local e = table.concat(unread, " + ")
  if ctx.pos == "loop" then
    self.used[ctx.own] = true
    ctx.wrote[ctx.own] = true
    self:emit(("%s[i] = %s[i] * 0.5 + %s;"):format(ctx.own, ctx.own, e))
  elseif ctx.pos == "callee" then
    self:emit(("o[0] = o[0] + %s;"):format(e))
  else
    self.used.s = true
    self:emit(("s[%d] += %s;"):format(self.r:int(0, 3), e))
  end
end

--- Emits n constructs at ctx (each construct at least once over the draws).
function G:constructs(ctx, n)
  for _ = 1, n do
    if not self.deck or #self.deck == 0 then -- each construct once before any twice
      self.deck = {}
      for i, c in ipairs(M.CONSTRUCTS) do table.insert(self.deck, self.r:int(1, i), c) end
    end
    C[table.remove(self.deck)](self, ctx)
  end
  self:sink(ctx)
end

--- The callee gc(p, q, o, a): p active, q passive or active (as the call
-- passes it), o written; its body from the constructs in position "callee".
function G:callee_text()
  local saved_out, saved_ind = self.out, self.ind
  self.out, self.ind = {}, 1
  local ctx = { pos = "callee", xname = "p", dname = "q", cname = "a", own = "o", sname = "o", temps = {}, wrote = {} }
  local used = self.used
  self.used = {}
  self:constructs(ctx, self.r:int(2, 4))
  local cu = self.used
  self.used = used
  local body = self.out
  self.out, self.ind = saved_out, saved_ind
  local head = { "static void gc(const double *p, const double *q, double *o, double a) {" }
  if cu.k then head[#head + 1] = "  int k;" end
  local lines = { table.concat(head, "\n") }
  for _, l in ipairs(body) do lines[#lines + 1] = l end
  lines[#lines + 1] = "  o[1] = o[1] * 0.5 + p[1] * a + q[1];" -- every parameter read
  lines[#lines + 1] = "}"
  return table.concat(lines, "\n"), cu
end

local PARAMS = {
  { name = "n", type = "int", decl = "int n" },
  { name = "x", type = "double *", decl = "const double *restrict x" },
  { name = "d", type = "double *", decl = "const double *restrict d" },
  { name = "A", type = "double[][3]", decl = "const double A[][3]" },
  { name = "B3", type = "double[][2][3]", decl = "const double B3[][2][3]" },
  { name = "y", type = "double *", decl = "double *restrict y" },
  { name = "z", type = "double *", decl = "double *restrict z" },
  { name = "Y2", type = "double[][3]", decl = "double Y2[][3]" },
  { name = "s", type = "double *", decl = "double *restrict s" },
  { name = "c", type = "double", decl = "double c" },
}

function M.kernel(r, opts)
  opts = opts or {}
  local g = setmetatable({ r = r, out = {}, ind = 1, nt = 0, used = {}, uses = {} }, G)
  local name = opts.name or "F"
  -- the callee first (F's calls may use it; its uses count as "callee")
  local ctext, cu = g:callee_text()
  local fctx = { pos = "F", xname = "x", dname = "d", cname = "c", own = "y", sname = "s", temps = {}, wrote = {} }
  g:constructs(fctx, r:int(1, 3))
  local nloops = r:int(1, 3)
  local head_len -- lines before F's body, to number the loops' lines
  local loops = {}
  for li = 1, nloops do
    local acc = g:fresh("r")
    g:emit(("double %s = 0.0;"):format(acc))
    loops[li] = { at = #g.out + 1 }
    g:emit("for (i = 0; i < n; i++) {")
    g.used.n, g.used.i = true, true
    g.ind = g.ind + 1
    local own = pick(r, { "y", "z" })
    local ctx = { pos = "loop", loop = li, xname = "x", dname = "d", cname = "c", own = own, own3 = own == "y" and "z" or nil,
      sname = "s", acc = acc, temps = {}, wrote = {} }
    g:constructs(ctx, r:int(2, 4))
    g.ind = g.ind - 1
    g:emit("}")
    loops[li].ctx = ctx
    g.used.s = true
    g:emit(("s[%d] += %s;"):format(r:int(0, 3), acc))
    if r:int(1, 3) == 1 then -- a later read of what the loop wrote: not terminal
      local w = {}
      for _, v in ipairs { "y", "z", "Y2" } do if ctx.wrote[v] then w[#w + 1] = v end end
      local v = pick(r, w)
      g:emit(v == "Y2" and "s[1] += Y2[1][2] * Y2[0][1];" or ("s[1] += %s[1] * %s[2];"):format(v, v))
    end
  end
  -- the file
  g.helper, g.addrhelper = g.used.helper, g.used.addrhelper
  if g.callee then -- what the callee's body needs
    if cu.helper then g.helper = true end
    if cu.coef then g.used.coef = true end
    if cu.addrhelper then g.addrhelper = true end
    if cu.stdlib then g.used.stdlib = true end
  end
  local text = { "#include <math.h>" }
  if g.used.stdlib then text[#text + 1] = "#include <stdlib.h>" end
  if g.used.coef then text[#text + 1] = "static const double coef[4] = {0.5, -0.25, 0.125, 1.5};" end
  if g.helper then
    text[#text + 1] = "static double hs(double a, double b) {\n  return a * cos(b) + 0.5 * sin(a * b);\n}"
  end
  if g.addrhelper then text[#text + 1] = "static void ha(double *v, double a) {\n  *v = *v * cos(a) + 0.5 * a;\n}" end
  if g.callee then text[#text + 1] = ctext end
  local params, sig = {}, {}
  g.used.s = true
  for _, p in ipairs(PARAMS) do
    if g.used[p.name] then params[#params + 1] = { name = p.name, type = p.type }; sig[#sig + 1] = p.decl end
  end
  text[#text + 1] = ("void %s(%s) {"):format(name, table.concat(sig, ", "))
  local decls = {}
  if g.used.i then decls[#decls + 1] = "  int i;" end
  if g.used.k then decls[#decls + 1] = "  int k;" end
  for _, d in ipairs(decls) do text[#text + 1] = d end
  local pre = table.concat(text, "\n")
  local npre = select(2, pre:gsub("\n", "\n")) + 1
  head_len = npre
  local src = pre .. "\n" .. table.concat(g.out, "\n") .. "\n}\n"
  for _, L in ipairs(loops) do L.line = head_len + L.at end
  for _, u in ipairs(g.uses) do if u.pos == "loop" then u.line = loops[u.loopi].line end end
  if not g.callee then -- the callee is not in the file: its constructs were not drawn
    local kept = {}
    for _, u in ipairs(g.uses) do if u.pos ~= "callee" then kept[#kept + 1] = u end end
    g.uses = kept
  end
  local ind = {}
  for _, p in ipairs(params) do if p.type ~= "int" and p.name ~= "d" then ind[#ind + 1] = p.name end end
  local assume = {}
  -- a 2-D or 3-D parameter cannot be restrict
  if g.used.A and g.used.Y2 then assume[#assume + 1] = "A!=Y2" end
  if g.used.B3 and g.used.Y2 then assume[#assume + 1] = "B3!=Y2" end
  return src, { name = name, params = params, independents = ind, assume = assume, uses = g.uses, loops = loops }
end

--- A binding for a kernel of cgen.kernel.
function M.call(r, info, n)
  local arrays, args = {}, {}
  for i, p in ipairs(info.params) do
    if p.type == "int" then args[i] = { int = n }
    elseif p.type == "double" then args[i] = { double = r:float(-1, 1) }
    else
      local cells = 3 * n + 6
      if p.type:find("%[%]") then -- n + 2 rows or planes of the dims after []
        cells = n + 2
        for d in p.type:gmatch("%[(%d+)%]") do cells = cells * tonumber(d) end
      end
      local vals = {}
      for j = 1, cells do vals[j] = r:float(-1, 1) end
      arrays[#arrays + 1] = { name = p.name, type = "double", values = vals }
      args[i] = { array = #arrays, offset = 0 }
    end
  end
  return { arrays = arrays, args = args }
end

return M
