#!/bin/bash
# Runs every test (make test) or the quick subset (make check: --quick).
#
# The full suite: C unit tests of the core, the busted specs, the ADOL-C
# comparisons, each on the release build and on the debug build under
# AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer for the C
# tests); the fuzz regression inputs and a timed run of each libFuzzer target;
# the mutation check; the install check.  --quick: the release build's C unit
# tests and busted specs.
#
# The work is cut into jobs (one busted spec file, one fuzz target, one shard
# of the mutants, ...) that GNU parallel runs on every core, longest first by
# the times of the last run (build/test-times.tsv, else spec/test-times.tsv).
# Each job writes its own log and temporary directory; the logs are shown in
# phase order, each phase's "N passed, N failed" is the sum of its jobs', the
# table of phase times comes next, and the last line adds everything up.
#
#   sh scripts/run-tests.sh [--quick]      CGWB_TEST_JOBS=N: N workers (nproc)
#   sh scripts/run-tests.sh --job LOG KIND ARGS...   one job (what parallel runs)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# No progress lines on the specs' stderr (spec/39-progress_spec.lua sets its own).
CGWB_PROGRESS=never
export CGWB_PROGRESS
SAN_CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"

# {==== the jobs ====}

# C unit tests: every spec/c/test_*.c against the core library.  test_lua_*
# embed Lua: they also link the binding objects and liblua (the module never
# links liblua: the interpreter exports the API).
c_tests() {
  build=$1 flags=-O2
  case "$build" in *debug*) flags=$SAN_CFLAGS ;; esac
  mkdir -p "$build/spec"
  passed=0 failed=0
  for src in spec/c/test_*.c; do
    [ -e "$src" ] || continue
    case "$src" in *test_adolc*) continue ;; esac
    exe="$build/spec/$(basename "$src" .c)"
    extra_src="" extra_lib=""
    case "$src" in
      *test_lua_*) extra_src="-I${LUA_INCDIR:-/usr/include/lua5.4} $build/csrc/lua/*.o" extra_lib="-llua5.4" ;;
    esac
    # shellcheck disable=SC2086 # extra_src holds several words
    if ! cc -std=c99 -Wall -Wextra $flags -Icsrc "$src" $extra_src "$build/libcgwbcore.a" $extra_lib -lColPack -lgomp -lstdc++ -lm -o "$exe"; then
      echo "$src: does not compile"
      failed=$((failed + 1))
      continue
    fi
    "$exe" >"$exe.log" 2>&1
    rc=$?
    cat "$exe.log"
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$exe.log" | tail -n 1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    [ -n "$p" ] || p=0
    [ -n "$f" ] || f=1
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    passed=$((passed + p))
    failed=$((failed + f))
  done
  echo "c: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

# The sanitizer phase's Lua: build/debug/san/lua5.4, first on PATH, preloads
# the sanitizer runtimes (the interpreter is not instrumented; the module is)
# and spec/support/unpreload.so, which takes LD_PRELOAD out of the environment
# again, so the compilers and programs a spec runs start without the runtimes
# while every Lua interpreter (busted, the cgwb command) has them.
# A spec that runs a program of its own embedding the module, or that sets
# PATH itself, reads the runtimes and the wrapper's directory from
# CGWB_SAN_PRELOAD and CGWB_SAN_BIN (spec/helper.lua: H.san_preload, H.san_bin).
san_env() {
  CGWB_SAN_BIN="$ROOT/build/debug/san"
  CGWB_SAN_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
  PATH="$CGWB_SAN_BIN:$PATH"
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export PATH ASAN_OPTIONS UBSAN_OPTIONS CGWB_SAN_BIN CGWB_SAN_PRELOAD
}

san_lua() {
  d=build/debug/san
  mkdir -p "$d" &&
    cc -O1 -shared -fPIC -o "$d/unpreload.so" spec/support/unpreload.c &&
    printf '#!/bin/sh\nLD_PRELOAD="%s %s %s" exec /usr/bin/lua5.4 "$@"\n' \
      "$(cc -print-file-name=libasan.so)" "$(cc -print-file-name=libubsan.so)" "$ROOT/$d/unpreload.so" >"$d/lua5.4" &&
    chmod 755 "$d/lua5.4"
}

# One busted spec file; its temporary files in a directory of its own.
busted_file() {
  build=$1 spec=$2
  tmp="$build/spec-tmp/$(basename "$spec" .lua)"
  rm -rf "$tmp"
  case "$build" in *debug*) san_env ;; esac
  CGWB_BUILD=$build CGWB_TMP=$tmp lua5.4 /usr/bin/busted "$spec"
  rc=$?
  [ "$rc" -ne 0 ] || rm -rf "$tmp"
  return $rc
}

adolc_run() {
  if [ -x spec/adolc/run.sh ]; then BUILD=$1 spec/adolc/run.sh; else echo "adolc: 0 passed, 0 failed"; fi
}

adolc_jacobian_run() {
  case "$1" in *debug*) san_env ;; esac
  if [ -x spec/adolc/run-jacobian.sh ]; then BUILD=$1 spec/adolc/run-jacobian.sh; else echo "adolc-jacobian: 0 passed, 0 failed"; fi
}

