-- cgwb.elim.replay: a vertex order replayed independently of the core (on
-- Lua tables of the graph's structure), and the C code of the
-- multiply-add sequence it performs (preaccumulation).  Internal to
-- cgwb.elim (lua/cgwb/elim/init.lua documents what it exports); it requires
-- nothing of the package.
local M = {}

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

-- elim.simulate (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.preaccumulation_code (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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
