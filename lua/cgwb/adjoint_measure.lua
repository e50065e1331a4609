--- cgwb.adjoint_measure: the compile-and-measure harness of the adjoint code
-- (`cgwb adjoint --report R.json --call CALL.json`, doc/adjoint-code.md):
-- each text cgwb.adjoint wrote is compiled with cc next to a main that calls
-- F_b once on the call, and the run's F_b_stats are its measures.
--
--   measure(kernel, fname, variants, call, opts) -> {name = measures} | nil, message
--
-- cgwb.adjoint.measure calls it (and requires it only then).
-- @module cgwb.adjoint_measure
local ir = require "cgwb.ir"
local emit = require "cgwb.ir.emit"
local progress = require "cgwb.progress"

local M = {}

local function hexf(v) return ("%a"):format(v) end

-- A main calling F_b once on call (the core form of a CALL.json) with unit
-- adjoints of every double cell and the result, printing F_b_stats.
local function measure_main(v, f, call)
  local fr = v:func(f)
  local name = fr.name
  local em = emit.new()
  em:line("#include <stdio.h>")
  em:line('#include "cgwb_adstack.h"')
  local ctype = {} -- an int array's C type: the cells' of the pointer bound to it (char, short, ...)
  for i, s in ipairs(fr.params) do
    local a = call.args[i]
    if a.array and not ctype[a.array] then ctype[a.array] = v:sym(s).ctype end
  end
  for i, a in ipairs(call.arrays) do
    local int = (a.type or "double") == "int"
    local vals, ones = {}, {}
    for j, x in ipairs(a.values) do vals[j] = int and ("%d"):format(math.tointeger(x) or 0) or hexf(x); ones[j] = "1.0" end
    if #vals == 0 then vals[1], ones[1] = "0", "0.0" end
    em:line(("static %s A%d[%d] = {%s};"):format(int and (ctype[i] or "int") or "double", i, #vals,
      table.concat(vals, ", ")))
    if not int then em:line(("static double B%d[%d] = {%s};"):format(i, #ones, table.concat(ones, ", "))) end
  end
  local args, pre = {}, {}
  for i, s in ipairs(fr.params) do
    local y, a = v:sym(s), call.args[i]
    local dbl = y.base == "double"
    local cast = ""
    if y.ndim >= 2 then cast = ("(%s (*)%s)"):format(y.ctype, (ir.dims_text(y):gsub("^%[%d*%]", ""))) end
    if a.array then
      args[#args + 1] = ("%s(A%d + %d)"):format(cast, a.array, a.offset)
      if dbl then args[#args + 1] = ("%s(B%d + %d)"):format(cast, a.array, a.offset) end
    elseif a.int then
      args[#args + 1] = ("%d"):format(a.int)
    else
      pre[#pre + 1] = ("double s%d = 0.0;"):format(i)
      args[#args + 1] = hexf(a.double)
      args[#args + 1] = "&s" .. i
    end
  end
  if fr.ret == "double" then args[#args + 1] = "1.0" end
  em:open("int main(void) {")
  em:line("cgwb_adstats st;")
  for _, l in ipairs(pre) do em:line(l) end
  em:line(("%s_b_reset();"):format(name))
  em:line(("%s%s_b(%s);"):format(fr.ret == "void" and "" or "(void)", name, table.concat(args, ", ")))
  em:line(("%s_b_stats(&st);"):format(name))
  em:line('printf("%lu %lu %lu %lu\\n", (unsigned long)st.pushed, (unsigned long)st.high_water, '
    .. "(unsigned long)st.snapshot, (unsigned long)st.snapshot_high);")
  em:line("return 0;")
  em:close()
  return em:text() .. "\n"
end

--- Compiles each adjoint text of variants ({name = code}) with a main
-- calling it once on call (core form) and measures its stacks: {name =
-- {tape_bytes, tape_high_water, snapshot_bytes, snapshot_high_water}}, or
-- nil, message.  opts.cc: the compiler (default "cc"); opts.header: the
-- path of the runtime header cgwb_adstack.h (cgwb.adjoint.runtime_header()).
function M.measure(k, fname, variants, call, opts)
  opts = opts or {}
  local cc = opts.cc or "cc"
  if not os.execute(cc .. " --version >/dev/null 2>&1") then
    return nil, "--call: no C compiler ('" .. cc .. "') to measure the adjoints with"
  end
  local fid = assert(k:function_id(fname))
  local v = ir.view(k:flat())
  local hdr = opts.header
  if not hdr then return nil, "--call: the runtime header cgwb_adstack.h is not installed" end
  local dir = os.tmpname()
  os.remove(dir)
  if not os.execute("mkdir -p '" .. dir .. "'") then return nil, "--call: cannot make a temporary directory" end
  local function put(name, text)
    local fh = assert(io.open(dir .. "/" .. name, "wb"))
    fh:write(text)
    fh:close()
  end
  local fh = assert(io.open(hdr, "rb"))
  put("cgwb_adstack.h", fh:read("a"))
  fh:close()
  put("main.c", measure_main(v, fid - 1, call))
  local res, err = {}, nil
  local names = {}
  for n in pairs(variants) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    put(n .. ".c", variants[n])
    local exe = dir .. "/" .. n
    local r = progress.start("compiling the " .. n .. " adjoint", 1)
    local ok = os.execute(("%s -std=c99 -O2 -I'%s' -o '%s' '%s/%s.c' '%s/main.c' -lm 2>'%s/cc.log'"):format(cc, dir, exe,
      dir, n, dir, dir))
    r:finish(1)
    if not ok then
      local lf = io.open(dir .. "/cc.log", "rb")
      err = "--call: the " .. n .. " adjoint does not compile: " .. (lf and lf:read("a") or "")
      if lf then lf:close() end
      break
    end
    local p = io.popen("'" .. exe .. "'")
    local line = p:read("l") or ""
    p:close()
    local a, b, c, d = line:match("^(%d+) (%d+) (%d+) (%d+)$")
    if not a then err = "--call: the " .. n .. " adjoint failed on the call"; break end
    res[n] = { tape_bytes = tonumber(a), tape_high_water = tonumber(b), snapshot_bytes = tonumber(c),
               snapshot_high_water = tonumber(d) }
  end
  os.execute("rm -rf '" .. dir .. "'")
  if err then return nil, err end
  return res
end

return M
