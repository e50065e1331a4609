-- The exact search's benchmark (scripts/bench-exact.sh): seconds to proof on
-- generated components of 40 intermediates, the gap left after the time
-- limit on 100-intermediate ones, against the best heuristic (elim.best) and
-- the annealer; and the shipped graphs.  Prints a Markdown table.
-- Usage: lua5.4 scripts/bench-exact.lua TIME_LIMIT [SIZES] [SEEDS]
package.path = "./?.lua;lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("CGWB_BUILD") or "build/release") .. "/?.so;" .. package.cpath
local gen = require "spec.graphgen"
local elim = require "cgwb.elim"
local cgwb = require "cgwb"

local limit = tonumber(arg[1]) or 60
local sizes, seeds = {}, tonumber(arg[3]) or 5
for s in (arg[2] or "40,100"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end

local function row(name, lg)
  local _, best = elim.best(lg)
  local _, annealed = elim.anneal(lg, { budget = 200 })
  local r = elim.exact(lg, { time_limit = limit })
  local largest = 0
  for _, c in ipairs(r.components) do largest = math.max(largest, c.size) end
  print(("| %s | %d | %d | %d | %d | %d | %d | %.1f %% | %s | %.2f | %d |"):format(name,
    lg:counts().intermediates, largest, best, annealed, r.mults, r.lower_bound,
    100 * (r.mults - r.lower_bound) / math.max(r.mults, 1), r.proven and "yes" or "no", r.seconds, r.nodes))
  io.stdout:flush()
end

print(("Time limit %g s per graph (the search; the incumbents' heuristics are not counted).\n"):format(limit))
print("| graph | intermediates | largest component | best heuristic | anneal | exact | lower bound | gap | proven | seconds | states |")
print("| --- | --: | --: | --: | --: | --: | --: | --: | --- | --: | --: |")
for _, path in ipairs { "examples/graphs/heart-dipole.cg", "examples/graphs/lighthouse.cg",
                        "examples/graphs/lion.cg", "examples/graphs/speelpenning10.cg" } do
  row(path:match("[^/]+$"), assert(cgwb.read_graph(path)))
end
for _, k in ipairs(sizes) do
  for seed = 1, seeds do
    row(("generated k=%d seed %d"):format(k, seed), gen.graph(seed, 6, k, 4))
  end
end
