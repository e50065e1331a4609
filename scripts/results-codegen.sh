#!/bin/sh
# Writes doc/results/compiled-evaluation.md, doc/results/cavity-levels.csv and
# doc/results/cavity-levels.png: Bischof & Hu 1991 Table 5 redone on the Cavity
# example (serial, then 1 .. nproc OpenMP threads measured and up to 8
# predicted by the cost model of scripts/results-lib.lua), Figure 11 (the
# level distribution), and interpretive evaluation (cg_graph_eval) vs compiled
# code vs ADOL-C zos_forward on the three example tapes.  Needs `make` and
# `make examples`; run by scripts/results.sh (`make results`).  This script
# measures and leaves the raw figures in build/results-codegen/raw.txt;
# scripts/results-codegen.lua writes the page from them.
#   CC_OPT   optimization level of the generated code (default -O1: GCC is slow
#            on the levels form's thousands of stores per function)
#   REPS     evaluations per timing of the comparison (best of; default 20)
#   REPS5    evaluations per timing of Table 5 (best of; default 400)
#   THREADS  the most threads measured (default: nproc, at most 8)
set -eu
cd "$(dirname "$0")/.."
B=build/results-codegen
OPT=${CC_OPT:--O1}
REPS=${REPS:-20}
REPS5=${REPS5:-400}
THREADS=${THREADS:-$(nproc)}
[ "$THREADS" -gt 8 ] && THREADS=8
CFLAGS="-std=c99 $OPT -ffp-contract=off -D_POSIX_C_SOURCE=200809L"
mkdir -p "$B"
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -Icsrc scripts/bench/cgwb_graph.c build/release/libcgwbcore.a -lm -o "$B/cgwb_graph"
g++ -O2 scripts/bench/adolc_zos.cpp -ladolc -o "$B/adolc_zos"
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
RAW="$B/raw.txt"
{
  echo "cflags $CFLAGS"
  echo "reps $REPS"
  echo "reps5 $REPS5"
  echo "nproc $(nproc)"
  echo "cpu $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
} > "$RAW"

# gen EXAMPLE FORM EXTRA...: generated code compiled into a timing driver; prints "SECONDS_COMPILE".
gen() {
  ex=$1 form=$2
  shift 2
  n=$(grep -c . "examples/tapes/$ex.x")
  m=$(grep -c . "examples/tapes/$ex.y")
  src="$B/$ex-$form${FORM_SUFFIX:-}"
  scripts/cgwb codegen "examples/tapes/$ex.tap" --form "$form" "$@" -o "$src.c" --json > "$src.json"
  t0=$(now)
  cc $CFLAGS $OMPFLAG -DCG_N="$n" -DCG_M="$m" scripts/bench/codegen_bench.c "$src.c" -lm -o "$B/$ex-$form$SUFFIX"
  t1=$(now)
  sub "$t1" "$t0"
}
field() { grep "\"$2\"" "$1" | head -1 | sed 's/[^0-9]*\([0-9]*\).*/\1/'; }

TAG_bratu=1 TAG_shallow=2 TAG_cavity=3
for ex in bratu cavity shallow; do
  echo "results-codegen: $ex" >&2
  OMPFLAG="" SUFFIX=""
  # the two forms compile side by side (one core each on the 2-core machine)
  gen "$ex" chunked > "$B/$ex-chunked.ct" & pc=$!
  gen "$ex" levels > "$B/$ex-levels.ct" & pl=$!
  wait "$pc" && wait "$pl"
  ct=$(cat "$B/$ex-chunked.ct") lt=$(cat "$B/$ex-levels.ct")
  c=$("$B/$ex-chunked" "examples/tapes/$ex.x" "$REPS")
  l=$("$B/$ex-levels" "examples/tapes/$ex.x" "$REPS")
  gr=$("$B/cgwb_graph" "examples/tapes/$ex.tap" "examples/tapes/$ex.x" "$REPS" | awk '$1 == "geval"')
  tag=$(eval echo \$TAG_$ex)
  rm -rf "$B/adolc" && mkdir -p "$B/adolc"
  cp examples/tapes/ADOLC-*_"$tag".tap "$B/adolc/"
  z=$(cd "$B/adolc" && ../adolc_zos "$tag" "../../../examples/tapes/$ex.x" "$REPS")
  zt=$(echo "$z" | awk '{ print $3 }'); zs=$(echo "$z" | awk '{ print $5 }')
  gt=$(echo "$gr" | awk '{ print $3 }'); gs=$(echo "$gr" | awk '{ print $4 }')
  cct=$(echo "$c" | awk '{ print $2 }'); cs=$(echo "$c" | awk '{ print $3 }')
  llt=$(echo "$l" | awk '{ print $2 }'); ls_=$(echo "$l" | awk '{ print $3 }')
  same=yes
  [ "$cs" = "$gs" ] && [ "$ls_" = "$gs" ] || same=no
  # example nodes slots peak | zos geval levels levels_compile chunked chunked_compile | same
  echo "row $ex $(field "$B/$ex-levels.json" nodes) $(field "$B/$ex-levels.json" live_analysis_slots)" \
       "$(field "$B/$ex-levels.json" tape_peak_live) $zt $gt $llt $lt $cct $ct $same" >> "$RAW"
done

echo "results-codegen: cavity, Table 5 (serial, 1..$THREADS threads)" >&2
OMPFLAG="" SUFFIX="-serial" gen cavity levels > "$B/cavity-serial.ct" & ps=$!
# (the parallel code goes to its own files, cavity-levels-par.{c,json})
OMPFLAG="-fopenmp" SUFFIX="-omp" FORM_SUFFIX="-par" gen cavity levels --parallel > "$B/cavity-omp.ct" & pp=$!
wait "$ps" && wait "$pp"
st=$(cat "$B/cavity-serial.ct") pt=$(cat "$B/cavity-omp.ct")
echo "compile5 $st $pt" >> "$RAW"
echo "lines5 $(field "$B/cavity-levels-par.json" lines) $(field "$B/cavity-levels-par.json" live_analysis_slots)" >> "$RAW"
# In turns (serial, 1, 2, ... threads, three times), the best of each kept,
# so a burst of load on the shared machine does not hit one column only.
for turn in 1 2 3; do
  echo "t5 0 $("$B/cavity-levels-serial" examples/tapes/cavity.x "$REPS5" | awk '{ print $2, $3 }')" >> "$RAW"
  p=1
  while [ "$p" -le "$THREADS" ]; do
    echo "t5 $p $(OMP_NUM_THREADS=$p OMP_PROC_BIND=false "$B/cavity-levels-omp" examples/tapes/cavity.x "$REPS5" |
      awk '{ print $2, $3 }')" >> "$RAW"
    p=$((p + 1))
  done
done
scripts/cgwb run scripts/results-codegen.lua "$RAW"
