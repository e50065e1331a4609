#!/bin/sh
# spec/adolc/run-jacobian.sh: cgwb's eliminated Jacobians against Debian's
# ADOL-C jacobian(): the three example tapes (ADOL-C reads a copy, since a
# process that only reads a disk tape deletes it) and generated random
# programs recorded by spec/adolc/jacobian.cpp (jacobian() in the recording
# process).  Each cgwb run uses --check (sweeps) and an ordering per mode.
#
#   BUILD=build/release sh spec/adolc/run-jacobian.sh   (or build/debug)
#   KEEP=1 ...   keep the temporary directory
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build/release}
CXX=${CXX:-g++}
NRANDOM=${NRANDOM:-12}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgwb-adjac.XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$TMP"' EXIT; else echo "keeping $TMP"; fi
case "$BUILD" in
  # scripts/run-tests.sh puts its sanitizer Lua first on PATH (the runtimes in
  # the interpreters only); run alone, preload them into every process.
  *debug*) [ -x "$ROOT/$BUILD/san/lua5.4" ] && [ "$(command -v lua5.4)" = "$ROOT/$BUILD/san/lua5.4" ] ||
             export LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
           export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 ;;
esac
export CGWB_BUILD="$BUILD"
passed=0
failed=0

if ! "$CXX" -O1 -o "$TMP/jacobian" "$ROOT/spec/adolc/jacobian.cpp" -ladolc 2>"$TMP/cxx.log"; then
  cat "$TMP/cxx.log"
  echo "adolc-jacobian: 0 passed, 1 failed"
  exit 1
fi

# compare NAME CGWB_MTX ADOLC_MTX
compare() {
  if out=$(lua5.4 "$ROOT/spec/adolc/compare-jac.lua" "$2" "$3"); then
    echo "ok   $1: $out"
    passed=$((passed + 1))
  else
    echo "FAIL $1: $out"
    failed=$((failed + 1))
  fi
}

# cgwb_jac NAME TAPE X MODE ORDER OUT: cgwb jacobian with --check.
cgwb_jac() {
  if ! (cd "$ROOT" && scripts/cgwb jacobian "$2" --at "$3" --mode "$4" --order "$5" --check -o "$6") \
       2>"$TMP/err.log"; then
    echo "FAIL $1: cgwb jacobian --mode $4 --order $5: $(tail -n 1 "$TMP/err.log")"
    failed=$((failed + 1))
    return 1
  fi
}

# The example tapes (tags: bratu 1, shallow 2, cavity 3).
for ex in bratu:1 shallow:2 cavity:3; do
  name=${ex%%:*} tag=${ex#*:}
  d="$TMP/$name"
  mkdir -p "$d/adolc" "$d/cgwb"
  cp "$ROOT"/examples/tapes/ADOLC-*_"$tag".tap "$d/adolc/"
  cp "$ROOT"/examples/tapes/ADOLC-*_"$tag".tap "$d/cgwb/"
  x="$ROOT/examples/tapes/$name.x"
  n=$(wc -l <"$x")
  m=$(wc -l <"$ROOT/examples/tapes/$name.y")
  if ! (cd "$d/adolc" && "$TMP/jacobian" tape "$tag" "$n" "$m" "$x" "$d/adolc.mtx"); then
    echo "FAIL $name: ADOL-C jacobian()"
    failed=$((failed + 1))
    continue
  fi
  for mo in vertex:markowitz vertex:reverse edge:markowitz face:reverse; do
    [ "$name" = shallow ] && [ "${mo%%:*}" = face ] && continue
    if cgwb_jac "$name" "$d/cgwb/ADOLC-Operations_$tag.tap" "$x" "${mo%%:*}" "${mo#*:}" "$d/$mo.mtx"; then
      compare "$name ${mo%%:*} ${mo#*:}" "$d/$mo.mtx" "$d/adolc.mtx"
    fi
  done
done

# Generated random programs, recorded and differentiated by ADOL-C.
seed=1
while [ "$seed" -le "$NRANDOM" ]; do
  d="$TMP/random$seed"
  mkdir -p "$d"
  if ! (cd "$d" && "$TMP/jacobian" random "$seed" 7 >nm.txt); then
    echo "FAIL random $seed: recording"
    failed=$((failed + 1))
  else
    for mo in vertex:markowitz edge:min-fill face:markowitz; do
      if cgwb_jac "random $seed" "$d/ADOLC-Operations_7.tap" "$d/random.x" "${mo%%:*}" "${mo#*:}" "$d/$mo.mtx"; then
        compare "random $seed ${mo%%:*} ${mo#*:}" "$d/$mo.mtx" "$d/adolc.mtx"
      fi
    done
  fi
  seed=$((seed + 1))
done

echo "adolc-jacobian: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
