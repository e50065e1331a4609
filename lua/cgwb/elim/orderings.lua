-- cgwb.elim.orderings: the orderings by name: the registry (the core's
-- rules, then the Lua drivers), the names of a mode, the specs of the
-- vertex, edge and face modes as the core takes them, and --order's
-- argument resolved (a name, a chain or a Lua file).  Internal to cgwb.elim
-- (lua/cgwb/elim/init.lua documents what it exports); it requires nothing
-- of the package.
local core = require "cgwb.core"

local M = {}

local mode_letter = { vertex = "V", edge = "E", face = "F" }

-- elim.orderings (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.ordering_names (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.core_spec (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

M.edge_builtin = M.ordering_names("edge", true)
M.face_builtin = M.ordering_names("face", true)

-- elim.x_spec (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

-- elim.load_order (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.load_order(path)
  local spec, err = require("cgwb.util.plugin").pload(path, { mode = "bt", on_error = "raw",
    expect = function(v, file)
      if v == nil then return nil, file .. ": the ordering file returns nothing" end
      return v
    end })
  if spec == nil then return nil, err end
  return spec
end

-- elim.resolve (documented in cgwb.elim, lua/cgwb/elim/init.lua).
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

return M
