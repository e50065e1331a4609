-- spec/30-loops_spec.lua: the data-dependence graph and the loops' verdicts
-- (core.kernel_loops, cgwb.loops, `cgwb loops`; doc/adjoint-loops.md) on the
-- situations of Hascoet, Fidanova & Held, "Adjoining Independent
-- Computations" (Figs. 3-5, sec. 2 and 3) as example kernels: classes,
-- verdicts and reasons, terminal loops, snapshots; the edges of a small
-- graph checked by hand; DOT and the CLI.  Then the analysis' independent
-- proof: each kernel run in the interpreter with its access trace, every
-- cell touched recorded with its iteration; an accepted loop shows no cell
-- written in one iteration and touched in another unless the class exempts
-- it (increments, reductions, private values written before read), and the
-- refused carried loops do show such a cell.
local H = require "spec.helper"
local json = require "cgwb.json"
local cgwb = require "cgwb"
local loops = require "cgwb.loops"

local K = "examples/kernels/"

local function load_file(path) return assert(cgwb.read_kernel(path)) end
local function load_text(text)
  local path = H.tmp(".c")
  H.write(path, text)
  return load_file(path)
end

local function analyse(path, fname, opts)
  local k = load_file(K .. path)
  return assert(loops.analyse(k, fname, opts)), k
end

-- A loop's access table as "name=class ..." in its (name) order.
local function classes(l)
  local t = {}
  for i, a in ipairs(l.access) do t[i] = a.name .. "=" .. a.class end
  return table.concat(t, " ")
end
local function snap(l)
  local t = {}
  for i, s in ipairs(l.snapshot) do t[i] = s.name end
  return table.concat(t, " ")
end

