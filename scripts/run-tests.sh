#!/bin/sh
# Runs every test: C unit tests of the core, the busted specs, the ADOL-C
# comparisons, first on the release build, then on the debug build under
# AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer for C tests).
# Each phase prints "N passed, N failed"; the last line adds them up.
set -u
cd "$(dirname "$0")/.."
# No progress lines on the specs' stderr (spec/39-progress_spec.lua sets its own).
CGWB_PROGRESS=never
export CGWB_PROGRESS
TOTAL_P=0
TOTAL_F=0
FAILED_PHASES=""
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT

# Adds the last "N passed, N failed" of a phase's output to the totals; a phase
# that exits non-zero without such a line counts as one failure.
tally() {
  name=$1 out=$2 rc=$3
  line=$(grep -E '([0-9]+) passed, ([0-9]+) failed' "$out" | tail -n 1)
  if [ -z "$line" ]; then
    p=0
    f=1
    echo "== $name: no result line (exit $rc)"
    tail -n 20 "$out"
  else
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    echo "== $name: $p passed, $f failed"
  fi
  TOTAL_P=$((TOTAL_P + p))
  TOTAL_F=$((TOTAL_F + f))
  [ "$f" -eq 0 ] || FAILED_PHASES="$FAILED_PHASES $out"
}

# What failed, repeated at the end of the run (a CI log may show only its tail):
# each failing phase's failure lines (busted's Failure/Error and the test
# name under it, C checks, fuzz findings, surviving mutants).
failure_summary() {
  for out in $FAILED_PHASES; do
    echo "== failed in $(basename "$out" .log):"
    grep -E -A1 '^(Failure|Error) ->|^(Failure|Error) →|check failed|does not compile|fails again|FINDING|NOT caught|fails on the unmutated|no result line|passed, [1-9][0-9]* failed' \
      "$out" | grep -v '^--$' | head -n 40
  done
}

# Runs a phase, showing its output, then tallies it.
phase() {
  name=$1
  shift
  out="$LOG/$(echo "$name" | tr ' /' '__').log"
  echo "== $name"
  "$@" >"$out" 2>&1
  rc=$?
  cat "$out"
  tally "$name" "$out" "$rc"
}

# C unit tests: every spec/c/test_*.c against the core library.  test_lua_*
# embed Lua: they also link the binding objects and liblua (the module never
# links liblua: the interpreter exports the API).
c_tests() {
  build=$1 flags=$2
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

busted_run() {
  CGWB_BUILD=$1 CGWB_TMP=$1/spec-tmp lua5.4 /usr/bin/busted
}

adolc_run() {
  if [ -x spec/adolc/run.sh ]; then BUILD=$1 spec/adolc/run.sh; else echo "adolc: 0 passed, 0 failed"; fi
}

adolc_jacobian_run() {
  if [ -x spec/adolc/run-jacobian.sh ]; then BUILD=$1 spec/adolc/run-jacobian.sh; else echo "adolc-jacobian: 0 passed, 0 failed"; fi
}

ASAN_LIB=$(cc -print-file-name=libasan.so)
UBSAN_LIB=$(cc -print-file-name=libubsan.so)

phase "C unit tests (release)" c_tests build/release "-O2"
phase "busted (release)" busted_run build/release
phase "ADOL-C comparisons (release)" adolc_run build/release
phase "ADOL-C Jacobians (release)" adolc_jacobian_run build/release

if make -s debug >"$LOG/debug-build.log" 2>&1; then
  phase "C unit tests (ASan+UBSan)" c_tests build/debug "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
  # The interpreter is not instrumented: preload the runtimes for the module.
  # Lua's own allocations at exit are not ours, so leak checks run in the C tests.
  phase "busted (ASan+UBSan)" env LD_PRELOAD="$ASAN_LIB $UBSAN_LIB" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    sh -c 'CGWB_BUILD=build/debug CGWB_TMP=build/debug/spec-tmp lua5.4 /usr/bin/busted'
  phase "ADOL-C comparisons (ASan+UBSan)" adolc_run build/debug
  phase "ADOL-C Jacobians (ASan+UBSan)" adolc_jacobian_run build/debug
else
  cat "$LOG/debug-build.log"
  echo "== debug build failed"
  TOTAL_F=$((TOTAL_F + 1))
fi

# libFuzzer targets (spec/fuzz): the regression inputs, then each target
# briefly (FUZZ_SECONDS, 20 s by default: five targets stay under 3 minutes
# with the build).  Needs clang; without it the phase says so and fails.
fuzz_run() {
  if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang not installed (make deps)"
    echo "fuzz: 0 passed, 1 failed"
    return 1
  fi
  make -s fuzz-build >"$LOG/fuzz-build.log" 2>&1 || { cat "$LOG/fuzz-build.log"; echo "fuzz: 0 passed, 1 failed"; return 1; }
  # a fixed seed: the same run on every machine (make fuzz explores at random)
  FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_SECONDS=${FUZZ_SECONDS:-20} sh spec/fuzz/run.sh
}
phase "fuzz (libFuzzer, ASan+UBSan)" fuzz_run

# Hand-made mutants of the core (spec/mutants.lua): each applied alone to a
# scratch copy of the tree must make one of its tests fail.
phase "mutation check" lua5.4 scripts/mutation.lua

if [ -x scripts/check-rockspec.sh ]; then
  phase "install (make install, DESTDIR, luarocks)" scripts/check-rockspec.sh
fi

echo
failure_summary
echo "$TOTAL_P passed, $TOTAL_F failed"
[ "$TOTAL_F" -eq 0 ]
