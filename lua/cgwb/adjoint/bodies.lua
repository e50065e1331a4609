-- cgwb.adjoint.bodies: a function's sweeps as C functions (E:emit, E:
-- cgwb.adjoint.base's class): the locals and their adjoints, the values
-- crossing from g_fwd to g_rev, the frame registry's regions, and each
-- sweep's function around its body.  Internal to cgwb.adjoint.
local ir = require "cgwb.ir"
local emit = require "cgwb.ir.emit"
local B = require "cgwb.adjoint.base"
require "cgwb.adjoint.sweeps"
require "cgwb.adjoint.loops"

local E, double, scalar, scalar_type, PUSH, POP = B.E, B.double, B.scalar, B.scalar_type, B.PUSH, B.POP

-- The locals of the sweeps: declarations of the primal locals (zeroed),
-- of the adjoints, and the symbols whose values cross from g_fwd to g_rev.
function E:locals()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local decl, adecl, cross, across = {}, {}, {}, {}
  local written = {}
  for _, r in ipairs(self:own_stmts()) do
    if (r.kind == "assign" or r.kind == "call") and r.lhs then
      local x = v:expr(r.lhs)
      if x.op == "var" then written[x.sym] = true end
    end
  end
  for s = fr.sym0, fr.sym0 + fr.nsym - 1 do
    local y = v:sym(s)
    local is_param = s < fr.sym0 + fr.nparam
    if y.kind == "heap" then goto next end -- an allocation site: no variable
    if u:agg(s) then -- a struct variable: declared, with its adjoints' struct, at its first member
      local a = u:agg(s)
      if not is_param or written[s] then cross[#cross + 1] = s end
      if a.first and not a.arrow then
        if not is_param then decl[#decl + 1] = u:sym_decl(s) .. " = {0};" end
        local b = (is_param and gen.prefix or "") .. gen.bvar[s]
        adecl[#adecl + 1] = u:struct_name(a.struct) .. " " .. b .. " = {0};"
        across[#across + 1] = b
      end
      goto next
    end
    if not is_param then
      local init = (y.ndim > 0 and not y.ptr) and (" = " .. ("{"):rep(y.ndim) .. "0" .. ("}"):rep(y.ndim))
        or (y.ptr and " = 0" or (double(y) and " = 0.0" or " = 0"))
      local d = u:sym_decl(s):gsub("^const ", y.ptr and "const " or "")
      decl[#decl + 1] = d .. init .. ";"
    end
    if not is_param or written[s] then cross[#cross + 1] = s end
    if double(y) then
      local b = gen.bname[s]
      if y.ptr and not is_param then
        adecl[#adecl + 1] = "double *" .. b .. " = 0;"
      elseif not is_param and y.ndim > 0 then
        adecl[#adecl + 1] = "double " .. b .. ir.dims_text(y) .. ir.zero_init(y.ndim) .. ";"
        across[#across + 1] = b
      elseif not is_param then
        adecl[#adecl + 1] = "double " .. b .. " = 0.0;"
        across[#across + 1] = b
      elseif scalar(y) then
        adecl[#adecl + 1] = "double " .. gen.prefix .. b .. " = 0.0;" -- a by-value parameter's adjoint, added at the end
        across[#across + 1] = gen.prefix .. b
      end
    end
    ::next::
  end
  return decl, adecl, cross, across
end

-- The frame registry's lines of the sweeps of function f: its local arrays
-- and the locals whose address is taken, with their adjoints, the same in
-- g_fwd and g_rev (the runtime restores a saved pointer into such a local
-- as the same place in g_rev's copy; g_fwd's frame is gone by then).
function E:regions()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local lines = {}
  local function region(n, array) lines[#lines + 1] = ("cgwb_frame_region(%s%s, sizeof %s);"):format(array and "" or "&", n, n) end
  for s = fr.sym0 + fr.nparam, fr.sym0 + fr.nsym - 1 do
    local y = v:sym(s) -- the front end marks a scalar whose address is taken (addr)
    if not y.ptr and (y.ndim > 0 or y.addr) and y.kind ~= "heap" then
      region(u.cname[s], y.ndim > 0)
      if double(y) then region(gen.bname[s], y.ndim > 0) end
    end
  end
  if #lines > 0 then table.insert(lines, 1, "cgwb_frame_enter();") end
  return lines
end

-- Pushes (or pops, in reverse) the values of the symbols in cross.
function E:cross(cross, pop)
  local v, u = self.v, self.u
  local first, last, step = 1, #cross, 1
  if pop then first, last, step = #cross, 1, -1 end
  for i = first, last, step do
    local s = cross[i]
    local y = v:sym(s)
    local n = u.cname[s]
    if y.ndim > 0 and not y.ptr then
      self:call(pop and "cgwb_pop_n" or "cgwb_push_n", n .. ", sizeof " .. n)
    elseif y.ptr and pop then
      if double(y) then self:set(self.gen.bname[s], "(double *)" .. self:ptr_save("pop")) end
      self:set(n, self:ptr_save("pop"))
    elseif y.ptr then
      self:call(self:ptr_save("push"), n)
      if double(y) then self:call(self:ptr_save("push"), self.gen.bname[s]) end
    elseif pop then
      self:set(n, POP[scalar_type(y)])
    else
      self:call(PUSH[scalar_type(y)], n)
    end
  end
end

-- The C types of the sweeps' temporaries, in the order they are declared.
local TEMP_TYPES = { "int", "double", "size_t", "void *" }

-- A function of a sweep: head, then its declarations decl, its
-- temporaries', the lines post and the body run() emits into self.em (a
-- new emitter); -> its line records.
function E:sweep(head, decl, run, post)
  local em = emit.new { depth = 1, prefix = self.gen.prefix }
  self.em = em
  em:push() -- the body first: the temporaries it makes are declared above it
  run()
  local body = em:pop()
  em:indent(-1)
  em:open(head .. " {")
  for _, d in ipairs(decl) do em:line(d) end
  for _, d in ipairs(em:decls(TEMP_TYPES, 10)) do em:line(d) end
  for _, l in ipairs(post or {}) do em:line(l) end
  em:append(body)
  em:close()
  return em:sink()
end

-- The void casts of every name (a local may be set and never read).
local function voids(names)
  local out = {}
  for i = 1, #names, 8 do
    local t = {}
    for j = i, math.min(#names, i + 7) do t[#t + 1] = "(void)" .. names[j] .. ";" end
    out[#out + 1] = table.concat(t, " ")
  end
  return out
end
E.voids = voids

function E:emit()
  local v, u, gen = self.v, self.u, self.gen
  local fr = v:func(self.fid)
  local ret, body = fr.ret, fr.body
  -- only a return as the last statement of the function
  for i, st in ipairs(body) do
    v:walk({ st }, function(r, depth)
      if r.kind == "return" and not (depth == 0 and i == #body) then self:refuse(r, "return before the end of a function") end
      if r.kind == "break" or r.kind == "continue" then self:refuse(r, r.kind) end
    end)
  end
  local decl, adecl, cross, across = self:locals()
  local sym0, np = fr.sym0, fr.nparam
  local names = {}
  for s = sym0, sym0 + fr.nsym - 1 do
    local y = v:sym(s)
    if y.kind == "heap" then goto next end
    names[#names + 1] = u.cname[s]
    local a = u:agg(s)
    if a then
      if a.first then
        names[#names + 1] = gen.bvar[s]
        if s < sym0 + np and not a.arrow then names[#names + 1] = gen.prefix .. gen.bvar[s] end
      end
    elseif double(y) then
      names[#names + 1] = gen.bname[s]
      if s < sym0 + np and scalar(y) then names[#names + 1] = gen.prefix .. gen.bname[s] end
    end
    ::next::
  end
  local sig_tail = gen:adj_params(self.fid)
  local P = gen.prefix
  self.ret_var = P .. "ret"
  -- the forward sweep
  local fdecl = {}
  for _, d in ipairs(decl) do fdecl[#fdecl + 1] = d end
  for _, d in ipairs(adecl) do fdecl[#fdecl + 1] = d end
  if ret ~= "void" then fdecl[#fdecl + 1] = ret .. " " .. self.ret_var .. " = 0;" end
  fdecl[#fdecl + 1] = "double " .. P .. "unused = 0.0;"
  local fwd_voids = { P .. "unused" }
  for _, n in ipairs(names) do fwd_voids[#fwd_voids + 1] = n end
  local regions = gen.regions[self.fid]
  local function with_regions(lines)
    for _, l in ipairs(regions) do lines[#lines + 1] = l end
    return lines
  end
  local fwd = self:sweep(("static %s %s(%s)"):format(ret, self.names.fwd, sig_tail), fdecl, function()
    self.in_fwd = true
    if gen.check then self.em:line(("CGWB_CHK_ENTER(%d);"):format(np)) end
    for _, st in ipairs(body) do self:fwd(st) end
    if gen.check then self.em:line("CGWB_CHK_LEAVE();") end
    self.in_fwd = false
    self:cross(cross, false)
    if self.terminal_fused then -- what the loops adjoined here added to adjoints of locals
      for _, b in ipairs(across) do self:call("cgwb_push_n", ("&%s, sizeof %s"):format(b, b)) end
    end
    if #regions > 0 then self.em:line("cgwb_frame_leave();") end
    if ret ~= "void" then self:put("return " .. self.ret_var) end
  end, with_regions(voids(fwd_voids)))
  -- the reverse sweep
  local rdecl = {}
  for _, d in ipairs(decl) do rdecl[#rdecl + 1] = d end
  for _, d in ipairs(adecl) do rdecl[#rdecl + 1] = d end
  rdecl[#rdecl + 1] = "double " .. P .. "unused = 0.0;" -- the by-value adjoints of g_fwd calls in fused loops
  names[#names + 1] = P .. "unused"
  local rsig = sig_tail
  local retb = gen.ret_name[self.fid]
  if ret == "double" then
    rsig = (rsig == "void" and "" or (rsig .. ", ")) .. "double " .. retb
    names[#names + 1] = retb -- a passive result's adjoint is not read
  end
  local rev = self:sweep(("static void %s(%s)"):format(self.names.rev, rsig), rdecl, function()
    if self.terminal_fused then
      for i = #across, 1, -1 do self:call("cgwb_pop_n", ("&%s, sizeof %s"):format(across[i], across[i])) end
    end
    self:cross(cross, true)
    local last = body[#body] and v:stmt(body[#body])
    if last and last.kind == "return" and ret == "double" and last.value then
      self.em:line(("/* %d: return */"):format(last.line))
      self:prop(last.value, retb)
    end
    for i = #body, 1, -1 do self:rev(body[i]) end
    for s = sym0, sym0 + np - 1 do
      if double(v:sym(s)) and scalar(v:sym(s)) and self.param_active[s] and self.act.name[u:analysis_name(s)] then
        local sb = gen.bstruct[s]
        if sb then self:put(("%s += %s%s.%s"):format(gen.bname[s], P, sb, u:agg(s).member))
        else self:put(("*%s += %s%s"):format(gen.bname[s], P, gen.bname[s])) end
      end
    end
    if #regions > 0 then self.em:line("cgwb_frame_leave();") end
  end, with_regions(voids(names)))
  return fwd, rev
end

return E
