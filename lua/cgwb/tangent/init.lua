--- cgwb.tangent: preaccumulated tangent code of a kernel (doc/tangent-code.md).
-- Each basic block's active assignments are flattened into term graphs
-- (Utke, Flattening Basic Blocks, Algorithms 1 and 2; core.kernel_flatten);
-- the generated C evaluates each graph's local partials (the operation
-- table's spellings, cg_gops.h), eliminates its intermediates in a vertex
-- order (Hovland, Norris, Utke & Strout, sec. 1: each elimination generates
-- code) into its local Jacobian and applies that to the tangents of the
-- graph's independents (Utke, Flattening, sec. 5.2: composing the local
-- Jacobians in order gives the block's).  Everything else of the function is
-- mirrored: control flow, int and pointer statements, calls of `G_d`.
--
--   tangent.emit(kernel, fname, opts) -> code, report | nil, message
--   tangent.costs(res [, opts]) -> report
-- @module cgwb.tangent
local core = require "cgwb.core"
local unparse = require "cgwb.ir.unparse"
local S = require "cgwb.tangent.subgraph"
local errors = require "cgwb.util.errors"
local ir = require "cgwb.ir"
local emit = require "cgwb.ir.emit"

local M = {}

local LAY = core.kernel_layout()
local GOPS = core.graph_ops()
local BINOP = { add = "+", sub = "-", mul = "*", div = "/" }
local vertex_gop, is_unit = S.vertex_gop, S.is_unit
local structure, eliminate, products, row_sum = S.structure, S.eliminate, S.products, S.row_sum
local active_blocks = require("cgwb.flatten").active_blocks

--- The vertex ordering of tangent code: opts.order (default "markowitz"), checked
-- (an edge word or another mode refused, as doc/tangent-code.md says; the command
-- line checks --order with it).  -> spec | nil, message.
function M.order_spec(opts) return S.order_spec(opts) end
local order_spec = M.order_spec

--- The cost report of a flattening (doc/tangent-code.md): per subgraph
-- (b, s: the indices of flatten.describe's blocks, those with active
-- assignments, and of their subgraphs) the elimination's multiplications
-- (`mults`, as lg:eliminate counts them; `nontrivial`: without the products
-- by +1 or -1), `application` and `tangent`, and for the whole function, per
-- input direction and per execution of each block once, `cost = {tangent,
-- statement_level = {elimination, mults, application, total},
-- preaccumulation = {...}, ratio_*}`; the statement level from res's own
-- statements (statement_graphs).  opts.order: a vertex ordering (default
-- markowitz).  Raises on a bad ordering (emit returns it as nil, message).
function M.costs(res, opts)
  opts = opts or {}
  local spec, err = order_spec(opts)
  if not spec then error(err, 2) end
  return require("cgwb.tangent.costs").report(res, opts, spec)
end


-- {==== the generated code: one function ====}

local F = {}
F.__index = F

function F:op(e) return self.v:expr(e).op end
function F:etype(e) return self.v:expr(e).type end
function F:is_double_sym(s) return self.v:sym(s).base == "double" end
function F:is_global(s) return self.v:sym(s).kind == "global" end

-- Appends a line to the current sink: def, the local it sets (a line whose
-- def nothing reads is dropped), uses, the locals it reads.
function F:line(text, def, uses) self.em:line(text, def, uses) end

-- The tangent of symbol s as C (a global: a zero of its shape, made once).
function F:tname(s)
  if self:is_global(s) then return self.gen:zero_global(s) end
  return self.gen.tname[s]
end

-- The tangent of an lvalue or use e (VAR or ELEM of a double) as C; in
-- vector mode its direction cg_i (a line of a loop over the directions).
function F:tlvalue(e)
  local s = self.v:expr(e).sym
  if self.gen.vector then
    if self:is_global(s) and self.v:sym(s).ndim == 0 then return "0.0" end
    return self:tcell(e) .. "[" .. self.gen.prefix .. "i]"
  end
  if self:op(e) == "var" then return self:tname(s) end
  return self:tname(s) .. self.u:subs(e, s)
end

-- Vector mode: the nd tangents of the cell of e (VAR or ELEM) as a
-- pointer; cell c of an array or pointer at its tangent + c * nd.
function F:tcell(e)
  local s = self.v:expr(e).sym
  if self:op(e) == "var" then return self:tname(s) end
  return "(" .. self:tname(s) .. " + " .. self:cells(e, s) .. " * " .. self.gen.prefix .. "nd)"
end

-- The row-major cell index of ELEM or ADDR e on symbol s, as C (Horner's
-- form over the dims: ((a) * dim1 + (b)) * dim2 + (c); the address of a
-- row or plane has its missing subscripts 0).
function F:cells(e, s)
  local r, y = self.v:expr(e), self.v:sym(s)
  local subs = ir.subs(r)
  local t = "(" .. self.u:expr(subs[1], true) .. ")"
  if y.ndim < 2 then return t end
  for d = 2, y.ndim do
    t = t .. " * " .. y.dims[d]
    if subs[d] then t = t .. " + (" .. self.u:expr(subs[d], true) .. ")" end
    t = "(" .. t .. ")"
  end
  return t
end

-- A tangent local by name: itself (star: through the pointer), in vector
-- mode its direction cg_i.
function F:dref(name, star)
  if self.gen.vector then return name .. "[" .. self.gen.prefix .. "i]" end
  return (star or "") .. name
end

-- A line setting tangents: in vector mode the loop over the directions.
function F:tline(text, def, uses)
  if self.gen.vector then
    local P = self.gen.prefix
    text = ("for (%si = 0; %si < %snd; %si++) %s"):format(P, P, P, P, text)
  end
  self:line(text, def, uses)
