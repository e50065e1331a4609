#!/bin/sh
# scripts/bench-flatten.sh: the flattening benchmarks, run by scripts/bench.sh
# (make bench) or alone; writes the section "## Flattening and preaccumulated
# tangent code" of doc/benchmarks.md (replacing it when present).
#  - flattening one generated basic block (scripts/kbench-flat.lua N) of
#    10^4, 3x10^4 and 10^5 active assignments: a fresh process as users run
#    it (`cgwb flatten big.c --function f --json > /dev/null`: time and peak
#    memory), and in one process stage by stage (parse, load, analyse, flatten);
#  - the tangent code of `cgwb flatten examples/kernels/roe.c --function roe
#    --emit tangent` (minimal and statement-level split), compiled -O2, for the
#    4 x 11 Jacobian of the Roe flux (roe_d once per direction, and the
#    vector mode's roe_dv of `--emit tangent-vector` once with the 11
#    directions), against ADOL-C's fov_forward (p = 11) on the same kernel
#    text over adoubles, and the plain compiled flux for scale.
# A part whose command is not in this build is reported as missing, with no
# figures.  BENCH_FSIZES sets the sizes, BENCH_REPS the repeats, BENCH_TURNS
# the alternating turns of the Roe timings (default 5).  BENCH_FLATTEN_PART=roe
# runs the Roe part alone and keeps the section's large-block part as it is
# in doc/benchmarks.md.
set -eu
cd "$(dirname "$0")/.."
REPS=${BENCH_REPS:-3}
SIZES=${BENCH_FSIZES:-"10000 30000 100000"}
TURNS=${BENCH_TURNS:-5}
F=build/bench/flatten
mkdir -p "$F"

best_of() { # KEY FIELD: the line of stdin with the smallest FIELD among lines starting with KEY
  awk -v k="$1" -v f="$2" '$1 == k && (b == "" || $f + 0 < b) { b = $f + 0; l = $0 } END { print l }'
}
field() { echo "$1" | awk -v f="$2" '{ print $f }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# Which commands this build has: `cgwb flatten`, and its --emit tangent.
have_flatten=no
scripts/cgwb flatten --help > /dev/null 2>&1 && have_flatten=yes
have_tangent=no
[ "$have_flatten" = yes ] && scripts/cgwb flatten --help 2>&1 | grep -q -- "--emit" && have_tangent=yes

# {==== flattening one large block ====}
rows=
first=; last=; fresh_fail=
growth=
[ "${BENCH_FLATTEN_PART:-all}" = roe ] && SIZES=
for n in $SIZES; do
  echo "bench: flattening a block of $n assignments" >&2
  lua5.4 scripts/kbench-flat.lua "$n" > "$F/big$n.c"
  lines=$(wc -l < "$F/big$n.c")
  reps=$REPS
  [ "$n" -gt 50000 ] && reps=1 # seconds a run: once
  best_t=-; best_c=-; best_m=-
  if [ "$have_flatten" = yes ] && [ -z "$fresh_fail" ]; then
    best_t=; best_c=; best_m=
    for _ in $(seq "$reps"); do
      if ! /usr/bin/time -f "%e %U %S %M" -o "$F/time.txt" scripts/cgwb flatten "$F/big$n.c" --function f \
           --json > /dev/null 2> "$F/fresh.err"; then
        fresh_fail=$(tail -n 1 "$F/fresh.err"); best_t=failed; best_c=failed; best_m=failed
        echo "bench: cgwb flatten failed: $fresh_fail" >&2
        break
      fi
      set -- $(tail -n 1 "$F/time.txt")
      c=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }')
      if [ -z "$best_t" ] || awk -v a="$1" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best_t=$1; fi
      if [ -z "$best_c" ] || awk -v a="$c" -v b="$best_c" 'BEGIN { exit !(a < b) }'; then best_c=$c; fi
      if [ -z "$best_m" ] || [ "$4" -lt "$best_m" ]; then best_m=$4; fi
    done
  fi
  # in process: best of REPS at every size (a first run also pays the heap's growth)
  fr=$(scripts/cgwb run scripts/bench/flatten_front.lua "$F/big$n.c" f "$REPS")
  set -- $fr
  rows="$rows
