-- Generators of random linearized graphs in .cg text (seeded, deterministic),
-- shaped like the graphs elimination is studied on: mostly binary operations
-- on recent values (flux functions, kinematics chains), a few reaching back.
local M = {}

--- A .cg text: n independents, k intermediates, m dependents.
-- opts.window: how far back a "recent" operand reaches (default 6);
-- opts.reach: the chance an operand is any earlier vertex (default 0.2);
-- opts.binary: the chance of two operands (default 0.7).
function M.cg_text(seed, n, k, m, opts)
  opts = opts or {}
  local rnd = require("spec.rng").new(seed)
  local window, reach, binary = opts.window or 6, opts.reach or 0.2, opts.binary or 0.7
  local preds, hassucc = {}, {}
  local function weight() return ("%.17g"):format(rnd:float(-2, 2)) end
  local function add(v, p)
    for _, q in ipairs(preds[v]) do if q == p then return end end
    preds[v][#preds[v] + 1] = p
    hassucc[p] = true
  end
  for v = n, n + k - 1 do -- intermediates
    preds[v] = {}
    for _ = 1, rnd:float(0, 1) < binary and 2 or 1 do
      local p
      if v > n and rnd:float(0, 1) >= reach then p = rnd:int(math.max(n, v - window), v - 1)
      else p = rnd:int(0, v - 1) end
      add(v, p)
    end
  end
  for j = 0, m - 1 do -- dependents: the last intermediates, then any
    local v = n + k + j
    preds[v] = {}
    add(v, k > 0 and n + k - 1 - (j % math.max(1, math.min(k, m))) or rnd:int(0, n - 1))
    if rnd:float(0, 1) < 0.5 then add(v, rnd:int(0, n + k - 1)) end
  end
  for v = n, n + k - 1 do -- every intermediate reaches a dependent
    if not hassucc[v] then add(n + k + rnd:int(0, m - 1), v) end
  end
  local xs, ys, lines = {}, {}, {}
  for i = 0, n - 1 do xs[#xs + 1] = i end
  for j = 0, m - 1 do ys[#ys + 1] = n + k + j end
  lines[1], lines[2] = "X: " .. table.concat(xs, " "), "Y: " .. table.concat(ys, " ")
  for i = 0, n - 1 do if not hassucc[i] then lines[#lines + 1] = i .. ":" end end
  for v = n, n + k + m - 1 do
    local t = {}
    table.sort(preds[v])
    for _, p in ipairs(preds[v]) do t[#t + 1] = p .. ":" .. weight() end
    lines[#lines + 1] = v .. ": " .. table.concat(t, " ")
  end
  return table.concat(lines, "\n") .. "\n"
end

--- The graph itself (a cgwb.LinGraph).
function M.graph(seed, n, k, m, opts)
  return assert(require("cgwb.core").read_cg(M.cg_text(seed, n, k, m, opts), "gen" .. seed .. ".cg"))
end

--- A random DAG (a cgwb.LinGraph): nx independents, ni intermediates, ny
-- dependents, 1..3 predecessors per vertex, every intermediate and every
-- independent used; edge weights drawn in [-2, 2] unless structural is true.
function M.dag(seed, nx, ni, ny, structural)
  local rnd = require("spec.rng").new(seed)
  local nv, by, has, succ = nx + ni + ny, {}, {}, {}
  local function add(p, v)
    if has[p .. ":" .. v] then return end
    has[p .. ":" .. v], succ[p] = true, true
    by[v] = by[v] or {}
    by[v][#by[v] + 1] = structural and tostring(p) or ("%d:%.17g"):format(p, rnd:float(-2, 2))
  end
  for v = nx, nv - 1 do
    for _ = 1, rnd:int(1, 3) do add(rnd:int(0, math.min(v - 1, nx + ni - 1)), v) end
  end
  for u = nx, nx + ni - 1 do
    if not succ[u] then add(u, rnd:int(u + 1, nv - 1)) end
  end
  local x, y = {}, {}
  for i = 0, nx - 1 do
    x[#x + 1] = i
    if not succ[i] then add(i, nx + ni) end
  end
  for i = nx + ni, nv - 1 do y[#y + 1] = i end
  local lines = { "X: " .. table.concat(x, " "), "Y: " .. table.concat(y, " ") }
  for v = 0, nv - 1 do
    if by[v] then lines[#lines + 1] = v .. ": " .. table.concat(by[v], " ") end
  end
  return assert(require("cgwb.core").read_cg(table.concat(lines, "\n") .. "\n", ("dag%d.cg"):format(seed)))
end

return M
