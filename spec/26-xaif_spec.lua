-- spec/26-xaif_spec.lua: XAIF export and import (doc/xaif.md; Hovland,
-- Norris, Utke & Strout, sec. 3).  The export of every example kernel is
-- validated by xmllint against the schema subset spec/xaif/xaif-subset.xsd;
-- its shapes are those of the published XAIF examples (edges argument ->
-- operator with 1-based positions); the round trip
-- xaif.describe(xaif.read(xaif.write(k, f, res))) equals flatten.describe(res)
-- on every example kernel and on random kernels with both strategies and
-- with random alias overrides: describe flattens the imported model again in
-- Lua, independently of the C engine, so the two implementations are
-- compared; bad input gives nil and "path:line:col: message".
local H = require "spec.helper"
local core = require "cgwb.core"
local kernel = require "cgwb.kernel"
local flatten = require "cgwb.flatten"
local xaif = require "cgwb.xaif"
local kgen = require "kgen"
local rng = require "rng"

local K = "examples/kernels/"
local XSD = "spec/xaif/xaif-subset.xsd"

-- flatten.describe(res) without costs, as plain tables (no json markers).
local function plain(t)
  if type(t) ~= "table" then return t end
  local out = {}
  for k, v in pairs(t) do out[k] = plain(v) end
  return out
end
local function expected(res)
  local d = plain(flatten.describe(res))
  d.cost = nil
  for _, b in ipairs(d.blocks) do
    for _, g in ipairs(b.subgraphs) do g.mults = nil end
  end
  return d
end

local function round_trip(k, f, res, opts)
  local text = assert(xaif.write(k, f, res, opts))
  local model = assert(xaif.read(text, "rt.xaif"))
  return plain(xaif.describe(model)), text
end

