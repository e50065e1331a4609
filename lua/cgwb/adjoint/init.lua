--- cgwb.adjoint: adjoint C code of a kernel (doc/adjoint-code.md).
-- The restoration scheme (Hascoet, Fidanova & Held, Fig. 1): every function
-- g reached from F gets g_fwd (the primal, pushing the old value of every
-- overwritten variable and the control: branches taken, trip counts; its
-- locals' final values at its end) and g_rev (pops its locals, then each
-- statement in reverse: pop the old value of its left side, then the
-- statement's adjoint from the restored operand values).  F_b = F_fwd,
-- F_rev, then a plain copy F_p of F for F's results.  Loops the analysis
-- accepts as independent (core.kernel_loops) are adjoined per iteration
-- (ibid., sec. 3, Fig. 4): each iteration's taped forward immediately
-- followed by its reverse; a terminal loop does that in the forward sweep,
-- any other is dry-run there (no tape, a snapshot of what it overwrites)
-- and re-run that way when the reverse sweep reaches it (ibid., Fig. 5).
-- The IR is read through its cgwb.ir view (the writer's u.v: records with
-- named fields, ids 0-based, absent parts nil).
--
--   adjoint.emit(kernel, fname, opts) -> code, report | nil, message
-- @module cgwb.adjoint
local core = require "cgwb.core"
local ir = require "cgwb.ir"
local unparse = require "cgwb.ir.unparse"
local progress = require "cgwb.progress"
local emit = require "cgwb.ir.emit"
local errors = require "cgwb.util.errors"
local B = require "cgwb.adjoint.base"
local control_problem = require("cgwb.adjoint.loops").control_problem
require "cgwb.adjoint.bodies"

local M = {}

-- This file holds the file generator G (names, variants, F_b), the choice
-- of the loops, the activity and the report.  One function's sweeps are
-- the class E, which the parts define, each requiring only those below it:
-- base (E, the shared helpers), shadow (activity of accesses, shadows that
-- may be null), check (-DCGWB_CHECK_ASSUME), sweeps (each statement's
-- forward, reverse and plain code), loops (loops adjoined per iteration),
-- bodies (a function's sweeps as C functions).

local E, LAY, double, indirect = B.E, B.LAY, B.double, B.indirect

-- {==== the file ====}

local G = {}
G.__index = G

-- F's parameter list with each double and double * parameter followed by
-- its adjoint pointer.
function G:adj_params(f)
  local u, v = self.u, self.v
  local parts = {}
  for _, s in ipairs(v:func(f).params) do
    local y = v:sym(s)
    parts[#parts + 1] = u:param(s) -- (nil for a struct's later members)
    local a = u:agg(s)
    if a then -- a struct S s by value: followed by S *sb, the adjoints in its double members
      if a.first then parts[#parts + 1] = u:struct_name(a.struct) .. " *" .. self.bvar[s] end -- (S *p: S *pb too)
    elseif double(y) then
      if indirect(y) then
        local old = u.cname[s]
        u.cname[s] = self.bname[s]
        local t = u:param(s):gsub("^const ", "")
        u.cname[s] = old
        parts[#parts + 1] = t
      else
        parts[#parts + 1] = "double *" .. self.bname[s]
      end
    end
  end
  return #parts == 0 and "void" or table.concat(parts, ", ")
end

-- The prototypes adjoint code declares for external function f (--externals):
-- g itself and the user's adjoint g_b, whose parameters are a reverse sweep's.
function G:external_protos(f)
  local fr = self.v:func(f)
  local sig = self:adj_params(f)
  if fr.ret == "double" then sig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. self.ret_name[f] end
  return { ("%s %s(%s); /* external (--externals) */"):format(fr.ret, fr.name, self:plain_params(f)),
    ("void %s(%s); /* its adjoint, the user's */"):format(fr.external.adjoint, sig) }
end

-- f's own parameter list (its plain copy's).
function G:plain_params(f)
  local parts = {}
  for _, s in ipairs(self.v:func(f).params) do parts[#parts + 1] = self.u:param(s) end
  return #parts == 0 and "void" or table.concat(parts, ", ")
end

-- The variant of function f for the activity pattern pat of a call
-- (E:call_pattern): {fwd, rev} names of its sweeps, queued for emit_raw.
-- Its activity is f's own, with the "a" parameters independent (and the
-- pointers among them dependent, and a double result); the "p" ones get 0
-- or a dummy as adjoint and are never touched (Hovland, Norris, Utke &
-- Strout, sec. 4, per call context).
function G:variant(f, pat)
  local key = f .. ":" .. pat
  if self.variants[key] then return self.variants[key] end
  local n = self.v:func(f).name
  local suffix = (f ~= self.main and not pat:find("p", 1, true)) and "" or ("_" .. pat:gsub("%-", "i"))
  local var = { f = f, pat = pat, fwd = n .. "_fwd" .. suffix, rev = n .. "_rev" .. suffix }
  for _, x in ipairs { var.fwd, var.rev } do
    if self.taken[x] then
      error(errors.refused(("%s: the adjoint code of %s needs the name %s, a name of the file"):format(self.file, n,
        x)))
    end
  end
  self.variants[key] = var
  self.queue[#self.queue + 1] = var
  return var
end

-- A zero adjoint of a global array (globals are constants; what a callee
-- adds to it is dropped).
function G:zero_global(s)
  local u = self.u
  if not self.zeros[s] then
    local name = self.prefix .. "zero_" .. u.cname[s]
    self.zeros[s] = name
    local y = self.v:sym(s)
    self.zero_list[#self.zero_list + 1] = "static double " .. name .. "[" .. math.max(y.dim0, 1) .. "]"
      .. ir.dims_text(y):gsub("^%[%d*%]", "") .. ir.zero_init(math.max(y.ndim, 1)) .. ";"
  end
  return self.zeros[s]
end


-- A plain copy of function f named name (calls renamed to plain copies).
function G:plain_func(f)
  local u, v = self.u, self.v
  local fn = setmetatable({ u = u, v = v, gen = self, fid = f }, E)
  local fr = v:func(f)
  local decl, names = {}, {}
  for s = fr.sym0 + fr.nparam, fr.sym0 + fr.nsym - 1 do
    local d = v:sym(s).kind ~= "heap" and u:sym_decl(s) -- (nil for a struct's later members)
    if d then decl[#decl + 1] = d .. ";" end
  end
  for s = fr.sym0, fr.sym0 + fr.nsym - 1 do -- the user's unused ones too
    if v:sym(s).kind ~= "heap" then names[#names + 1] = u.cname[s] end
  end
  local head = ("static %s %s(%s)"):format(fr.ret, self.plain_name[f], self:plain_params(f))
  return fn:sweep(head, decl, function()
    for _, st in ipairs(fr.body) do
      local r = v:stmt(st)
      if r.kind == "return" then
        fn:put(r.value and ("return " .. fn:ex(r.value)) or "return")
      else
        fn:plain(st)
      end
    end
  end, E.voids(names))
end

-- The loops to adjoin per iteration: {[stmt id 1-based] = info row}, the
-- outermost chosen ones only; or raises a refusal.
local function choose_loops(gen, info, sel)
  local chosen, transformed = {}, {}
  if sel == nil or sel == "none" then return chosen, transformed end
  local lines = nil
  if type(sel) == "table" then
    lines = {}
    for _, l in ipairs(sel) do lines[l] = true end
    for _, l in ipairs(sel) do
      local found = false
      for _, row in ipairs(info.loops) do if row.line == l then found = true end end
      if not found then
        error(errors.input(("%s: --loops: no loop starts at line %s"):format(gen.file, tostring(l))))
      end
    end
  elseif sel ~= "auto" and type(sel) ~= "function" then
    error(errors.input(("--loops: '%s' is not auto, none, a list of lines or a function"):format(tostring(sel))))
  end
  for i, row in ipairs(info.loops) do
    local want
    if sel == "auto" then want = row.verdict == "accept"
    elseif lines then want = lines[row.line] or false
    else
      local ok, r = pcall(sel, row) -- the user's function: whatever it raises is bad input
      if not ok then error(errors.input(("the loops' function: %s"):format(tostring(r)))) end
      want = r and true or false
    end
    if want and row.verdict ~= "accept" then
      error(errors.refused(("%s:%d:%d: loop at line %d is not independent: %s"):format(gen.file, row.line, row.col,
        row.line, tostring(row.reason))))
    end
    local bad = want and control_problem(gen.v, row.stmt - 1)
    if bad then
      if lines then
        error(errors.refused(("%s:%d:%d: adjoint code: %s is not supported yet"):format(gen.file, row.line, row.col,
          bad)))
      end
      want = false -- auto or a function: this loop keeps the standard adjoint
    end
    if want then
      local p, nested = row.parent, false
      while p do
        if transformed[p] then nested = true end
        p = info.loops[p].parent
      end
      if not nested then
        transformed[i] = true
        chosen[row.stmt] = row
      end
    end
  end
  return chosen, transformed
end

--- What -DCGWB_CHECK_ASSUME checks for function f: {apart = {{i, j}, ...}
-- parameter indices (0-based) an --assume a!=b or a restrict keeps apart,
-- same = {{i, j}, ...} (a==b), ptrs = the pointer parameters' indices,
-- work = the work arrays' indices}, or nil when there is nothing to check.
local function check_plan(v, f, assume, work)
  local params = v:func(f).params
  local idx, ptrs = {}, {}
  for i, s in ipairs(params) do
    local y = v:sym(s)
    idx[y.name] = i - 1
    if indirect(y) then ptrs[#ptrs + 1] = i - 1 end
  end
  local plan, seen = { apart = {}, same = {}, ptrs = ptrs, work = work }, {}
  local function apart(i, j)
    if i > j then i, j = j, i end
    if not seen[i .. ":" .. j] then seen[i .. ":" .. j] = true; plan.apart[#plan.apart + 1] = { i, j } end
  end
  for _, a in ipairs(assume or {}) do
    local x, op, y = tostring(a):match("^%s*([%w_]+)%s*([!=]=)%s*([%w_]+)%s*$")
    if x and idx[x] and idx[y] then
      if op == "!=" then apart(idx[x], idx[y]) else plan.same[#plan.same + 1] = { idx[x], idx[y] } end
    end
  end
  for _, i in ipairs(ptrs) do
    local y = v:sym(params[i + 1])
    if y.restrict then
      for _, j in ipairs(ptrs) do if j ~= i and v:sym(params[j + 1]).base == y.base then apart(i, j) end end
    end
  end
  table.sort(plan.apart, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  if #plan.apart == 0 and #plan.same == 0 and #work == 0 then return nil end
  return plan
end

--- The activity of function fname for opts.independents, opts.dependents:
-- {stmt = active statements, expr = the access expressions that may touch
-- an active object, name = active names} and the analysis's activity table;
-- or raises.
local function activity(gen, k, fname, opts)
  local ok, a, err = pcall(core.kernel_analyze, k, fname, { assume = opts.assume, alias = opts.alias,
    independents = opts.independents, dependents = opts.dependents })
  -- what the binding raises is bad input (a name that is no parameter), or the alias function's own error
  if not ok then error(errors.input(("%s: %s"):format(gen.file, tostring(a):gsub("^.-:%d+: ", "")))) end
  if not a then error(errors.input(("%s"):format(err))) end
  local act = {}
  for _, n in ipairs(a.activity.active_symbols) do act[n] = true end
  for _, n in ipairs(a.activity.dependents) do act[n] = true end
  local stmt = {}
  for _, s in ipairs(a.activity.active_stmts) do stmt[s] = true end
  local objname = {}
  for i, o in ipairs(a.alias.objects) do objname[i] = o.name end
  local setact = {}
  for _, st in ipairs(a.alias.sets) do
    local on = false
    for _, o in ipairs(st.objects) do if act[objname[o]] then on = true end end
    setact[st.id] = on
  end
  local expr = {}
  for _, ac in ipairs(a.alias.accesses) do
    if ac.expr and setact[ac.set] then expr[ac.expr - 1] = true end
  end
  -- the pointer parameter (its index) an access's cells all belong to, for -DCGWB_CHECK_ASSUME
  local fr = gen.v:func(a.func and k:function_id(a.func) - 1)
  local sym0, np = fr.sym0, fr.nparam
  local settag = {}
  for _, st in ipairs(a.alias.sets) do
    local tag
    for _, o in ipairs(st.objects) do
      local sym = a.alias.objects[o].symbol - 1
      local t = (sym >= sym0 and sym < sym0 + np) and sym - sym0 or false
      if tag == nil then tag = t elseif tag ~= t then tag = false end
    end
    settag[st.id] = tag
  end
  local tagof, objsyms = {}, {}
  local setsyms = {} -- the symbols of each set's objects, for the writes of a dry run (E:save_cell)
  for _, st in ipairs(a.alias.sets) do
    local syms = {}
    for i, o in ipairs(st.objects) do syms[i] = a.alias.objects[o].symbol - 1 end
    setsyms[st.id] = syms
  end
  for _, ac in ipairs(a.alias.accesses) do
    if ac.expr and settag[ac.set] then tagof[ac.expr - 1] = settag[ac.set] end
    if ac.expr then objsyms[ac.expr - 1] = setsyms[ac.set] end
  end
  return { stmt = stmt, expr = expr, name = act, tagof = tagof, objsyms = objsyms }, a.activity
end

-- emit's work; refusals raise errors.refused, bad input errors.input.
local function emit_raw(k, fname, opts)
  local fid, ferr = k:body_function_id(fname)
  if not fid then error(errors.input(("%s"):format(ferr))) end
  local flat = k:flat()
  local u = unparse.writer(flat, LAY)
  local v = u.v
  local gen = setmetatable({ u = u, v = v, file = k:file(), zeros = {}, zero_list = {}, plain_name = {},
                             variants = {}, queue = {}, main = fid - 1 }, G)
  local funcs = u:reachable(fid - 1)
  local fnames, taken = {}, {}
  for g = 0, v.nfunc - 1 do taken[v:func(g).name] = true end
  local defined = {} -- funcs but the externals (--externals: the user's g and g_b are called)
  for _, f in ipairs(funcs) do
    local n = v:func(f).name
    gen.plain_name[f] = v:func(f).external and n or (n .. "_p")
    if not v:func(f).external then defined[#defined + 1] = f end
    for _, x in ipairs(v:func(f).external and {} or { n .. "_fwd", n .. "_rev", n .. "_p", n .. "_b", n .. "_b_stats", n .. "_b_reset" }) do
      if taken[x] then
        error(errors.refused(("%s: the adjoint code of %s needs the name %s, a function of the file"):format(gen.file,
          n, x)))
      end
      fnames[#fnames + 1] = x
    end
  end
  gen.prefix = u:free_prefix()
  for _, f in ipairs(funcs) do -- a pointer member to const double: its adjoints could not be written
    local fr = v:func(f)
    for s = fr.sym0, fr.sym0 + fr.nsym - 1 do
      local a, y = u:agg(s), v:sym(s)
      if a and y.ptr and double(y) and y.const and y.ndim == 0 then
        error(errors.refused(("%s:%d:%d: the member '%s' of '%s' points to const double: its adjoints, in the "
          .. "same member of the adjoint struct, could not be written (not yet supported)"):format(gen.file, y.line,
          y.col, a.member, a.var)))
      end
    end
  end
  gen.bname, gen.ret_name, gen.bvar = u:derivative_names(funcs, fnames, "b", "_retb")
  gen.bstruct = {} -- each struct member's: its variable's adjoint struct (a parameter's: the pointer S *sb)
  local cur
  for s = 0, v.nsym - 1 do
    taken[u.cname[s]] = true
    if gen.bname[s] then taken[gen.bname[s]] = true end
    local a = u:agg(s)
    if a then
      if a.first then -- (a function the adjoint does not reach has no names)
        cur = gen.bvar[s]
        if cur then taken[cur] = true end
      end
      gen.bstruct[s] = cur
      if cur and gen.bname[s] and v:sym(s).kind == "param" and not a.arrow then gen.bname[s] = cur .. "->" .. a.member end
    end
  end
  gen.taken = taken
  local main = fid - 1
  local mr = v:func(main)
  local main_act, act = activity(gen, k, fid, opts)
  local work = {}
  do -- the work arrays: active pointer parameters neither independent nor dependent
    local role = {}
    for _, n in ipairs(act.independents) do role[n] = true end
    for _, n in ipairs(act.dependents) do role[n] = true end
    for i, s in ipairs(mr.params) do
      local y = v:sym(s)
      if double(y) and main_act.name[u:analysis_name(s)] and not role[y.name] and indirect(y) then
        work[#work + 1] = i - 1
      end
    end
  end
  gen.check = check_plan(v, main, opts.assume, work)
  -- the loops
  local sel = opts.loops or "none"
  local info = opts.info
  if not info then -- with "none" too: the report lists the loops
    local err
    info, err = core.kernel_loops(k, fid, { assume = opts.assume, alias = opts.alias,
      independents = opts.independents, dependents = opts.dependents })
    if not info and sel ~= "none" then error(errors.input(("%s"):format(err))) end
  end
  local chosen, transformed = {}, {}
  if info then chosen, transformed = choose_loops(gen, info, sel) end
  local texts, protos = {}, {}
  gen.regions = {} -- where a pointer may hold a local's address, pointers are saved through the frame registry
  for _, f in ipairs(funcs) do
    gen.regions[f] = setmetatable({ u = u, v = v, gen = gen, fid = f }, E):regions()
    if #gen.regions[f] > 0 then gen.frames = true end
  end
  local r = progress.start("adjoint code", #funcs) -- per function (variants may be more)
  local pat = {}
  for _, s in ipairs(mr.params) do
    pat[#pat + 1] = not double(v:sym(s)) and "-" or (main_act.name[u:analysis_name(s)] and "a" or "p")
  end
  local mname = mr.name
  local mv = { f = main, pat = table.concat(pat), fwd = mname .. "_fwd", rev = mname .. "_rev", act = main_act, main = true }
  table.insert(gen.queue, 1, mv)
  local done = 0
  while gen.queue[done + 1] do
    done = done + 1
    r:update(math.min(done - 1, #funcs))
    local var = gen.queue[done]
    local f = var.f
    local fr = v:func(f)
    if not var.act then
      local ind, dep = {}, {}
      for i, s in ipairs(fr.params) do
        local y = v:sym(s)
        if var.pat:sub(i, i) == "a" then
          ind[#ind + 1] = y.name
          if indirect(y) then dep[#dep + 1] = y.name end
        end
      end
      if fr.ret == "double" then dep[#dep + 1] = "return" end
      var.act = activity(gen, k, f + 1, { independents = ind, dependents = dep })
    end
    local fn = setmetatable({ u = u, v = v, gen = gen, fid = f, act = var.act, names = var, param_active = {} }, E)
    for i, s in ipairs(fr.params) do fn.param_active[s] = var.pat:sub(i, i) == "a" end
    if var.main then
      fn.chosen = chosen
      for _, row in pairs(chosen) do if row.terminal then fn.terminal_fused = true end end
    end
    local fwd, rev = fn:emit()
    texts[#texts + 1] = fwd
    texts[#texts + 1] = rev
    local sig = gen:adj_params(f)
    protos[#protos + 1] = ("static %s %s(%s);"):format(fr.ret, var.fwd, sig)
    local rsig = sig
    if fr.ret == "double" then rsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[f] end
    protos[#protos + 1] = ("static void %s(%s);"):format(var.rev, rsig)
  end
  for _, f in ipairs(funcs) do
    if v:func(f).external then
      for _, p in ipairs(gen:external_protos(f)) do protos[#protos + 1] = p end
    else
      texts[#texts + 1] = gen:plain_func(f)
      protos[#protos + 1] = ("static %s %s(%s);"):format(v:func(f).ret, gen.plain_name[f], gen:plain_params(f))
    end
  end
  r:finish(#funcs)
  -- F_b
  local name = mr.name
  local ret = mr.ret
  local sig = gen:adj_params(main)
  local bsig = sig
  if ret == "double" then bsig = (sig == "void" and "" or (sig .. ", ")) .. "double " .. gen.ret_name[main] end
  local sym0, np = mr.sym0, mr.nparam
  local args, pargs = {}, {}
  for _, s in ipairs(mr.params) do
    local a = u:agg(s)
    if a then -- a struct: it and the pointer to its adjoints
      if a.first then
        local n = unparse.var_of(u.cname[s])
        args[#args + 1], pargs[#pargs + 1], args[#args + 2] = n, n, gen.bvar[s]
      end
    else
      args[#args + 1] = u.cname[s]
      pargs[#pargs + 1] = u.cname[s]
      if double(v:sym(s)) then args[#args + 1] = gen.bname[s] end
    end
  end
  local rargs = { table.unpack(args) }
  if ret == "double" then rargs[#rargs + 1] = gen.ret_name[main] end
  local em = emit.new() -- the file
  em:push() -- its body first: the head declares the globals the body reads
  for i, t in ipairs(texts) do
    if i > 1 then em:line("") end
    em:append(t)
  end
  em:line("")
  em:open(("%s %s_b(%s) {"):format(ret, name, bsig))
  local chk = gen.check
  if chk then -- the assumptions' check (-DCGWB_CHECK_ASSUME): F's pointer parameters are tags 0 ..
    local pairs_, names = {}, {}
    for _, pr in ipairs(chk.apart) do pairs_[#pairs_ + 1] = pr[1] .. ", " .. pr[2] end
    for i = 0, np - 1 do names[#names + 1] = '"' .. v:sym(sym0 + i).name .. '"' end
    em:directive("#ifdef CGWB_CHECK_ASSUME")
    if #pairs_ == 0 then pairs_[1] = "-1, -1" end -- none: C has no empty initializer
    em:line(("static const int cgwb_apart_[] = {%s};"):format(table.concat(pairs_, ", ")))
    em:line(("static const char *const cgwb_names_[] = {%s};"):format(table.concat(names, ", ")))
    for _, i in ipairs(chk.work) do
      em:line(('CGWB_CHK_WORK("%s_b", %d, "%s");'):format(name, i, v:sym(sym0 + i).name))
    end
    for _, pr in ipairs(chk.same) do
      em:line(('CGWB_CHK_SAME("%s_b", %s, %s, "%s", "%s");'):format(name, u.cname[sym0 + pr[1]], u.cname[sym0 + pr[2]],
        v:sym(sym0 + pr[1]).name, v:sym(sym0 + pr[2]).name))
    end
    for _, i in ipairs(chk.ptrs) do em:line(("CGWB_CHK_ARG(%d, %d);"):format(i, i)) end
    em:directive("#endif")
  end
  em:line(("%s%s(%s);"):format(ret == "void" and "" or "(void)", mv.fwd, table.concat(args, ", ")))
  if chk then em:line(('CGWB_CHK_VERIFY("%s_b", cgwb_apart_, %d, cgwb_names_);'):format(name, #chk.apart)) end
  em:line(("%s(%s);"):format(mv.rev, table.concat(rargs, ", ")))
  em:line(("%s%s(%s);"):format(ret == "void" and "" or "return ", gen.plain_name[main], table.concat(pargs, ", ")))
  em:close()
  em:open(("void %s_b_stats(cgwb_adstats *out) {"):format(name))
  em:line("cgwb_adstats_get(out);")
  em:close()
  em:open(("void %s_b_reset(void) {"):format(name))
  em:line("cgwb_adstats_reset();")
  em:close()
  local body = em:pop()
  local body_text = table.concat(emit.render_all(body), "\n")
  em:line(("/* Adjoint code of %s (cgwb adjoint; doc/adjoint-code.md). */"):format(name))
  for _, l in ipairs { "#include <math.h>", "#include <stddef.h>", "#include <stdlib.h>", '#include "cgwb_adstack.h"' } do
    em:line(l)
  end
  for _, h in ipairs(u:passive_headers(funcs)) do
    if h ~= "#include <stdlib.h>" then em:line(h) end
  end
  local sblock = u:struct_block(funcs)
  if sblock then em:line(sblock) end
  for s = 0, v.nsym - 1 do -- the globals the body reads (its text names them: the one scan of generated text)
    if v:sym(s).kind == "global" and emit.mentions(body_text, u.cname[s]) then em:line(u:nest_rows(s, u:global_text(s))) end
  end
  for _, z in ipairs(gen.zero_list) do em:line(z) end
  for _, d in ipairs(unparse.support_defs(body_text)) do -- cg_digamma where a partial calls it
    for l in (d .. "\n"):gmatch("(.-)\n") do em:line(l) end
  end
  for _, p in ipairs(protos) do em:line(p) end
  em:line(("%s %s_b(%s);"):format(ret, name, bsig))
  em:line(("void %s_b_stats(cgwb_adstats *out);"):format(name))
  em:line(("void %s_b_reset(void);"):format(name))
  em:line("")
  em:append(body)
  -- the report
  local json = require "cgwb.json"
  local rep = { ["function"] = name, independents = json.array(act.independents),
                dependents = json.array(act.dependents), loops = json.array({}),
                passive = json.array({}), work = json.array({}) }
  local role = {}
  for _, n in ipairs(act.independents) do role[n] = true end
  for _, n in ipairs(act.dependents) do role[n] = true end
  for _, s in ipairs(mr.params) do -- in parameter order
    local y = v:sym(s)
    if double(y) then
      if not main_act.name[u:analysis_name(s)] then rep.passive[#rep.passive + 1] = y.name
      elseif not role[y.name] and indirect(y) then rep.work[#rep.work + 1] = y.name end
    end
  end
  for i, row in ipairs(info and info.loops or {}) do
    local access = {}
    for _, a in ipairs(row.access or {}) do access[a.name] = a.class end
    local snap = json.array({})
    for _, sv in ipairs(row.snapshot or {}) do snap[#snap + 1] = sv.name end
    rep.loops[#rep.loops + 1] = { line = row.line, independent = row.independent, verdict = row.verdict,
      reason = row.reason, access = access, terminal = row.terminal, dry_run = row.dry_run, snapshot = snap,
      transformed = transformed[i] or false, pragma = row.pragma_status or row.pragma or false }
  end
  return unparse.pretty_members(em:text() .. "\n"), rep
end

--- Adjoint code of function fname of kernel k and every function it
-- calls: C text and the report (doc/adjoint-code.md), or nil, message.
function M.emit(k, fname, opts)
  opts = opts or {}
  local ok, code, report = errors.catch(emit_raw, k, fname, opts) -- a refusal or bad input; a bug is raised on
  if ok then return code, report end
  return nil, code
end

-- {==== the runtime and the measures ====}

--- The path of the runtime header (installed with the modules).
function M.runtime_header()
  local path = package.searchpath("cgwb.runtime.cgwb_adstack", (package.path:gsub("%.lua", ".h")))
  return path
end

--- Compiles each adjoint text of variants ({name = code}) with a main
-- calling it once on call (core form) and measures its stacks: {name =
-- {tape_bytes, tape_high_water, snapshot_bytes, snapshot_high_water}}, or
-- nil, message.  opts.cc: the compiler (default "cc").  The harness is
-- cgwb.adjoint_measure, loaded only here.
function M.measure(k, fname, variants, call, opts)
  return require("cgwb.adjoint_measure").measure(k, fname, variants, call,
    { cc = opts and opts.cc, header = M.runtime_header() })
end

return M
