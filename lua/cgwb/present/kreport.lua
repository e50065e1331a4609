--- cgwb.present.kreport: the text of `cgwb kernel`'s reports (doc/kernels.md):
-- a function's report (the plain table cgwb.cli.kernel builds, the --json
-- object's) as the readable text, and the control flow graphs of several
-- functions as one DOT graph.
-- @module cgwb.present.kreport
local errors = require "cgwb.util.errors"

local M = {}

-- The control flow graph as text: a vertex a line, its successors, then the
-- statements of a block (Utke, Flattening, sec. 2).
local function cfg_text(g, r, out)
  local where = {}
  for _, st in ipairs(r.statements) do where[st.id] = st end
  out[#out + 1] = "  control flow graph (vertex kind -> successors):"
  for _, v in ipairs(g.vertices) do
    local succ = {}
    for i, w in ipairs(v.succ) do succ[i] = "V" .. w end
    local h = v.stmt and where[v.stmt] -- a loop's or a branch's head
    local head = h and ("  %s %d:%d"):format(h.text, h.line, h.col) or ""
    out[#out + 1] = ("    V%-4d %-9s -> %s%s"):format(v.id, v.kind,
      #succ > 0 and table.concat(succ, " ") or "(none)", head)
    for _, s in ipairs(v.stmts) do
      local st = where[s]
      out[#out + 1] = ("           s%-4d %-8s %s"):format(st.id, st.line .. ":" .. st.col, st.text)
    end
  end
end

-- "S3 {a[0], b[?]} exact": an address set by its id and addresses.
local function set_text(sets, id)
  local st = sets[id]
  return ("S%d {%s}%s"):format(id, table.concat(st.addresses, ", "), st.exact and " exact" or "")
end

-- The alias part (Utke, Flattening, sec. 4): sets, accesses, aliasing pairs.
local function alias_text(al, out)
  out[#out + 1] = "  address sets:"
  for id = 1, #al.sets do out[#out + 1] = "    " .. set_text(al.sets, id) end
  out[#out + 1] = "  accesses (line:col, use or def, text, address set):"
  for id, ac in ipairs(al.accesses) do
    out[#out + 1] = ("    A%-4d %-8s %s%s  %-16s S%d"):format(id, ac.line .. ":" .. ac.col, ac.kind,
      ac.kind == "def" and (ac.may and " may " or " must") or "     ", ac.text, ac.set)
  end
  out[#out + 1] = "  aliasing sets (may or must; every other pair: no):"
  for _, pr in ipairs(al.pairs) do
    out[#out + 1] = ("    S%d S%d %s"):format(pr.u, pr.v, pr.relation)
  end
  for _, as in ipairs(al.assumed or {}) do
    out[#out + 1] = ("    assumed: S%d S%d %s"):format(as.u, as.v, as.answer)
  end
end

-- The chains part (Utke, Flattening, sec. 6): ud by use, du by statement.
local function chains_text(ch, out)
  local function stmts(list)
    local items = {}
    for i, s in ipairs(list) do items[i] = s == 0 and "0" or ("s%d"):format(s) end
    return table.concat(items, ", ")
  end
  out[#out + 1] = "  ud-chains (a use <- the statements whose definitions may reach it; 0: outside):"
  for _, u in ipairs(ch.ud) do
    out[#out + 1] = ("    A%-4d %-16s <- %s"):format(u.access, ("%s %d:%d"):format(u.text, u.line, u.col),
      stmts(u.stmts))
  end
  out[#out + 1] = "  du-chains (a defining statement -> the statements its definitions may reach; 0: outside):"
  for _, d in ipairs(ch.du) do
    out[#out + 1] = ("    %-6s -> %s"):format(stmts({ d.stmt }), stmts(d.stmts))
  end
end

-- The activity part (Hovland, Norris, Utke & Strout, sec. 4).
local function activity_text(ac, out)
  local function list(t) return #t > 0 and table.concat(t, " ") or "(none)" end
  out[#out + 1] = "  activity:"
  out[#out + 1] = "    independents     " .. list(ac.independents)
  out[#out + 1] = "    dependents       " .. list(ac.dependents)
  out[#out + 1] = "    active symbols   " .. list(ac.active_symbols)
  out[#out + 1] = "    passive symbols  " .. list(ac.passive_symbols)
  local function stmts(t)
    local o = {}
    for i, x in ipairs(t) do o[i] = "s" .. x end
    return list(o)
  end
  out[#out + 1] = "    active statements  " .. stmts(ac.active_stmts)
  out[#out + 1] = "    passive statements " .. stmts(ac.passive_stmts)
end

-- A C declaration of name with type text t: "double *a", "int m[4]".
local function c_decl(t, name)
  local base, dims = t:match("^(.-)(%[.*)$")
  if base then return base .. " " .. name .. dims end
  if t:match("%*$") then return t .. name end
  return t .. " " .. name
end

--- The text form of one function's report: (r) -> text (ending in a newline).
function M.text(r)
  local params, const = {}, {}
  for _, p in ipairs(r.params) do -- a struct parameter is const when all its members are (const S *q)
    local st = p.struct
    if st then const[st.var] = (const[st.var] ~= false) and p.const or false end
  end
  for _, p in ipairs(r.params) do -- the C declarations: a struct parameter once, as written (S s, S *p)
    local st = p.struct
    if not st then params[#params + 1] = c_decl(p.type, p.name)
    elseif st.first then
      params[#params + 1] = st.pointer and ((const[st.var] and "const " or "") .. st.type .. " *" .. st.var)
        or (st.type .. " " .. st.var)
    end
  end
  local out = { ("function %s: %s%s %s(%s)  %d:%d")
    :format(r.id, r.external and "external " or "", r.ret, r.name, table.concat(params, ", "), r.line, r.col) }
  out[#out + 1] = "  symbols:"
  for _, s in ipairs(r.symbols) do
    out[#out + 1] = ("    %-12s %-6s %s%s  %d:%d"):format(s.name, s.kind, s.type,
      s.address_taken and " (address taken)" or "", s.line, s.col)
  end
  out[#out + 1] = "  statements:"
  for _, st in ipairs(r.statements) do
    local part = (st.part ~= "body" and st.part ~= "then") and (st.part .. ": ") or ""
    out[#out + 1] = ("    s%-4d %-8s %s%s%s%s"):format(st.id, st.line .. ":" .. st.col,
      ("  "):rep(st.depth), part, st.text,
      st.pragma and ("   #pragma cgwb " .. st.pragma) or "")
  end
  if r.cfg then cfg_text(r.cfg, r, out) end
  if r.alias then alias_text(r.alias, out) end
  if r.chains then chains_text(r.chains, out) end
  if r.activity then activity_text(r.activity, out) end
  return table.concat(out, "\n") .. "\n"
end

--- The DOT text of the control flow graphs of the functions ids of kernel k:
-- (k, ids) -> text; one graph, each function a cluster (its node names
-- prefixed with the function's id).  Raises a runtime error (exit 1) when the
-- core's DOT is not a digraph.
function M.dot(k, ids)
  if #ids == 1 then return k:cfg_dot(ids[1]) end
  local parts, funcs = { "digraph kernel {" }, k:functions()
  for _, id in ipairs(ids) do
    local text, err = k:cfg_dot(id)
    if text == nil then errors.fail(1, err) end
    local body = text:match("^%s*digraph[^{]*{(.*)}%s*$")
    if not body then errors.fail(1, "cfg_dot: not a digraph") end
    -- vertex names v0, v1, ... become f<id>v0 ...: outside quoted labels only
    local pieces, pos = {}, 1
    while pos <= #body do
      local q0, q1 = body:find('"[^"]*"', pos)
      local plain = body:sub(pos, (q0 or #body + 1) - 1)
      pieces[#pieces + 1] = plain:gsub("%f[%w_]v(%d+)%f[^%w_]", "f" .. id .. "v%1")
      if not q0 then break end
      pieces[#pieces + 1] = body:sub(q0, q1)
      pos = q1 + 1
    end
    parts[#parts + 1] = ("subgraph cluster_%d {\n  label=%q;%s}"):format(id, funcs[id].name,
      table.concat(pieces))
  end
  parts[#parts + 1] = "}\n"
  return table.concat(parts, "\n")
end

return M
