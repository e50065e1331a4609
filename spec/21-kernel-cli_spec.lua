-- spec/21-kernel-cli_spec.lua: the Lua face of kernels and the `cgwb kernel`
-- command (doc/kernels.md): JSON decoding, CALL.json into the core's CALL
-- table, statements printed back as C, every option on the example kernels,
-- golden outputs of small kernels, exit codes and messages of each error
-- class, determinism.
local H = require "spec.helper"
local cgwb = require "cgwb"
local json = require "cgwb.json"
local kernel = require "cgwb.kernel"
local KB = require "spec.kbuild"
local RNG = require "spec.rng"

-- {==== JSON decoding ====}

describe("json.decode", function()
  it("reads every kind of value, keeping integers apart from floats", function()
    local v = assert(json.decode('{"a": [1, 2.5, -0.0, 1e3, true, false, null], "b": "x\\u00e9\\n\\ud83d\\ude00"}'))
    assert.equal(1, v.a[1]); assert.equal("integer", math.type(v.a[1]))
    assert.equal(2.5, v.a[2])
    assert.is_true(H.same_bits(-0.0, v.a[3]))
    assert.equal("float", math.type(v.a[4])); assert.equal(1000.0, v.a[4])
    assert.is_true(v.a[5]); assert.is_false(v.a[6]); assert.equal(json.null, v.a[7])
    assert.equal("x\u{e9}\n\u{1F600}", v.b)
    assert.is_true(json.is_array(v.a))
  end)

  it("writes -0 with its sign, as %.17g does", function()
    assert.equal("[-0,0,-1.5]", json.encode({ -0.0, 0.0, -1.5 }))
    assert.is_true(H.same_bits(-0.0, json.decode("-0"))) -- and reads it back with the sign
  end)

  it("keeps the keys of an object in the text's order", function()
    local v = assert(json.decode('{"z": 1, "a": 2, "m": {"y": 0, "b": 1}}'))
    assert.same({ "z", "a", "m" }, json.keys(v))
    assert.same({ "b", "y" }, json.keys({ y = 0, b = 1 })) -- not decoded: sorted
  end)

  it("names line and column of every syntax error", function()
    local cases = {
      { "[1,]", "C.json:1:4: expected a value, found ']'" },
      { '{"a": 1,\n "a": 2}', "C.json:2:2: duplicate key 'a'" },
      { "01", "C.json:1:1: bad number '01'" },
      { "[1 2]", "C.json:1:4: expected ',' or ']', found '2'" },
      { '{"x": tru}', "C.json:1:7: expected a value, found 'tru'" },
      { '"abc', "C.json:1:1: unterminated string" },
      { "[1.]", "C.json:1:2: bad number '1.'" },
      { "{} x", "C.json:1:4: expected end of input, found 'x'" },
      { "", "C.json:1:1: expected a value, found end of input" },
      { '"\\q"', "C.json:1:2: bad escape '\\q'" },
      { ("["):rep(600), "C.json:1:502: nesting deeper than 500" },
    }
    for _, c in ipairs(cases) do
      local v, err = json.decode(c[1], "C.json")
      assert.is_nil(v, c[1])
      assert.equal(c[2], err)
    end
  end)

  -- A random JSON value of bounded depth.
  local function random_value(r, depth)
    local k = r:int(1, depth > 3 and 4 or 6)
    if k == 1 then return r:int(-1000, 1000) end
    if k == 2 then return r:float(-1e6, 1e6) end
    if k == 3 then
      local s = {}
      for i = 1, r:int(0, 6) do s[i] = string.char(r:int(1, 127)) end
      return table.concat(s)
    end
    if k == 4 then return ({ true, false, json.null })[r:int(1, 3)] end
    if k == 5 then
      local t = json.array({})
      for i = 1, r:int(0, 4) do t[i] = random_value(r, depth + 1) end
      return t
    end
    local t = {}
    for _ = 1, r:int(1, 4) do t["k" .. r:int(1, 9)] = random_value(r, depth + 1) end
    return t
  end

  it("reads back what json.encode writes, on 500 generated values", function()
    local r = RNG.new(21)
    for _ = 1, 500 do
      local v = random_value(r, 0)
      local text = json.encode(v, r:int(0, 1) == 1 and 2 or nil)
      local back, err = json.decode(text)
      assert(err == nil, err)
      assert.equal(json.encode(v), json.encode(back))
    end
  end)

  it("never raises on arbitrary text: a value or nil and a message", function()
    local r = RNG.new(7)
    local alphabet = '{}[]:,"\\ -+.eE0123456789truefalsnl\n\tabc'
    for _ = 1, 2000 do
      local s = {}
      for i = 1, r:int(0, 30) do
        local c = r:int(1, #alphabet)
        s[i] = alphabet:sub(c, c)
      end
      local _, err = json.decode(table.concat(s), "F")
      assert(err == nil or err:match("^F:%d+:%d+: "), err)
    end
  end)
end)

-- {==== a kernel made by hand, and CALL.json ====}

-- double f(double x, double *a, int n) {      line 1
--   a[0] = x * sin(a[1]);                       line 2
--   for (i = 0; i < n; i = i + 1)               line 3
--     a[i] = a[i] + 2.0;                        line 4
--   return a[0];                                line 5
-- }
-- as flat rows (spec/kbuild.lua); with g(const double *restrict p, int m[4]).
local function hand_kernel()
  local b = KB.new("hand.c")
  b:at(1):func("f", "double")
  local x = b:sym("x", "param")
  local a = b:sym("a", "param", { ptr = 1 })
  local n = b:sym("n", "param", { base = "int" })
  local i = b:sym("i", "local", { base = "int" })
  b:at(2)
  local s1 = b:assign(b:elem(a, b:ci(0)), b:op("mul", b:var(x), b:intrin("sin", b:elem(a, b:ci(1)))))
  b:at(3)
  local s2 = b:assign(b:var(i), b:ci(0))
  b:at(4)
  local body = b:assign(b:elem(a, b:var(i)), b:op("add", b:elem(a, b:var(i)), b:cd(2)))
  b:at(3)
  local step = b:assign(b:var(i), b:op("add", b:var(i), b:ci(1)))
  local lp = b:loop("for", b:op("lt", b:var(i), b:var(n)), { body }, { step })
  b:at(5)
  local r = b:ret(b:elem(a, b:ci(0)))
  b:body({ s1, s2, lp, r })
  b:at(7):func("g", "void")
  b:sym("p", "param", { ptr = 1, qual = KB.layout.qual.const | KB.layout.qual.restrict })
  local m = b:sym("m", "param", { base = "int", ptr = 1, ndim = 1, dim0 = 4 })
  local c = b:sym("c", "local", { base = "double" })
  b:at(8)
  local t1 = b:assign(b:var(c), b:op("cond", b:op("lt", b:elem(m, b:ci(0)), b:ci(2)),
    b:op("neg", b:cd(0.1)), b:cast("double", b:op("sub", b:elem(m, b:ci(1)), b:op("sub", b:ci(3), b:ci(1))))))
  b:body({ t1 })
  return assert(kernel.load(b.flat))
end

describe("a kernel's functions, symbols and statements from Lua", function()
  local k = hand_kernel()

  it("lists the functions with their C parameter types", function()
    local fs = k:functions()
    assert.equal(2, #fs)
    assert.same({ id = 1, name = "f", ret = "double", line = 1, col = 1, params = {
      { name = "x", type = "double", const = false, restrict = false },
      { name = "a", type = "double *", const = false, restrict = false },
      { name = "n", type = "int", const = false, restrict = false } } }, fs[1])
    assert.same({ name = "p", type = "const double *restrict", const = true, restrict = true }, fs[2].params[1])
    assert.equal("int[4]", fs[2].params[2].type)
  end)

  it("names a function by name or 1-based id, and says when there is none", function()
    assert.equal(2, k:function_id("g"))
    assert.equal(1, k:function_id(1))
    assert.same({ nil, "hand.c: no function 'h'" }, { k:function_id("h") })
    assert.same({ nil, "hand.c: no function 3 (the kernel has 2)" }, { k:function_id(3) })
    assert.has_error(function() k:symbols("h") end, "hand.c: no function 'h'")
  end)

  it("prints the statements back as C, depth first, with line, depth and part", function()
    local got = {}
    for _, s in ipairs(k:statements("f")) do
      got[#got + 1] = ("%d %d:%d %d %s %s"):format(s.id, s.line, s.col, s.depth, s.part, s.text)
    end
    assert.same({
      "1 2:1 0 body a[0] = x * sin(a[1])",
      "2 3:1 0 body i = 0",
      "5 3:1 0 body for (i < n)",
      "3 4:1 1 body a[i] = a[i] + 2.0",
      "4 3:1 1 step i = i + 1",
      "6 5:1 0 body return a[0]",
    }, got)
    -- precedence: parentheses exactly where C needs them
    assert.equal("c = m[0] < 2 ? -0.10000000000000001 : (double)(m[1] - (3 - 1))", k:statements("g")[1].text)
  end)

  it("gives the symbols with kinds and types", function()
    local s = k:symbols("f")
    assert.same({ "x", "a", "n", "i" }, { s[1].name, s[2].name, s[3].name, s[4].name })
    assert.same({ "param", "param", "param", "local" }, { s[1].kind, s[2].kind, s[3].kind, s[4].kind })
    assert.is_true(s[2].pointer)
    assert.same({ 4 }, k:symbols("g")[2].dims)
  end)
end)

describe("CALL.json into the core's CALL table", function()
  local k = hand_kernel()
  local function conv(text) return kernel.core_call(k, "f", assert(json.decode(text))) end

  it("binds by name and in parameter order alike", function()
    local c1 = assert(conv('{"arrays": {"A": [1, 2, 3]}, "args": {"x": 0.5, "a": ["A", 1], "n": 2}}'))
    local c2 = assert(conv('{"arrays": {"A": [1, 2, 3]}, "args": [0.5, ["A", 1], 2]}'))
    local want = { arrays = { { name = "A", type = "double", values = { 1.0, 2.0, 3.0 } } },
                   args = { { double = 0.5 }, { array = 1, offset = 1 }, { int = 2 } } }
    assert.same(want, c1)
    assert.same(want, c2)
    assert.equal("float", math.type(c1.arrays[1].values[1])) -- a double array holds doubles
    assert.equal("float", math.type(conv('{"arrays": {"A": [1]}, "args": [1, ["A", 0], 2]}').args[1].double))
  end)

  it("keeps the arrays in the order the file writes them", function()
    local c = assert(conv('{"arrays": {"Z": [1], "B": [2], "M": [3]}, "args": [0, ["M", 0], 0]}'))
    assert.same({ "Z", "B", "M" }, { c.arrays[1].name, c.arrays[2].name, c.arrays[3].name })
    assert.same({ array = 3, offset = 0 }, c.args[2])
  end)

  it("names the path of every bad input", function()
    local cases = {
      { '[1]', "CALL.json: expected an object with arrays and args" },
      { '{"arrays": {"A": [1]}, "args": [1, ["A", 0], 2], "zz": 1}', "CALL.json: zz: unknown key (arrays, args)" },
      { '{"arrays": [1], "args": []}', "CALL.json: arrays: expected an object of name: [values]" },
      { '{"arrays": {"A": [1, "c"]}, "args": []}', "CALL.json: arrays.A[1]: expected a number (or null: not initialized)" },
      { '{"arrays": {"A": {"type": "float", "values": [1]}}, "args": []}', 'CALL.json: arrays.A.type: expected "double" or "int"' },
      { '{"arrays": {"A": [1]}, "args": [1, 2]}', "CALL.json: args: 2 values for the 3 parameters of f" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "n": 2}}', "CALL.json: args: no value for parameter a of f" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["A", 0], "n": 2, "q": 1}}', "CALL.json: args.q: f has no parameter of that name" },
      { '{"arrays": {"A": [1]}, "args": {"x": "y", "a": ["A", 0], "n": 2}}', "CALL.json: args.x: expected a number" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["A", 0], "n": 2.5}}', "CALL.json: args.n: expected an int" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["A", 0], "n": 1e2}}', "CALL.json: args.n: expected an int" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["B", 0], "n": 2}}', "CALL.json: args.a: no array 'B' in arrays" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["A", 2], "n": 2}}', "CALL.json: args.a: offset 2 outside A (1 cells)" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": ["A", -1], "n": 2}}', "CALL.json: args.a: offset -1 outside A (1 cells)" },
      { '{"arrays": {"A": [1]}, "args": {"x": 1, "a": 3, "n": 2}}', "CALL.json: args.a: expected [ARRAY, OFFSET] (an array name and an integer cell offset)" },
      { '{"arrays": {"A": {"type": "int", "values": [1]}}, "args": {"x": 1, "a": ["A", 0], "n": 2}}', "CALL.json: args.a: A is an array of int, parameter a points to double" },
    }
    for _, c in ipairs(cases) do
      local v, err = conv(c[1])
      assert.is_nil(v, c[1])
      assert.equal(c[2], err)
    end
  end)

  it("gives an array bound to an int pointer int cells, and refuses fractions there", function()
    local g = function(text) return kernel.core_call(k, "g", assert(json.decode(text))) end
    local c = assert(g('{"arrays": {"D": [0.5], "M": [1, 2, 3, 4]}, "args": [["D", 0], ["M", 0]]}'))
    assert.same({ name = "M", type = "int", values = { 1, 2, 3, 4 } }, c.arrays[2])
    assert.equal("integer", math.type(c.arrays[2].values[1]))
    assert.same({ nil, "CALL.json: arrays.M[1]: expected an int (an array of int)" },
                { g('{"arrays": {"D": [0.5], "M": [1, 2.5]}, "args": [["D", 0], ["M", 0]]}') })
    assert.same({ nil, "CALL.json: args[1]: M is an array of double, parameter m points to int" },
                { g('{"arrays": {"M": [1, 2]}, "args": [["M", 0], ["M", 0]]}') })
  end)

  it("binds by name as in order on 300 generated calls", function()
    local r = RNG.new(14)
    for _ = 1, 300 do
      local len = r:int(1, 5)
      local vals = {}
      for i = 1, len do vals[i] = r:int(0, 1) == 1 and r:int(-9, 9) or r:float(-1, 1) end
      local x, off, n = r:float(-2, 2), r:int(0, len), r:int(-5, 5)
      local arrays = { A = json.array(vals) }
      local by_name = assert(kernel.core_call(k, "f", { arrays = arrays, args = { x = x, a = { "A", off }, n = n } }))
      local in_order = assert(kernel.core_call(k, "f", { arrays = arrays, args = json.array({ x, { "A", off }, n }) }))
      assert.same(by_name, in_order)
      assert.same({ { double = x + 0.0 }, { array = 1, offset = off }, { int = n } }, by_name.args)
      for i = 1, len do assert.is_true(H.same_bits(vals[i] + 0.0, by_name.arrays[1].values[i])) end
    end
  end)