# One libFuzzer target (spec/fuzz): its regression inputs, then FUZZ_SECONDS
# (20 by default) of fuzzing with a fixed seed, the same run on every machine
# (make fuzz explores at random).
fuzz_run() {
  if [ ! -x "build/fuzz/fuzz-$1" ]; then
    echo "fuzz: build/fuzz/fuzz-$1 not built (clang missing? make deps)"
    echo "fuzz: 0 passed, 1 failed"
    return 1
  fi
  FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_SECONDS=${FUZZ_SECONDS:-20} sh spec/fuzz/run.sh "$1"
}

# --job LOG KIND ARGS...: runs one job, its output into LOG.
if [ "${1:-}" = "--job" ]; then
  log=$2 kind=$3
  shift 3
  case "$kind" in
    c) c_tests "$@" ;;
    busted) busted_file "$@" ;;
    adolc) adolc_run "$@" ;;
    adolc-jacobian) adolc_jacobian_run "$@" ;;
    fuzz) fuzz_run "$@" ;;
    # Hand-made mutants of the core (spec/mutants.lua): each applied alone to a
    # scratch copy of the tree must make one of its tests fail.
    mutation) lua5.4 scripts/mutation.lua --shard "$1" ;;
    install) scripts/check-rockspec.sh ;;
    *) echo "run-tests: unknown job kind $kind"; false ;;
  esac >"$log" 2>&1
  exit $?
fi

# {==== the plan ====}

QUICK=""
[ "${1:-}" = "--quick" ] && QUICK=1
JOBS=${CGWB_TEST_JOBS:-$(nproc)}
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT
START=$(date +%s.%N)

# The phases in the order they are reported; each job is "PHASE NAME KIND ARGS".
PHASES=("C unit tests (release)" "busted (release)" "ADOL-C comparisons (release)" "ADOL-C Jacobians (release)"
        "C unit tests (ASan+UBSan)" "busted (ASan+UBSan)" "ADOL-C comparisons (ASan+UBSan)"
        "ADOL-C Jacobians (ASan+UBSan)" "fuzz (libFuzzer, ASan+UBSan)" "mutation check"
        "install (make install, DESTDIR, luarocks)")
PLAN=$LOG/plan
: >"$PLAN"
job() { echo "$*" >>"$PLAN"; }
SPECS=$(ls spec/*_spec.lua)
MUTATION_SHARDS=${MUTATION_SHARDS:-3}

# Builds before the jobs that need them (the release build is make test's).
BUILD_LOG=$LOG/builds.log
: >"$BUILD_LOG"
BUILD_FAILED=0
build_step() {
  what=$1
  shift
  t0=$(date +%s.%N)
  if "$@" >>"$BUILD_LOG" 2>&1; then rc=0; else rc=1; fi
  t1=$(date +%s.%N)
  echo "$what $(echo "$t1 - $t0" | bc)" >>"$LOG/build-times"
  return $rc
}

job 0 c-release c build/release
for s in $SPECS; do job 1 "busted-release-$(basename "$s" _spec.lua)" busted build/release "$s"; done
if [ -z "$QUICK" ]; then
  job 2 adolc-release adolc build/release
  job 3 adolc-jacobian-release adolc-jacobian build/release
  if build_step "debug build (ASan+UBSan)" make -s -j"$JOBS" debug && build_step "sanitizer Lua" san_lua; then
    job 4 c-debug c build/debug
    for s in $SPECS; do job 5 "busted-debug-$(basename "$s" _spec.lua)" busted build/debug "$s"; done
    job 6 adolc-debug adolc build/debug
    job 7 adolc-jacobian-debug adolc-jacobian build/debug
  else
    echo "== the debug build failed"
    cat "$BUILD_LOG"
    BUILD_FAILED=1
  fi
  if command -v clang >/dev/null 2>&1 && build_step "fuzz build (clang)" make -s -j"$JOBS" fuzz-build; then
    for t in $(sed -n 's/^FUZZ_TARGETS *?= *//p' Makefile); do job 8 "fuzz-$t" fuzz "$t"; done
  else
    job 8 fuzz-none fuzz none
  fi
  k=1
  while [ "$k" -le "$MUTATION_SHARDS" ]; do job 9 "mutation-$k" mutation "$k/$MUTATION_SHARDS"; k=$((k + 1)); done
  [ -x scripts/check-rockspec.sh ] && job 10 install install
fi

# Longest first (the times of the last run; 30 s for a job not seen before).
TIMES=build/test-times.tsv
[ -f "$TIMES" ] || TIMES=spec/test-times.tsv
awk -v times="$TIMES" 'BEGIN { while ((getline l < times) > 0) { split(l, f, "\t"); w[f[1]] = f[2] } }
  { name = $2; t = (name in w) ? w[name] : 30; printf "%012.3f\t%s\n", t, $0 }' "$PLAN" |
  sort -r | cut -f2- >"$LOG/sorted"
while read -r phase name kind args; do
  echo "bash scripts/run-tests.sh --job $LOG/$name.log $kind $args"
done <"$LOG/sorted" >"$LOG/commands"

# {==== the run ====}

echo "== $(wc -l <"$PLAN") jobs on $JOBS workers"
parallel --will-cite -j "$JOBS" --joblog "$LOG/joblog" :::: "$LOG/commands" </dev/null >/dev/null 2>&1
END=$(date +%s.%N)

# name start runtime exit, from the joblog (Seq Host Starttime JobRuntime Send Receive Exitval Signal Command).
awk -F'\t' 'NR > 1 { n = split($9, w, " "); name = w[4]; sub(".*/", "", name); sub("\\.log$", "", name)
  print name "\t" $3 "\t" ($4 + 0) "\t" ($8 != 0 ? 128 + $8 : $7) }' "$LOG/joblog" >"$LOG/times"
