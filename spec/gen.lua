-- Generators of random tapes for property checks (seeded, deterministic).
local M = {}

-- Opcodes by shape: name -> {nout, nin, nval}; every one reads/writes
-- plain locations (no refs, vectors or variable lengths).
M.shapes = {
  assign_a = { 1, 1, 0 }, assign_d = { 1, 0, 1 }, assign_d_zero = { 1, 0, 0 },
  assign_d_one = { 1, 0, 0 },
  eq_plus_d = { 1, 0, 1 }, eq_plus_a = { 1, 1, 0 }, eq_min_d = { 1, 0, 1 },
  eq_min_a = { 1, 1, 0 }, eq_mult_d = { 1, 0, 1 }, eq_mult_a = { 1, 1, 0 },
  plus_a_a = { 1, 2, 0 }, plus_d_a = { 1, 1, 1 }, min_a_a = { 1, 2, 0 },
  min_d_a = { 1, 1, 1 }, mult_a_a = { 1, 2, 0 }, mult_d_a = { 1, 1, 1 },
  div_a_a = { 1, 2, 0 }, div_d_a = { 1, 1, 1 }, exp_op = { 1, 1, 0 },
  sin_op = { 2, 1, 0 }, cos_op = { 2, 1, 0 }, sqrt_op = { 1, 1, 0 },
  log_op = { 1, 1, 0 }, neg_sign_a = { 1, 1, 0 }, pos_sign_a = { 1, 1, 0 },
  incr_a = { 1, 0, 0 }, decr_a = { 1, 0, 0 }, eq_plus_prod = { 1, 2, 0 },
  eq_min_prod = { 1, 2, 0 }, plus_a_d = { 1, 1, 1 }, min_a_d = { 1, 1, 1 },
  mult_a_d = { 1, 1, 1 }, div_a_d = { 1, 1, 1 }, eq_div_d = { 1, 0, 1 },
  eq_div_a = { 1, 1, 0 }, tan_op = { 1, 1, 0 },
}
M.names = {}
for name in pairs(M.shapes) do M.names[#M.names + 1] = name end
table.sort(M.names)

-- Safe ops keep values finite for any input (no log/sqrt of negatives etc.).
M.safe = { "assign_a", "assign_d", "eq_plus_a", "eq_min_d", "eq_mult_d", "plus_a_a",
           "plus_d_a", "min_a_a", "min_d_a", "mult_a_a", "mult_d_a", "sin_op",
           "cos_op", "neg_sign_a", "incr_a", "eq_plus_prod", "plus_a_d", "min_a_d",
           "mult_a_d", "div_a_d", "assign_d_zero" }

--- A random tape as a list of records {name, locs, vals}, plus x0.
-- opts: n (independents), m (dependents), len (records), store (locations),
-- ops (list of names, default M.safe), deaths (emit death notices).
function M.random_records(seed, opts)
  local rnd = require("spec.rng").new(seed)
  local n, len, store = opts.n or 3, opts.len or 30, opts.store or 8
  local ops = opts.ops or M.safe
  local recs, x0, written = {}, {}, {}
  local function any_written()
    local keys = {}
    for k in pairs(written) do keys[#keys + 1] = k end
    table.sort(keys)
    return keys[rnd:int(1, #keys)]
  end
  for i = 1, n do
    local l = (i - 1) % store
    recs[#recs + 1] = { "assign_ind", { l }, {} }
    x0[i] = rnd:float(-2, 2)
    written[l] = true
  end
  for _ = 1, len do
    local name = ops[rnd:int(1, #ops)]
    local s = M.shapes[name]
    local locs, vals = {}, {}
    for k = 1, s[1] do locs[k] = rnd:int(0, store - 1) end
    if s[1] == 2 and locs[1] == locs[2] then locs[2] = (locs[1] + 1) % store end
    local inplace = name:match("^eq_") or name == "incr_a" or name == "decr_a"
    if inplace and not written[locs[1]] then locs[1] = any_written() end
    for _ = 1, s[2] do locs[#locs + 1] = any_written() end
    for k = 1, s[3] do vals[k] = rnd:float(-3, 3) end
    recs[#recs + 1] = { name, locs, vals }
    for k = 1, s[1] do written[locs[k]] = true end
    if opts.deaths and rnd:int(1, 6) == 1 then
      local d = rnd:int(0, store - 1)
      recs[#recs + 1] = { "death_not", { d, d }, {} }
    end
  end
  for _ = 1, opts.m or 2 do recs[#recs + 1] = { "assign_dep", { any_written() }, {} } end
  return recs, x0
end

--- Pushes records into a new tape.
function M.tape(recs, x0)
  local core = require "cgwb.core"
  local t = core.tape_new()
  for _, r in ipairs(recs) do
    local args = {}
    for _, l in ipairs(r[2]) do args[#args + 1] = l end
    for _, v in ipairs(r[3]) do args[#args + 1] = v end
    t:push(r[1], table.unpack(args))
  end
  if x0 then t:set_x0(x0) end
  return t
end

return M
