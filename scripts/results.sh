#!/bin/sh
# scripts/results.sh (`make results`): regenerates every page and figure of
# doc/results/ from the shipped examples, one script after the other:
#   tape-statistics.md          scripts/results-tape-stats.lua   (Bischof & Hu 1991, Table 1)
#   graph-optimizations.md      scripts/results-graph.lua        (Tables 2-4)
#   elimination.md              scripts/results-elim.lua         (Hovland, Norris, Utke & Strout)
#   adjoint-loops.md, .csv, -tape.svg
#                               scripts/bench-adjoint.sh, results-adjoint.lua
#                                                                (Hascoët, Fidanova & Held, sec. 4)
#   compiled-evaluation.md, cavity-levels.csv, .png
#                               scripts/results-codegen.sh, results-codegen.lua
#                                                                (Table 5, Figure 11)
# Each page's text above its last section, "## Timings (change from run to
# run)", is the same bytes from run to run (plots included); pages without
# timings have no such section.  Each writer checks the claims its page makes
# and fails (exit 1, the claim on stderr) when one does not hold; this script
# stops at the first failure.  Needs `make` and `make examples` (`make results`
# runs both).  The whole run took 9 minutes on 2 cores shared with other jobs, most of it GCC
# compiling the generated code (at -O1, see compiled-evaluation.md).
set -eu
cd "$(dirname "$0")/.."
export CGWB_PROGRESS=${CGWB_PROGRESS:-never}
export CGWB_RESULTS_ONLY=1 # results-adjoint.lua: leave doc/benchmarks.md to `make bench`
step() {
  echo "results: $*" >&2
  t0=$(date +%s)
  "$@"
  echo "results: $* done in $(( $(date +%s) - t0 )) s" >&2
}
step scripts/cgwb run scripts/results-tape-stats.lua
step scripts/cgwb run scripts/results-graph.lua
step lua5.4 scripts/results-elim.lua
step sh scripts/bench-adjoint.sh > /dev/null
step sh scripts/results-codegen.sh
echo "results: doc/results/ written" >&2