end

-- The tangent of a pointer expression (the tangent pointer aliases as the
-- primal: `a + k` -> `ad + k`).
local TPOINTER = ir.cases("expr", "cgwb.tangent pointer tangent", {
  var = function(_, F, r) return F:tname(r.sym) end,
  addr = function(_, F, r)
    local y, t = F.v:sym(r.sym), F:tname(r.sym)
    if F.gen.vector then
      if not r.a then return t end -- a scalar's tangents are an array already
      return "(" .. t .. " + " .. F:cells(r.id, r.sym) .. " * " .. F.gen.prefix .. "nd)"
    end
    if not r.a then return y.ndim > 0 and t or ("&" .. t) end
    if #ir.subs(r) < y.ndim then return t .. F.u:subs(r.id, r.sym) end -- a row or plane
    return "&" .. t .. F.u:subs(r.id, r.sym)
  end,
  ptradd = function(_, F, r)
    local k = F.u:expr(r.b)
    if F.gen.vector then k = k .. " * " .. F.gen.prefix .. "nd" end -- nd tangents a cell
    return "(" .. F:tpointer(r.a) .. " + " .. k .. ")"
  end,
  cond = function(_, F, r)
    return "(" .. F.u:expr(r.a) .. " ? " .. F:tpointer(r.b) .. " : " .. F:tpointer(r.c) .. ")"
  end,
  elem = function(_, F, r) -- a load of a row of a double **: the caller's tangent row
    if not F.v:sym(r.sym).rows then
      error(errors.refused("tangent: no tangent for the pointer expression " .. F.u:expr(r.id, true)))
    end
    return F:tname(r.sym) .. "[" .. F.u:expr(r.a, true) .. "]"
  end,
  null = function() return "NULL" end, -- NULL's tangent pointer: NULL
  ["const_i|const_d|neg|not|add|sub|mul|div|mod|lt|le|gt|ge|eq|ne|and|or|cast|intrin|ptrdiff|bnot|" .. ir.GROUP.bits] = function(_, F, r)
    error(errors.refused("tangent: no tangent for the pointer expression " .. F.u:expr(r.id, true)))
  end,
})

function F:tpointer(e)
  local r = self.v:expr(e)
  return TPOINTER(r.op, self, r)
end

-- Replaces A0..A2 and R in an operation table spelling (the kernels'
-- operations read no constant C and no XI: a row that did is refused).
local function spell(text, args, r)
  local s, err = unparse.spell_partial(text, args, r)
  if not s then error(errors.refused("tangent: " .. err)) end
  return s
end

