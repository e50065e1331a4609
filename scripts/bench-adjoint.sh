#!/bin/sh
# scripts/bench-adjoint.sh: adjoints of parallel loops (Hascoet, Fidanova & Held,
# sec. 4), run by `make bench` or alone.  The kernel examples/kernels/nsloops.c on
# meshes of scripts/bench/mesh.lua:
#  - `cgwb adjoint --loops none` (the standard adjoint) and `--loops auto` (each
#    accepted loop adjoined per iteration, dry runs where a loop is not terminal),
#    compiled with cc -O2 and run by scripts/bench/adjoint_driver.c: memory
#    (original computation, adjoint variables, snapshots, tape high-water mark),
#    median times, and its checks (the two gradients agree to 1e-12; central
#    differences; the primal results kept);
#  - ADOL-C taping the same kernel text over adoubles (scripts/bench/adolc_nsloops.cpp):
#    tape bytes, taping and gradient() times;
# at BENCH_ADJ_SIZES squares a side (default 12 .. 173: 288 .. 59,858 triangles;
# 22 gives 968, the size of the paper's table).  Raw figures go to
# build/bench/adjoint/; scripts/results-adjoint.lua writes doc/results/adjoint-loops.md,
# its plot, and the section "## Adjoints of parallel loops" of doc/benchmarks.md.
# BENCH_ADJ_REPS: repeats at the table's size (default 21; 11 on the other meshes up to
# 64 squares a side, 3 above).
set -eu
cd "$(dirname "$0")/.."
SIZES=${BENCH_ADJ_SIZES:-"12 16 22 32 45 64 90 128 173"}
TABLE=${BENCH_ADJ_TABLE:-22}
REPS=${BENCH_ADJ_REPS:-21}
A=build/bench/adjoint
rm -rf "$A" && mkdir -p "$A/std" "$A/tr" "$A/adolc"
K=examples/kernels/nsloops.c
IND=w0,w1,w2,w3,x,y

echo "bench: cgwb adjoint of $K (--loops none, --loops auto)" >&2
scripts/cgwb adjoint "$K" --function nsloops --independents "$IND" --dependents cost \
  --loops none -o "$A/std/nsloops_std.c" --report "$A/std/report.json"
scripts/cgwb adjoint "$K" --function nsloops --independents "$IND" --dependents cost \
  --loops auto -o "$A/tr/nsloops_tr.c" --report "$A/tr/report.json"
CFLAGS="-std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra"
cc $CFLAGS -c "$K" -o "$A/nsloops.o"
for v in std tr; do # each adjoint apart, its entry points renamed, its own stack
  cc $CFLAGS -I"$A/$v" -Dnsloops_b=nsloops_${v}_b -Dnsloops_b_stats=nsloops_${v}_b_stats \
    -Dnsloops_b_reset=nsloops_${v}_b_reset -c "$A/$v/nsloops_$v.c" -o "$A/$v.o"
done
cc $CFLAGS -Iscripts/bench scripts/bench/adjoint_driver.c "$A/nsloops.o" "$A/std.o" "$A/tr.o" \
  -lm -o "$A/adjoint_driver"
g++ -O2 -Wall scripts/bench/adolc_nsloops.cpp -ladolc -o "$A/adolc_nsloops"

for n in $SIZES; do
  lua5.4 scripts/bench/mesh.lua "$n" 1 > "$A/mesh$n.txt"
  reps=$REPS
  [ "$n" -ne "$TABLE" ] && reps=11
  [ "$n" -gt 64 ] && reps=3 # up to seconds a run for ADOL-C: fewer
  grad=; agrad=
  [ "$n" -eq "$TABLE" ] && grad="$A/grad$n.txt" && agrad=$(pwd)/"$A/adolc_grad$n.txt"
  echo "bench: adjoints on the $n x $n mesh ($reps runs)" >&2
  "$A/adjoint_driver" "$A/mesh$n.txt" "$reps" $grad > "$A/driver$n.txt" ||
    { cat "$A/driver$n.txt" >&2; echo "bench: adjoint_driver: a check failed on mesh $n" >&2; exit 1; }
  (cd "$A/adolc" && rm -f ADOLC-* && ../adolc_nsloops "../mesh$n.txt" "$reps" $agrad > "../adolc$n.txt")
done
rm -f "$A"/adolc/ADOLC-* # ADOL-C's tape files of the largest mesh
scripts/cgwb run scripts/results-adjoint.lua "$A" "$TABLE" $SIZES