describe("core.kernel_loops on the paper's loops", function()
  it("a terminal parallel loop (Figs. 3 and 4): own-index write, private temporary", function()
    local info = analyse("hfh-terminal.c", "terminal")
    local l = info.loops[1]
    assert.equal(1, #info.loops)
    assert.same({ 11, "i", "accept", true, true, false, false, 1 },
      { l.line, l.index, l.verdict, l.independent, l.terminal, l.dry_run, l.parent, l.depth })
    assert.equal("no loop-carried dependence", l.reason)
    assert.equal("c=read-only n=read-only t=private x=read-only y=own-index write", classes(l))
    assert.equal("", snap(l))
    assert.same({}, l.carried)
    assert.same({ "i", "t", "y" }, l.writes)
  end)

  it("an additive reduction: accepted, read after the loop so dry-run, s in the snapshot", function()
    local l = analyse("hfh-reduction.c", "reduction").loops[1]
    assert.equal("accept", l.verdict)
    assert.equal("n=read-only s=reduction x=read-only", classes(l))
    assert.is_true(l.access[2].scalar)
    assert.same({ false, true }, { l.terminal, l.dry_run })
    assert.equal("i s", snap(l))
  end)

  it("dry-running (Fig. 5): an in-place own-index update, then a terminal increment loop", function()
    local info = analyse("hfh-dryrun.c", "dryrun")
    local a, b = info.loops[1], info.loops[2]
    assert.equal("e=private n=read-only u=own-index write w=read-only", classes(a))
    assert.same({ "accept", false, true }, { a.verdict, a.terminal, a.dry_run })
    assert.equal("e i u", snap(a))
    assert.equal("f=increment n=read-only u=read-only", classes(b))
    assert.same({ "accept", true, false }, { b.verdict, b.terminal, b.dry_run })
    assert.equal("", snap(b))
  end)

  it("refuses a min/max scatter and a product reduction, naming them", function()
    local l = analyse("hfh-minmax.c", "minmax").loops[1]
    assert.same({ "refuse", false }, { l.verdict, l.independent })
    assert.equal("min/max scatter into u at 8:6 is not an increment", l.reason)
    assert.equal("map=read-only n=read-only u=minmax x=read-only", classes(l))
    l = analyse("hfh-product.c", "product").loops[1]
    assert.equal("refuse", l.verdict)
    assert.equal("product reduction into p at 7:5", l.reason)
    assert.equal("n=read-only p=other x=read-only", classes(l))
    assert.same({}, l.snapshot)
  end)

  it("refuses a planted carried dependence, naming the access and the writing line", function()
    local info = analyse("hfh-carried.c", "carried")
    local l = info.loops[1]
    assert.equal("refuse", l.verdict)
    assert.equal("y[i - 1] at 6:13 is read at another iteration's index than line 6 writes it", l.reason)
    assert.equal("n=read-only x=read-only y=other", classes(l))
    assert.is_true(#l.carried > 0)
    for _, e in ipairs(l.carried) do
      local ed = info.ddg.edges[e]
      assert.equal("y", ed.var)
      assert.equal(2, ed.carried) -- the loop's node
    end
  end)

  it("pointers that may overlap are refused unless restrict or an assumption says otherwise", function()
    local l = analyse("hfh-overlap.c", "overlap").loops[1]
    assert.same({ "refuse", false, "a and b may overlap" }, { l.verdict, l.independent, l.reason })
    l = analyse("hfh-overlap.c", "overlap", { assume = { "a!=b" } }).loops[1]
    assert.same({ "accept", true, true }, { l.verdict, l.independent, l.terminal })
    assert.equal("a=read-only b=own-index write n=read-only", classes(l))
  end)

  it("an assembly loop through an index map: increments, private temporaries, the map read-only", function()
    local info = analyse("hfh-assembly.c", "assembly")
    local t, k = info.loops[1], info.loops[2]
    assert.equal("area=read-only k=private ntri=read-only q=read-only res=increment tri=read-only w=private",
      classes(t))
    assert.same({ "accept", true, 1 }, { t.verdict, t.terminal, t.depth })
    assert.same({ "accept", false, true, 1, 2 }, { k.verdict, k.terminal, k.dry_run, k.parent, k.depth })
    -- increments of res create no edge between each other
    for _, e in ipairs(info.ddg.edges) do
      assert.is_false(e.var == "res" and e.from == e.to)
    end
  end)

  it("#pragma cgwb independent is checked: confirmed, then refused with the reason", function()
    local info = analyse("hfh-pragma.c", "pragma")
    local a, b = info.loops[1], info.loops[2]
    assert.same({ true, "confirmed", "accept" }, { a.pragma, a.pragma_status, a.verdict })
    assert.same({ true, "refused", "refuse" }, { b.pragma, b.pragma_status, b.verdict })
    assert.equal("v[i + 1] at 13:20 is read at another iteration's index than line 13 writes it", b.reason)
    -- a is not terminal: the second loop reads v
    assert.same({ false, true }, { a.terminal, a.dry_run })
    local c = analyse("hfh-terminal.c", "terminal").loops[1]
    assert.same({ false, false }, { c.pragma, c.pragma_status })
  end)
end)

describe("the dependence graph", function()
  it("has the edges of a small case as counted by hand", function()
    local k = load_text([[
void f(int n, const double *restrict x, double *restrict y) {
  int i;
  double s;
  s = 0.0;
  for (i = 0; i < n; i++) {
    s += x[i];
    s -= y[i];
  }
  y[0] = s;
}]])
    local info = assert(loops.analyse(k, "f"))
    local nodes = {}
    for i, n in ipairs(info.ddg.nodes) do nodes[i] = n.line .. ":" .. n.kind end
    assert.same({ "4:assign", "5:assign", "5:loop", "6:assign", "7:assign", "5:assign", "9:assign" }, nodes)
    -- the edges on s and y (the counter's aside): s = 0 flows into both
    -- increments (no edge between the increments: they commute) and y[0] = s;
    -- the increments flow into y[0] = s; y[i] is read at line 7 before
    -- y[0] is written at line 9 (anti)
    local got = {}
    for _, e in ipairs(info.ddg.edges) do
      if e.var ~= "i" and e.var ~= "n" then
        got[#got + 1] = ("%s %s %d->%d%s"):format(e.var, e.kind, info.ddg.nodes[e.from].line,
          info.ddg.nodes[e.to].line, e.carried and " carried" or "")
      end
    end
    assert.same({ "s flow 4->6", "s output 4->6", "s flow 4->7", "s output 4->7", "s flow 4->9",
                  "s flow 6->9", "s flow 7->9", "y anti 7->9" }, got)
    local l = info.loops[1]
    assert.equal("n=read-only s=reduction x=read-only y=read-only", classes(l))
    assert.equal("accept", l.verdict)
  end)

  it("draws DOT: a node per statement, carried edges dashed with the loop's line", function()
    local info = analyse("hfh-carried.c", "carried")
    local dot = loops.dot(info)
    assert.truthy(dot:match('^digraph "ddg carried" {\n'))
    local n = 0
    for _ in dot:gmatch("\n  n%d+ %[label=") do n = n + 1 end
    assert.equal(#info.ddg.nodes, n)
    assert.truthy(dot:find('label="y flow, carried 5", style=dashed', 1, true))
    assert.truthy(dot:find('[label="6: y[i] = y[(i - 1)] + x[i]"]', 1, true))
    assert.equal(loops.dot(info), loops.dot(analyse("hfh-carried.c", "carried")))
  end)
end)

describe("cgwb loops", function()
  it("prints the loops' table and --json, exit 0", function()
    local out, err, code = H.cgwb("loops " .. K .. "hfh-dryrun.c")
    assert.equal(0, code, err)
    assert.truthy(out:find("loop at 12:3 (depth 1, counter i): accept", 1, true))
    assert.truthy(out:find("  snapshot:    e, i, u", 1, true))
    out, err, code = H.cgwb("loops " .. K .. "hfh-overlap.c --assume 'a!=b' --json")
    assert.equal(0, code, err)
    local t = json.decode(out, "stdout")
    assert.equal("overlap", t["function"])
    assert.same({ a = "read-only", b = "own-index write", n = "read-only" }, t.loops[1].access)
    assert.equal("accept", t.loops[1].verdict)
  end)

  it("writes DOT to a file; --help; exit 2 on bad input with the place", function()
    local dotf = H.tmp(".dot")
    local _, err, code = H.cgwb("loops " .. K .. "hfh-carried.c --dot " .. dotf)
    assert.equal(0, code, err)
    assert.truthy(H.read(dotf):match("^digraph"))
    local out
    out, _, code = H.cgwb("loops --help")
    assert.equal(0, code)
    assert.truthy(out:find("--dot", 1, true))
    _, err, code = H.cgwb("loops " .. K .. "hfh-carried.c --function nope")
    assert.equal(2, code)
    assert.truthy(err:find("no function 'nope'", 1, true))
    local bad = H.tmp(".c")
    H.write(bad, "void f(int n, double *y) {\n  int i;\n  for (i = 0; i < n; i++) y[i] = q;\n}\n")
    _, err, code = H.cgwb("loops " .. bad)
    assert.equal(2, code)
    assert.truthy(err:find(":3:%d+:"), err)
    _, err, code = H.cgwb("loops " .. K .. "hfh-overlap.c --assume 'a!=zz'")
    assert.equal(2, code)
    _, err, code = H.cgwb("loops /nonexistent/x.c")
    assert.equal(2, code)
  end)

  it("returns nil and a message from Lua for an unknown function", function()
    local k = load_file(K .. "hfh-carried.c")
    local info, err = loops.analyse(k, "nope")
    assert.is_nil(info)
    assert.truthy(err:find("nope", 1, true))
  end)
end)

-- {==== the independent proof: the interpreter's access trace ====}

-- Runs function fname of kernel k on call and returns, per loop at depth 1,
-- the cells touched by its iterations: cells[key] = {writes = {iter=true},
-- touches = {iter=true}, flow = bool (a read in one iteration of a value
-- another wrote)}, keys "name[cell]"; incr[key]: every access of it in the
-- loop is part of an increment statement.
local function trace_loops(k, info, fname, call)
  local id = k:function_id(fname)
  local out = assert(k:run(fname, call, { trace = true }))
  local symname, params = {}, {}
  for _, s in ipairs(k:symbols(id)) do
    symname[s.id] = s.name
    if s.kind == "param" then params[#params + 1] = s.name end
  end
  local arrname = {}
  for p, a in ipairs(call.args) do if a.array then arrname[a.array] = params[p] end end
  local function name_of(acc)
    if acc.object > 0 then return arrname[acc.object] end
    return symname[-acc.object]
  end
  -- each statement's parent (statements come depth first)
  local stmts, parent, stack = k:statements(id), {}, {}
  for _, s in ipairs(stmts) do
    stack[s.depth + 1] = s
    parent[s.id] = s.depth > 0 and stack[s.depth] or nil
  end
  local res = {}
  for li, l in ipairs(info.loops) do
    if l.depth == 1 then
      local inside, step = {}, nil
      for _, s in ipairs(stmts) do
        local p = parent[s.id]
        while p and p.id ~= l.stmt do p = parent[p.id] end
        if p then inside[s.id] = true end
        if s.part == "step" and parent[s.id] and parent[s.id].id == l.stmt then step = s.id end
      end
      local iter, cells, last = 0, {}, {}
      for _, acc in ipairs(out.trace) do
        if acc.stmt == step and acc.write then iter = iter + 1
        elseif acc.stmt and inside[acc.stmt] and acc.stmt ~= step then
          local nm = name_of(acc)
          if nm and nm ~= l.index then
            local key = ("%s[%d]"):format(nm, acc.cell)
            local c = cells[key] or { writes = {}, touches = {}, flow = false, name = nm }
            cells[key] = c
            if acc.write then c.writes[iter] = true; last[key] = iter
            elseif last[key] ~= nil and last[key] ~= iter then c.flow = true end
            c.touches[iter] = true
          end
        end
      end
      res[li] = cells
    end
  end
  return res
end

-- Whether a cell is written in one iteration and touched in another.
local function crosses(c)
  for w in pairs(c.writes) do
    for t in pairs(c.touches) do if t ~= w then return true end end
  end
  return false
end

local function darray(n, f)
  local t = {}
  for i = 1, n do t[i] = f(i) end
  return t
end

describe("the analysis against the interpreter's access trace", function()
  local n = 7
  local x = darray(n, function(i) return 0.3 + 0.1 * i end)
  local cases = {
    { "hfh-terminal.c", "terminal", { arrays = { { name = "x", type = "double", values = x },
        { name = "y", type = "double", values = darray(n, function() return 0 end) } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { double = 1.5 } } } },
    { "hfh-reduction.c", "reduction", { arrays = { { name = "x", type = "double", values = x },
        { name = "f", type = "double", values = { 0 } } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } } },
    { "hfh-dryrun.c", "dryrun", { arrays = { { name = "u", type = "double", values = x },
        { name = "w", type = "double", values = x }, { name = "f", type = "double", values = { 0 } } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } } },
    { "hfh-assembly.c", "assembly", { arrays = {
        { name = "tri", type = "int", values = { 0, 1, 2, 2, 1, 3, 3, 4, 2, 0, 4, 1 } },
        { name = "q", type = "double", values = x }, { name = "area", type = "double", values = x },
        { name = "res", type = "double", values = darray(n, function() return 0 end) } },
      args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
               { array = 4, offset = 0 } } } },
    { "hfh-pragma.c", "pragma", { arrays = { { name = "x", type = "double", values = x },
        { name = "v", type = "double", values = darray(n, function() return 0 end) } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } } },
    { "hfh-carried.c", "carried", { arrays = { { name = "x", type = "double", values = x },
        { name = "y", type = "double", values = x } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } } },
    { "hfh-minmax.c", "minmax", { arrays = { { name = "map", type = "int", values = { 0, 1, 0, 2, 1, 0, 2 } },
        { name = "x", type = "double", values = x }, { name = "u", type = "double", values = x } },
      args = { { int = n }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 } } } },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": accepted loops touch no cell across iterations but as their classes allow", function()
      local k = assert(cgwb.read_kernel(K .. c[1]))
      local info = assert(loops.analyse(k, c[2]))
      local per = trace_loops(k, info, c[2], c[3])
      local checked = 0
      for li, cells in pairs(per) do
        local l = info.loops[li]
        local class = {}
        for _, a in ipairs(l.access) do class[a.name] = a.class end
        local keys = {}
        for key in pairs(cells) do keys[#keys + 1] = key end
        table.sort(keys)
        local crossed = {}
        for _, key in ipairs(keys) do
          local cell = cells[key]
          local cl = class[cell.name]
          if crosses(cell) then crossed[#crossed + 1] = key end
          if l.verdict == "accept" then
            checked = checked + 1
            if cl == "private" then
              assert.is_false(cell.flow, key .. " private but read across iterations")
            elseif cl ~= "increment" and cl ~= "reduction" then
              assert.is_false(crosses(cell), ("%s (%s) crosses iterations of the loop at line %d"):format(key, tostring(cl), l.line))
            end
          end
        end
        if l.verdict == "refuse" then -- the refused loops here do carry a dependence
          assert.is_true(#crossed > 0, "loop at line " .. l.line .. " refused but no cell crosses")
        end
      end
      assert.is_true(checked > 0 or c[2] == "carried" or c[2] == "minmax")
    end)
  end
end)

-- }====
