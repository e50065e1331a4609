--- cgwb.flatten: flattening a kernel function's basic blocks into term graphs
-- (Utke, Flattening Basic Blocks, Algorithms 1 and 2, sec. 6.2), the face of
-- `cgwb flatten` (doc/flattening.md, "cgwb flatten").  run() chooses the
-- split strategy (a built-in name, a Lua function, or a file returning one)
-- and calls core.kernel_flatten; describe() is the --json table, text() its
-- readable form, dot() the graphs as DOT.  Every list in their output is in
-- source or vertex order: nothing comes from pairs().
-- @module cgwb.flatten
local core = require "cgwb.core"
local json = require "cgwb.json"

local M = {}

--- The built-in split strategies, in the order --help lists them: the
-- core's (cg_kflat.c), through core.kernel_layout().split_strategies.
M.strategies = core.kernel_layout().split_strategies

local BUILTIN = {}
for _, s in ipairs(M.strategies) do BUILTIN[s] = true end

--- Whether name is a built-in split strategy.
function M.is_strategy(name) return BUILTIN[name] == true end

-- {==== split strategies ====}

--- Loads a split strategy from a Lua file, a plug-in (cgwb.util.plugin: the
-- chunk runs once, in an environment of its own that reads through to the
-- globals, with `cgwb` preloaded) that must return a function split(info)
-- (what: the text naming it in the message; cgwb adjoint's loops' function
-- says "decide(loop)").  -> function | nil, "FILE: message".
function M.load_split(path, what)
  local fn, err = require("cgwb.util.plugin").pload(path, {
    expect = "function", returns = "a function " .. (what or "split(info)") })
  if not fn then return nil, err end
  return fn
end

-- The strategy options of opts.split: ({strategy=} or {split=}) | nil, message.
local function split_opts(split)
  if split == nil then return { strategy = M.strategies[1] } end -- the first: the default
  if type(split) == "function" then return { split = split } end
  if type(split) ~= "string" then
    return nil, ("split: a strategy name, a function or a .lua file expected, got %s"):format(type(split))
  end
  if BUILTIN[split] then return { strategy = split } end
  if split:match("%.lua$") then
    local fn, err = M.load_split(split)
    if not fn then return nil, err end
    return { split = fn }
  end
  return nil, ("split: '%s' is neither a strategy (%s) nor a .lua file"):format(split,
    table.concat(M.strategies, ", "))
end

-- {==== run ====}

-- The parameters of function id by name (their symbol rows).
local function param_set(k, id)
  local set = {}
  for _, sy in ipairs(k:symbols(id)) do
    if sy.kind == "param" then set[sy.name] = sy end
  end
  return set
end

-- Checks a list of parameter names (opts.independents / dependents): double
-- parameters or pointers to double; the dependents may also name "return"
-- of a function returning a double.  -> true | nil, message.
local function check_params(k, id, fname, list, what)
  if list == nil then return true end
  if type(list) ~= "table" then return nil, ("%s: a list of parameter names expected"):format(what) end
  local params = param_set(k, id)
  for _, name in ipairs(list) do
    if what == "dependents" and name == "return" then
      if k:functions()[id].ret ~= "double" then
        return nil, ("%s: dependents: 'return': %s does not return a double"):format(k:file(), fname)
      end
    elseif not params[name] then
      return nil, ("%s: %s: '%s' is not a parameter of %s"):format(k:file(), what, tostring(name), fname)
    elseif params[name].base ~= "double" then
      return nil, ("%s: %s: '%s' is an int parameter of %s (they are double parameters or pointers to double)")
        :format(k:file(), what, tostring(name), fname)
    end
  end
  return true
end

--- Flattens function fname of kernel (a cgwb.Kernel from cgwb.read_kernel).
-- opts: split ("minimal" default, "statement", a function split(info), or the
-- path of a .lua file returning one), assume ({"a!=b", ...}), prune,
-- independents, dependents (parameter names, for activity), alias (as
-- core.kernel_flatten).  -> the result table of core.kernel_flatten | nil, message.
function M.run(kernel, fname, opts)
  opts = opts or {}
  local id, err = kernel:body_function_id(fname)
  if not id then return nil, err end
  local name = kernel:functions()[id].name
  local so, serr = split_opts(opts.split)
  if not so then return nil, serr end
  for _, what in ipairs { "independents", "dependents" } do
    local ok, perr = check_params(kernel, id, name, opts[what], what)
    if not ok then return nil, perr end
  end
  local res, ferr = core.kernel_flatten(kernel, id, {
    strategy = so.strategy, split = so.split, assume = opts.assume, prune = opts.prune,
    independents = opts.independents, dependents = opts.dependents, alias = opts.alias,
  })
  if res and so.split and res.strategy ~= "lua" then -- a core without the split hook ignored it
    return nil, "a Lua split strategy is not available: this build's core.kernel_flatten has no split hook"
  end
  return res, ferr
