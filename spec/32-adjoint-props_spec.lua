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
-- CGWB_LPROPS=N changes the number of kernels (default 200; 50 in the
-- sanitizer phase).
local H = require "spec.helper"
local cgwb = require "cgwb"
local lgen = require "lgen"
local rng = require "rng"
local T = require "tdriver"

local NK = tonumber(os.getenv("CGWB_LPROPS")) or H.sized(200, 50)
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
      assert.is_true((seen[k] or 0) >= (NK >= 100 and 10 or 0), k .. ": " .. tostring(seen[k])) -- a small CGWB_LPROPS may miss one
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

-- {==== the analysis ====}

local loops = require "cgwb.loops"

--- Whether text names variable v as a word.
local function names(text, v) return text:find("%f[%w_]" .. v .. "%f[^%w_]") ~= nil end

--- Compares the analysis of case c with its ground truth; nil or a
-- message.  part: "verdicts" (verdict, reason, pragma, classes) or
-- "terminal" (terminal and dry-run).
local function check_verdicts(c, info, part)
  local want = c.info.loops
  if #info.loops ~= #want then return ("%d loops found, %d written"):format(#info.loops, #want) end
  for i, L in ipairs(info.loops) do
    local E = want[i]
    local at = ("loop %d (line %d)"):format(i, E.line)
    if L.line ~= E.line then return ("%s: the analysis says line %d"):format(at, L.line) end
    if L.verdict ~= E.verdict then
      return ("%s: verdict %s, expected %s (%s): %s"):format(at, L.verdict, E.verdict, E.defect or "clean", L.reason)
    end
    if L.independent ~= (E.verdict == "accept") then return at .. ": independent is " .. tostring(L.independent) end
    for _, v in ipairs(E.names) do
      if not names(L.reason, v) then return ("%s: the reason does not name %s: %s"):format(at, v, L.reason) end
    end
    if E.defect == "minmax" and not L.reason:find("min/max", 1, true) then return at .. ": " .. L.reason end
    if E.defect == "product" and not L.reason:find("product reduction", 1, true) then return at .. ": " .. L.reason end
    if E.defect == "overlap" and not L.reason:find("may overlap", 1, true) then return at .. ": " .. L.reason end
    if part == "terminal" then
      if L.terminal ~= E.terminal then return ("%s: terminal is %s, expected %s"):format(at, tostring(L.terminal), tostring(E.terminal)) end
      if L.dry_run ~= (E.verdict == "accept" and not E.terminal) then return at .. ": dry_run is " .. tostring(L.dry_run) end
      goto next
    end
    if L.pragma ~= E.pragma then return at .. ": pragma is " .. tostring(L.pragma) end
    local ps = E.pragma and (E.verdict == "accept" and "confirmed" or "refused") or false
    if L.pragma_status ~= ps then return at .. ": pragma_status is " .. tostring(L.pragma_status) end
    local class = {}
    for _, a in ipairs(L.access) do class[a.name] = a.class end
    local vs = {}
    for v in pairs(E.classes) do vs[#vs + 1] = v end
    table.sort(vs)
    for _, v in ipairs(vs) do
      if class[v] ~= E.classes[v] then
        return ("%s: %s is %s, expected %s"):format(at, v, tostring(class[v]), E.classes[v])
      end
    end
    ::next::
  end
  return nil
end

--- Runs check_verdicts on every case; fails listing every case that
-- disagrees (the first one's kernel in full).
local function check_all(part)
  local bad, first, n = {}, nil, 0
  for _, c in ipairs(CASES) do
    local k = assert(cgwb.read_kernel(c.text, "lgen.c"))
    local info, err = loops.analyse(k, c.info.name)
    local msg = info and check_verdicts(c, info, part) or err
    if msg then
      bad[#bad + 1] = ("seed %d: %s"):format(c.seed, msg)
      first = first or c
    end
    n = n + (info and #info.loops or 0)
  end
  if first then fail(first, ("%d of %d kernels disagree:\n%s"):format(#bad, #CASES, table.concat(bad, "\n"))) end
  return n
end

describe("the loop analysis on generated loop kernels", function()
  it("gives the ground truth: verdicts, the planted variable in the reason, pragmas, access classes", function()
    assert.is_true(check_all("verdicts") >= 2 * NK)
  end)

  it("finds the terminal loops, the others accepted are dry-run", function()
    -- a later statement that only increments what the loop only increments
    -- leaves it terminal: an increment node is in the paper's category i,
    -- not r (Hascoët, Fidanova & Held, sec. 2), so the two create no dependence
    check_all("terminal")
  end)
end)

-- }====

-- {==== the adjoints ====}

local adjoint = require "cgwb.adjoint"
local RUNTIME = "lua/cgwb/runtime" -- cgwb_adstack.h
local FD_H = 1e-6

--- The independents (every double parameter) and dependents (every double
-- pointer the kernel may write) of case c.
local function roles(c)
  local ind, dep = {}, {}
  for _, p in ipairs(c.info.params) do
    if p.type:find("double") then
      ind[#ind + 1] = p.name
      if p.type:find("%*") and not p.const then dep[#dep + 1] = p.name end
    end
  end
  return ind, dep
end

--- Both adjoints of case c's text (renamed: <F>s_b... and <F>t_b...), or raises.
local function emit_both(c, text)
  local k = assert(cgwb.read_kernel(text, "lgen.c"))
  local ind, dep = roles(c)
  local out = {}
  for _, v in ipairs { { "s", "none" }, { "t", "auto" } } do
    local code, err = adjoint.emit(k, c.info.name, { loops = v[2], independents = ind, dependents = dep })
    if not code then return nil, "adjoint.emit (" .. v[2] .. "): " .. err end
    local F = c.info.name
    out[v[1]] = ("#define %s_b %s%s_b\n#define %s_b_stats %s%s_b_stats\n#define %s_b_reset %s%s_b_reset\n%s")
      :format(F, F, v[1], F, F, v[1], F, F, v[1], code)
  end
  return out, nil, k
end

--- The random direction (double cells, by-value doubles) and adjoint seeds
-- (the cells of writable double arrays) of a call.
local function seeds(c, cl, r)
  local D, Y, Dp = {}, {}, {}
  for a, arr in ipairs(cl.arrays) do
    if arr.type == "double" then
      D[a], Y[a] = {}, {}
      local writable = not c.info.params[cl.by_name[arr.name]].const
      for j = 1, #arr.values do D[a][j] = r:float(-1, 1); Y[a][j] = writable and r:float(-1, 1) or 0 end
    end
  end
  for i, g in ipairs(cl.args) do if g.double then Dp[i] = r:float(-1, 1) end end
  return { D = D, Y = Y, Dp = Dp }
end

local function carray(name, ty, vals)
  local v = {}
  for j, x in ipairs(vals) do v[j] = lit(x) end
  return ("  static const %s %s[%d] = {%s};"):format(ty, name, #v, table.concat(v, ", "))
end

--- The driver of case number n: its C function case_n (the kernel text is
-- in the same translation unit; the adjoints are extern).
local function adjoint_driver(n, c, sd)
  local F = c.info.name
  local out = { ("void case_%d(void);\nvoid case_%d(void) {\n  int i;\n  cgwb_adstats st;"):format(n, n) }
  local function adj_args(p, i, prm, g)
    if not prm.type:find("double") then return {} end
    if g.array then return { ("B%s%d"):format(p, g.array) } end
    return { ("&C%s%d"):format(p, i) }
  end
  local stats = function(tag)
    return ('  printf("%d %s 0 %%lu %%lu %%lu %%lu\\n", (unsigned long)st.pushed, (unsigned long)st.high_water, '
      .. '(unsigned long)st.snapshot, (unsigned long)st.snapshot_high);'):format(n, tag)
  end
  for _, pc in ipairs { { "s", c.call }, { "b", c.big } } do
    local p, cl = pc[1], pc[2]
    local decls, args = bind(c, cl, p)
    local _, bargs = bind(c, cl, p, adj_args)
    out[#out + 1] = decls
    for a, arr in ipairs(cl.arrays) do
      if arr.type == "double" then
        out[#out + 1] = ("  static double B%s%d[%d];"):format(p, a, #arr.values)
        if p == "s" then
          out[#out + 1] = carray(("D%s%d"):format(p, a), "double", sd.D[a])
          out[#out + 1] = carray(("Y%s%d"):format(p, a), "double", sd.Y[a])
        end
      end
    end
    for i, g in ipairs(cl.args) do
      if g.double then out[#out + 1] = ("  double C%s%d = 0.0;"):format(p, i) end
    end
    local function setup(h)
      local t = { reset(cl, p) }
      for a, arr in ipairs(cl.arrays) do
        if arr.type == "double" then
          if h ~= 0 then
            t[#t + 1] = ("  for (i = 0; i < %d; i++) A%s%d[i] = I%s%d[i] + %s * D%s%d[i];"):format(#arr.values, p, a, p, a,
              lit(h), p, a)
          end
          if p == "s" then t[#t + 1] = ("  memcpy(B%s%d, Y%s%d, sizeof B%s%d);"):format(p, a, p, a, p, a)
          else t[#t + 1] = ("  memset(B%s%d, 0, sizeof B%s%d);"):format(p, a, p, a) end
        end
      end
      for i, g in ipairs(cl.args) do
        if g.double then
          t[#t + 1] = ("  V%s%d = %s;"):format(p, i, h ~= 0 and ("%s + %s * %s"):format(lit(g.double), lit(h), lit(sd.Dp[i])) or lit(g.double))
          t[#t + 1] = ("  C%s%d = 0.0;"):format(p, i)
        end
      end
      return table.concat(t, "\n")
    end
    local function print_scalars(tag)
      local t = {}
      for i, g in ipairs(cl.args) do
        if g.double then t[#t + 1] = ('  printf("%d %s %d %%a\\n", C%s%d);'):format(n, tag, i, p, i) end
      end
      return table.concat(t, "\n")
    end
    if p == "s" then
      out[#out + 1] = setup(0)
      out[#out + 1] = ("  %s(%s);"):format(F, args)
      out[#out + 1] = print_arrays(n, cl, p, "P")
      for _, h in ipairs { FD_H, -FD_H } do
        out[#out + 1] = setup(h)
        out[#out + 1] = ("  %s(%s);"):format(F, args)
        out[#out + 1] = print_arrays(n, cl, p, h > 0 and "FP" or "FM")
      end
    end
    for _, v in ipairs { "s", "t" } do
      local V = v:upper()
      out[#out + 1] = setup(0)
      out[#out + 1] = ("  %s%s_b_reset();\n  %s%s_b(%s);\n  %s%s_b_stats(&st);"):format(F, v, F, v, bargs, F, v)
      local tag = (p == "b" and "G" or "") .. V
      out[#out + 1] = stats("S" .. tag)
      if p == "s" then
        out[#out + 1] = print_arrays(n, cl, p, "P" .. V)
        out[#out + 1] = print_arrays(n, cl, p, "B" .. V, "B")
        out[#out + 1] = print_scalars("C" .. V)
      end
    end
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

--- The externs of case c's adjoints.
local function externs(c)
  local decls = {}
  for _, p in ipairs(c.info.params) do
    decls[#decls + 1] = decl(p)
    if p.type:find("double") then decls[#decls + 1] = "double *" .. p.name .. "b" end
  end
  local F, out = c.info.name, {}
  for _, v in ipairs { "s", "t" } do
    out[#out + 1] = ("void %s%s_b(%s);\nvoid %s%s_b_stats(cgwb_adstats *out);\nvoid %s%s_b_reset(void);")
      :format(F, v, table.concat(decls, ", "), F, v, F, v)
  end
  return table.concat(out, "\n")
end

--- The translation units of a batch of cases: the kernels and drivers, the
-- standard adjoints, the transformed ones (each kernel's names are its own).
local function batch_files(batch)
  local drivers, std, trn, main = {}, {}, {}, { "#include <stdio.h>" }
  for _, b in ipairs(batch) do
    drivers[#drivers + 1] = table.concat({ b.text, externs(b.c), adjoint_driver(b.n, b.c, b.sd) }, "\n")
    std[#std + 1] = b.code.s
    trn[#trn + 1] = b.code.t
    main[#main + 1] = ("void case_%d(void);"):format(b.n)
  end
  main[#main + 1] = "int main(void) {"
  for _, b in ipairs(batch) do main[#main + 1] = ("  case_%d();"):format(b.n) end
  main[#main + 1] = "  return 0;\n}"
  local head = '#include <stdio.h>\n#include <string.h>\n#include "cgwb_adstack.h"\n'
  return { head .. table.concat(drivers, "\n"), table.concat(std, "\n"), table.concat(trn, "\n"),
           table.concat(main, "\n") .. "\n" }
end

local function dot(a, b)
  local s, m = 0, 0
  for i, x in pairs(a) do
    for j, v in ipairs(x) do s = s + v * b[i][j]; m = m + math.abs(v * b[i][j]) end
  end
  return s, m
end

--- Checks one case's run: nil or a message.  J: the interpreter's Jacobian.
local function check_adjoint(c, sd, g, J)
  if not g then return "no output" end
  -- primal results: both adjoints leave the compiled kernel's bits
  for a, vals in pairs(g.P) do
    for _, V in ipairs { "PS", "PT" } do
      for j, v in ipairs(vals) do
        if not H.same_bits(v, g[V][a][j]) then
          return ("%s: array %d cell %d: %.17g, the kernel %.17g"):format(V, a, j - 1, g[V][a][j], v)
        end
      end
    end
  end
  -- the two gradients agree to 1e-12
  for a, vals in pairs(g.BS) do
    for j, v in ipairs(vals) do
      if not close(v, g.BT[a][j], 1e-12) then
        return ("adjoint of array %d cell %d: standard %.17g, transformed %.17g"):format(a, j - 1, v, g.BT[a][j])
      end
    end
  end
  for i, v in pairs(g.CS or {}) do
    if not close(v[1], g.CT[i][1], 1e-12) then
      return ("adjoint of argument %d: standard %.17g, transformed %.17g"):format(i, v[1], g.CT[i][1])
    end
  end
  -- <Y, J D> from the interpreter's tangent mode (cells not written: the identity)
  local out = {}
  for a, d in pairs(sd.D) do out[a] = {} for j, v in ipairs(d) do out[a][j] = v end end
  for r, row in ipairs(J.rows) do
    if out[row.array] then
      local s = 0
      for q, col in ipairs(J.cols) do
        local dv = col.param and sd.Dp[col.param] or sd.D[col.array] and sd.D[col.array][col.cell + 1] or 0
        s = s + J.values[r][q] * dv
      end
      out[row.array][row.cell + 1] = s
    end
  end
  local tan, tmag = dot(sd.Y, out)
  -- central differences of the compiled kernel
  local fd = 0
  for a, y in pairs(sd.Y) do
    for j, w in ipairs(y) do fd = fd + w * (g.FP[a][j] - g.FM[a][j]) / (2 * FD_H) end
  end
  for _, V in ipairs { "S", "T" } do
    -- <J^T Y, D> from each adjoint
    local adj, mag = dot(g["B" .. V], sd.D)
    for i, v in pairs(g["C" .. V] or {}) do adj = adj + v[1] * sd.Dp[i]; mag = mag + math.abs(v[1] * sd.Dp[i]) end
    local which = V == "S" and "standard" or "transformed"
    if math.abs(adj - tan) > 1e-10 * math.max(1, mag, tmag) then
      return ("dot-product test: <J^T yb, xd> = %.17g by the %s adjoint, <yb, J xd> = %.17g by the interpreter")
        :format(adj, which, tan)
    end
    if math.abs(adj - fd) > 1e-6 * math.max(1, mag) then
      return ("central differences: %.17g, the %s adjoint %.17g"):format(fd, which, adj)
    end
  end
  return nil
end

--- Emits, compiles and runs a batch of {c =, text =}; per entry the output,
-- and the batch's error (compilation, a crash) if any.
local function run_batch(items, flags, env)
  local batch = {}
  for n, it in ipairs(items) do
    local code, err = emit_both(it.c, it.text)
    if not code then return nil, err, n end
    batch[n] = { n = n, c = it.c, text = it.text, code = code, sd = it.sd }
  end
  -- -O0: the same bits as -O1 (C99 contracts no multiply-add), a third of the compile time
  local got, err, etext = build_and_run(batch_files(batch), ("-O0 -I%s %s"):format(RUNTIME, flags or ""), env)
  return got, err, nil, etext
end

--- Shrinks a failing case: removes statement lines one at a time while
-- `check(text)` still fails (a candidate that no longer parses or compiles
-- does not count).  Returns the smallest failing text.
local function shrink(text, check)
  local lines = {}
  for l in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local i = #lines
  while i >= 1 do
    if lines[i]:match(";%s*$") and not lines[i]:match("^%s*for") and not lines[i]:match("^%s*return") then
      local try = {}
      for j, l in ipairs(lines) do if j ~= i then try[#try + 1] = l end end
      local t = table.concat(try, "\n") .. "\n"
      local ok, bad = pcall(check, t)
      if ok and bad then lines = try end
    end
    i = i - 1
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The check of one case's text alone (for shrinking): true when it fails.
local function fails_alone(c, sd, text)
  local k = cgwb.read_kernel(text, "lgen.c")
  if not k then return false end
  local J = k:jacobian(c.info.name, c.call)
  if not J then return false end
  local got, err = run_batch({ { c = c, text = text, sd = sd } }, "-Wno-error")
  if not got then return false end
  return err ~= nil or check_adjoint(c, sd, got[1], J) ~= nil
end

--- Both adjoints of every case compiled and run, once (the tests below share it):
-- items (case, text, seeds) and the outputs, per case.
local ITEMS, ADJ
local function adjoint_runs()
  if ADJ then return ITEMS, ADJ end
  local items, got = {}, {}
  for n, c in ipairs(CASES) do
    items[n] = { c = c, text = c.text, sd = seeds(c, c.call, rng.new(200000 + c.seed)) }
  end
  for b0 = 1, #items, 50 do
    local part = { table.unpack(items, b0, math.min(#items, b0 + 49)) }
    local g, err, bad = run_batch(part)
    if bad then fail(part[bad].c, err) end
    if not g or err then error(err, 0) end
    for i = 1, #part do got[b0 + i - 1] = g[i] end
  end
  ITEMS, ADJ = items, got
  return items, got
end

describe("the shrinking of a failing case", function()
  it("keeps only the statement lines the failure needs", function()
    local text = "void f(double *y) {\n  y[0] = 1.0;\n  y[1] = fmax(y[0], 2.0);\n  y[2] = 3.0;\n}\n"
    assert.equal("void f(double *y) {\n  y[1] = fmax(y[0], 2.0);\n}\n",
      shrink(text, function(t) return t:find("fmax", 1, true) ~= nil end))
  end)

  it("does not count a case that passes alone as failing", function()
    local c -- the first case without a dry-run loop: the simplest adjoint
    for _, x in ipairs(CASES) do
      local dry = false
      for _, L in ipairs(x.info.loops) do if L.top and L.verdict == "accept" and not L.terminal then dry = true end end
      if not dry and not c then c = x end
    end
    assert.is_false(fails_alone(c, seeds(c, c.call, rng.new(200000 + c.seed)), c.text))
  end)
end)

describe("the adjoints of generated loop kernels", function()
  it("standard and transformed agree to 1e-12, pass the dot-product test and central differences, keep the primal bits", function()
    local items, got = adjoint_runs()
    for n, c in ipairs(CASES) do
      local k = assert(cgwb.read_kernel(c.text, "lgen.c"))
      local J = assert(k:jacobian(c.info.name, c.call))
      local msg = check_adjoint(c, items[n].sd, got[n], J)
      if msg then
        local small = shrink(c.text, function(t) return fails_alone(c, items[n].sd, t) end)
        fail(c, msg .. "\n-- shrunk:\n" .. small)
      end
    end
  end)

  it("keep the transformed tape flat in n when every loop is accepted; the standard tape grows", function()
    local _, got = adjoint_runs()
    local flat = 0
    for n, c in ipairs(CASES) do
      local g = got[n]
      local s, gs = g.SS[0], g.SGS[0]
      local t, gt = g.ST[0], g.SGT[0]
      if not (gs[2] > s[2]) then fail(c, ("the standard tape's high-water mark: %d at n, %d at 4n"):format(s[2], gs[2])) end
      local all = true
      for _, L in ipairs(c.info.loops) do if L.top and L.verdict ~= "accept" then all = false end end
      if all then
        flat = flat + 1
        -- the big call's iterations take branches the small call's took (lgen.call's base), so one
        -- iteration's tape, the most the transformed adjoint holds, is no larger
        if gt[2] > t[2] then fail(c, ("the transformed tape's high-water mark: %d at n, %d at 4n"):format(t[2], gt[2])) end
        if not (t[2] < s[2]) then fail(c, ("the transformed tape (%d) is not below the standard one (%d)"):format(t[2], s[2])) end
      end
    end
    assert.is_true(flat >= NK // 4)
  end)

  it("run clean under AddressSanitizer and UndefinedBehaviorSanitizer", function()
    local probe = H.write(H.tmp(".c"), "int main(void) { return 0; }\n")
    local exe = H.tmp(".exe")
    local can = os.execute(("cc -fsanitize=address,undefined -o %s %s 2>/dev/null"):format(exe, probe))
    os.remove(probe); os.remove(exe)
    if not can then
      print("spec 32: skipped the sanitizer run: cc cannot link -fsanitize=address,undefined")
      return
    end
    local items = {}
    for n = 1, math.min(#CASES, 8) do
      local c = CASES[n]
      items[n] = { c = c, text = c.text, sd = seeds(c, c.call, rng.new(200000 + c.seed)) }
    end
    local got, err, bad, etext = run_batch(items, "-g -fsanitize=address,undefined -fno-sanitize-recover=all",
      "ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ")
    if bad then fail(items[bad].c, err) end
    assert(got, err)
    assert.is_nil(err)
    assert.is_falsy((etext or ""):find("runtime error", 1, true), etext)
    local _, all = adjoint_runs()
    for n, it in ipairs(items) do
      for a, vals in pairs(all[n].BT) do
        H.assert_bits(vals, got[n].BT[a], it.c.label .. ": the sanitized build's adjoint of array " .. a)
      end
    end
  end)
end)

-- }====
