#!/bin/sh
# scripts/audit-scale.sh [OUT.tsv]: how long every built-in ordering, mode,
# strategy and command takes on every shipped input (doc/elimination.md,
# "What each ordering costs").  Not part of the test suite: it runs for tens
# of minutes.  Each run is one process under `timeout` (AUDIT_TIMEOUT
# seconds, default 60) and `/usr/bin/time -f '%e %M'`; one row per run:
#   input  what  mode  seconds  peak_MB  exit
# (exit 124: killed by the timeout; 2: refused or bad input).  Rows go to
# OUT.tsv (default build/audit-scale.tsv) and, as they finish, to stdout.
# Run it niced, in the background, one at a time:
#   nice scripts/audit-scale.sh > build/audit.log 2>&1 &
# `exact` stops at its --time-limit (default 60 s): the audit gives it
# AUDIT_EXACT_LIMIT seconds (default 10).  AUDIT_ONLY=REGEX keeps the inputs whose path matches; CGWB names the
# launcher (default scripts/cgwb of this tree).
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${1:-build/audit-scale.tsv}
T=${AUDIT_TIMEOUT:-60}
CGWB=${CGWB:-scripts/cgwb}
ONLY=${AUDIT_ONLY:-.}
EXACT=${AUDIT_EXACT_LIMIT:-10} # --time-limit of the exact rows (bounded by it; default 60)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/audit-scale.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$(dirname "$OUT")"
printf 'input\twhat\tmode\tseconds\tpeak_MB\texit\n' > "$OUT"
cat "$OUT"

# Lua rules as a researcher writes them (doc/elimination.md, "Lua interface").
printf 'return function(v, lg, din, dout) return din * dout end\n' > "$TMP/lua-markowitz.lua"
printf 'return function(i, j, side, lg)\n  if side == "front" then return lg:out_degree(j) end\n  return lg:in_degree(i)\nend\n' \
  > "$TMP/lua-edge-markowitz.lua"
printf 'return function(i, j, k, lg) return lg:in_degree(j) * lg:out_degree(j) end\n' > "$TMP/lua-face-markowitz.lua"

# run INPUT WHAT MODE CMD...: one row.
run() {
  input=$1 what=$2 mode=$3
  shift 3
  timeout "$T" /usr/bin/time -f '%e %M' -o "$TMP/time" "$@" > /dev/null 2> "$TMP/err"
  rc=$?
  if [ "$rc" = 124 ] || [ ! -s "$TMP/time" ]; then
    secs=">$T" mb=-
  else
    set -- $(tail -n 1 "$TMP/time")
    secs=$1 mb=$(( $2 / 1024 ))
  fi
  row=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$input" "$what" "$mode" "$secs" "$mb" "$rc")
  printf '%s\n' "$row" >> "$OUT"
  printf '%s\n' "$row"
  : > "$TMP/time"
}

printf 'print(table.concat(require("cgwb.elim").ordering_names(arg[1]), " "))\n' > "$TMP/names.lua"
names() { $CGWB run "$TMP/names.lua" "$1"; } # the built-in orderings of a mode, from the registry

# eliminate INPUT CMD...: every ordering x mode, the Lua rules, the strategies.
eliminate() {
  input=$1
  shift
  for mode in vertex edge face; do
    for o in $(names $mode); do
      lim=
      [ "$o" = exact ] && lim="--time-limit $EXACT"
      run "$input" "$o" "$mode" "$@" --order "$o" --mode "$mode" $lim --json --quiet
    done
  done
  run "$input" "lua-markowitz" vertex "$@" --order "$TMP/lua-markowitz.lua" --json --quiet
  run "$input" "lua-markowitz" edge "$@" --order "$TMP/lua-edge-markowitz.lua" --mode edge --json --quiet
  run "$input" "lua-markowitz" face "$@" --order "$TMP/lua-face-markowitz.lua" --mode face --json --quiet
  for s in colouring reverse forward; do run "$input" "strategy $s" - "$@" --strategy "$s" --json --quiet; done
}

want() { printf '%s\n' "$1" | grep -Eq -- "$ONLY"; }

for g in examples/graphs/*; do
  want "$g" && eliminate "$g" $CGWB eliminate "$g"
done

# tapes: cgwb's own and Lua-traced ones at their recorded point; the ADOL-C set
# (tag 1 Bratu, 2 Shallow, 3 Cavity) at the point of the matching .x file.
for t in examples/tapes/bratu.tap examples/tapes/bratu-lua.tap examples/tapes/cavity.tap \
         examples/tapes/cavity-lua.tap examples/tapes/shallow.tap examples/tapes/shallow-lua.tap \
         examples/tapes/ADOLC-Operations_1.tap:bratu examples/tapes/ADOLC-Operations_2.tap:shallow \
         examples/tapes/ADOLC-Operations_3.tap:cavity; do
  tape=${t%%:*}
  at=
  [ "$tape" != "$t" ] && at="--at examples/tapes/${t#*:}.x"
  want "$tape" || continue
  run "$tape" stats - $CGWB stats "$tape"
  run "$tape" graph - $CGWB graph "$tape" $at
  run "$tape" eval - $CGWB eval "$tape" $at
  run "$tape" codegen - $CGWB codegen "$tape" -o "$TMP/out.c"
  run "$tape" "codegen --jacobian" - $CGWB codegen "$tape" --jacobian $at -o "$TMP/out.c"
  [ -z "$at" ] && run "$tape" "markowitz.lua" - $CGWB run examples/markowitz.lua "$tape"
  eliminate "$tape" $CGWB jacobian "$tape" $at
done

for k in examples/kernels/*.c; do
  want "$k" || continue
  run "$k" flatten - $CGWB flatten "$k" --json
  run "$k" adjoint - $CGWB adjoint "$k" -o "$TMP/adj.c"
done
