--- Jacobian accumulation by elimination (Hovland, Norris, Utke & Strout, sec. 1): orderings by
-- name or as Lua code, and the drivers the command line uses.
--
-- An ordering ("spec") is one of:
--   * a built-in name (M.orderings: the core's registry of rules, then the
--     drivers anneal, exact, best); a comma-separated chain
--     ("markowitz,forward") breaks ties by the later rules, and the last
--     resort is the highest vertex id (toward reverse mode, as ANGEL);
--   * a Lua function score(v, lg) -> number (lower is eliminated first),
--     kept in the core's priority queue and re-asked only for the vertices
--     whose neighbourhood an elimination changed;
--   * a table { rule, rule, ..., radius = 1, lowest_first = false } of names
--     and score functions (a filter chain: each breaks the ties of the last);
--   * a table { choose = function(lg, candidates) -> v } called at each step
--     with the remaining intermediates (full control, O(V) per step);
--   * a table { replay = {v1, v2, ...} }: a recorded order.
-- @module cgwb.elim
local core = require "cgwb.core"
local progress = require "cgwb.progress"

local M = {}

local mode_letter = { vertex = "V", edge = "E", face = "F" }

--- The registry of built-in orderings, the one list the command line, its
-- help and `cgwb.orderings` read: name, the modes that have it (V vertex, E
-- edge, F face), whether a Lua driver runs it (else the core's rule of that
-- name), and what it eliminates first.  The core's rules come from its
-- registry (core.orderings(), csrc/elim/cg_order.c), in its order; the Lua
-- drivers follow.
M.orderings = {}
for _, o in ipairs(core.orderings()) do
  local letters = {}
  for _, mode in ipairs(o.modes) do letters[#letters + 1] = mode_letter[mode] end
  M.orderings[#M.orderings + 1] = { name = o.name, modes = table.concat(letters), about = o.about,
                                    needs = o.needs }
end
for _, o in ipairs {
  { name = "anneal", modes = "V", driver = true,
    about = "simulated annealing from the Markowitz order (--seed, --budget evaluations)" },
  { name = "exact", modes = "V", driver = true,
    about = "the optimum by branch and bound (--time-limit; else the best order found and a proven lower bound)" },
  { name = "best", modes = "VEF", driver = true, about = "the cheapest of the rules above for the mode" },
} do M.orderings[#M.orderings + 1] = o end

--- The names of the built-in orderings of a mode ("vertex" by default), in
-- registry order; with core_only, only the core's rules (no drivers); with
-- fixed, only rules that need no seed (the deterministic ones best tries).
function M.ordering_names(mode, core_only, fixed)
  local letter, names = mode_letter[mode or "vertex"], {}
  if not letter then error(("unknown mode '%s'"):format(tostring(mode)), 2) end
  for _, o in ipairs(M.orderings) do
    if o.modes:find(letter, 1, true) and not (core_only and o.driver)
        and not (fixed and (o.driver or o.needs.seed)) then
      names[#names + 1] = o.name
    end
  end
  return names
end

M.builtin = M.ordering_names("vertex", true)
local builtin_set = {}
for _, n in ipairs(M.builtin) do builtin_set[n] = true end

-- The message for an unknown ordering name: what the mode has.
local function unknown_ordering(name, mode)
  return ("unknown ordering '%s' for %s elimination (one of %s, a comma-separated chain of them, "
    .. "or FILE.lua)"):format(name, mode, table.concat(M.ordering_names(mode), ", "))
end

--- The spec as the core takes it, or nil and a message.
function M.core_spec(spec)
  if type(spec) == "string" then
    local rules = {}
    for name in spec:gmatch("[^,%s]+") do
      if not builtin_set[name] then return nil, unknown_ordering(name, "vertex") end
      rules[#rules + 1] = name
    end
    if #rules == 0 then return nil, "empty ordering" end
    return rules
  end
  return spec
end

-- {==== scale: what a run will cost, refused up front when too much ====}

--- The thresholds above which a run is refused before it starts (elim.check_scale):
-- raise one from Lua (`elim.LIMITS.mults = 1e9`) or with `--limit NAME=N`.
-- Each is a count of work or memory, never a time; the figures are from the
-- audit in doc/elimination.md, "What each ordering costs" (scripts/audit-scale.sh).
M.LIMITS = {
  mults = 2e8,        -- vertex forward and reverse: their multiplications (Shallow's forward, 5.3e7: 3 to 14 s)
  x_mults = 5e6,      -- edge and face forward and reverse (Shallow's forward, 5.3e7: over 100 s)
  random_mults = 1e7, -- random, any mode: the worse of forward's and reverse's (Shallow: past 3 GiB in 55 s)
  lua_steps = 2e6,    -- edge and face anneal and exact: --budget x edges steps, each a Lua call (Bratu: 24 s)
  replay_work = 1e8,  -- vertex anneal, exact: --budget x (edges + sqrt(forward x reverse mults)) (Shallow: 59 s)
  reach_work = 2e9,   -- relative-markowitz's reach counts: (vertices + edges) x (n + m) / 64 word operations
  hub_work = 1e9,     -- edge min-fill, Lua edge and face rules: edges x the largest component (Shallow: over 60 s)
  sweeps_work = 2e9,  -- strategies reverse and forward: sweeps x edges
}

-- The order-blind rules' figures (cg_lin_scale_counts): forward's and
-- reverse's multiplications and fill exactly; random's taken as the worse
-- of the two (a random order takes no side: on a gradient it fills as
-- forward does, or worse).
local blind = {
  forward = function(s) return s.forward_mults, s.forward_fill end,
  reverse = function(s) return s.reverse_mults, s.reverse_fill end,
  random = function(s) return math.max(s.forward_mults, s.reverse_mults), math.max(s.forward_fill, s.reverse_fill) end,
}

-- Is spec a Lua rule (a score function, or a chain holding one)?
local function lua_rule(spec)
  if type(spec) == "function" then return true end
  if type(spec) ~= "table" or spec.replay then return false end
  if spec.choose then return true end
  for _, r in ipairs(spec) do
    if type(r) == "function" then return true end
  end
  return false
end

-- A count as a short figure: 52624707 -> "5.3e+07", 1200 -> "1200".
local function fig(x) return x < 1e5 and ("%d"):format(math.floor(x + 0.5)) or ("%.2g"):format(x) end

-- The first rule of a string spec ("forward,markowitz" -> "forward"): the one that decides the order.
local function first_rule(spec)
  return type(spec) == "string" and spec:match("^%s*([^,%s]+)") or nil
end

--- The cheap counts of lg (lg:scale_counts, capped at LIMITS.reach_work)
-- and what `spec` in `mode` would cost by them: a table with the counts and
-- the estimate's fields mults, fill_edges and mults_limit (the limit's
-- name), lua_steps, per_replay, replay_work, reach_work, hub_work (hub_lua:
-- a Lua rule), sweeps, sweeps_work (absent: nothing to say).  opts: budget (for
-- anneal, exact), strategy ("reverse", "forward": sweeps instead), counts
-- (lg:scale_counts(LIMITS.reach_work) of lg as it is, when already known).
function M.estimate(lg, spec, mode, opts)
  opts = opts or {}
  mode = mode or "vertex"
  local s = opts.counts or lg:scale_counts(M.LIMITS.reach_work)
  local c = lg:counts()
  local est = { counts = s, independents = c.independents, dependents = c.dependents }
  local name = first_rule(spec)
  local budget = math.tointeger(opts.budget) or 200
  if opts.strategy == "reverse" or opts.strategy == "forward" then
    est.sweeps = opts.strategy == "reverse" and c.dependents or c.independents
    est.sweeps_work = est.sweeps * s.edges
  elseif blind[name] then
    est.mults, est.fill_edges = blind[name](s)
    est.mults_limit = name == "random" and "random_mults" or mode == "vertex" and "mults" or "x_mults"
  elseif name == "relative-markowitz" then
    est.reach_work = (c.vertices + s.edges) * ((c.independents + 63) // 64 + (c.dependents + 63) // 64)
  elseif name == "anneal" or name == "exact" then
    est.per_replay = s.edges + math.sqrt(s.forward_mults * s.reverse_mults) -- an order partly scrambled
    est.replay_work = budget * est.per_replay
    if mode ~= "vertex" then est.lua_steps = budget * s.edges end
  end
  if (mode == "edge" and name == "min-fill") or (mode ~= "vertex" and lua_rule(spec)) then
    est.hub_work, est.hub_lua = s.edges * s.max_component, lua_rule(spec)
  end
  return est
end

-- Why est is over a limit and what bounds it, or nil.
local function over(est, name)
  local L = M.LIMITS
  local key = est.mults_limit
  if key and est.mults > L[key] then
    return ("it would perform about %s multiplications and create %s edges (%s independents, %s dependents, "
      .. "%s edges), over elim.LIMITS.%s = %s; bound it with --order markowitz, "
      .. "or raise the limit with --limit %s=N"):format(fig(est.mults), fig(est.fill_edges),
      fig(est.independents), fig(est.dependents), fig(est.counts.edges), key, fig(L[key]), key)
  end
  if est.lua_steps and est.lua_steps > L.lua_steps then
    local b = math.max(0, L.lua_steps // math.max(est.counts.edges, 1))
    return ("--budget %d evaluations x %s edges = %s edge steps replayed in Lua, over elim.LIMITS.lua_steps = %s; "
      .. "bound it with --budget %d (opts.budget), or raise the limit with --limit lua_steps=N")
      :format(est.lua_steps // math.max(est.counts.edges, 1), fig(est.counts.edges), fig(est.lua_steps),
        fig(L.lua_steps), b)
  end
  if est.replay_work and est.replay_work > L.replay_work then
    local per = est.per_replay
    return ("%s replays of about %s (edges + sqrt(forward x reverse multiplications)) = %s, over "
      .. "elim.LIMITS.replay_work = %s; bound it with "
      .. "--budget %d (opts.budget), or raise the limit with --limit replay_work=N")
      :format(fig(est.replay_work / math.max(per, 1)), fig(per), fig(est.replay_work), fig(L.replay_work),
        math.floor(L.replay_work / math.max(per, 1)))
  end
  if est.reach_work and est.reach_work > L.reach_work then
    return ("its reach counts take %s word operations ((vertices + edges) x (%s + %s) / 64), over "
      .. "elim.LIMITS.reach_work = %s; bound it with --order markowitz, or raise the limit with "
      .. "--limit reach_work=N"):format(fig(est.reach_work), fig(est.independents), fig(est.dependents),
      fig(L.reach_work))
  end
  if est.hub_work and est.hub_work > L.hub_work then
    return ("%s edges x %s intermediates in the largest component = %s, over elim.LIMITS.hub_work = %s (the "
      .. "%s candidates around a vertex whose lists grow with its component are rescored at every step%s); "
      .. "bound it with --order markowitz (or --mode vertex), or raise the limit with --limit hub_work=N")
      :format(fig(est.counts.edges), fig(est.counts.max_component), fig(est.hub_work), fig(L.hub_work),
        est.hub_lua and "Lua score function's" or "edge", est.hub_lua and ", each a Lua call" or "")
  end
  if est.sweeps_work and est.sweeps_work > L.sweeps_work then
    return ("%s sweeps x %s edges = %s edge visits, over elim.LIMITS.sweeps_work = %s; bound it with "
      .. "--strategy colouring (or elimination), or raise the limit with --limit sweeps_work=N")
      :format(fig(est.sweeps), fig(est.counts.edges), fig(est.sweeps_work), fig(L.sweeps_work))
  end
  return nil
end

--- Can `spec` run in `mode` on lg within M.LIMITS?  true, the estimate; or
-- nil, "<why: the estimate>; bound it with <option>", the estimate.
-- Costs lg:scale_counts (O(edges x (n + m) / 64) at most LIMITS.reach_work)
-- and nothing when the spec is a Lua rule or a built-in rule bounded by
-- itself (markowitz, min-fill, lmmd, momr; best skips the candidates that
-- do not fit).
function M.check_scale(lg, spec, mode, opts)
  opts = opts or {}
  local name = first_rule(spec)
  local st = opts.strategy
  if not (blind[name] or name == "relative-markowitz" or name == "anneal" or name == "exact"
          or (mode == "edge" and name == "min-fill") or (mode ~= "vertex" and lua_rule(spec))
          or st == "reverse" or st == "forward") then
    return true
  end
  local est = M.estimate(lg, spec, mode, opts)
  local why = over(est, name)
  if why then return nil, why, est end
  return true, est
end

-- The refusal as the drivers return it: "<ordering> (<mode> elimination): <why>".
local function refusal(spec, mode, why)
  return ("%s (%s elimination): %s"):format(first_rule(spec) or "lua", mode, why)
end

-- }====

-- A small seeded generator (xorshift64*) for anneal.
local function rng(seed)
  local s = (seed * 2654435761 + 88172645463325252) & 0x7fffffffffffffff
  if s == 0 then s = 1 end
  return function(lo, hi)
    s = s ~ (s << 13)
    s = s ~ (s >> 7)
    s = s ~ (s << 17)
    return lo + ((s >> 11) & 0x1fffffffffffff) % (hi - lo + 1)
  end
end

-- Is err the memory limit's (CGWB_MEMORY_LIMIT) error?  The core raises
-- those; a driver trying several orders skips the ones that do not fit.
local function over_limit(err)
  return type(err) == "string" and err:find("(CGWB_MEMORY_LIMIT)", 1, true) ~= nil
end
--- Whether an error is the memory limit's: (err) -> boolean (CGWB_MEMORY_LIMIT; a driver
-- trying several orders skips the ones that do not fit).
-- @function over_limit
M.over_limit = over_limit

-- Cost of replaying `order` on a copy of lg (math.huge past the memory limit).
local function replay_cost(lg, order)
  local c <close> = lg:copy()
  local ok, cost = pcall(c.replay, c, order, "anneal")
  if ok then return cost.mults end
  if over_limit(cost) then return math.huge end
  error(cost, 0)
end

-- Simulated annealing over elimination orders (seeded, budgeted): starts
-- from the Markowitz order; a move swaps two positions.
-- opts.budget: evaluations, an integer from 0 to M.MAX_BUDGET (default 200);
-- opts.seed: an integer from 0 to 2^53 (default 1).
M.MAX_BUDGET, M.MAX_SEED = 10000000, 2 ^ 53
local function check_int(v, what, hi)
  if v ~= nil and (math.type(v) ~= "integer" and not (type(v) == "number" and v == math.floor(v))
      or v < 0 or v > hi) then
    error(("%s must be an integer from 0 to %.0f, got %s"):format(what, hi, tostring(v)), 3)
  end
  return v and math.tointeger(v)
end

--- Simulated annealing over vertex elimination orders: (lg, opts) -> cost, {order};
-- starts from the Markowitz order, seeded (opts.seed) and budgeted (opts.budget
-- evaluations, default 200; see above).
function M.anneal(lg, opts)
  opts = opts or {}
  local budget = check_int(opts.budget, "anneal: budget", M.MAX_BUDGET) or 200
  local rand = rng(check_int(opts.seed, "anneal: seed", M.MAX_SEED) or 1)
  local c0 <close> = lg:copy()
  local _, order = c0:eliminate({ "markowitz" })
  local cur = replay_cost(lg, order)
  local best, best_order = cur, { table.unpack(order) }
  local temp = math.max(1, cur * 0.02)
  if #order < 2 then return best_order, best end
  local r = progress.start("annealing", budget)
  for k = 1, budget do
    r:update(k - 1)
    local i, j = rand(1, #order), rand(1, #order)
    order[i], order[j] = order[j], order[i]
    local c = replay_cost(lg, order)
    if c <= cur or math.exp((cur - c) / temp) > rand(0, 1000000) / 1e6 then
      cur = c
      if c < best then best, best_order = c, { table.unpack(order) } end
    else
      order[i], order[j] = order[j], order[i]
    end
    temp = temp * 0.97
  end
  r:finish(budget)
  return best_order, best
end

--- The cheapest of the built-in orderings (and exact, where it can be
-- proven); ties go to the earlier name.  Returns order, mults, name.
function M.best(lg, opts)
  opts = opts or {}
  local best, best_order, best_name
  local names = { "reverse" } -- first: ties go toward reverse mode, as the core's final tie-break
  for _, name in ipairs(M.ordering_names("vertex", true, true)) do
    if name ~= "reverse" then names[#names + 1] = name end
  end
  -- forward's and reverse's costs are known before they run (lg:scale_counts):
  -- each runs only if it is the cheapest, so best on a gradient does not pay
  -- forward's fill to learn it loses.
  local sc = lg:scale_counts(M.LIMITS.reach_work)
  local known = not sc.partial and { forward = sc.forward_mults, reverse = sc.reverse_mults } or {}
  local last_err
  local r = progress.start("trying orderings", #names + 1)
  local function try(name) -- mults, order; nil past the memory limit
    local c <close> = lg:copy()
    local ok, cost, order = pcall(c.eliminate, c, { name })
    if not ok and not over_limit(cost) then error(cost, 0) end
    if not ok then last_err = cost return nil end -- past the memory limit: not a candidate
    return cost.mults, order
  end
  local cands = {}
  for i, name in ipairs(names) do
    r:update(i - 1)
    if M.check_scale(lg, name, "vertex", { budget = opts.budget, counts = sc }) then -- over elim.LIMITS: not a candidate
      if known[name] then cands[#cands + 1] = { name = name, mults = known[name] }
      else
        local m, o = try(name)
        if m then cands[#cands + 1] = { name = name, mults = m, order = o } end
      end
    end
  end
  while not best do -- the first of the cheapest; a deferred one runs now
    local pick
    for _, cd in ipairs(cands) do
      if not cd.dropped and (not pick or cd.mults < pick.mults) then pick = cd end
    end
    if not pick then break end
    if not pick.order then pick.mults, pick.order = try(pick.name) end
    if pick.order then best, best_order, best_name = pick.mults, pick.order, pick.name
    else pick.dropped = true end
  end
  if not best then r:finish(); error(last_err, 0) end
  r:update(#names)
  local c <close> = lg:copy()
  local ok, mults, order = pcall(c.exact, c, opts.max_component or 16)
  r:finish(#names + 1)
  if not ok and not over_limit(mults) then error(mults, 0) end
  if not ok then mults = nil end -- past the memory limit: not a candidate
  if mults and mults < best then best, best_order, best_name = mults, order, "exact" end
  return best_order, best, best_name
end

-- {==== the exact search ====}

M.DEFAULT_TIME_LIMIT = 60

--- The optimal vertex order by branch and bound over elimination states
-- (csrc/elim/cg_search.c), per component of intermediates; lg is not changed.
-- opts: time_limit (seconds for the search, > 0, default 60), incumbent (a
-- vertex order to start from; default: the cheaper of M.best's and
-- M.anneal's), bound (function(view) -> a lower bound of what is left to
-- pay), builtin (the built-in bound used without one: "paths", "flow" or
-- "pairs", the default and strongest), branch (function(view, candidates) ->
-- the candidates reordered), progress (a line on stderr), max_nodes, seed and
-- budget (for anneal).
-- Returns { mults, lower_bound, proven, order, nodes, seconds, root_bound,
-- components = { {size, mults, lower_bound, root_bound, nodes, proven}, ... } }
-- or nil, message.
function M.exact(lg, opts)
  opts = opts or {}
  local limit = opts.time_limit or M.DEFAULT_TIME_LIMIT
  if type(limit) ~= "number" or not (limit > 0) or limit == math.huge then
    return nil, ("exact: time_limit must be a number of seconds > 0, got %s"):format(tostring(limit))
  end
  local incumbent = opts.incumbent
  if incumbent == nil then
    local border, bmults = M.best(lg, opts)
    local aorder, amults = M.anneal(lg, opts)
    incumbent = amults < bmults and aorder or border
  end
  return lg:search { time_limit = limit, incumbent = incumbent, bound = opts.bound, branch = opts.branch,
                     progress = opts.progress, max_nodes = opts.max_nodes, builtin = opts.builtin }
end

-- }====

-- Runs a { choose = f } spec: f(lg, candidates) -> vertex, each step.
local function run_choose(lg, f, name)
  local order, total = {}, { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0, peak_edges = 0 }
  while true do
    local cand = lg:intermediates()
    if #cand == 0 then break end
    local v = f(lg, cand)
    if math.type(v) ~= "integer" or v < 1 or v > lg:nv() or lg:kind(v) ~= "intermediate" then
      error(("choose returned %s, not a remaining intermediate"):format(tostring(v)), 0)
    end
    local c = lg:elim_vertex(v, name)
    for k, x in pairs(c) do
      if k == "peak_edges" then total[k] = math.max(total[k], x) else total[k] = total[k] + x end
    end
    order[#order + 1] = v
  end
  return total, order
end

--- Eliminates every intermediate of lg (in place) under spec.
-- Returns cost, order, the ordering's name; or nil and a message.
function M.eliminate(lg, spec, opts)
  opts = opts or {}
  local fits, why = M.check_scale(lg, spec, "vertex", opts)
  if not fits then return nil, refusal(spec, "vertex", why) end
  if spec == "exact" or spec == "anneal" or spec == "best" then
    local order, name, _ -- `_` too: an undeclared one is a global write
    if spec == "exact" then
      local res, err = M.exact(lg, opts)
      if not res then return nil, err end
      return lg:replay(res.order, "exact"), res.order, "exact", res
    elseif spec == "anneal" then
      order = M.anneal(lg, opts)
    else
      order, _, name = M.best(lg, opts)
    end
    name = name and (spec .. ":" .. name) or spec
    return lg:replay(order, name), order, name
  end
  if type(spec) == "table" and spec.replay then return lg:replay(spec.replay), spec.replay, "replay" end
  if type(spec) == "table" and spec.choose then
    local cost, order = run_choose(lg, spec.choose, spec.name or "lua")
    return cost, order, spec.name or "lua"
  end
  local cs, err = M.core_spec(spec)
  if not cs then return nil, err end
  if type(spec) == "string" then cs.seed = opts.seed end -- for the rows that need one (random)
  local cost, order = lg:eliminate(cs)
  if not cost then return nil, order end
  return cost, order, type(spec) == "string" and spec or (type(spec) == "table" and spec.name) or "lua"
end

--- Loads an ordering from a Lua file: it returns a spec (see above).  The
-- file is a plug-in (cgwb.util.plugin: an environment of its own, `cgwb`
-- preloaded, run once); `nil, message` when it cannot be loaded or returns nothing.
function M.load_order(path)
  local spec, err = require("cgwb.util.plugin").pload(path, { mode = "bt", on_error = "raw",
    expect = function(v, file)
      if v == nil then return nil, file .. ": the ordering file returns nothing" end
      return v
    end })
  if spec == nil then return nil, err end
  return spec
end

--- Resolves a --order argument: a built-in name (or chain) or a .lua file.
-- mode: "vertex" (default), "edge" or "face"; names are checked for it.
function M.resolve(arg, mode)
  mode = mode or "vertex"
  if arg == nil then return "markowitz" end
  if arg:match("%.lua$") then return M.load_order(arg) end
  for _, name in ipairs(M.ordering_names(mode)) do
    if arg == name then return arg end -- drivers too
  end
  local ok, err
  if mode == "vertex" then ok, err = M.core_spec(arg)
  else ok, err = M.x_spec(arg, mode == "edge" and M.edge_builtin or M.face_builtin) end
  if not ok then return nil, err end
  return arg
end

--- Linearized graph of a tape (path or cgwb.Tape) at its point or `at`.
-- Returns lg, the number of branch records and conditionals whose outcome at
-- `at` differs from taping, and the first of them (a 1-based record, nil when
-- none): lg is the recorded branch's graph, so its derivatives are f's at
-- `at` only when the count is 0.  Or nil, message.
function M.linearize(tape, opts)
  local cgwb = require "cgwb"
  local g, err = cgwb.build_graph(tape, opts)
  if not g then return nil, err end
  local lg, err2 = core.linearize(g)
  g:free()
  if not lg then return nil, err2 end
  local changes, first = lg:branch_changes()
  return lg, changes, first
end

-- {==== edge and face modes ====}

M.edge_builtin = M.ordering_names("edge", true)
M.face_builtin = M.ordering_names("face", true)

--- The spec of an edge or face ordering as the core takes it: a chain of
-- names ("markowitz,forward"), where the words `front` or `back` restrict
-- edge elimination to one side and `lowest` breaks the final ties toward
-- the lowest ids; functions and tables pass through.
function M.x_spec(spec, names, opts)
  if type(spec) ~= "string" then return spec end
  local ok = {}
  for _, n in ipairs(names) do ok[n] = true end
  local rules = { seed = opts and opts.seed }
  for name in spec:gmatch("[^,%s]+") do
    if name == "front" or name == "back" then rules.sides = name
    elseif name == "lowest" then rules.lowest_first = true
    elseif ok[name] then rules[#rules + 1] = name
    else return nil, unknown_ordering(name, names == M.face_builtin and "face" or "edge") end
  end
  if #rules == 0 then rules[1] = "markowitz" end
  return rules
end

-- Replays recorded edge steps {{i, j, "front"|"back"}, ...}, then finishes
-- with any intermediates left (vertex elimination, in id order).
local function replay_edges(lg, steps, name)
  local total = { mults = 0, mults_nontrivial = 0, adds = 0, fill = 0, steps = 0, peak_edges = 0 }
  local function add(c)
    for k, x in pairs(c) do
      if k == "peak_edges" then total[k] = math.max(total[k], x) else total[k] = total[k] + x end
    end
  end
  for _, st in ipairs(steps) do add(lg:elim_edge(st[1], st[2], st[3], name)) end
  for _, v in ipairs(lg:intermediates()) do add(lg:elim_vertex(v, name)) end
  return total
end

-- The cheapest of the built-in rules of a mode: order, cost, name.
local function x_best(lg, names, run, opts)
  local best, best_steps, best_name, last_err
  local fixed = {}
  for _, o in ipairs(M.orderings) do fixed[o.name] = not o.driver and not o.needs.seed end
  local r = progress.start("trying orderings", #names)
  for i, name in ipairs(names) do
    r:update(i - 1)
    if fixed[name] and M.check_scale(lg, name, names == M.face_builtin and "face" or "edge", opts) then
      local c <close> = lg:copy()
      local ok, cost, steps = pcall(run, c, M.x_spec(name, names, opts))
      if not ok and not over_limit(cost) then error(cost, 0) end
      if not ok then last_err = cost -- past the memory limit: not a candidate
      elseif not best or cost.mults < best.mults then best, best_steps, best_name = cost, steps, name end
    end
  end
  r:finish(#names)
  if not best then error(last_err, 0) end
  return best_steps, best, best_name
end

-- {==== translations: vertex and edge orders as edge and face steps ====}

--- The edge steps of a vertex order (Hovland, Norris, Utke & Strout, sec. 1):
-- eliminating v is back-eliminating each of its out-edges (v, k) in turn,
-- |in(v)| multiplications each, the same products w(i, v) * w(v, k) added
-- into the same edges (i, k), the last one removing v.  Returns
-- {{v, k, "back"}, ...} (1-based), which replay to the order's
-- multiplications and Jacobian; or nil and a message (lg is unchanged).
function M.vertex_to_edges(lg, order)
  local c <close> = lg:copy()
  local steps = {}
  for q, v in ipairs(order) do
    if math.type(v) ~= "integer" or v < 1 or v > c:nv() or c:kind(v) ~= "intermediate" then
      return nil, ("vertex_to_edges: step %d: %s is not a remaining intermediate"):format(q, tostring(v))
    end
    for _, k in ipairs(c:succs(v)) do steps[#steps + 1] = { v, k, "back" } end
    c:elim_vertex(v, "vertex_to_edges")
  end
  return steps
end

--- The face steps of edge steps (Naumann 2004): front-eliminating (i, j) is
-- eliminating the faces (i, j) -> (j, k) for every out-edge (j, k), back-
-- eliminating (j, k) the faces (i, j) -> (j, k) for every in-edge (i, j); the
-- intermediates edge steps leave are finished as replay does (by vertex, in
-- id order: all faces through them).  While the steps are these, the line
-- graph stays the line graph of the edge-eliminated graph (one vertex per
-- label, so every rank is the first), each product is absorbed exactly
-- where the edge step adds into an existing edge, and the count is the
-- same.  Returns {{i, j, k}, ...} or nil and a message.
function M.edges_to_faces(lg, steps)
  local c <close> = lg:copy()
  local faces = {}
  for q, st in ipairs(steps) do
    local i, k, side = st[1], st[2], st[3]
    local mid = side == "front" and k or i
    if (side ~= "front" and side ~= "back") or math.type(i) ~= "integer" or math.type(k) ~= "integer"
        or i < 1 or k < 1 or i > c:nv() or k > c:nv() or c:kind(mid) ~= "intermediate"
        or not c:weight(i, k) then
      return nil, ("edges_to_faces: step %d: no eliminable edge %s -> %s (%s)")
        :format(q, tostring(i), tostring(k), tostring(side))
    end
    if side == "front" then
      for _, l in ipairs(c:succs(k)) do faces[#faces + 1] = { i, k, l } end
    else
      for _, h in ipairs(c:preds(i)) do faces[#faces + 1] = { h, i, k } end
    end
    c:elim_edge(i, k, side, "edges_to_faces")
  end
  for _, v in ipairs(c:intermediates()) do
    for _, h in ipairs(c:preds(v)) do
      for _, l in ipairs(c:succs(v)) do faces[#faces + 1] = { h, v, l } end
    end
    c:elim_vertex(v, "edges_to_faces")
  end
  return faces
end

--- The face steps of a vertex order: vertex_to_edges, then edges_to_faces.
function M.vertex_to_faces(lg, order)
  local steps, err = M.vertex_to_edges(lg, order)
  if not steps then return nil, err end
  return M.edges_to_faces(lg, steps)
end

-- {==== edge-level search ====}

-- Replays edge steps on a copy of lg, skipping the ones that are not
-- possible then (the edge is gone, or its middle vertex is no intermediate
-- any more), and finishes the intermediates left by back-eliminating their
-- out-edges (vertex elimination, in id order).  Returns the multiplications
-- (math.huge past the memory limit) and the steps done.
local function edge_decode(lg, steps)
  local c <close> = lg:copy()
  local done, mults = {}, 0
  local function step(i, k, side)
    local ok, cost = pcall(c.elim_edge, c, i, k, side, "anneal")
    if not ok then
      if over_limit(cost) then return false end
      error(cost, 0)
    end
    mults = mults + cost.mults
    done[#done + 1] = { i, k, side }
    return true
  end
  for _, st in ipairs(steps) do
    local i, k, side = st[1], st[2], st[3]
    if c:kind(side == "front" and k or i) == "intermediate" and c:weight(i, k) then
      if not step(i, k, side) then return math.huge, done end
    end
  end
  for _, v in ipairs(c:intermediates()) do
    for _, k in ipairs(c:succs(v)) do
      if not step(v, k, "back") then return math.huge, done end
    end
  end
  return mults, done
end

-- Simulated annealing over edge step sequences (seeded, budgeted), from
-- `steps` (a complete sequence costing `mults`).  A move swaps two steps,
-- moves one step elsewhere or switches a step's side (front <-> back: the
-- other end becomes the middle); the sequence is then decoded (edge_decode:
-- impossible steps skipped, the rest finished), so every state is a valid
-- elimination.  Returns the best steps and their multiplications.
local function edge_anneal(lg, steps, mults, opts)
  local budget = check_int(opts.budget, "anneal: budget", M.MAX_BUDGET) or 200
  local rand = rng(check_int(opts.seed, "anneal: seed", M.MAX_SEED) or 1)
  local cur, cur_steps = mults, steps
  local best, best_steps = mults, steps
  local temp = math.max(1, cur * 0.02)
  if #steps < 1 then return best_steps, best end
  local r = progress.start("annealing edges", budget)
  for k = 1, budget do
    r:update(k - 1)
    local s, n = {}, #cur_steps
    for q = 1, n do s[q] = cur_steps[q] end
    local move, p = rand(1, 3), rand(1, n)
    if move == 1 then
      local q = rand(1, n)
      s[p], s[q] = s[q], s[p]
    elseif move == 2 then
      local st = table.remove(s, p)
      table.insert(s, rand(1, n), st)
    else
      local st = s[p]
      s[p] = { st[1], st[2], st[3] == "front" and "back" or "front" }
    end
    local c, done = edge_decode(lg, s)
    if c <= cur or math.exp((cur - c) / temp) > rand(0, 1000000) / 1e6 then
      cur, cur_steps = c, done
      if c < best then best, best_steps = c, done end
    end
    temp = temp * 0.97
  end
  r:finish(budget)
  return best_steps, best
end

-- The edges of c as a string (the state of an edge elimination: its future
-- costs depend on nothing else).
local function edge_state(c)
  local parts = {}
  for v = 1, c:nv() do
    local s = c:succs(v)
    if #s > 0 then parts[#parts + 1] = v .. ">" .. table.concat(s, ",") end
  end
  return table.concat(parts, ";")
end

-- Are all intermediates of c alive with in- and out-edges (the invariant
-- the lower bound below needs)?
local function live_intermediates(c)
  local n = 0
  for _, v in ipairs(c:intermediates()) do
    if c:in_degree(v) == 0 or c:out_degree(v) == 0 then return nil end
    n = n + 1
  end
  return n
end

--- Branch and bound over edge elimination states (depth first, cheapest
-- step first, states memoised with the cheapest cost they were reached at),
-- from an incumbent.  The lower bound of a state is its cost plus the
-- number of intermediates left.  Proof: when every intermediate has in- and
-- out-edges, the steps keep it so (a front step removing j's last in-edge
-- removes j, a back step removing its last out-edge too).  Then an in-edge
-- (i, j) of an intermediate j leaves only by a front step with middle j, or
-- by a back step with middle i that adds (h, j) for every in-edge (h, i) of
-- i, of which there is one: so in(j) never empties, and j never goes,
-- without a step whose middle is j (likewise out(j)).  Steps with different
-- middles are different steps, and each costs |out(j)| or |in(j)| >= 1.
-- (Edge elimination can beat vertex elimination, so the vertex optimum is
-- no bound here.)  A graph whose intermediates lack in- or out-edges gets
-- the bound 0 beyond the cost.  Returns steps, mults, lower_bound, nodes;
-- the search is complete (lower_bound = mults) unless the deadline stopped it.
local function edge_bnb(lg, steps, mults, deadline)
  local best, best_steps = mults, steps
  local seen, path, nodes, complete = {}, {}, 0, true
  local bounded = live_intermediates(lg) ~= nil
  local function rec(c, cost)
    nodes = nodes + 1
    if os.clock() > deadline then complete = false return end
    local inter = c:intermediates()
    local left = bounded and #inter or 0
    if #inter == 0 then
      if cost < best then best, best_steps = cost, { table.unpack(path) } end
      return
    end
    if cost + left >= best then return end
    local key = edge_state(c)
    if seen[key] and seen[key] <= cost then return end
    seen[key] = cost
    local kids = {}
    for _, j in ipairs(inter) do
      local ins, outs = c:preds(j), c:succs(j)
      for _, i in ipairs(ins) do kids[#kids + 1] = { i, j, "front", #outs } end
      for _, k in ipairs(outs) do kids[#kids + 1] = { j, k, "back", #ins } end
    end
    if #kids == 0 then -- intermediates without in- or out-edges only: free to finish
      if cost < best then best, best_steps = cost, { table.unpack(path) } end
      return
    end
    table.sort(kids, function(a, b)
      if a[4] ~= b[4] then return a[4] < b[4] end
      if a[1] ~= b[1] then return a[1] < b[1] end
      if a[2] ~= b[2] then return a[2] < b[2] end
      return a[3] < b[3]
    end)
    for _, kid in ipairs(kids) do
      if cost + kid[4] + math.max(left - 1, 0) >= best or not complete then break end
      local d <close> = c:copy()
      local r = d:elim_edge(kid[1], kid[2], kid[3], "exact")
      path[#path + 1] = { kid[1], kid[2], kid[3] }
      rec(d, cost + r.mults)
      path[#path] = nil
    end
  end
  local root <close> = lg:copy()
  rec(root, 0)
  if complete then return best_steps, best, best, nodes end
  return best_steps, best, math.min(bounded and live_intermediates(lg) or 0, best), nodes
end

-- {==== edge and face drivers ====}

M.X_EXACT_MAX = 20 -- intermediates, as the vertex mode's subset dynamic programming

-- The vertex mode's result for a driver spec ("best", "anneal", "exact"):
-- order, mults, the exact search's result (when it ran).  Exact without
-- the exact search (elim.exact) uses the subset dynamic programming where
-- every component is small enough, else the best heuristic.
local function vertex_result(lg, spec, opts)
  if spec == "best" then
    local o, m = M.best(lg, opts)
    return o, m
  elseif spec == "anneal" then
    local o, m = M.anneal(lg, opts)
    return o, m
  end
  if M.exact then
    local r = M.exact(lg, opts)
    return r.order, r.mults, r
  end
  local c <close> = lg:copy()
  local ok, m, o = pcall(c.exact, c, opts.max_component or M.X_EXACT_MAX)
  if ok and m then return o, m end
  if not ok and not over_limit(m) then error(m, 0) end
  local o2, m2 = M.best(lg, opts)
  return o2, m2
end

local function run_edges(g, s) return g:eliminate_edges(s) end
local function run_faces(g, s) return g:eliminate_faces(s) end

-- Edge mode's best, anneal or exact: steps, mults, name, extra.  The
-- candidates: the vertex mode's order for the same spec translated (so the
-- result never costs more), the edge rules' best; anneal and exact then
-- search edge step sequences from the cheaper, exact last runs the branch
-- and bound where the graph has at most opts.max_component (X_EXACT_MAX)
-- intermediates.
local function edge_result(lg, spec, opts)
  local t0 = os.clock() -- exact: one time limit for the vertex search and the edge one together
  local vorder, vmults, vres = vertex_result(lg, spec, opts)
  local steps, mults, name = assert(M.vertex_to_edges(lg, vorder)), vmults, "vertex"
  local hsteps, hcost, hname = x_best(lg, M.edge_builtin, run_edges, opts)
  if hcost.mults < mults then steps, mults, name = hsteps, hcost.mults, hname end
  local extra = { vertex_mults = vmults }
  if spec ~= "best" then
    local s, m = edge_anneal(lg, steps, mults, opts)
    if m < mults then steps, mults, name = s, m, "search" end
  end
  if spec == "exact" then
    local limit = opts.time_limit or 60
    local small = lg:counts().intermediates <= (opts.max_component or M.X_EXACT_MAX)
    local lb, nodes = math.min(live_intermediates(lg) or 0, mults), 0
    if small then
      local s, m
      s, m, lb, nodes = edge_bnb(lg, steps, mults, t0 + limit)
      if m < mults then steps, mults, name = s, m, "branch-and-bound" end
    end
    extra.lower_bound, extra.proven, extra.nodes = lb, lb == mults, nodes
    if vres and vres.lower_bound then extra.vertex_lower_bound = vres.lower_bound end
  end
  extra.better = mults < vmults
  return steps, mults, name, extra
end

-- Face mode's best, anneal or exact: the edge mode's result for the same
-- spec translated (so neither the vertex nor the edge result is cheaper)
-- and the face rules' best.
local function face_result(lg, spec, opts)
  local esteps, emults, ename, eextra = edge_result(lg, spec, opts)
  local steps, mults, name = assert(M.edges_to_faces(lg, esteps)), emults, "edge-" .. ename
  local hsteps, hcost, hname = x_best(lg, M.face_builtin, run_faces, opts)
  if hcost.mults < mults then steps, mults, name = hsteps, hcost.mults, hname end
  local extra = { vertex_mults = eextra.vertex_mults, edge_mults = emults, better = mults < eextra.vertex_mults }
  return steps, mults, name, extra
end

-- A driver for `cgwb ... --mode edge|face`: (lg, spec, opts) -> cost, steps, name [, extra].
local function x_driver(names, method, replay, result)
  local mode = method == "eliminate_edges" and "edge" or "face"
  return function(lg, spec, opts)
    opts = opts or {}
    local fits, why = M.check_scale(lg, spec, mode, opts)
    if not fits then return nil, refusal(spec, mode, why) end
    local run = function(g, s) return g[method](g, s) end
    if spec == "best" or spec == "anneal" or spec == "exact" then
      local steps, _, name, extra = result(lg, spec, opts)
      name = spec .. ":" .. name
      return replay(lg, steps, name), steps, name, extra
    end
    if type(spec) == "table" and spec.replay then return replay(lg, spec.replay, "replay"), spec.replay, "replay" end
    if type(spec) == "table" and spec.choose then
      return nil, "this ordering is available for vertex elimination only"
    end
    local cs, err = M.x_spec(spec, names, opts)
    if not cs then return nil, err end
    local cost, steps = run(lg, cs)
    return cost, steps, type(spec) == "string" and spec or (type(spec) == "table" and spec.name) or "lua"
  end
end

-- The drivers anneal and exact serve edge and face modes too (edge_result).
for _, o in ipairs(M.orderings) do
  if o.name == "anneal" or o.name == "exact" then
    o.modes = "VEF"
    o.about = o.about .. (o.name == "anneal" and "; edge, face: over edge steps from the vertex result"
      or "; edge: branch and bound (20 intermediates), face: the edge result")
  end
end

M.modes = M.modes or {}
--- The edge-elimination driver: (lg, spec) -> cost, steps; spec as lg:eliminate_edges takes
-- it, plus the drivers anneal and exact.
-- @function modes.edge
M.modes.edge = x_driver(M.edge_builtin, "eliminate_edges", replay_edges, edge_result)
--- The face-elimination driver: (lg, spec) -> cost, steps; spec as lg:eliminate_faces takes
-- it, plus the drivers anneal and exact.
-- @function modes.face
M.modes.face = x_driver(M.face_builtin, "eliminate_faces",
                        function(lg, steps, name) return lg:replay_faces(steps, name) end, face_result)

-- {==== strategies ====}

-- How the Jacobian is accumulated on the linearized graph: by elimination
-- (the orderings above) or by compressed sweeps over the same graph, the
-- standard alternative (Gebremedhin, Manne & Pothen 2005): the
-- sparsity pattern, a colouring of its columns or rows, one tangent or
-- adjoint sweep per colour, each entry read off its colour's sweep.  A row:
-- name, about (for --help), run(lg, a) -> J, info (or nil, message), with a
-- the options { order =, mode =, seed =, budget =, side =, colouring_order = }
-- and info { mults =, mults_nontrivial =, adds =, ... } in cg_cost's
-- accounting (the sweeps: one multiplication per edge and sweep).  A new
-- strategy is one row and one function here.

-- Compressed sweeps: J, info with colours and sweeps (lg unchanged).
local function sweeps(side, trivial)
  return function(lg, a)
    if trivial then
      local st = side == "row" and "reverse" or "forward"
      local fits, why = M.check_scale(lg, nil, "vertex", { strategy = st })
      if not fits then return nil, ("strategy %s: %s"):format(st, why) end
    end
    return lg:jacobian_coloured { side = side or a.side or "column", trivial = trivial,
                                  order = not trivial and a.colouring_order or nil }
  end
end

-- Elimination under a.order and a.mode (lg is eliminated in place).
local function by_elimination(lg, a)
  local mode = a.mode or "vertex"
  local cost, order, name, extra
  if mode == "vertex" then
    cost, order, name, extra = M.eliminate(lg, a.order or "markowitz", a)
  elseif M.modes[mode] then
    cost, order, name, extra = M.modes[mode](lg, a.order or "markowitz", a)
  else
    return nil, ("unknown mode '%s'"):format(tostring(mode))
  end
  if not cost then return nil, order end
  local J, err = lg:jacobian()
  if not J then return nil, err end
  return J, { mults = cost.mults, mults_nontrivial = cost.mults_nontrivial, adds = cost.adds,
              fill = cost.fill, steps = cost.steps, peak_edges = cost.peak_edges,
              order = order, name = name, extra = extra, cost = cost }
end

M.strategies = {
  { name = "elimination", run = by_elimination,
    about = "vertex, edge or face elimination under --order and --mode (the default)" },
  { name = "colouring", run = sweeps(nil, false),
    about = "ColPack partial distance-2 colouring of the columns (--side column: one tangent sweep "
      .. "per colour) or rows (--side row: one adjoint sweep per colour), --colouring-order" },
  { name = "reverse", run = sweeps("row", true),
    about = "one adjoint sweep per dependent (for a gradient: one reverse sweep)" },
  { name = "forward", run = sweeps("column", true), about = "one tangent sweep per independent" },
}

--- The row of the strategy named, or nil and a message listing them.
function M.strategy(name)
  for _, s in ipairs(M.strategies) do
    if s.name == name then return s end
  end
  return nil, ("unknown strategy '%s' (%s)"):format(tostring(name), table.concat(M.strategy_names(), ", "))
end

--- The strategies' names, in registry order.
function M.strategy_names()
  local names = {}
  for _, s in ipairs(M.strategies) do names[#names + 1] = s.name end
  return names
end

-- {==== formats ====}

--- A graph from the text of a .cg or EliAD file (EliAD has a "CG = [" line).
function M.read_graph_text(text, path)
  if text:find("\nCG%s*=%s*%[") or text:find("^CG%s*=%s*%[") then return core.read_eliad(text, path) end
  return core.read_cg(text, path)
end

-- {==== independent replay and preaccumulation code ====}

-- Structure of lg in Lua tables: pred[v], succ[v] as sets.
local function lua_structure(lg)
  local pred, succ = {}, {}
  for v = 1, lg:nv() do pred[v], succ[v] = {}, {} end
  for v = 1, lg:nv() do
    for _, p in ipairs(lg:preds(v)) do pred[v][p], succ[p][v] = true, true end
  end
  return pred, succ
end

local function sorted_keys(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end

--- Replays a vertex order on a Lua copy of lg's structure (not through the
-- core): returns the multiplications (sum of |in| * |out| at elimination)
-- and, when emit is given, calls emit(kind, dst, a, b) for each product:
-- kind "new" (dst = a * b) or "add" (dst += a * b); edges are keys i..":"..k.
function M.simulate(lg, order, emit)
  local pred, succ = lua_structure(lg)
  local mults = 0
  for _, v in ipairs(order) do
    local ps, ss = sorted_keys(pred[v]), sorted_keys(succ[v])
    mults = mults + #ps * #ss
    for _, i in ipairs(ps) do
      for _, k in ipairs(ss) do
        local new = not succ[i][k]
        if emit then emit(new and "new" or "add", i .. ":" .. k, i .. ":" .. v, v .. ":" .. k) end
        succ[i][k], pred[k][i] = true, true
      end
    end
    for _, i in ipairs(ps) do succ[i][v] = nil end
    for _, k in ipairs(ss) do pred[k][v] = nil end
    pred[v], succ[v] = {}, {}
  end
  return mults, pred, succ
end

--- C code of the multiply-add sequence that a vertex order performs
-- (Hovland, Norris, Utke & Strout, sec. 1: each elimination generates code): a function
--   void NAME(const double *w, double *J)
-- where w holds the local partials of lg's edges in the order of `inputs`
-- (by head, then tail: {i, k} pairs, 1-based vertices) and J receives the
-- Jacobian's entries in the order of `outputs` ({row, col}, 1-based, sorted
-- by row then column, as lg:jacobian()).  Returns code, inputs, outputs.
function M.preaccumulation_code(lg, order, opts)
  opts = opts or {}
  local name = opts.name or "preaccumulate"
  local slot, inputs, nslot, body = {}, {}, 0, {}
  for v = 1, lg:nv() do
    for _, p in ipairs(lg:preds(v)) do
      inputs[#inputs + 1] = { p, v }
      slot[p .. ":" .. v] = nslot
      body[#body + 1] = ("  e[%d] = w[%d];"):format(nslot, nslot)
      nslot = nslot + 1
    end
  end
  local mults = M.simulate(lg, order, function(kind, dst, a, b)
    if kind == "new" then
      slot[dst] = nslot
      nslot = nslot + 1
      body[#body + 1] = ("  e[%d] = e[%d] * e[%d];"):format(slot[dst], slot[a], slot[b])
    else
      body[#body + 1] = ("  e[%d] += e[%d] * e[%d];"):format(slot[dst], slot[a], slot[b])
    end
  end)
  local outputs, x, y = {}, lg:x(), lg:y()
  for r, yv in ipairs(y) do
    for c, xv in ipairs(x) do
      if xv == yv then
        outputs[#outputs + 1] = { r, c }
        body[#body + 1] = ("  J[%d] = 1.0;"):format(#outputs - 1)
      elseif slot[xv .. ":" .. yv] then
        outputs[#outputs + 1] = { r, c }
        body[#body + 1] = ("  J[%d] = e[%d];"):format(#outputs - 1, slot[xv .. ":" .. yv])
      end
    end
  end
  local code = table.concat({
    ("/* Jacobian preaccumulation by vertex elimination: %d multiplications. */"):format(mults),
    ("void %s(const double *w, double *J);"):format(name),
    ("void %s(const double *w, double *J) {"):format(name),
    ("  static double e[%d];"):format(math.max(nslot, 1)),
    table.concat(body, "\n"), "}", "" }, "\n")
  return code, inputs, outputs, mults
end

return M
