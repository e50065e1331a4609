-- spec/20-kanalysis_spec.lua: the kernel analyses (doc/kernel-analyses.md):
-- address sets, must/may/no, ud/du-chains and activity on the papers'
-- examples (examples/kernels/) and hand-made kernels, then properties on
-- random kernels (spec/kgen.lua) run through the interpreter with its access
-- trace: every dynamic read's last writer is in its ud-chain (and the read
-- in the writer's du-chain), accesses of one block instance that touched one
-- cell are related may or must, and a must pair always touched one cell.
-- A deliberately wrong assumption (opts.alias) must make them fail.
local H = require "spec.helper"
local core = require "cgwb.core"
local kparse = require "cgwb.kparse"
local kgen = require "kgen"
local rng = require "rng"

local function load_text(text, name)
  local flat = assert(kparse.parse(text, name or "hand.c"))
  return assert(core.kernel_load(flat))
end
local function load_file(path)
  return assert(core.kernel_load(assert(kparse.read(path))))
end

--- The analysis of function f, with helpers to find accesses by text and line.
local function analyze(k, f, opts)
  local res = assert(core.kernel_analyze(k, f, opts))
  local A = {res = res}
  --- The access with this text and kind (on `line` if given); errors unless unique.
  function A.acc(text, kind, line)
    local found
    for i, a in ipairs(res.alias.accesses) do
      if a.text == text and a.kind == (kind or "use") and (not line or a.line == line) then
        assert(not found, "two accesses " .. text .. " at line " .. tostring(line))
        found = i
      end
    end
    return assert(found, "no access " .. text .. " at line " .. tostring(line))
  end
  --- The statement defining something on source line `line`.
  function A.stmt(line)
    for _, a in ipairs(res.alias.accesses) do
      if a.kind == "def" and a.line == line then return a.stmt end
    end
    error("no definition on line " .. line)
  end
  function A.ud(text, line) return res.chains.ud[A.acc(text, "use", line)] end
  function A.set(i) return res.alias.sets[res.alias.accesses[i].set] end
  function A.rel(i, j) return res.alias.relation(res.alias.accesses[i].set, res.alias.accesses[j].set) end
  return A
end

local function line_of(path, pat)
  local n = 0
  for l in io.lines(path) do
    n = n + 1
    if l:find(pat, 1, true) then return n end
  end
  error("no line with " .. pat)
end

