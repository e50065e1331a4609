-- spec/16-builder_spec.lua: graphs made directly through the graph-building
-- interface (csrc/graph/cg_gbuild.h) from Lua: cgwb.graph_builder().
--
-- The figures of Bischof & Hu 1991 that spec/04-graph_spec.lua builds from
-- text tapes, made again verb by verb, give the same graphs and statistics;
-- generated tapes (spec/gen.lua) under every option set, driven record by
-- record through the builder, give the graph cgwb.build_graph gives, field by
-- field; origins reach g:origin, g:guards and g:print; bad input is nil and
-- a message naming where, and the builder goes on.
local H = require "spec.helper"
local cgwb = require "cgwb"
local gen = require "spec.gen"

-- {==== comparing graphs ====}

local function bits(x) return string.pack("<d", x) end

-- Every field the Lua API shows, as one table (doubles as their bits).
local function dump(g)
  local d = { n = g:n(), indep = g:independents(), dep = g:dependents(), nodes = {},
              guards = {}, warnings = g:warnings() }
  for i in g:nodes() do
    local ops, cs = g:chain(i)
    local cb = {}
    for k, c in ipairs(cs) do cb[k] = bits(c) end
    local v = g:value(i)
    d.nodes[i] = { ops = table.concat(ops, ">"), consts = table.concat(cb),
                   kids = table.concat(g:children(i), ","),
                   pars = table.concat(g:parents(i), ","), flags = g:flags(i),
                   value = v and bits(v) or "none" }
  end
  for k, gd in ipairs(g:guards()) do
    d.guards[k] = { node = gd.node, kind = gd.kind, taped = bits(gd.taped), record = gd.record }
  end
  d.stats = g:stats()
  return d
end

local function same_graph(a, b, what)
  assert.are.same(dump(a), dump(b), what)
end

-- {==== a record-by-record driver ====}

-- How each record of spec/gen.lua's tapes drives the builder: graph
-- operation, output operand, input operands, constant ("v": the record's,
-- "n": its negation, or a number).
local ROWS = {
  plus_a_a = { "add", 1, { 2, 3 } }, min_a_a = { "sub", 1, { 2, 3 } },
  mult_a_a = { "mul", 1, { 2, 3 } }, div_a_a = { "div", 1, { 2, 3 } },
  eq_plus_a = { "add", 1, { 1, 2 } }, eq_min_a = { "sub", 1, { 1, 2 } },
  eq_mult_a = { "mul", 1, { 1, 2 } }, eq_div_a = { "div", 1, { 1, 2 } },
  eq_plus_d = { "addc", 1, { 1 }, "v" }, eq_min_d = { "addc", 1, { 1 }, "n" },
  eq_mult_d = { "mulc", 1, { 1 }, "v" }, eq_div_d = { "divc", 1, { 1 }, "v" },
  incr_a = { "addc", 1, { 1 }, 1.0 }, decr_a = { "addc", 1, { 1 }, -1.0 },
  plus_d_a = { "addc", 1, { 2 }, "v" }, plus_a_d = { "addc", 1, { 2 }, "v" },
  min_a_d = { "addc", 1, { 2 }, "n" }, min_d_a = { "rsub", 1, { 2 }, "v" },
  mult_d_a = { "mulc", 1, { 2 }, "v" }, mult_a_d = { "mulc", 1, { 2 }, "v" },
  div_a_d = { "divc", 1, { 2 }, "v" }, div_d_a = { "rdiv", 1, { 2 }, "v" },
  neg_sign_a = { "neg", 1, { 2 } }, exp_op = { "exp", 1, { 2 } }, log_op = { "log", 1, { 2 } },
  sqrt_op = { "sqrt", 1, { 2 } }, tan_op = { "tan", 1, { 2 } },
  abs_val = { "abs", 1, { 2 }, "v" }, cond_assign = { "cond", 1, { 2, 3, 4 }, "v" },
}
local BRANCHES = { eq_zero = true, neq_zero = true, le_zero = true, gt_zero = true,
                   ge_zero = true, lt_zero = true }

