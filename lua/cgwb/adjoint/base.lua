-- cgwb.adjoint.base: the class E of one function's sweeps (its line
-- output, through the sweep's cgwb.ir.emit emitter), which the other parts
-- of cgwb.adjoint extend, each with the methods of its job, and the small
-- helpers they share: symbol tests, the operation table's spellings, the
-- runtime's push and pop calls, refusals.  Internal to cgwb.adjoint.
local core = require "cgwb.core"
local unparse = require "cgwb.ir.unparse"
local errors = require "cgwb.util.errors"

local B = {}

B.LAY = core.kernel_layout()
B.GOPS = core.graph_ops()

-- What the scheme does not handle raises errors.refused, bad input
-- (names, --loops) errors.input (cgwb.util.errors); anything else raised
-- is a bug, which adjoint.emit raises on.

-- An operation table spelling with its operands and result (unparse.spell_partial).
local function spell(text, args, r)
  local s, err = unparse.spell_partial(text, args, r)
  if not s then error(errors.refused(("adjoint code: %s"):format(err))) end
  return s
end

-- Symbol records (cgwb.ir view): a double; accessed through cells (a
-- pointer or an array); a scalar (neither); its scalar C type.
local function double(y) return y.base == "double" end
local function indirect(y) return y.ptr or y.ndim > 0 end
local function scalar(y) return not y.ptr and y.ndim == 0 end
local function scalar_type(y) return y.base == "double" and "double" or "int" end

B.spell, B.double, B.indirect, B.scalar, B.scalar_type = spell, double, indirect, scalar, scalar_type

local E = {}
E.__index = E

function E:ex(e) return self.u:expr(e, true) end

-- The record of the symbol expression e accesses (VAR, ELEM, ADDR).
function E:sym_at(e) return self.v:sym(self.v:expr(e).sym) end

-- The records of this function's statements, by id.
function E:own_stmts()
  local v, out = self.v, {}
  for st = 0, v.nstmt - 1 do
    if v:get("stmt", st, "FUNC") == self.fid then out[#out + 1] = v:stmt(st) end
  end
  return out
end

-- Lines go to the sweep's emitter self.em (cgwb.ir.emit: depth, blocks,
-- the function-wide temporaries declared at its top).  A C statement (text
-- without its semicolon) with comment c (or none) after it; an assignment;
-- a call of fn with the argument text args.
function E:put(text, c) self.em:line(text .. ";" .. (c and (" /* " .. c .. " */") or "")) end
function E:set(lhs, rhs, c) self:put(lhs .. " = " .. rhs, c) end
function E:call(fn, args, c) self:put(fn .. "(" .. args .. ")", c) end

-- if (cond) { yes() } and, when no is given, else { no() }.
function E:if_else(cond, yes, no)
  self.em:open("if (" .. cond .. ") {")
  yes()
  if no then self.em:reopen("} else {"); no() end
  self.em:close()
end

-- The push and pop of a scalar or cell lvalue e of type ty.
local PUSH = { double = "cgwb_push_d", int = "cgwb_push_i" }
local POP = { double = "cgwb_pop_d()", int = "cgwb_pop_i()" }
B.PUSH, B.POP = PUSH, POP

-- The runtime's calls that save and restore a pointer: with the frame
-- registry where a pointer may hold the address of a local (gen.frames).
local PTR_PLAIN = { push = "cgwb_push_p", pop = "cgwb_pop_p()", snap = "cgwb_snap_p", unsnap = "cgwb_unsnap_p()" }
local PTR_FRAME = { push = "cgwb_push_fp", pop = "cgwb_pop_fp()", snap = "cgwb_snap_fp", unsnap = "cgwb_unsnap_fp()" }
function E:ptr_save(what) return (self.gen.frames and PTR_FRAME or PTR_PLAIN)[what] end

-- Refuses what the scheme does not handle (yet) at statement record r.
function E:refuse(r, what)
  error(errors.refused(("%s:%d:%d: adjoint code: %s is not supported yet"):format(self.gen.file, r.line, r.col,
    what)))
end

B.E = E

return B