end

-- {==== describe ====}

-- The source name of a vertex or dependent: `name` (x, p[e]), else the alias
-- analysis' address text.
local function name_of(t) return t.name or t.addr or t.text end

local function array_copy(t)
  local out = json.array({})
  for i, v in ipairs(t or {}) do out[i] = v end
  return out
end

-- A subgraph's dependents in statement order (ties: the result's order).
local function dependents_in_order(g)
  local idx = {}
  for i = 1, #g.dependents do idx[i] = i end
  table.sort(idx, function(a, b)
    local sa, sb = g.dependents[a].stmt or 0, g.dependents[b].stmt or 0
    if sa ~= sb then return sa < sb end
    return a < b
  end)
  local out = {}
  for i, j in ipairs(idx) do out[i] = g.dependents[j] end
  return out
end

-- The --json table of one subgraph; mults from the cost report when given.
local function describe_subgraph(g, cost)
  local ind, dep, aug = json.array({}), json.array({}), 0
  for i, v in ipairs(g.independents) do ind[i] = name_of(g.vertices[v]) end
  for i, d in ipairs(dependents_in_order(g)) do
    dep[i] = name_of(d)
    if d.augmented then aug = aug + 1 end
  end
  return { lines = array_copy(g.lines), vertices = #g.vertices, edges = #g.edges, augmented = aug,
           independents = ind, dependents = dep, mults = cost and cost.mults }
end

--- The blocks of res that hold active assignments, in source order.
function M.active_blocks(res)
  local out = {}
  for _, b in ipairs(res.blocks) do
    if #b.lines > 0 then out[#out + 1] = b end
  end
  return out
end

