-- spec/19-kinterp_spec.lua: the kernel interpreter (csrc/kernel/cg_kinterp.c)
-- against the compiled kernel: the same kernels, compiled with
-- cc -std=c99 -O2 -ffp-contract=off and called from a C driver generated
-- from the call table, leave the same cells bit for bit (%a), also when two
-- pointer parameters share an array.  Then the errors (each naming
-- file:line:col), the Jacobian of tangent mode (exactly against partials
-- derived by hand, and against central differences of the interpreter), the
-- access trace and the control flow graph.
local H = require "spec.helper"
local core = require "cgwb.core"
local kb = require "kbuild"
local kdual = require "kdual"
local rng = require "rng"

-- {==== compiling and driving ====}

local function c_number(v) return ("%a"):format(v) end

--- A C driver for each {name=, text=, call=} case: fills the arrays, calls
-- the kernel with pointers into them at the offsets, prints every cell.
local function driver(cases)
  local out = {"#include <math.h>", "#include <stdio.h>"}
  for _, c in ipairs(cases) do out[#out + 1] = c.text end
  out[#out + 1] = "int main(void) {"
  for n, c in ipairs(cases) do
    out[#out + 1] = "  {"
    for a, arr in ipairs(c.call.arrays) do
      local vals = {}
      for i, v in ipairs(arr.values) do vals[i] = arr.type == "int" and ("%d"):format(v) or c_number(v) end
      out[#out + 1] = ("    %s A%d[%d] = {%s};"):format(arr.type == "int" and "int" or "double", a,
                                                     #arr.values, table.concat(vals, ", "))
    end
    local args = {}
    for i, g in ipairs(c.call.args) do
      if g.array then args[i] = ("A%d + %d"):format(g.array, g.offset)
      elseif g.int then args[i] = ("%d"):format(g.int)
      else args[i] = c_number(g.double) end
    end
    out[#out + 1] = ("    %s(%s);"):format(c.name, table.concat(args, ", "))
    for a, arr in ipairs(c.call.arrays) do
      out[#out + 1] = ("    for (int i = 0; i < %d; i++) printf(\"%d %d %%d %s\\n\", i, A%d[i]);")
                      :format(#arr.values, n, a, arr.type == "int" and "%d" or "%a", a)
    end
    out[#out + 1] = "  }"
  end
  out[#out + 1] = "  return 0;\n}"
  return table.concat(out, "\n") .. "\n"
end

--- Compiles and runs the driver; returns its output.
local function compiled(cases)
  local src, exe = H.tmp(".c"), H.tmp(".exe")
  H.write(src, driver(cases))
  local ok = os.execute(("cc -std=c99 -O2 -ffp-contract=off -o %s %s -lm"):format(exe, src))
  assert(ok, "the driver does not compile: " .. src)
  local p = assert(io.popen(exe))
  local text = p:read("a")
  p:close()
  os.remove(src)
  os.remove(exe)
  return text
end

--- The same lines from the interpreter.
local function interpreted(k, cases)
  local out = {}
  for n, c in ipairs(cases) do
    local r = assert(k:run(c.name, c.call))
    for a, arr in ipairs(r.arrays) do
      for i, v in ipairs(arr.values) do
        local t = c.call.arrays[a].type == "int" and ("%d"):format(v) or ("%a"):format(v)
        out[#out + 1] = ("%d %d %d %s"):format(n, a, i - 1, t)
      end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- }====

-- A hand-made kernel: y[i] = 2 sin(x[i]) for i < n, with x const.
local function sine_kernel()
  local B = kb.new("sine.c")
  B:func("f", "void")
  local y = B:sym("y", "param", {ptr = 1})
  local x = B:sym("x", "param", {ptr = 1, qual = 1})
  local n = B:sym("n", "param", {base = "int"})
  local i = B:sym("i", "local", {base = "int"})
  B:at(2)
  local init = B:assign(B:var(i), B:ci(0))
  B:at(3)
  local body = B:assign(B:elem(y, B:var(i)), B:op("mul", B:intrin("sin", B:elem(x, B:var(i))), B:cd(2)))
  local step = B:assign(B:var(i), B:op("add", B:var(i), B:ci(1)))
  B:at(2)
  local lp = B:loop("for", B:op("lt", B:var(i), B:var(n)), {body}, {step})
  B:body({init, lp})
  return B
end
local SINE_C = [[
void f(double *y, const double *x, int n) {
  int i;
  for (i = 0; i < n; i = i + 1) y[i] = sin(x[i]) * 0x1p+1;
}
]]

describe("the kernel interpreter", function()
  it("runs a hand-made kernel as the compiled one does, bit for bit", function()
    local k = assert(sine_kernel():load())
    local call = {arrays = {{name = "Y", type = "double", values = {0, 0, 0, 7}},
                            {name = "X", type = "double", values = {0.5, 1, 1.5, 2}}},
                  args = {{array = 1, offset = 0}, {array = 2, offset = 1}, {int = 3}}}
    local r = assert(k:run("f", call))
    assert.are.equal(2 * math.sin(1), r.arrays[1].values[1])
    assert.are.equal(7, r.arrays[1].values[4]) -- i < 3: untouched
    assert.are.equal(compiled({{name = "f", text = SINE_C, call = call}}),
                     interpreted(k, {{name = "f", call = call}}))
    -- steps: the init, the loop statement, 4 tests, 3 x (body + step)
    assert.are.equal(1 + 1 + 4 + 6, r.steps)
  end)

  it("agrees with the compiled kernel on random kernels and bindings, aliased or not", function()
    local r = rng.new(19)
    local B = kb.new("rand.c")
    local cases = {}
    for n = 1, 150 do
      local name = "k" .. n
      local text = kdual.kernel(B, r, name)
      cases[#cases + 1] = {name = name, text = text, call = kdual.binding(r)}
    end
    local k, err = B:load()
    assert(k, err)
    local want = compiled(cases)
    local got = interpreted(k, cases)
    if want ~= got then -- name the first kernel that differs
      local wl, gl = {}, {}
      for l in want:gmatch("[^\n]+") do wl[#wl + 1] = l end
      for l in got:gmatch("[^\n]+") do gl[#gl + 1] = l end
      for i = 1, math.max(#wl, #gl) do
        if wl[i] ~= gl[i] then
          local n = tonumber((wl[i] or gl[i]):match("^%d+"))
          error(("line %d: compiled %s, interpreted %s\n%s"):format(i, tostring(wl[i]), tostring(gl[i]),
                cases[n].text))
        end
      end
    end
    local aliased = 0
    for _, c in ipairs(cases) do if c.call.args[2].array == 1 then aliased = aliased + 1 end end
    assert.is_true(aliased > 40 and aliased < 110)
  end)
end)