describe("alias sets and chains of the papers' examples", function()
  it("Utke, Flattening, Fig. 1: scalars identify exactly (must)", function()
    local p = "examples/kernels/utke-fig1.c"
    local A = analyze(load_file(p), "fig1")
    local a1, a2 = line_of(p, "/* a1 */"), line_of(p, "/* a2 */")
    assert.same({0}, A.ud("z", a1))
    assert.same({A.stmt(a1)}, A.ud("z", a2))
    assert.same({0}, A.ud("x", a2))
    assert.equal("must", A.rel(A.acc("z", "def", a1), A.acc("z", "use", a2)))
    assert.same({"z"}, A.set(A.acc("z", "use", a2)).addresses)
    assert.is_true(A.set(A.acc("z", "use", a2)).exact)
  end)

  it("Utke, Flattening, Fig. 2 (and 5): after z += k, *z may alias the first *z", function()
    for _, f in ipairs{{"utke-fig2.c", "fig2"}, {"utke-fig5.c", "fig5"}} do
      local p = "examples/kernels/" .. f[1]
      local A = analyze(load_file(p), f[2])
      local a1, a2 = line_of(p, "/* a1 */"), line_of(p, "/* a2 */")
      local d1, u2 = A.acc("z[0]", "def", a1), A.acc("z[0]", "use", a2)
      assert.equal("may", A.rel(d1, u2))
      assert.same({0, A.stmt(a1)}, A.ud("z[0]", a2))   -- (a1, 0)
      assert.same({0}, A.ud("z[0]", a1))
      assert.same({0}, A.ud("x", a2))
      assert.same({"z[0]"}, A.set(d1).addresses)
      assert.matches("^z%[k#%d+%]$", A.set(u2).addresses[1])
      -- the first *z reaches the exit (a cell behind a pointer parameter) and a2
      assert.same({0, A.stmt(a2)}, A.res.chains.du[A.stmt(a1)])
    end
  end)

  it("Utke, Flattening, Fig. 4 (a): *q, *r, *s through one pointer are one address", function()
    local A = analyze(load_file("examples/kernels/utke-fig4a.c"), "fig4a")
    local q, r, s = A.acc("q[0]"), A.acc("r[0]"), A.acc("s[0]")
    assert.equal(A.res.alias.accesses[q].set, A.res.alias.accesses[r].set)
    assert.equal(A.res.alias.accesses[q].set, A.res.alias.accesses[s].set)
    assert.equal("must", A.rel(q, s))
    assert.same({"p[0]"}, A.set(q).addresses)
  end)

  it("Utke, Flattening, Fig. 4 (b): three pointer parameters may alias pairwise", function()
    local k = load_file("examples/kernels/utke-fig4b.c")
    local A = analyze(k, "fig4b")
    local q, r, s = A.acc("q[0]"), A.acc("r[0]"), A.acc("s[0]")
    assert.equal("may", A.rel(q, r))
    assert.equal("may", A.rel(r, s))
    assert.equal("may", A.rel(q, s))
    -- restrict or an assumption separates them
    local B = analyze(k, "fig4b", {assume = {"q!=r", "r != s", "q!=s"}})
    assert.equal("no", B.rel(B.acc("q[0]"), B.acc("r[0]")))
    local C = analyze(k, "fig4b", {assume = {"q==r"}})
    assert.equal("must", C.rel(C.acc("q[0]"), C.acc("r[0]")))
    assert.equal("may", C.rel(C.acc("q[0]"), C.acc("s[0]")))
  end)

  it("Hovland et al., Fig. 1 with locals: statement 3 reads statements 1 and 2", function()
    local p = "examples/kernels/hovland-fig1-locals.c"
    local A = analyze(load_file(p), "fig1")
    local s1, s2, s3 = line_of(p, "/* statement 1 */"), line_of(p, "/* statement 2 */"), line_of(p, "/* statement 3 */")
    assert.same({A.stmt(s1)}, A.ud("a", s3))
    assert.same({A.stmt(s2)}, A.ud("b", s3))
    assert.same({A.stmt(s3)}, A.res.chains.du[A.stmt(s1)])
  end)

  it("Hovland et al., Fig. 1 with pointers: may alias unless restrict or assumed apart", function()
    local p = "examples/kernels/hovland-fig1-aliased.c"
    local k = load_file(p)
    local s1, s2, s3 = line_of(p, "/* statement 1 */"), line_of(p, "/* statement 2 */"), line_of(p, "/* statement 3 */")
    local A = analyze(k, "fig1")
    local S1, S2 = A.stmt(s1), A.stmt(s2)
    assert.same({S1, S2}, A.ud("a[0]", s3)) -- statement 2 may overwrite *a: no kill
    assert.same({S2}, A.ud("b[0]", s3))
    local B = analyze(k, "fig1", {assume = {"a!=b"}})
    assert.same({S1}, B.ud("a[0]", s3))
    local C = analyze(k, "fig1", {assume = {"a==b"}}) -- their Fig. 6: b defined by statement 2
    assert.same({S2}, C.ud("a[0]", s3))
    assert.same({S2}, C.ud("b[0]", s3))
    local pr = "examples/kernels/hovland-fig1-restrict.c"
    local R = analyze(load_file(pr), "fig1")
    assert.same({R.stmt(line_of(pr, "/* statement 1 */"))}, R.ud("a[0]", line_of(pr, "/* statement 3 */")))
  end)

  it("Hovland et al., sec. 5: b[j] may be defined by b[k] (statement 0), b[i] or outside", function()
    local p = "examples/kernels/hovland-sec5.c"
    local A = analyze(load_file(p), "sec5")
    local s0, s1, s2, s3 = line_of(p, "/* statement 0 */"), line_of(p, "/* statement 1 */"),
                           line_of(p, "/* statement 2 */"), line_of(p, "/* statement 3 */")
    assert.same({0, A.stmt(s0), A.stmt(s2)}, A.ud("b[j]", s3))
    assert.same({A.stmt(s1)}, A.ud("a", s3))
    assert.equal("may", A.rel(A.acc("b[k]", "def", s0), A.acc("b[j]", "use", s3)))
  end)

  it("an override answers the may pairs, and the chains follow it", function()
    local p = "examples/kernels/hovland-fig1-aliased.c"
    local k = load_file(p)
    local s1, s2, s3 = line_of(p, "/* statement 1 */"), line_of(p, "/* statement 2 */"), line_of(p, "/* statement 3 */")
    local calls = {}
    local A = analyze(k, "fig1", {alias = function(u, v)
      calls[#calls + 1] = u.id .. "-" .. v.id
      assert.is_table(u.accesses[1])
      assert.is_string(u.addresses[1])
      return "no"
    end})
    assert.same({A.stmt(s1)}, A.ud("a[0]", s3))
    assert.equal("no", A.rel(A.acc("a[0]", "def", s1), A.acc("b[0]", "def", s2)))
    assert.is_true(#calls > 0)
    local sorted = {}
    for i, c in ipairs(calls) do sorted[i] = c end
    assert.same(calls, sorted) -- ascending, deterministic
    assert.equal(#calls, #A.res.alias.assumed)
    local M = analyze(k, "fig1", {alias = function() return "must" end})
    assert.same({A.stmt(s2)}, M.ud("a[0]", s3))
    local ok, err = pcall(core.kernel_analyze, k, "fig1", {alias = function() return "perhaps" end})
    assert.is_false(ok)
    assert.matches("opts.alias", err)
  end)

  it("an override that raises or answers badly stops the analysis: its error comes back, nothing leaks", function()
    -- The override runs under lua_pcall inside the core's loop over the pairs;
    -- the binding raises its error once the core has unwound.
    local k = load_file("examples/kernels/hovland-fig1-aliased.c")
    local entries = {analyze = core.kernel_analyze, flatten = core.kernel_flatten, loops = core.kernel_loops}
    for _, name in ipairs {"analyze", "flatten", "loops"} do
      local run = entries[name]
      assert(run(k, "fig1", {alias = function() return "no" end}), name)
      collectgarbage()
      collectgarbage()
      local before = select(2, core.memory_limit())
      for _ = 1, 3 do
        local calls = 0
        local ok, err = pcall(run, k, "fig1", {alias = function()
          calls = calls + 1
          if calls == 2 then error("no answer for this pair", 0) end
          return "no"
        end})
        assert.is_false(ok, name)
        assert.equal("no answer for this pair", err, name)
        assert.equal(2, calls, name) -- the analysis stopped at the error
        local obj = {}
        ok, err = pcall(run, k, "fig1", {alias = function() error(obj) end})
        assert.is_false(ok, name)
        assert.equal(obj, err, name) -- the error value itself
        ok, err = pcall(run, k, "fig1", {alias = function() error("with a position") end})
        assert.matches("^spec/20%-kanalysis_spec%.lua:%d+: with a position$", err)
        ok, err = pcall(run, k, "fig1", {alias = function() return 5 end})
        assert.is_false(ok, name)
        assert.equal('opts.alias: returned 5; expected "no", "must", "may" or nil', err, name)
        ok, err = pcall(function() return run(k, "fig1", {alias = function() return "perhaps" end}) end)
        assert.matches('^spec/20%-kanalysis_spec%.lua:%d+: opts%.alias: returned perhaps; expected', err)
      end
      collectgarbage()
      collectgarbage()
      assert.equal(before, select(2, core.memory_limit()), name .. ": bytes left in use")
      assert(run(k, "fig1", {alias = function() return "must" end}), name) -- still works
    end
  end)

  it("bad assumptions are a message naming the file", function()
    local k = load_file("examples/kernels/hovland-fig1-aliased.c")
    local r, msg = core.kernel_analyze(k, "fig1", {assume = {"a<b"}})
    assert.is_nil(r)
    assert.matches("hovland%-fig1%-aliased%.c: assume 'a<b'", msg)
    r, msg = core.kernel_analyze(k, "fig1", {assume = {"a!=x"}})
    assert.is_nil(r)
    assert.matches("not two pointer parameters", msg)
  end)
end)

describe("value numbers and points-to sets", function()
  local text = [[
void f(double *b, int i, int j, double x) {
  double a[6];
  double *p;
  b[i] = x;
  x = b[i];
  b[i + 1] = x;
  x = b[j];
  p = &a[2];
  *p = x;
  x = a[2];
  p += 1;
  *p = x;
  p += i;
  *p = x;
}
]]
  local A = analyze(load_text(text), "f")
  it("b[i] twice with i unchanged is one address, b[i+1] another, b[j] may be either", function()
    local d, u = A.acc("b[i]", "def", 4), A.acc("b[i]", "use", 5)
    assert.equal("must", A.rel(d, u))
    assert.same({A.stmt(4)}, A.ud("b[i]", 5)) -- exact: no 0
    assert.equal("no", A.rel(d, A.acc("b[(i + 1)]", "def", 6)))
    assert.equal("may", A.rel(d, A.acc("b[j]", "use", 7)))
    assert.same({0, A.stmt(4), A.stmt(6)}, A.ud("b[j]", 7))
  end)
  it("p = &a[2] makes *p exactly a[2]; p += 1 moves one cell; p += i an unknown amount", function()
    assert.same({"a[2]"}, A.set(A.acc("p[0]", "def", 9)).addresses)
    assert.same({A.stmt(9)}, A.ud("a[2]", 10))
    assert.same({"a[3]"}, A.set(A.acc("p[0]", "def", 12)).addresses)
    assert.matches("^a%[i#%d+%+3%]$", A.set(A.acc("p[0]", "def", 14)).addresses[1])
    assert.equal("may", A.rel(A.acc("p[0]", "def", 12), A.acc("p[0]", "def", 14)))
  end)
end)

describe("calls", function()
  it("may write every cell behind a pointer argument, unless the parameter points to const", function()
    local A = analyze(load_text([[
double get(const double *p, double *restrict q) { q[0] = p[0]; return p[1]; }
double f(double *a, double *restrict b) {
  double t;
  a[0] = 1.0;
  t = get(a, b);
  b[1] = a[0] + t;
  return b[0];
}
]]), "f")
    local call = A.stmt(5)
    local defs = {}
    for _, a in ipairs(A.res.alias.accesses) do
      if a.stmt == call and a.kind == "def" then defs[#defs + 1] = a.text end
    end
    table.sort(defs)
    assert.same({"* b", "t"}, defs)                -- nothing written through a
    assert.same({A.stmt(4)}, A.ud("a[0]", 6))
    assert.same({0, call}, A.ud("b[0]", 7))        -- the call may have written it
    assert.same({0, A.stmt(4)}, A.ud("* a", 5))    -- the call may read any cell behind a
  end)
end)

describe("loops", function()
  it("a definition going around the back edge is widened: a[i] reaches a[i-1] next time", function()
    local A = analyze(load_text([[
void f(double *a, int n, double x) {
  for (int i = 1; i < n; i++) {
    a[i] = a[i - 1] + x;
  }
}
]]), "f")
    local def = A.stmt(3)
    assert.same({0, def}, A.ud("a[(i - 1)]", 3))
    assert.equal(#A.res.alias.sets, A.res.stats.sets)
    assert.equal(1, A.res.stats.widened_sets)          -- a[i] around the back edge: a[?]
    assert.equal(2, A.res.stats.loop_passes)
    assert.equal("no", A.rel(A.acc("a[i]", "def", 3), A.acc("a[(i - 1)]", "use", 3)))
  end)
  it("a scalar defined in the body reaches the next iteration and the exit", function()
    local A = analyze(load_text([[
double f(double x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s = s + x;
  }
  return s;
}
]]), "f")
    assert.same({A.stmt(2), A.stmt(4)}, A.ud("s", 4))
    assert.same({A.stmt(2), A.stmt(4)}, A.ud("s", 6))
  end)
  it("break and continue carry their state to the exit and the step", function()
    local A = analyze(load_text([[
double f(double x, int n) {
  double s = 0.0;
  double t = 1.0;
  while (n > 0) {
    n = n - 1;
    if (x > 1.0) { t = 2.0; break; }
    if (x > 2.0) { s = 3.0; continue; }
    s = 4.0;
  }
  return s + t;
}
]]), "f")
    assert.same({A.stmt(3), A.stmt(6)}, A.ud("t", 10))
    assert.same({A.stmt(2), A.stmt(7), A.stmt(8)}, A.ud("s", 10))
  end)
end)

describe("activity", function()
  it("Hovland et al., Fig. 1: every statement is active", function()
    local A = analyze(load_file("examples/kernels/hovland-fig1-aliased.c"), "fig1")
    local act = A.res.activity
    assert.same({"a", "b", "x", "y"}, act.independents) -- f is only written
    assert.same({"a", "b", "f"}, act.dependents)
    assert.equal(3, #act.active_stmts)
  end)
  it("a statement off the path from independents to dependents is passive", function()
    local text = [[
void f(double x, double c, double *y, double *z) {
  double t, u, w;
  t = sin(x);
  u = c * 2.0;
  w = cos(x);
  *y = t * u;
  *z = c;
}
]]
    local A = analyze(load_text(text), "f", {independents = {"x"}, dependents = {"y"}})
    local act = A.res.activity
    local active = {}
    for _, s in ipairs(act.active_stmts) do active[s] = true end
    assert.is_true(active[A.stmt(3)])     -- t = sin(x): varied and useful
    assert.is_nil(active[A.stmt(4)])      -- u = c * 2: not varied
    assert.is_nil(active[A.stmt(5)])      -- w = cos(x): not useful
    assert.is_true(active[A.stmt(6)])
    assert.is_nil(active[A.stmt(7)])
    assert.same({"t", "x", "y"}, act.active_symbols)
  end)
end)

-- {==== properties on random kernels ====}

local check_trace = require("ktrace").check_trace -- (shared with spec/51)

--- Runs n random kernels with m bindings each; calls f(res, trace) -> violations.
local function random_runs(seed, n, m, opts, visit)
  local r = rng.new(seed)
  local runs = 0
  for _ = 1, n do
    local text, info = kgen.kernel(r, {stmts = 10})
    local k = load_text(text, "gen.c")
    local res = assert(core.kernel_analyze(k, info.name, opts))
    for _ = 1, m do
      local call = kgen.call(r, info)
      local out = k:run(info.name, call, {trace = true})
      if out then
        runs = runs + 1
        visit(res, out.trace, text)
      end
    end
  end
  return runs
end

describe("properties on random kernels", function()
  it("reads find their last writer in the chains; one block's accesses relate soundly", function()
    local nbad, first = 0, nil
    local runs = random_runs(2026, 60, 4, nil, function(res, trace, text)
      local bad = check_trace(res, trace)
      if #bad > 0 and not first then first = bad[1] .. "\n" .. text end
      nbad = nbad + #bad
    end)
    assert.is_true(runs >= 150, "only " .. runs .. " runs")
    assert.equal(0, nbad, first)
  end)

  it("assumptions the binding satisfies (pointers into different arrays: p!=q) keep them sound", function()
    local r = rng.new(99)
    local runs, nbad, first, assumed = 0, 0, nil, 0
    for _ = 1, 40 do
      local text, info = kgen.kernel(r, {stmts = 10})
      local k = load_text(text, "gen.c")
      for _ = 1, 3 do
        local call = kgen.call(r, info)
        local assume = {}
        for i, p in ipairs(info.params) do
          for j = i + 1, #info.params do
            local q = info.params[j]
            local a, b = call.args[i], call.args[j]
            if a.array and b.array and a.array ~= b.array then
              assume[#assume + 1] = p.name .. "!=" .. q.name
            end
          end
        end
        assumed = assumed + #assume
        local res = assert(core.kernel_analyze(k, info.name, {assume = assume}))
        local out = k:run(info.name, call, {trace = true})
        if out then
          runs = runs + 1
          local bad = check_trace(res, out.trace)
          if #bad > 0 and not first then first = bad[1] .. "\n" .. table.concat(assume, " ") .. "\n" .. text end
          nbad = nbad + #bad
        end
      end
    end
    assert.is_true(runs >= 100 and assumed > 50)
    assert.equal(0, nbad, first)
  end)

  it("a wrong assumption (every may pair made must, or no) is caught", function()
    for _, answer in ipairs{"must", "no"} do
      local nbad = 0
      random_runs(7, 30, 4, {alias = function() return answer end}, function(res, trace)
        nbad = nbad + #check_trace(res, trace)
      end)
      assert.is_true(nbad > 0, "the property did not notice a wrong '" .. answer .. "'")
    end
  end)
end)