end)

-- {==== reading kernels ====}

describe("cgwb.read_kernel on mutated example kernels", function()
  local NM = H.sized(600, 200) -- the first 200 in the sanitizer phase
  it(("gives a kernel whose every Lua view works, or a message naming file:line:col (%d mutants)"):format(NM), function()
    local r = RNG.new(1409)
    local texts = {}
    for _, path in ipairs((function()
      local p = assert(io.popen("ls examples/kernels/*.c"))
      local out = {}
      for l in p:lines() do out[#out + 1] = l end
      p:close()
      table.sort(out)
      return out
    end)()) do texts[#texts + 1] = H.read(path) end
    assert(#texts >= 5)
    local pieces = { ";", "{", "}", "(", ")", "*", "&", "[0]", "+=", "--", "int ", "double ", "return",
                     "if (x)", "for (;;)", "/*", "\n", "goto", "struct", "0x", "1e", "'", "@" }
    local loaded, refused = 0, 0
    for case = 1, NM do
      local t = texts[r:int(1, #texts)]
      for _ = 1, r:int(1, 3) do
        local at = r:int(1, #t)
        local kind = r:int(1, 3)
        if kind == 1 then t = t:sub(1, at - 1) .. t:sub(at + r:int(1, 8))
        elseif kind == 2 then t = t:sub(1, at - 1) .. pieces[r:int(1, #pieces)] .. t:sub(at)
        else local b = r:int(1, #t); t = t:sub(1, at - 1) .. t:sub(b, b) .. t:sub(at + 1) end
      end
      local k, err = cgwb.read_kernel(t, "m.c")
      if k then
        loaded = loaded + 1
        for _, f in ipairs(k:functions()) do
          assert(k:symbols(f.id) and k:statements(f.id), case)
          local _ = k:analyze(f.id) -- nil, message is fine; raising is not
        end
      else
        refused = refused + 1
        assert(err:match("^m%.c:%d+:%d+: ."), ("case %d: %s"):format(case, err))
      end
    end
    assert(loaded > NM // 12 and refused > NM // 12, ("both outcomes occur: %d loaded, %d refused"):format(loaded, refused))
  end)
end)

describe("cgwb.read_kernel", function()
  it("takes a string without newline, brace or semicolon for a path", function()
    local v, err = cgwb.read_kernel("no/such/kernel.c")
    assert.is_nil(v)
    assert.equal("no/such/kernel.c: cannot open: No such file or directory", err)
  end)

  it("refuses what is not a string", function()
    assert.has_error(function() cgwb.read_kernel(3) end,
      "bad argument #1 to 'read_kernel' (string expected, got number)")
  end)
end)

-- {==== the command ====}

-- A small kernel whose canonical form and analyses can be checked by hand.
local SMALL = [[
#include <math.h>
/* y[i] = x * sin(b[i]) for i < n; returns y[0] */
double f(double x, double *y, const double *b, int n) {
  int i;
  for (i = 0; i < n; i++) {
    y[i] = x * sin(b[i]);
  }
  return y[0];
}
]]

local function small_file() return H.write(H.tmp(".c"), SMALL) end

-- The example kernels (examples/kernels/*.c), sorted.
local function examples()
  local p = assert(io.popen("ls examples/kernels/*.c 2>/dev/null"))
  local out = {}
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  table.sort(out)
  return out
end

describe("cgwb kernel", function()
  it("prints functions, symbols and statements with line:col (golden, small kernel)", function()
    local path = small_file()
    local out, err, code = H.cgwb("kernel " .. path)
    assert.equal(0, code, err)
    assert.equal(path .. [[


function 1: double f(double x, double *y, const double *b, int n)  3:8
  symbols:
    x            param  double  3:17
    y            param  double *  3:28
    b            param  const double *  3:45
    n            param  int  3:52
    i            local  int  4:7
  statements:
    s1    5:10     i = 0
    s2    5:3      for (i < n)
    s3    6:5        y[i] = x * sin(b[i])
    s4    5:23       step: i = i + 1
    s5    8:3      return y[0]
]], out)
  end)

  it("keeps a #pragma cgwb on the statement that follows it", function()
    local path = H.write(H.tmp(".c"), "void f(double *a, int n) {\n  int i;\n#pragma cgwb parallel\n"
      .. "  for (i = 0; i < n; i++) a[i] = 2.0 * a[i];\n}\n")
    local out, err, code = H.cgwb("kernel " .. path)
    assert.equal(0, code, err)
    assert.truthy(out:find("    s2    4:3      for (i < n)   #pragma cgwb parallel\n", 1, true), out)
    local k = assert(cgwb.read_kernel(path))
    local pragmas = {}
    for _, st in ipairs(k:statements("f")) do pragmas[#pragmas + 1] = st.pragma or "-" end
    assert.same({ "-", "parallel", "-", "-" }, pragmas)
  end)

  it("prints the control flow graph with the statements of each block", function()
    local out, err, code = H.cgwb("kernel " .. small_file() .. " --cfg --function f")
    assert.equal(0, code, err)
    assert.truthy(out:find([[
  control flow graph (vertex kind -> successors):
    V1    entry     -> V2
    V2    block     -> V3
           s1    5:10     i = 0
    V3    loop      -> V4 V6  for (i < n) 5:3
    V4    block     -> V5
           s3    6:5      y[i] = x * sin(b[i])
    V5    block     -> V3
           s4    5:23     i = i + 1
    V6    endloop   -> V7  for (i < n) 5:3
    V7    block     -> V8
           s5    8:3      return y[0]
    V8    exit      -> (none)
]], 1, true), out)
  end)

  it("prints Utke's Fig. 2 as the paper has it: *z in a2 may be a1's cell, so its ud-chain is {0, a1}", function()
    local out, err, code = H.cgwb("kernel examples/kernels/utke-fig2.c --alias --chains --activity")
    assert.equal(0, code, err)
    local function has(line) assert.truthy(out:find(line, 1, true), line .. "\n" .. out) end
    has("    s1    12:3     z[0] = -(z[0] * x)\n    s2    13:3     z = z + k\n    s3    14:3     y = z[0] / x\n")
    has("    A3    12:3     def must  z[0]             S2\n") -- a1 defines exactly z[0]
    has("    A5    14:7     use       z[0]             S5\n") -- a2 reads z[k]
    has("    S2 {z[0]} exact\n")
    has("    S5 {z[k#1]} exact\n")
    has("  aliasing sets (may or must; every other pair: no):\n    S2 S5 may\n")
    has("    A5    z[0] 14:7        <- 0, s1\n")
    has("    s1     -> 0, s3\n") -- a1's value may reach a2 and leaves through z
    has("    active statements  s1 s3 s4\n    passive statements s2\n")
  end)

  it("honours --assume: separate pointers make Hovland et al.'s statement 3 read *a from statement 1 only", function()
    local path = "examples/kernels/hovland-fig1-aliased.c"
    local may = H.cgwb("kernel " .. path .. " --chains --json")
    local sep, err, code = H.cgwb("kernel " .. path .. " --chains --json --assume 'a!=b' --assume 'a!=f' --assume 'b!=f'")
    assert.equal(0, code, err)
    local function ud_of(text, what)
      for _, u in ipairs(json.decode(text).functions[1].chains.ud) do
        if u.text == what and u.line == 15 then return u.stmts end
      end
    end
    assert.same({ 1, 2 }, ud_of(may, "a[0]")) -- statement 2 may overwrite *a
    assert.same({ 1 }, ud_of(sep, "a[0]"))
    assert.same({ 2 }, ud_of(sep, "b[0]"))
  end)

  it("writes the control flow graph as DOT, one cluster per function without --function", function()
    local path = H.write(H.tmp(".c"), SMALL .. "\ndouble g(double z) { return z * z; }\n")
    local dot = H.tmp(".dot")
    local _, err, code = H.cgwb("kernel " .. path .. " --dot " .. dot)
    assert.equal(0, code, err)
    local text = H.read(dot)
    assert.truthy(text:match("^digraph kernel {"))
    assert.truthy(text:find('subgraph cluster_1 {\n  label="f";', 1, true))
    assert.truthy(text:find('subgraph cluster_2 {\n  label="g";', 1, true))
    assert.truthy(text:find("f2v0 -> f2v1", 1, true))
    local one = H.cgwb("kernel " .. path .. " --function g --dot -")
    assert.truthy(one:match('^digraph "g" {'))
  end)

  it("exits 2 with file:line:col for a kernel outside the subset", function()
    local path = H.write(H.tmp(".c"), "struct s { double a; };\n")
    local out, err, code = H.cgwb("kernel " .. path)
    assert.equal(2, code)
    assert.equal("", out)
    assert.truthy(err:match("^cgwb kernel: " .. path:gsub("%p", "%%%0") .. ":1:1: [^\n]+\n$"), err)
    local syntax = H.write(H.tmp(".c"), "void f(double *a) {\n  a[0] = ;\n}\n")
    _, err, code = H.cgwb("kernel " .. syntax)
    assert.equal(2, code)
    assert.truthy(err:match("^cgwb kernel: [^\n]*:2:%d+: [^\n]+\n$"), err)
  end)

  it("exits 2 for a missing file, an unknown function, a bad --assume, --jacobian alone", function()
    local path = small_file()
    local cases = {
      { "kernel no/such.c", "cgwb kernel: no/such.c: cannot open: No such file or directory\n" },
      { "kernel " .. path .. " --function h", "cgwb kernel: " .. path .. ": no function 'h'\n" },
      { "kernel " .. path .. " --function 2", "cgwb kernel: " .. path .. ": no function 2 (the kernel has 1)\n" },
      { "kernel " .. path .. " --alias --assume 'y<b'", "cgwb kernel: --assume 'y<b': expected NAME!=NAME or NAME==NAME\n" },
      { "kernel " .. path .. " --jacobian", "cgwb kernel: --jacobian needs --call CALL.json\n" },
    }
    for _, c in ipairs(cases) do
      local out, err, code = H.cgwb(c[1])
      assert.equal(2, code, c[1])
      assert.equal("", out)
      assert.equal(c[2], err)
    end
  end)

  it("applies --assume to the functions with both pointer parameters, and exits 2 when none has them", function()
    local out, err, code = H.cgwb("kernel examples/kernels/utke-fig2.c --alias --assume 'q!=z'")
    assert.equal(2, code)
    assert.equal("", out)
    assert.equal("cgwb kernel: --assume 'q!=z': no function shown has these two pointer parameters\n", err)
    local path = H.write(H.tmp(".c"), "double f(double x) { return x; }\nvoid h(double *p, double *q) { *p = *q; }\n")
    local may = H.cgwb("kernel " .. path .. " --alias --json")
    out, err, code = H.cgwb("kernel " .. path .. " --alias --json --assume 'p!=q'")
    assert.equal(0, code, err)
    assert.equal(1, #json.decode(may).functions[2].alias.pairs) -- *p and *q may alias
    assert.equal(0, #json.decode(out).functions[2].alias.pairs)
  end)

  it("exits 2 for a bad CALL.json, naming where", function()
    local path = small_file()
    local cases = {
      { '{"arrays": {"Y": [0, 0], "B": [1, 2]},\n "args": {"x": 0.5 "y": ["Y", 0]}}', ":2:20: expected ',' or '}', found '\"'" },
      { '{"arrays": {"Y": [0, 0], "B": [1, 2]}, "args": {"x": "a", "y": ["Y", 0], "b": ["B", 0], "n": 2}}',
        ": args.x: expected a number" },
      { '{"arrays": {"Y": [0, 0], "B": [1, 2]}, "args": [0.5, ["Y", 0], ["B", 3], 2]}',
        ": args[2]: offset 3 outside B (2 cells)" },
    }
    for _, c in ipairs(cases) do
      local call = H.write(H.tmp(".json"), c[1])
      local out, err, code = H.cgwb("kernel " .. path .. " --call " .. call)
      assert.equal(2, code, c[1])
      assert.equal("", out)
      assert.equal("cgwb kernel: " .. call .. c[2] .. "\n", err)
    end
  end)

  it("has help with an example, as every command", function()
    local out, _, code = H.cgwb("help kernel")
    assert.equal(0, code)
    assert.truthy(out:find("--call", 1, true))
    assert.truthy(out:find("Example:\n  cgwb kernel examples/kernels/", 1, true))
    local out2 = H.cgwb("kernel --help")
    assert.equal(out, out2)
  end)

  it("runs every option on every example kernel: JSON that decodes, the same bytes twice", function()
    local list = examples()
    assert(#list >= 5, "examples/kernels/ holds the papers' examples")
    for _, path in ipairs(list) do
      for _, opts in ipairs({ "", " --cfg --alias --chains --activity", " --json --cfg --alias --chains --activity" }) do
        local out1, err1, code1 = H.cgwb("kernel " .. path .. opts)
        assert.equal(0, code1, path .. opts .. ": " .. err1)
        local out2 = H.cgwb("kernel " .. path .. opts)
        assert.equal(out1, out2, path .. opts .. ": two runs differ")
        if opts:find("--json") then
          local v = assert(json.decode(out1, path))
          local k = assert(cgwb.read_kernel(path))
          assert.equal(#k:functions(), #v.functions)
          for i, f in ipairs(v.functions) do
            assert.equal(k:functions()[i].name, f.name)
            assert.equal(#k:statements(i), #f.statements)
            assert.truthy(f.cfg and f.alias and f.chains and f.activity)
          end
        end
      end
    end
  end)
end)

-- {==== the interpreter from the command line ====}

describe("cgwb kernel --call", function()
  it("runs Utke's Fig. 2 kernel: arrays, scalars, return and Jacobian (golden, checked by hand)", function()
    -- a1: *z = -(*z * x) makes Z[0] = -(2 * 0.5) = -1; z += 1; a2: y = Z[1] / x = 3 / 0.5 = 6.
    -- d Z[0] / d Z[0] = -x = -0.5, / d x = -Z[0] = -2; Z[1] is only read, Z[2] untouched
    -- (its column is -(0 * x) = -0: the tangent's sign, as %.17g writes it).
    -- The return y: d y / d Z[0] = 0, / d Z[1] = 1 / x = 2, / d x = -Z[1] / x^2 = -12.
    local out, err, code = H.cgwb("kernel examples/kernels/utke-fig2.c --call examples/kernels/utke-fig2.json --jacobian")
    assert.equal(0, code, err)
    assert.equal([[
{
  "arrays": {
    "Z": [-1, 3, 5]
  },
  "jacobian": {
    "cols": ["Z[0]", "Z[1]", "x"],
    "rows": ["Z[0]", "return"],
    "values": [
      [-0.5, -0, -2],
      [0, 2, -12]
    ]
  },
  "return": 6,
  "scalars": {
    "k": 1,
    "x": 0.5
  }
}
]], out)
  end)

  it("binds two pointers to one cell: Hovland et al.'s Fig. 1 aliased, as the compiled C gives it", function()
    -- *a = cos(x) is overwritten by *b = sin(y) y^2 (a and b are M[0]); *f = exp(M[0]^2).
    local out, err, code = H.cgwb("kernel examples/kernels/hovland-fig1-aliased.c --call "
      .. "examples/kernels/hovland-fig1-aliased.json --jacobian")
    assert.equal(0, code, err)
    local v = assert(json.decode(out))
    local b = math.sin(1.5) * 1.5 * 1.5
    assert.is_true(H.same_bits(b, v.arrays.M[1]))
    assert.is_true(H.same_bits(math.exp(b * b), v.arrays.M[2]))
    assert.equal(json.null, v["return"])
    assert.same({ "x", "y" }, v.jacobian.cols) -- M is written before it is read
    assert.same({ "M[0]", "M[1]" }, v.jacobian.rows)
    assert.equal(0, v.jacobian.values[1][1]) -- cos(x) is overwritten
    local db = math.cos(1.5) * 1.5 * 1.5 + 2 * math.sin(1.5) * 1.5
    assert.near(db, v.jacobian.values[1][2], 1e-15 * math.abs(db))
    assert.near(math.exp(b * b) * 2 * b * db, v.jacobian.values[2][2], 1e-13 * math.exp(b * b))
  end)

  it("binds by position as by name, and prints an uninitialized cell as null", function()
    local byname = H.write(H.tmp(".json"), '{"arrays": {"Z": [2, 3, null]}, "args": {"k": 1, "z": ["Z", 0], "x": 0.5}}')
    local inorder = H.write(H.tmp(".json"), '{"arrays": {"Z": [2, 3, null]}, "args": [0.5, ["Z", 0], 1]}')
    local o1, e1, c1 = H.cgwb("kernel examples/kernels/utke-fig2.c --call " .. byname)
    local o2, _, c2 = H.cgwb("kernel examples/kernels/utke-fig2.c --call " .. inorder)
    assert.equal(0, c1, e1)
    assert.equal(0, c2)
    assert.equal(o1, o2)
    assert.truthy(o1:find('"Z": [-1, 3, null]', 1, true), o1)
  end)

  it("exits 1 with the kernel's position for a run-time error", function()
    local cases = {
      { '{"arrays": {"Z": [2, null, 5]}, "args": [0.5, ["Z", 0], 1]}', ":14:7: read of uninitialized Z[1]" },
      { '{"arrays": {"Z": [2, 3, 5]}, "args": [0.5, ["Z", 0], 7]}', ":13:5: " },
    }
    for _, c in ipairs(cases) do
      local call = H.write(H.tmp(".json"), c[1])
      local out, err, code = H.cgwb("kernel examples/kernels/utke-fig2.c --call " .. call)
      assert.equal(1, code, err)
      assert.equal("", out)
      assert.equal("cgwb kernel: examples/kernels/utke-fig2.c" .. c[2], err:sub(1, #("cgwb kernel: examples/kernels/utke-fig2.c" .. c[2])))
    end
  end)

  it("needs --function when the file has several functions", function()
    local path = H.write(H.tmp(".c"), "double f(double x) { return x; }\ndouble g(double x) { return -x; }\n")
    local call = H.write(H.tmp(".json"), '{"args": [2]}')
    local _, err, code = H.cgwb("kernel " .. path .. " --call " .. call)
    assert.equal(2, code)
    assert.equal("cgwb kernel: --call needs --function (the kernel has several functions)\n", err)
    local out
    out, err, code = H.cgwb("kernel " .. path .. " --function g --call " .. call)
    assert.equal(0, code, err)
    assert.equal(-2, json.decode(out)["return"])
  end)
end)

describe("cgwb kernel --call on generated kernels", function()
  local kgen = require "spec.kgen"

  -- The CALL.json text of a core CALL table, by name or in order.
  local function call_json(call, info, by_name)
    local arrays = {}
    for _, a in ipairs(call.arrays) do arrays[a.name] = json.array(a.values) end
    local args = by_name and {} or json.array({})
    for i, a in ipairs(call.args) do
      local v = a.double or a.int or json.array({ call.arrays[a.array].name, a.offset })
      if by_name then args[info.params[i].name] = v else args[i] = v end
    end
    return json.encode({ arrays = arrays, args = args })
  end

  -- The arrays the compiled kernel printed ("A: 0x1p+0 ..." a line, %a).
  local function compiled_arrays(text, info, call)
    -- (kgen.driver writes a raw newline inside printf's string: escaped here)
    local src = H.write(H.tmp(".c"), (kgen.driver(text, info, call):gsub('printf%("\n"%);', 'printf("\\n");')))
    local exe = H.tmp("")
    assert(os.execute(("cc -std=c99 -O0 -ffp-contract=off -o %s %s -lm"):format(exe, src)))
    local p = assert(io.popen(exe))
    local out = {}
    for l in p:lines() do
      local name, rest = l:match("^(%w+):(.*)$")
      local vals = {}
      for x in rest:gmatch("%S+") do vals[#vals + 1] = tonumber(x) end
      out[name] = vals
    end
    p:close()
    os.remove(src); os.remove(exe)
    return out
  end

  it("prints what the compiled kernel computes, bit for bit, aliased bindings too (25 kernels)", function()
    local r = RNG.new(2114)
    local aliased = 0
    for case = 1, 25 do
      local text, info = kgen.kernel(r, { stmts = r:int(4, 10) })
      local call = kgen.call(r, info)
      local path = H.write(H.tmp(".c"), text)
      local cj = H.write(H.tmp(".json"), call_json(call, info, case % 2 == 0))
      local out, err, code = H.cgwb(("kernel %s --function %s --call %s"):format(path, info.name, cj))
      assert.equal(0, code, err .. "\n" .. text)
      local got = assert(json.decode(out))
      local want = compiled_arrays(text, info, call)
      for _, a in ipairs(call.arrays) do
        H.assert_bits(want[a.name], got.arrays[a.name], ("case %d, array %s"):format(case, a.name))
        if a.name == "A" then aliased = aliased + 1 end
      end
      os.remove(path); os.remove(cj)
    end
    assert(aliased >= 5, "some bindings alias") -- the generator binds pointers into one array
  end)
end)

describe("doc/kernels.md", function()
  it("shows the worked example's output as the command prints it today", function()
    local doc = H.read("doc/kernels.md")
    for _, args in ipairs({ "examples/kernels/utke-fig2.c --alias --chains --activity",
                            "examples/kernels/utke-fig2.c --call examples/kernels/utke-fig2.json --jacobian" }) do
      local out, err, code = H.cgwb("kernel " .. args)
      assert.equal(0, code, err)
      local indented = ("\n" .. out):gsub("\n([^\n])", "\n    %1")
      assert.truthy(doc:find(indented, 1, true), "doc/kernels.md lacks the output of cgwb kernel " .. args)
    end
  end)
end)

describe("cgwb kernel --call: what a number can be", function()
  local K = H.write(H.tmp(".c"), [=[
#include <math.h>
double f(const int *idx, const double *x, double *y) {
  y[idx[0]] = x[0] / x[1];
  return sqrt(x[0]) * x[1];
}
]=])
  local function call(x0, x1)
    return H.write(H.tmp(".json"), ('{"arrays": {"I": [0], "X": [%s, %s], "Y": [0.0]}, '
      .. '"args": {"idx": ["I", 0], "x": ["X", 0], "y": ["Y", 0]}}'):format(x0, x1))
  end
  it("a double result has its Jacobian row; an int array has neither rows nor columns", function()
    local out, err, code = H.cgwb("kernel " .. K .. " --call " .. call("2.0", "3.0") .. " --jacobian")
    assert.equal(0, code, err)
    local J = json.decode(out).jacobian
    assert.are.same({ "X[0]", "X[1]" }, J.cols)
    assert.are.same({ "Y[0]", "return" }, J.rows)
    -- d(sqrt(x0) x1): x1 / (2 sqrt(x0)), sqrt(x0)
    assert(math.abs(J.values[2][1] - 3 / (2 * math.sqrt(2))) < 1e-15 and math.abs(J.values[2][2] - math.sqrt(2)) < 1e-15)
  end)
  it("NaN and the infinities are strings, not null; 1e400 on input is an error", function()
    local out, err, code = H.cgwb("kernel " .. K .. " --call " .. call("-1.0", "0.0"))
    assert.equal(0, code, err)
    local r = json.decode(out)
    assert.equal("-Infinity", r.arrays.Y[1])
    assert.equal("NaN", r["return"])
    local path = call("1e400", "2.0")
    local _, err2, code2 = H.cgwb("kernel " .. K .. " --call " .. path)
    assert.equal(2, code2)
    assert.truthy(err2:find(path .. ":1:29: number 1e400 is beyond the largest double", 1, true), err2)
  end)
end)
