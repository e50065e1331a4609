-- spec/65-bitwise_spec.lua: the int bitwise operators & | ^ << >> ~ and
-- their compound assignments in kernels (IR BAND BOR BXOR SHL SHR BNOT).
-- The interpreter against the kernel compiled as C, bit for bit, on a
-- bit-reversal permutation and on generated expressions; the shifts C
-- leaves undefined as interpreter errors with their place; constant
-- folding (array sizes, enums); tangent (spec/tcheck.lua) and adjoint code
-- (spec/adcheck.lua) of a kernel indexing and branching by bits; the
-- refusals of the front end and of XAIF.
local H = require "spec.helper"
local cgwb = require "cgwb"
local AC = require "adcheck"
local TC = require "tcheck"
local rng = require "rng"

local HEAD = "#include <math.h>\n"

local function darr(name, vals) return { name = name, type = "double", values = vals } end
local function iarr(name, vals) return { name = name, type = "int", values = vals } end

local PERM = { -- a bit-reversal permutation (as an FFT's), parity signs, masks, every compound form
  name = "perm", text = HEAD .. [[
enum { LOG = 3, N = 1 << LOG };
static int rev(int i, int bits) { int r = 0, b; for (b = 0; b < bits; b++) { r = (r << 1) | (i & 1); i >>= 1; } return r; }
void perm(const double *x, double *y, int *h)
{
  int i, m = N - 1;
  double w[N];
  for (i = 0; i < N; i++) w[rev(i, LOG)] = x[i] * ((i & 1) ? -1.0 : 1.0);
  for (i = 0; i < N; i++) y[i] = w[i ^ m] + sin(w[(i + 3) & m]) * (double)(~i & 7);
  h[0] = (-17 >> 2) + (5 ^ 3) + ((1 << 30) >> 29) + (m & ~2);
  h[1] = h[0]; h[1] <<= 2; h[1] |= 1; h[1] &= 0xff; h[1] ^= 0x5a; h[1] >>= 1;
}
]], call = function()
    return { arrays = { darr("x", { 0.3, -0.7, 1.1, 0.45, -0.2, 0.9, -1.3, 0.05 }), darr("y", { 0, 0, 0, 0, 0, 0, 0, 0 }),
      iarr("h", { 0, 0 }) }, args = { { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } }
  end }

local kgen = require "kgen"
local driver, interp_lines = kgen.exact_driver, kgen.result_lines

local function read(text, opts) return cgwb.read_kernel(text, "bw.c", opts) end

-- A random int expression over a, b, c with no behaviour C leaves undefined:
-- left shifts of masked (non-negative, small) values by small counts, sums
-- of masked values, right shifts of anything by 0..31 (gcc's arithmetic).
local function gen_expr(r, depth)
  if depth == 0 or r:int(1, 5) == 1 then
    local k = r:int(1, 4)
    if k == 4 then return tostring(r:int(-40, 40)) end
    return ({ "a", "b", "c" })[k]
  end
  local function sub() return gen_expr(r, depth - 1) end
  local k = r:int(1, 7)
  if k == 1 then return ("(%s & %s)"):format(sub(), sub())
  elseif k == 2 then return ("(%s | %s)"):format(sub(), sub())
  elseif k == 3 then return ("(%s ^ %s)"):format(sub(), sub())
  elseif k == 4 then return ("(~%s)"):format(sub())
  elseif k == 5 then return ("(%s >> %d)"):format(sub(), r:int(0, 31))
  elseif k == 6 then return ("((%s & 0xffff) << %d)"):format(sub(), r:int(0, 14))
  end
  return ("((%s & 0x7fff) + (%s & 0x3fff))"):format(sub(), sub())
end

describe("bitwise operators", function()
  it("lower to their own operators; constant ones fold into sizes and enums", function()
    local k = assert(read(PERM.text))
    local ir = require("cgwb.ir").view(k:ir())
    local ops = {}
    for x = 0, ir.nexpr - 1 do ops[ir:expr(x).op] = true end
    for _, op in ipairs { "band", "bor", "bxor", "shl", "shr", "bnot" } do assert.truthy(ops[op], op) end
    local k2 = assert(read("enum { A = 3 << 2, B = ~A & 0xf, C = -9 >> 1 };\nvoid f(double *y) { double w[A | 1]; int i;"
      .. " for (i = 0; i < (A | 1); i++) w[i] = 1.0; y[0] = w[B] + C; }\n"))
    local syms = {}
    for _, s in ipairs(k2:symbols("f")) do syms[s.name] = s end
    assert.same({ 13 }, syms.w.dims)
    local r = assert(k2:run("f", { arrays = { darr("y", { 0 }) }, args = { { array = 1, offset = 0 } } }))
    assert.equal(1 + (-5), r.arrays[1].values[1]) -- B = 3, C = -5
    local text = assert(H.cgwb("kernel " .. H.write(H.tmp(".c"), PERM.text) .. " --function perm"))
    assert.truthy(text:find("y[i] = w[i ^ m] + sin(w[(i + 3) & m]) * (double)(~i & 7)", 1, true), text)
    assert.truthy(text:find("h[1] = h[1] << 2", 1, true), text)
  end)

  it("the interpreter gives the compiled kernel's values bit for bit: the permutation", function()
    local k = assert(read(PERM.text))
    local call = PERM.call()
    local r = assert(k:run("perm", call))
    assert.equal(H.run_c(driver(PERM.text, "perm", call)), interp_lines(r, call))
  end)

  it("the interpreter gives the compiled kernel's values bit for bit: 30 generated kernels", function()
    local r = rng.new(65)
    local src = {}
    for n = 1, 30 do
      local lines = {}
      for j = 0, 7 do lines[#lines + 1] = ("  o[%d] = %s;"):format(j, gen_expr(r, 4)) end
      src[n] = ("void g%d(int a, int b, int c, int *o) {\n%s\n}\n"):format(n, table.concat(lines, "\n"))
    end
    local calls, text = {}, table.concat(src, "\n")
    local main = { text, "#include <stdio.h>", "int main(void) {", "  int o[8];" }
    local k = assert(read(text))
    local want = {}
    for n = 1, 30 do
      local a, b, c = r:int(-100000, 100000), r:int(-300, 300), r:int(-7, 7)
      calls[n] = { arrays = { iarr("o", { 0, 0, 0, 0, 0, 0, 0, 0 }) },
        args = { { int = a }, { int = b }, { int = c }, { array = 1, offset = 0 } } }
      main[#main + 1] = ('  g%d(%d, %d, %d, o); for (int j = 0; j < 8; j++) printf("%%d\\n", o[j]);'):format(n, a, b, c)
      local res = assert(k:run("g" .. n, calls[n]))
      for _, v in ipairs(res.arrays[1].values) do want[#want + 1] = ("%d"):format(v) end
    end
    main[#main + 1] = "  return 0;\n}\n"
    assert.equal(H.run_c(table.concat(main, "\n")), table.concat(want, "\n") .. "\n")
  end)

  it("the shifts C leaves undefined are interpreter errors with their place", function()
    local function f(b) return "void f(int n, int *o) {\n  int s = n - 3, big = 1 << 30;\n  " .. b .. "\n}\n" end
    local call = { arrays = { iarr("o", { 0 }) }, args = { { int = 3 }, { array = 1, offset = 0 } } }
    local cases = {
      { "o[0] = 1 << (n + 29);", "bw.c:3:12: shift by 32 (an int shifts by 0..31)" },
      { "o[0] = 8 >> (s - 1);", "bw.c:3:12: shift by -1 (an int shifts by 0..31)" },
      { "o[0] = (s - 1) << 2;", "bw.c:3:18: left shift of the negative int -1" },
      { "o[0] = big << 2;", "bw.c:3:14: int overflow in shl (the result 4294967296 does not fit an int)" },
      { "o[0] = (big << 0) | (((s - 5) >> 31) & ~n);", nil, -4 },
      { "o[0] = (big >> 29) ^ (-7 >> 1);", nil, 2 ~ -4 },
    }
    for _, c in ipairs(cases) do
      local k = assert(read(f(c[1])))
      local r, err = k:run("f", call)
      if c[2] then assert.equal(c[2], err, c[1])
      else
        assert.truthy(r, err)
        assert.equal(c[3], r.arrays[1].values[1], c[1])
      end
    end
  end)

  it("tangent and adjoint code of a kernel that indexes and branches by bits: compiled warning-free, checked", function()
    local cases = { TC.make_case(PERM.text, "perm.c", "perm", PERM.call()) }
    TC.check(cases, AC.SAN and { cc = require("tdriver").CC .. " " .. AC.SAN.flags, env = AC.SAN.env } or nil)
    assert.truthy(cases[1].code:find("(i & 1)", 1, true), cases[1].code)
    for _, loops in ipairs { "auto", "none" } do
      AC.check(PERM.text, "perm", PERM.call(), { loops = loops, seed = 65, flags = AC.SAN and AC.SAN.flags,
        env = AC.SAN and AC.SAN.env })
    end
  end)

  it("refuses what is not an int operation, with the place", function()
    local function f(b) return "void f(int n, double *x, int *c) {\n  " .. b .. "\n}\n" end
    local cases = {
      { "c[0] = x[0] & 1;", "bw.c:2:15: '&' needs int operands, not double" },
      { "c[0] = (int)(x + 1) | n;", "bw.c:2:10: a cast of a pointer is outside" },
      { "c[0] = ~x[1];", "bw.c:2:10: '~' needs an int operand, not double" },
      { "x[0] <<= 1;", "bw.c:2:8: '<<' needs int operands, not double" },
      { "c[0] = c | 1;", "bw.c:2:12: '|' needs int operands, not int *" },
      { "c[0] = 1 << 32;", "bw.c:2:12: a shift by 32 in a constant expression" },
      { "c[0] = 1 << 31;", "bw.c:2:12: integer overflow in a constant expression: 1 << 31 is outside int" },
      { "double w[1 << 40];", "bw.c:2:14:" },
    }
    for _, c in ipairs(cases) do
      local k, err = read(f(c[1]), { functions = { "f" } })
      assert.is_nil(k, c[1])
      assert.truthy(err:find(c[2], 1, true), c[1] .. "\n" .. tostring(err))
    end
  end)

  it("XAIF refuses a bitwise operator with its place", function()
    local xaif = require "cgwb.xaif"
    local k = assert(read("void g(int n, double *x, double *y) {\n  y[0] = x[n & 1];\n}\n"))
    local doc, err = xaif.write(k, "g", {})
    assert.is_nil(doc)
    assert.equal("bw.c:2:14: the operator '&' is outside XAIF (its intrinsics have no bit operations)", err)
  end)
end)
