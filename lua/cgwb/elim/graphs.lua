-- cgwb.elim.graphs: where a linearized graph comes from: a tape's (built,
-- then linearized at its point or another) or the text of a graph file.
-- build_graph is also the facade's (cgwb.build_graph re-exports it, so
-- that linearize needs no `require "cgwb"`).  Internal to cgwb.elim
-- (lua/cgwb/elim/init.lua documents what it exports); it requires nothing
-- of the package.
local core = require "cgwb.core"

local M = {}

-- cgwb.build_graph (documented in cgwb, lua/cgwb/init.lua).
function M.build_graph(tape, opts)
  if type(tape) == "string" then
    local t, err = core.read_tape(tape)
    if not t then return nil, err end
    tape = t
  end
  return core.build_graph(tape, opts)
end

-- elim.linearize (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.linearize(tape, opts)
  local g, err = M.build_graph(tape, opts)
  if not g then return nil, err end
  local lg, err2 = core.linearize(g)
  g:free()
  if not lg then return nil, err2 end
  local changes, first = lg:branch_changes()
  return lg, changes, first
end

-- {==== formats ====}

-- elim.read_graph_text (documented in cgwb.elim, lua/cgwb/elim/init.lua).
function M.read_graph_text(text, path)
  if text:find("\nCG%s*=%s*%[") or text:find("^CG%s*=%s*%[") then return core.read_eliad(text, path) end
  return core.read_cg(text, path)
end

-- }====

return M
