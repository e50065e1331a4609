--- cgwb.jplan: kept Jacobian plans (doc/api.md, "Jacobians at many points").
-- A plan keeps a tape's graph, its linearized structure and a vertex
-- elimination order recorded once as a flat program of multiply-adds over
-- edge slots (Hovland, Norris, Utke & Strout, sec. 1); at each new point only
-- the graph's evaluation, the new local partials and the program run.
-- @module cgwb.jplan
local core = require "cgwb.core"
local elim = require "cgwb.elim"

local M = {}
local Plan = {}
Plan.__index = Plan

-- The message for a point where a recorded branch changes outcome: the
-- tape's own forward sweep names the record (as `cgwb eval` does).
local function branch_message(self, x, changes)
  local record, op
  if self.tape then
    local _, n, r = self.tape:forward(x)
    if r then record, op, changes = r, self.tape:record(r), n > 0 and n or changes end
  end
  return ("%d branch or conditional outcome(s) differ from the recorded point%s: "
    .. "the tape is not valid there, no Jacobian")
    :format(changes, record and (", first at record %d%s"):format(record, op and (" (" .. op .. ")") or "") or "")
end

-- The result of a core call, or nil, message, changes on a branch change.
local function checked(self, x, r1, r2, changes)
  if r1 then return r1, r2 end
  if r2 ~= "branch" then return nil, r2 end
  return nil, branch_message(self, x, changes), changes
end

--- plan:at(x [, J]) -> J, y: the Jacobian at x ({m=, n=, nnz=, rows=,
-- cols=, vals=}, row-major as lg:jacobian(); rows and cols shared by every
-- J of the plan) and the dependents; given a J of this plan, its vals are
-- overwritten instead of making a new table.  nil, message, changes when a
-- recorded branch changes outcome at x (never a wrong J).
function Plan:at(x, J)
  return checked(self, x, self.core:_at(x, J))
end

--- plan:jvp(x, v) -> J*v, y: a tangent sweep over the kept linearized graph
-- with its weights at x.  nil, message, changes as plan:at.
function Plan:jvp(x, v)
  return checked(self, x, self.core:_jvp(x, v))
end

--- plan:vjp(x, w) -> w^T*J, y: an adjoint sweep over the same graph.
function Plan:vjp(x, w)
  return checked(self, x, self.core:_vjp(x, w))
end

--- plan:pattern() -> {m=, n=, nnz=, rows=, cols=}.
function Plan:pattern() return self.core:pattern() end

--- plan:costs() -> {mults=, mults_nontrivial=, adds=, fill=, steps=, ops=,
-- partials=, slots=, edges=, order=}: the recorded elimination's counts
-- (mults = ops, the products a point costs), the nodes whose partials a
-- point computes, the edge slots, the linearized graph's edges (the
-- multiplications of a tangent or adjoint sweep) and the order's name.
function Plan:costs()
  local c = self.core:costs()
  c.order = self.order_name
  return c
end

--- plan:program() -> {dst=, a=, b=, add=}: the recorded products.
function Plan:program() return self.core:program() end

--- plan:codegen([path [, {name=, source=, chunk=}]]) -> true, stats or the
-- code, stats | nil, message: the plan as one C file (doc/codegen.md,
-- "Jacobian code"): NAME_jac, NAME_jac_checked, NAME_jac_nnz, _rows, _cols.
function Plan:codegen(path, opts) return self.core:codegen(path, opts) end

--- plan:free(): releases the plan and its graph now.
function Plan:free()
  self.core:free()
  self.graph:free()
end
Plan.__close = Plan.free

--- cgwb.jacobian_plan(tape_or_path, opts) -> plan | nil, message [, changes].
-- opts: order (any vertex ordering spec of cgwb.elim.eliminate; default
-- "markowitz"), at (the build point; needed for ADOL-C tapes), the graph
-- switches of cgwb.build_graph, and the options of the ordering (seed,
-- budget, ...).  A build point that leaves the tape's branch is refused.
function M.new(tape, opts)
  opts = opts or {}
  if type(tape) == "string" then
    local t, err = core.read_tape(tape)
    if not t then return nil, err end
    tape = t
  end
  local g, err = core.build_graph(tape, opts)
  if not g then return nil, err end
  local changes = g:branch_changes()
  if changes > 0 then
    g:free()
    return nil, ("%d branch or conditional outcome(s) differ from the recorded point at the build "
      .. "point: no plan"):format(changes), changes
  end
  local lg, lerr = core.linearize(g)
  if not lg then g:free() return nil, lerr end
  local work <close> = lg:copy()
  local cost, order, name = elim.eliminate(work, opts.order or "markowitz", opts)
  if not cost then lg:free() g:free() return nil, order end
  local jp, perr = core.jacobian_plan(g, lg, order)
  lg:free()
  if not jp then g:free() return nil, perr end
  return setmetatable({ core = jp, graph = g, tape = tape, order = order, order_name = name,
                        elim_cost = cost }, Plan)
end

return M
