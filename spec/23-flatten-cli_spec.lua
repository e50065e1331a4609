-- spec/23-flatten-cli_spec.lua: the `cgwb flatten` command and cgwb.flatten
-- (doc/flattening.md, "cgwb flatten"; doc/usage.md): the --json table on the
-- papers' examples against the figures as doc/flattening.md states them
-- (Utke, Flattening Basic Blocks, Figs. 1 and 2; Hovland, Norris, Utke &
-- Strout, Figs. 1, 6, 7 and 10), the split strategies (statement, minimal, a
-- Lua file, the example that splits at intrinsics, an illegal split refused),
-- DOT read back by Graphviz, the exit status and message of each bad input,
-- no half-written output, and the same bytes from two runs.
local H = require "spec.helper"
local cgwb = require "cgwb"
local json = require "cgwb.json"
local flatten = require "cgwb.flatten"

local K = "examples/kernels/"

-- Runs `cgwb flatten ARGS --json`; the decoded table (asserting exit 0).
local function flat_json(args)
  local out, err, code = H.cgwb("flatten " .. args .. " --json")
  assert.equal(0, code, err)
  return assert(json.decode(out, "stdout"))
end

-- The subgraphs' lines of every block as text: "{11,12} | {13}".
local function runs(t)
  local blocks = {}
  for i, b in ipairs(t.blocks) do
    local subs = {}
    for j, g in ipairs(b.subgraphs) do subs[j] = "{" .. table.concat(g.lines, ",") .. "}" end
    blocks[i] = table.concat(subs, " ")
  end
  return table.concat(blocks, " | ")
end

-- A subgraph's shape without its names: "lines v=.. e=.. aug=..".
local function shape(g)
  return ("%s v=%d e=%d aug=%d"):format(table.concat(g.lines, ","), g.vertices, g.edges, g.augmented)
end

local function has_tool(name) return os.execute("command -v " .. name .. " >/dev/null 2>&1") end

describe("cgwb flatten: help", function()
  it("--help names every option, the strategies and an example command", function()
    local out, _, code = H.cgwb("flatten --help")
    assert.equal(0, code)
    for _, o in ipairs { "--function", "--split", "--independents", "--dependents", "--assume", "--prune",
                         "--json", "--dot", "--xaif", "--emit", "--output", "--order" } do
      assert.truthy(out:find(o, 1, true), o)
    end
    for _, s in ipairs(flatten.strategies) do assert.truthy(out:find(s, 1, true), s) end
    assert.truthy(out:find("Example:\n  cgwb flatten examples/kernels/", 1, true), out)
  end)

  it("the example commands of the help run", function()
    local out = H.cgwb("flatten --help")
    for cmd in out:gmatch("\n  cgwb (flatten [^\n]*)") do
      local _, err, code = H.cgwb(cmd)
      assert.equal(0, code, cmd .. ": " .. err)
    end
  end)
end)

