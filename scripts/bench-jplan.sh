#!/bin/sh
# scripts/bench-jplan.sh: Jacobians of Bratu 40x80 at many points (make bench).
# In one run, at the same seeded points near the tape's own (each value times
# 1 + u, |u| <= 0.01; scripts/bench/jplan_points.lua): cgwb's kept plan
# interpreted (plan:at, scripts/bench/jplan_at.lua), the plan compiled (cgwb
# codegen --jacobian, gcc -O2; scripts/bench/jplan_driver.c) and ADOL-C's
# sparse_jac with repeat = 1 (scripts/bench/adolc_sparse_jac.cpp; the first
# call, repeat = 0, outside the timing).  All three are CPU time per point.
# The three Jacobians at the last point are compared (spec/adolc/compare-jac.lua).
# Writes the section "## Jacobians at many points" of doc/benchmarks.md.
#   BENCH_JPLAN_POINTS=100 (points), BENCH_JPLAN_TURNS=3 (runs of each; the best kept)
set -eu
NP=${BENCH_JPLAN_POINTS:-100}
TURNS=${BENCH_JPLAN_TURNS:-3}
B=build/bench/jplan
rm -rf "$B" && mkdir -p "$B/adolc"
echo "bench: Jacobians at $NP points (Bratu 40x80)" >&2
lua5.4 scripts/bench/jplan_points.lua examples/tapes/bratu.x "$NP" 1 > "$B/points"
scripts/cgwb codegen examples/tapes/bratu.tap --jacobian --name bratu -o "$B/bratu_jac.c" 2>"$B/codegen.txt"
t0=$(date +%s)
cc -std=c99 -O2 -c "$B/bratu_jac.c" -o "$B/bratu_jac.o"
cc_seconds=$(( $(date +%s) - t0 ))
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra scripts/bench/jplan_driver.c "$B/bratu_jac.o" -lm \
  -o "$B/jplan_driver"
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Icsrc scripts/bench/jplan_c.c \
  build/release/libcgwbcore.a -lm -o "$B/jplan_c"
g++ -O2 -Wall scripts/bench/adolc_sparse_jac.cpp -ladolc -lColPack -o "$B/adolc_sparse_jac"
: > "$B/runs"
for _ in $(seq "$TURNS"); do
  scripts/cgwb run scripts/bench/jplan_at.lua examples/tapes/bratu.tap "$B/points" "$B/interp.mtx" >> "$B/runs"
  "$B/jplan_c" examples/tapes/bratu.tap "$B/points" >> "$B/runs"
  "$B/jplan_driver" 3200 3200 "$B/points" "$B/compiled.mtx" >> "$B/runs"
  cp examples/tapes/ADOLC-*_1.tap "$B/adolc/" # ADOL-C deletes a tape it only reads
  (cd "$B/adolc" && ../adolc_sparse_jac 1 3200 3200 ../points ../adolc.mtx) >> "$B/runs"
done
c1=$(lua5.4 spec/adolc/compare-jac.lua "$B/interp.mtx" "$B/adolc.mtx")
c2=$(lua5.4 spec/adolc/compare-jac.lua "$B/compiled.mtx" "$B/adolc.mtx")
lua5.4 - "$B/runs" "$NP" "$cc_seconds" "$c1" "$c2" "$(cat "$B/codegen.txt")" <<'LUA'
local runs, np, ccs, c1, c2, cg = ...
local best = {}
for line in io.lines(runs) do
  local what, _, per, nnz, build = line:match("^(%S+) (%d+) (%S+) (%d+) ?(%S*)")
  per = tonumber(per)
  if not best[what] or per < best[what].per then best[what] = { per = per, nnz = nnz, build = build } end
end
local i, ic, c, a = best.interpretive, best.interpretive_c, best.compiled, best.sparse_jac
local text = table.concat({
  "## Jacobians at many points",
  "",
  ("Bratu 40x80 (3200 x 3200, %s nonzeros) at %s seeded points near the tape's own, CPU time per "
    .. "point, best of the runs of `scripts/bench-jplan.sh` (`make bench`), all three in the same run:"):format(i.nnz, np),
  "",
  "| method | ms / point | against ADOL-C (> 1: faster) |",
  "| --- | ---: | ---: |",
  ("| ADOL-C `sparse_jac`, repeat = 1 (one compressed `fov_forward` + recovery) | %.3f | 1 |"):format(a.per * 1e3),
  ("| cgwb kept plan, interpreted (`plan:at`, from Lua, J table reused) | %.3f | %.2f |")
    :format(i.per * 1e3, a.per / i.per),
  ("| cgwb kept plan, interpreted (`cg_jplan_at` from C, no Lua tables) | %.3f | %.2f |")
    :format(ic.per * 1e3, a.per / ic.per),
  ("| cgwb kept plan, compiled (`cgwb codegen --jacobian`, gcc -O2) | %.3f | %.2f |")
    :format(c.per * 1e3, a.per / c.per),
  "",
  ("Making the plan (read, build, linearize, Markowitz, record) took %.3f s once; compiling the "
    .. "generated file with gcc -O2 took %s s once (%s).  At the last point the interpreted "
    .. "Jacobian against ADOL-C's: %s; the compiled one: %s.  The aims: the interpretive path not "
    .. "slower than ADOL-C's repeat call, the compiled one at least 3 times faster."):format(
    tonumber(i.build), ccs, cg:gsub("\n", ""), c1, c2),
  "",
}, "\n")
local path = "doc/benchmarks.md"
local fh = assert(io.open(path))
local doc = fh:read("a")
fh:close()
local s, e = doc:find("## Jacobians at many points\n.-\n%f[#]## ")
if s then doc = doc:sub(1, s - 1) .. text .. "\n" .. doc:sub(e - 2)
else
  s = doc:find("## Jacobians at many points\n", 1, true)
  doc = (s and doc:sub(1, s - 1) or doc:gsub("\n*$", "\n\n")) .. text
end
fh = assert(io.open(path, "w"))
fh:write(doc)
fh:close()
io.stderr:write(text, "\n")
LUA
