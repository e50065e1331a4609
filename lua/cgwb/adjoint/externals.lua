-- cgwb.adjoint.externals: a call of an external function g (declared with
-- --externals; doc/adjoint-code.md, "External functions") in E's sweeps,
-- joint reversal as Tapenade's and ADOL-C's external functions have it:
-- the forward sweep tapes the cells g may write (cells of its declaration)
-- and calls g; the reverse sweep puts those cells back as g got them and
-- calls the user's adjoint g_b, whose parameters are those cgwb gives a
-- function's reverse sweep (each double or double * followed by its
-- adjoint, a passive pointer's 0, the adjoint of a double result last) and
-- which may leave g's results in the cells it writes (they are put back
-- again after it).  Internal to cgwb.adjoint.
local errors = require "cgwb.util.errors"
local B = require "cgwb.adjoint.base"

local E, double = B.E, B.double

-- The cells of call r's arguments that external callee (v:func record)
-- may write: {{ptr = C text, bytes = C text}...} in argument order.
function E:ext_writes(r, callee)
  local v, ext = self.v, callee.external
  local out = {}
  for i, s in ipairs(callee.params) do
    local y = v:sym(s)
    if (y.ptr or y.ndim > 0) and not y.const then
      local n = ext.cells[y.name]
      if not n then
        error(errors.refused(("%s:%d:%d: adjoint code: the call of the external %s may write through %s: its "
          .. "declaration needs cells.%s, the cells it writes (--externals)"):format(self.gen.file, r.line, r.col,
          callee.name, y.name, y.name)))
      end
      local text = n:gsub("[%a_][%w_]*", function(w) -- its int parameters: the call's arguments
        for j, q in ipairs(callee.params) do
          if v:sym(q).name == w then return "(" .. self:ex(r.args[j]) .. ")" end
        end
      end)
      out[#out + 1] = { ptr = self:ex(r.args[i]), bytes = ("(size_t)(%s) * sizeof(%s)"):format(text, double(y) and "double" or "int") }
    end
  end
  return out
end

local function save(self, ws, l)
  for _, w in ipairs(ws) do self:call("cgwb_push_n", w.ptr .. ", " .. w.bytes, l) end
end
local function restore(self, ws, l)
  for i = #ws, 1, -1 do self:call("cgwb_pop_n", ws[i].ptr .. ", " .. ws[i].bytes, l) end
end

-- The forward sweep of call r of external callee.
function E:fwd_external(r, callee)
  local l = r.line
  save(self, self:ext_writes(r, callee), l .. ": what " .. callee.name .. " may write")
  local args = self.u:args_text(r, function(a) return self:ex(a) end)
  local call = ("%s(%s)"):format(callee.name, table.concat(args, ", "))
  if r.lhs then
    local t = self.em:temp(callee.ret, "r")
    self:set(t, call, l)
    self:push_old(r.lhs)
    self:set(self:ex(r.lhs), t)
  else
    self:put(call, l)
  end
end

-- The reverse sweep of call r of external callee: its result's adjoint,
-- the cells put back, g_b, the cells put back again, the by-value
-- arguments' adjoints spread.
function E:rev_external(r, callee)
  local l = r.line
  local rb = self:result_adjoint(r)
  local bvals, byval = {}, {}
  for i = 1, #r.args do
    local p = self.v:sym(callee.params[i])
    if double(p) and not (p.ptr or p.ndim > 0) then
      bvals[i] = self.em:temp("double", "a")
      byval[#byval + 1] = i
      self:set(bvals[i], "0.0")
    end
  end
  local ws = self:ext_writes(r, callee)
  restore(self, ws, l .. ": as " .. callee.name .. " got them")
  save(self, ws)
  local args = self:call_args(r, bvals, self:call_pattern(r), {})
  if callee.ret == "double" then args[#args + 1] = rb end
  self:call(callee.external.adjoint, table.concat(args, ", "), l .. ": the user's adjoint of " .. callee.name)
  restore(self, ws)
  for _, i in ipairs(byval) do self:prop(r.args[i], bvals[i]) end
end

return E