-- One record through the builder b (tmp: a location past the tape's).
local function drive_record(b, o, name, L, V, x0, k, tmp)
  local row = ROWS[name]
  if row then
    local ins = {}
    for i, p in ipairs(row[3]) do ins[i] = L[p] end
    local c = row[4] == "v" and V[1] or row[4] == "n" and -V[1] or row[4]
    return assert(b:op(L[row[2]], row[1], ins, c))
  elseif name == "assign_ind" then
    k.ind = k.ind + 1
    return assert(b:independent(L[1], x0[k.ind]))
  elseif name == "assign_dep" then
    return assert(b:dependent(L[1]))
  elseif name == "assign_a" or name == "pos_sign_a" then
    return assert(b:assign(L[1], L[2]))
  elseif name == "assign_d" or name == "assign_d_zero" or name == "assign_d_one" then
    local c = name == "assign_d" and V[1] or name == "assign_d_one" and 1.0 or 0.0
    return assert(b:constant(L[1], c))
  elseif name == "sin_op" or name == "cos_op" then -- the second output first, as the tape
    assert(b:op(L[2], name == "sin_op" and "cos" or "sin", { L[3] }))
    return assert(b:op(L[1], name == "sin_op" and "sin" or "cos", { L[3] }))
  elseif name == "eq_plus_prod" or name == "eq_min_prod" then -- through a temporary
    assert(b:op(tmp, "mul", { L[2], L[3] }))
    assert(b:op(L[1], name == "eq_plus_prod" and "add" or "sub", { L[1], tmp }))
    return assert(b:unlink(tmp))
  elseif name == "death_not" then
    if o.death_unlink == false then return assert(b:unlink(1, 0)) end -- counted only
    return assert(b:unlink(L[1], L[2]))
  elseif BRANCHES[name] then
    return assert(b:guard(L[1], name))
  end
  error("the driver has no row for " .. name)
end

-- The graph of tape t through the builder, each record its own statement.
local function drive(t, o, x0, name)
  local opts = { name = name or "tape" } -- the name the tape's messages give
  for k, v in pairs(o) do opts[k] = v end
  local b <close> = cgwb.graph_builder(opts)
  local k, tmp = { ind = 0 }, 1000
  for i, name, L, V in t:records() do
    assert(b:origin(i))
    drive_record(b, o, name, L, V, x0, k, tmp)
  end
  return assert(b:finish())
end

local SWITCHES = { "assign_removal", "hoist", "dead_roots", "recover_hoists", "guards",
                   "death_unlink" }
local function option_sets()
  local out = {}
  for mask = 0, (1 << #SWITCHES) - 1 do
    local o = {}
    for i, k in ipairs(SWITCHES) do o[k] = (mask >> (i - 1)) & 1 == 1 end
    out[#out + 1] = o
  end
  return out
end

-- {==== the figures ====}

local function tape_graph(text, o)
  local t = assert(cgwb.read_text(text, "(pushed)"))
  return assert(cgwb.build_graph(t, o))
end

-- A text tape and the same program as builder verbs.
local FIGURES = {
  ["Figure 1"] = { [[
assign_ind 1 1.5
assign_ind 2 2.0
eq_plus_a 1 2
assign_dep 1
]], function(b)
    b:independent(1, 1.5); b:independent(2, 2.0)
    b:op(1, "add", { 1, 2 }); b:dependent(1)
  end },
  ["Figure 5"] = { [[
assign_ind 1 3.0
assign_ind 2 4.0
plus_a_a 3 1 2
assign_a 4 3
mult_a_a 5 4 1
assign_a 6 5
assign_dep 6
]], function(b)
    b:independent(1, 3.0); b:independent(2, 4.0)
    b:op(3, "add", { 1, 2 }); b:assign(4, 3); b:op(5, "mul", { 4, 1 }); b:assign(6, 5)
    b:dependent(6)
  end },
  ["Figure 6"] = { [[
assign_ind 1 0.5
assign_ind 2 0.25
mult_a_a 3 1 2
plus_a_d 3 3 1.0
exp_op 3 3
mult_a_d 3 3 2.0
neg_sign_a 3 3
assign_dep 3
]], function(b)
    b:independent(1, 0.5); b:independent(2, 0.25)
    b:op(3, "mul", { 1, 2 }); b:op(3, "addc", { 3 }, 1.0); b:op(3, "exp", { 3 })
    b:op(3, "mulc", { 3 }, 2.0); b:op(3, "neg", { 3 }); b:dependent(3)
  end },
  ["Figure 7"] = { [[
assign_ind 1 0.5
assign_ind 2 0.25
min_a_a 3 1 2
exp_op 4 3
death_not 3 3
assign_dep 4
]], function(b)
    b:independent(1, 0.5); b:independent(2, 0.25)
    b:op(3, "sub", { 1, 2 }); b:op(4, "exp", { 3 }); b:unlink(3, 3); b:dependent(4)
  end },
  ["Figure 8"] = { [[
assign_ind 1 0.5
exp_op 2 1
eq_mult_d 2 2.0
assign_dep 2
]], function(b)
    b:independent(1, 0.5); b:op(2, "exp", { 1 }); b:op(2, "mulc", { 2 }, 2.0); b:dependent(2)
  end },
  ["Figure 9"] = { [[
assign_ind 1 0.5
assign_ind 2 0.25
mult_a_a 3 1 2
plus_a_a 4 3 1
death_not 3 3
death_not 4 4
exp_op 5 2
assign_dep 5
]], function(b)
    b:independent(1, 0.5); b:independent(2, 0.25)
    b:op(3, "mul", { 1, 2 }); b:op(4, "add", { 3, 1 }); b:unlink(3); b:unlink(4)
    b:op(5, "exp", { 2 }); b:dependent(5)
  end },
  ["Figure 10"] = { [[
assign_ind 1 1.5
plus_d_a 2 1 1.0
cos_op 3 4 1
eq_plus_a 3 2
exp_op 5 3
assign_a 6 5
assign_dep 6
]], function(b)
    b:independent(1, 1.5); b:op(2, "addc", { 1 }, 1.0)
    b:origin(3) -- one statement (record 3), two operations: cos_op computes the sine too
    b:op(4, "sin", { 1 }); b:op(3, "cos", { 1 })
    b:origin(4); b:op(3, "add", { 3, 2 })
    b:origin(5); b:op(5, "exp", { 3 })
    b:origin(6); b:assign(6, 5)
    b:origin(7); b:dependent(6)
  end },
}

describe("graph builder: the figures of Bischof & Hu 1991, made directly", function()
  local names = {}
  for name in pairs(FIGURES) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    it(name .. ": the same graph and statistics as the text tape, switches on and off", function()
      for _, o in ipairs({ {}, { assign_removal = false }, { hoist = false },
                           { dead_roots = false },
                           { assign_removal = false, hoist = false, dead_roots = false } }) do
        local opts = { name = "(pushed)" }
        for k, v in pairs(o) do opts[k] = v end
        local b = cgwb.graph_builder(opts)
        FIGURES[name][2](b)
        local g = assert(b:finish())
        same_graph(tape_graph(FIGURES[name][1], o), g, name)
      end
    end)
  end

  it("Figure 6 made directly is one supernode mul>addc>exp>mulc>neg", function()
    local b = cgwb.graph_builder()
    FIGURES["Figure 6"][2](b)
    local g = assert(b:finish())
    assert.are.equal(3, g:n())
    assert.are.equal("mul>addc>exp>mulc>neg", table.concat((g:chain(3)), ">"))
    assert.are.equal(4, g:stats().hoists)
  end)
end)

-- {==== generated tapes ====}

describe("graph builder: generated tapes through a record-by-record driver", function()
  it("spec/gen.lua tapes give cgwb.build_graph's graph under every option set", function()
    local sets = option_sets()
    for seed = 1, 24 do
      local recs, x0 = gen.random_records(seed, { n = 3, m = 2, len = 40, store = 8,
                                                  ops = gen.names, deaths = seed % 2 == 0 })
      local t = gen.tape(recs, x0)
      for k = 1 + seed % 4, #sets, 4 do -- a quarter of the sets per tape, all over the seeds
        local o = sets[k]
        same_graph(assert(cgwb.build_graph(t, o)), drive(t, o, x0), "seed " .. seed)
      end
    end
  end)

  it("tapes with branch records and cond_assign keep the same guards", function()
    local t = assert(cgwb.read_text([[
assign_ind 0 1.5
assign_ind 1 -0.5
gt_zero 0
lt_zero 1
cond_assign 2 0 1 0 1.0
abs_val 3 1 0.0
plus_a_a 4 2 3
assign_dep 4
]], "(pushed)"))
    for _, o in ipairs(option_sets()) do
      same_graph(assert(cgwb.build_graph(t, o)), drive(t, o, { 1.5, -0.5 }, "(pushed)"), "branches")
    end
  end)
end)

-- {==== origins, errors, values ====}

describe("graph builder: origins, errors and values", function()
  it("source origins reach g:origin, g:guards and g:print", function()
    local b = cgwb.graph_builder({ name = "k.c" })
    assert(b:origin("k.c", 3, 7))
    b:independent(0, -1.0)
    assert(b:origin("k.c", 4, 2))
    b:op(1, "mul", { 0, 0 })
    b:guard(1, "gt_zero")
    b:dependent(1)
    local g = assert(b:finish())
    assert.are.equal("k.c:3:7", g:origin(1))
    assert.are.equal("k.c:4:2", g:origin(2))
    assert.are.same({ { node = 2, kind = "gt_zero", taped = 0, origin = "k.c:4:2" } },
                    g:guards())
    assert.matches("node 2: mul  children 1 1  parents %-  value 1  dependent  guarded  at k.c:4:2\n",
                   g:print())
    assert.matches("guard 1: node 2 gt_zero at k.c:4:2\n", g:print())
    assert.matches('label="2: mul\\nk.c:4:2"', g:dot(), 1, true)
    assert.are.equal(2, g:stats().tape_operations) -- two statements
  end)

  it("a tape's graph has no node origins; its guards name their records", function()
    local g = assert(cgwb.build_graph(assert(cgwb.read_text("assign_ind 0 1.0\ngt_zero 0\nassign_dep 0\n"))))
    assert.is_nil(g:origin(1))
    assert.are.equal(2, g:guards()[1].record)
    assert.is_nil(g:guards()[1].origin)
  end)

  it("bad input: nil and a message naming where; the builder goes on", function()
    local b = cgwb.graph_builder({ name = "k.c" })
    b:origin("k.c", 9, 4)
    b:independent(0, 2.0)
    local ok, err = b:op(1, "frobnicate", { 0 })
    assert.is_nil(ok)
    assert.are.equal("unknown graph operation 'frobnicate'", err)
    ok, err = b:op(1, "exp", { 0, 0 })
    assert.is_nil(ok)
    assert.are.equal("k.c:9:4: exp takes 1 inputs, not 2", err)
    ok, err = b:op(1, "indep", {})
    assert.is_nil(ok)
    assert.matches("indep is made by its own verb", err)
    ok, err = b:independent(-1, 0)
    assert.is_nil(ok)
    assert.are.equal("location -1 is negative", err)
    ok, err = b:guard(0, "sometimes")
    assert.is_nil(ok)
    assert.are.equal("unknown guard kind 'sometimes'", err)
    ok, err = b:op(1, "exp", { 4294967295 })
    assert.is_nil(ok)
    assert.matches("k.c:9:4: location 4294967295 is too large for a graph", err)
    assert(b:op(1, "exp", { 0 }))
    assert(b:dependent(1))
    local g = assert(b:finish())
    assert.are.equal(math.exp(2.0), g:value(2))
    assert.has_error(function() b:dependent(1) end) -- spent: a programmer error
  end)

  it("reading a location never written is a counted uninitialized read", function()
    local b = cgwb.graph_builder({ name = "k" })
    b:independent(0, 1.0)
    assert(b:op(1, "add", { 0, 5 }))
    b:dependent(1)
    local g = assert(b:finish())
    assert.are.equal(1, g:stats().uninitialized_reads)
    assert.matches("k: read of uninitialized location 5 %(taken as 0%)", g:warnings())
    assert.is_true(g:flags(2).uninitialized)
  end)

  it("b:value gives the value at a location; without values it is refused", function()
    local b = cgwb.graph_builder()
    b:independent(0, 3.0)
    b:op(1, "mulc", { 0 }, 2.0)
    assert.are.equal(6.0, b:value(1))
    local nb = cgwb.graph_builder({ values = false })
    nb:independent(0)
    local v, err = nb:value(0)
    assert.is_nil(v)
    assert.are.equal("graph: the graph is built without values", err)
    local g = assert(nb:finish())
    assert.is_nil(g:value(1))
  end)

  it("the operations b:op takes are the operation table's", function()
    local ops = cgwb.graph_ops()
    local byname = {}
    for _, o in ipairs(ops) do byname[o.name] = { name = o.name, arity = o.arity, constant = o.constant } end
    assert.are.same({ name = "add", arity = 2, constant = false }, byname.add)
    assert.are.same({ name = "cond", arity = 3, constant = true }, byname.cond)
    -- the kernels' intrinsics that no tape records
    assert.are.same({ name = "pow", arity = 2, constant = false }, byname.pow)
    assert.are.same({ name = "atan2", arity = 2, constant = false }, byname.atan2)
    assert.are.same({ name = "max", arity = 2, constant = true }, byname.max)
    for _, nm in ipairs({ "sinh", "cosh", "tanh", "log10" }) do
      assert.are.same({ name = nm, arity = 1, constant = false }, byname[nm])
    end
  end)

  it("an operation no tape records is built, valued as C's, and refused as a tape, naming where", function()
    local b = cgwb.graph_builder({ name = "k.c" })
    assert(b:independent(0, 2.0))
    assert(b:independent(1, 0.5))
    local ok, err = b:op(2, "pow", { 0 })
    assert.is_nil(ok)
    assert.are.equal("k.c: pow takes 2 inputs, not 1", err)
    assert(b:origin("k.c", 3, 7))
    assert(b:op(2, "pow", { 0, 1 }))
    assert(b:op(3, "max", { 0, 1 }, 1))
    assert.are.equal(2.0 ^ 0.5, b:value(2)) -- Lua's ^ is C's pow
    assert.are.equal(2.0, b:value(3))
    assert(b:dependent(2))
    assert(b:dependent(3))
    local g = assert(b:finish())
    local t, msg = g:to_tape()
    assert.is_nil(t)
    assert.are.equal("k.c:3:7: node 3: operation pow has no tape opcode", msg)
  end)

  it("__close and free() release a builder; finish() spends it", function()
    do
      local b <close> = cgwb.graph_builder()
      b:independent(0, 1.0)
    end
    local b = cgwb.graph_builder()
    b:free()
    b:free() -- idempotent
    assert.matches("spent", tostring(b))
    assert.has_error(function() b:finish() end)
  end)
end)

H = H -- (the helper sets the search paths for the specs)
