-- spec/48-layers_spec.lua: the Lua modules form the pipeline's layers
-- (doc/hacking.md, "The Lua layout"), as spec 17 checks the C floors.  Every
-- module under lua/cgwb/ has a layer; a module requires (at load or lazily,
-- inside a function) only cgwb.core, modules of lower layers and modules of
-- its own layer, and the requires form no cycle.  The check is shown to
-- fail on an arrow up and on a cycle.
local H = require "spec.helper"

-- Lowest first.  A module's layer: its exact name, else the longest prefix
-- "NAME." listed.
local LAYERS = {
  { "util", { "cgwb.json", "cgwb.progress", "cgwb.util." } },
  { "ir", { "cgwb.ir", "cgwb.ir." } },
  { "front ends", { "cgwb.kparse", "cgwb.kparse.", "cgwb.trace" } },
  { "analyses", { "cgwb.kernel", "cgwb.flatten", "cgwb.loops", "cgwb.elim", "cgwb.elim.", "cgwb.sched",
                  "cgwb.jplan" } },
  { "back ends", { "cgwb.tangent", "cgwb.tangent.", "cgwb.adjoint", "cgwb.adjoint.", "cgwb.xaif", "cgwb.xaif." } },
  { "drivers", { "cgwb.adjoint_measure", "cgwb.sweep", "cgwb.drive." } },
  { "presentation", { "cgwb.report", "cgwb.present." } },
  { "facade", { "cgwb" } },
  { "command line", { "cgwb.cli", "cgwb.cli." } },
}

-- Arrows up that are the design: the plug-in loader gives the user's file
-- the facade as its global `cgwb` (it never calls it itself).
local ALLOWED = {
  ["cgwb.util.plugin -> cgwb"] = "a plug-in file's global cgwb",
  ["cgwb.adjoint -> cgwb.adjoint_measure"] = "adjoint.measure, the API's door to its harness, loads it when called",
}

local function layer_of(name)
  local best, blen
  for i, l in ipairs(LAYERS) do
    for _, p in ipairs(l[2]) do
      local hit = (p:sub(-1) == ".") and name:sub(1, #p) == p or name == p
      if hit and (not blen or #p > blen) then best, blen = i, #p end
    end
  end
  return best
end

-- {module = {required, ...}} of every file under lua/cgwb/.
local function graph()
  local g, p = {}, io.popen("find lua/cgwb -name '*.lua' | sort")
  for f in p:lines() do
    local name = f:match("^lua/(.-)%.lua$"):gsub("/init$", ""):gsub("/", ".")
    local reqs, seen = {}, {}
    local code = H.read(f):gsub("%-%-%[(=*)%[.-%]%1%]", ""):gsub("%-%-[^\n]*", "") -- comments name modules too
    for r in code:gmatch('require%s*%(?%s*"(cgwb[%w_.]*)"') do
      if not seen[r] and r ~= name and r ~= "cgwb.core" then seen[r] = true; reqs[#reqs + 1] = r end
    end
    table.sort(reqs)
    g[name] = reqs
  end
  p:close()
  return g
end

-- The problems of graph g: modules without a layer, arrows up, cycles.
local function problems(g)
  local out, names = {}, {}
  for m in pairs(g) do names[#names + 1] = m end
  table.sort(names)
  for _, m in ipairs(names) do
    local lm = layer_of(m)
    if not lm then out[#out + 1] = m .. ": no layer" end
    for _, r in ipairs(g[m]) do
      local lr = layer_of(r)
      if lm and lr and lr > lm and not ALLOWED[m .. " -> " .. r] then
        out[#out + 1] = ("%s (%s) -> %s (%s): an arrow up"):format(m, LAYERS[lm][1], r, LAYERS[lr][1])
      end
    end
  end
  local state = {} -- depth-first search: 1 on the path, 2 done
  local function visit(m, path)
    if state[m] == 2 or not g[m] then return end
    if state[m] == 1 then
      local from
      for i, x in ipairs(path) do if x == m then from = i end end
      local cyc = { table.unpack(path, from) }
      cyc[#cyc + 1] = m
      out[#out + 1] = "a cycle: " .. table.concat(cyc, " -> ")
      return
    end
    state[m] = 1
    path[#path + 1] = m
    for _, r in ipairs(g[m]) do
      if not ALLOWED[m .. " -> " .. r] then visit(r, path) end
    end
    path[#path] = nil
    state[m] = 2
  end
  for _, m in ipairs(names) do visit(m, {}) end
  return out
end

describe("the Lua layout", function()
  it("gives every module a layer, and no module requires a higher layer or closes a cycle", function()
    local g = graph()
    local n = 0
    for _ in pairs(g) do n = n + 1 end
    assert.is_true(n > 40, "modules found: " .. n)
    local p = problems(g)
    assert(#p == 0, #p .. " problem(s):\n  " .. table.concat(p, "\n  "))
  end)

  it("fails on an arrow up, a module without a layer and a cycle", function()
    local g = graph()
    g["cgwb.ir"][#g["cgwb.ir"] + 1] = "cgwb.tangent" -- the IR needing a back end
    g["cgwb.newthing"] = {}
    g["cgwb.kparse.lower"][#g["cgwb.kparse.lower"] + 1] = "cgwb.kparse.stmt" -- stmt requires lower
    local p = table.concat(problems(g), "\n")
    assert.truthy(p:find("cgwb.ir (ir) -> cgwb.tangent (back ends): an arrow up", 1, true), p)
    assert.truthy(p:find("cgwb.newthing: no layer", 1, true), p)
    assert.truthy(p:find("a cycle: cgwb.kparse.lower -> cgwb.kparse.stmt", 1, true)
      or p:find("a cycle: cgwb.kparse.stmt -> cgwb.kparse.lower", 1, true)
      or p:find("cgwb.kparse.expr -> cgwb.kparse.lower -> cgwb.kparse.stmt", 1, true), p)
  end)

  it("is the table doc/hacking.md gives", function()
    local doc = H.read("doc/hacking.md")
    for _, l in ipairs(LAYERS) do
      assert.truthy(doc:find("| " .. l[1] .. " |", 1, true), "doc/hacking.md lacks the layer row " .. l[1])
    end
  end)
end)