mkdir -p build
cut -f1,3 "$LOG/times" | sort >build/test-times.tsv

TOTAL_P=0
TOTAL_F=0
FAILED_LOGS=""
TABLE=$LOG/table
: >"$TABLE"
# The last "N passed, N failed" of a job's log; a job that exits non-zero
# without one (or with 0 failed) counts as one failure.
job_counts() {
  out=$1 rc=$2
  line=$(grep -E '([0-9]+) passed, ([0-9]+) failed' "$out" 2>/dev/null | tail -n 1)
  if [ -z "$line" ]; then
    echo "0 1"
  else
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    echo "$p $f"
  fi
}

i=0
for phase in "${PHASES[@]}"; do
  names=$(awk -v i="$i" '$1 == i { print $2 }' "$PLAN")
  i=$((i + 1))
  [ -n "$names" ] || continue
  echo "== $phase"
  pp=0 pf=0 njobs=0 sum=0 first="" last=""
  for name in $names; do
    out="$LOG/$name.log"
    rec=$(awk -F'\t' -v n="$name" '$1 == n' "$LOG/times")
    if [ -z "$rec" ]; then
      rc=1 t0=0 dt=0
      echo "$name: did not run" >>"$out"
    else
      t0=$(echo "$rec" | cut -f2) dt=$(echo "$rec" | cut -f3) rc=$(echo "$rec" | cut -f4)
    fi
    cat "$out" 2>/dev/null
    read -r p f <<<"$(job_counts "$out" "$rc")"
    [ -s "$out" ] && ! grep -qE '[0-9]+ passed, [0-9]+ failed' "$out" && echo "== $name: no result line (exit $rc)"
    [ "$f" -eq 0 ] || FAILED_LOGS="$FAILED_LOGS $out"
    pp=$((pp + p)) pf=$((pf + f)) njobs=$((njobs + 1))
    sum=$(echo "$sum + $dt" | bc)
    e=$(echo "$t0 + $dt" | bc)
    if [ -z "$first" ] || [ "$(echo "$t0 < $first" | bc)" -eq 1 ]; then first=$t0; fi
    if [ -z "$last" ] || [ "$(echo "$e > $last" | bc)" -eq 1 ]; then last=$e; fi
  done
  echo "== $phase: $pp passed, $pf failed"
  TOTAL_P=$((TOTAL_P + pp))
  TOTAL_F=$((TOTAL_F + pf))
  printf '%-42s %5d %9.1f %9.1f %8d %7d\n' "$phase" "$njobs" "$(echo "$last - $first" | bc)" "$sum" "$pp" "$pf" >>"$TABLE"
done
[ "$BUILD_FAILED" -eq 0 ] || TOTAL_F=$((TOTAL_F + 1))

# What failed, repeated at the end of the run (a CI log may show only its tail):
# each failing job's failure lines (busted's Failure/Error and the test name
# under it, C checks, fuzz findings, surviving mutants).
echo
for out in $FAILED_LOGS; do
  echo "== failed in $(basename "$out" .log):"
  grep -E -A1 '^(Failure|Error) ->|^(Failure|Error) →|check failed|does not compile|fails again|FINDING|NOT caught|fails on the unmutated|no result line|did not run|passed, [1-9][0-9]* failed' \
    "$out" | grep -v '^--$' | head -n 40
done

echo
echo "== phase times (s; wall: from a phase's first job's start to its last job's end, the phases"
echo "   overlapping on $JOBS workers; jobs: the sum of its jobs' times)"
printf '%-42s %5s %9s %9s %8s %7s\n' "phase" "jobs" "wall" "jobs" "passed" "failed"
if [ -f "$LOG/build-times" ]; then
  while read -r line; do
    printf '%-42s %5s %9.1f %9s\n' "${line% *}" "" "${line##* }" ""
  done <"$LOG/build-times"
fi
cat "$TABLE"
printf '%-42s %5s %9.1f %9s %8d %7d\n' "total" "" "$(echo "$END - $START" | bc)" "" "$TOTAL_P" "$TOTAL_F"
echo "$TOTAL_P passed, $TOTAL_F failed"
[ "$TOTAL_F" -eq 0 ]
