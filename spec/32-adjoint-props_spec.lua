-- spec/32-adjoint-props_spec.lua: properties of the loop analysis and of the
-- adjoint code on random loop kernels with known ground truth (spec/lgen.lua;
-- Hascoët, Fidanova & Held, sec. 2 and 3; doc/adjoint-loops.md,
-- doc/adjoint-code.md):
--   * the generator's ground truth is real: clean loops give the same results
--     run backwards, planted carried dependences do not; the kernels compile
--     warning-free and the interpreter gives the compiled kernel's bits;
--   * the analysis' verdicts, terminal loops and access classes equal the
--     ground truth, a refusal names the planted variable;
--   * the standard (loops = "none") and transformed (loops = "auto")
--     adjoints agree to 1e-12 relative, pass the dot-product test against the
--     interpreter's tangent mode and central differences of the compiled
--     kernel, leave the compiled kernel's primal results bit for bit; the
--     transformed tape does not grow with n, the standard one does; a batch
--     runs clean under AddressSanitizer and UndefinedBehaviorSanitizer.
-- Every kernel and every binding comes from a seed: a failure prints the
-- seed and the kernel text (and, for the adjoints, the shrunk kernel: the
-- statement lines whose removal keeps it failing are removed).
-- CGWB_LPROPS=N changes the number of kernels (default 200).
local H = require "spec.helper"
local cgwb = require "cgwb"
local lgen = require "lgen"
local rng = require "rng"
local T = require "tdriver"

local NK = tonumber(os.getenv("CGWB_LPROPS") or "200")
-- the kernels carry `#pragma cgwb independent`, which cc does not know
local CC = T.CC .. " -Wno-unknown-pragmas"
local lit = T.lit

-- {==== the cases ====}

--- Case s: the kernel of seed s, its small call (n in 3..6) and its big call (4n).
local function make_case(s)
  local text, info = lgen.kernel(rng.new(s), { name = "L" .. s })
  local r = rng.new(100000 + s)
  local n = r:int(3, 6)
  local call = lgen.call(r, info, n)
  local big = lgen.call(r, info, 4 * n, call)
  return { seed = s, text = text, info = info, call = call, big = big, label = ("seed %d"):format(s) }
end

local CASES = {}
for s = 1, NK do CASES[s] = make_case(s) end

local function fail(c, msg)
  error(("%s: %s\n-- the kernel (spec/lgen.lua, seed %d):\n%s"):format(c.label, msg, c.seed, c.text), 0)
end

--- The C declaration of parameter p of a generated kernel.
local function decl(p)
  if not p.type:find("%*") then return p.type .. " " .. p.name end
  return ("%s%s%s%s"):format(p.const and "const " or "", p.type, p.restrict and "restrict " or "", p.name)
end

local function close(a, b, tol)
  if a == b then return true end
  return math.abs(a - b) <= tol * math.max(1, math.abs(a), math.abs(b))
end

-- }====

-- {==== a batch driver: many kernels, one compilation ====}

