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

  it("an additive reduction: accepted, read after the loop so dry-run; s not in the snapshot (an increment needs no value)", function()
    local l = analyse("hfh-reduction.c", "reduction").loops[1]
    assert.equal("accept", l.verdict)
    assert.equal("n=read-only s=reduction x=read-only", classes(l))
    assert.is_true(l.access[2].scalar)
    assert.same({ false, true }, { l.terminal, l.dry_run })
    assert.equal("i", snap(l))
  end)

  it("dry-running (Fig. 5): an in-place own-index update, then a terminal increment loop", function()
    local info = analyse("hfh-dryrun.c", "dryrun")
    local a, b = info.loops[1], info.loops[2]
    assert.equal("e=private n=read-only u=own-index write w=read-only", classes(a))
    assert.same({ "accept", false, true }, { a.verdict, a.terminal, a.dry_run })
    assert.equal("i u", snap(a)) -- e is private: each iteration writes it first
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
    local two = assert(loops.analyse(load_text([[
void f(int n, double *restrict y) {
  int i;
#pragma cgwb other
#pragma cgwb independent
  for (i = 0; i < n; i++) y[i] = 1.0;
#pragma cgwb independently
  for (i = 0; i < n; i++) y[i] = 2.0;
}]]), "f"))
    assert.same({ true, "confirmed" }, { two.loops[1].pragma, two.loops[1].pragma_status })
    assert.same({ false, false }, { two.loops[2].pragma, two.loops[2].pragma_status })
  end)
end)

