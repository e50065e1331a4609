-- examples/markowitz.lua: the main job.
--   cgwb run examples/markowitz.lua [TAPE ...] [--at X]
-- For each tape (default examples/tapes/bratu.tap; `make run` gives Bratu and
-- Cavity): reads it, builds its optimized graph (Bischof & Hu 1991) at the
-- recorded point or at X (one number per line), linearizes it and accumulates
-- the Jacobian by vertex elimination under a Markowitz ordering written here in
-- Lua (Hovland, Norris, Utke & Strout: lowest in-degree times out-degree
-- first), next to the built-in Markowitz and the other built-in orderings, and
-- checks every Jacobian against a forward tangent sweep over the linearized
-- graph.  A legend says what the columns count, then one table per tape.
--
-- Ties.  After the rule, ties go to the highest vertex id (toward reverse
-- mode, as ANGEL).  That decides much of the result: the table has a row for
-- the Lua Markowitz with lowest-id ties and prints how much more it costs
-- (1.15x on Bratu, where every built-in ordering but forward costs the same;
-- 1.45x on Cavity, where the orderings differ; 43x on Shallow:
-- cgwb run examples/markowitz.lua examples/tapes/shallow.tap, about 3 s).
--
-- Output is deterministic except the timing: the `seconds` column and the
-- lines marked "(timing)".  Exit status 3 (and a warning naming the first
-- changed record) when a branch goes the other way at X than at recording:
-- the graph of the tape is not the function there.
local cgwb = require "cgwb"
local elim = require "cgwb.elim"
local report = require "cgwb.report"

-- Bad usage or input: one line on stderr, exit status 2 (as the command).
local function usage_error(msg)
  io.stderr:write("markowitz.lua: ", msg, "\n")
  os.exit(2)
end

