--- spec/adcheck.lua: the adjoint-code check shared by spec/31-adjoint_spec.lua
-- and spec/45-adjoint-constructs_spec.lua: one kernel, one call, compiled
-- (spec/addriver.lua) as the standard and the transformed adjoint and
-- checked against independent computations (see check below).
local H = require "spec.helper"
local cgwb = require "cgwb"
local adjoint = require "cgwb.adjoint"
local rng = require "rng"
local T = require "tdriver"
local A = require "addriver"
local assert = require "luassert" -- busted's, as in a spec file

local M = {}


local function close(a, b, tol)
  if a == b then return true end
  return math.abs(a - b) <= tol * math.max(1, math.abs(a), math.abs(b))
end

-- Random seeds of every double cell (and the result) and a random direction.
local function seeds_and_dir(call, fn, r)
  local yb, xd = { arrays = {}, args = {} }, { arrays = {}, args = {} }
  for i, a in ipairs(call.arrays) do
    if (a.type or "double") == "double" then
      yb.arrays[i], xd.arrays[i] = {}, {}
      for j = 1, #a.values do yb.arrays[i][j], xd.arrays[i][j] = r:float(-1, 1), r:float(-1, 1) end
    end
  end
  for i, a in ipairs(call.args) do if a.double then xd.args[i] = r:float(-1, 1) end end
  if fn.ret == "double" then yb.ret = r:float(-1, 1) end
  return yb, xd
end

-- <J^T yb, xd> from an adjoint run (adjoints of the entry values).
local function adj_dot(res, call, xd)
  local s = 0
  for i = 1, #call.arrays do
    for j, v in ipairs((xd.arrays or {})[i] or {}) do s = s + res.B[i][j] * v end
  end
  for i = 1, #call.args do if xd.args[i] then s = s + res.S[i] * xd.args[i] end end
  return s
end