-- Forward-mode tangent of a side-effect-free double expression e as C
-- (return values and by-value arguments, which are in no graph).
local TEXPR = ir.cases("expr", "cgwb.tangent expression tangent", {
  ["const_d|cast"] = function() return "0.0" end,
  ["var|elem"] = function(_, F, r) return F:tlvalue(r.id) end,
  ["add|sub"] = function(op, F, r) return "(" .. F:texpr(r.a) .. " " .. BINOP[op] .. " " .. F:texpr(r.b) .. ")" end,
  mul = function(_, F, r)
    local u = F.u
    return "(" .. F:texpr(r.a) .. " * " .. u:expr(r.b) .. " + " .. u:expr(r.a) .. " * " .. F:texpr(r.b) .. ")"
  end,
  div = function(_, F, r)
    local u = F.u
    return "((" .. F:texpr(r.a) .. " - " .. u:expr(r.id) .. " * " .. F:texpr(r.b) .. ") / " .. u:expr(r.b) .. ")"
  end,
  neg = function(_, F, r) return "(-" .. F:texpr(r.a) .. ")" end,
  cond = function(_, F, r) return "(" .. F.u:expr(r.a) .. " ? " .. F:texpr(r.b) .. " : " .. F:texpr(r.c) .. ")" end,
  intrin = function(_, F, r)
    local u = F.u
    local g = GOPS[LAY.gop[r.fn]]
    local args = { "(" .. u:expr(r.a, true) .. ")", r.b and ("(" .. u:expr(r.b, true) .. ")") or nil }
    local terms = {}
    for i, x in ipairs { r.a, r.b or false } do
      if x and i <= g.arity then
        terms[#terms + 1] = "(" .. spell(g.partials[i], args, "(" .. u:expr(r.id, true) .. ")") .. ") * " .. F:texpr(x)
      end
    end
    return "(" .. table.concat(terms, " + ") .. ")"
  end,
  ["const_i|addr|ptradd|not|mod|lt|le|gt|ge|eq|ne|and|or|null|ptrdiff|bnot|" .. ir.GROUP.bits] = function(op) error(errors.refused("tangent: no tangent for " .. op)) end,
})

function F:texpr(e)
  local r = self.v:expr(e)
  if r.type ~= "double" then return "0.0" end
  return TEXPR(r.op, self, r)
end

-- {==== statements outside the graphs ====}

-- A passive assignment: ints and pointers copied (a double pointer's
-- tangent moves with it); a double written without a graph gets tangent 0.
function F:passive_assign(st)
  local r = self.v:stmt(st)
  local lhs, rhs = r.lhs, r.rhs
  local s = self.v:expr(lhs).sym
  local primal = self.u:simple(st) .. ";"
  if self:is_double_sym(s) then
    local ptr = self.v:sym(s).ptr and self:op(lhs) == "var"
    if ptr then -- the tangent first: it reads the state the primal's rhs reads (p = c ? q : p tests p)
      self:line(self:tname(s) .. " = " .. self:tpointer(rhs) .. ";")
      self:line(primal)
    else
      self:tline(self:tlvalue(lhs) .. " = 0.0;") -- before the write: the subscript reads the old state
      self:line(primal)
    end
  else
    self:line(primal)
  end
end

-- A call G(...) -> G_d(...) with each double and double * argument
-- followed by its tangent, a double result's tangent through a pointer.
-- Vector mode: G_dv's result comes through a pointer too, and its status
-- is dropped (cg_nd, checked on entry, is in range).
function F:call(st)
  local u, gen = self.u, self.gen
  local r = self.v:stmt(st)
  local g, lhs = r.callee, r.lhs
  local callee = self.v:func(g)
  local args = { gen.vector and (gen.prefix .. "nd") or nil }
  for i, a in ipairs(r.args) do
    local p = callee.params[i]
    local sa = u:struct_arg(p, a)
    if sa then -- a struct by value: it and its tangents' struct
      args[#args + 1] = sa
      local x = self.v:expr(a) -- a member of S *q (q, qd) or of a struct s (&s, &sd)
      args[#args + 1] = (x.op == "addr" and "&" or "") .. gen.tvar[x.sym]
      goto next_arg
    elseif sa == false then goto next_arg end
    args[#args + 1] = u:expr(a, true)
    if self:is_double_sym(p) then
      local y = self.v:sym(p)
      local ptr = y.ptr or y.ndim > 0
      if ptr then args[#args + 1] = self:tpointer(a)
      elseif gen.vector then -- a by-value argument's tangents: an array of nd
        local t = self:temp("a" .. i, true)
        self:tline(t .. "[" .. gen.prefix .. "i] = " .. self:texpr(a) .. ";")
        args[#args + 1] = t
      else args[#args + 1] = self:texpr(a) end
    end
    ::next_arg::
  end
  local call = gen.fname_d[g] .. "("
  local ret = callee.ret
  if gen.vector then
    call = "(void)" .. call
    if ret ~= "void" then -- the result through a pointer, before a double's tangents
      local res = ret == "double" and self:temp("r") or self:itemp("ri")
      args[#args + 1] = "&" .. res
      if ret == "int" then
        self:line(call .. table.concat(args, ", ") .. ");")
        if lhs then self:line(u:expr(lhs, true) .. " = " .. res .. ";") end
        return
      end
    end
  end
  if ret == "double" then
    local res, rd = self:temp("r"), self:temp("rd", gen.vector)
    args[#args + 1] = (gen.vector and "" or "&") .. rd
    call = call .. table.concat(args, ", ") .. ")"
    if lhs then
      self:line((gen.vector and "" or (res .. " = ")) .. call .. ";")
      local rv = gen.vector and (rd .. "[" .. gen.prefix .. "i]") or rd
      self:tline(self:tlvalue(lhs) .. " = " .. rv .. ";") -- both lvalues on the state after the call
      self:line(u:expr(lhs, true) .. " = " .. res .. ";")
    else
      self:line(call .. ";")
    end
    return
  end
  call = call .. table.concat(args, ", ") .. ")"
  self:line((lhs and (u:expr(lhs, true) .. " = ") or "") .. call .. ";")
end

-- p = malloc(n) / calloc(n): a block of doubles gets a block of tangents
-- beside it, zeroed (calloc), allocated first (the count is read before p
-- changes); nd tangents a cell in vector mode.
function F:alloc(r)
  local lhs = r.lhs
  local s = self.v:expr(lhs).sym
  if self:is_double_sym(s) then
    local n = "(size_t)" .. self.u:expr(r.count, false)
    if self.gen.vector then n = n .. " * (size_t)" .. self.gen.prefix .. "nd" end
    self:line(self:tname(s) .. " = calloc(" .. n .. ", sizeof(double));")
  end
  self:line(self.u:simple(r.id) .. ";")
end

-- A function-wide temporary double (declared once); vec: an array of
-- CG_MAXDIR (vector mode's tangents).
function F:temp(base, vec)
  local name = self.gen.prefix .. base
  if not self.temps[name] then
    self.temps[name] = true
    -- an array zeroed: gcc's -Wmaybe-uninitialized cannot see the loop over nd fill it
    self.temp_list[#self.temp_list + 1] = name .. (vec and "[CG_MAXDIR] = {0.0}" or "")
  end
  return name
end

-- A function-wide temporary int (declared once): vector mode's int results.
function F:itemp(base)
  local name = self.gen.prefix .. base
  if not self.temps[name] then
    self.temps[name] = true
    self.itemp_list[#self.itemp_list + 1] = name
  end
  return name
end

function F:slice(ids)
  for _, st in ipairs(ids) do self:stmt(st) end
end

-- A loop as `for (;;)`: pre slice and test at the top (at the bottom for
-- do), the body, a label for `continue` before the step slice.
function F:loop(r)
  local em = self.em
  self.nloop = self.nloop + 1
  local label = { name = self.gen.prefix .. "step" .. self.nloop, used = false }
  em:open("for (;;) {")
  local function test()
    self:slice(r.pre)
    if r.cond then self:line("if (!(" .. self.u:expr(r.cond, true) .. ")) break;") end
  end
  if r.form ~= "do" then test() end
  self.loops[#self.loops + 1] = label
  self:slice(r.body)
  self.loops[#self.loops] = nil
  em:indent(-1)
  em:label(label) -- the label, if a continue needs it
  em:indent(1)
  self:slice(r.step)
  if r.form == "do" then test() end
  em:close()
end

-- A statement no subgraph holds.
local STMT = ir.cases("stmt", "cgwb.tangent statement", {
  assign = function(_, F, r) F:passive_assign(r.id) end,
  call = function(_, F, r) F:call(r.id) end,
  ["if"] = function(_, F, r)
    local em = F.em
    em:open("if (" .. F.u:expr(r.cond, true) .. ") {")
    F:slice(r["then"])
    if #r["else"] > 0 then
      em:close("} else {")
      em:indent(1)
      F:slice(r["else"])
    end
    em:close()
  end,
  loop = function(_, F, r) F:loop(r) end,
  alloc = function(_, F, r) F:alloc(r) end,
  passive = function(_, F, r) F:line(F.u:simple(r.id) .. ";") end, -- printf, exit, ...: the primal's alone
  free = function(_, F, r) -- the tangents go with the block
    if F.v:expr(r.ptr).type == "double *" then F:line("free(" .. F:tpointer(r.ptr) .. ");") end
    F:line(F.u:simple(r.id) .. ";")
  end,
  ["return"] = function(_, F, r) -- one no graph holds (a flattened one is active: its value is in ret)
    local x = r.value
    if x and F.ret_double then
      if F.gen.vector then F:tline(F.ret_d .. "[" .. F.gen.prefix .. "i] = " .. F:texpr(x) .. ";")
      else F:line("*" .. F.ret_d .. " = " .. F:texpr(x) .. ";") end
    end
    if F.gen.vector then -- the result through cg_ret, the status 0
      if x then F:line("*" .. F.gen.prefix .. "ret = " .. F.u:expr(x, true) .. ";") end
      F:line("return 0;")
    else
      F:line(x and ("return " .. F.u:expr(x, true) .. ";") or "return;")
    end
  end,
  ["break"] = function(_, F) F:line("break;") end,
  continue = function(_, F) -- to the step slice of the innermost loop
    local label = F.loops[#F.loops]
    label.used = true
    F:line("goto " .. label.name .. ";")
  end,
})

function F:stmt(st)
  local r = self.v:stmt(st)
  local sub = self.gen.sub_of[self.fid] and self.gen.sub_of[self.fid][st + 1]
  if sub and sub.first then self:open(sub) end
  if sub then self:active(st) else STMT(r.kind, self, r) end
  if sub and sub.last then self:close() end
  if sub and r.kind == "return" then -- after its tangent
    if self.gen.vector then -- the result through cg_ret, the status 0
      self:line("*" .. self.gen.prefix .. "ret = " .. self.ret .. ";")
      self:line("return 0;")
    else
      self:line("return " .. self.ret .. ";")
    end
  end
end

-- }====

-- {==== a subgraph ====}

-- Opens subgraph sub: its lines go to a sink of their own until close.
function F:open(sub)
  local P = self.gen.prefix
  local sg = sub.sg
  local g = { sg = sg, st = structure(sg), readv = {}, vexpr = {}, have = {}, made = {}, V = {}, D = {}, ccount = 0,
              targets = {} }
  for v, vx in ipairs(sg.vertices) do
    g.V[v] = P .. "v" .. v
    g.D[v] = P .. "d" .. v
    if vx.kind ~= "independent" then g.vexpr[vx.expr - 1] = v end
  end
  for _, r in ipairs(sg.reads) do g.readv[r.expr - 1] = r.vertex end
  g.deps_at = {} -- statement id -> its dependents' indices
  for d, dep in ipairs(sg.dependents) do
    g.deps_at[dep.stmt] = g.deps_at[dep.stmt] or {}
    table.insert(g.deps_at[dep.stmt], d)
  end
  self.g = g
  self.em:push()
  self.em:indent(1)
end

-- The value of expression e inside the open subgraph, as C: a vertex's
-- local (computed here at its first use), else the passive text.
function F:val(e)
  local g, u = self.g, self.u
  local v = g.readv[e]
  if v then
    if g.sg.vertices[v].kind == "independent" and not g.have[v] then
      g.have[v], g.made[v] = true, true
      self:line(g.V[v] .. " = " .. u:expr(e, true) .. ";")
      self:tline(self:dref(g.D[v]) .. " = " .. self:tlvalue(e) .. ";", g.D[v], {}) -- the same cell as the primal
    end
    return g.V[v]
  end
  v = g.vexpr[e]
  if not v then return "(" .. u:expr(e, true) .. ")" end
  local vx = g.sg.vertices[v]
  local r = self.v:expr(e)
  local A, B, C = r.a, r.b, r.c
  local args, value
  if vx.op == "cond" then
    g.ccount = g.ccount + 1
    local c = self.gen.prefix .. "c" .. g.ccount
    g.conds = g.conds or {}
    g.conds[#g.conds + 1] = c
    self:line(c .. " = " .. u:expr(A, true) .. ";")
    args = { c }
    -- each operand computed only where C computes it (a read may be valid on one side only)
    for i, x in ipairs { B, C } do
      local saved = {}
      for k, val in pairs(g.have) do saved[k] = val end
      self.em:open(i == 1 and ("if (" .. c .. ") {") or "} else {")
      args[i + 1] = self:val(x)
      self.em:indent(-1)
      g.have = saved
    end
    self:line("}")
    value = c .. " ? " .. args[2] .. " : " .. args[3]
  else
    args = {}
    for i, x in ipairs { A or false, B or false } do
      if x and (i == 1 or vx.op ~= "neg") then args[i] = self:val(x) end
    end
    if vx.kind == "intrinsic" then
      value = vx.op .. "(" .. table.concat(args, ", ") .. ")"
    elseif vx.op == "neg" then
      value = "-" .. args[1]
    else
      value = args[1] .. " " .. BINOP[vx.op] .. " " .. args[2]
    end
  end
  self:line(g.V[v] .. " = " .. value .. ";")
  g.made[v] = true
  self:partials(v, args)
  return g.V[v]
end

-- The local partials of the edges into vertex v (one weight per source:
-- the sum over its argument slots; +1 and -1 edges need none).
function F:partials(v, args)
  local g = self.g
  local gop = vertex_gop(g.sg.vertices[v])
  for _, src in ipairs(g.st.preds[v]) do
    local key = src .. ":" .. v
    if not is_unit(g.st.mark[key]) then
      local parts = {}
      for _, pos in ipairs(g.st.pos[key]) do parts[#parts + 1] = spell(gop.partials[pos], args, g.V[v]) end
      local name = self.gen.prefix .. "w" .. src .. "_" .. v
      self:line(name .. " = " .. (#parts == 1 and parts[1] or ("(" .. table.concat(parts, ") + (") .. ")")) .. ";",
                name, {})
    end
  end
end

-- An active assignment of the open subgraph: its vertices, the capture of
-- its dependents' tangent cells, the primal write in place.  A return is an
-- assignment to the dependent "return": its tangent goes to the result's
-- tangent, its value to a temporary the return after the subgraph reads.
function F:active(st)
  local g, u = self.g, self.u
  local r = self.v:stmt(st)
  if r.kind == "return" then
    local root = self:val(r.value)
    for _, d in ipairs(g.deps_at[st + 1] or {}) do
      g.targets[d] = self.gen.vector and (self.ret_d .. "[" .. self.gen.prefix .. "i]") or ("*" .. self.ret_d)
    end
    self.ret = self:temp("rval") -- read by the return after the graph's block (F:stmt)
    self:line(self.ret .. " = " .. root .. ";")
    return
  end
  local lhs = r.lhs
  local root = self:val(r.rhs)
  for _, d in ipairs(g.deps_at[st + 1] or {}) do
    if self:op(lhs) == "var" then
      g.targets[d] = self:tlvalue(lhs)
    else
      local t = self.gen.prefix .. "t" .. d
      g.targets[d] = self:dref(t, "*")
      g.ptrs = g.ptrs or {}
      g.ptrs[#g.ptrs + 1] = t
      local cell = self.gen.vector and self:tcell(lhs) or ("&" .. self:tlvalue(lhs))
      self:line(t .. " = " .. cell .. ";") -- the cell as the statement writes it
    end
  end
  self:line(u:expr(lhs, true) .. " = " .. root .. ";")
end

-- The dependents' tangents of the open subgraph, in statement order (of
-- two that may share a cell the later stays, as in the block): the number
-- of multiplications.
function F:rows(w, pred)
  local g, app, order_d = self.g, 0, {}
  for d = 1, #g.sg.dependents do order_d[d] = d end
  table.sort(order_d, function(a, b)
    local sa, sb = g.sg.dependents[a].stmt, g.sg.dependents[b].stmt
    if sa ~= sb then return sa < sb end
    return a < b
  end)
  for _, d in ipairs(order_d) do
    local sum, uses, m = row_sum(g.st, w, pred, d, function(x) return self:dref(g.D[x]) end)
    app = app + m
    for i, x in ipairs(uses) do uses[i] = x:gsub("%[.*$", "") end -- the locals' names
    self:tline(g.targets[d] .. " = " .. sum .. ";", nil, uses)
  end
  return app
end

-- The declarations of the open subgraph's locals that kept lines set:
-- vertex values, independents' tangents, weights (by name), conditions,
-- captured cells.
function F:declare(kept)
  local g, P = self.g, self.gen.prefix
  local set, decl, ws = {}, {}, {}
  for _, l in ipairs(kept) do if l.def then set[l.def] = true end end
  for v = 1, #g.sg.vertices do if g.made[v] then decl[#decl + 1] = g.V[v] .. " = 0.0" end end
  local dv = {} -- vector mode: the independents' tangents, arrays zeroed on the nd directions
  for v = 1, #g.sg.vertices do
    if set[g.D[v]] then
      if self.gen.vector then dv[#dv + 1] = g.D[v] else decl[#decl + 1] = g.D[v] .. " = 0.0" end
    end
  end
  for name in pairs(set) do if name:sub(1, #P + 1) == P .. "w" then ws[#ws + 1] = name end end
  table.sort(ws)
  for _, name in ipairs(ws) do decl[#decl + 1] = name .. " = 0.0" end -- 0: a side of ?: not taken
  if #decl > 0 then self:line("double " .. table.concat(decl, ", ") .. ";") end
  if #dv > 0 then
    self:line("double " .. table.concat(dv, "[CG_MAXDIR], ") .. "[CG_MAXDIR];")
  end
  if g.conds then self:line("int " .. table.concat(g.conds, ", ") .. ";") end
  if g.ptrs then self:line("double *" .. table.concat(g.ptrs, ", *") .. ";") end
  if #dv > 0 and g.conds then -- zero: an independent read on a side of ?: not taken
    local z = {}
    for i, name in ipairs(dv) do z[i] = self:dref(name) .. " = 0.0;" end
    self:tline(#z == 1 and z[1] or ("{ " .. table.concat(z, " ") .. " }"))
  end
end

-- Closes the open subgraph: elimination, the dependents' tangents in
-- statement order, then, in a C block, the declarations and the lines
-- whose local is read.
function F:close()
  local g, P = self.g, self.gen.prefix
  local order, cost = eliminate(g.st, self.gen.spec, self.gen.opts)
  local w, counts, pred = products(g.st, order, function(i, k) return P .. "w" .. i .. "_" .. k end,
    function(text, def, uses) self:line(text, def, uses) end)
  local app = self:rows(w, pred)
  local tan = 0
  for key, mark in pairs(g.st.mark) do
    if tonumber(key:match(":(%d+)$")) <= #g.sg.vertices and not is_unit(mark) then tan = tan + 1 end
  end
  self.gen:count(self.fid, g.sg, { mults = cost.mults, nontrivial = counts.nontrivial, application = app,
                                   tangent = tan })
  local em = self.em
  local kept = emit.keep_read(em:pop())
  em:indent(-1)
  em:open("{")
  self:declare(kept)
  em:indent(-1)
  em:append(kept)
  em:line("}")
  self.g = nil
end

-- }====

-- The text of function fid (0-based) as F_d.
function F:emit()
  local u, gen, f = self.u, self.gen, self.fid
  local fr = self.v:func(f)
  local sym0, ns, np = fr.sym0, fr.nsym, fr.nparam
  self.ret_double = fr.ret == "double"
  self.ret_d = gen.ret_name[f]
  local out = { gen:signature(f) .. " {" }
  local P, zero = gen.prefix, {} -- vector mode: the tangent locals zeroed on the nd directions
  self.em = emit.new { depth = 1 }
  local body = self.em.lines
  for s = sym0 + np, sym0 + ns - 1 do
    if self.v:sym(s).kind == "heap" then goto next end -- an allocation site: no variable
    local a = u:agg(s)
    if a then -- a struct variable, declared at its first member, its tangents' struct zero
      if a.first then
        body[#body + 1] = { ind = 1, text = u:sym_decl(s) .. ";" }
        body[#body + 1] = { ind = 1, text = u:struct_name(a.struct) .. " " .. gen.tvar[s] .. " = {0};" }
      end
      goto next
    end
    body[#body + 1] = { ind = 1, text = u:sym_decl(s) .. ";" }
    if self:is_double_sym(s) then
      local t = gen:decl_as(s, gen.tname[s], false)
      local y = self.v:sym(s)
      local ndim, ptr = y.ndim, y.ptr
      local init = (ndim > 0 and not ptr) and ir.zero_init(ndim)
        or (ptr and " = 0" or " = 0.0")
      if gen.vector and not ptr then -- cell c's tangents at c * nd (an array: flat)
        local cells = ir.cells(y)
        t = "double " .. gen.tname[s] .. "[" .. (cells == 1 and "" or (cells .. " * ")) .. "CG_MAXDIR]"
        init = ""
        zero[#zero + 1] = { name = gen.tname[s], cells = cells }
      end
      body[#body + 1] = { ind = 1, text = t .. init .. ";" }
    end
    ::next::
  end
  if gen.vector then
    local copies = {}
    for s = sym0, sym0 + np - 1 do
      if self:is_double_sym(s) and not self.v:sym(s).ptr and self.v:sym(s).ndim == 0 then
        body[#body + 1] = { ind = 1, text = "double " .. gen.tname[s] .. "[CG_MAXDIR];" }
        copies[#copies + 1] = gen.tname[s] .. "[" .. P .. "i] = " .. P .. "in_" .. gen.tname[s] .. "[" .. P .. "i];"
      end
    end
    for i = 1, #copies, 4 do
      zero[#zero + 1] = { text = table.concat(copies, " ", i, math.min(#copies, i + 3)) }
    end
    body[#body + 1] = { ind = 1, text = "int " .. P .. "i;" }
    body[#body + 1] = { ind = 1, text = ("if (%snd < 0 || %snd > CG_MAXDIR) return -1;"):format(P, P) }
    local ones = {}
    for _, z in ipairs(zero) do
      if z.text then
        body[#body + 1] = { ind = 1, text = ("for (%si = 0; %si < %snd; %si++) { %s }"):format(P, P, P, P, z.text) }
      elseif z.cells == 1 then ones[#ones + 1] = z.name .. "[" .. P .. "i] = 0.0;"
      else
        body[#body + 1] = { ind = 1, text = ("for (%si = 0; %si < %d * %snd; %si++) %s[%si] = 0.0;"):format(P, P,
          z.cells, P, P, z.name, P) }
      end
    end
    for i = 1, #ones, 8 do
      body[#body + 1] = { ind = 1, text = ("for (%si = 0; %si < %snd; %si++) { %s }"):format(P, P, P, P,
        table.concat(ones, " ", i, math.min(#ones, i + 7))) }
    end
  end
  local ndecl = #body
  local voids = {} -- a tangent (or a local of F) may be set and never read: no -Wunused warning
  if gen.vector then voids[1], voids[2] = "(void)" .. P .. "nd;", "(void)" .. P .. "i;" end -- cg_i: no loop over nd in some
  if gen.vector and fr.ret ~= "void" then voids[#voids + 1] = "(void)" .. P .. "ret;" end
  for s = sym0, sym0 + ns - 1 do
    if self.v:sym(s).kind ~= "heap" then
      voids[#voids + 1] = "(void)" .. u.cname[s] .. ";"
      if self:is_double_sym(s) then voids[#voids + 1] = "(void)" .. gen.tname[s] .. ";" end
      if gen.tvar[s] then voids[#voids + 1] = "(void)" .. gen.tvar[s] .. ";" end
    end
  end
  if self.ret_double then voids[#voids + 1] = "(void)" .. self.ret_d .. ";" end
  for i = 1, #voids, 8 do body[#body + 1] = { ind = 1, text = table.concat(voids, " ", i, math.min(#voids, i + 7)) } end
  self:slice(fr.body)
  local last = fr.body[#fr.body]
  if gen.vector and not (last and self.v:stmt(last).kind == "return") then
    self:line("return 0;") -- the end of F reached: status 0
  end
  if #self.temp_list > 0 then
    table.insert(body, ndecl + 1, { ind = 1, text = "double " .. table.concat(self.temp_list, ", ") .. ";" })
  end
  if #self.itemp_list > 0 then
    table.insert(body, ndecl + 1, { ind = 1, text = "int " .. table.concat(self.itemp_list, ", ") .. ";" })
  end
  emit.render_all(body, out)
  out[#out + 1] = "}"
  return table.concat(out, "\n")
end

-- {==== the generated file ====}

local G = {}
G.__index = G

-- The declaration of symbol s under another name (const kept on what a
-- pointer points to).
function G:decl_as(s, name, param)
  local u = self.u
  local old = u.cname[s]
  u.cname[s] = name
  local t = param and u:param(s) or u:sym_decl(s)
  u.cname[s] = old
  return t
end

-- The zero tangent of global s (globals are constants): "0.0" for a
-- scalar, a static zero array of its shape for an array.
function G:zero_global(s)
  local u, y = self.u, self.u.v:sym(s)
  if y.ndim == 0 then return "0.0" end
  if not self.zeros[s] then
    local name = self.prefix .. "zero_" .. u.cname[s]
    self.zeros[s] = name
    local init = ir.zero_init(y.ndim) .. ";"
    local decl = self:decl_as(s, name, false)
    if self.vector then -- flat, nd tangents a cell
      local cells = ir.cells(y)
      decl, init = decl:gsub("%[.*$", "") .. "[" .. cells .. " * CG_MAXDIR]", " = {0.0};"
    end
    self.zero_list[#self.zero_list + 1] = "static " .. decl .. init
  end
  return self.zeros[s]
end

-- F_d's signature: each double and double * parameter followed by its
-- tangent; a double result's tangent through a trailing double *.  F_dv's:
-- cg_nd first, the tangents as flat pointers, a result through a pointer
-- (before a double's tangents), the status returned (0, -1: cg_nd out of
-- 0..CG_MAXDIR).
function G:signature(f)
  local u = self.u
  local fr = u.v:func(f)
  local parts = { self.vector and ("int " .. self.prefix .. "nd") or nil }
  for _, s in ipairs(fr.params) do
    parts[#parts + 1] = u:param(s) -- (nil for a struct's later members)
    local y = u.v:sym(s)
    local a = u:agg(s)
    if a then -- a struct S s by value: followed by S sd, the tangents in its double members
      if a.first and a.arrow then -- S *p: followed by S *pd
        parts[#parts + 1] = (y.const and "const " or "") .. u:struct_name(a.struct) .. " *" .. self.tvar[s]
      elseif a.first then parts[#parts + 1] = u:struct_name(a.struct) .. " " .. self.tvar[s] end
    elseif y.base == "double" then
      if self.vector then -- by value or not: a flat pointer to nd tangents a cell
        if y.rows then -- double **Ad: row i points to the nd tangents a cell of row i
          parts[#parts + 1] = self:decl_as(s, self.tname[s], true)
        elseif y.ptr or y.ndim > 0 then
          parts[#parts + 1] = (y.const and "const " or "") .. "double *" .. (y.restrict and "restrict " or "") .. self.tname[s]
        else -- copied into a local array of that name: F may assign its by-value copy
          parts[#parts + 1] = "const double *" .. self.prefix .. "in_" .. self.tname[s]
        end
      else
        parts[#parts + 1] = self:decl_as(s, self.tname[s], true)
      end
    end
  end
  local ret = fr.ret
  if self.vector and ret ~= "void" then parts[#parts + 1] = ret .. " *" .. self.prefix .. "ret" end
  if ret == "double" then parts[#parts + 1] = "double *" .. self.ret_name[f] end
  return (self.vector and "int" or ret) .. " " .. self.fname_d[f] .. "(" .. (#parts == 0 and "void" or table.concat(parts, ", ")) .. ")"
end

-- Records the costs of subgraph sg of function fid.
function G:count(fid, sg, c)
  if fid ~= self.main then return end
  local key = self.key_of[fid][sg]
  self.report_subs[key.b] = self.report_subs[key.b] or {}
  self.report_subs[key.b][key.s] = c
end

-- Tangent names: NAMEd, unique among the function's names and the file's.
-- The flattening options for function f (F's own options only for F).
local function flatten_opts(opts, is_main)
  local split = opts.split or require("cgwb.flatten").strategies[1]
  local fo = {}
  if type(split) == "string" and split:match("%.lua$") then
    local fn, err = require("cgwb.flatten").load_split(split) -- as cgwb flatten --split loads it: cgwb preloaded
    if not fn then return nil, err end
    split = fn
  end
  if type(split) == "function" then fo.split = split
  elseif require("cgwb.flatten").is_strategy(split) then fo.strategy = split
  else
    local names = require("cgwb.flatten").strategies
    return nil, ("--split: '%s' is not a split strategy (%s or FILE.lua)"):format(tostring(split),
      table.concat(names, ", "))
  end
  if is_main then
    fo.assume, fo.alias, fo.prune = opts.assume, opts.alias, opts.prune
    fo.independents, fo.dependents = opts.independents, opts.dependents
  end
  return fo
end

-- Flattens function f (0-based): the result, or nil, message.
local function flatten(k, f, opts, is_main)
  local fo, err = flatten_opts(opts, is_main)
  if not fo then return nil, err end
  local res, ferr = core.kernel_flatten(k, f + 1, fo)
  if not res then return nil, ferr end
  if fo.split and res.strategy ~= "lua" then
    return nil, "--split: this build's flattening takes no Lua split strategies"
  end
  return res
end


-- Flattens every function of funcs (F, gen.main, with opts; the others
-- with the defaults) and indexes its subgraphs by statement: F's result, or
-- nil, message.
function G:flatten_all(k, funcs, opts)
  local main_res
  for _, f in ipairs(funcs) do
    local res, err = flatten(k, f, opts, f == self.main)
    if not res then return nil, err end
    if f == self.main then main_res = res end
    self.sub_of[f], self.key_of[f] = {}, {}
    for b, blk in ipairs(active_blocks(res)) do
      for s, sg in ipairs(blk.subgraphs) do
        self.key_of[f][sg] = { b = b, s = s }
        for i, st in ipairs(sg.statements) do
          self.sub_of[f][st] = { sg = sg, first = i == 1, last = i == #sg.statements }
        end
      end
    end
  end
  return main_res
end

-- The file's head: a comment, math.h, the globals the body reads, the
-- zero tangents of global arrays, the support functions the body calls
-- (cg_digamma), the prototypes.
function G:head(funcs, body)
  local u = self.u
  local head = { "/* Preaccumulated tangent code of " .. u:name_of("func", self.main) .. " (cgwb tangent; "
    .. "doc/tangent-code.md). */", "#include <math.h>" }
  local stdlib = false
  for _, f in ipairs(funcs) do
    if u:allocates(f) then head[#head + 1] = "#include <stdlib.h>"; stdlib = true; break end
  end
  for _, h in ipairs(u:passive_headers(funcs)) do
    if not (stdlib and h == "#include <stdlib.h>") then head[#head + 1] = h end
  end
  head[#head + 1] = u:null_header()
  head[#head + 1] = u:struct_block(funcs)
  for s = 0, u.nsym - 1 do
    if u.v:sym(s).kind == "global" and emit.mentions(body, u.cname[s]) then
      head[#head + 1] = u:nest_rows(s, u:global_text(s))
    end
  end
  if self.vector then
    head[#head + 1] = "#ifndef CG_MAXDIR\n#define CG_MAXDIR 64 /* the most directions of one call */\n#endif"
  end
  for _, z in ipairs(self.zero_list) do head[#head + 1] = z end
  for _, d in ipairs(unparse.support_defs(body)) do head[#head + 1] = d end
  for _, f in ipairs(funcs) do -- an external's: the user's tangent, of the signature cgwb gives a tangent
    head[#head + 1] = self:signature(f) .. ";" .. (u.v:func(f).external and " /* external (--externals) */" or "")
  end
  return table.concat(head, "\n")
end

--- Preaccumulated tangent code of function fname of kernel k and of every
-- function it calls: C text, and the report {subgraphs = {[b] = {[s] =
-- {mults, nontrivial, application}}} (F's blocks), cost = tangent.costs'};
-- or nil, message.  opts: split ("minimal" default, "statement", a function
-- or a .lua file returning one), assume, alias, prune, independents,
-- dependents (for F), order (a vertex ordering, default "markowitz").
function M.emit(k, fname, opts)
  opts = opts or {}
  local spec, serr = order_spec(opts)
  if not spec then return nil, serr end
  local fid, ferr = k:body_function_id(fname)
  if not fid then return nil, ferr end
  local flat = k:flat()
  local u = unparse.writer(flat, LAY)
  local gen = setmetatable({ u = u, spec = spec, opts = opts, zeros = {}, zero_list = {}, report_subs = {},
                             sub_of = {}, key_of = {}, fname_d = {}, vector = opts.vector and true or false }, G)
  local funcs = u:reachable(fid - 1)
  local defined = {} -- funcs but the external functions: their tangents are the user's (--externals)
  for _, f in ipairs(funcs) do
    local ext = u.v:func(f).external
    if ext then gen.fname_d[f] = gen.vector and ext.tangent_vector or ext.tangent
    else
      gen.fname_d[f] = u:name_of("func", f) .. (gen.vector and "_dv" or "_d")
      defined[#defined + 1] = f
    end
  end
  for _, f in ipairs(defined) do
    for g = 0, u.nfunc - 1 do
      if u:name_of("func", g) == gen.fname_d[f] then
        return nil, ("%s: the tangent of %s would be named %s, a function of the file"):format(k:file(),
          u:name_of("func", f), gen.fname_d[f])
      end
    end
  end
  gen.prefix, gen.main = u:free_prefix(), fid - 1
  local taken = {}
  for _, f in ipairs(funcs) do taken[#taken + 1] = gen.fname_d[f] end
  gen.tname, gen.ret_name, gen.tvar = u:derivative_names(funcs, taken, "d", "_ret_d")
  if gen.vector and next(gen.tvar) then
    return nil, ("%s: struct variables are outside the vector tangent code (cgwb tangent without --vector "
      .. "takes them)"):format(k:file())
  end
  local main_res, err = gen:flatten_all(k, defined, opts)
  if not main_res then return nil, err end
  local texts = {}
  for _, f in ipairs(defined) do
    local fn = setmetatable({ u = u, v = u.v, gen = gen, fid = f, temps = {}, temp_list = {}, itemp_list = {}, loops = {},
                              nloop = 0 }, F)
    local ok, text = errors.catch(fn.emit, fn) -- a refusal or bad input; a bug is raised on
    if not ok then return nil, ("%s: %s: %s"):format(k:file(), u:name_of("func", f), tostring(text)) end
    texts[#texts + 1] = text
  end
  local ok, report = errors.catch(M.costs, main_res, { order = spec, seed = opts.seed })
  if not ok then return nil, tostring(report) end
  report.subgraphs = gen.report_subs
  local body = table.concat(texts, "\n\n")
  return unparse.pretty_members(gen:head(funcs, body) .. "\n\n" .. body .. "\n"), report
end

return M
