#!/usr/bin/env lua5.4
-- scripts/bench/mesh.lua: an unstructured-looking triangle mesh of the unit square
-- for the benchmark of adjoints of parallel loops (scripts/bench-adjoint.sh,
-- doc/results/adjoint-loops.md) and spec/33-nsloops_spec.lua.
--
--   lua5.4 scripts/bench/mesh.lua N [SEED] > mesh.txt
--   local mesh = dofile("scripts/bench/mesh.lua")   -- as a module (arg unused)
--   local m = mesh.generate(n, seed); local text = mesh.format(m)
--
-- An n x n grid of squares of side h = 1/n, each cut into two triangles along
-- its diagonal ((n+1)^2 vertices, 2 n^2 triangles, 3 n^2 + 2 n edges); every
-- interior vertex moved by a uniform jitter in [-0.2 h, 0.2 h) in x and in y
-- (a vertex moves at most 0.2 sqrt(2) h < h / (2 sqrt(2)), half the smallest
-- altitude, so no triangle turns over); then the vertices, the triangles and
-- the edges are renumbered by seeded random permutations (Fisher-Yates), and
-- each triangle's first vertex rotated at random (orientation kept counter-
-- clockwise), so that a loop over triangles or edges reaches vertices in an
-- irregular order, as in a real unstructured mesh.
--
-- Random numbers: a 64-bit linear congruential generator with Knuth's MMIX
-- constants (state = state * 6364136223846793005 + 1442695040888963407 mod
-- 2^64, Lua 5.4's wrapping integers), its high 53 bits as a double in [0, 1);
-- the same N and SEED give the same bytes on every Lua 5.4.
--
-- The text format (ids 0-based, as the C drivers index):
--   cgwb-mesh 1
--   n N seed SEED
--   nv NV ne NE nt NT nb NB
--   NV lines "x y"            (%.17g)
--   NT lines "a b c"          (counter-clockwise)
--   NE lines "a b t1 t2"      (end vertices a < b; its triangles, t2 = -1 on the boundary)
--   NB lines "e"              (the boundary edges, ascending)
--   checksum HHHHHHHHHHHHHHHH
-- The checksum is FNV-1a (64 bits) of every byte before the "checksum" line,
-- as 16 lower-case hex digits; the C drivers (scripts/bench/nsmesh.h) check it.
local M = {}

-- {==== random numbers ====}

local function lcg(seed)
  local s = seed
  return function() -- a double in [0, 1)
    s = s * 6364136223846793005 + 1442695040888963407
    return ((s >> 11) & 0x1fffffffffffff) / 2^53
  end
end

-- A random permutation of 0..n-1 (Fisher-Yates): perm[old + 1] = new.
local function permutation(n, rnd)
  local p = {}
  for i = 1, n do p[i] = i - 1 end
  for i = n, 2, -1 do
    local j = math.floor(rnd() * i) + 1
    p[i], p[j] = p[j], p[i]
  end
  return p
end

-- {==== generation ====}

--- The mesh of an n x n grid with the given seed (see the header): a table
-- {n, seed, x = {}, y = {}, tri = {a, b, c, ...}, edge = {a, b, t1, t2, ...},
-- bnd = {e, ...}}, arrays 1-based holding 0-based ids, nv, ne, nt, nb.
function M.generate(n, seed)
  assert(math.type(n) == "integer" and n >= 1, "mesh: n must be an integer >= 1")
  seed = seed or 1
  local rnd = lcg(seed)
  local h, nv = 1 / n, (n + 1) * (n + 1)
  local vperm = permutation(nv, rnd)
  local x, y = {}, {}
  for j = 0, n do
    for i = 0, n do
      local px, py = i * h, j * h
      if i > 0 and i < n and j > 0 and j < n then -- interior: jitter
        px = px + (rnd() - 0.5) * 0.4 * h
        py = py + (rnd() - 0.5) * 0.4 * h
      end
      local id = vperm[j * (n + 1) + i + 1]
      x[id + 1], y[id + 1] = px, py
    end
  end
  local function v(i, j) return vperm[j * (n + 1) + i + 1] end
  local cells = {} -- the triangles in grid order, counter-clockwise
  for j = 0, n - 1 do
    for i = 0, n - 1 do
      cells[#cells + 1] = { v(i, j), v(i + 1, j), v(i + 1, j + 1) }
      cells[#cells + 1] = { v(i, j), v(i + 1, j + 1), v(i, j + 1) }
    end
  end
  local nt = #cells
  local tperm = permutation(nt, rnd)
  local tri = {}
  for old = 1, nt do
    local c, r = cells[old], math.floor(rnd() * 3) -- rotate the first vertex
    local new = tperm[old]
    for k = 0, 2 do tri[3 * new + k + 1] = c[(k + r) % 3 + 1] end
  end
  local m = { n = n, seed = seed, x = x, y = y, tri = tri, nv = nv, nt = nt }
  M.edges(m, rnd)
  return m
end

--- Fills m.edge, m.ne, m.bnd, m.nb from m.tri: each pair of vertices of a
-- triangle side once, in an order drawn with rnd (a permutation of the order
-- of first appearance in the triangles).
function M.edges(m, rnd)
  local key, list = {}, {} -- key[a * nv + b] = index into list (a < b)
  for t = 0, m.nt - 1 do
    for k = 0, 2 do
      local a, b = m.tri[3 * t + k + 1], m.tri[3 * t + (k + 1) % 3 + 1]
      if a > b then a, b = b, a end
      local kk = a * m.nv + b
      local e = key[kk]
      if e then
        assert(list[e][4] == -1, "mesh: an edge with three triangles")
        list[e][4] = t
      else
        list[#list + 1] = { a, b, t, -1 }
        key[kk] = #list
      end
    end
  end
  local perm = permutation(#list, rnd)
  local edge, bnd = {}, {}
  for old = 1, #list do
    local new = perm[old]
    for k = 1, 4 do edge[4 * new + k] = list[old][k] end
  end
  for e = 0, #list - 1 do
    if edge[4 * e + 4] == -1 then bnd[#bnd + 1] = e end
  end
  m.edge, m.ne, m.bnd, m.nb = edge, #list, bnd, #bnd
end

-- {==== output ====}

--- FNV-1a, 64 bits, of a string, as 16 hex digits.
function M.fnv1a(s)
  local hsh = -3750763034362895579 -- 0xcbf29ce484222325 as a signed 64-bit integer
  for i = 1, #s do
    hsh = (hsh ~ s:byte(i)) * 1099511628211
  end
  return ("%016x"):format(hsh)
end

--- The mesh as the text format of the header, checksum line included.
function M.format(m)
  local out = { "cgwb-mesh 1", ("n %d seed %d"):format(m.n, m.seed),
                ("nv %d ne %d nt %d nb %d"):format(m.nv, m.ne, m.nt, m.nb) }
  for i = 1, m.nv do out[#out + 1] = ("%.17g %.17g"):format(m.x[i], m.y[i]) end
  for t = 0, m.nt - 1 do
    out[#out + 1] = ("%d %d %d"):format(m.tri[3 * t + 1], m.tri[3 * t + 2], m.tri[3 * t + 3])
  end
  for e = 0, m.ne - 1 do
    out[#out + 1] = ("%d %d %d %d"):format(m.edge[4 * e + 1], m.edge[4 * e + 2],
                                           m.edge[4 * e + 3], m.edge[4 * e + 4])
  end
  for _, e in ipairs(m.bnd) do out[#out + 1] = tostring(e) end
  local body = table.concat(out, "\n") .. "\n"
  return body .. "checksum " .. M.fnv1a(body) .. "\n"
end

--- Twice the signed area of triangle t (0-based): positive when counter-clockwise.
function M.area2(m, t)
  local a, b, c = m.tri[3 * t + 1] + 1, m.tri[3 * t + 2] + 1, m.tri[3 * t + 3] + 1
  return (m.x[b] - m.x[a]) * (m.y[c] - m.y[a]) - (m.x[c] - m.x[a]) * (m.y[b] - m.y[a])
end

-- Run as a script (`lua5.4 .../mesh.lua N SEED`, not through dofile/require):
-- this chunk is then the main script, arg[0].
if arg and arg[0] and debug.getinfo(1, "S").source == "@" .. arg[0] then
  local n = math.tointeger(tonumber(arg[1] or ""))
  local seed = math.tointeger(tonumber(arg[2] or "1"))
  if not n or n < 1 or not seed then
    io.stderr:write("usage: mesh.lua N [SEED]  (N >= 1 squares a side; writes the mesh to stdout)\n")
    os.exit(2)
  end
  io.write(M.format(M.generate(n, seed)))
end

return M