--- C text declaring call `cl` of case c under prefix `p`: arrays I<p><a>
-- (values), A<p><a> (working copies); returns the text and the argument list
-- of F (with `extra(p, i, param)` giving more arguments after each one).
local function bind(c, cl, p, extra)
  local out, args = {}, {}
  for a, arr in ipairs(cl.arrays) do
    local ty = arr.type
    local v = {}
    for j, x in ipairs(arr.values) do v[j] = ty == "int" and ("%d"):format(x) or lit(x) end
    out[#out + 1] = ("  static const %s I%s%d[%d] = {%s};"):format(ty, p, a, #v, table.concat(v, ", "))
    out[#out + 1] = ("  static %s A%s%d[%d];"):format(ty, p, a, #v)
  end
  for i, prm in ipairs(c.info.params) do
    local g = cl.args[i]
    if g.array then args[#args + 1] = ("A%s%d"):format(p, g.array)
    elseif g.int then args[#args + 1] = ("%d"):format(g.int)
    else args[#args + 1] = ("V%s%d"):format(p, i); out[#out + 1] = ("  double V%s%d = %s;"):format(p, i, lit(g.double)) end
    if extra then for _, e in ipairs(extra(p, i, prm, g)) do args[#args + 1] = e end end
  end
  return table.concat(out, "\n"), table.concat(args, ", ")
end

--- C statements copying the initial values into the working arrays.
local function reset(cl, p)
  local out = {}
  for a in ipairs(cl.arrays) do out[#out + 1] = ("  memcpy(A%s%d, I%s%d, sizeof A%s%d);"):format(p, a, p, a, p, a) end
  return table.concat(out, "\n")
end

--- C statements printing the double arrays: "<case> <tag> <array> %a...".
local function print_arrays(n, cl, p, tag, prefix)
  local out = {}
  for a, arr in ipairs(cl.arrays) do
    if arr.type == "double" then
      out[#out + 1] = ('  printf("%d %s %d"); for (i = 0; i < %d; i++) printf(" %%a", %s%s%d[i]); printf("\\n");')
        :format(n, tag, a, #arr.values, prefix or "A", p, a)
    end
  end
  return table.concat(out, "\n")
end

--- Compiles C files in one cc call and runs the program: its output lines
-- parsed into {[case] = {[tag] = {[array] = values}}}.
local function build_and_run(files, flags, env)
  local paths = {}
  for i, t in ipairs(files) do paths[i] = H.write(H.tmp(".c"), t) end
  local exe, log = H.tmp(".exe"), H.tmp(".log")
  local ok = os.execute(("%s %s -o %s %s -lm 2>%s"):format(CC, flags or "", exe, table.concat(paths, " "), log))
  local msg = H.read(log)
  for _, p in ipairs(paths) do os.remove(p) end
  os.remove(log)
  if not ok then return nil, "does not compile:\n" .. msg:sub(1, 6000) end
  local out, err = H.tmp(".out"), H.tmp(".err")
  local ran = os.execute(("%s%s >%s 2>%s"):format(env or "", exe, out, err))
  local text, etext = H.read(out), H.read(err)
  os.remove(exe); os.remove(out); os.remove(err)
  local got = {}
  for line in text:gmatch("[^\n]+") do
    local n, tag, a, rest = line:match("^(%d+) (%S+) (%d+)(.*)$")
    n, a = tonumber(n), tonumber(a)
    got[n] = got[n] or {}
    got[n][tag] = got[n][tag] or {}
    local vals = {}
    for x in rest:gmatch("%S+") do vals[#vals + 1] = T.num(x) end
    got[n][tag][a] = vals
  end
  return got, not ran and ("the program failed:\n" .. etext:sub(1, 6000)) or nil, etext
end

--- The texts joined k by k: fewer translation units (the kernels' names
-- are unique), so the compiler starts a few times, not hundreds.
local function chunks(texts, k)
  local out = {}
  for i = 1, #texts, k do out[#out + 1] = table.concat(texts, "\n", i, math.min(#texts, i + k - 1)) end
  return out
end

-- }====

describe("the loop kernel generator (spec/lgen.lua)", function()
  it("is deterministic, and each loop's line is the line of its for", function()
    for s = 1, 20 do
      local t1, i1 = lgen.kernel(rng.new(s), { name = "L" .. s })
      assert.equal(CASES[s].text, t1)
      local lines = {}
      for l in t1:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
      for _, L in ipairs(i1.loops) do
        assert.truthy(lines[L.line]:find("for (int", 1, true))
        assert.equal(L.col, lines[L.line]:find("for", 1, true))
      end
    end
  end)

  it("covers every planted defect, terminal and dry-run loops, inner loops, pragmas", function()
    local seen = {}
    for _, c in ipairs(CASES) do
      for _, L in ipairs(c.info.loops) do
        local key = L.defect or (not L.top and "inner") or (L.terminal and "terminal") or "dry-run"
        seen[key] = (seen[key] or 0) + 1
        if L.pragma then seen.pragma = (seen.pragma or 0) + 1 end
      end
    end
    for _, k in ipairs { "shift", "mapread", "minmax", "product", "incread", "overlap", "inner", "terminal",
                         "dry-run", "pragma" } do
      assert.is_true((seen[k] or 0) >= math.min(10, NK // 20), k .. ": " .. tostring(seen[k]))
    end
  end)

  it("writes kernels the front end reads, cc compiles with -Werror, and the interpreter runs with the compiled bits", function()
    -- and the clean loops are independent: each top-level loop run backwards
    -- gives the same results to rounding (increments and sums reassociate);
    -- a shift, mapread or incread loop, a real carried dependence, does not
    local files, main = {}, { "#include <stdio.h>" }
    local rev = {}
    for n, c in ipairs(CASES) do
      local body = { c.text, "#include <stdio.h>", "#include <string.h>" }
      local tops = {}
      for _, L in ipairs(c.info.loops) do if L.top then tops[#tops + 1] = L end end
      for j in ipairs(tops) do
        local t = lgen.kernel(rng.new(c.seed), { name = ("L%d_r%d"):format(c.seed, j), reverse = { [j] = true } })
        body[#body + 1] = t -- its helper, if any, is h_L<seed>_r<j>
      end
      rev[n] = tops
      local sig, args = bind(c, c.big, "")
      body[#body + 1] = ("void case_%d(void);\nvoid case_%d(void) {\n  int i;\n%s"):format(n, n, sig)
      body[#body + 1] = reset(c.big, "")
      body[#body + 1] = ("  %s(%s);"):format(c.info.name, args)
      body[#body + 1] = print_arrays(n, c.big, "", "P")
      for j in ipairs(tops) do
        body[#body + 1] = reset(c.big, "")
        body[#body + 1] = ("  L%d_r%d(%s);"):format(c.seed, j, args)
        body[#body + 1] = print_arrays(n, c.big, "", "R" .. j)
      end
      body[#body + 1] = "}"
      files[#files + 1] = table.concat(body, "\n") .. "\n"
      main[#main + 1] = ("void case_%d(void);"):format(n)
    end
    main[#main + 1] = "int main(void) {"
    for n = 1, #CASES do main[#main + 1] = ("  case_%d();"):format(n) end
    main[#main + 1] = "  return 0;\n}"
    files[#files + 1] = table.concat(main, "\n") .. "\n"
    local got, err = build_and_run(chunks(files, 50), "-O0")
    assert(got, err)
    assert.is_nil(err)
    local differs = {}
    for n, c in ipairs(CASES) do
      local k = assert(cgwb.read_kernel(c.text, "lgen.c"))
      for _, cl in ipairs { c.call, c.big } do
        local r, msg = k:run(c.info.name, cl)
        if not r then fail(c, "the interpreter: " .. msg) end
        if cl == c.big then
          for a, arr in ipairs(r.arrays) do
            if cl.arrays[a].type == "double" then H.assert_bits(arr.values, got[n].P[a], c.label .. ": array " .. a) end
          end
        end
      end
      for j, L in ipairs(rev[n]) do
        local same = true
        for a, vals in pairs(got[n].P) do
          for q, v in ipairs(vals) do
            if not close(v, got[n]["R" .. j][a][q], 1e-12) then same = false end
          end
        end
        if L.verdict == "accept" and not same then fail(c, ("loop at line %d, clean, differs run backwards"):format(L.line)) end
        if L.defect == "shift" or L.defect == "mapread" or L.defect == "incread" then
          differs[L.defect] = (differs[L.defect] or 0) + (same and 0 or 1)
          differs[L.defect .. "#"] = (differs[L.defect .. "#"] or 0) + 1
        end
      end
    end
    -- a carried dependence shows on almost every binding (a map can happen to dodge it)
    for _, d in ipairs { "shift", "mapread", "incread" } do
      assert.is_true((differs[d] or 0) >= 0.7 * (differs[d .. "#"] or 0), d .. ": " .. tostring(differs[d]) .. " of " .. tostring(differs[d .. "#"]))
    end
  end)
end)