describe("cgwb flatten --json: the papers' examples", function()
  it("Utke Fig. 1: one graph of five vertices and five edges, return the only dependent", function()
    local t = flat_json(K .. "utke-fig1.c --function fig1")
    assert.equal("fig1", t["function"])
    assert.equal("minimal", t.strategy)
    assert.same({ "z", "x" }, t.independents) -- first occurrence: z * x
    assert.same({ "return" }, t.dependents)   -- y is a local, returned
    assert.equal(1, #t.blocks)
    local b = t.blocks[1]
    assert.same({ 11, 12, 13 }, b.lines) -- `return y;` flattened as an assignment to "return"
    assert.equal(1, b.n_subgraphs)
    assert.equal(3, b.statement_level_subgraphs)
    assert.same({}, b.dead)
    local g = b.subgraphs[1]
    -- z, x (one vertex for both uses), *, unary minus, /; one edge per argument
    assert.equal("11,12,13 v=5 e=5 aug=0", shape(g))
    assert.same({ "z", "x" }, g.independents)
    assert.same({ "return" }, g.dependents) -- y is read by the return inside the graph
  end)

  it("Utke Fig. 2: *z in a2 may be a1's cell: two subgraphs", function()
    local t = flat_json(K .. "utke-fig2.c --function fig2")
    assert.equal("{12} {14,15}", runs(t))
    local g1, g2 = t.blocks[1].subgraphs[1], t.blocks[1].subgraphs[2]
    assert.equal("12 v=4 e=3 aug=0", shape(g1)) -- z[0], x, *, unary minus
    assert.equal("14,15 v=3 e=2 aug=0", shape(g2)) -- z[k], x, /; the return reads /
    assert.same({ "z[0]", "x" }, g1.independents)
    assert.same({ "z[0]" }, g1.dependents)
    assert.same({ "z[k]", "x" }, g2.independents) -- *z after z += k
    assert.same({ "z[0]", "x", "z[k]" }, t.independents)
    assert.same({ "z[0]", "return" }, t.dependents)
    assert.same({ "return" }, g2.dependents)
    assert.equal(3, t.blocks[1].statement_level_subgraphs)
  end)

  it("Hovland et al. Fig. 1 with locals or restrict pointers: one graph (their Fig. 10)", function()
    for file, lines in pairs { ["hovland-fig1-locals.c"] = "{11,12,13,14}", ["hovland-fig1-restrict.c"] = "{10,11,12}" } do
      local t = flat_json(K .. file)
      assert.equal(lines, runs(t), file)
      local g = t.blocks[1].subgraphs[1]
      -- x, y (one vertex for its three uses), cos, sin, *, *, *, exp
      assert.equal(8, g.vertices, file)
      assert.equal(9, g.edges, file)
      assert.same({ "x", "y" }, g.independents, file)
      assert.equal(file == "hovland-fig1-locals.c" and 4 or 3, t.blocks[1].statement_level_subgraphs, file) -- `return f;`
    end
    local loc = flat_json(K .. "hovland-fig1-locals.c").blocks[1].subgraphs[1]
    assert.same({ "return" }, loc.dependents)
    assert.equal(0, loc.augmented)
    local res = flat_json(K .. "hovland-fig1-restrict.c").blocks[1].subgraphs[1]
    assert.same({ "a[0]", "b[0]", "f[0]" }, res.dependents)
    assert.equal(2, res.augmented) -- *a and *b feed the product: unit edges (sec. 6.2), not vertices
  end)

  it("Hovland et al. Fig. 1 with plain pointers: {1, 2} and {3}; one graph under a!=b or a==b", function()
    local t = flat_json(K .. "hovland-fig1-aliased.c")
    assert.equal("{13,14} {15}", runs(t)) -- their Fig. 7 has three graphs: not minimal
    assert.equal(3, t.blocks[1].statement_level_subgraphs)
    local g1, g2 = t.blocks[1].subgraphs[1], t.blocks[1].subgraphs[2]
    assert.equal("13,14 v=6 e=6 aug=0", shape(g1)) -- x, y, cos, sin, *, *
    assert.same({ "a[0]", "b[0]" }, g1.dependents)
    assert.equal("15 v=4 e=3 aug=0", shape(g2)) -- *a, *b, *, exp
    assert.same({ "a[0]", "b[0]" }, g2.independents)
    assert.same({ "f[0]" }, g2.dependents)
    assert.same({ "x", "y" }, t.independents)
    assert.same({ "a[0]", "b[0]", "f[0]" }, t.dependents)
    for _, as in ipairs { "'a!=b'", "'a==b'" } do
      local one = flat_json(K .. "hovland-fig1-aliased.c --assume " .. as)
      assert.equal("{13,14,15}", runs(one), as)
    end
    -- a == b (their Fig. 6): *a in statement 3 is statement 2's value, one cell
    local six = flat_json(K .. "hovland-fig1-aliased.c --assume 'a==b'").blocks[1].subgraphs[1]
    assert.same({ "x", "y" }, six.independents)
  end)

  it("the table is flatten.describe of flatten.run, and the text form shows the same numbers", function()
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    local res = assert(flatten.run(k, "fig2"))
    local t = flatten.describe(res)
    local cli = flat_json(K .. "utke-fig2.c")
    -- costs come with the tangent module; without it the two are the same table
    for _, b in ipairs(cli.blocks) do
      for _, g in ipairs(b.subgraphs) do g.mults = nil end
    end
    cli.cost = nil
    assert.same(cli, json.decode(json.encode(t)))
    local text = H.cgwb("flatten " .. K .. "utke-fig2.c")
    assert.truthy(text:find("block 1: lines 12,14,15; 2 subgraphs (statement level: 3); dead: none", 1, true), text)
    assert.truthy(text:find("\n  2 +14%-15 +3 +2 +0 "), text)
  end)
end)

describe("cgwb flatten: passive values and returns in the statistics", function()
  it("a local holding a constant is no independent; its partial costs nothing extra", function()
    local path = H.write(H.tmp(".c"), "void f(double x, double *y) { double c; c = 2.5; y[0] = c * x + 3.0; }\n")
    local t = flat_json(path)
    assert.same({ "x" }, t.independents)
    assert.same({ "y[0]" }, t.dependents)
    local g = t.blocks[1].subgraphs[1]
    assert.same({ "x" }, g.independents) -- not c: a constant of the graph (doc/flattening.md, "Passive values")
    assert.equal("1 v=3 e=2 aug=0", shape(g)) -- x, c * x, + 3.0
    -- one non-unit partial (c, of c * x; + 3.0 is +1): one multiplication each way
    assert.equal(1, g.mults)
    assert.same({ elimination = 0, mults = 1, application = 1, total = 1 }, t.cost.preaccumulation)
    assert.equal(1, t.cost.tangent)
    -- and the tangent code reads c in place, a constant of the partial
    local out = H.tmp(".c")
    assert.equal(0, select(3, H.cgwb("flatten " .. path .. " --emit tangent -o " .. out)))
    local code = H.read(out)
    assert.truthy(code:find("cg_w1_2 = (c);", 1, true), code)
    assert.is_nil(code:find("= cd;", 1, true)) -- c's tangent is read nowhere
  end)

  it("return e alone: its independents, one graph and its costs, the DOT and the tangent code", function()
    local path = H.write(H.tmp(".c"), "double f(double x, double y) { return sin(x*y)*exp(x)/(y+x*x); }\n")
    local t = flat_json(path)
    assert.same({ "x", "y" }, t.independents)
    assert.same({ "return" }, t.dependents)
    assert.equal(1, #t.blocks)
    local g = t.blocks[1].subgraphs[1]
    assert.equal("1 v=9 e=12 aug=0", shape(g))
    assert.same({ "x", "y" }, g.independents)
    assert.same({ "return" }, g.dependents)
    assert.equal(9, g.mults)
    assert.same({ elimination = 7, mults = 9, application = 2, total = 9 }, t.cost.preaccumulation)
    assert.same({ elimination = 7, mults = 9, application = 2, total = 9 }, t.cost.statement_level)
    assert.equal(9, t.cost.tangent)
    local text = H.cgwb("flatten " .. path)
    assert.truthy(text:find("independents  x y\n", 1, true), text)
    assert.truthy(text:find("\n  1 +1 +9 +12 +0 +9 +x y +return\n"), text)
    local dot = H.cgwb("flatten " .. path .. " --dot -")
    assert.truthy(dot:find('b1s1v9 [label="/\\nreturn", peripheries=2];', 1, true), dot)
    local out = H.tmp(".c")
    assert.equal(0, select(3, H.cgwb("flatten " .. path .. " --emit tangent -o " .. out)))
    assert.truthy(H.read(out):find("*f_ret_d = cg_w1_9 * cg_d1 + cg_w2_9 * cg_d2;", 1, true))
  end)
end)

describe("flatten.describe with costs", function()
  it("each subgraph gets its own mults, whether the report counts every block or the active ones", function()
    -- stencil1d: blocks without active assignments (the loop heads) come between active ones
    local k = assert(cgwb.read_kernel(K .. "stencil1d.c"))
    local res = assert(flatten.run(k, "heat"))
    assert.is_true(#res.blocks > #flatten.active_blocks(res))
    local by_all, by_active, want = {}, {}, {}
    for ri, b in ipairs(res.blocks) do
      by_all[ri] = {}
      if #b.lines > 0 then
        local bi = #by_active + 1
        by_active[bi] = {}
        for si, g in ipairs(b.subgraphs) do
          local m = 1000 * ri + si -- tells every subgraph apart
          by_all[ri][si], by_active[bi][si] = { mults = m }, { mults = m }
          want[#want + 1] = m
        end
      end
    end
    for _, per in ipairs { by_all, by_active } do
      local t = flatten.describe(res, { subgraphs = per, cost = { tangent = 7 } })
      local got = {}
      for _, b in ipairs(t.blocks) do
        for _, g in ipairs(b.subgraphs) do got[#got + 1] = g.mults end
      end
      assert.same(want, got)
      assert.same({ tangent = 7 }, t.cost)
      local text = flatten.text(t)
      assert.truthy(text:find("\ncost:\n  tangent +7\n"), text)
    end
  end)
end)

describe("cgwb flatten --split", function()
  it("statement: one subgraph per active assignment; minimal: never more", function()
    for _, file in ipairs { "utke-fig1.c", "utke-fig2.c", "hovland-fig1-aliased.c", "flux1d.c",
                            "stencil1d.c", "matmul2d.c --function matvec", "meshflux.c --function residual" } do
      local st = flat_json(K .. file .. " --split statement")
      local mi = flat_json(K .. file .. " --split minimal")
      assert.equal("statement", st.strategy)
      assert.equal(#st.blocks, #mi.blocks, file)
      for i, b in ipairs(st.blocks) do
        assert.equal(#b.lines, b.n_subgraphs, file)
        assert.equal(b.statement_level_subgraphs, b.n_subgraphs, file)
        for _, g in ipairs(b.subgraphs) do assert.equal(1, #g.lines, file) end
        assert.is_true(mi.blocks[i].n_subgraphs <= b.n_subgraphs, file)
        assert.same(b.lines, mi.blocks[i].lines, file)
      end
    end
  end)

  it("flux1d: minimal makes one graph of the eight statements", function()
    local t = flat_json(K .. "flux1d.c")
    assert.equal("{13,14,15,16,17,18,19,20}", runs(t))
    assert.same({ "f[0]", "f[1]" }, t.blocks[1].subgraphs[1].dependents)
    assert.same({ "t", "theta", "ul", "ur", "rr", "rl" }, t.blocks[1].subgraphs[1].independents)
  end)
end)

describe("cgwb flatten --split FILE.lua", function()
  -- Blocks and subgraphs of a table without the strategy's name.
  local function graphs(t) return json.encode(t.blocks) end

  it("the example splits flux1d at its intrinsics: three subgraphs where minimal makes one", function()
    local t = flat_json(K .. "flux1d.c --split examples/split-intrinsics.lua")
    assert.equal("lua", t.strategy)
    assert.equal("{13} {14,15,16,17} {18,19,20}", runs(t)) -- sqrt at 13, sin at 14, exp at 18
    assert.equal(8, t.blocks[1].statement_level_subgraphs)
    assert.same({ "t" }, t.blocks[1].subgraphs[1].independents)
    assert.same({ "c" }, t.blocks[1].subgraphs[1].dependents)
    -- n, vl, vr, s are read by the third subgraph; c is read across the second
    assert.same({ "theta", "ul", "ur", "c" }, t.blocks[1].subgraphs[2].independents)
    assert.same({ "vl", "vr", "s" }, t.blocks[1].subgraphs[2].dependents)
    assert.same({ "f[0]", "f[1]" }, t.blocks[1].subgraphs[3].dependents)
  end)

  it("a script that always splits is `statement`; one that splits only when it must is `minimal`", function()
    local always = H.write(H.tmp(".lua"), "return function(info) return true end\n")
    local needed = H.write(H.tmp(".lua"), "return function(info) return not info.legal end\n")
    for _, file in ipairs { "utke-fig2.c", "hovland-fig1-aliased.c", "flux1d.c", "stencil1d.c",
                            "meshflux.c --function residual" } do
      assert.equal(graphs(flat_json(K .. file .. " --split statement")),
                   graphs(flat_json(K .. file .. " --split " .. always)), file)
      assert.equal(graphs(flat_json(K .. file .. " --split minimal")),
                   graphs(flat_json(K .. file .. " --split " .. needed)), file)
    end
  end)

  it("the function sees each statement that could join, with its text, uses and legality", function()
    local k = assert(cgwb.read_kernel(K .. "flux1d.c"))
    local seen = {}
    assert(flatten.run(k, "flux1d", { split = function(info)
      -- the core prints the statement fully parenthesized: compare without parentheses
      seen[#seen + 1] = ("%d %s %s %s [%s]"):format(info.line, (info.text:gsub("[()]", "")), tostring(info.intrinsic),
        tostring(info.legal), table.concat(info.run.lines, ","))
      if info.line == 17 then -- s = 0.5 * (vl + vr) + c: its uses and their ud-chains (lines)
        local uses = {}
        for i, u in ipairs(info.uses) do uses[i] = ("%s@%d:%d<-%s"):format(u.text, u.line, u.col, table.concat(u.chain, ",")) end
        assert.same({ "vl@17:14<-15", "vr@17:19<-16", "c@17:25<-13" }, uses)
        assert.equal(5, info.index) -- the fifth active assignment of the block
      end
      return info.intrinsic
    end }))
    local expected = { -- not called for the block's first statement; the source's text
      "14 n = sin(theta) true true [13]",
      "15 vl = ul * n false true [14]",
      "16 vr = ur * n false true [14,15]",
      "17 s = 0.5 * (vl + vr) + c false true [14,15,16]",
      "18 d = exp(-(rr - rl) * (rr - rl)) true true [14,15,16,17]",
      "19 f[0] = 0.5 * (rl * vl + rr * vr) - 0.5 * s * d * (rr - rl) false true [18]",
      "20 f[1] = 0.5 * (rl * vl * vl + rr * vr * vr + t * (rl + rr)) - 0.5 * s * d * (rr * vr - rl * vl) false true [18,19]",
    }
    for i, e in ipairs(expected) do expected[i] = e:gsub("[()]", "") end
    assert.same(expected, seen)
  end)

  it("an illegal join is refused with the reason (exit 2); an error in the script is reported", function()
    local join = H.write(H.tmp(".lua"), "return function(info) return false end\n")
    local out, err, code = H.cgwb("flatten " .. K .. "utke-fig2.c --split " .. join)
    assert.equal(2, code, err)
    assert.equal("", out)
    -- *z in a2 may be a1's cell or another one: joining would read the wrong value for some k
    assert.truthy(err:find("cgwb flatten: " .. K .. "utke-fig2.c:14:3: the split strategy joins line 14 to the subgraph "
      .. "of lines 12-12, which would change the results: ", 1, true), err)
    assert.truthy(err:find("z[0] at 14:7", 1, true) and err:find("line 12", 1, true), err) -- the use, the definition
    local boom = H.write(H.tmp(".lua"), "return function(info)\n  error('no opinion on line ' .. info.line)\nend\n")
    _, err, code = H.cgwb("flatten " .. K .. "utke-fig2.c --split " .. boom)
    assert.equal(2, code, err)
    assert.truthy(err:find(boom .. ":2: no opinion on line 14", 1, true), err)
    local k = assert(cgwb.read_kernel(K .. "utke-fig2.c"))
    local res, msg = flatten.run(k, "fig2", { split = function() return false end })
    assert.is_nil(res)
    assert.truthy(msg:find("would change the results", 1, true), msg)
  end)
end)

describe("cgwb flatten: bad input exits 2 with the place", function()
  -- Asserts exit 2, nothing on stdout, and stderr holding every piece.
  local function bad(args, ...)
    local out, err, code = H.cgwb("flatten " .. args)
    assert.equal(2, code, args .. ": " .. err)
    assert.equal("", out, args)
    for _, piece in ipairs { ... } do assert.truthy(err:find(piece, 1, true), args .. ": " .. err) end
    return err
  end

  it("a missing file, a parse error, an unknown function, a kernel of several functions", function()
    bad("examples/kernels/nosuch.c", "cgwb flatten: examples/kernels/nosuch.c: cannot open: No such file")
    local broken = H.write(H.tmp(".c"), "void f(double x, double *y) {\n  *y = x +;\n}\n")
    local err = bad(broken, broken .. ":2:")
    assert.truthy(err:match(broken:gsub("%p", "%%%0") .. ":2:%d+: "), err)
    bad(K .. "utke-fig1.c --function nosuch", K .. "utke-fig1.c: no function 'nosuch'")
    local two = H.write(H.tmp(".c"), "void f(double *y) { *y = *y * 2.0; }\nvoid g(double *y) { *y = sin(*y); }\n")
    bad(two, two .. ": --function F is needed (functions: f, g)")
    assert.equal(0, select(3, H.cgwb("flatten " .. two .. " --function g")))
  end)

  it("a bad --split: unknown name, missing file, syntax error, runtime error, not a function", function()
    bad(K .. "utke-fig1.c --split greedy", "split: 'greedy' is neither a strategy (minimal, statement) nor a .lua file")
    bad(K .. "utke-fig1.c --split nosuch.lua", "nosuch.lua: cannot open:")
    local syn = H.write(H.tmp(".lua"), "return function(info)\n  return info.\nend\n")
    local err = bad(K .. "utke-fig1.c --split " .. syn, syn .. ":3:")
    assert.truthy(err:find("expected", 1, true) or err:find("near", 1, true), err)
    local boom = H.write(H.tmp(".lua"), "local x = nil\nreturn x.y\n")
    bad(K .. "utke-fig1.c --split " .. boom, boom .. ":2:", "attempt to index")
    local num = H.write(H.tmp(".lua"), "return 42\n")
    bad(K .. "utke-fig1.c --split " .. num, num .. ": must return a function split(info) (returned a number)")
    local str = H.write(H.tmp(".lua"), "return 'statement'\n")
    bad(K .. "utke-fig1.c --split " .. str, str .. ": must return a function split(info) (returned a string)")
  end)

  it("bad options: --emit without -o, -o without --emit, --emit other, names, --order, --assume", function()
    bad(K .. "utke-fig1.c --emit tangent", "--emit tangent needs -o OUT.c")
    bad(K .. "utke-fig1.c -o x.c", "-o needs --emit tangent")
    local _, err, code = H.cgwb("flatten " .. K .. "utke-fig1.c --emit adjoint -o x.c")
    assert.equal(2, code)
    assert.truthy(err:find("^Usage: cgwb flatten"), err)
    bad(K .. "utke-fig1.c --independents 'x,,z'", "--independents 'x,,z': expected parameter names")
    bad(K .. "utke-fig1.c --prune --independents x,q", K .. "utke-fig1.c: independents: 'q' is not a parameter of fig1")
    bad(K .. "meshflux.c --function residual --independents ntri", K .. "meshflux.c: independents: 'ntri' is an int "
      .. "parameter of residual (they are double parameters or pointers to double)")
    bad(K .. "meshflux.c --function residual --dependents return", K .. "meshflux.c: dependents: 'return': residual "
      .. "does not return a double")
    bad(K .. "utke-fig1.c --order nosuch", "unknown ordering 'nosuch' for vertex elimination")
    -- the message doc/tangent-code.md promises ("What is refused"), read from it
    local promised = H.read("doc/tangent-code.md"):match("`\"markowitz,front\"`%):%s*`([^`]+)`")
    promised = assert(promised, "doc/tangent-code.md: the message for markowitz,front"):gsub("%s+", " ")
    assert.equal("--order: 'front' belongs to edge elimination; tangent code preaccumulates by vertex elimination "
      .. "(forward, reverse, ...)", promised)
    for _, emit in ipairs { "", " --emit tangent -o x.c", " --emit tangent-vector -o x.c" } do
      bad(K .. "utke-fig1.c --order markowitz,front" .. emit, "cgwb flatten: " .. promised:gsub("%.%.%.%)$", ""))
    end
    bad(K .. "utke-fig1.c --order nosuch.lua", "nosuch.lua: cannot open:")
    bad(K .. "utke-fig1.c --function 7", K .. "utke-fig1.c: no function 7 (the kernel has 1)")
    bad(K .. "hovland-fig1-aliased.c --assume 'a<b'", "--assume 'a<b': expected NAME!=NAME or NAME==NAME")
    bad(K .. "hovland-fig1-aliased.c --assume 'a!=x'", "no function shown has these two pointer parameters")
    bad(K .. "utke-fig1.c --dot - --xaif -", "would both write to standard output")
  end)

  it("an XAIF input takes no option that needs a kernel", function()
    local x = H.write(H.tmp(".xaif"), "<?xml version=\"1.0\"?>\n<x/>\n")
    for _, o in ipairs { "--dot g.dot", "--split statement", "--function f", "--prune", "--assume 'a!=b'",
                         "--emit tangent -o t.c", "--independents x" } do
      bad(x .. " " .. o, x .. ": --" .. o:match("^%-%-(%w+)") .. " needs a kernel (an XAIF file is only described)")
    end
  end)

  it("an output that cannot be written leaves no file behind", function()
    local dir = H.tmp("-nodir")
    bad(K .. "utke-fig1.c --dot " .. dir .. "/g.dot", dir .. "/g.dot: cannot write")
    assert.is_nil(io.open(dir .. "/g.dot", "rb"))
    assert.is_nil(io.open(dir .. "/g.dot.tmp", "rb"))
  end)
end)

describe("cgwb flatten --prune", function()
  it("activity leaves out what does not reach a dependent; dead assignments are reported", function()
    local src = H.write(H.tmp(".c"), table.concat({
      "void g(double x, double w, double *y) {",
      "  double u, v;",
      "  u = sin(x);",
      "  v = cos(w);",       -- active, but dead: v is never read
      "  *y = u * x;",
      "}", "" }, "\n"))
    local all = flat_json(src)
    assert.same({ 3, 4, 5 }, all.blocks[1].lines)
    assert.same({ 4 }, all.blocks[1].dead)
    local pruned = flat_json(src .. " --prune --independents x,w --dependents y")
    assert.same({ 3, 5 }, pruned.blocks[1].lines)
    -- w is not independent for activity: its statement is no longer active
    local only_x = flat_json(src .. " --prune --independents x --dependents y")
    assert.same({ 3, 5 }, only_x.blocks[1].lines)
    assert.same({ "x" }, only_x.blocks[1].subgraphs[1].independents)
  end)
end)

describe("cgwb flatten --dot", function()
  -- Counts of a pattern in s.
  local function count(s, pat)
    local n = 0
    for _ in s:gmatch(pat) do n = n + 1 end
    return n
  end

  it("one cluster per block and per subgraph; dependents double circled; augmented dashed", function()
    local path = H.tmp(".dot")
    local _, err, code = H.cgwb("flatten " .. K .. "hovland-fig1-restrict.c --dot " .. path)
    assert.equal(0, code, err)
    local dot = H.read(path)
    assert.equal(2, count(dot, "subgraph cluster_")) -- one block, one subgraph
    assert.equal(8 + 2, count(dot, "%[label=") - count(dot, "%-> ")) -- 8 vertices, 2 augmented vertices
    assert.equal(9 + 2, count(dot, "%-> ")) -- 9 edges, 2 unit edges
    assert.equal(3 + 2, count(dot, "peripheries=2"))
    assert.equal(2 * 2, count(dot, "style=dashed"))
    assert.truthy(dot:find('label="exp\\nf[0]", peripheries=2', 1, true), dot)
    local fig2 = H.tmp(".dot")
    assert.equal(0, select(3, H.cgwb("flatten " .. K .. "utke-fig2.c --dot " .. fig2)))
    assert.equal(3, count(H.read(fig2), "subgraph cluster_")) -- one block, two subgraphs
    assert.truthy(H.read(fig2):find('b1s2v2 -> b1s2v3 [label="2"]', 1, true)) -- x is the divisor
  end)

  it("Graphviz reads it", function()
    if not has_tool("dot") then return pending("graphviz (dot) is not installed") end
    for _, file in ipairs { "utke-fig1.c", "utke-fig2.c", "hovland-fig1-restrict.c", "flux1d.c", "stencil1d.c" } do
      local path, svg = H.tmp(".dot"), H.tmp(".svg")
      assert.equal(0, select(3, H.cgwb("flatten " .. K .. file .. " --dot " .. path)))
      local ok = os.execute(("dot -Tsvg %s -o %s 2>/dev/null"):format(path, svg))
      assert.is_true(ok == true, file)
      assert.truthy(H.read(svg):find("<svg", 1, true), file)
    end
  end)

  it("--dot - writes the graph to standard output and the report to standard error", function()
    local out, err, code = H.cgwb("flatten " .. K .. "utke-fig1.c --dot -")
    assert.equal(0, code, err)
    assert.truthy(out:find("^digraph"), out)
    assert.truthy(err:find("block 1: lines 11-13", 1, true), err)
  end)
end)

describe("cgwb flatten: determinism", function()
  it("two runs give the same bytes (JSON, text, DOT)", function()
    for _, args in ipairs { K .. "flux1d.c --json", K .. "hovland-fig1-aliased.c", K .. "stencil1d.c --json",
                            K .. "utke-fig2.c --dot -" } do
      local a, _, c1 = H.cgwb("flatten " .. args)
      local b, _, c2 = H.cgwb("flatten " .. args)
      assert.equal(0, c1, args); assert.equal(0, c2, args)
      assert.equal(a, b, args)
    end
  end)
end)

describe("cgwb flatten: the parts that other modules provide", function()
  local function present(name)
    local ok = pcall(require, name)
    return ok
  end

  it("--xaif writes well-formed XML (or says XAIF is not available)", function()
    local path = H.tmp(".xaif")
    local _, err, code = H.cgwb("flatten " .. K .. "utke-fig2.c --xaif " .. path)
    if not present("cgwb.xaif") then
      assert.equal(2, code)
      assert.truthy(err:find("--xaif is not available", 1, true), err)
      assert.is_nil(io.open(path, "rb"))
      local _, ierr, icode = H.cgwb("flatten " .. H.write(H.tmp(".xaif"), "<?xml version=\"1.0\"?><x/>\n"))
      assert.equal(2, icode)
      assert.truthy(ierr:find("XAIF import is not available", 1, true), ierr)
      return
    end
    assert.equal(0, code, err)
    if has_tool("xmllint") then
      assert.is_true(os.execute("xmllint --noout " .. path .. " 2>/dev/null") == true)
    end
    -- the round trip: the XAIF file describes the same graphs
    local back = flat_json(path)
    local direct = flat_json(K .. "utke-fig2.c")
    direct.cost = nil
    for _, b in ipairs(direct.blocks) do for _, g in ipairs(b.subgraphs) do g.mults = nil end end
    assert.same(direct, back)
  end)

  it("--emit tangent writes C that compiles (or says tangent code is not available)", function()
    local path = H.tmp(".c")
    local _, err, code = H.cgwb("flatten " .. K .. "hovland-fig1-aliased.c --emit tangent -o " .. path)
    if not present("cgwb.tangent") then
      assert.equal(2, code)
      assert.truthy(err:find("--emit tangent is not available", 1, true), err)
      assert.is_nil(io.open(path, "rb"))
      return
    end
    assert.equal(0, code, err)
    local obj = H.tmp(".o")
    assert.is_true(os.execute(("cc -std=c99 -Wall -Wextra -Werror -c %s -o %s"):format(path, obj)) == true)
    local t = flat_json(K .. "hovland-fig1-aliased.c")
    assert.is_table(t.cost)
    for _, b in ipairs(t.blocks) do
      for _, g in ipairs(b.subgraphs) do assert.equal("integer", math.type(g.mults)) end
    end
  end)

  it("a split file sees the preloaded cgwb with --emit tangent as without it", function()
    local split = H.write(H.tmp(".lua"), 'assert(cgwb and cgwb.read_kernel, "cgwb is preloaded")\n'
      .. "return function(info) return info.line % 2 == 0 end\n")
    local out1, err1, code1 = H.cgwb("flatten " .. K .. "flux1d.c --split " .. split)
    assert.equal(0, code1, err1)
    local path = H.tmp(".c")
    local out2, err2, code2 = H.cgwb("flatten " .. K .. "flux1d.c --split " .. split .. " --emit tangent -o " .. path)
    assert.equal(0, code2, err2)
    assert.equal(out1, out2)
    assert.is_true(os.execute(("cc -std=c99 -Wall -Wextra -Werror -c %s -o %s"):format(path, H.tmp(".o"))) == true)
  end)
end)
