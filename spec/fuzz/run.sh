#!/bin/sh
# spec/fuzz/run.sh: replays the regression inputs, then fuzzes each target for
# FUZZ_SECONDS (default 60) on a scratch copy of its seed corpus.  Built by
# `make fuzz-build` (build/fuzz/fuzz-<target>).
#
#   sh spec/fuzz/run.sh [TARGET...]       # default: every build/fuzz/fuzz-*
#   FUZZ_SECONDS=20 sh spec/fuzz/run.sh text
#   FUZZ_SEED=1 ...                       # a fixed seed (scripts/run-tests.sh)
#
# Each regression input and each fuzz run counts as one test; a crash, leak,
# sanitizer report, timeout or failed property is a failure, and its input is
# kept in build/fuzz/findings/<target>/ (copy it to spec/fuzz/regressions/
# <target>/ once fixed).  Ends with "fuzz: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
BIN=build/fuzz
targets="$*"
if [ -z "$targets" ]; then
  for b in "$BIN"/fuzz-*; do [ -x "$b" ] && targets="$targets ${b#"$BIN"/fuzz-}"; done
fi
passed=0
failed=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cgwb-fuzz-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Leaks are checked by the targets (capped allocator) and by LeakSanitizer.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

for t in $targets; do
  exe="$BIN/fuzz-$t"
  if [ ! -x "$exe" ]; then
    echo "fuzz $t: no binary $exe (run make fuzz-build)"
    failed=$((failed + 1))
    continue
  fi
  for f in spec/fuzz/regressions/"$t"/*; do
    [ -f "$f" ] || continue
    if "$exe" -timeout=10 "$f" >"$WORK/replay.log" 2>&1; then
      passed=$((passed + 1))
    else
      echo "fuzz $t: regression $f fails again:"
      tail -n 30 "$WORK/replay.log"
      failed=$((failed + 1))
    fi
  done
  # inputs of bugs reported to the owner of the file: replayed, not counted
  for f in spec/fuzz/pending/"$t"/*; do
    [ -f "$f" ] || continue
    if "$exe" -timeout=10 "$f" >"$WORK/replay.log" 2>&1; then
      echo "fuzz $t: pending $f passes now: move it to spec/fuzz/regressions/$t/"
    else
      echo "fuzz $t: pending $f still fails (known, reported; not counted)"
    fi
  done
  mkdir -p "$WORK/$t" "$BIN/findings/$t"
  # -timeout: a hang is a finding; -rss_limit_mb: so is runaway memory (the
  # targets cap the core's allocations at 256 MiB).
  "$exe" -max_total_time="$SECONDS_EACH" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$BIN/findings/$t/" \
    "$WORK/$t" "spec/fuzz/corpus/$t" >"$WORK/$t.log" 2>&1
  rc=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$WORK/$t.log" | grep -oE '[0-9]+$')
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $t: ${runs:-?} inputs in ${SECONDS_EACH}s, no finding"
    passed=$((passed + 1))
  else
    echo "fuzz $t: FINDING (exit $rc), input kept in $BIN/findings/$t/:"
    grep -E 'ERROR|SUMMARY|property failed|runtime error|Test unit written' "$WORK/$t.log" | head -n 20
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
