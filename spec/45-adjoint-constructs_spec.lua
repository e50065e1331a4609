-- spec/45-adjoint-constructs_spec.lua: the adjoint and tangent code on kernels that put
-- every construct of the kernel language into every position the adjoint
-- generator treats differently (spec/cgen.lua).  Each kernel is emitted as
-- the standard adjoint (loops = "none") and the transformed one ("auto"),
-- both compiled with cc -std=c99 -Wall -Wextra -pedantic -Werror and
-- AddressSanitizer (detect_stack_use_after_return=1) and
-- UndefinedBehaviorSanitizer, and checked (spec/adcheck.lua): primal
-- results bit for bit those of the kernel compiled from its text; NULL for
-- every passive parameter's adjoint (d, the data, and any the analysis
-- finds passive); the dot-product test against central differences of the
-- compiled kernel and against the interpreter's tangent mode; standard and
-- transformed agree to 1e-12.  The same kernels' tangent code (cgwb.tangent)
-- is compiled with -Werror under both sanitizers and gives the
-- interpreter's primal bits and Jacobian (spec/tcheck.lua).
--
-- The table of constructs x positions.  Positions: F (straight-line code of
-- the differentiated function), callee (the body of a function F calls,
-- with an active or a passive pointer argument), standard (a loop body
-- under the standard adjoint: every loop of the "none" variant and the
-- loops "auto" does not transform), terminal (a loop adjoined per
-- iteration in the forward sweep), dry-run (a loop run plainly forward
-- and re-run per iteration in the reverse sweep); and two attributes of a
-- construct's own data: through a pointer, passive.
--
--   construct   what it is                                    F  callee std term dry ptr passive
--   arith       scalar temporaries, + - * / and intrinsics    x  x      x   x    x
--   cond        if/else on passive data                       x  x      x   x    x           x
--   inner       an inner loop over k < 3 (own cells z[3i+k])  x  x      x   x    x
--   helper      a by-value double function (C3 hoisting)      x  x      x   x    x
--   global      a static const table read                     x  x      x   x    x    x
--   passive     a read of passive data                        x  x      x   x    x           x
--   ptrparam    a pointer into a parameter's array            x  x      x   x    x    x      x
--   localarr    a local array and a pointer into it           x  x      x   x    x    x
--   addr        a local whose address a callee writes through x  x      x             x
--   inplace     an own cell updated in place (y[i] += e)      x  x      x   x    x
--   increment   an increment s[j] += e                        x  x      x   x    x
--   reduction   an additive reduction into a scalar                     x        x
--   twod        2-D parameters: a row read, a row written     x         x   x    x
--   rank3       a 3-D parameter read by cells and through a   x         x   x    x    x
--               row pointer, a 3-D local array
--   call        a call with active and passive pointers       x         x             x      x
--   heap        a block from malloc or calloc, then freed     x  x      x             x
--
-- An empty cell is not a position of that construct: a reduction is a
-- loop's, and its result is stored after the loop, which is then not
-- terminal; a callee's parameters are 1-D and it calls no one.  A call
-- writing through a pointer (gc, or ha on an address-taken local) keeps
-- its loop standard: the loop analysis refuses a callee's writes
-- (doc/adjoint-loops.md), which the "cover" test checks by the reports;
-- so does an allocation (the loop's blocks are one object of the analysis).
-- CGWB_CPROPS=N changes the number of kernels (default 50; the table is
-- asserted at 50 or more: the draws are seeded, so the counts are fixed).
-- The sanitizer phase (whose core is sanitized too) checks the adjoints of
-- the first 15 kernels, the release phase those of the others, so each
-- kernel's adjoints are compiled and run once per suite; the release phase
-- still counts all of them into the table (from the transformed report).
local H = require "spec.helper"
local cgwb = require "cgwb"
local cgen = require "cgen"
local rng = require "rng"
local C = require "adcheck"
local adjoint = require "cgwb.adjoint"

local NK = tonumber(os.getenv("CGWB_CPROPS")) or H.sized(50, 15)
local FIRST = os.getenv("CGWB_CPROPS") and 1 or H.sized(16, 1) -- the first kernel whose adjoints this phase runs
local POS = { "F", "callee", "standard", "terminal", "dry-run", "ptr", "passive" }
local EXPECT = { -- the table above
  arith = "F callee standard terminal dry-run", cond = "F callee standard terminal dry-run passive",
  inner = "F callee standard terminal dry-run", helper = "F callee standard terminal dry-run",
  global = "F callee standard terminal dry-run ptr", passive = "F callee standard terminal dry-run passive",
  ptrparam = "F callee standard terminal dry-run ptr passive", localarr = "F callee standard terminal dry-run ptr",
  addr = "F callee standard ptr", inplace = "F callee standard terminal dry-run",
  increment = "F callee standard terminal dry-run", reduction = "standard dry-run",
  twod = "F standard terminal dry-run", rank3 = "F standard terminal dry-run ptr", call = "F standard ptr passive",
  heap = "F callee standard ptr",
}

local SAN = C.SAN or {}

--- The positions use u of a kernel realized, by the transformed report.
local function positions(u, rep)
  local out = {}
  if u.pos == "F" or u.pos == "callee" then out[#out + 1] = u.pos
  else
    out[#out + 1] = "standard"
    for _, L in ipairs(rep.loops) do
      if L.line == u.line and L.transformed then out[#out + 1] = L.terminal and "terminal" or "dry-run" end
    end
  end
  if u.ptr then out[#out + 1] = "ptr" end
  if u.passive then out[#out + 1] = "passive" end
  return out
end

describe("the construct generator (spec/cgen.lua)", function()
  it("is deterministic, and its kernels compile with -Werror and read", function()
    for s = 1, 20 do
      local a = cgen.kernel(rng.new(s))
      local b = cgen.kernel(rng.new(s))
      assert.equal(a, b)
      assert(cgwb.read_kernel(a, "k.c"))
      local path = H.write(H.tmp(".c"), a)
      local ok = os.execute(("cc -std=c99 -Wall -Wextra -pedantic -Werror -c -o /dev/null %s 2>/dev/null"):format(path))
      os.remove(path)
      assert(ok, "seed " .. s .. ":\n" .. a)
    end
  end)
end)

describe("the adjoints of every construct in every position", function()
  local count = {}
  for c in pairs(EXPECT) do count[c] = {} end
  it(("pass on kernels %d to %d: -Werror, ASan and UBSan, primal bits, NULL passive adjoints, the dot-product test")
      :format(FIRST, NK), function()
    for s = 1, NK do
      local text, info = cgen.kernel(rng.new(s))
      local rep
      if s >= FIRST then
        local call = cgen.call(rng.new(1000 + s), info, rng.new(2000 + s):int(3, 6))
        local ok, out = pcall(C.check, text, "F", call, { emit = { independents = info.independents,
          assume = info.assume }, flags = SAN.flags, env = SAN.env, seed = s })
        if not ok then error(("seed %d: %s\n-- the kernel (spec/cgen.lua):\n%s"):format(s, tostring(out), text), 0) end
        assert(out.null.d or not text:find("%f[%w]d%["), "seed " .. s .. ": d is passive")
        rep = out.rep
      else -- checked in the sanitizer phase; only counted here
        local code
        code, rep = adjoint.emit(assert(cgwb.read_kernel(text, "k.c")), "F", { independents = info.independents,
          assume = info.assume, loops = "auto" })
        assert(code, rep)
      end
      for _, u in ipairs(info.uses) do
        for _, p in ipairs(positions(u, rep)) do count[u.c][p] = (count[u.c][p] or 0) + 1 end
      end
    end
  end)
  it("cover the table: every cell drawn, no construct outside its cells", function()
    local rows, missing = {}, {}
    for _, c in ipairs(cgen.CONSTRUCTS) do
      local want = {}
      for p in EXPECT[c]:gmatch("%S+") do want[p] = true end
      local cells = {}
      for _, p in ipairs(POS) do
        local n = count[c][p] or 0
        cells[#cells + 1] = ("%s=%d"):format(p, n)
        if want[p] and n == 0 then missing[#missing + 1] = c .. " in " .. p end
        if not want[p] and n > 0 then missing[#missing + 1] = c .. " drawn in " .. p .. ", outside its cells" end
      end
      rows[#rows + 1] = ("%-10s %s"):format(c, table.concat(cells, " "))
    end
    io.stderr:write("\n-- constructs x positions over " .. NK .. " kernels:\n" .. table.concat(rows, "\n") .. "\n")
    if NK >= 50 then assert(#missing == 0, table.concat(missing, "; ") .. "\n" .. table.concat(rows, "\n")) end
  end)
end)

-- The tangent code (cgwb.tangent, flattened and preaccumulated) of the same
-- kernels, compiled with -Werror under ASan and UBSan in one cc call:
-- primal results bit for bit the interpreter's, the Jacobian its tangent
-- mode's (spec/tcheck.lua), which the adjoint's dot-product test above
-- ties to central differences.
describe("the tangent code of every construct in every position", function()
  it(("gives the interpreter's primal bits and Jacobian on %d kernels, clean under ASan and UBSan"):format(NK), function()
    local TC = require "tcheck"
    local T = require "tdriver"
    local cases = {}
    for s = 1, NK do
      local text, info = cgen.kernel(rng.new(s))
      local call = cgen.call(rng.new(1000 + s), info, rng.new(2000 + s):int(3, 6))
      local ok, c = pcall(TC.make_case, text, "cgen" .. s .. ".c", "F", call, { assume = info.assume })
      if not ok then error(("seed %d: %s\n-- the kernel (spec/cgen.lua):\n%s"):format(s, tostring(c), text), 0) end
      cases[#cases + 1] = c
    end
    TC.check(cases, { cc = SAN.flags and (T.CC .. " " .. SAN.flags) or nil, env = SAN.env })
  end)
end)