--- The JSON table of a flattening result (doc/flattening.md, "cgwb
-- flatten"): function, strategy, the function's independents and dependents,
-- and per block with active assignments its lines, subgraph counts, dead
-- lines and subgraphs.  costs (tangent.costs' report) adds each subgraph's
-- mults (costs.subgraphs[b][s]: b counts the blocks of res, or, when fewer
-- are given, the blocks here) and `cost`.
function M.describe(res, costs)
  local blocks = json.array({})
  local per = costs and costs.subgraphs
  -- costs.subgraphs counts either every block of res or the active ones only
  local all = per and #per == #res.blocks
  for ri, b in ipairs(res.blocks) do
    if #b.lines > 0 then
      local bi, subs = #blocks + 1, json.array({})
      local bc = per and per[all and ri or bi]
      for si, g in ipairs(b.subgraphs) do subs[si] = describe_subgraph(g, bc and bc[si]) end
      blocks[bi] = { lines = array_copy(b.lines), n_subgraphs = b.n_subgraphs,
                     statement_level_subgraphs = b.statement_level_subgraphs,
                     dead = array_copy(b.dead), subgraphs = subs }
    end
  end
  return { ["function"] = res.func, strategy = res.strategy,
           independents = array_copy(res.independents), dependents = array_copy(res.dependents),
           blocks = blocks, cost = costs and costs.cost }
end

-- {==== text ====}

-- "11-13" for consecutive lines, else "11,14"; "-" for none.
local function lines_text(lines)
  if #lines == 0 then return "-" end
  local consecutive = true
  for i = 2, #lines do consecutive = consecutive and lines[i] == lines[i - 1] + 1 end
  if consecutive and #lines > 1 then return lines[1] .. "-" .. lines[#lines] end
  return table.concat(lines, ",")
end

local function list_text(t) return #t > 0 and table.concat(t, " ") or "-" end

-- The cost report's fields as "key value" lines, keys sorted, a nested
-- table's fields as "key.field".
local function cost_lines(cost, out, prefix)
  local keys = {}
  for key in pairs(cost) do keys[#keys + 1] = tostring(key) end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local v = cost[key]
    if type(v) == "table" then
      cost_lines(v, out, (prefix or "") .. key .. ".")
    else
      if math.type(v) == "float" then v = ("%.17g"):format(v) end
      out[#out + 1] = ("  %-36s %s"):format((prefix or "") .. key, tostring(v))
    end
  end
end

-- Left-aligned columns of rows (arrays of strings), two spaces apart.
local function columns(rows, out, indent)
  local w = {}
  for _, r in ipairs(rows) do
    for c, s in ipairs(r) do w[c] = math.max(w[c] or 0, #s) end
  end
  for _, r in ipairs(rows) do
    local cells = {}
    for c, s in ipairs(r) do cells[c] = c < #r and s .. (" "):rep(w[c] - #s) or s end
    out[#out + 1] = indent .. table.concat(cells, "  ")
  end
end

--- The readable form of describe's table t (the default output of
-- `cgwb flatten`): the function, then per block a table of its subgraphs.
function M.text(t, source)
  local out = { ("%s%s: strategy %s"):format(source and (source .. ": ") or "", t["function"], t.strategy),
                "independents  " .. list_text(t.independents),
                "dependents    " .. list_text(t.dependents) }
  for bi, b in ipairs(t.blocks) do
    out[#out + 1] = ""
    out[#out + 1] = ("block %d: lines %s; %d subgraph%s (statement level: %d); dead: %s")
      :format(bi, lines_text(b.lines), b.n_subgraphs, b.n_subgraphs == 1 and "" or "s",
              b.statement_level_subgraphs, #b.dead > 0 and table.concat(b.dead, ",") or "none")
    local rows = { { "subgraph", "lines", "vertices", "edges", "augmented", "mults", "independents", "dependents" } }
    for si, g in ipairs(b.subgraphs) do
      rows[#rows + 1] = { tostring(si), lines_text(g.lines), tostring(g.vertices), tostring(g.edges),
                          tostring(g.augmented), g.mults and tostring(g.mults) or "-",
                          list_text(g.independents), list_text(g.dependents) }
    end
    columns(rows, out, "  ")
  end
  if t.cost then
    out[#out + 1] = ""
    out[#out + 1] = "cost:"
    cost_lines(t.cost, out)
  end
  return table.concat(out, "\n") .. "\n"
end

-- {==== DOT ====}

local SYMBOL = { add = "+", sub = "-", mul = "*", div = "/", neg = "-", cond = "?:" }

local function quoted(s) return '"' .. tostring(s):gsub('[\\"]', "\\%0"):gsub("\n", "\\n") .. '"' end

-- The label of vertex v: an independent by its name, an operation by its
-- symbol, an intrinsic by its name.
local function vertex_label(v)
  if v.kind == "independent" then return name_of(v) end
  return SYMBOL[v.op] or v.op
end

-- The DOT lines of subgraph g (node names prefixed with pre).
local function dot_subgraph(g, pre, title, out)
  out[#out + 1] = ("    subgraph cluster_%s {"):format(pre)
  out[#out + 1] = ("      label=%s;"):format(quoted(title))
  local deps = {} -- vertex -> its dependents, in statement order
  for _, d in ipairs(dependents_in_order(g)) do
    deps[d.vertex] = deps[d.vertex] or {}
    table.insert(deps[d.vertex], d)
  end
  for i, v in ipairs(g.vertices) do
    local label, attrs = vertex_label(v), ""
    local ds = deps[i]
    if ds then
      local names = {}
      for j, d in ipairs(ds) do names[j] = name_of(d) end
      label = label .. "\n" .. table.concat(names, ", ")
      attrs = ", peripheries=2"
    end
    if v.kind == "independent" then attrs = attrs .. ", shape=box" end
    out[#out + 1] = ("      %sv%d [label=%s%s];"):format(pre, i, quoted(label), attrs)
  end
  for _, e in ipairs(g.edges) do
    out[#out + 1] = ("      %sv%d -> %sv%d [label=\"%d\"];"):format(pre, e[1], pre, e[2], e[3])
  end
  for j, d in ipairs(dependents_in_order(g)) do
    if d.augmented then -- sec. 6.2: a unit edge to an extra vertex, drawn apart
      out[#out + 1] = ("      %sa%d [label=%s, style=dashed, peripheries=2];"):format(pre, j, quoted(name_of(d)))
      out[#out + 1] = ("      %sv%d -> %sa%d [label=\"1\", style=dashed];"):format(pre, d.vertex, pre, j)
    end
  end
  out[#out + 1] = "    }"
end

--- The term graphs of res as DOT text: one cluster per block with active
-- assignments, one per subgraph inside it; vertices labelled by operation or
-- name, edges by argument position, dependents double circled, augmented
-- vertices (sec. 6.2) dashed.
function M.dot(res)
  local out = { ("digraph %s {"):format(quoted("flatten " .. res.func)), "  node [shape=circle];" }
  for bi, b in ipairs(M.active_blocks(res)) do
    out[#out + 1] = ("  subgraph cluster_b%d {"):format(bi)
    out[#out + 1] = ("    label=%s;"):format(quoted(("block %d: lines %s"):format(bi, lines_text(b.lines))))
    for si, g in ipairs(b.subgraphs) do
      dot_subgraph(g, ("b%ds%d"):format(bi, si), ("subgraph %d: lines %s"):format(si, lines_text(g.lines)), out)
    end
    out[#out + 1] = "  }"
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

return M
