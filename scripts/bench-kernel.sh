#!/bin/sh
# scripts/bench-kernel.sh: the kernel benchmarks, run by
# scripts/bench.sh (make bench) or alone; writes the section "## Kernels" of
# doc/benchmarks.md (replacing it when present).
#  - the front end and the analyses on generated kernels (scripts/kbench-gen.lua)
#    of 10^4 and 10^5 statements: a fresh process as users run it
#    (`cgwb kernel big.c --chains --json > /dev/null`: time and peak memory),
#    and in one process stage by stage (parse, load, analyse);
#  - the interpreter against the same kernel compiled with `cc -O2`.
# BENCH_KSIZES sets the sizes (default "10000 100000"), BENCH_KRUN_N the
# arrays' length of the interpreter run (default 1000), BENCH_REPS the repeats.
set -eu
cd "$(dirname "$0")/.."
REPS=${BENCH_REPS:-3}
SIZES=${BENCH_KSIZES:-"10000 100000"}
RUN_N=${BENCH_KRUN_N:-1000}
K=build/bench/kernel
mkdir -p "$K"
rows=
for n in $SIZES; do
  echo "bench: kernel of $n statements" >&2
  lua5.4 scripts/kbench-gen.lua "$n" 2>/dev/null > "$K/big$n.c"
  lines=$(wc -l < "$K/big$n.c")
  best_t=; best_m=
  reps=$REPS
  [ "$n" -gt 20000 ] && reps=1 # tens of seconds a run: once
  for _ in $(seq "$reps"); do
    tm=$( { /usr/bin/time -f "%e %M" scripts/cgwb kernel "$K/big$n.c" --chains --json > /dev/null; } 2>&1 | tail -n 1)
    t=${tm% *}; m=${tm#* }
    if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best_t=$t; fi
    if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
  done
  fr=$(scripts/cgwb run scripts/bench/kernel_front.lua "$K/big$n.c" "$reps")
  set -- $fr
  rows="$rows
| $n | $lines | $2 | $3 | $best_t | $best_m | $4 | $5 | $6 |"
  # the first and the last size, for the growth factors below
  [ -z "${first:-}" ] && first="$n $best_t $best_m $4 $6"
  last="$n $best_t $best_m $4 $6"
done
growth=$(echo "$first $last" | awk '{ printf "%.0fx the statements: %.1fx the time of the fresh process, %.1fx its peak memory, %.1fx the parse, %.1fx the analyses", $6 / $1, $7 / $2, $8 / $3, $9 / $4, $10 / $5 }')

echo "bench: a real program with its headers" >&2
REAL=spec/support/realc/pbs-gemm.c
real_lines=$(cat "$REAL" spec/support/realc/pbs.h | wc -l)
best_r=
for _ in $(seq "$REPS"); do
  tm=$( { /usr/bin/time -f "%e" scripts/cgwb kernel "$REAL" --function kernel_gemm > /dev/null 2>/dev/null; } 2>&1 | tail -n 1)
  if [ -z "$best_r" ] || awk -v a="$tm" -v b="$best_r" 'BEGIN { exit !(a < b) }'; then best_r=$tm; fi
done
pp_bytes=$(cc -E "$REAL" | wc -c)

echo "bench: kernel interpreter against cc -O2" >&2
lua5.4 scripts/kbench-gen.lua 2000 2>/dev/null > "$K/run.c"
cc -std=c99 -O2 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -w -c "$K/run.c" -o "$K/run.o"
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Wall -Wextra scripts/bench/kernel_run.c "$K/run.o" -lm -o "$K/run"
C=$("$K/run" "$RUN_N" "$REPS")
I=$(scripts/cgwb run scripts/bench/kernel_interp.lua "$K/run.c" "$RUN_N" "$REPS")
ct=$(echo "$C" | awk '{ print $2 }'); cs=$(echo "$C" | awk '{ print $3 }')
it=$(echo "$I" | awk '{ print $2 }'); isteps=$(echo "$I" | awk '{ print $3 }'); is=$(echo "$I" | awk '{ print $4 }')
same=no
[ "$cs" = "$is" ] && same=yes
ratio=$(awk -v a="$it" -v b="$ct" 'BEGIN { printf "%.0f", a / b }')
rate=$(awk -v a="$isteps" -v b="$it" 'BEGIN { printf "%.3g", a / b }')

section=$(cat <<EOT
## Kernels: front end, analyses, interpreter

Generated kernels (\`scripts/kbench-gen.lua N\`: functions of three-point stencils,
gathers and scatters through an index map, local scratch arrays, a 2-D local matrix, a
pointer walking an array, while loops, branches, blocks of local arithmetic with math.h
intrinsics). N counts the source's statements; the canonical form has more (temporaries
of C1-C5). Fresh process: \`cgwb kernel big.c --chains --json > /dev/null\` under
\`/usr/bin/time\` (best of $REPS, one run above 20000 statements; peak resident set). In
process: \`kparse.parse\`, \`core.kernel_load\`, \`core.kernel_analyze\` of every function
(alias sets, chains, activity), best of as many runs (\`scripts/bench/kernel_front.lua\`).

| statements | lines | canonical statements | functions | fresh process (s) | peak memory (KiB) | parse (s) | load (s) | analyse (s) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |$rows

Target: 10^5 statements parsed and analysed well under a second, time and memory linear
in the size. Measured from the first row to the last: $growth (linear would be the
same factor throughout).

A real program as its authors write it: \`$REAL\` ($real_lines lines with its harness
header, which includes \`stdio.h stdlib.h string.h math.h sys/time.h\`: $pp_bytes bytes after
\`cc -E\`), read by a fresh process, \`cgwb kernel $REAL --function kernel_gemm\` (the
preprocessor, the whole translation unit parsed, the functions in the subset lowered, the others left
alone): $best_r s, best of $REPS. Target: under 0.1 s.

The interpreter (\`k:run\`) against the same kernel compiled with \`cc -O2\`
(\`scripts/kbench-gen.lua 2000\`, its \`all()\` on arrays of $RUN_N cells;
\`scripts/bench/kernel_run.c\`, \`scripts/bench/kernel_interp.lua\`), best of $REPS:

| what | seconds | ratio (time) |
| --- | --- | --- |
| compiled (\`cc -O2\`) | $ct | 1 |
| interpreter | $it ($isteps steps, $rate steps/s) | $ratio |

Sum of u and w after the call, compiled: $cs; interpreter: $is (bit-identical: $same).
EOT
)
# Replace the section (up to the next "## " or the end) or append it.
awk -v s="$section" '
  /^## Kernels: front end/ { print s; skip = 1; done = 1; next }
  skip && /^## / { skip = 0 }
  !skip { print }
  END { if (!done) { print ""; print s } }
' doc/benchmarks.md > "$K/benchmarks.md"
cp "$K/benchmarks.md" doc/benchmarks.md
echo "$section"
