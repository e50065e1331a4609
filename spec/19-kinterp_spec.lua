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
      if g.array then args[i] = ("(void *)(A%d + %d)"):format(g.array, g.offset)
      elseif g.int then args[i] = ("%d"):format(g.int)
      else args[i] = c_number(g.double) end
    end
    local call_text = ("%s(%s)"):format(c.name, table.concat(args, ", "))
    if c.ret == "double" then out[#out + 1] = ('    printf("%d ret %%a\\n", %s);'):format(n, call_text)
    elseif c.ret == "int" then out[#out + 1] = ('    printf("%d ret %%d\\n", %s);'):format(n, call_text)
    else out[#out + 1] = ("    %s;"):format(call_text) end
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
    if c.ret == "double" then out[#out + 1] = ("%d ret %a"):format(n, r.ret)
    elseif c.ret == "int" then out[#out + 1] = ("%d ret %d"):format(n, r.ret) end
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

  -- A binding for any function of a loaded kernel: every pointer into an
  -- array of 64 cells at offset 8 (int arrays hold indices 0..3), ints 2,
  -- doubles from r; shared: the pointers that are not restrict share one
  -- array at offsets 8, 9, 10, ...
  local function any_call(flat, f, r, shared)
    local L = kb.layout
    local F = function(field) return flat.func[(f - 1) * L.width.func + L.func[field]] end
    local arrays, args, next_off = {}, {}, 8
    local function array(ty)
      local v = {}
      for i = 1, 64 do v[i] = ty == "int" and r:int(0, 3) or r:float(-1, 1) end
      arrays[#arrays + 1] = {name = "A" .. (#arrays + 1), type = ty, values = v}
      return #arrays
    end
    local common
    for i = 1, F("NPARAM") do
      local s = F("SYM0") + i - 1
      local S = function(field) return flat.sym[s * L.width.sym + L.sym[field]] end
      local base = L.types[S("BASE") + 1]
      if S("PTR") == 1 then
        if shared and base == "double" and S("QUAL") & L.qual.restrict == 0 then
          common = common or array("double")
          args[i] = {array = common, offset = next_off}
          next_off = next_off + 1
        else
          args[i] = {array = array(base), offset = 8}
        end
      elseif base == "int" then args[i] = {int = 2}
      else args[i] = {double = r:float(-1.5, 1.5)} end
    end
    local ret = L.types[F("RET") + 1]
    return {arrays = arrays, args = args}, ret
  end

  it("runs every example kernel as the compiled one does, separate and aliased", function()
    local kparse = require "cgwb.kparse"
    local r = rng.new(7)
    local p = io.popen("ls examples/kernels/*.c")
    local files = {}
    for f in p:lines() do files[#files + 1] = f end
    p:close()
    assert.is_true(#files >= 8)
    for _, path in ipairs(files) do
      local text = H.read(path)
      local flat = assert(kparse.parse(text, path))
      local k = assert(core.kernel_load(flat))
      local cases = {}
      for f = 1, #flat.func // kb.layout.width.func do
        local name = flat.names[flat.func[(f - 1) * kb.layout.width.func + kb.layout.func.NAME] + 1]
        for _, shared in ipairs({false, true}) do
          local call, ret = any_call(flat, f, r, shared)
          cases[#cases + 1] = {name = name, call = call, ret = ret}
        end
      end
      cases[1].text = text:gsub("static ", "")
      -- C does not specify a NaN's sign, and which of two NaN operands an operation
      -- passes on depends on the compiler's operand order (roe.c at unphysical states).
      local function nan(t) return (t:gsub("%-nan", "nan")) end
      assert.are.equal(nan(compiled(cases)), nan(interpreted(k, cases)), path)
    end
  end)

  it("agrees with the compiled kernel on random kernels of spec/kgen.lua", function()
    local kgen = require "kgen"
    local kparse = require "cgwb.kparse"
    local r = rng.new(2019)
    local texts, cases = {}, {}
    for n = 1, 60 do
      local text, info = kgen.kernel(r, {name = "kern" .. n})
      text = text:gsub("%f[%w_.]h%(", "h" .. n .. "(") -- one file: the helpers need their own names
      texts[#texts + 1] = text
      cases[#cases + 1] = {name = info.name, call = kgen.call(r, info), ret = "void"}
    end
    local all = table.concat(texts, "\n")
    local flat = assert(kparse.parse(all, "kgen.c"))
    local k = assert(core.kernel_load(flat))
    cases[1].text = all
    local want, got = compiled(cases), interpreted(k, cases)
    assert.are.equal(want, got)
    local aliased = 0
    for _, c in ipairs(cases) do
      local seen = {}
      for _, g in ipairs(c.call.args) do
        if g.array then
          if seen[g.array] then aliased = aliased + 1 break end
          seen[g.array] = true
        end
      end
    end
    assert.is_true(aliased >= 15, "aliased bindings: " .. aliased)
  end)

  describe("reports errors with file:line:col, never undefined behaviour:", function()
    -- One function per error, each on its own line.
    local B = kb.new("err.c")
    local F = {}
    local function fn(name, ret, line) B:at(line) F[name] = B:func(name, ret) end
    local A4 = function(vals, init) return {name = "A", type = "double", values = vals or {1, 2, 3, 4}, init = init} end

    fn("oob", "double", 2)
    local p = B:sym("p", "param", {ptr = 1})
    B:body({B:ret(B:elem(p, B:ci(4)))})
    fn("uninit", "double", 3)
    local t = B:sym("t", "local")
    B:body({B:ret(B:var(t))})
    fn("uninit_cell", "double", 4)
    p = B:sym("p", "param", {ptr = 1})
    B:body({B:ret(B:elem(p, B:ci(1)))})
    fn("ovf", "int", 5)
    local a = B:sym("a", "param", {base = "int"})
    B:body({B:ret(B:op("mul", B:var(a), B:var(a)))})
    fn("div0", "int", 6)
    a = B:sym("a", "param", {base = "int"})
    local b = B:sym("b", "param", {base = "int"})
    B:body({B:ret(B:op("mod", B:var(a), B:var(b)))})
    fn("spin", "void", 7)
    B:body({B:loop("while", B:ci(1), {})})
    fn("cast", "int", 8)
    local x = B:sym("x", "param")
    B:body({B:ret(B:cast("int", B:var(x)))})
    fn("konst", "void", 9)
    local c = B:sym("c", "local", {ndim = 1, dim0 = 2, qual = 1})
    local q = B:sym("q", "local", {ptr = 1})
    B:body({B:assign(B:elem(c, B:ci(0)), B:cd(1)), B:assign(B:var(q), B:addr(c)),
            B:assign(B:elem(q, B:ci(0)), B:cd(2))})
    fn("deep", "void", 10)
    a = B:sym("a", "param", {base = "int"})
    B:body({B:call(F.deep, {B:var(a)})})
    fn("noret", "double", 11)
    a = B:sym("a", "param", {base = "int"})
    B:body({B:ifs(B:var(a), {B:ret(B:cd(1))})})
    fn("useret", "double", 12)
    local r = B:sym("r", "local")
    B:body({B:call(F.noret, {B:ci(0)}, B:var(r)), B:ret(B:var(r))})
    fn("ptrarith", "double", 13)
    p = B:sym("p", "param", {ptr = 1})
    B:body({B:ret(B:elem(p, B:ci(0)))})
    local k = assert(B:load())

    local function fails(name, call, pattern, opts)
      local res, msg = k:run(name, call, opts)
      assert.is_nil(res)
      assert.matches(pattern, msg, 1, true)
    end
    it("a cell outside its object", function()
      fails("oob", {arrays = {A4()}, args = {{array = 1, offset = 0}}},
            "err.c:2:1: access to cell 4 of A, which has 4 cells")
      fails("oob", {arrays = {A4()}, args = {{array = 1, offset = 1}}}, "err.c:2:1: access to cell 5 of A")
      assert.are.equal(4, k:run("oob", {arrays = {A4({1, 2, 3, 4, 5})}, args = {{array = 1, offset = 0}}}).ret + 0 - 1)
    end)
    it("a read of an uninitialized variable or cell", function()
      fails("uninit", {args = {}}, "err.c:3:1: read of uninitialized t")
      fails("uninit_cell", {arrays = {A4(nil, {true, false, true, true})}, args = {{array = 1, offset = 0}}},
            "err.c:4:1: read of uninitialized A[1]")
    end)
    it("int overflow, division and modulo by 0", function()
      assert.are.equal(46340 * 46340, k:run("ovf", {args = {{int = 46340}}}).ret)
      fails("ovf", {args = {{int = 46341}}}, "err.c:5:1: int overflow in mul")
      fails("div0", {args = {{int = 7}, {int = 0}}}, "err.c:6:1: int modulo by 0")
      fails("div0", {args = {{int = -2147483648}, {int = -1}}}, "err.c:6:1: int overflow in mod")
      assert.are.equal(-1, k:run("div0", {args = {{int = -7}, {int = 3}}}).ret) -- C truncates
    end)
    it("the step limit", function()
      fails("spin", {args = {}}, "err.c:7:1: step limit of 1000 reached", {max_steps = 1000})
    end)
    it("a double->int cast of NaN or out of range", function()
      assert.are.equal(-2, k:run("cast", {args = {{double = -2.75}}}).ret)
      fails("cast", {args = {{double = 0 / 0}}}, "err.c:8:1: cast of ")
      fails("cast", {args = {{double = 2147483648.0}}}, "err.c:8:1: cast of 2147483648 to int: out of range")
    end)
    it("a write through a pointer to a const object", function()
      fails("konst", {args = {}}, "err.c:9:1: write through q to const c")
    end)
    it("the call depth", function()
      fails("deep", {args = {{int = 1}}}, "err.c:10:1: call depth limit of 50 reached", {max_calls = 50})
    end)
    it("the value of a function that ended without a return, when used", function()
      assert.are.equal(1, k:run("noret", {args = {{int = 1}}}).ret)
      assert.is_nil(k:run("noret", {args = {{int = 0}}}).ret) -- not used: no error
      fails("useret", {args = {}}, "err.c:12:1: noret ended without returning a value, which is used here")
    end)
    it("bad arguments", function()
      fails("ptrarith", {arrays = {A4()}, args = {{array = 1, offset = 5}}}, "offset 5 outside 0..4")
      fails("ptrarith", {arrays = {A4()}, args = {{double = 1}}}, "argument 1 (p): an array and offset expected")
      fails("ptrarith", {arrays = {A4()}, args = {}}, "0 arguments for 1 parameters")
      fails("ptrarith", {arrays = {A4()}, args = {{array = 1, offset = 4}}}, "err.c:13:1: access to cell 4 of A")
    end)
  end)

  describe("tangent mode", function()
    -- y[0] = x[0] * x[1]; y[1] = sin(x[0]) + s * x[1]
    local function jkernel()
      local B = kb.new("jac.c")
      B:func("j", "void")
      local y = B:sym("y", "param", {ptr = 1})
      local x = B:sym("x", "param", {ptr = 1})
      local s = B:sym("s", "param")
      B:body({B:assign(B:elem(y, B:ci(0)), B:op("mul", B:elem(x, B:ci(0)), B:elem(x, B:ci(1)))),
              B:assign(B:elem(y, B:ci(1)), B:op("add", B:intrin("sin", B:elem(x, B:ci(0))),
                                                B:op("mul", B:var(s), B:elem(x, B:ci(1)))))})
      return assert(B:load())
    end
    it("gives the partials derived by hand, exactly", function()
      local k = jkernel()
      local x0, x1, s = 0.75, -1.25, 2.5
      local J = assert(k:jacobian("j", {arrays = {{name = "Y", type = "double", values = {0, 0}},
                                                  {name = "X", type = "double", values = {x0, x1}}},
                                        args = {{array = 1, offset = 0}, {array = 2, offset = 0}, {double = s}}}))
      assert.are.same({{array = 1, cell = 0}, {array = 1, cell = 1}}, J.rows)
      assert.are.same({{array = 2, cell = 0}, {array = 2, cell = 1}, {param = 3}}, J.cols)
      assert.are.same({{x1, x0, 0}, {math.cos(x0), s, x1}}, J.values)
    end)
    it("sees aliasing: y and x in one array", function()
      local k = jkernel()
      local J = assert(k:jacobian("j", {arrays = {{name = "A", type = "double", values = {0.5, 2, 9, 9}}},
                                        args = {{array = 1, offset = 1}, {array = 1, offset = 0}, {double = 3}}}))
      -- y[0] is x[1]: written after it is read; y[1] = sin(x0) + s * y[0] reads the new y[0]
      assert.are.same({{array = 1, cell = 1}, {array = 1, cell = 2}}, J.rows)
      assert.are.same({{array = 1, cell = 0}, {array = 1, cell = 1}, {param = 3}}, J.cols)
      local x0, x1 = 0.5, 2
      assert.are.same({{x1, x0, 0}, {math.cos(x0) + 3 * x1, 3 * x0, x0 * x1}}, J.values)
    end)
    it("agrees with central differences of the interpreter on random kernels", function()
      local r = rng.new(1919)
      local B = kb.new("smooth.c")
      local cases = {}
      for n = 1, 40 do
        kdual.kernel(B, r, "s" .. n, {smooth = true, depth = 2})
        cases[n] = kdual.binding(r)
      end
      local k = assert(B:load())
      local h, worst = 1e-6, 0
      for n, call in ipairs(cases) do
        local J = assert(k:jacobian("s" .. n, call))
        for c, col in ipairs(J.cols) do
          local function at(delta)
            local cl = {arrays = {}, args = {}}
            for a, arr in ipairs(call.arrays) do
              local v = {table.unpack(arr.values)}
              if col.array == a then v[col.cell + 1] = v[col.cell + 1] + delta end
              cl.arrays[a] = {name = arr.name, type = arr.type, values = v}
            end
            for i, g in ipairs(call.args) do
              cl.args[i] = (col.param == i) and {double = g.double + delta} or g
            end
            return assert(k:run("s" .. n, cl))
          end
          local plus, minus = at(h), at(-h)
          for ri, row in ipairs(J.rows) do
            local fd = (plus.arrays[row.array].values[row.cell + 1] - minus.arrays[row.array].values[row.cell + 1]) / (2 * h)
            local err = math.abs(fd - J.values[ri][c]) / (1 + math.abs(fd))
            worst = math.max(worst, err)
            assert(err < 1e-5, ("kernel s%d row %d col %d: tangent %.17g, differences %.17g"):format(n, ri, c, J.values[ri][c], fd))
          end
        end
      end
      assert.is_true(worst < 1e-5)
    end)
    it("has no partials for an intrinsic the operation table lacks yet, and says so", function()
      local B = kb.new("np.c")
      B:func("f", "void")
      local y = B:sym("y", "param", {ptr = 1})
      local x = B:sym("x", "param")
      B:at(4)
      B:body({B:assign(B:elem(y, B:ci(0)), B:intrin("pow", B:var(x), B:cd(2)))})
      local k = assert(B:load())
      local call = {arrays = {{name = "Y", type = "double", values = {0}}}, args = {{array = 1, offset = 0}, {double = 3}}}
      assert.are.equal(9, k:run("f", call).arrays[1].values[1])
      local J, msg = k:jacobian("f", call)
      if J then -- the operation table has its row (branch gops): d/dx x^2 = 2x
        assert.is_true(math.abs(J.values[1][1] - 6) < 1e-12)
      else
        assert.matches("np.c:4:1: no partials for pow yet", msg, 1, true)
      end
    end)
  end)

  it("traces every access with its statement, object, cell and block", function()
    local B = kb.new("tr.c")
    B:func("t", "void")
    local p = B:sym("p", "param", {ptr = 1})
    local q = B:sym("q", "param", {ptr = 1})
    local s1 = B:assign(B:elem(p, B:ci(0)), B:op("add", B:elem(q, B:ci(0)), B:cd(1)))
    local s2 = B:assign(B:elem(q, B:ci(1)), B:elem(p, B:ci(0)))
    B:body({s1, s2})
    local k = assert(B:load())
    local r = assert(k:run("t", {arrays = {{name = "A", type = "double", values = {1, 2}}},
                                 args = {{array = 1, offset = 0}, {array = 1, offset = 0}}}, {trace = true}))
    local got = {}
    for i, a in ipairs(r.trace) do got[i] = {a.stmt, a.object, a.cell, a.write, a.block, a.frame} end
    assert.are.same({{s1 + 1, 1, 0, false, 1, 0}, {s1 + 1, 1, 0, true, 1, 0},
                     {s2 + 1, 1, 0, false, 1, 0}, {s2 + 1, 1, 1, true, 1, 0}}, got)
    assert.are.same({2, 2}, r.arrays[1].values)
  end)

  it("numbers block instances: a new one per block entered, the caller's kept across a call", function()
    -- c(p): p[0] = 1; if (p[0] > 0) p[1] = 2;     m(p): p[2] = 3; c(p); p[3] = p[2];
    local B = kb.new("blk.c")
    local c = B:func("c", "void")
    local p = B:sym("p", "param", {ptr = 1})
    local c1 = B:assign(B:elem(p, B:ci(0)), B:cd(1))
    local c2 = B:assign(B:elem(p, B:ci(1)), B:cd(2))
    local cif = B:ifs(B:op("gt", B:elem(p, B:ci(0)), B:cd(0)), {c2})
    B:body({c1, cif})
    B:func("m", "void")
    local q = B:sym("q", "param", {ptr = 1})
    local m1 = B:assign(B:elem(q, B:ci(2)), B:cd(3))
    local m2 = B:call(c, {B:var(q)})
    local m3 = B:assign(B:elem(q, B:ci(3)), B:elem(q, B:ci(2)))
    B:body({m1, m2, m3})
    local k = assert(B:load())
    local r = assert(k:run("m", {arrays = {{name = "A", type = "double", values = {0, 0, 0, 0}}},
                                 args = {{array = 1, offset = 0}}}, {trace = true}))
    local got = {}
    for i, a in ipairs(r.trace) do got[i] = {a.stmt, a.cell, a.write, a.block, a.frame} end
    assert.are.same({{m1 + 1, 2, true, 1, 0},
                     {c1 + 1, 0, true, 2, 1},   -- c's first block
                     {cif + 1, 0, false, 3, 1}, -- the BRANCH's test
                     {c2 + 1, 1, true, 4, 1},   -- the then block
                     {m3 + 1, 2, false, 1, 0},  -- m's block goes on
                     {m3 + 1, 3, true, 1, 0}}, got)
  end)
end)

describe("the control flow graph", function()
  it("has the vertices and edges of Utke, Flattening, sec. 2, in pre-order", function()
    -- i = 0; while (i < n) { if (p[i] < 0.0) break; i = i + 1; }
    -- do p[0] = p[0] + 1.0; while (p[0] < 0.0); return;
    local B = kb.new("cfg.c")
    B:func("c", "void")
    local p = B:sym("p", "param", {ptr = 1})
    local n = B:sym("n", "param", {base = "int"})
    local i = B:sym("i", "local", {base = "int"})
    local s0 = B:assign(B:var(i), B:ci(0))
    local brk = B:s("break")
    local sif = B:ifs(B:op("lt", B:elem(p, B:var(i)), B:cd(0)), {brk})
    local inc = B:assign(B:var(i), B:op("add", B:var(i), B:ci(1)))
    local wl = B:loop("while", B:op("lt", B:var(i), B:var(n)), {sif, inc})
    local body = B:assign(B:elem(p, B:ci(0)), B:op("add", B:elem(p, B:ci(0)), B:cd(1)))
    local dl = B:loop("do", B:op("lt", B:elem(p, B:ci(0)), B:cd(0)), {body})
    local ret = B:ret()
    B:body({s0, wl, dl, ret})
    local k = assert(B:load())
    local g = k:cfg("c")
    local kinds, succ, stmts = {}, {}, {}
    for v, vx in ipairs(g.vertices) do
      kinds[v] = vx.kind
      succ[v] = vx.succ
      stmts[v] = vx.stmts
      assert.are.equal(v, vx.id)
    end
    assert.are.same({"entry", "block", "loop", "branch", "block", "endbranch", "block", "endloop",
                     "loop", "block", "endloop", "block", "exit"}, kinds)
    assert.are.same({{2}, {3}, {4, 8}, {5, 6}, {8}, {7}, {3}, {10}, {10, 11}, {9}, {12}, {13}, {}}, succ)
    assert.are.same({{}, {s0 + 1}, {}, {}, {brk + 1}, {}, {inc + 1}, {}, {}, {body + 1}, {}, {ret + 1}, {}}, stmts)
    assert.are.same({3, 5}, g.vertices[8].pred) -- the exit edge of the loop, then the break
    assert.are.equal(wl + 1, g.vertices[3].stmt)
    assert.are.equal(1, g.entry)
    assert.are.equal(13, g.exit)
    assert.are.equal(4, g.stmt_vertex[sif + 1])
    assert.matches("v2 -> v3 [label=\"T\"];", k:cfg_dot("c"), 1, true)
    assert.matches("2 loop s4 -> 3 7", k:cfg_text(1), 1, true)
  end)
end)

describe("the cgwb.Kernel userdata", function()
  it("loads the rows, gives them back with k:ir(), and refuses broken rows with nil, message", function()
    local B = sine_kernel()
    local k = assert(B:load())
    assert.are.same(B.flat, k:ir())
    assert.matches("cgwb.Kernel %(sine.c: 1 functions, 4 statements%)", tostring(k))
    local w = kb.layout.width.expr
    B.flat.expr[3 * w + kb.layout.expr.A] = 999 -- an operand out of range
    local none, msg = B:load()
    assert.is_nil(none)
    assert.are.equal("sine.c: kernel form: expr 3: operand 999 out of range", msg)
    B.flat.expr[3 * w + kb.layout.expr.A] = 1.5
    assert.has_error(function() B:load() end, "kernel_load: flat.expr[" .. (3 * w + kb.layout.expr.A) .. "] is not an int32")
  end)
  it("frees once, by k:free(), __gc or __close, and refuses use after free", function()
    local k = assert(sine_kernel():load())
    k:free()
    k:free()
    assert.matches("cgwb.Kernel used after free", select(2, pcall(k.ir, k)))
    do local k2 <close> = assert(sine_kernel():load()) end
    assert.has_error(function() k:cfg(1) end)
    local k3 = assert(sine_kernel():load())
    assert.has_error(function() k3:cfg("nope") end, "bad argument #1 to 'cfg' (no function 'nope' in the kernel)")
    assert.has_error(function() k3:cfg(2) end)
  end)
end)

describe("under the memory limit (core.memory_limit)", function()
  it("load, graph, run with trace and Jacobian refuse cleanly and leak nothing", function()
    local kparse = require "cgwb.kparse"
    local flat = assert(kparse.parse(H.read("examples/kernels/stencil1d.c"), "s.c"))
    local call = {arrays = {{name = "U", type = "double", values = {1, 2, 3, 4, 5}},
                            {name = "W", type = "double", values = {0, 0, 0, 0, 0}}},
                  args = {{int = 5}, {int = 2}, {double = 0.25}, {array = 1, offset = 0}, {array = 2, offset = 0}}}
    local old = core.memory_limit()
    collectgarbage() collectgarbage()
    local _, base = core.memory_limit()
    local fails, oks = 0, 0
    for lim = 64, 40000, 211 do
      core.memory_limit(base + lim)
      local ok, err = pcall(function()
        local k <close> = assert(core.kernel_load(flat))
        assert(k:run("heat", call, {trace = true}))
        assert(k:jacobian("heat", call))
        k:cfg(1)
      end)
      core.memory_limit(0)
      collectgarbage() collectgarbage()
      local _, used = core.memory_limit()
      assert.are.equal(base, used, "bytes left at limit " .. lim)
      if ok then oks = oks + 1
      else
        fails = fails + 1
        assert.matches("memory limit", tostring(err))
      end
    end
    core.memory_limit(old)
    assert.is_true(fails > 50 and oks > 10)
  end)
end)
