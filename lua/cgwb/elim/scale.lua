-- cgwb.elim.scale: what a run will cost, refused up front when too much:
-- the thresholds (LIMITS), the estimate of an ordering in a mode from the
-- graph's cheap counts, and the check and the refusal the drivers return.
-- Internal to cgwb.elim (lua/cgwb/elim/init.lua documents what it exports);
-- it requires nothing of the package.
local M = {}

-- elim.LIMITS (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.estimate (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.check_scale (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- for the drivers of the vertex, edge and face modes
M.refusal = refusal

return M
