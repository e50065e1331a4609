#!/usr/bin/env lua5.4
-- scripts/results-elim.lua: the costs of Jacobian accumulation by elimination
-- under every ordering and mode, for the example tapes and for small classic
-- graphs rebuilt here, with the proven optimum where the exact search can
-- give it.  Writes the classic graphs to examples/graphs/ (.cg and EliAD) and
-- the tables to doc/results/elimination.md.
--
--   lua5.4 scripts/results-elim.lua [OUT.md]      (from the top level, after make)
local build = os.getenv("CGWB_BUILD") or "build/release"
package.cpath = build .. "/?.so;" .. package.cpath
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local cgwb = require "cgwb"
local core = require "cgwb.core"
local elim = require "cgwb.elim"

local out_path = arg[1] or "doc/results/elimination.md"

-- {==== classic graphs ====}

-- .cg text from x ids, y ids and edges {p, v, w}, with a comment.
local function cg_text(comment, x, y, edges)
  local by, vs = {}, {}
  for _, e in ipairs(edges) do
    if not by[e[2]] then by[e[2]] = {}; vs[#vs + 1] = e[2] end
    table.insert(by[e[2]], ("%d:%.17g"):format(e[1], e[3]))
  end
  table.sort(vs)
  local out = { comment, "X: " .. table.concat(x, " "), "Y: " .. table.concat(y, " ") }
  for _, v in ipairs(vs) do out[#out + 1] = v .. ": " .. table.concat(by[v], " ") end
  return table.concat(out, "\n") .. "\n"
end

-- Speelpenning's product y = x1 ... xn (Griewank & Walther, Evaluating
-- Derivatives, the classic case where reverse mode wins).
local function speelpenning(n)
  local x, edges, prod = {}, {}, nil
  for i = 1, n do x[i] = 1 + i / 10 end
  edges[1], edges[2] = { 0, n, x[2] }, { 1, n, x[1] }
  prod = x[1] * x[2]
  for k = 3, n do
    local v = n + k - 2
    edges[#edges + 1] = { v - 1, v, x[k] }
    edges[#edges + 1] = { k - 1, v, prod }
    prod = prod * x[k]
  end
  local xs = {}
  for i = 0, n - 1 do xs[#xs + 1] = i end
  return cg_text(("# Speelpenning's product of %d variables at x_i = 1 + i/10"):format(n), xs,
    { 2 * n - 2 }, edges)
end

-- The Lighthouse function (Griewank & Walther, chapter 2): the graph of
-- v1 = om t, v2 = tan v1, v3 = ga - v2, v4 = nu v2, y1 = v4 / v3, y2 = ga y1;
-- y1 is not maximal, so it is a unit copy (seed 002 section 6.2).
local function lighthouse()
  local nu, ga, om, t = 3.7, 0.4, 0.3, 1.1
  local v1 = om * t
  local v2 = math.tan(v1)
  local v3 = ga - v2
  local v4 = nu * v2
  local v5 = v4 / v3
  return cg_text("# The Lighthouse function at nu = 3.7, gamma = 0.4, omega = 0.3, t = 1.1",
    { 0, 1, 2, 3 }, { 10, 9 }, {
      { 2, 4, t }, { 3, 4, om }, { 4, 5, 1 + v2 * v2 }, { 1, 6, 1 }, { 5, 6, -1 },
      { 0, 7, v2 }, { 5, 7, nu }, { 7, 8, 1 / v3 }, { 6, 8, -v5 / v3 },
      { 8, 9, ga }, { 1, 9, v5 }, { 8, 10, 1 } })
end

-- Seed 004, Figure 2: a = cos x; b = sin(y) y y; f = exp(a b) at (1, 2).
local function seed004()
  local x, y = 1.0, 2.0
  local a, s = math.cos(x), math.sin(y)
  local tt = s * y
  local b = tt * y
  local f = math.exp(a * b)
  return cg_text("# Seed 004, Figures 1-2: a = cos(x); b = sin(y)*y*y; f = exp(a*b) at x = 1, y = 2",
    { 0, 1 }, { 7 }, {
      { 0, 2, -math.sin(x) }, { 1, 3, math.cos(y) }, { 3, 4, y }, { 1, 4, s },
      { 4, 5, y }, { 1, 5, tt }, { 2, 6, b }, { 5, 6, a }, { 6, 7, f } })
end

-- MINPACK-2 dhhd, the human heart dipole problem (8 equations in
-- a, b, c, d, t, u, v, w), recorded by the Lua tracer and linearized by
-- cgwb's pipeline (so its graph is cgwb's, supernodes folded).
local function heart_dipole()
  local sig = { 0.485, -0.0019, -0.0581, 0.015, 0.105, 0.0406, 0.167, -0.399 }
  local x0 = { 0.299, 0.186, -0.0273, 0.0254, -0.474, 0.474, -0.0892, 0.0892 }
  local tape = assert(cgwb.trace(function(x)
    local a, b, c, d, t, u, v, w = table.unpack(x)
    local tv, uw = t * t - 3 * v * v, u * u - 3 * w * w
    local vt, wu = v * v - 3 * t * t, w * w - 3 * u * u
    return {
      a + b - sig[1],
      c + d - sig[2],
      t * a + u * b - v * c - w * d - sig[3],
      v * a + w * b + t * c + u * d - sig[4],
      a * (t * t - v * v) - 2 * c * t * v + b * (u * u - w * w) - 2 * d * u * w - sig[5],
      c * (t * t - v * v) + 2 * a * t * v + d * (u * u - w * w) + 2 * b * u * w - sig[6],
      a * t * tv + c * v * vt + b * u * uw + d * w * wu - sig[7],
      c * t * tv - a * v * vt + d * u * uw - b * w * wu - sig[8],
    }
  end, x0))
  local g = assert(cgwb.build_graph(tape))
  local lg = assert(core.linearize(g))
  g:free()
  return "# MINPACK-2 dhhd (human heart dipole), traced by cgwb and linearized\n" .. lg:write_cg()
end

local classic = {
  { "seed004", "seed 004 Figure 2", seed004() },
  { "speelpenning10", "Speelpenning's product, n = 10", speelpenning(10) },
  { "lighthouse", "Lighthouse function", lighthouse() },
  { "heart-dipole", "MINPACK-2 human heart dipole (dhhd)", heart_dipole() },
}

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

os.execute("mkdir -p examples/graphs doc/results")
for _, c in ipairs(classic) do
  write("examples/graphs/" .. c[1] .. ".cg", c[3])
  local lg = assert(core.read_cg(c[3], c[1] .. ".cg"))
  local eliad = lg:write_eliad()
  if eliad then write("examples/graphs/" .. c[1] .. ".eliad", eliad) end
end

-- {==== the runs ====}

local vertex = { "forward", "reverse", "markowitz", { "markowitz", lowest_first = true, name = "markowitz (lowest id first)" },
                 "relative-markowitz", "min-fill", "lmmd", "momr", "random", "anneal" }
local edge = { "forward", "reverse", "markowitz", "relative-markowitz", "min-fill" }
local face = { "forward", "reverse", "markowitz", "min-fill" }

local function label(o) return type(o) == "table" and o.name or o end

-- A Markdown table from rows of strings (first row the header); numbers
-- right-aligned.
local function md_table(rows)
  local out = {}
  for i, r in ipairs(rows) do
    out[#out + 1] = "| " .. table.concat(r, " | ") .. " |"
    if i == 1 then
      local sep = {}
      for k = 1, #r do sep[k] = (k == 1 or r[k] == "ordering") and "---" or "---:" end
      out[#out + 1] = "| " .. table.concat(sep, " | ") .. " |"
    end
  end
  return table.concat(out, "\n")
end

-- Largest relative difference to the forward sweep, zeros dropped.
local function diff(J, F)
  local a = {}
  for k = 1, J.nnz do if J.vals[k] ~= 0 then a[J.rows[k] * (J.n + 1) + J.cols[k]] = J.vals[k] end end
  local d, cnt = 0, 0
  for k = 1, F.nnz do
    local key = F.rows[k] * (F.n + 1) + F.cols[k]
    d = math.max(d, math.abs((a[key] or math.huge) - F.vals[k]) / math.max(1, math.abs(F.vals[k])))
    a[key] = nil
  end
  for _ in pairs(a) do cnt = cnt + 1 end
  return cnt > 0 and math.huge or d
end

-- Orderings too slow to run on a case: forward-like orders on shallow's
-- gradient (243 independents, one dependent) fill every vertex with up to
-- 243 in-edges: minutes and gigabytes; edge min-fill there takes ~20 s.
local skip = {
  shallow = { ["vertex forward"] = true, ["vertex random"] = true, ["edge forward"] = true,
              ["edge relative-markowitz"] = true, ["edge min-fill"] = true, ["face forward"] = true },
}

local function run_all(lg, big, skipset)
  local F = lg:jacobian("forward")
  local res, worst = {}, 0
  local function one(mode, o)
    if skipset[mode .. " " .. label(o)] then
      res[#res + 1] = { mode, label(o), "skipped", "", "", "", false }
      return
    end
    local c <close> = lg:copy()
    local t = os.clock()
    local cost
    if mode == "vertex" then
      cost = assert(elim.eliminate(c, o, { budget = big and 20 or 200, seed = 1 }))
    else
      cost = assert(elim.modes[mode](c, o, { seed = 1 }))
    end
    local dt = os.clock() - t
    worst = math.max(worst, diff(c:jacobian(), F))
    res[#res + 1] = { mode, label(o), cost.mults, cost.mults_nontrivial, cost.adds, cost.fill, dt }
  end
  for _, o in ipairs(vertex) do
    if not (big and o == "anneal") then one("vertex", o) end
  end
  for _, o in ipairs(edge) do one("edge", o) end
  for _, o in ipairs(face) do one("face", o) end
  local ex <close> = lg:copy()
  local best, eorder = ex:exact(20)
  return res, best, worst, eorder
end

local md = { "# Jacobian accumulation by elimination: costs of every ordering and mode",
  "",
  "Generated by `lua5.4 scripts/results-elim.lua` (do not edit by hand). Multiplications are the",
  "products of two edge weights the elimination actually performs (structural); *nontrivial*",
  "leaves out products with a +1 or -1 edge; *adds* are accumulations into an existing edge",
  "(face mode: into an absorbing vertex, plus summing parallel vertices at the end); *fill* are",
  "edges (line-graph vertices) created. Ties are broken toward the highest vertex id (reverse",
  "mode, as ANGEL) unless the row says otherwise; `random` and `anneal` use seed 1 (anneal 200",
  "evaluations on the small graphs). *exact* is the proven optimum over all vertex elimination",
  "orders (subset dynamic programming per component of intermediates, components up to 20",
  "vertices); edge and face elimination can go below it. Every Jacobian was checked against a",
  "forward sweep (column *max rel. diff* below each table).",
  "" }

local nheader = #md
local cases = {}
for _, c in ipairs(classic) do
  cases[#cases + 1] = { c[2], assert(core.read_cg(c[3], c[1])), false, "examples/graphs/" .. c[1] .. ".cg" }
end
for _, name in ipairs { "bratu", "cavity", "shallow" } do
  cases[#cases + 1] = { name .. " (example tape)", assert(elim.linearize("examples/tapes/" .. name .. ".tap")), true,
                        "examples/tapes/" .. name .. ".tap", skip[name] }
end

local summary = { { "graph", "vertices", "edges", "n", "m", "forward", "reverse", "markowitz", "best edge",
                    "best face", "exact" } }
for _, case in ipairs(cases) do
  io.stderr:write(case[1], "\n")
  local lg = case[2]
  local c = lg:counts()
  local res, best, worst = run_all(lg, case[3], case[5] or {})
  md[#md + 1] = ("## %s"):format(case[1])
  md[#md + 1] = ""
  md[#md + 1] = ("`%s`: %d vertices (%d intermediates), %d edges, %d independents, %d dependents."):format(
    case[4], c.vertices, c.intermediates, c.edges, c.independents, c.dependents)
  md[#md + 1] = ""
  local rows = { { "mode", "ordering", "mults", "nontrivial", "adds", "fill" } }
  local by, bestx = {}, { edge = math.huge, face = math.huge }
  for _, r in ipairs(res) do
    rows[#rows + 1] = { r[1], r[2], tostring(r[3]), tostring(r[4]), tostring(r[5]), tostring(r[6]) }
    by[r[1] .. " " .. r[2]] = r[3]
    if bestx[r[1]] and r[7] then bestx[r[1]] = math.min(bestx[r[1]], r[3]) end
  end
  rows[#rows + 1] = { "vertex", "exact", best and tostring(best) or "not proven (component > 20)", "", "", "" }
  md[#md + 1] = md_table(rows)
  md[#md + 1] = ""
  md[#md + 1] = ("max rel. diff to the forward sweep over all runs: %.2g"):format(worst)
  md[#md + 1] = ""
  summary[#summary + 1] = { case[1], tostring(c.vertices), tostring(c.edges), tostring(c.independents),
    tostring(c.dependents), tostring(by["vertex forward"]), tostring(by["vertex reverse"]),
    tostring(by["vertex markowitz"]), tostring(bestx.edge), bestx.face < math.huge and tostring(bestx.face) or "-",
    best and tostring(best) or "-" }
end
table.insert(md, nheader + 1, "## Summary (multiplications)")
table.insert(md, nheader + 2, "")
table.insert(md, nheader + 3, md_table(summary))
table.insert(md, nheader + 4, "")
write(out_path, table.concat(md, "\n"))
io.stderr:write("wrote ", out_path, "\n")
