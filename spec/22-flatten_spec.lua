-- spec/22-flatten_spec.lua: flattening of basic blocks into term graphs
-- (doc/flattening.md; Utke, Flattening Basic Blocks, Algorithms 1 and 2,
-- sec. 6.2): the papers' examples by hand, then a property on random
-- kernels with random aliasing, checked against the interpreter's access
-- trace: executing the subgraphs in order (independents read when a
-- subgraph starts, dependents written when it ends, in statement order,
-- passive statements in place) gives every read the value (the same
-- producing statement execution) the block gives it, and leaves the caller's
-- arrays as the block does; `minimal` never makes more subgraphs than
-- `statement`.
local H = require "spec.helper"
local core = require "cgwb.core"
local kparse = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"

local function load_file(path)
  return assert(core.kernel_load(assert(kparse.read(path))))
end
local function load_text(text, name)
  return assert(core.kernel_load(assert(kparse.parse(text, name or "hand.c"))))
end

local active_blocks = require("cgwb.flatten").active_blocks -- the blocks with active assignments

--- A subgraph's shape as text: its lines, then each vertex (kind:op:text)
-- and each edge (src>dst@pos), each sorted, then its dependents.
local function shape(g)
  local vs, es, ds = {}, {}, {}
  for _, v in ipairs(g.vertices) do vs[#vs + 1] = v.kind:sub(1, 3) .. ":" .. v.text end
  for _, e in ipairs(g.edges) do
    es[#es + 1] = g.vertices[e[1]].text .. ">" .. g.vertices[e[2]].text .. "@" .. e[3]
  end
  for _, d in ipairs(g.dependents) do ds[#ds + 1] = d.text .. (d.augmented and "+" or "") end
  table.sort(vs); table.sort(es)
  return table.concat(g.lines, ",") .. " | " .. table.concat(vs, " ") .. " | " ..
    table.concat(es, " ") .. " | " .. table.concat(ds, " ")
end

--- The index of the first block with active assignments.
local function first_active(res)
  for i, b in ipairs(res.blocks) do if #b.lines > 0 then return i end end
end

local function subgraph_lines(res)
  local out = {}
  for _, b in ipairs(active_blocks(res)) do
    for _, g in ipairs(b.subgraphs) do out[#out + 1] = "{" .. table.concat(g.lines, ",") .. "}" end
  end
  return table.concat(out, " ")
end

local K = "examples/kernels/"

describe("the papers' examples", function()
  it("Utke Fig. 1: both assignments and the return in one graph, x identified, return the dependent", function()
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig1.c"), "fig1"))
    local b = active_blocks(res)
    assert.equal(1, #b)
    assert.same({11, 12, 13}, b[1].lines) -- `return y;` is an assignment to the dependent "return"
    assert.equal(1, b[1].n_subgraphs)
    assert.equal(3, b[1].statement_level_subgraphs)
    -- vertices z, x (one vertex for both uses: same cell, same chain), *, unary -, /;
    -- the return reads a2's vertex and adds none
    assert.equal("11,12,13 | ind:x ind:z ope:(z * x) ope:(z / x) ope:-(z * x) | " ..
      "(z * x)>-(z * x)@1 -(z * x)>(z / x)@1 x>(z * x)@2 x>(z / x)@2 z>(z * x)@1 | return",
      shape(b[1].subgraphs[1]))
    -- the new z is read only by a2, y only by the return, inside the graph: no dependents
  end)

  it("Utke Figs. 2 and 5: *z in a2 may be a1's cell: two subgraphs; must or no: one", function()
    for _, file in ipairs {"utke-fig2.c", "utke-fig5.c"} do
      local k = load_file(K .. file)
      local a1, a2 = table.unpack(file == "utke-fig2.c" and {12, 14} or {10, 12})
      local res = assert(core.kernel_flatten(k, 1))
      assert.equal(("{%d} {%d,%d}"):format(a1, a2, a2 + 1), subgraph_lines(res)) -- a2 and the return
      local g1, g2 = active_blocks(res)[1].subgraphs[1], active_blocks(res)[1].subgraphs[2]
      assert.equal(a1 .. " | ind:x ind:z[0] ope:(z[0] * x) ope:-(z[0] * x) | " ..
        "(z[0] * x)>-(z[0] * x)@1 x>(z[0] * x)@2 z[0]>(z[0] * x)@1 | z[0]", shape(g1))
      assert.equal("z[k#1]", g2.vertices[1].addr) -- read at a2's start, a cell of its own
      for _, answer in ipairs {"must", "no"} do
        local one = assert(core.kernel_flatten(k, 1, {alias = function() return answer end}))
        assert.equal(("{%d,%d,%d}"):format(a1, a2, a2 + 1), subgraph_lines(one))
      end
      local must = assert(core.kernel_flatten(k, 1, {alias = function() return "must" end}))
      -- must: *z in a2 is a1's value, wired to the unary minus (Fig. 1's graph)
      assert.equal(5, #active_blocks(must)[1].subgraphs[1].vertices)
      local no = assert(core.kernel_flatten(k, 1, {alias = function() return "no" end}))
      -- no: z[k] is a cell of its own, an independent beside z[0]
      assert.equal(6, #active_blocks(no)[1].subgraphs[1].vertices)
    end
  end)

  it("Hovland et al. Fig. 1: locals and restrict pointers give one graph (their Fig. 10)", function()
    for _, file in ipairs {"hovland-fig1-locals.c", "hovland-fig1-restrict.c"} do
      local res = assert(core.kernel_flatten(load_file(K .. file), "fig1"))
      local b = active_blocks(res)
      assert.equal(1, #b)
      assert.equal(1, b[1].n_subgraphs)
      assert.equal(file == "hovland-fig1-locals.c" and 4 or 3, b[1].statement_level_subgraphs) -- and `return f;`
      local g = b[1].subgraphs[1]
      -- x, y (one vertex for its three uses), cos, sin, *, *, *, exp
      assert.equal(8, #g.vertices)
      assert.equal(9, #g.edges)
    end
    -- locals: only the return of f is a result; restrict pointers: all three cells are
    local loc = active_blocks(assert(core.kernel_flatten(load_file(K .. "hovland-fig1-locals.c"), "fig1")))
    assert.equal(1, #loc[1].subgraphs[1].dependents)
    assert.equal("return", loc[1].subgraphs[1].dependents[1].name)
    local res = active_blocks(assert(core.kernel_flatten(load_file(K .. "hovland-fig1-restrict.c"), "fig1")))
    local deps = res[1].subgraphs[1].dependents
    assert.equal(3, #deps)
    -- *a and *b feed the product inside the graph: not maximal, unit edges (sec. 6.2)
    assert.is_true(deps[1].augmented); assert.is_true(deps[2].augmented)
    assert.is_false(deps[3].augmented)
  end)

  it("Hovland et al. Fig. 1 aliased: statement 3 is cut off; 1 and 2 share a graph", function()
    local k = load_file(K .. "hovland-fig1-aliased.c")
    local res = assert(core.kernel_flatten(k, "fig1"))
    -- *a in statement 3 may come from statement 1 or 2: ambiguous, a new graph;
    -- statement 2 reads no cell statement 1 writes, so they need no cut
    -- (their Fig. 7 cuts every statement: not minimal)
    assert.equal("{13,14} {15}", subgraph_lines(res))
    assert.equal("{13} {14} {15}", subgraph_lines(assert(core.kernel_flatten(k, "fig1", {strategy = "statement"}))))
    -- a != b proven: one graph
    assert.equal("{13,14,15}", subgraph_lines(assert(core.kernel_flatten(k, "fig1", {assume = {"a!=b"}}))))
    -- a == b: *a in statement 3 is statement 2's value, still one graph (their Fig. 6)
    assert.equal("{13,14,15}", subgraph_lines(assert(core.kernel_flatten(k, "fig1", {assume = {"a==b"}}))))
  end)

  it("statement strategy: one graph per active assignment (a return too); constants and ints are in none", function()
    local k = load_text([[
double f(double x, int n) {
  double y, c;
  int i;
  c = 2.0;
  i = n + 1;
  y = x * c;
  y = sin(y) + (double)i;
  return y;
}
]])
    local res = assert(core.kernel_flatten(k, "f", {strategy = "statement"}))
    assert.equal("{6} {7} {8}", subgraph_lines(res))
    local g = active_blocks(res)[1].subgraphs[1]
    -- c holds the constant 2.0 (passive): a constant of the graph, no vertex
    assert.equal("6 | ind:x ope:(x * c) | x>(x * c)@1 | y", shape(g))
    res = assert(core.kernel_flatten(k, "f"))
    -- minimal: one graph; the int cast is passive: sin(y) + (double)i has one edge
    assert.equal("{6,7,8}", subgraph_lines(res))
    assert.equal(3, #active_blocks(res)[1].subgraphs[1].edges)
  end)

  it("a passive statement reading a double the graph defines ends it", function()
    local k = load_text([[
double f(double x, double *a) {
  double y;
  int i;
  y = x * x;
  i = (int)y;
  a[0] = y * x;
  return a[0] + (double)i;
}
]])
    assert.equal("{4} {6,7}", subgraph_lines(assert(core.kernel_flatten(k, "f"))))
  end)

  it("dead assignments are reported; prune leaves inactive ones out", function()
    local k = load_text([[
double f(double x, double z) {
  double y, w;
  w = x * z;
  y = x * x;
  return y;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({3}, active_blocks(res)[1].dead) -- a return is never dead: its value leaves
    assert.equal("{3,4,5}", subgraph_lines(res))
    res = assert(core.kernel_flatten(k, "f", {prune = true}))
    assert.equal("{4,5}", subgraph_lines(res))
    assert.equal(1, res.pruned)
  end)

  it("a graph asked for after k:free() raises instead of reading freed rows", function()
    local k = load_file(K .. "utke-fig1.c")
    local res = assert(core.kernel_flatten(k, "fig1"))
    k:free()
    assert.error_matches(function() res.graph(first_active(res), 1, {3, 0.5}) end, "Kernel was freed")
  end)

  it("refuses a strategy that is not one", function()
    local k = load_file(K .. "utke-fig1.c")
    assert.error_matches(function() core.kernel_flatten(k, "fig1", {strategy = "best"}) end,
      "not a split strategy")
  end)
end)

-- {==== subgraphs as graphs at a point ====}

--- The dense Jacobian (rows of columns) of subgraph (b, s) at the point.
local function jacobian(res, b, s, point, passive)
  local g = assert(res.graph(b, s, point, passive))
  local lg = assert(core.linearize(g))
  lg:eliminate("markowitz")
  local J = assert(lg:jacobian())
  local D = {}
  for i = 1, J.m do D[i] = {} for j = 1, J.n do D[i][j] = 0 end end
  for i = 1, J.nnz do D[J.rows[i]][J.cols[i]] = J.vals[i] end
  return D, g
end

describe("subgraphs built through the graph-building interface", function()
  it("Utke Fig. 1 at z = 3, x = 0.5: y = -(z x)/x = -3, dy/dz = -1, dy/dx = 0", function()
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig1.c"), "fig1"))
    local bi = first_active(res)
    assert.same({11, 12, 13}, res.blocks[bi].lines)
    local J, g = jacobian(res, bi, 1, {3, 0.5}) -- independents in vertex order: z, x
    assert.equal(-3, g:eval({3, 0.5})[1])
    assert.equal(-1, J[1][1])
    assert.equal(0, J[1][2])
  end)

  it("Utke Fig. 2: composing the two subgraphs' Jacobians gives the block's", function()
    -- a1: z0 = -(z0 x); a2: y = z[k] / x.  With k = 0 the block is Fig. 1:
    -- dy/dz0 = -1, dy/dx = 0; the subgraphs: J1 = d(z0')/d(z0, x) = (-x, -z0),
    -- J2 = d(y)/d(zk, x) = (1/x, -zk/x^2) with zk = z0' (k = 0)
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2"))
    local bi = first_active(res)
    local z0, x = 3, 0.5
    local J1 = jacobian(res, bi, 1, {z0, x}) -- vertices z[0], x
    assert.same({{-x, -z0}}, J1)
    local z1 = -(z0 * x)
    local J2 = jacobian(res, bi, 2, {z1, x}) -- vertices z[k], x
    assert.same({{1 / x, -z1 / (x * x)}}, J2)
    -- chain rule through the aliased cell: dy/dz0 = J2[zk] J1[z0], dy/dx = J2[zk] J1[x] + J2[x]
    assert.equal(-1, J2[1][1] * J1[1][1])
    assert.equal(0, J2[1][1] * J1[1][2] + J2[1][2])
  end)

  it("Hovland et al. Fig. 1 with restrict pointers: three dependents, the products' partials", function()
    local res = assert(core.kernel_flatten(load_file(K .. "hovland-fig1-restrict.c"), "fig1"))
    local bi = first_active(res)
    local x, y = 0.3, 0.7
    local J, g = jacobian(res, bi, 1, {x, y})
    local a, b = math.cos(x), math.sin(y) * y * y
    local v = g:eval({x, y})
    assert.equal(a, v[1]); assert.equal(b, v[2]); assert.equal(math.exp(a * b), v[3])
    assert.equal(-math.sin(x), J[1][1]); assert.equal(0, J[1][2])
    assert.near(math.cos(y) * y * y + 2 * math.sin(y) * y, J[2][2], 1e-15)
    assert.near(math.exp(a * b) * b * -math.sin(x), J[3][1], 1e-15)
  end)

  it("a passive argument takes the caller's value; without one the message names it", function()
    local k = load_text("double f(double x, int n) {\n  double y;\n  y = x * (double)n + 2.0 * 3.0;\n  return y;\n}\n")
    local res = assert(core.kernel_flatten(k, "f"))
    local bi = first_active(res)
    local g, msg = res.graph(bi, 1, {2})
    assert.is_nil(g)
    assert.matches("hand.c:3:%d+: the value of the passive expression", msg)
    local asked = {}
    g = assert(res.graph(bi, 1, {2}, function(x) asked[#asked + 1] = x return 5 end))
    assert.equal(1, #asked)
    assert.equal(16, g:eval({2})[1])
    assert.equal(5, jacobian(res, bi, 1, {2}, function() return 5 end)[1][1])
  end)
end)

-- {==== properties on random kernels ====}

--- Index of a flattening: per statement its subgraph; per subgraph its
-- statements' last block position, its reads by expression, its vertices,
-- its dependents in order.
local function index(res)
  local sub_of, blk_of, pos, subs = {}, {}, {}, {}
  for bi, b in ipairs(res.blocks) do
    for p, s in ipairs(b.block_statements) do blk_of[s], pos[s] = bi, p end
    for _, g in ipairs(b.subgraphs) do
      local G = {g = g, block = bi, reads = {}, deps = {}, last = 0}
      subs[#subs + 1] = G
      for _, s in ipairs(g.statements) do sub_of[s] = G end
      for _, r in ipairs(g.reads) do G.reads[r.expr] = r end
      for _, d in ipairs(g.dependents) do G.deps[#G.deps + 1] = d.stmt end
    end
  end
  for _, G in ipairs(subs) do
    for _, s in ipairs(G.g.statements) do G.last = math.max(G.last, pos[s]) end
  end
  return {sub_of = sub_of, blk_of = blk_of, pos = pos}
end

--- Replays a traced run under subgraph semantics; returns the violations.
-- Values are named by their producer: "stmt@block" for a write of a
-- statement in a block instance, "init" for what was there before.
local function replay(res, trace)
  local I = index(res)
  local real, sim, bad = {}, {}, {}
  local cur -- the running subgraph: {G, inst, snap, written, cellof}
  local function flush()
    if not cur then return end
    for _, d in ipairs(cur.G.deps) do
      if cur.written[d] then sim[cur.written[d]] = d .. "@" .. cur.inst end
    end
    cur = nil
  end
  local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end
  for n, t in ipairs(trace) do
    local cell = t.object .. ":" .. t.cell
    local token = (t.stmt or "param") .. "@" .. t.block .. (t.frame ~= 0 and (":" .. t.frame) or "")
    local mine = t.frame == 0 and t.stmt and I.sub_of[t.stmt]
    if cur and not (t.frame == 0 and t.stmt and t.block == cur.inst and
                    I.blk_of[t.stmt] == cur.G.block and I.pos[t.stmt] <= cur.G.last) then
      flush()
    end
    if mine and not cur then
      cur = {G = mine, inst = t.block, snap = copy(sim), written = {}, cellof = {}}
    end
    local expected
    if mine and cur and mine == cur.G then
      if t.write then
        cur.written[t.stmt] = cell
      else
        local r = cur.G.reads[t.expr]
        if r and r.def then
          expected = r.def .. "@" .. t.block
        elseif r then
          -- an independent: the cell's value when the subgraph started; the
          -- uses identified with it (Algorithm 1) must read that same cell
          -- (whichever of them runs first: a ?: evaluates one side)
          local c = cur.cellof[r.vertex]
          if c and c ~= cell then
            bad[#bad + 1] = ("event %d: identified uses read cells %s and %s"):format(n, c, cell)
          end
          cur.cellof[r.vertex] = cell
          expected = cur.snap[cell] or "init"
        else
          expected = sim[cell] or "init"
        end
      end
    elseif t.write then
      sim[cell] = token
    else
      expected = sim[cell] or "init"
    end
    if not t.write and expected ~= (real[cell] or "init") then
      bad[#bad + 1] = ("event %d (stmt %s, expr %s): the block reads %s, the subgraphs %s")
        :format(n, tostring(t.stmt), tostring(t.expr), real[cell] or "init", tostring(expected))
    end
    if t.write then real[cell] = token end
  end
  flush()
  for cell, v in pairs(real) do
    if not cell:match("^%-") and sim[cell] ~= v then
      bad[#bad + 1] = ("caller cell %s: the block leaves %s, the subgraphs %s"):format(cell, v, tostring(sim[cell]))
    end
  end
  table.sort(bad)
  return bad
end

local function count(res)
  local n = 0
  for _, b in ipairs(res.blocks) do n = n + b.n_subgraphs end
  return n
end

describe("passive values: activity decides (Hovland, Norris, Utke & Strout, sec. 4)", function()
  --- The independent vertices' and dependents' names of every subgraph.
  local function names(res)
    local out = {}
    for _, b in ipairs(active_blocks(res)) do
      for _, g in ipairs(b.subgraphs) do
        local i, d = {}, {}
        for _, v in ipairs(g.vertices) do if v.kind == "independent" then i[#i + 1] = v.name end end
        for _, x in ipairs(g.dependents) do d[#d + 1] = x.name end
        out[#out + 1] = table.concat(i, " ") .. " -> " .. table.concat(d, " ")
      end
    end
    return out
  end

  it("a local holding a constant is a constant of the graph, folded, not an independent", function()
    local k = load_text("void f(double x, double *y) { double c; c = 2.5; y[0] = c * x + 3.0; }\n")
    local res = assert(core.kernel_flatten(k, "f"))
    local bi = first_active(res)
    -- c = 2.5 is passive (no graph); c * x reads it in place: x, *, + and two edges
    assert.equal("1 | ind:x ope:((c * x) + 3) ope:(c * x) | (c * x)>((c * x) + 3)@1 x>(c * x)@2 | y[0]",
      shape(res.blocks[bi].subgraphs[1]))
    assert.same({"x"}, res.independents)
    assert.same({"x -> y[0]"}, names(res))
    -- every definition reaching c assigns 2.5: the graph holds the constant, no passive value is asked
    local G = assert(res.graph(bi, 1, {2}))
    assert.equal(8, G:eval({2})[1])
    assert.same({{2.5}}, (jacobian(res, bi, 1, {2})))
    -- the same with activity, and with the statement strategy
    assert.same({"x -> y[0]"}, names(assert(core.kernel_flatten(k, "f", {prune = true}))))
    assert.same({"x -> y[0]"}, names(assert(core.kernel_flatten(k, "f", {strategy = "statement"}))))
  end)

  it("a passive value known only at run time (a passive local in a loop) is a passive argument", function()
    local k = load_text([[
void f(double x, double *y, int n) {
  double c;
  int i;
  for (i = 0; i < n; i++) {
    c = 0.5 * (double)i;
    y[i] = c * x;
  }
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    local bi = first_active(res)
    assert.same({6}, res.blocks[bi].lines) -- c = 0.5 * i: no double read, passive
    assert.same({"x -> y[i]"}, names(res))
    assert.same({"x"}, res.independents)
    local g = res.blocks[bi].subgraphs[1]
    assert.equal(2, #g.vertices); assert.equal(1, #g.edges) -- x, c * x
    -- its value is the caller's at a point: without one the message names it
    local G, msg = res.graph(bi, 1, {3})
    assert.is_nil(G)
    assert.matches("hand.c:6:%d+: the value of the passive expression c is needed", msg)
    -- the interpreter's: c = 0.5 * 2 in the third iteration
    local call = {arrays = {{name = "Y", type = "double", values = {0, 0, 0}}},
                  args = {{double = 3}, {array = 1, offset = 0}, {int = 3}}}
    local p = assert(res.values(call, {instance = 3}))[bi][1]
    assert.same({3}, p.indep); assert.same({1.0}, p.passive); assert.same({3.0}, p.dependents)
    assert.same({3.0}, assert(res.graph(bi, 1, p.indep, p.passive)):eval())
    assert.same({{1.0}}, (jacobian(res, bi, 1, p.indep, p.passive)))
  end)

  it("with activity, a parameter that is no independent is passive; without, every outside value counts", function()
    local k = load_text("void f(double x, double p, double *y) {\n  y[0] = p * x;\n  y[1] = sin(p) * y[0];\n}\n")
    assert.same({"p x -> y[0] y[1]"}, names(assert(core.kernel_flatten(k, "f"))))
    local res = assert(core.kernel_flatten(k, "f", {prune = true, independents = {"x"}}))
    assert.same({"x -> y[0] y[1]"}, names(res)) -- p and sin(p) are constants of the graph
    assert.same({"x"}, res.independents)
    local g = active_blocks(res)[1].subgraphs[1]
    assert.equal(3, #g.vertices) -- x, p * x, sin(p) * y[0]
    assert.equal(0, res.pruned)
  end)

  it("a use that a constant or a varied definition may reach stays an independent; two constants are no constant", function()
    local k = load_text([[
void f(double x, double *y, int n) {
  double c, d;
  c = 1.0;
  if (n > 0) { c = x * x; }
  d = 2.0;
  if (n > 1) { d = 3.0; }
  y[0] = c * x;
  y[1] = d * x;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    -- c: 1.0 or x * x; d: 2.0 or 3.0, passive but not one constant: a passive argument
    assert.same({"x -> c", "c x -> y[0] y[1]"}, names(res))
    local bi = #res.blocks
    while #res.blocks[bi].lines == 0 do bi = bi - 1 end
    local g, msg = res.graph(bi, 1, {2, 3})
    assert.is_nil(g)
    assert.matches("the value of the passive expression d is needed", msg)
    assert.same({6, 6}, assert(res.graph(bi, 1, {2, 3}, {2.0})):eval())
  end)

  it("a passive definition inside the span is read in place: no cut", function()
    local k = load_text([[
void f(double x, double *a, int n) {
  double y, c;
  y = x * x;
  c = (double)n;
  a[0] = c * y;
}
]])
    -- before, c's definition was a passive statement inside the span, its read ambiguous: {3} {5}
    assert.equal("{3,5}", subgraph_lines(assert(core.kernel_flatten(k, "f"))))
  end)
end)

describe("a return is an assignment to the dependent \"return\"", function()
  it("return sin(x * y) * exp(x) / (y + x * x): one graph, its independents, the result its dependent", function()
    local k = load_text("double f(double x, double y) {\n  return sin(x * y) * exp(x) / (y + x * x);\n}\n")
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({"x", "y"}, res.independents)
    assert.same({"return"}, res.dependents)
    local b = active_blocks(res)
    assert.equal(1, #b)
    assert.same({2}, b[1].lines)
    assert.same({}, b[1].dead) -- a return's value always leaves: never dead
    local g = b[1].subgraphs[1]
    -- x, y, x * y, sin, exp, *, x * x, +, /; an edge per argument slot (x * x: two)
    assert.equal(9, #g.vertices); assert.equal(12, #g.edges)
    assert.equal(1, #g.dependents)
    local d = g.dependents[1]
    assert.same({"return", "return", true, false, false}, {d.name, d.text, d.exact, d.augmented, d.collapsed})
    assert.is_nil(d.addr)
    assert.equal(9, d.vertex)
    local x, y = 0.7, 1.3
    local bi = first_active(res)
    local v = assert(res.graph(bi, 1, {x, y})):eval()[1]
    assert.equal(math.sin(x * y) * math.exp(x) / (y + x * x), v)
    local J = jacobian(res, bi, 1, {x, y})
    local h = 1e-6
    local function f(a, c) return math.sin(a * c) * math.exp(a) / (c + a * a) end
    assert.near((f(x + h, y) - f(x - h, y)) / (2 * h), J[1][1], 1e-8)
    assert.near((f(x, y + h) - f(x, y - h)) / (2 * h), J[1][2], 1e-8)
    -- at a point the interpreter reaches, the returned value is the dependent's
    local p = assert(res.values({args = {{double = x}, {double = y}}}))[bi][1]
    assert.same({v}, p.dependents)
  end)

  it("a return of a passive value or without activity's interest in the result is not flattened", function()
    local k = load_text([[
double f(double x, double *y) {
  double c;
  c = 2.0;
  y[0] = c * x;
  return c;
}
double g(double x, double *y) {
  y[0] = x * x;
  return y[0] * x;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({"y[0]"}, res.dependents) -- return c: passive, no dependent
    res = assert(core.kernel_flatten(k, "g"))
    assert.same({"y[0]", "return"}, res.dependents)
    assert.same({"{8,9}"}, {subgraph_lines(res)}) -- the return reads y[0]'s vertex inside the graph
    res = assert(core.kernel_flatten(k, "g", {prune = true, dependents = {"y"}}))
    assert.same({"y[0]"}, res.dependents)
    assert.equal("{8}", subgraph_lines(res))
    assert.equal(1, res.pruned) -- the inactive return
  end)
end)

-- {==== an independent evaluator of subgraphs over the front end's rows ====}

local LAYOUT = core.kernel_layout()
local MATH = {
  sin = math.sin, cos = math.cos, tan = math.tan, asin = math.asin, acos = math.acos,
  atan = math.atan, atan2 = function(y, x) return math.atan(y, x) end,
  sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end,
  cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end,
  tanh = function(x) local a, b = math.exp(x), math.exp(-x) return (a - b) / (a + b) end,
  exp = math.exp, log = math.log, log10 = function(x) return math.log(x, 10) end,
  sqrt = math.sqrt, pow = function(x, y) return x ^ y end, fabs = math.abs,
  fmin = math.min, fmax = math.max, floor = function(x) return math.floor(x) + 0.0 end,
  ceil = function(x) return math.ceil(x) + 0.0 end,
}

--- The value of expression e (1-based) over the front end's rows; leaf(e)
-- gives a read's (or nil to go on by the rows), an error for any other read.
local function eval_expr(flat, e, leaf)
  local W, F = LAYOUT.width.expr, LAYOUT.expr
  local function field(x, f) return flat.expr[(x - 1) * W + F[f]] end
  local function ev(x)
    local v = leaf(x)
    if v ~= nil then return v end
    local op = LAYOUT.exprs[field(x, "OP") + 1]
    local a, b = field(x, "A") + 1, field(x, "B") + 1 -- 1-based ids, 0: none
    if op == "const_d" then return flat.dconst[field(x, "IVAL") + 1]
    elseif op == "const_i" then return field(x, "IVAL")
    elseif op == "cast" then return ev(a) + 0.0
    elseif op == "neg" then return -ev(a)
    elseif op == "add" then return ev(a) + ev(b)
    elseif op == "sub" then return ev(a) - ev(b)
    elseif op == "mul" then return ev(a) * ev(b)
    elseif op == "div" then return ev(a) / ev(b)
    elseif op == "cond" then return ev(a) ~= 0 and ev(b) or ev(field(x, "C") + 1)
    elseif op == "intrin" then
      local f = MATH[LAYOUT.intrinsics[field(x, "SYM") + 1]]
      if b > 0 then return f(ev(a), ev(b)) end
      return f(ev(a))
    end
    error("eval_rows: unexpected " .. tostring(op) .. " at expression " .. x)
  end
  return ev(e)
end

--- The constants of passive reads (expr -> value): a double read every
-- definition reaching which (its ud-chain, no entry from before the
-- function) assigns a constant expression, all of one value; the
-- flattening folds them (doc/flattening.md, "Passive values").
local function defined_constants(k, fname, flat)
  local an = assert(core.kernel_analyze(k, fname))
  local SW, S = LAYOUT.width.stmt, LAYOUT.stmt
  local out = {}
  for a, acc in ipairs(an.alias.accesses) do
    local chain = acc.kind == "use" and acc.expr and an.chains.ud[a]
    local value = chain and #chain > 0 and true
    for _, d in ipairs(chain or {}) do
      local row = (d - 1) * SW
      local ok, v = false, nil
      if d > 0 and LAYOUT.stmts[flat.stmt[row + S.KIND] + 1] == "assign" then
        ok, v = pcall(eval_expr, flat, flat.stmt[row + S.X1] + 1, function(x)
          local op = LAYOUT.exprs[flat.expr[(x - 1) * LAYOUT.width.expr + LAYOUT.expr.OP] + 1]
          if op == "var" or op == "elem" then error("a read") end
        end)
      end
      if not ok or (value ~= true and ("<d"):pack(v) ~= ("<d"):pack(value)) then value = nil break end -- bit for bit
      value = v
    end
    if value then out[acc.expr] = value end
  end
  return out
end

--- Evaluates subgraph g of a flattening from the kernel's expression rows:
-- its independents' values in `indep`, passive arguments from `passive`
-- (expr -> value), the constants of passive reads from `consts`
-- (defined_constants), other constants by the rows; returns its dependents'
-- values.
local function eval_rows(flat, g, indep, passive, consts)
  local read, defval = {}, {}
  for _, r in ipairs(g.reads) do read[r.expr] = r end
  local ivals, n = {}, 0
  for v, vert in ipairs(g.vertices) do
    if vert.kind == "independent" then n = n + 1; ivals[v] = indep[n] end
  end
  local function leaf(e)
    local r = read[e]
    if r then return r.def and defval[r.def] or ivals[r.vertex] end
    return passive[e] or consts[e]
  end
  local SW, S = LAYOUT.width.stmt, LAYOUT.stmt
  for _, s in ipairs(g.statements) do
    local row = (s - 1) * SW
    local rhs = LAYOUT.stmts[flat.stmt[row + S.KIND] + 1] == "return" and S.X0 or S.X1
    defval[s] = eval_expr(flat, flat.stmt[row + rhs] + 1, leaf)
  end
  local out = {}
  for i, d in ipairs(g.dependents) do out[i] = defval[d.stmt] end
  return out
end

local function close(a, b)
  if a ~= a or b ~= b then return a ~= a and b ~= b end
  if a == b then return true end
  return math.abs(a - b) <= 1e-9 * math.max(math.abs(a), math.abs(b)) + 1e-12
end

describe("properties on random kernels", function()
  local function run(seed, nk, nb, opts, visit)
    local r = rng.new(seed)
    local runs = 0
    for _ = 1, nk do
      local text, info = kgen.kernel(r, {stmts = 12})
      local k = load_text(text, "gen.c")
      for _, strategy in ipairs {"minimal", "statement"} do
        local o = {strategy = strategy}
        for key, v in pairs(opts or {}) do o[key] = v end
        local res = assert(core.kernel_flatten(k, info.name, o))
        local r2 = rng.new(r:int(1, 1 << 30))
        for _ = 1, nb do
          local out = k:run(info.name, kgen.call(r2, info), {trace = true})
          if out then runs = runs + 1; visit(res, out.trace, text, strategy) end
        end
      end
    end
    return runs
  end

  it("executing the subgraphs in order equals executing the blocks, for random bindings", function()
    local nbad, first = 0, nil
    local runs = run(2026, 60, 4, nil, function(res, trace, text, strategy)
      local bad = replay(res, trace)
      if #bad > 0 and not first then first = strategy .. ": " .. bad[1] .. "\n" .. text end
      nbad = nbad + #bad
    end)
    assert.is_true(runs > 200, "too few runs: " .. runs)
    assert.equal(0, nbad, first)
  end)

  it("the replay catches a wrong flattening: a merge that an override makes unsound", function()
    -- answering "no" for every may pair merges graphs the bindings break
    local nbad = 0
    run(7, 30, 4, {alias = function() return "no" end}, function(res, trace)
      nbad = nbad + #replay(res, trace)
    end)
    assert.is_true(nbad > 0)
  end)

  it("each subgraph built as a graph evaluates as its statements do (values, passives, constants)", function()
    local r = rng.new(4242)
    local nsub, first = 0, nil
    for _ = 1, 40 do
      local text, info = kgen.kernel(r, {stmts = 12})
      local flat = assert(kparse.parse(text, "gen.c"))
      local k = assert(core.kernel_load(flat))
      local consts = defined_constants(k, info.name, flat)
      for _, strategy in ipairs {"minimal", "statement"} do
        local res = assert(core.kernel_flatten(k, info.name, {strategy = strategy}))
        for bi, b in ipairs(res.blocks) do
          for si, g in ipairs(b.subgraphs) do
            local indep, passive = {}, {}
            for i = 1, #g.independents do indep[i] = r:float(0.5, 1.5) end
            local function pv(e)
              local int = LAYOUT.types[flat.expr[(e - 1) * LAYOUT.width.expr + LAYOUT.expr.TYPE] + 1] == "int"
              passive[e] = int and r:int(0, 1) or r:float(0.5, 1.5)
              return passive[e]
            end
            local G = assert(res.graph(bi, si, indep, pv))
            local got, want = G:eval(indep), eval_rows(flat, g, indep, passive, consts)
            nsub = nsub + 1
            for i = 1, #want do
              if not close(got[i], want[i]) and not first then
                first = ("%s block %d sub %d dependent %d: graph %.17g, rows %.17g\n%s"):format(
                  strategy, bi, si, i, got[i], want[i], text)
              end
            end
          end
        end
      end
    end
    assert.is_nil(first, first)
    assert.is_true(nsub > 300, "too few subgraphs: " .. nsub)
  end)

  it("minimal never makes more subgraphs than statement, nor fewer than one per nonempty block", function()
    local r = rng.new(99)
    for _ = 1, 80 do
      local text, info = kgen.kernel(r, {stmts = 14})
      local k = load_text(text, "gen.c")
      local m = assert(core.kernel_flatten(k, info.name))
      local s = assert(core.kernel_flatten(k, info.name, {strategy = "statement"}))
      assert.is_true(count(m) <= count(s), text)
      for i, b in ipairs(m.blocks) do
        assert.equal(b.statement_level_subgraphs, s.blocks[i].n_subgraphs)
        assert.is_true(b.n_subgraphs <= b.statement_level_subgraphs)
        assert.is_true(#b.lines == 0 or b.n_subgraphs >= 1)
      end
    end
  end)
end)

describe("names of independents and dependents", function()
  --- The names of a subgraph's independent vertices and of its dependents,
  -- an inexact one marked "?".
  local function names(g)
    local i, d = {}, {}
    for _, v in ipairs(g.vertices) do
      if v.kind == "independent" then i[#i + 1] = v.name .. (v.exact and "" or "?") end
    end
    for _, x in ipairs(g.dependents) do d[#d + 1] = x.name .. (x.exact and "" or "?") end
    return table.concat(i, " ") .. " -> " .. table.concat(d, " ")
  end
  local function all_names(res)
    local out = {}
    for _, b in ipairs(active_blocks(res)) do
      for _, g in ipairs(b.subgraphs) do out[#out + 1] = names(g) end
    end
    return out
  end

  it("Utke Fig. 2: *z is z[0], after z += k it is z[k]; the function's lists", function()
    local res = assert(core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2"))
    assert.same({"z[0] x -> z[0]", "z[k] x -> return"}, all_names(res))
    assert.same({"z[0]", "x", "z[k]"}, res.independents)
    assert.same({"z[0]", "return"}, res.dependents) -- y is a local, read by the return inside the graph
  end)

  it("offsets over int parameters' entry values; p = a + k; *(y + 1); locals and globals", function()
    local k = load_text([[
static const double w[3] = {1.0, 2.0, 3.0};
static const double g = 2.0;
void h(double *a, double *y, double x, int k, int n) {
  double *p;
  double t[3], u[2][3];
  int i;
  p = a + k;
  t[2] = *p * w[1] * g;
  u[1][2] = t[2] * p[2 * n - 1];
  i = (int)u[1][2];
  *(y + 1) = t[2] * x + u[1][2];
  y[0] = a[n - 1] * x;
  y[n + 1 - k] = y[0] * (double)i;
}
]])
    local res = assert(core.kernel_flatten(k, "h"))
    -- a[n - 1] may be the cell y[1] just written (a and y may alias): a cut
    assert.same({"a[k] w[1] g a[k+2*n-1] -> t[2] u[1][2]",
                 "t[2] x u[1][2] -> y[1]", "a[n-1] x -> y[0] y[-k+n+1]"}, all_names(res))
    -- t and u are locals: read inside, never the function's; w, g: globals read
    assert.same({"a[k]", "w[1]", "g", "a[k+2*n-1]", "x", "a[n-1]"}, res.independents)
    -- y[0] is read by the last statement inside the graph and still reaches the exit
    assert.same({"y[1]", "y[0]", "y[-k+n+1]"}, res.dependents)
    assert.is_true(res.blocks[first_active(res)].subgraphs[3].dependents[1].augmented)
  end)

  it("an int parameter assigned before the access: the offset over its entry value", function()
    local k = load_text([[
void f(double *a, double x, int k, int n) {
  int m;
  k = k + 1;
  m = 2 * n - k;
  a[k] = x * a[m];
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({"x a[-k+2*n-1] -> a[k+1]"}, all_names(res)) -- m = 2n - (k + 1)
  end)

  it("a loop counter's subscript is the source's text, exact = false", function()
    local k = load_text([[
void f(double *z, double x, int n) {
  int i;
  for (i = 0; i < n; i++) {
    z[i] = z[i] * x;
  }
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({"z[i]? x -> z[i]?"}, all_names(res))
    assert.same({"z[i]", "x"}, res.independents)
    assert.same({"z[i]"}, res.dependents)
  end)

  it("a pointer that may be one of two cells is named by the source; names are unique", function()
    local k = load_text([[
double f(double *a, double *b, double x, int c) {
  double *p;
  double s;
  p = c ? a : b;
  s = p[0] * x;
  s = s * x + p[0];
  a[0] = s * a[0];
  return s;
}
]])
    local res = assert(core.kernel_flatten(k, "f", {assume = {"a!=b"}}))
    -- two addresses: Algorithm 1 identifies only one exact cell, so two vertices
    assert.same({"p[0]? x p[0]? a[0] -> a[0] return"}, all_names(res))
    assert.same({"p[0]", "x", "a[0]"}, res.independents)
    assert.same({"a[0]", "return"}, res.dependents)
  end)

  it("an array of one cell keeps its subscript", function()
    local k = load_text([[
double f(double x) {
  double t[1], s;
  int i;
  t[0] = x * x;
  i = (int)t[0];
  s = t[0] * x + (double)i;
  return s;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({"x -> t[0]", "t[0] x -> return"}, all_names(res))
    assert.same({"x"}, res.independents)
    assert.same({"return"}, res.dependents)
  end)

  it("a double return is a dependent only when it reads an active value", function()
    local k = load_text([[
double f(double x, int n) {
  return 2.0;
}
double g(double x, double *y) {
  *y = x * x;
  return x;
}
]])
    local res = assert(core.kernel_flatten(k, "f"))
    assert.same({}, res.independents)
    assert.same({}, res.dependents)
    res = assert(core.kernel_flatten(k, "g"))
    assert.same({"x"}, res.independents)
    assert.same({"y[0]", "return"}, res.dependents)
  end)
end)

describe("split strategies written in Lua (opts.split)", function()
  --- Every subgraph of a flattening as text: lines and shape, block by block.
  local function layout(res)
    local out = {}
    for bi, b in ipairs(res.blocks) do
      for _, g in ipairs(b.subgraphs) do out[#out + 1] = bi .. ": " .. shape(g) end
    end
    return table.concat(out, "\n")
  end
  local function like_minimal(info) return not info.legal end
  local function always() return true end

  it("Utke Fig. 2: one question, for a2, with its run, uses, chains and the reason", function()
    local k = load_file(K .. "utke-fig2.c")
    local asked = {}
    local res = assert(core.kernel_flatten(k, "fig2", {split = function(info)
      asked[#asked + 1] = info
      return not info.legal
    end}))
    assert.equal("lua", res.strategy)
    assert.equal("{12} {14,15}", subgraph_lines(res))
    assert.equal(2, #asked) -- not for the block's first assignment; a2, then the return
    assert.same({15, "return y", true}, {asked[2].line, asked[2].text, asked[2].legal})
    local q = asked[1]
    assert.equal(first_active(res), q.block)
    assert.same({14, 3, 2, "y = z[0] / x"}, {q.line, q.col, q.index, q.text})
    assert.same({statements = {res.blocks[q.block].subgraphs[1].statements[1]}, lines = {12}}, q.run)
    assert.equal(res.blocks[q.block].subgraphs[2].statements[1], q.stmt)
    assert.is_false(q.legal)
    assert.is_false(q.intrinsic)
    assert.equal("the use of z[0] at 14:7 may read the definition of line 12 (may-alias)", q.reason)
    assert.same({{text = "z[0]", line = 14, col = 7, chain = {0, 12}},
                 {text = "x", line = 14, col = 12, chain = {0}}}, q.uses)
    -- an override saying "no" makes the join legal: the same script joins
    local one = assert(core.kernel_flatten(k, "fig2", {alias = function() return "no" end, split = like_minimal}))
    assert.equal("{12,14,15}", subgraph_lines(one))
  end)

  it("a join that would change the results is refused with the reason", function()
    local k = load_file(K .. "utke-fig2.c")
    local res, msg = core.kernel_flatten(k, "fig2", {split = function() return false end})
    assert.is_nil(res)
    assert.equal("examples/kernels/utke-fig2.c:14:3: the split strategy joins line 14 to the subgraph " ..
      "of lines 12-12, which would change the results: the use of z[0] at 14:7 may read the " ..
      "definition of line 12 (may-alias)", msg)
    -- Hovland et al. Fig. 1 aliased: *a in statement 3 may be statement 1's or 2's value
    res, msg = core.kernel_flatten(load_file(K .. "hovland-fig1-aliased.c"), "fig1", {split = function() end})
    assert.is_nil(res)
    assert.matches("hovland%-fig1%-aliased.c:15:%d+: the split strategy joins line 15 to the subgraph of " ..
      "lines 13%-14, which would change the results: the use of a%[0%] at 15:%d+ may read the definition " ..
      "of line 1[34] %(one of several definitions in the subgraph%)", msg)
  end)

  it("a passive statement inside the run and a read for an address name themselves", function()
    local k = load_text([[
double f(double x, double *a, int n) {
  double y, w;
  y = x * x;
  a[n] = 1.0;
  w = a[0] * y;
  a[(int)w] = w * x;
  return w;
}
]])
    local seen = {}
    local res = assert(core.kernel_flatten(k, "f", {split = function(info)
      seen[#seen + 1] = info.line .. ": " .. tostring(info.reason)
      return not info.legal
    end}))
    assert.equal(subgraph_lines(assert(core.kernel_flatten(k, "f"))), subgraph_lines(res))
    assert.same({"5: the use of a[0] at 5:8 may read the definition of line 4, a passive statement inside the subgraph",
                 "6: the use of w at 6:10 is not an argument of the graph (an address or a condition) " ..
                 "and reads the definition of line 5",
                 "7: nil"}, seen) -- the return joins: legal
  end)

  it("not asked after a passive statement ended the run", function()
    local k = load_text([[
double f(double x, double *a) {
  double y;
  int i;
  y = x * x;
  i = (int)y;
  a[0] = y * x;
  return a[0] + (double)i;
}
]])
    local asked = {}
    local res = assert(core.kernel_flatten(k, "f", {split = function(info) asked[#asked + 1] = info.line end}))
    assert.same({7}, asked) -- not for line 6, the first after i = (int)y ended the run; for the return
    assert.equal("{4} {6,7}", subgraph_lines(res))
  end)

  it("an error in the script or a bad answer: nil and the message", function()
    local k = load_file(K .. "utke-fig2.c")
    local res, msg = core.kernel_flatten(k, "fig2", {split = function() error("no idea") end})
    assert.is_nil(res)
    assert.matches("no idea$", msg)
    res, msg = core.kernel_flatten(k, "fig2", {split = function() error({}) end})
    assert.is_nil(res)
    assert.matches("^table", msg)
    res, msg = core.kernel_flatten(k, "fig2", {split = function() return "yes" end})
    assert.is_nil(res)
    assert.equal("opts.split: returned string for line 14; expected true (split), false or nil (join)", msg)
    res, msg = core.kernel_flatten(k, "fig2", {split = function() k:free() return true end})
    assert.is_nil(res)
    assert.matches("Kernel was freed", msg)
    assert.error_matches(function() core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2", {split = 3}) end,
      "a function as opts.split")
    assert.error_matches(function() core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2", {split = "best"}) end,
      "opts.split: 'best' is not a split strategy")
    -- a built-in strategy's name works as opts.strategy does
    assert.equal("statement", assert(core.kernel_flatten(load_file(K .. "utke-fig2.c"), "fig2", {split = "statement"})).strategy)
  end)

  it("splitting at intrinsics: the runs start at each statement calling one", function()
    local k = load_text([[
void f(double x, double *y) {
  double a, b, c;
  a = x * x;
  b = sin(a) + x;
  c = b * a;
  y[0] = exp(c) * b;
  y[1] = c * a;
}
]])
    local flags = {}
    local res = assert(core.kernel_flatten(k, "f", {split = function(info)
      flags[#flags + 1] = info.intrinsic
      return info.intrinsic
    end}))
    assert.same({true, false, true, false}, flags)
    assert.equal("{3} {4,5} {6,7}", subgraph_lines(res))
    assert.equal("{3,4,5,6,7}", subgraph_lines(assert(core.kernel_flatten(k, "f"))))
  end)

  it("on the papers' kernels and random ones: split when illegal is minimal, always is statement", function()
    local kernels = {}
    for _, f in ipairs {"utke-fig1.c", "utke-fig2.c", "utke-fig5.c", "hovland-fig1-aliased.c",
                        "hovland-fig1-locals.c", "hovland-fig1-restrict.c"} do
      kernels[#kernels + 1] = {load_file(K .. f), 1}
    end
    local r = rng.new(515)
    for _ = 1, 60 do
      local text, info = kgen.kernel(r, {stmts = 14})
      kernels[#kernels + 1] = {load_text(text, "gen.c"), info.name}
    end
    for _, kf in ipairs(kernels) do
      local k, f = kf[1], kf[2]
      local m = assert(core.kernel_flatten(k, f))
      local s = assert(core.kernel_flatten(k, f, {strategy = "statement"}))
      assert.equal(layout(m), layout(assert(core.kernel_flatten(k, f, {split = like_minimal}))))
      assert.equal(layout(s), layout(assert(core.kernel_flatten(k, f, {split = always}))))
    end
  end)

  it("random legal splits of random kernels pass the replay for random bindings", function()
    local r = rng.new(1515)
    local runs, nbad, first, splits = 0, 0, nil, 0
    for _ = 1, 60 do
      local text, info = kgen.kernel(r, {stmts = 12})
      local k = load_text(text, "gen.c")
      local res = assert(core.kernel_flatten(k, info.name, {split = function(q)
        local cut = not q.legal or r:int(0, 2) == 0
        if cut and q.legal then splits = splits + 1 end
        return cut
      end}))
      local r2 = rng.new(r:int(1, 1 << 30))
      for _ = 1, 4 do
        local out = k:run(info.name, kgen.call(r2, info), {trace = true})
        if out then
          runs = runs + 1
          local bad = replay(res, out.trace)
          if #bad > 0 and not first then first = bad[1] .. "\n" .. text end
          nbad = nbad + #bad
        end
      end
    end
    assert.is_true(runs > 150, "too few runs: " .. runs)
    assert.is_true(splits > 20, "too few optional splits: " .. splits)
    assert.equal(0, nbad, first)
  end)
end)

describe("passive writes inside a run (the counters of the subgraph's definitions)", function()
  --- A random straight-line block: active assignments and constant writes
  -- through two pointers that may alias, at constant offsets, k and k + 1,
  -- through p (a[0] or a[1]: a set of two addresses), into a local array;
  -- the scalar s and x in between.
  local CELLS = {"a[0]", "a[1]", "a[2]", "a[k]", "a[k + 1]", "b[0]", "b[1]", "b[k]", "t[0]", "t[1]", "s", "p[0]"}
  local function passive_kernel(r, n)
    local lines = {"void pk(double *a, double *b, double x, int k) {", "  double s, t[2];", "  double *p;",
                   "  p = k > 0 ? a + 1 : a;", "  s = x;", "  t[0] = x;", "  t[1] = x * x;"}
    local function cell() return CELLS[r:int(1, #CELLS)] end
    for _ = 1, n do
      if r:int(0, 2) == 0 then
        lines[#lines + 1] = ("  %s = %d.0;"):format(cell(), r:int(1, 9))
      else
        lines[#lines + 1] = ("  %s = %s * %s + x;"):format(cell(), cell(), cell())
      end
    end
    lines[#lines + 1] = "}"
    return table.concat(lines, "\n") .. "\n"
  end
  local function binding(r)
    local A = {}
    for i = 1, 8 do A[i] = r:float(0.5, 1.5) end
    local B = {}
    for i = 1, 4 do B[i] = r:float(0.5, 1.5) end
    local shared = r:int(0, 1) == 0 -- b inside a's array, overlapping or not
    return {arrays = {{name = "A", type = "double", values = A}, {name = "B", type = "double", values = B}},
            args = {{array = 1, offset = r:int(0, 3)}, {array = shared and 1 or 2, offset = shared and r:int(0, 3) or 0},
                    {double = r:float(0.5, 1.5)}, {int = r:int(0, 2)}}}
  end

  it("a write ends the run when it may share a cell with one of its definitions, and only then", function()
    local k = load_text([[
void f(double *a, double *b, double x, int k) {
  double *p;
  p = k > 0 ? a + 1 : a;
  a[2] = x * x;
  p[0] = x * a[2];
  a[1] = 5.0;
  a[k] = x * x;
  a[k + 1] = 1.0;
  a[k + 2] = x * x * x;
  a[0] = 2.0;
  b[0] = x * x;
  a[3] = 3.0;
  b[1] = x * x;
}
]])
    -- 6: a[1] is one of p[0]'s cells (p[0] is not killed: it may be a[0]);
    -- 8: a[k + 1] is never a[k] nor a[k + 2]; 10: a[0] may be a[k];
    -- 12: b may overlap a
    local res = assert(core.kernel_flatten(k, "f"))
    assert.equal("{4,5} {7,9} {11} {13}", subgraph_lines(res))
    for _, call in ipairs {
      {arrays = {{name = "A", type = "double", values = {1, 2, 3, 4, 5, 6}}},
       args = {{array = 1, offset = 0}, {array = 1, offset = 2}, {double = 0.5}, {int = 1}}},
      {arrays = {{name = "A", type = "double", values = {1, 2, 3, 4, 5, 6}}},
       args = {{array = 1, offset = 0}, {array = 1, offset = 0}, {double = 0.5}, {int = 0}}}} do
      local out = assert(k:run("f", call, {trace = true}))
      assert.same({}, replay(res, out.trace))
    end
  end)

  it("executing the subgraphs in order equals the block, for both strategies and random splits", function()
    local r = rng.new(31337)
    local runs, nbad, first, nsub, nstmt = 0, 0, nil, 0, 0
    for _ = 1, 80 do
      local text = passive_kernel(r, 16)
      local k = load_text(text, "pk.c")
      for _, opts in ipairs {{}, {strategy = "statement"}, {assume = {"a!=b"}},
                             {split = function(q) return not q.legal or r:int(0, 3) == 0 end}} do
        local res = assert(core.kernel_flatten(k, "pk", opts))
        nsub, nstmt = nsub + count(res), nstmt + #res.blocks[first_active(res)].lines
        for _ = 1, 3 do
          local call = binding(r)
          if opts.assume and call.args[2].array == 1 then call.args[2] = {array = 2, offset = 0} end
          local out = assert(k:run("pk", call, {trace = true}))
          runs = runs + 1
          local bad = replay(res, out.trace)
          if #bad > 0 and not first then first = bad[1] .. "\n" .. text end
          nbad = nbad + #bad
        end
      end
    end
    assert.equal(0, nbad, first)
    assert.is_true(nsub < nstmt, "no run grew past a statement") -- the passive writes were asked about
    assert.equal(960, runs)
  end)
end)
