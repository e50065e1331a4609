-- examples/markowitz.lua: the main job.
--   cgwb run examples/markowitz.lua [TAPE] [--at X]
-- Reads a tape, builds its optimized graph (Bischof & Hu 1991), linearizes it at the
-- recorded point and accumulates the Jacobian by vertex elimination under a
-- Markowitz ordering written here in Lua (Hovland, Norris, Utke & Strout: lowest in-degree times
-- out-degree first, ties toward reverse mode), then compares it with the
-- built-in Markowitz and the other built-in orderings, and checks every
-- Jacobian against a forward sweep.
local cgwb = require "cgwb"
local elim = require "cgwb.elim"

local path, at = "examples/tapes/bratu.tap", nil
local i = 1
while arg[i] do
  if arg[i] == "--at" then at = assert(cgwb.read_point(arg[i + 1])); i = i + 2
  else path = arg[i]; i = i + 1 end
end

-- Markowitz in Lua: the core keeps the candidates in its priority queue and
-- asks this function again only for the neighbours of an eliminated vertex.
local function markowitz(v, lg, din, dout)
  return din * dout -- the same as lg:in_degree(v) * lg:out_degree(v)
end

local t0 = os.clock()
local tape <close> = assert(cgwb.read_tape(path))
local graph <close> = assert(cgwb.build_graph(tape, { at = at }))
local lin <close> = assert(cgwb.core.linearize(graph))
local setup = os.clock() - t0
local s, c = graph:stats(), lin:counts()
print(("%s: %d operations -> %d graph nodes -> linearized: %d vertices, %d edges (%d x %d Jacobian)")
  :format(path, s.tape_operations, s.nodes, c.vertices, c.edges, c.dependents, c.independents))
print(("read, build and linearize: %.3f s"):format(setup))

local ref = lin:jacobian("forward")

-- Largest relative difference against the forward sweep.
local function diff(J)
  if J.nnz ~= ref.nnz then return math.huge end
  local d = 0
  for k = 1, J.nnz do
    if J.rows[k] ~= ref.rows[k] or J.cols[k] ~= ref.cols[k] then return math.huge end
    d = math.max(d, math.abs(J.vals[k] - ref.vals[k]) / math.max(1, math.abs(ref.vals[k])))
  end
  return d
end

local rows = { { "ordering", "mults", "nontrivial", "adds", "fill-in", "seconds", "max rel. diff" } }
local function try(name, spec)
  local g <close> = lin:copy()
  local t = os.clock()
  local cost, _, label = assert(elim.eliminate(g, spec))
  local dt = os.clock() - t
  local J = g:jacobian()
  rows[#rows + 1] = { label == "lua" and name or label, tostring(cost.mults),
    tostring(cost.mults_nontrivial), tostring(cost.adds), tostring(cost.fill),
    ("%.4f"):format(dt), ("%.2g"):format(diff(J)) }
  return cost, dt
end

local lua_cost, lua_t = try("markowitz (Lua)", { markowitz, name = "markowitz (Lua)" })
local c_cost, c_t = try("markowitz", "markowitz")
for _, name in ipairs { "forward", "reverse", "relative-markowitz", "min-fill", "lmmd", "momr" } do
  try(name, name)
end
print()
print(require("cgwb.report").columns(rows))
print()
print(("Lua Markowitz: %d multiplications in %.4f s; built-in: %d in %.4f s (%.1fx)")
  :format(lua_cost.mults, lua_t, c_cost.mults, c_t, lua_t / math.max(c_t, 1e-9)))

-- The proven optimum over all vertex elimination orders (subset dynamic
-- programming per connected component of intermediates), where the
-- components are small enough.
do
  local g <close> = lin:copy()
  local best = g:exact(16)
  if best then
    print(("exact optimum: %d multiplications; Markowitz is %s"):format(best,
      best == c_cost.mults and "optimal here" or ("%.1f%% above it"):format(100 * (c_cost.mults - best) / best)))
  else
    print("exact optimum: a component of intermediates is too large to enumerate")
  end
end
assert(lua_cost.mults == c_cost.mults, "the Lua and built-in Markowitz orderings differ")
