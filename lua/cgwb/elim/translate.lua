-- cgwb.elim.translate: vertex and edge orders as edge and face steps (a
-- vertex order's edge steps, edge steps' face steps), which replay to the
-- same multiplications and Jacobian.  Internal to cgwb.elim
-- (lua/cgwb/elim/init.lua documents what it exports); it requires nothing
-- of the package.
local M = {}

-- elim.vertex_to_edges (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.vertex_to_edges(lg, order)
  local c <close> = lg:copy()
  local steps = {}
  for q, v in ipairs(order) do
    if math.type(v) ~= "integer" or v < 1 or v > c:nv() or c:kind(v) ~= "intermediate" then
      return nil, ("vertex_to_edges: step %d: %s is not a remaining intermediate"):format(q, tostring(v))
    end
    for _, k in ipairs(c:succs(v)) do steps[#steps + 1] = { v, k, "back" } end
    c:elim_vertex(v, "vertex_to_edges")
  end
  return steps
end

-- elim.edges_to_faces (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.edges_to_faces(lg, steps)
  local c <close> = lg:copy()
  local faces = {}
  for q, st in ipairs(steps) do
    local i, k, side = st[1], st[2], st[3]
    local mid = side == "front" and k or i
    if (side ~= "front" and side ~= "back") or math.type(i) ~= "integer" or math.type(k) ~= "integer"
        or i < 1 or k < 1 or i > c:nv() or k > c:nv() or c:kind(mid) ~= "intermediate"
        or not c:weight(i, k) then
      return nil, ("edges_to_faces: step %d: no eliminable edge %s -> %s (%s)")
        :format(q, tostring(i), tostring(k), tostring(side))
    end
    if side == "front" then
      for _, l in ipairs(c:succs(k)) do faces[#faces + 1] = { i, k, l } end
    else
      for _, h in ipairs(c:preds(i)) do faces[#faces + 1] = { h, i, k } end
    end
    c:elim_edge(i, k, side, "edges_to_faces")
  end
  for _, v in ipairs(c:intermediates()) do
    for _, h in ipairs(c:preds(v)) do
      for _, l in ipairs(c:succs(v)) do faces[#faces + 1] = { h, v, l } end
    end
    c:elim_vertex(v, "edges_to_faces")
  end
  return faces
end

-- elim.vertex_to_faces (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.vertex_to_faces(lg, order)
  local steps, err = M.vertex_to_edges(lg, order)
  if not steps then return nil, err end
  return M.edges_to_faces(lg, steps)
end

return M
