--- cgwb.cli.elim: `cgwb jacobian` and `cgwb eliminate`, the Jacobian by
-- elimination (or by sweeps, --strategy) on a tape's linearized graph or a graph file.
-- @module cgwb.cli.elim
local C = require "cgwb.cli.common"
local T = require "cgwb.cli.tapeargs"
local fail, check, cgwb, readable, option, int_in = C.fail, C.check, C.cgwb, C.readable, C.option, C.int_in
local build, read_point, read_tape, graph_switches = T.build, T.read_point, T.read_tape, T.graph_switches

local M = {}

--- The commands this module defines, by name: { example = "cgwb NAME ...", setup = function(p)
-- (its options), run = function(a) (the work) }; cgwb.cli.registry names them.
M.commands = {}
local commands = M.commands

--- The registry of orderings as a table: () -> text (what the list-orderings option prints).
function M.orderings_text()
  local elim = require "cgwb.elim"
  local rows = { { "ordering", "modes", "eliminates first" } }
  local modes = { V = "vertex", E = "edge", F = "face" }
  for _, o in ipairs(elim.orderings) do
    local m = {}
    for c in o.modes:gmatch(".") do m[#m + 1] = modes[c] end
    rows[#rows + 1] = { o.name, table.concat(m, ","), o.about }
  end
  local w1, w2, lines = 0, 0, {}
  for _, r in ipairs(rows) do w1, w2 = math.max(w1, #r[1]), math.max(w2, #r[2]) end
  for _, r in ipairs(rows) do
    lines[#lines + 1] = ("%-" .. w1 .. "s  %-" .. w2 .. "s  %s"):format(r[1], r[2], r[3])
  end
  return table.concat(lines, "\n") .. "\n\n"
    .. "Chain names with commas (markowitz,forward): each breaks the ties of the one before; the\n"
    .. "last ties go to the highest vertex id.  Edge mode also takes front, back and lowest.\n"
    .. "FILE.lua: a Lua ordering (doc/elimination.md, \"Lua interface\").\n"
end

local function elim_options(p)
  local names = table.concat(require("cgwb.elim").ordering_names("vertex"), ", ")
  option(p, "--order", "Ordering: " .. names .. " (edge and face modes have fewer: "
    .. "--list-orderings), a comma-separated chain of them, or FILE.lua.", "markowitz")
  option(p, "--mode", "Elimination mode.", "vertex"):choices { "vertex", "edge", "face" }
  option(p, "-o --output", "Write the Jacobian (Matrix Market, 1-based, rows = dependents; - for standard output).")
  p:flag("--json", "Print n, m, nnz, mults, adds, order, mode, ... as JSON.")
  p:flag("--check", "Also compare with forward and reverse sweeps (exit 1 on a mismatch).")
  option(p, "--seed", "Seed for random and anneal, an integer from 0 to 2^53.", "1")
    :convert(int_in("--seed", 0, 2 ^ 53))
  option(p, "--budget", "Evaluations for anneal (edge and face modes: also of exact's search over edge "
    .. "steps), an integer from 0 to 10000000.", "200")
    :convert(int_in("--budget", 0, 10000000))
  p:flag("--list-orderings", "List the built-in orderings and the modes that have them, then exit.")
  -- strategies (elim.strategies): sweeps over the same graph instead of elimination
  local strategies = {}
  for _, st in ipairs(require("cgwb.elim").strategies) do strategies[#strategies + 1] = st.name .. ": " .. st.about end
  option(p, "--strategy", "How to accumulate the Jacobian: " .. table.concat(strategies, "; ") .. ".",
    "elimination"):choices(require("cgwb.elim").strategy_names())
  option(p, "--side", "For --strategy colouring: colour the columns (tangent sweeps) or the rows "
    .. "(adjoint sweeps); default column."):choices { "column", "row" }
  option(p, "--colouring-order", "For --strategy colouring: ColPack's vertex ordering, one of "
    .. table.concat(cgwb().core.colouring_orders(), ", ") .. " (default "
    .. cgwb().core.colouring_orders()[1] .. ").")
  p:flag("--compare", "With a --strategy other than elimination: also eliminate a copy of the graph "
    .. "under --order and --mode and report its multiplications (elim_mults).")
  -- the exact search
  option(p, "--time-limit", "Seconds for --order exact's search, a number > 0; when it runs out, the best order "
    .. "found is used and its gap to the proven lower bound reported.", "60")
    :convert(function(s)
      local v = tonumber(s)
      if not v or not (v > 0) or v == math.huge then
        return nil, ("--time-limit takes a number of seconds > 0, got '%s'"):format(s)
      end
      return v
    end)
  -- scale: the thresholds of elim.LIMITS (doc/elimination.md, "What each ordering costs")
  local limits = {}
  for k in pairs(require("cgwb.elim").LIMITS) do limits[#limits + 1] = k end
  table.sort(limits)
  option(p, "--limit", "NAME=N (repeatable): raise or lower one of the thresholds above which a run is refused "
    .. "before it starts (" .. table.concat(limits, ", ") .. "; doc/elimination.md, \"What each ordering costs\")."):count("*")
end

-- Applies --limit NAME=N to elim.LIMITS (exit 2 on a bad one).
local function set_limits(list)
  local elim = require "cgwb.elim"
  for _, s in ipairs(list or {}) do
    local name, v = s:match("^([%w_]+)=(.+)$")
    local n = tonumber(v)
    if not name or elim.LIMITS[name] == nil or not n or not (n >= 0) then
      local names = {}
      for k in pairs(elim.LIMITS) do names[#names + 1] = k end
      table.sort(names)
      fail(2, ("--limit takes NAME=N with N >= 0 and NAME one of %s, got '%s'"):format(table.concat(names, ", "), s))
    end
    elim.LIMITS[name] = n
  end
end

-- Refuses (exit 2), before it starts, a run that elim.check_scale says is
-- over elim.LIMITS: "<ordering> on <file>: <why: the estimate>; bound it with <option>".
-- Returns lg's scale counts when the check took them (the drivers' own check
-- reuses them: opts.counts), else nil.
local function check_scale(lg, a, what)
  local elim = require "cgwb.elim"
  set_limits(a.limit)
  local trivial = a.strategy == "reverse" or a.strategy == "forward"
  local spec = not trivial and a.order or nil
  if spec and spec:match("%.lua$") then spec = elim.resolve(readable(spec), a.mode) end -- a Lua rule: its spec
  local fits, why = elim.check_scale(lg, spec, a.mode,
                                     { budget = a.budget, strategy = trivial and a.strategy or nil })
  if not fits then fail(2, ("%s on %s: %s"):format(trivial and "strategy " .. a.strategy or a.order, what, why)) end
  return type(why) == "table" and why.counts or nil -- why: the estimate, when it fits
end

-- The largest relative difference between two sorted sparse Jacobians
-- (math.huge if their patterns differ).  Explicit zeros do not count: the
-- sweeps drop them, an elimination keeps an entry whose products cancel.
local function jac_diff(a, b)
  local function nz(J)
    local r = { rows = {}, cols = {}, vals = {}, nnz = 0 }
    for i = 1, J.nnz do
      if J.vals[i] ~= 0 then
        r.nnz = r.nnz + 1
        r.rows[r.nnz], r.cols[r.nnz], r.vals[r.nnz] = J.rows[i], J.cols[i], J.vals[i]
      end
    end
    return r
  end
  a, b = nz(a), nz(b)
  if a.nnz ~= b.nnz then return math.huge end
  local d = 0
  for i = 1, a.nnz do
    if a.rows[i] ~= b.rows[i] or a.cols[i] ~= b.cols[i] then return math.huge end
    local r = math.abs(a.vals[i] - b.vals[i]) / math.max(1, math.abs(b.vals[i]))
    if r > d then d = r end
  end
  return d
end

local CHECK_TOL = 1e-10

-- --check's verdict: exit 1 when a sweep differs, else a line on stderr.
local function check_verdict(out, what, nnz)
  if out.check_forward > CHECK_TOL or out.check_reverse > CHECK_TOL then
    fail(1, ("Jacobian differs from the sweeps: largest relative difference %.3g (forward), %.3g (reverse), "
      .. "tolerance %g"):format(out.check_forward, out.check_reverse, CHECK_TOL))
  end
  io.stderr:write(("%s: check passed: the %d entries match the forward and reverse sweeps "
    .. "(largest relative difference %.3g and %.3g, tolerance %g)\n")
    :format(what, nnz, out.check_forward, out.check_reverse, CHECK_TOL))
end

-- Writes J as Matrix Market to path ("-" or nil: standard output).
local function write_jac(J, path)
  local lines = { ("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz) }
  for i = 1, J.nnz do lines[#lines + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
  if not path or path == "-" then return io.write(table.concat(lines)) end
  local f, err = io.open(path, "w")
  if not f then fail(1, err) end
  local ok, werr = f:write(table.concat(lines))
  local cok, cerr = f:close()
  if not ok or not cok then fail(1, ("%s: %s"):format(path, werr or cerr)) end
end

-- Accumulates the Jacobian of lg by a strategy other than elimination
-- (elim.strategies); reports strategy, colours, sweeps and its own mults,
-- with --compare the elimination's (elim_mults) on a copy of the same graph.
local function run_strategy(lg, a, what)
  local elim = require "cgwb.elim"
  local st = elim.strategy(a.strategy) -- argparse checked the name against the registry
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local counts = lg:counts()
  local out = { n = counts.independents, m = counts.dependents, strategy = a.strategy,
                vertices = counts.vertices, edges = counts.edges, intermediates = counts.intermediates }
  if a.compare then
    if a.order:match("%.lua$") then readable(a.order) end
    local spec, err = elim.resolve(a.order, a.mode)
    if not spec then fail(2, err) end
    local c <close> = lg:copy()
    local opts = { order = spec, mode = a.mode, seed = a.seed, budget = a.budget, time_limit = a.time_limit }
    local J0, info = elim.strategy("elimination").run(c, opts)
    if not J0 then fail(2, info) end
    out.elim_mults, out.elim_mults_nontrivial, out.elim_order = info.mults, info.mults_nontrivial, info.name
  end
  local t0 = os.clock()
  local J, info = st.run(lg, { side = a.side, colouring_order = a.colouring_order })
  if not J then fail(2, info) end
  out.seconds = os.clock() - t0
  out.nnz, out.mults, out.mults_nontrivial, out.adds = J.nnz, info.mults, info.mults_nontrivial, info.adds
  out.colours, out.sweeps, out.side, out.colouring = info.colours, info.sweeps, info.side, info.colouring
  if a.check then
    if not counts.weighted then fail(2, what .. ": --check needs a weighted graph") end
    out.check_forward = jac_diff(J, lg:jacobian("forward"))
    out.check_reverse = jac_diff(J, lg:jacobian("reverse"))
  end
  if a.output and a.output ~= "-" then write_jac(J, a.output) end
  if a.json then
    io.write(require("cgwb.json").encode(out, 2), "\n")
  else
    if not a.output or a.output == "-" then write_jac(J) end
    io.stderr:write(("%s: %s strategy: %d colours (%s side), %d sweeps, %d multiplications (%d nontrivial), "
      .. "%d additions, nnz %d%s\n"):format(what, out.strategy, out.colours, out.side, out.sweeps, out.mults,
      out.mults_nontrivial, out.adds, out.nnz,
      out.elim_mults and (("; %s elimination: %d multiplications"):format(out.elim_order, out.elim_mults)) or ""))
  end
  if a.check then
    check_verdict(out, what, J.nnz)
  end
end

-- Eliminates lg under the options; reports; writes the Jacobian.
local function run_elimination(lg, a, what)
  local elim = require "cgwb.elim"
  if a.strategy ~= "colouring" and (a.side or a.colouring_order) then
    fail(2, "--side and --colouring-order go with --strategy colouring")
  end
  local scale_counts = check_scale(lg, a, what)
  if a.strategy ~= "elimination" then return run_strategy(lg, a, what) end
  if a.order:match("%.lua$") then readable(a.order) end
  local spec, err = elim.resolve(a.order, a.mode)
  if not spec then fail(2, err) end
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local ref_f, ref_r
  if a.check then
    if not lg:counts().weighted then fail(2, what .. ": --check needs a weighted graph") end
    ref_f = lg:jacobian("forward")
    ref_r = lg:jacobian("reverse")
  end
  local counts = lg:counts()
  local t0 = os.clock()
  local cost, order, name, extra
  local opts = { seed = a.seed, budget = a.budget, time_limit = a.time_limit, counts = scale_counts,
                 progress = not a.json } -- drawn or not by the renderer (cgwb.progress)
  if a.mode == "vertex" then
    cost, order, name, extra = elim.eliminate(lg, spec, opts)
  else
    cost, order, name, extra = elim.modes[a.mode](lg, spec, opts)
  end
  if not cost then fail(2, order) end
  local seconds = os.clock() - t0
  local J = check(lg:jacobian())
  local out = {
    n = counts.independents, m = counts.dependents, nnz = J.nnz, mults = cost.mults,
    mults_nontrivial = cost.mults_nontrivial, adds = cost.adds, fill = cost.fill,
    peak_edges = cost.peak_edges, steps = cost.steps, order = name, mode = a.mode,
    vertices = counts.vertices, edges = counts.edges, intermediates = counts.intermediates,
    seconds = seconds,
  }
  if type(extra) == "table" then
    -- the exact search (vertex, edge): its bound; edge and face drivers: the vertex figure
    out.lower_bound, out.proven, out.nodes = extra.lower_bound, extra.proven, extra.nodes
    if a.mode ~= "vertex" then out.vertex_mults, out.better = extra.vertex_mults, extra.better end
  end
  if a.check then
    out.check_forward = jac_diff(J, ref_f)
    out.check_reverse = jac_diff(J, ref_r)
  end
  io.stdout:flush()
  if a.output and a.output ~= "-" then check(lg:write_mtx(a.output)) end
  if a.json then
    io.write(require("cgwb.json").encode(out, 2), "\n")
  elseif not a.output or a.output == "-" then
    local lines = { ("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n"):format(J.m, J.n, J.nnz) }
    for i = 1, J.nnz do lines[#lines + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
    io.write(table.concat(lines))
  end
  if not a.json then
    io.stderr:write(("%s: %s %s elimination: %d multiplications (%d nontrivial), %d additions, %d fill-in, nnz %d\n")
      :format(what, out.order, out.mode, out.mults, out.mults_nontrivial, out.adds, out.fill, out.nnz))
    if out.lower_bound then
      io.stderr:write(out.proven and ("%s: proven optimal (%d states searched)\n"):format(what, out.nodes)
        or ("%s: gap %.2f%% to the proven lower bound %d (%d states searched, time limit reached)\n")
          :format(what, 100 * (out.mults - out.lower_bound) / math.max(out.mults, 1), out.lower_bound, out.nodes))
    end
    if out.better then
      io.stderr:write(("%s: strictly better than vertex elimination (%d)\n"):format(what, out.vertex_mults))
    end
  end
  if a.check then
    check_verdict(out, what, J.nnz)
  end
end

-- {==== Jacobians at many points (--points) ====}

-- Reads a points file: one point a line (n numbers separated by blanks or
-- commas; '#' starts a comment, blank lines are skipped).  Returns the
-- points and the line of each.
local function read_points(path, n)
  local fh = assert(io.open(readable(path), "r"))
  local points, lines, ln = {}, {}, 0
  for line in fh:lines() do
    ln = ln + 1
    local s = line:gsub("#.*", "")
    if s:match("%S") then
      local x = {}
      for word in s:gmatch("[^%s,]+") do
        local v = tonumber(word)
        if not v then fh:close() fail(2, ("%s:%d: not a number: %s"):format(path, ln, word)) end
        x[#x + 1] = v
      end
      if #x ~= n then fh:close() fail(2, ("%s:%d: %d values for %d independents"):format(path, ln, #x, n)) end
      points[#points + 1], lines[#lines + 1] = x, ln
    end
  end
  fh:close()
  return points, lines
end

-- cgwb jacobian TAPE --points FILE: one kept plan (cgwb.jacobian_plan), the
-- Jacobian at each point; a Matrix Market block per point (doc/usage.md),
-- exit 3 at the first point that leaves a recorded branch.
local function run_points(a)
  if a.mode ~= "vertex" then fail(2, "--points keeps a vertex elimination: --mode vertex only") end
  if a.strategy ~= "elimination" then fail(2, "--points keeps an elimination: --strategy elimination only") end
  if a.json and a.output == "-" then fail(2, "--json and -o - would both write to standard output") end
  local elim = require "cgwb.elim"
  if a.order:match("%.lua$") then readable(a.order) end
  local spec, err = elim.resolve(a.order, "vertex")
  if not spec then fail(2, err) end
  local tape = read_tape(a.tape)
  local opts = {
    assign_removal = not a.no_assign_removal, hoist = not a.no_hoist, dead_roots = not a.no_dead_roots,
    recover_hoists = not a.paper_hoists, guards = not a.no_guards, order = spec, seed = a.seed,
    budget = a.budget, at = a.at and read_point(a.at, tape:n()),
  }
  local points, lines = read_points(a.points, tape:n())
  local plan, perr, changes = cgwb().jacobian_plan(tape, opts)
  if not plan then fail(changes and 3 or 2, a.tape .. ": " .. perr) end
  local out = io.stdout
  if a.output and a.output ~= "-" then out = assert(io.open(a.output, "w")) end
  local quiet = a.json and out == io.stdout
  local seconds, J, worst = 0, nil, 0
  for k, x in ipairs(points) do
    local msg, ch
    local t0 = os.clock()
    J, msg, ch = plan:at(x, J)
    seconds = seconds + (os.clock() - t0)
    if not J then
      if out ~= io.stdout then out:close() end
      fail(ch and 3 or 2, ("%s:%d: point %d: %s"):format(a.points, lines[k], k, msg))
    end
    if not quiet then
      local b = { ("%%%%MatrixMarket matrix coordinate real general\n%% point %d (%s:%d)\n%d %d %d\n")
        :format(k, a.points, lines[k], J.m, J.n, J.nnz) }
      for i = 1, J.nnz do b[i + 1] = ("%d %d %.17g\n"):format(J.rows[i], J.cols[i], J.vals[i]) end
      out:write(table.concat(b))
    end
    if a.check then
      local lg = check(cgwb().linearize(tape, { at = x }))
      worst = math.max(worst, jac_diff(J, lg:jacobian("forward")), jac_diff(J, lg:jacobian("reverse")))
      lg:free()
    end
  end
  if out ~= io.stdout then out:close() end
  local c = plan:costs()
  local res = {
    n = J and J.n or plan:pattern().n, m = plan:pattern().m, nnz = plan:pattern().nnz, mults = c.mults,
    mults_nontrivial = c.mults_nontrivial, adds = c.adds, fill = c.fill, order = c.order, mode = "vertex",
    points = #points, seconds_per_point = #points > 0 and seconds / #points or 0,
  }
  if a.check then res.check = worst end
  if a.json then io.write(require("cgwb.json").encode(res, 2), "\n") end
  io.stderr:write(("%s: %d points, %s vertex elimination kept: %d multiplications a point, nnz %d, "
    .. "%.3g s a point\n"):format(a.tape, res.points, res.order, res.mults, res.nnz, res.seconds_per_point))
  if a.check then
    if worst > CHECK_TOL then
      fail(1, ("Jacobians differ from the sweeps at a fresh build: largest relative difference %.3g, "
        .. "tolerance %g"):format(worst, CHECK_TOL))
    end
    io.stderr:write(("%s: check passed at the %d points (largest relative difference %.3g, tolerance %g)\n")
      :format(a.tape, #points, worst, CHECK_TOL))
  end
end
-- }====

commands.jacobian = {
  example = "cgwb jacobian examples/tapes/bratu.tap --order min-fill --json --check",
  setup = function(p)
    p:argument("tape", "A classic, text or ADOL-C tape.")
    graph_switches(p)
    p:flag("--ignore-branches", "Go on when --at leaves a recorded branch (the Jacobian is then the "
      .. "recorded branch's, not f's; a warning on stderr).")
    elim_options(p)
    option(p, "--points", "A file of points, one a line (n numbers): the Jacobian at each from one kept "
      .. "plan (a Matrix Market block per point; exit 3 at the first point that leaves a recorded branch).")
  end,
  run = function(a)
    if a.points then return run_points(a) end
    local g, tape = build(a)
    tape:free() -- the graph does not refer to it: less memory held through the elimination
    T.check_branches(g, a, "the Jacobian there would be the recorded branch's, not f's")
    local lg = check(cgwb().core.linearize(g))
    g:free()
    run_elimination(lg, a, a.tape)
  end,
}

commands.eliminate = {
  example = "cgwb eliminate examples/graphs/lighthouse.cg --order exact --json",
  setup = function(p)
    p:argument("graph", "A .cg (or EliAD) graph file.")
    elim_options(p)
  end,
  run = function(a)
    local lg, err = cgwb().read_graph(readable(a.graph))
    if not lg then
      if T.is_tape(a.graph) then
        fail(2, ("%s is a tape, not a graph file: use `cgwb jacobian %s`"):format(a.graph, a.graph))
      end
      fail(2, err)
    end
    run_elimination(lg, a, a.graph)
  end,
}

return M
