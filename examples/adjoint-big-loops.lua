-- examples/adjoint-big-loops.lua: a loop choice for `cgwb adjoint --loops`:
-- adjoin per iteration only the top-level loops the analysis accepts,
-- leaving nested ones (a few iterations each) to the standard adjoint.
--   cgwb adjoint examples/kernels/nsloops.c --loops examples/adjoint-big-loops.lua -o ns_b.c
-- The function gets each loop's row of `cgwb loops --json` (line, depth,
-- verdict, terminal, snapshot, ...); a loop it asks for that the analysis
-- refuses is refused with the analysis' reason.
return function(loop)
  return loop.depth == 1 and loop.verdict == "accept"
end
