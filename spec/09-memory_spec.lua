-- The memory limit (CGWB_MEMORY_LIMIT, core.memory_limit) bounds every stage:
-- what the core allocates for a Lua state is counted, an allocation past the
-- limit fails with a message naming the limit, and an elimination stops
-- before a step whose fill-in would pass it, naming its ordering.
local H = require "spec.helper"
local core = require "cgwb.core"
local cgwb = require "cgwb"
local elim = require "cgwb.elim"

-- N independents -> h1 -> h2 -> M dependents, each independent also
-- feeding h2: whichever of h1, h2 goes first, the second step makes N * M
-- edges (vertices: x 0..N-1, h1 = N, h2 = N+1, y from N+2).
local N, M = 150, 150
local function two_hubs()
  local t = { "X:" }
  for i = 0, N - 1 do t[#t + 1] = " " .. i end
  t[#t + 1] = "\nY:"
  for j = 0, M - 1 do t[#t + 1] = " " .. (N + 2 + j) end
  t[#t + 1] = ("\n%d:"):format(N)
  for i = 0, N - 1 do t[#t + 1] = (" %d:%d"):format(i, i % 7 + 1) end
  t[#t + 1] = ("\n%d: %d:0.5"):format(N + 1, N)
  for i = 0, N - 1 do t[#t + 1] = (" %d:%g"):format(i, i % 5 + 0.125) end
  for j = 0, M - 1 do t[#t + 1] = ("\n%d: %d:%d"):format(N + 2 + j, N + 1, j % 3 + 1) end
  return assert(core.read_cg(table.concat(t) .. "\n", "hubs.cg"))
end

-- Runs f with the limit at what is in use now plus `room` bytes; restores it.
local function with_room(room, f)
  collectgarbage()
  collectgarbage()
  local old, used = core.memory_limit()
  core.memory_limit(used + room)
  local ok, err = pcall(f)
  core.memory_limit(old)
  return ok, err
end

local function same_jac(a, b)
  if a.nnz ~= b.nnz then return false end
  for i = 1, a.nnz do
    if a.rows[i] ~= b.rows[i] or a.cols[i] ~= b.cols[i]
      or math.abs(a.vals[i] - b.vals[i]) > 1e-12 * (1 + math.abs(b.vals[i])) then
      return false
    end
  end
  return true
end

-- The graph a stopped elimination leaves: valid, with the Jacobian of the
-- original (each step is whole or not at all), refused by jacobian().
local function assert_partly_eliminated(lg, ref)
  assert.is_true(lg:check())
  assert.is_true(same_jac(lg:jacobian("forward"), ref))
  local J, msg = lg:jacobian()
  assert.is_nil(J)
  assert.truthy(msg:find("is not eliminated yet", 1, true), msg)
end

-- Asserts err is the ordering message for `name`.
local function assert_order_msg(err, name)
  assert.is_string(err)
  local want = ("this ordering (%s) would need more than"):format(name)
  assert.truthy(err:find(want, 1, true), err)
  assert.truthy(err:find("(CGWB_MEMORY_LIMIT); try --order markowitz or raise the limit", 1, true), err)
end

describe("memory: core.memory_limit", function()
  it("reads and sets the limit and counts what the core holds", function()
    collectgarbage()
    collectgarbage("stop") -- no finalizer frees core memory in between
    local old, used = core.memory_limit()
    assert.is_true(math.type(old) == "integer" and old >= 0)
    local lg = two_hubs()
    local _, used2 = core.memory_limit()
    local nv = lg:nv()
    lg:free()
    local _, used3 = core.memory_limit()
    collectgarbage("restart")
    assert.is_true(used2 > used + 4 * nv)
    assert.are.equal(used, used3)
    assert.are.equal(12345, (core.memory_limit(12345)))
    assert.are.equal(12345, (core.memory_limit()))
    core.memory_limit(old)
    assert.has_error(function() core.memory_limit(-1) end)
  end)

  it("an allocation past the limit fails with a message naming the limit", function()
    local ok, err = with_room(1000, function() return two_hubs() end)
    assert.is_false(ok)
    assert.truthy(err:find("memory limit of", 1, true) and err:find("reached (CGWB_MEMORY_LIMIT)", 1, true), err)
  end)
end)

describe("memory: each stage", function()
  local function tape() return assert(cgwb.read_tape("examples/tapes/bratu.tap")) end

  it("the graph build", function()
    local t = tape()
    local ok, err = with_room(100000, function() return cgwb.build_graph(t, { mem_limit = 0 }) end)
    assert.is_false(ok)
    assert.truthy(err:find("building the graph", 1, true), err)
    assert.truthy(err:find("(CGWB_MEMORY_LIMIT)", 1, true), err)
  end)

  it("a graph's heights", function()
    local g = assert(cgwb.build_graph(tape()))
    local ok, err = with_room(100, function() return g:height(1) end)
    assert.is_false(ok)
    assert.truthy(err:find("height: out of memory: memory limit of", 1, true), err)
    assert.are.equal(0, g:height(1))
  end)

  it("the linearization", function()
    local g = assert(cgwb.build_graph(tape()))
    local ok, err = with_room(50000, function() return core.linearize(g) end)
    assert.is_false(ok)
    assert.truthy(err:find("memory limit of", 1, true), err)
    assert.truthy(core.linearize(g))
  end)

  it("the Jacobian's arrays", function()
    local lg = two_hubs()
    lg:eliminate("markowitz")
    local ok, err = with_room(20000, function() return lg:jacobian() end)
    assert.is_false(ok)
    assert.truthy(err:find("out of memory for the Jacobian: memory limit of", 1, true), err)
    assert.are.equal(N * M, lg:jacobian().nnz)
  end)

  it("a copy", function()
    local lg = two_hubs()
    local ok, err = with_room(1000, function() return lg:copy() end)
    assert.is_false(ok)
    assert.truthy(err:find("(CGWB_MEMORY_LIMIT)", 1, true), err)
  end)
end)

describe("memory: an elimination stops before a step past the limit", function()
  local ref
  setup(function() ref = two_hubs():jacobian("forward") end)

  for _, name in ipairs(elim.builtin) do
    it("vertex mode, " .. name, function()
      local lg = two_hubs()
      local ok, err = with_room(200000, function() return lg:eliminate(name) end)
      assert.is_false(ok)
      assert_order_msg(err, name)
      assert_partly_eliminated(lg, ref)
    end)
  end

  it("vertex mode, a chain and a Lua score function", function()
    local lg = two_hubs()
    local ok, err = with_room(200000, function() return lg:eliminate({ "markowitz", "forward" }) end)
    assert_order_msg(err, "markowitz,forward")
    lg = two_hubs()
    ok, err = with_room(200000, function() return lg:eliminate(function(v) return -v end) end)
    assert.is_false(ok)
    assert_order_msg(err, "lua")
    assert_partly_eliminated(lg, ref)
  end)

  it("vertex mode, replay, choose and the drivers", function()
    local lg = two_hubs()
    local ok, err = with_room(200000, function() return lg:replay({ N + 1, N + 2 }) end)
    assert.is_false(ok)
    assert_order_msg(err, "replay")
    assert_partly_eliminated(lg, ref)
    for _, spec in ipairs({ "anneal", "best", "random", { choose = function(_, c) return c[1] end } }) do
      lg = two_hubs()
      ok, err = with_room(200000, function() return elim.eliminate(lg, spec) end)
      assert.is_false(ok)
      assert.truthy(err:find("would need more than", 1, true), err)
      assert.is_true(lg:check())
      assert.is_true(same_jac(lg:jacobian("forward"), ref))
    end
  end)

  it("edge mode", function()
    for _, name in ipairs({ "forward", "reverse", "markowitz", "min-fill", "random" }) do
      local lg = two_hubs()
      local ok, err = with_room(200000, function() return lg:eliminate_edges(name) end)
      assert.is_false(ok)
      assert_order_msg(err, name)
      assert_partly_eliminated(lg, ref)
    end
    local lg = two_hubs()
    local ok, err = with_room(200000, function() return elim.modes.edge(lg, "best") end)
    assert.is_false(ok)
    assert.truthy(err:find("would need more than", 1, true), err)
  end)

  it("face mode (the graph is unchanged)", function()
    for _, name in ipairs({ "forward", "reverse", "markowitz", "min-fill", "random" }) do
      local lg = two_hubs()
      local edges = lg:counts().edges
      local ok, err = with_room(200000, function() return lg:eliminate_faces(name) end)
      assert.is_false(ok)
      assert_order_msg(err, name)
      assert.is_true(lg:check())
      assert.are.equal(edges, lg:counts().edges)
      assert.are.equal(2, #lg:intermediates())
    end
  end)

  it("with room enough, the same runs finish", function()
    local lg = two_hubs()
    local ok, err = with_room(4000000, function() return lg:eliminate("markowitz") end)
    assert.is_true(ok, err)
    assert.is_true(same_jac(lg:jacobian(), ref))
  end)
end)

-- A function of n statements through pointers that may alias (x, y: no
-- restrict), each reading and writing y: every pair of statements has a
-- dependence, so its dependence graph has about n^2 edges.
local function aliased_function(n)
  local t = { "void big(int n, const double *x, double *y) {" }
  for i = 0, n - 1 do
    t[#t + 1] = ("  y[%d] = y[%d] * x[%d] + x[%d];"):format(i % 97, (i + 1) % 97, i % 13, (i + 5) % 13)
  end
  t[#t + 1] = "}\n"
  return table.concat(t, "\n")
end

-- Runs `cgwb ARGS` under CGWB_MEMORY_LIMIT=limit: stderr, exit status.
local function limited(limit, args)
  local _, err, code = H.cgwb(args, "CGWB_MEMORY_LIMIT=" .. limit)
  return err, code
end

describe("memory: the dependence graph (cgwb loops, adjoint --loops)", function()
  local loops = require "cgwb.loops"

  -- loops.analyse(k, "big") with `room` bytes past what is in use: its results.
  local function analyse_in(room, k)
    local info, msg
    local ok, err = with_room(room, function() info, msg = loops.analyse(k, "big") end)
    assert.is_true(ok, err) -- nil, message: never raised
    return info, msg
  end

  local function assert_limit_msg(msg, ...)
    assert.is_string(msg)
    for _, piece in ipairs { "memory limit of", "reached (CGWB_MEMORY_LIMIT); raise it", ... } do
      assert.truthy(msg:find(piece, 1, true), msg)
    end
  end

  it("3000 statements: the graph stops at the limit, nil and the message from Lua, raised by the core", function()
    local k = assert(cgwb.read_kernel(aliased_function(3000), "big.c"))
    local info, msg = analyse_in(2 ^ 20, k)
    assert.is_nil(info)
    assert_limit_msg(msg, "big.c: big: out of memory for the dependence graph (")
    local ok, err = with_room(2 ^ 20, function() return core.kernel_loops(k, "big") end)
    assert.is_false(ok)
    assert_limit_msg(err, "big.c: big: out of memory for the dependence graph (")
  end)

  it("400 statements: the graph fits, its Lua tables (264 bytes an edge) would not: refused before they are made", function()
    local k = assert(cgwb.read_kernel(aliased_function(400), "big.c"))
    collectgarbage()
    collectgarbage("stop")
    local heap = collectgarbage("count")
    local info, msg = analyse_in(24 * 2 ^ 20, k)
    local grew = collectgarbage("count") - heap
    collectgarbage("restart")
    assert.is_nil(info)
    assert_limit_msg(msg, "big.c: big: the dependence graph's 400 nodes and 160864 edges need about",
      "MiB as Lua tables beside the")
    assert.is_true(grew < 4096, grew .. " KiB of Lua heap") -- the 40 MiB of tables were not made
    info = analyse_in(256 * 2 ^ 20, k)
    assert.equal(160864, #info.ddg.edges)
  end)

  it("the command: exit 1 with the message, no output file", function()
    local few = H.write(H.tmp(".c"), aliased_function(400))
    local many = H.write(H.tmp(".c"), aliased_function(3000))
    local out = H.tmp(".c")
    for _, c in ipairs { { "24M", "loops " .. few, "as Lua tables" }, { "24M", "loops " .. few .. " --json", "as Lua tables" },
                         { "24M", "adjoint " .. few .. " --loops auto -o " .. out, "as Lua tables" },
                         { "4M", "loops " .. many, "out of memory for the dependence graph" },
                         { "4M", "adjoint " .. many .. " --loops 1 -o " .. out, "out of memory" } } do
      local err, code = limited(c[1], c[2])
      assert.equal(1, code, c[2] .. ": " .. err)
      assert.truthy(err:find(c[3], 1, true) and err:find("memory limit of " .. c[1]:sub(1, -2) .. " MiB reached", 1, true),
        c[2] .. ": " .. err)
    end
    assert.is_nil(io.open(out, "rb"))
  end)
end)

describe("memory: the command", function()
  it("running out of memory is exit 1 on every command, with the message; bad input stays 2", function()
    local big = H.write(H.tmp(".c"), aliased_function(1000))
    local out = H.tmp(".c")
    local tap = "examples/tapes/bratu.tap"
    for _, c in ipairs {
      { "64K", "stats " .. tap }, { "64K", "convert " .. tap .. " " .. H.tmp(".tap") },
      { "2M", "graph " .. tap }, { "2M", "jacobian " .. tap }, -- the graph build's estimate
      { "2M", "codegen " .. tap .. " -o " .. out },
      { "1M", "kernel " .. big .. " --activity" }, { "1M", "flatten " .. big },
      { "1M", "loops " .. big }, { "1M", "adjoint " .. big .. " -o " .. out },
      { "1M", "adjoint " .. big .. " --loops auto -o " .. out },
    } do
      local err, code = limited(c[1], c[2])
      assert.equal(1, code, c[2] .. ": " .. err)
      assert.truthy(err:find("memory limit of", 1, true), c[2] .. ": " .. err)
      assert.is_nil(err:find("\n.", 1), c[2] .. ": one line: " .. err)
    end
    assert.is_nil(io.open(out, "rb"), "no output file")
    local broken = H.write(H.tmp(".c"), "void f(double *y) {\n  y[0] = ;\n}\n")
    for _, args in ipairs { "loops " .. broken, "adjoint " .. broken .. " -o " .. out, "stats examples/tapes/nosuch.tap" } do
      local err, code = limited("1M", args)
      assert.equal(2, code, args .. ": " .. err)
    end
  end)

  it("Lua's own allocation failure (not enough memory) is exit 1 with its message", function()
    if H.san_preload then return end -- the sanitizers' runtime needs more address space than the limit
    local script = H.write(H.tmp(".lua"), "local s = string.rep('x', 1 << 30)\nprint(#s)\n")
    local err = H.tmp(".err")
    local _, _, rc = os.execute(("(ulimit -v 600000; CGWB_BUILD=%s scripts/cgwb run %s) >/dev/null 2>%s")
      :format(H.build, script, err))
    local msg = H.read(err)
    os.remove(err)
    assert.equal(1, rc, msg)
    assert.equal("cgwb run: not enough memory\n", msg)
  end)

  it("cli.memory_failure tells the memory's messages from the input's", function()
    local cli = require "cgwb.cli"
    for _, m in ipairs { "x: memory limit of 1 MiB reached (CGWB_MEMORY_LIMIT); raise it", "not enough memory",
                         "bratu.tap: building the graph of 9 records needs about 7.8 MiB, over the memory limit of 2.0 MiB",
                         "f.c: chains: out of memory" } do
      assert.is_true(cli.memory_failure(m), m)
    end
    for _, m in ipairs { "f.c:2:3: found ';', expected an expression", "x.tap: cannot open: No such file or directory" } do
      assert.is_false(cli.memory_failure(m), m)
    end
  end)


  it("CGWB_MEMORY_LIMIT stops a random ordering on Shallow in seconds, exit 1", function()
    local err = H.tmp(".err")
    local t0 = os.time()
    local _, _, rc = os.execute(("CGWB_MEMORY_LIMIT=200M CGWB_BUILD=%s timeout 20 scripts/cgwb jacobian "
      .. "examples/tapes/shallow.tap --order random --limit random_mults=1e9 >/dev/null 2>%s"):format(H.build, err))
    local msg = H.read(err)
    os.remove(err)
    assert.are.equal(1, rc, msg)
    assert.is_true(os.time() - t0 < 20)
    assert.truthy(msg:find("cgwb jacobian: this ordering (random) would need more than 200 MiB of memory "
      .. "(CGWB_MEMORY_LIMIT); try --order markowitz or raise the limit", 1, true), msg)
  end)
end)