| $2 | $lines | $3 | $4 | $best_t | $best_c | $best_m | $5 | $6 | $7 | $8 | $9 |"
  [ -z "$first" ] && first="$2 $best_c $best_m $5 $7 $8 $9"
  last="$2 $best_c $best_m $5 $7 $8 $9"
done
[ -n "$first" ] && growth=$(echo "$first $last" | awk '{ # fields 1-7 the first row, 8-14 the last
  g = sprintf("%.0fx the assignments: %.1fx the parse, %.1fx the analyses, %.1fx the flattening", $8 / $1, $11 / $4, $12 / $5, $13 / $6)
  if ($7 + 0 > 0) g = g sprintf(", %.1fx the --json table", $14 / $7)
  if ($2 + 0 > 0 && $9 + 0 > 0) g = g sprintf(", %.1fx the processor time of the fresh process, %.1fx its peak memory", $9 / $2, $10 / $3)
  print g }')
fresh_note="Fresh process: \`cgwb flatten big.c --function f --json > /dev/null\` under
\`/usr/bin/time\` (best of $REPS, one run above 50000 assignments; wall time, processor time
(user + system) and peak resident set)."
[ "$have_flatten" = no ] && fresh_note="Fresh process: not measured, this build has no \`cgwb flatten\` command
(the columns show -)."
[ -n "$fresh_fail" ] && fresh_note="Fresh process: not measured, \`cgwb flatten big.c --function f --json\` failed in
this build: \`$fresh_fail\` (the columns show failed or -)."

# {==== the Roe flux: tangent code against ADOL-C ====}
echo "bench: the Roe flux, compiled and ADOL-C" >&2
BF="-std=c99 -O2 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -Iscripts/bench"
cc $BF -c examples/kernels/roe.c -o "$F/roe.o"
cc $BF scripts/bench/roe_tangent.c "$F/roe.o" -lm -o "$F/roe_primal"
g++ -O2 -Wall -Iscripts/bench scripts/bench/adolc_roe.cpp -ladolc -o "$F/adolc_roe"
# roe_d.c and roe_dv.c (vector mode) of a split strategy, as a user makes
# them, and the driver around them (the declarations: the first line of each
# file that declares or defines the function).
tangent_build() { # NAME SPLIT
  if ! scripts/cgwb flatten examples/kernels/roe.c --function roe --split "$2" --emit tangent \
       -o "$F/$1.c" --json > "$F/$1.json" 2> "$F/$1.err" ||
     ! scripts/cgwb flatten examples/kernels/roe.c --function roe --split "$2" --emit tangent-vector \
       -o "$F/$1_v.c" > /dev/null 2> "$F/$1.err"; then
    tangent_err=$(tail -n 1 "$F/$1.err")
    echo "bench: cgwb flatten --emit tangent failed: $tangent_err" >&2
    return 1
  fi
  mkdir -p "$F/$1.inc"
  sed -n 's/^\(void roe_d(.*)\) *[{;] *$/\1;/p' "$F/$1.c" | head -n 1 > "$F/$1.inc/roe_d.h"
  sed -n 's/^\(int roe_dv(.*)\) *[{;] *$/\1;/p' "$F/$1_v.c" | head -n 1 > "$F/$1.inc/roe_dv.h"
  cc $BF -Werror -c "$F/$1.c" -o "$F/$1.o" # warning-free, as promised
  cc $BF -Werror -c "$F/$1_v.c" -o "$F/$1_v.o"
  cc $BF -DROE_D -DROE_DV -I"$F/$1.inc" scripts/bench/roe_tangent.c "$F/roe.o" "$F/$1.o" "$F/$1_v.o" -lm -o "$F/$1"
}
missing=; tangent_err=
if [ "$have_tangent" = yes ]; then
  if ! tangent_build roe_min minimal || ! tangent_build roe_stmt statement; then
    have_tangent=no
    missing="\`cgwb flatten examples/kernels/roe.c --function roe --emit tangent -o roe_d.c --json\` failed
in this build: \`$tangent_err\`"
  fi
else
  missing="this build has no \`cgwb flatten ... --emit tangent\`"
fi
RI=${BENCH_ROE_INNER:-4000}
Aall=; Pall=; Mall=; Sall=; MVall=; SVall=
for turn in $(seq "$TURNS"); do # in turns, so that all see the same state of the machine
  Aall="$Aall
$("$F/adolc_roe" "$REPS" "$RI")"
  Pall="$Pall
$("$F/roe_primal" primal "$REPS" $((RI * 50)))"
  if [ "$have_tangent" = yes ]; then
    Mall="$Mall
$("$F/roe_min" tangent "$REPS" "$RI")"
    Sall="$Sall
$("$F/roe_stmt" tangent "$REPS" "$RI")"
    MVall="$MVall
$("$F/roe_min" vector "$REPS" "$RI")"
    SVall="$SVall
$("$F/roe_stmt" vector "$REPS" "$RI")"
  fi
done
A=$(echo "$Aall" | best_of adolc_fov 2); P=$(echo "$Pall" | best_of primal 2)
at=$(field "$A" 2); as=$(field "$A" 3); a1=$(echo "$Aall" | best_of adolc_fov 4 | awk '{ print $4 }')
pt=$(field "$P" 2)
us() { awk -v t="$1" 'BEGIN { printf "%.3f", t * 1e6 }'; }
if [ "$have_tangent" = yes ]; then
  M=$(echo "$Mall" | best_of tangent 2); S=$(echo "$Sall" | best_of tangent 2)
  mt=$(field "$M" 2); ms=$(field "$M" 3); m1=$(echo "$Mall" | best_of tangent 4 | awk '{ print $4 }')
  st=$(field "$S" 2); ss=$(field "$S" 3); s1=$(echo "$Sall" | best_of tangent 4 | awk '{ print $4 }')
  MV=$(echo "$MVall" | best_of vector 2); SV=$(echo "$SVall" | best_of vector 2)
  mvt=$(field "$MV" 2); mvs=$(field "$MV" 3); svt=$(field "$SV" 2); svs=$(field "$SV" 3)
  agree=$(awk -v a="$as" -v m="$ms" -v s="$ss" -v mv="$mvs" -v sv="$svs" 'BEGIN { n = split(m " " s " " mv " " sv, x, " ")
    for (i = 1; i <= n; i++) { d = (x[i] - a) / a; if (d < 0) d = -d; printf "%s%.1e", i == 1 ? "" : (i == n ? " and " : ", "), d } }')
  cost=$(scripts/cgwb run scripts/bench/roe_costs.lua "$F/roe_min.json" "$F/roe_stmt.json")
  roe_rows="| cgwb tangent code, minimal split (\`--split minimal\`) | $(us "$mt") | $(ratio "$mt" "$at") | $(us "$m1") | $(ratio "$m1" "$a1") |
| cgwb tangent code, statement-level split (\`--split statement\`) | $(us "$st") | $(ratio "$st" "$at") | $(us "$s1") | $(ratio "$s1" "$a1") |
| cgwb vector tangent code, minimal split (\`--emit tangent-vector\`, one call of \`roe_dv\`) | $(us "$mvt") | $(ratio "$mvt" "$at") | | |
| cgwb vector tangent code, statement-level split (one call of \`roe_dv\`) | $(us "$svt") | $(ratio "$svt" "$at") | | |"
  roe_note="Sum of the Jacobian's entries, ADOL-C: $as; relative difference of cgwb's (minimal,
statement-level; vector minimal, vector statement-level): $agree. Costs from \`--json\`
(doc/tangent-code.md): $cost. \`roe_d\` takes one direction per call, so a Jacobian by
\`roe_d\` runs each subgraph's elimination 11 times: the larger the subgraph, the more of
its elimination is paid again per direction. \`roe_dv\` (vector mode) computes each
subgraph's partials and elimination once and applies the local Jacobian to the 11
directions in a loop: the elimination once, the application 11 times. With the
statement-level split the eliminations are small and \`roe_dv\` loses: each of its 64
subgraphs copies its independents' 11 tangents into local arrays and stores its
dependents' through memory, where \`roe_d\` keeps one direction's in registers."
else
  roe_rows="| cgwb tangent code | missing | | | |"
  roe_note="Missing: $missing; so the tangent code's rows are not measured (no figures are made
up). Sum of ADOL-C's Jacobian entries: $as."
fi

flat_part=$(cat <<EOT
## Flattening and preaccumulated tangent code

One generated basic block (\`scripts/kbench-flat.lua N\`: assignments to 16 scalar
locals, writes and reads through pointer parameters that may alias, cells at a run-time
offset, a pointer moved by int arithmetic between the active statements, math.h
intrinsics) flattened with the \`minimal\` split. $fresh_note In process
(\`scripts/bench/flatten_front.lua\`, best of $REPS runs at every size): \`kparse.parse\`,
\`core.kernel_load\`, \`core.kernel_analyze\` (alias sets, chains, activity) and
\`core.kernel_flatten\` (which runs the analyses again, then Utke, Flattening,
Algorithms 1 and 2, and builds the result tables); and what \`--json\` adds: the costs
of preaccumulation (\`tangent.costs\`: every subgraph eliminated, structurally), the
table (\`flatten.describe\`) and its text (\`json.encode\`).

| active assignments | lines | subgraphs | vertices | fresh process, wall (s) | fresh process, processor (s) | peak memory (KiB) | parse (s) | load (s) | analyse (s) | flatten (s) | the \`--json\` table (s) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |$rows

Target: linear time and memory. Measured from the first row to the last: $growth
(linear would be the same factor throughout). The in-process stages are processor time
(\`os.clock\`). The machine is a shared VM: under load the wall time of the fresh
process is several times its processor time, and page faults of the larger heaps land
in the stages' processor time, so single figures vary by tens of percent from run to run.
EOT
)
if [ "${BENCH_FLATTEN_PART:-all}" = roe ]; then # the large-block part as it stands
  flat_part=$(awk '/^## Flattening and preaccumulated tangent code/ { on = 1 }
    on && /^The Roe flux \(/ { exit } on && /^## / && !/^## Flattening and preaccumulated/ { exit } on { print }' doc/benchmarks.md)
fi
roe_part=$(cat <<EOT
The Roe flux (\`examples/kernels/roe.c\`: 2-D Euler, one basic block of 64 active
assignments, 11 inputs, 4 outputs) at a subsonic face (\`scripts/bench/roe_point.h\`).
ADOL-C: the kernel's text over adoubles, recorded once, then \`fov_forward\` with p = 11
(the identity seed) for the 4 x 11 Jacobian, and \`fos_forward\` for one direction
(\`scripts/bench/adolc_roe.cpp\`). cgwb: \`cgwb flatten examples/kernels/roe.c --function
roe --emit tangent -o roe_d.c\` (and \`--emit tangent-vector -o roe_dv.c\`) compiled with
\`cc -std=c99 -O2\` (apart from the driver, so nothing is inlined into the timing loop); the
Jacobian is 11 calls of \`roe_d\`, one per unit input tangent, or one call of \`roe_dv\`
with the 11 unit tangents (\`scripts/bench/roe_tangent.c\`). Each figure is the mean over
$RI evaluations, best of $REPS runs in each of $TURNS turns taken in alternation.

| what | microseconds per Jacobian | ratio to ADOL-C \`fov_forward\` (time) | microseconds per direction | ratio to ADOL-C \`fos_forward\` (time) |
| --- | --- | --- | --- | --- |
| ADOL-C \`fov_forward\` (p = 11) / \`fos_forward\` | $(us "$at") | 1.00 | $(us "$a1") | 1.00 |
$roe_rows
| the flux alone, compiled (\`cc -O2\`) | | | $(us "$pt") | $(ratio "$pt" "$a1") |

Target: the tangent code several times faster than \`fov_forward\` (ratio well below 1).
$roe_note
EOT
)
section="$flat_part

$roe_part"
# Replace the section (up to the next "## " or the end) or append it.
awk -v s="$section" '
  /^## Flattening and preaccumulated tangent code/ { print s; skip = 1; done = 1; next }
  skip && /^## / { skip = 0 }
  !skip { print }
  END { if (!done) { print ""; print s } }
' doc/benchmarks.md > "$F/benchmarks.md"
cp "$F/benchmarks.md" doc/benchmarks.md
echo "$section"