-- Tapes and --at from the arguments; "--" (the end of cgwb's options) is skipped.
local function parse_args(args)
  local paths, at = {}, nil
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--at" then
      if not args[i + 1] then usage_error("--at needs a file of values") end
      local err
      at, err = cgwb.read_point(args[i + 1])
      if not at then usage_error(err) end
      at.path = args[i + 1]
      i = i + 2
    elseif a ~= "--" then
      if a:sub(1, 1) == "-" then usage_error("unknown option " .. a) end
      paths[#paths + 1] = a
      i = i + 1
    else
      i = i + 1
    end
  end
  if #paths == 0 then paths[1] = "examples/tapes/bratu.tap" end
  return paths, at
end

-- Markowitz in Lua: the core keeps the candidates in its priority queue and
-- asks this function again only for the neighbours of an eliminated vertex.
local function markowitz(v, lg, din, dout)
  return din * dout -- the same as lg:in_degree(v) * lg:out_degree(v)
end

-- Largest relative difference of J from the reference ref (the same pattern
-- expected; a different pattern is infinitely far).
local function diff(J, ref)
  if J.nnz ~= ref.nnz then return math.huge end
  local d = 0
  for k = 1, J.nnz do
    if J.rows[k] ~= ref.rows[k] or J.cols[k] ~= ref.cols[k] then return math.huge end
    d = math.max(d, math.abs(J.vals[k] - ref.vals[k]) / math.max(1, math.abs(ref.vals[k])))
  end
  return d
end

local LEGEND = {
  "columns: mults = products of two edge weights; nontrivial = those of them where neither",
  "  factor is a structural +1 or -1 (the rest cost nothing); adds = additions into an",
  "  existing edge; fill-in = edges created; seconds = time of the elimination (timing);",
  "  max rel. diff = largest relative difference of the Jacobian's entries from a",
  "  forward tangent sweep over the linearized graph (0: bit for bit).",
  "ties: after the rule, ties go to the highest vertex id (toward reverse mode).",
}

-- The graph of `path` at `at` (nil: the recorded point) and its linearization;
-- exits with status 3 when a branch record goes the other way there.
local function load(path, at)
  local t0 = os.clock()
  local tape, err = cgwb.read_tape(path)
  if not tape then usage_error(err) end
  if at and #at ~= tape:n() then
    usage_error(("%s: %d values for the %d independents of %s"):format(at.path, #at, tape:n(), path))
  end
  local graph, gerr = cgwb.build_graph(tape, { at = at })
  if not graph then usage_error(gerr) end
  if graph.branch_changes then -- the lead's build; older builds do not report
    local count, first = graph:branch_changes()
    if count > 0 then
      io.stderr:write(("markowitz.lua: %s: warning: %d branch(es) change at the given point, "
        .. "the first at record %d; the tape's graph is not the function there\n")
        :format(path, count, first))
      os.exit(3)
    end
  end
  local lin = assert(cgwb.core.linearize(graph))
  return tape, graph, lin, os.clock() - t0
end

-- Eliminates a copy of lin under spec; returns the table row, the cost and the seconds.
local function try(lin, ref, name, spec)
  local g <close> = lin:copy()
  local t = os.clock()
  local cost, _, label = assert(elim.eliminate(g, spec))
  local dt = os.clock() - t
  local row = { label == "lua" and name or label, tostring(cost.mults),
    tostring(cost.mults_nontrivial), tostring(cost.adds), tostring(cost.fill),
    ("%.4f"):format(dt), ("%.2g"):format(diff(g:jacobian(), ref)) }
  return row, cost, dt
end

-- The proven optimum where the components of intermediates are small enough.
local function exact_line(lin, mults)
  local g <close> = lin:copy()
  local best = g:exact(16)
  if not best then return "exact optimum: a component of intermediates is too large to enumerate" end
  return ("exact optimum: %d multiplications; Markowitz is %s"):format(best,
    best == mults and "optimal here" or ("%.1f%% above it"):format(100 * (mults - best) / best))
end

-- The whole report for one tape, after the legend if `first`.
local function job(path, at, first)
  local t, g, l, setup = load(path, at)
  if first then
    for _, line in ipairs(LEGEND) do print(line) end
  end
  print()
  local tape <close> = t
  local graph <close> = g
  local lin <close> = l
  local s, c = graph:stats(), lin:counts()
  local ref = lin:jacobian("forward")
  print(("%s: %d operations -> %d graph nodes -> linearized: %d vertices, %d edges; "
    .. "%d x %d Jacobian, %d nonzeros")
    :format(path, s.tape_operations, s.nodes, c.vertices, c.edges, c.dependents,
            c.independents, ref.nnz))
  print(("read, build and linearize: %.3f s (timing)"):format(setup))
  local rows = { { "ordering", "mults", "nontrivial", "adds", "fill-in", "seconds", "max rel. diff" } }
  local row, lua_cost, lua_t = try(lin, ref, "markowitz (Lua)", { markowitz, name = "markowitz (Lua)" })
  rows[#rows + 1] = row
  local c_row, c_cost, c_t = try(lin, ref, "markowitz", "markowitz")
  rows[#rows + 1] = c_row
  local low_row, low_cost = try(lin, ref, "markowitz (Lua), lowest-id ties",
    { markowitz, lowest_first = true, name = "markowitz (Lua), lowest-id ties" })
  rows[#rows + 1] = low_row
  for _, name in ipairs { "forward", "reverse", "relative-markowitz", "min-fill", "lmmd", "momr" } do
    rows[#rows + 1] = (try(lin, ref, name, name))
  end
  print()
  print(report.columns(rows))
  print()
  print(("ties: Markowitz with lowest-id ties costs %d multiplications, %.2fx the %d of highest-id ties")
    :format(low_cost.mults, low_cost.mults / c_cost.mults, c_cost.mults))
  local slower = lua_t >= c_t and "the Lua ordering is slower" or "the built-in ordering is slower"
  print(("Lua Markowitz: %d multiplications in %.4f s; built-in: %d in %.4f s; %s, %.1fx (timing)")
    :format(lua_cost.mults, lua_t, c_cost.mults, c_t, slower,
            math.max(lua_t, c_t) / math.max(math.min(lua_t, c_t), 1e-9)))
  print(exact_line(lin, c_cost.mults))
  assert(lua_cost.mults == c_cost.mults, "the Lua and built-in Markowitz orderings differ")
end

local paths, at = parse_args(arg)
for k, path in ipairs(paths) do
  job(path, at, k == 1)
end