-- <yb, J xd> by the interpreter's tangent mode (rows: cells it writes;
-- an unwritten cell passes its seed through, counted here as identity).
local function interp_dot(k, text, fname, call, yb, xd, read)
  if yb.ret then -- through a wrapper storing the result in a cell of its own (as spec 24)
    local text, name = T.subject(text, k, fname)
    k, fname = assert(cgwb.read_kernel(text, "wrap.c", read)), name
    call = { arrays = { table.unpack(call.arrays) }, args = { table.unpack(call.args) } }
    call.arrays[#call.arrays + 1] = { name = "OUT", type = "double", values = { 0.0 } }
    call.args[#call.args + 1] = { array = #call.arrays, offset = 0 }
    local ret = yb.ret
    yb = { arrays = { table.unpack(yb.arrays, 1, #call.arrays - 1) } }
    yb.arrays[#call.arrays] = { ret }
    xd = { arrays = { table.unpack(xd.arrays, 1, #call.arrays - 1) }, args = xd.args }
    xd.arrays[#call.arrays] = { 0.0 }
  end
  local J = assert(k:jacobian(fname, call))
  local colv = {}
  for j, c in ipairs(J.cols) do
    colv[j] = c.param and (xd.args[c.param] or 0) or (xd.arrays[c.array] or {})[c.cell + 1] or 0
  end
  local s, isrow = 0, {}
  for r, row in ipairs(J.rows) do
    local w
    if row.array then
      isrow[row.array .. ":" .. row.cell] = true
      w = yb.arrays[row.array][row.cell + 1]
    else
      w = yb.ret or 0
    end
    for j = 1, #J.cols do s = s + w * J.values[r][j] * colv[j] end
  end
  for i = 1, #call.arrays do
    for j, v in ipairs(xd.arrays[i] or {}) do
      if not isrow[i .. ":" .. (j - 1)] then s = s + yb.arrays[i][j] * v end
    end
  end
  return s
end

local function stmt_of_line(k, fname, line)
  for _, s in ipairs(k:statements(fname)) do
    if s.kind == "loop" and s.line == line then return s.id end
  end
  error("no loop at line " .. line)
end

--- Compiles and checks one case; returns the runs {std = res, tr = res}.
-- opts: loops (for the transformed variant; default "auto"), info, flags,
-- no_interp (skip the interpreter's check), emit (options of emit), lenient_kernel
-- (addriver's: the kernel text is a real program with warnings of its own).
local function check(text, fname, call, opts)
  opts = opts or {}
  local r = rng.new(opts.seed or 31)
  local k = assert(cgwb.read_kernel(text, "case.c", opts.read))
  local fn
  for _, f in ipairs(k:functions()) do if f.name == fname then fn = f end end
  local eo = opts.emit or {}
  local std = assert(adjoint.emit(k, fname, { independents = eo.independents, dependents = eo.dependents,
    assume = eo.assume, loops = "none" }))
  local tr, rep = adjoint.emit(k, fname, { independents = eo.independents, dependents = eo.dependents,
    assume = eo.assume, loops = opts.loops or "auto", info = opts.info })
  assert(tr, rep)
  local out = { rep = rep, code = tr }
  local yb, xd = seeds_and_dir(call, fn, r)
  -- the passive double parameters get NULL adjoints (F_b must not touch
  -- them), their arrays neither seeds nor a direction
  local null = {}
  local an = assert(k:analyze(fname, { independents = eo.independents, dependents = eo.dependents, assume = eo.assume }))
  local passive, users = {}, {}
  for _, n in ipairs(an.activity.passive_symbols) do passive[n] = true end
  for _, n in ipairs(an.activity.dependents) do passive[n] = nil end -- consumed (zeroed), even if constant
  for _, n in ipairs(an.activity.independents) do passive[n] = nil end
  for i, a in ipairs(call.args) do if a.array then users[a.array] = (users[a.array] or 0) + 1 end end
  for i, p in ipairs(fn.params) do
    local a = call.args[i]
    if p.type:find("double") and passive[p.name] and (a.double or users[a.array] == 1) then
      null[p.name] = true
      if a.double then xd.args[i] = nil
      else
        for j = 1, #xd.arrays[a.array] do xd.arrays[a.array][j], yb.arrays[a.array][j] = 0, 0 end
      end
    end
  end
  out.null = null
  for _, i in ipairs(opts.zero or {}) do -- work arrays: their adjoints come in zeroed (doc/adjoint-code.md)
    for j = 1, #yb.arrays[i] do yb.arrays[i][j], xd.arrays[i][j] = 0, 0 end
  end
  for _, variant in ipairs { { "std", std }, { "tr", tr } } do
    local exe = A.compile_adjoint(variant[2], fname, text, { flags = opts.flags, env = opts.env, null = null,
      lenient_kernel = opts.lenient_kernel, read = opts.read, extra = opts.extra })
    local res = A.run(exe, call, yb)
    local p = A.primal(exe, call)
    -- the primal results: F's, bit for bit
    for i = 1, #call.arrays do
      if p.P[i] then H.assert_bits(p.P[i], res.P[i], variant[1] .. ": primal of array " .. i) end
    end
    if fn.ret == "double" then assert.is_true(H.same_bits(p.R, res.R), "result") end
    -- the dot-product test against finite differences of the compiled kernel
    local lhs = A.fd(exe, call, xd, yb)
    local rhs = adj_dot(res, call, xd)
    assert(close(lhs, rhs, 1e-6), ("%s: finite differences %.17g, adjoint %.17g\n%s"):format(variant[1], lhs, rhs,
      variant[2]))
    out[variant[1]] = res
    out[variant[1] .. "_exe"] = exe
  end
  -- standard and transformed agree
  for i = 1, #call.arrays do
    for j, v in ipairs(out.std.B[i] or {}) do
      assert(close(v, out.tr.B[i][j], 1e-12), ("array %d cell %d: standard %.17g, transformed %.17g"):format(i, j, v,
        out.tr.B[i][j]))
    end
  end
  for i, v in pairs(out.std.S) do assert(close(v, out.tr.S[i], 1e-12), "scalar adjoint " .. i) end
  -- the interpreter's tangent mode
  if not opts.no_interp then
    local lhs = interp_dot(k, text, fname, call, yb, xd, opts.read)
    local rhs = adj_dot(out.std, call, xd)
    assert(close(lhs, rhs, 1e-12), ("interpreter %.17g, adjoint %.17g"):format(lhs, rhs))
    -- the dependents' adjoints are consumed: a cell F writes without reading its entry value ends at 0
    local J = assert(k:jacobian(fname, call))
    local read = {}
    for _, c in ipairs(J.cols) do if c.array then read[c.array .. ":" .. c.cell] = true end end
    for _, row in ipairs(J.rows) do
      if row.array and not read[row.array .. ":" .. row.cell] then
        for _, v in ipairs { "std", "tr" } do
          assert(out[v].B[row.array][row.cell + 1] == 0, ("%s: the adjoint of array %d cell %d is not consumed"):format(v,
            row.array, row.cell))
        end
      end
    end
  end
  if not opts.keep then A.free(out.std_exe); A.free(out.tr_exe) end
  return out
end

local function arr(ty, vals) return { type = ty, values = vals } end
local function ramp(n, a, b)
  local t = {}
  for i = 1, n do t[i] = a + (b - a) * (i - 1) / math.max(1, n - 1) end
  return t
end


M.close, M.check, M.arr, M.ramp, M.stmt_of_line = close, check, arr, ramp, stmt_of_line

--- check's flags and env for a run under ASan (stack-use-after-return
-- too) and UBSan, or nil where cc cannot build with them.
M.SAN = os.execute("echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o /dev/null - "
  .. "2>/dev/null") == true and { flags = "-fsanitize=address,undefined -fno-sanitize-recover=all -g",
  env = "ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=0" } or nil
return M