describe("calls, early exits and loops without a counter", function()
  local k = load_text([[
static double sq(double a) { return a * a; }
static void put(double *o, double v) { o[0] = v; }
static double rd(double *o) { return o[0]; }
void calls(int n, const double *restrict x, double *restrict y, double *restrict z) {
  int i;
  for (i = 0; i < n; i++) {
    y[i] = sq(x[i]);
  }
  for (i = 0; i < n; i++) {
    put(z, x[i]);
  }
  for (i = 0; i < n; i++) {
    y[i] = rd(z + i);
  }
}
void exits(int n, const double *restrict x, double *restrict y) {
  int i;
  for (i = 0; i < n; i++) {
    if (x[i] < 0.0) break;
    y[i] = x[i];
  }
  i = 0;
  while (i < n) {
    y[i] = 2.0 * x[i];
    i++;
  }
}]])

  it("a by-value call is an expression; a callee writing through a pointer refuses; one only reading it does not", function()
    local info = assert(loops.analyse(k, "calls"))
    local a, b, c = info.loops[1], info.loops[2], info.loops[3]
    assert.equal("n=read-only x=read-only y=own-index write", classes(a))
    assert.same({ "accept", false, true }, { a.verdict, a.terminal, a.dry_run }) -- the third loop writes y again
    assert.same({ "refuse", "call to put at 10:5 may write z" }, { b.verdict, b.reason })
    assert.equal("n=read-only x=read-only z=other", classes(b))
    assert.equal("n=read-only y=own-index write z=read-only", classes(c))
    assert.same({ "accept", true }, { c.verdict, c.terminal })
  end)

  it("a break refuses an independent loop; a while loop has no counter", function()
    local info = assert(loops.analyse(k, "exits"))
    local a, b = info.loops[1], info.loops[2]
    assert.same({ "refuse", true, "a break or return leaves the loop before its last iteration" },
      { a.verdict, a.independent, a.reason })
    assert.same({ "refuse", false, false }, { b.verdict, b.independent, b.index })
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

  it("a local array filled by an inner loop of known range is private; half filled it is not", function()
    local src = [[
void f(int n, const double *restrict x, double *restrict y) {
  int i, k;
  double g[3];
  for (i = 0; i < n; i++) {
    for (k = 0; k < KMAX; k++) {
      g[k] = x[i] * k;
    }
    y[i] = g[0] + g[1] + g[2];
  }
}]]
    local l = assert(loops.analyse(load_text((src:gsub("KMAX", "3"))), "f")).loops[1]
    assert.equal("g=private k=private n=read-only x=read-only y=own-index write", classes(l))
    assert.equal("accept", l.verdict)
    l = assert(loops.analyse(load_text((src:gsub("KMAX", "2"))), "f")).loops[1]
    assert.equal("g=other k=private n=read-only x=read-only y=own-index write", classes(l))
    assert.equal("refuse", l.verdict)
    assert.truthy(l.reason:find("g[", 1, true), l.reason)
  end)

  it("a scalar read before it is written in the iteration carries a dependence", function()
    local info = assert(loops.analyse(load_text([[
void f(int n, const double *restrict x, double *restrict y) {
  int i;
  double t = 0.0;
  for (i = 0; i < n; i++) {
    t = 0.5 * t + x[i];
    y[i] = t;
  }
}]]), "f"))
    local l = info.loops[1]
    assert.equal("n=read-only t=other x=read-only y=own-index write", classes(l))
    assert.equal("t at 5:15 is read in another iteration than line 5 writes it", l.reason)
  end)

  it("draws DOT: a node per statement, carried edges dashed with the loop's line", function()
    local info = analyse("hfh-carried.c", "carried")
    local dot = loops.dot(info)
    assert.truthy(dot:match('^digraph "ddg carried" {\n'))
    local n = 0
    for _ in dot:gmatch("\n  n%d+ %[label=") do n = n + 1 end
    assert.equal(#info.ddg.nodes, n)
    assert.truthy(dot:find('label="y flow, carried 5", style=dashed', 1, true))
    assert.truthy(dot:find('[label="6: y[i] = y[i - 1] + x[i]"]', 1, true))
    assert.equal(loops.dot(info), loops.dot(analyse("hfh-carried.c", "carried")))
    if os.execute("command -v dot >/dev/null 2>&1") then -- Graphviz reads it back
      local f = H.tmp(".dot")
      H.write(f, dot)
      assert.is_true(os.execute("dot -Tsvg " .. f .. " -o /dev/null") == true)
    end
    dot = loops.dot(analyse("hfh-assembly.c", "assembly"))
    assert.truthy(dot:find(': res[tri[(3 * t) + k]] = res[tri[(3 * t) + k]] + (w * q[tri[(3 * t) + k]]) (increment)", style=rounded]', 1, true))
  end)
end)

describe("cgwb loops", function()
  it("prints the loops' table and --json, exit 0", function()
    local out, err, code = H.cgwb("loops " .. K .. "hfh-dryrun.c")
    assert.equal(0, code, err)
    assert.truthy(out:find("loop at 12:3 (depth 1, counter i): accept", 1, true))
    assert.truthy(out:find("  snapshot:    i, u", 1, true))
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
-- another wrote), names = the variables naming the cell}.  An iteration ends
-- when the loop's step writes its counter; the accesses of a callee's frame
-- count while the loop's statements run.  Keys: "#A[c]" for cell c of
-- caller array A, "x@frame[c]" for a local.
local function trace_loops(k, info, fname, call)
  local id = k:function_id(fname)
  local out = assert(k:run(fname, call, { trace = true }))
  local symname, params = {}, {}
  for _, s in ipairs(k:symbols(id)) do
    symname[s.id] = s.name
    if s.kind == "param" then params[#params + 1] = s.name end
  end
  local bound = {}
  for p, a in ipairs(call.args) do
    if a.array then bound[a.array] = bound[a.array] or {}; table.insert(bound[a.array], params[p]) end
  end
  local function key_of(acc)
    if acc.object > 0 then return ("#%d[%d]"):format(acc.object, acc.cell), bound[acc.object] or {} end
    local nm = acc.frame == 0 and symname[-acc.object] or nil
    return ("%s@%d[%d]"):format(nm or ("sym" .. -acc.object), acc.frame, acc.cell), { nm }
  end
  -- each statement's parent (statements come depth first)
  local stmts, parent, stack = k:statements(id), {}, {}
  for _, s in ipairs(stmts) do
    stack[s.depth + 1] = s
    parent[s.id] = s.depth > 0 and stack[s.depth] or nil
  end
  local res = {}
  for li, l in ipairs(info.loops) do
    if l.depth == 1 and l.index then
      local inside, step = {}, nil
      for _, s in ipairs(stmts) do
        local p = parent[s.id]
        while p and p.id ~= l.stmt do p = parent[p.id] end
        if p then inside[s.id] = true end
        if s.part == "step" and parent[s.id] and parent[s.id].id == l.stmt then step = s.id end
      end
      local iter, cells, last, active = 0, {}, {}, false
      for _, acc in ipairs(out.trace) do
        local counted = false
        if acc.frame == 0 then
          if acc.stmt == step and acc.write then iter = iter + 1 end
          active = acc.stmt ~= nil and inside[acc.stmt] == true and acc.stmt ~= step
          counted = active and not (acc.object < 0 and symname[-acc.object] == l.index)
        else
          counted = active
        end
        if counted then
          local key, names = key_of(acc)
          local c = cells[key] or { writes = {}, touches = {}, flow = false, names = names }
          cells[key] = c
          if acc.write then c.writes[iter] = true; last[key] = iter
          elseif last[key] ~= nil and last[key] ~= iter then c.flow = true end
          c.touches[iter] = true
        end
      end
      res[li] = cells
    end
  end
  return res
end

-- Checks the accepted loops of info against the trace's cells (per, from
-- trace_loops): no cell written in one iteration is touched in another
-- unless every variable naming it is an increment or reduction of the loop;
-- a private one is never read in another iteration than the one that
-- wrote it.  Refused loops with refuse_crosses must show a crossing cell.
-- Returns the number of cells checked.
local crosses
local function check_trace(info, per, refuse_crosses)
  local checked = 0
  for li = 1, #info.loops do
    local cells, l = per[li], info.loops[li]
    if cells then
      local class = {}
      for _, a in ipairs(l.access) do class[a.name] = a.class end
      local keys = {}
      for key in pairs(cells) do keys[#keys + 1] = key end
      table.sort(keys)
      local crossed = 0
      for _, key in ipairs(keys) do
        local cell = cells[key]
        local touched = {} -- the variables naming the cell that the loop touches (a shared array: one)
        for _, nm in ipairs(cell.names) do if class[nm] then touched[#touched + 1] = nm end end
        local cl = #touched == 1 and class[touched[1]] or nil
        if crosses(cell) then crossed = crossed + 1 end
        if l.verdict == "accept" then
          checked = checked + 1
          if cl == "private" then
            assert.is_false(cell.flow, key .. " private but read across iterations")
          elseif cl ~= "increment" and cl ~= "reduction" then
            assert.is_false(crosses(cell), ("%s (%s) crosses iterations of the loop at line %d"):format(key, tostring(cl), l.line))
          end
        end
      end
      if l.verdict == "refuse" and refuse_crosses ~= false then
        assert.is_true(crossed > 0, "loop at line " .. l.line .. " refused but no cell crosses")
      end
    end
  end
  return checked
end

-- Whether a cell is written in one iteration and touched in another.
function crosses(c)
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
    { "meshflux.c", "residual", { arrays = {
        { name = "tri", type = "int", values = { 0, 1, 2, 2, 1, 3, 3, 4, 2, 0, 4, 1 } },
        { name = "q", type = "double", values = x }, { name = "res", type = "double", values = darray(n, function() return 0 end) } },
      args = { { int = 4 }, { array = 1, offset = 0 }, { array = 2, offset = 0 }, { array = 3, offset = 0 },
               { double = 0.25 } } }, { assume = { "q!=res" } } },
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
      local info = assert(loops.analyse(k, c[2], c[4]))
      local per = trace_loops(k, info, c[2], c[3])
      local checked = check_trace(info, per)
      assert.is_true(checked > 0 or c[2] == "carried" or c[2] == "minmax")
    end)
  end
end)

-- }====

describe("stepped loops against the trace", function()
  it("y[i] and y[i + 1] with i += 2 are own-index; with i += 1 they are carried", function()
    local src = [[
void stepped(int n, const double *restrict x, double *restrict y) {
  int i;
  for (i = 0; i < n; i += STEP) {
    y[i] = x[i] * x[i];
    y[i + 1] = 2.0 * x[i + 1];
  }
}]]
    local call = { arrays = { { name = "x", type = "double", values = darray(9, function(i) return i / 4 end) },
                              { name = "y", type = "double", values = darray(9, function() return 0 end) } },
                   args = { { int = 8 }, { array = 1, offset = 0 }, { array = 2, offset = 0 } } }
    for _, step in ipairs { 2, 1 } do
      local k = load_text((src:gsub("STEP", tostring(step))))
      local info = assert(loops.analyse(k, "stepped"))
      local l = info.loops[1]
      assert.equal(step == 2 and "accept" or "refuse", l.verdict)
      assert.equal(step == 2 and "n=read-only x=read-only y=own-index write" or "n=read-only x=read-only y=other",
        classes(l))
      check_trace(info, trace_loops(k, info, "stepped", call))
    end
  end)
end)

describe("random kernels (spec/kgen.lua) against the interpreter's access trace", function()
  local kgen, rng = require "kgen", require "rng"
  it("no accepted top-level loop touches a cell across iterations but as its classes allow", function()
    local r = rng.new(3030)
    local kernels, accepted, cells = 0, 0, 0
    for _ = 1, 300 do
      local text, kinfo = kgen.kernel(r, { stmts = 10 })
      local path = H.tmp(".c")
      H.write(path, text)
      local k = assert(cgwb.read_kernel(path))
      local info = assert(loops.analyse(k, kinfo.name))
      if #info.loops > 0 then
        kernels = kernels + 1
        for _, l in ipairs(info.loops) do if l.verdict == "accept" and l.depth == 1 then accepted = accepted + 1 end end
        local call = kgen.call(rng.new(r:int(1, 1 << 30)), kinfo)
        local ok, per = pcall(trace_loops, k, info, kinfo.name, call)
        if ok then
          local cok, err = pcall(check_trace, info, per, false)
          if not cok then error(err .. "\n" .. text, 0) end
          cells = cells + err
        end
      end
    end
    assert.is_true(kernels > 200, "kernels with loops: " .. kernels)
    assert.is_true(accepted > 40, "accepted loops: " .. accepted)
    assert.is_true(cells > 250, "cells checked: " .. cells)
  end)
end)
