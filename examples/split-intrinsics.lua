--- A split strategy for `cgwb flatten` (doc/flattening.md, "Split strategies"):
-- a new subgraph at every statement whose right-hand side calls an intrinsic
-- (sqrt, sin, exp, ...); any other statement joins the open subgraph when
-- joining keeps the results (info.legal) and starts a new one when it would
-- not.  Run it with:
--   cgwb flatten examples/kernels/flux1d.c --split examples/split-intrinsics.lua
-- (subgraphs of lines 13, 14-17 and 18-20, where `minimal` makes one).
return function(info)
  return info.intrinsic or not info.legal
end
