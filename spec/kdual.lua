-- kdual.lua: random kernels written twice, as C text and as the flat
-- intermediate form (through spec/kbuild.lua), so that the interpreter can
-- be checked against the compiled kernel without the front end.  Each
-- kernel: void NAME(double *p, double *q, double x, int n) with locals
-- t0..t2, a[4], i; random assignments to p[c], q[c], t_k, a[c], ifs and
-- counted loops; reads only of cells written before (uninitialized reads
-- are the interpreter's errors, the compiled kernel's undefined behaviour).
-- smooth: only operations with continuous partials (for central
-- differences).
local M = {}

local function expr(G, depth)
  local r, B = G.rng, G.B
  local pick = r:int(1, depth <= 0 and 4 or 9)
  if pick == 1 then return {x = B:var(G.x), c = "x"} end
  if pick == 2 then
    local c = r:int(0, 3)
    local s, nm = r:int(0, 1) == 0 and G.p or G.q, nil
    nm = s == G.p and "p" or "q"
    if G.inloop and r:int(0, 2) == 0 then
      return {x = B:elem(s, B:op("add", B:var(G.i), B:ci(c % 2))), c = ("%s[i + %d]"):format(nm, c % 2)}
    end
    return {x = B:elem(s, B:ci(c)), c = ("%s[%d]"):format(nm, c)}
  end
  if pick == 3 then
    local ks = {}
    for k in pairs(G.init) do ks[#ks + 1] = k end
    table.sort(ks)
    if #ks > 0 then
      local k = ks[r:int(1, #ks)]
      if k:sub(1, 1) == "t" then
        local id = tonumber(k:sub(2))
        return {x = B:var(G.t[id + 1]), c = k}
      end
      local c = tonumber(k:match("%d"))
      return {x = B:elem(G.a, B:ci(c)), c = ("a[%d]"):format(c)}
    end
  end
  if pick <= 4 then
    local v = r:int(-8, 8) / 4 + 0.125
    return {x = B:cd(v), c = ("%a"):format(v)}
  end
  local a = expr(G, depth - 1)
  if pick <= 7 then
    local b = expr(G, depth - 1)
    local ops = G.smooth and {"add", "sub", "mul"} or {"add", "sub", "mul", "div"}
    local op = ops[r:int(1, #ops)]
    local sym = ({add = "+", sub = "-", mul = "*", div = "/"})[op]
    return {x = B:op(op, a.x, b.x), c = ("(%s %s %s)"):format(a.c, sym, b.c)}
  end
  local fs = G.smooth and {"sin", "cos", "atan", "exp"} or
             {"sin", "cos", "atan", "fabs", "floor", "fmin", "sqrt", "exp"}
  local f = fs[r:int(1, #fs)]
  if f == "fmin" then
    local b = expr(G, depth - 1)
    return {x = B:intrin("fmin", a.x, b.x), c = ("fmin(%s, %s)"):format(a.c, b.c)}
  end
  if f == "sqrt" then
    return {x = B:intrin("sqrt", B:intrin("fabs", a.x)), c = ("sqrt(fabs(%s))"):format(a.c)}
  end
  if f == "exp" then -- bounded argument: exp(sin(a))
    return {x = B:intrin("exp", B:intrin("sin", a.x)), c = ("exp(sin(%s))"):format(a.c)}
  end
  return {x = B:intrin(f, a.x), c = ("%s(%s)"):format(f, a.c)}
end

local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end

local stmts

local function assign(G, out, ind)
  local r, B = G.rng, G.B
  local e = expr(G, G.depth)
  local pick = r:int(1, 4)
  local l, c
  if pick == 1 or pick == 2 then
    local s = pick == 1 and G.p or G.q
    local nm = pick == 1 and "p" or "q"
    if G.inloop and r:int(0, 1) == 0 then
      l, c = B:elem(s, B:var(G.i)), nm .. "[i]"
    else
      local k = r:int(0, 3)
      l, c = B:elem(s, B:ci(k)), ("%s[%d]"):format(nm, k)
    end
  elseif pick == 3 then
    local k = r:int(0, 2)
    l, c = B:var(G.t[k + 1]), "t" .. k
    G.init[c] = true
  else
    local k = r:int(0, 3)
    l, c = B:elem(G.a, B:ci(k)), ("a[%d]"):format(k)
    G.init[c] = true
  end
  out[#out + 1] = B:assign(l, e.x)
  G.text[#G.text + 1] = ("%s%s = %s;"):format(ind, c, e.c)
end

function stmts(G, n, ind, level)
  local r, B = G.rng, G.B
  local out = {}
  for _ = 1, n do
    local pick = r:int(1, 10)
    if pick == 9 and level < 2 then
      local a, b = expr(G, 1), expr(G, 1)
      G.text[#G.text + 1] = ("%sif (%s < %s) {"):format(ind, a.c, b.c)
      local before = copy(G.init)
      local thn = stmts(G, r:int(1, 3), ind .. "  ", level + 1)
      local after_then = G.init
      G.init = copy(before)
      G.text[#G.text + 1] = ind .. "} else {"
      local els = stmts(G, r:int(0, 2), ind .. "  ", level + 1)
      local both = {}
      for k in pairs(G.init) do if after_then[k] then both[k] = true end end
      G.init = both
      G.text[#G.text + 1] = ind .. "}"
      out[#out + 1] = B:ifs(B:op("lt", a.x, b.x), thn, els)
    elseif pick == 10 and level < 2 and not G.inloop then
      G.text[#G.text + 1] = ind .. "for (i = 0; i < n; i = i + 1) {"
      out[#out + 1] = B:assign(B:var(G.i), B:ci(0))
      local before = copy(G.init)
      G.inloop = true
      local body = stmts(G, r:int(1, 3), ind .. "  ", level + 1)
      G.inloop = false
      G.init = before
      G.text[#G.text + 1] = ind .. "}"
      local step = B:assign(B:var(G.i), B:op("add", B:var(G.i), B:ci(1)))
      out[#out + 1] = B:loop("for", B:op("lt", B:var(G.i), B:var(G.n)), body, {step})
    else
      assign(G, out, ind)
    end
  end
  return out
end

--- Adds a random kernel named name to builder B (rng r); returns its C text.
function M.kernel(B, r, name, opts)
  opts = opts or {}
  B:func(name, "void")
  local G = {B = B, rng = r, text = {}, init = {}, t = {}, smooth = opts.smooth,
             depth = opts.depth or 3}
  G.p = B:sym("p", "param", {ptr = 1})
  G.q = B:sym("q", "param", {ptr = 1})
  G.x = B:sym("x", "param")
  G.n = B:sym("n", "param", {base = "int"})
  for k = 0, 2 do G.t[k + 1] = B:sym("t" .. k, "local") end
  G.a = B:sym("a", "local", {ndim = 1, dim0 = 4})
  G.i = B:sym("i", "local", {base = "int"})
  local body = stmts(G, opts.nstmt or r:int(3, 8), "  ", 0)
  B:body(body)
  return ("void %s(double *p, double *q, double x, int n) {\n  double t0, t1, t2, a[4];\n  int i;\n%s\n}\n")
         :format(name, table.concat(G.text, "\n"))
end

--- A random binding: p and q into one array (aliased) or two; x; n.
function M.binding(r)
  local A, Bv = {}, {}
  for i = 1, 8 do A[i] = r:int(-16, 16) / 8 + 0.0625 end
  for i = 1, 8 do Bv[i] = r:int(-16, 16) / 8 - 0.0625 end
  local alias = r:int(0, 1) == 0
  local po, qo = r:int(0, 3), r:int(0, 3)
  return {arrays = {{name = "A", type = "double", values = A}, {name = "B", type = "double", values = Bv}},
          args = {{array = 1, offset = po}, {array = alias and 1 or 2, offset = qo},
                  {double = r:int(-12, 12) / 8 + 0.03125}, {int = r:int(0, 3)}}}
end

return M
