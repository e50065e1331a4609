-- A sweep over the shipped graphs and the Bratu tape: which vertex and edge
-- orderings need the fewest multiplications (doc/sweep.md).
--   cgwb sweep examples/sweep/orderings.lua --runner parallel --out sweep-orderings
-- Paths are relative to this file's directory.
return {
  name = "orderings",
  inputs = { "../graphs/*.cg", "../tapes/bratu.tap" },
  orderings = { "forward", "reverse", "markowitz", "min-fill", "anneal" },
  modes = { "vertex", "edge" },
  seeds = { 1, 2 },
  budgets = { 20 },
  timeout = 60,
}
