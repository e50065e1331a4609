--- cgwb.loops: the data-dependence graph of a kernel function and the
-- verdict on each of its loops (Hascoet, Fidanova & Held, "Adjoining
-- Independent Computations", sec. 2 and 3), the face of `cgwb loops`
-- (doc/adjoint-loops.md).  analyse() calls core.kernel_loops; dot() draws
-- the graph, text() the loops' table, report() the --json loops array.
-- Every list in their output is in source order or sorted by name: nothing
-- comes from pairs().
-- @module cgwb.loops
local core = require "cgwb.core"
local json = require "cgwb.json"

local M = {}

--- The analysis of function fname (a name or 1-based id) of kernel (a
-- cgwb.Kernel from cgwb.read_kernel).  opts: assume ({"a!=b", ...}), alias
-- (as core.kernel_flatten), independents, dependents (parameter names).
-- -> the table of core.kernel_loops (doc/adjoint-loops.md) | nil, message.
function M.analyse(kernel, fname, opts)
  opts = opts or {}
  local id, err = kernel:body_function_id(fname)
  if not id then return nil, err end
  local ok, info, ierr = pcall(core.kernel_loops, kernel, id, {
    assume = opts.assume, alias = opts.alias, independents = opts.independents, dependents = opts.dependents,
  })
  if not ok then return nil, tostring(info) end
  return info, ierr
end

-- {==== DOT ====}

local function dot_string(s) return '"' .. s:gsub('[\\"]', "\\%0"):gsub("\n", "\\n") .. '"' end

--- The data-dependence graph as DOT: a node per statement ("line: text"),
-- an edge per dependence labelled with its variable and kind; edges
-- carried by a loop dashed and labelled "carried L" (L the loop's line);
-- loops and conditions drawn as diamonds, increments (which have no edge
-- between each other) rounded and marked "(increment)".
function M.dot(info)
  local out = { ("digraph %s {"):format(dot_string("ddg " .. info.func)), "  node [shape=box, fontname=monospace];" }
  for i, n in ipairs(info.ddg.nodes) do
    local shape = (n.kind == "loop" or n.kind == "cond") and ", shape=diamond"
      or n.increment and ", style=rounded" or ""
    local label = ("%d: %s%s"):format(n.line, n.text, n.increment and " (increment)" or "")
    out[#out + 1] = ("  n%d [label=%s%s];"):format(i, dot_string(label), shape)
  end
  for _, e in ipairs(info.ddg.edges) do
    local label = e.var .. " " .. e.kind
    local style = ""
    if e.carried then
      label = label .. ", carried " .. info.ddg.nodes[e.carried].line
      style = ", style=dashed"
    end
    out[#out + 1] = ("  n%d -> n%d [label=%s%s];"):format(e.from, e.to, dot_string(label), style)
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

-- }====

-- {==== text ====}

local function names(list)
  local out = {}
  for i, s in ipairs(list) do out[i] = type(s) == "table" and s.name or s end
  return #out > 0 and table.concat(out, ", ") or "-"
end

--- One block per loop: line, verdict, reason, the access table, terminal,
-- dry run, snapshot.
function M.text(info, file)
  local out = { ("%sfunction %s: %d loops, %d dependence-graph nodes, %d edges"):format(
    file and (file .. ": ") or "", info.func, #info.loops, #info.ddg.nodes, #info.ddg.edges) }
  for _, l in ipairs(info.loops) do
    out[#out + 1] = ""
    out[#out + 1] = ("loop at %d:%d (depth %d, counter %s)%s: %s"):format(l.line, l.col, l.depth,
      l.index or "none", l.pragma and " #pragma cgwb independent" or "", l.verdict)
    out[#out + 1] = "  reason:      " .. l.reason
    if l.pragma then out[#out + 1] = "  pragma:      " .. l.pragma_status end
    out[#out + 1] = "  independent: " .. tostring(l.independent)
    local w = 4
    for _, a in ipairs(l.access) do w = math.max(w, #a.name) end
    for _, a in ipairs(l.access) do
      out[#out + 1] = ("    %-" .. w .. "s  %-9s %s"):format(a.name, a.type, a.class)
    end
    out[#out + 1] = "  terminal:    " .. tostring(l.terminal)
    out[#out + 1] = "  dry run:     " .. tostring(l.dry_run)
    out[#out + 1] = "  snapshot:    " .. names(l.snapshot)
    if #l.carried > 0 then
      local lines = {}
      for i, e in ipairs(l.carried) do
        local ed = info.ddg.edges[e]
        lines[i] = ("%s %s %d->%d"):format(ed.var, ed.kind, info.ddg.nodes[ed.from].line, info.ddg.nodes[ed.to].line)
      end
      out[#out + 1] = "  carried:     " .. table.concat(lines, "; ")
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- }====

-- {==== report ====}

--- The loops as the JSON array of the json and report options: per loop its line, independent,
-- verdict, reason, access (name -> class), terminal, dry_run, snapshot
-- (names), pragma (false, "confirmed" or "refused").
function M.report(info)
  local out = json.array({})
  for i, l in ipairs(info.loops) do
    local access = {}
    for _, a in ipairs(l.access) do access[a.name] = a.class end
    local snap = json.array({})
    for j, s in ipairs(l.snapshot) do snap[j] = s.name end
    out[i] = { line = l.line, col = l.col, independent = l.independent, verdict = l.verdict, reason = l.reason,
               access = access, terminal = l.terminal, dry_run = l.dry_run, snapshot = snap,
               pragma = l.pragma_status }
  end
  return out
end

-- }====

return M