-- The functions of a kernel file with at least one block.
local function examples()
  local out = {}
  for name in io.popen("ls " .. K .. "*.c"):lines() do out[#out + 1] = name end
  table.sort(out)
  return out
end

local function xmllint(path)
  local p = io.popen(("xmllint --noout --schema %s %s 2>&1; echo \"rc=$?\""):format(XSD, path))
  local out = p:read("a")
  p:close()
  return out:match("rc=(%d+)") == "0", out
end

describe("XAIF export", function()
  it("xmllint is installed (make deps)", function()
    assert.is_true(os.execute("command -v xmllint >/dev/null"), "xmllint missing: run make deps")
  end)

  it("validates against the schema subset for every function of every example kernel", function()
    local n = 0
    for _, file in ipairs(examples()) do
      local k = assert(kernel.read(file))
      for _, fn in ipairs(k:functions()) do
        for _, split in ipairs {"minimal", "statement"} do
          local res = assert(flatten.run(k, fn.name, {split = split}))
          local path = H.write(H.tmp(".xaif"), assert(xaif.write(k, fn.name, res)))
          local ok, out = xmllint(path)
          assert(ok, file .. " " .. fn.name .. ": " .. out)
          n = n + 1
        end
      end
    end
    assert.is_true(n >= 20)
  end)

  it("the schema subset rejects what it should (a position missing, an unknown element)", function()
    local k = assert(kernel.read(K .. "utke-fig1.c"))
    local text = assert(xaif.write(k, "fig1", assert(flatten.run(k, "fig1"))))
    local bad1 = text:gsub(' position="2"', "", 1)
    assert.is_false((xmllint(H.write(H.tmp(".xaif"), bad1))))
    local bad2 = text:gsub("<xaif:Exit ", "<xaif:Exits ", 1)
    assert.is_false((xmllint(H.write(H.tmp(".xaif"), bad2))))
  end)

  it("writes the shapes of the published examples: Utke Fig. 1", function()
    local k = assert(kernel.read(K .. "utke-fig1.c"))
    local text = assert(xaif.write(k, "fig1", assert(flatten.run(k, "fig1"))))
    -- y = -(z * x) / x ... : leaves first, operators after, edges argument -> operator
    assert.truthy(text:find('<xaif:CallGraph xmlns:xaif="http://www.mcs.anl.gov/XAIF"', 1, true))
    assert.truthy(text:find('<xaif:Intrinsic vertex_id="3" name="mul_scal_scal" rType="real"/>', 1, true))
    assert.truthy(text:find('<xaif:Intrinsic vertex_id="4" name="minus_scal" rType="real"/>', 1, true))
    assert.truthy(text:find('<xaif:ExpressionEdge edge_id="1" source="1" target="3" position="1"/>', 1, true))
    assert.truthy(text:find('<xaif:ExpressionEdge edge_id="2" source="2" target="3" position="2"/>', 1, true))
    assert.truthy(text:find('<xaif:ExpressionEdge edge_id="3" source="3" target="4" position="1"/>', 1, true))
    assert.truthy(text:find('<xaif:ScopeEdge edge_id="1" source="2" target="1"/>', 1, true))
    -- deterministic: the same bytes twice
    assert.equal(text, assert(xaif.write(k, "fig1", assert(flatten.run(k, "fig1")))))
  end)

  it("Utke Fig. 2: *z in a2 may be a1's cell: their alias sets share a partial address", function()
    local k = assert(kernel.read(K .. "utke-fig2.c"))
    local m = assert(xaif.read(assert(xaif.write(k, "fig2", assert(flatten.run(k, "fig2"))))))
    local a1, a2 = m.stmts["1"], m.stmts["3"]
    local zref
    for _, u in ipairs(a2.uses) do if u.sym.name == "z" then zref = u end end
    local z0, zk = m.alias[a1.lhs.alias], m.alias[zref.alias]
    assert.is_false(z0[1].partial); assert.is_false(zk[1].partial) -- each one cell (exact)
    assert.are_not.equal(z0[1].from, zk[1].from)
    assert.is_true(z0[2].partial); assert.equal(z0[2].from, zk[2].from) -- may: one shared address
    -- the ud-chain of *z in a2 is {outside, a1}: "" is outside the function
    assert.same({"", "1"}, m.chains[zref.du_ud])
    -- the reference denotes its cell, z[k] (k's entry value), not the source's *z after z += k
    assert.is_true(zref.cell); assert.is_nil(zref.name)
    assert.equal(1, #zref.index)
    assert.equal("var", zref.index[1].op); assert.equal("k", zref.index[1].ref.sym.name)
  end)
end)

describe("XAIF round trip: the Lua flattening of the import equals the C engine's", function()
  it("on every function of every example kernel, minimal and statement", function()
    for _, file in ipairs(examples()) do
      local k = assert(kernel.read(file))
      for _, fn in ipairs(k:functions()) do
        for _, split in ipairs {"minimal", "statement"} do
          local res = assert(flatten.run(k, fn.name, {split = split}))
          local got = round_trip(k, fn.name, res)
          assert.same(expected(res), got, file .. " " .. fn.name .. " " .. split)
        end
      end
    end
  end)

  it("with assumptions, alias overrides and pruning (Hovland et al. Fig. 1, Utke Fig. 2)", function()
    local k = assert(kernel.read(K .. "hovland-fig1-aliased.c"))
    for _, opts in ipairs {{assume = {"a!=b"}}, {assume = {"a==b"}}, {prune = true}} do
      local res = assert(flatten.run(k, "fig1", opts))
      assert.same(expected(res), (round_trip(k, "fig1", res, opts)))
    end
    local k2 = assert(kernel.read(K .. "utke-fig2.c"))
    for _, answer in ipairs {"must", "no"} do
      local opts = {alias = function() return answer end}
      local res = assert(flatten.run(k2, "fig2", opts))
      local got = round_trip(k2, "fig2", res, opts)
      assert.same(expected(res), got)
      assert.equal(1, got.blocks[1].n_subgraphs)
    end
  end)

  it("a local holding a constant is no independent in either flattening (activity decides)", function()
    local k = assert(kernel.read("void f(double x, double *y) { double c; c = 2.5; y[0] = c * x + 3.0; }\n", "const.c"))
    for _, opts in ipairs {{}, {prune = true}, {split = "statement"}} do
      local res = assert(flatten.run(k, "f", opts))
      local got = round_trip(k, "f", res, opts)
      assert.same(expected(res), got)
      assert.same({"x"}, got.blocks[1].subgraphs[1].independents)
      assert.equal(3, got.blocks[1].subgraphs[1].vertices)
    end
    -- with activity, a parameter that is no independent is passive: the file says which sets hold one
    local k2 = assert(kernel.read("void f(double x, double p, double *y) {\n  y[0] = p * x;\n  y[1] = sin(p) * y[0];\n}\n", "p.c"))
    local opts = {prune = true, independents = {"x"}}
    local res = assert(flatten.run(k2, "f", opts))
    local got, text = round_trip(k2, "f", res, opts)
    assert.same(expected(res), got)
    assert.same({"x"}, got.blocks[1].subgraphs[1].independents)
    assert.truthy(text:find('annotation="cgwb:objects=param;cgwb:independent"', 1, true))
    local plain = flatten.run(k2, "f")
    assert.same({"p", "x"}, (round_trip(k2, "f", plain)).blocks[1].subgraphs[1].independents)
  end)

  it("every intrinsic of the operation table has an XAIF name and comes back as itself", function()
    local L = require("cgwb.core").kernel_layout()
    local terms = {}
    for i, nm in ipairs(L.intrinsics) do
      terms[#terms + 1] = L.arity[nm] == 2 and ("%s(x[%d], 0.5)"):format(nm, i % 3) or ("%s(0.25 * x[%d])"):format(nm, i % 3)
    end
    local src = "#include <math.h>\nvoid f(const double *x, double *y) {\n  y[0] = " .. table.concat(terms, " + ") .. ";\n}\n"
    local k = assert(kernel.read(src, "intrinsics.c"))
    local res = assert(flatten.run(k, "f"))
    local got, text = round_trip(k, "f", res)
    assert.same(expected(res), got)
    local _, all = text:gsub("<xaif:Intrinsic ", "")
    local _, named = text:gsub('<xaif:Intrinsic vertex_id="%d+" name="[^"]+"', "")
    assert.equal(all, named) -- a name on every one (the catalogue's, or cgwb_NAME_scal)
    assert.truthy(all >= #L.intrinsics)
  end)

  it("a double return is an assignment to the result \"return\", flattened as the C engine does", function()
    local k = assert(kernel.read([[
double f(double x, double y) {
  return sin(x * y) * exp(x) / (y + x * x);
}
double g(double x, double *y, int n) {
  double c;
  c = 2.0;
  y[0] = c * x;
  if (n > 0) { return y[0] * x; }
  return c;
}
]], "ret.c"))
    for _, fn in ipairs {"f", "g"} do
      for _, opts in ipairs {{}, {prune = true}, {prune = true, dependents = {"y"}}, {split = "statement"}} do
        local res = assert(flatten.run(k, fn, opts))
        local got, text = round_trip(k, fn, res, opts)
        assert.same(expected(res), got, fn)
        assert.truthy(text:find('<xaif:Symbol symbol_id="return" kind="variable" type="real" shape="scalar"', 1, true))
        assert.truthy(text:find('annotation="cgwb:return"', 1, true))
      end
    end
    local res = assert(flatten.run(k, "f"))
    local got = round_trip(k, "f", res)
    assert.same({"x", "y"}, got.independents)
    assert.same({"return"}, got.dependents)
    assert.same({lines = {2}, vertices = 9, edges = 12, augmented = 0, independents = {"x", "y"},
                 dependents = {"return"}}, got.blocks[1].subgraphs[1])
    -- g: return y[0] * x is flattened; return c reads a passive value: an assignment, not active
    got = round_trip(k, "g", assert(flatten.run(k, "g")))
    assert.same({"y[0]", "return"}, got.dependents)
  end)

  it("a passive write that may hit a definition of the open subgraph ends it", function()
    local k = assert(kernel.read([[
void f(double *a, double *b, double x) {
  a[0] = x * x;
  b[0] = 2.0;
  a[1] = x * 3.0;
}
]], "passive.c"))
    for _, opts in ipairs {{}, {assume = {"a!=b"}}} do
      local res = assert(flatten.run(k, "f", opts))
      local got = round_trip(k, "f", res, opts)
      assert.same(expected(res), got)
      assert.equal(opts.assume and 1 or 2, got.blocks[1].n_subgraphs) -- a != b: b[0] = 2.0 cannot land in a[0]
    end
  end)

  it("reads in place of a value a passive statement of the span wrote do not cut", function()
    local k = assert(kernel.read([==[
void f(double *a, double x, int *m) {
  a[0] = x * x;
  a[2] = 1.0;
  m[0] = (int)a[2];
  a[1] = x * 2.0;
}
void g(double *a, double x) {
  a[0] = x * x;
  a[2] = 1.0;
  a[1 + (int)a[2]] = x * 2.0;
}
]==], "inplace.c"))
    for _, fname in ipairs {"f", "g"} do
      local res = assert(flatten.run(k, fname))
      local got = round_trip(k, fname, res)
      assert.same(expected(res), got)
      -- a[2] is in memory when it is read: the subgraph's deferred writes are a[0] and a[1] only
      assert.equal(1, got.blocks[1].n_subgraphs, fname)
    end
  end)

  it("a name declared twice in nested blocks is two symbols", function()
    local k = assert(kernel.read([[
void f(double *y, double x, int n) {
  if (n > 0) { double t = x * x; y[0] = t * x; }
  else { int t = n; y[1] = x * t; }
}
]], "shadow.c"))
    local res = assert(flatten.run(k, "f"))
    local got, text = round_trip(k, "f", res)
    assert.same(expected(res), got)
    assert.truthy(text:find('<xaif:Symbol symbol_id="t" kind="variable" type="real"', 1, true))
    assert.truthy(text:find('<xaif:Symbol symbol_id="t#%d+" kind="variable" type="integer"'))
  end)

  it("with a Lua split strategy: the script's cuts are recorded and kept", function()
    local k = assert(kernel.read(K .. "hovland-fig1-restrict.c"))
    local res, err = flatten.run(k, "fig1", {split = function(info) return info.intrinsic end})
    if not res then -- the core's split hook is not in this tree yet
      assert.matches("split", err)
      -- a script that cuts at every statement gives the statement split
      res = assert(flatten.run(k, "fig1", {split = "statement"}))
      res.strategy = "lua"
    end
    assert.equal("lua", res.strategy)
    local got = round_trip(k, "fig1", res)
    assert.same(expected(res), got)
    assert.is_true(got.blocks[1].n_subgraphs > 1) -- more cuts than minimal's one graph
  end)

  it("on random kernels (seeded), both strategies, random alias overrides and pruning", function()
    local r = rng.new(2626)
    local n, blocks = 0, 0
    for i = 1, 40 do
      local text = kgen.kernel(r, {stmts = 12})
      local k = assert(kernel.read(text, "rand" .. i .. ".c"))
      for _, fn in ipairs(k:functions()) do
        local choice = r:int(1, 4)
        local opts = {}
        if choice == 2 then
          local answers = {"no", "must", "may"}
          local memo = {}
          opts.alias = function(a, b) -- the same answer for the same pair, both calls
            local key = a .. "\0" .. b
            memo[key] = memo[key] or answers[r:int(1, 3)]
            return memo[key]
          end
        elseif choice == 3 then
          opts.prune = true
        end
        for _, split in ipairs {"minimal", "statement"} do
          opts.split = split
          local res = assert(flatten.run(k, fn.name, opts))
          local got, xml = round_trip(k, fn.name, res, opts)
          local want = expected(res)
          if not require("luassert.util").deepcompare(want, got, true) then
            H.write("/tmp/xaif-fail.c", text); H.write("/tmp/xaif-fail.xaif", xml)
          end
          assert.same(want, got, ("kernel %d %s %s"):format(i, fn.name, split))
          n = n + 1
          blocks = blocks + #want.blocks
        end
      end
    end
    assert.is_true(n >= 80 and blocks >= 80)
  end)
end)

describe("XAIF import of damaged files (seeded): nil and path:line:col, or a model describe takes", function()
  it("never raises", function()
    local texts = {}
    for _, file in ipairs(examples()) do
      local k = assert(kernel.read(file))
      for _, fn in ipairs(k:functions()) do texts[#texts + 1] = assert(xaif.write(k, fn.name, assert(flatten.run(k, fn.name)))) end
    end
    local r, models, errors = rng.new(26), 0, 0
    local function nth(t, pattern, n, repl) -- replaces the n-th match of pattern
      local i = 0
      return (t:gsub(pattern, function(...) i = i + 1; if i == n then return repl(...) end end))
    end
    for _ = 1, 600 do
      local t, kind = texts[r:int(1, #texts)], r:int(1, 4)
      if kind == 1 then t = t:sub(1, r:int(0, #t))
      elseif kind == 2 then t = nth(t, ' [%w_]+="[^"]*"', r:int(1, 200), function() return "" end)
      elseif kind == 3 then
        local v = tostring(r:int(0, 40))
        t = nth(t, '"(%d+)"', r:int(1, 300), function() return '"' .. v .. '"' end)
      else
        local lines = {}
        for l in t:gmatch("[^\n]*\n") do lines[#lines + 1] = l end
        table.remove(lines, r:int(1, #lines))
        t = table.concat(lines)
      end
      local m, err = xaif.read(t, "dmg.xaif")
      if m then
        models = models + 1
        assert(xaif.describe(m))
      else
        errors = errors + 1
        assert.matches("^dmg%.xaif:%d+:%d+: ", err)
      end
    end
    assert.is_true(models > 50 and errors > 50)
  end)
end)

describe("XAIF through the command line", function()
  it("cgwb flatten FILE.xaif prints the --json of the kernel it was written from (with --assume)", function()
    local path = H.tmp(".xaif")
    local a, e1, c1 = H.cgwb("flatten " .. K .. "hovland-fig1-aliased.c --function fig1 --assume 'a!=b' --json --xaif " .. path)
    assert.equal(0, c1, e1)
    local b, e2, c2 = H.cgwb("flatten " .. path .. " --json")
    assert.equal(0, c2, e2)
    local json = require "cgwb.json"
    local ja, jb = json.decode(a), json.decode(b)
    ja.cost = nil -- costs come from the C flattening's graphs, which an import has not
    for _, blk in ipairs(ja.blocks) do
      for _, sg in ipairs(blk.subgraphs) do sg.mults = nil end
    end
    assert.same(ja, jb)
    assert.equal(1, jb.blocks[1].n_subgraphs) -- a != b: one graph, which needs the assumption in the export
  end)

  it("a bad XAIF file: exit status 2 and path:line:col", function()
    local path = H.write(H.tmp(".xaif"), "<xaif:CallGraph xmlns:xaif=\"http://www.mcs.anl.gov/XAIF\">\n<oops")
    local _, err, code = H.cgwb("flatten " .. path .. " --json")
    assert.equal(2, code)
    assert.matches(path:gsub("%p", "%%%0") .. ":2:%d+: ", err)
  end)
end)

describe("XAIF import of bad input: nil and path:line:col", function()
  local k = assert(kernel.read(K .. "utke-fig1.c"))
  local text = assert(xaif.write(k, "fig1", assert(flatten.run(k, "fig1"))))

  local function fails(t, pattern)
    local m, err = xaif.read(t, "bad.xaif")
    assert.is_nil(m)
    assert.matches("^bad%.xaif:%d+:%d+: ", err)
    assert.matches(pattern, err)
  end

  it("a truncated file", function() fails(text:sub(1, #text // 2), "") end)
  it("bad nesting", function()
    fails(text:gsub("</xaif:AssignmentRHS>", "</xaif:AssignmentLHS>", 1), "mismatched tag")
  end)
  it("a missing attribute", function()
    fails(text:gsub('target="3" position="1"', 'target="3"', 1), "xaif:ExpressionEdge lacks the attribute position")
  end)
  it("a dangling expression edge", function()
    fails(text:gsub('source="2" target="3"', 'source="9" target="3"', 1), "edge from a missing vertex 9")
  end)
  it("an unknown alias key and an unknown du_ud key", function()
    fails(text:gsub('alias="3"', 'alias="77"', 1), "alias key 77 is not in the AliasSetMap")
    fails(text:gsub('du_ud="1"', 'du_ud="55"', 1), "du_ud key 55 is not in the DUUDSetMap")
  end)
  it("an unknown element where the subset has its elements", function()
    fails(text:gsub("<xaif:Exit ", "<xaif:Exits ", 1), "unexpected element xaif:Exits in xaif:ControlFlowGraph")
  end)
  it("a cycle of expression edges", function()
    -- z * x (vertex 3) made an argument of its own argument z (vertex 1)
    local bad = text:gsub('(<xaif:ExpressionEdge edge_id="1" source="1" target="3" position="1"/>)',
      '%1\n<xaif:ExpressionEdge edge_id="9" source="3" target="1" position="1"/>', 1)
    fails(bad, "a cycle of expression edges through vertex")
  end)
  it("an element outside the XAIF namespace, and not a string", function()
    fails(text:gsub("<xaif:Entry ", "<Entry ", 1), "not in the XAIF namespace")
    assert.is_nil((xaif.read(nil, "bad.xaif")))
  end)
  it("the error's position is the element's", function()
    local bad = text:gsub('target="3" position="1"', 'target="3"', 1)
    local line = 1
    local at = bad:find('target="3"/>', 1, true)
    for _ in bad:sub(1, at):gmatch("\n") do line = line + 1 end
    local _, err = xaif.read(bad, "bad.xaif")
    assert.matches("^bad%.xaif:" .. line .. ":", err)
  end)
end)
