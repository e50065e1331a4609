#!/bin/sh
# spec/adolc/run.sh: records ADOL-C 2.7.2 test tapes with spec/adolc/record.cpp
# (default buffers and three multi-block buffer sets) and checks cgwb's ADOL-C
# reader and forward evaluator against them with spec/c/test_adolc.c.
#
#   sh spec/adolc/run.sh                  # against build/release/libcgwbcore.a
#   BUILD=build/debug sh spec/adolc/run.sh  # ASan/UBSan build of the core + test
#   KEEP=1 ...                            # keep the temporary directory
#
# Needs g++ and Debian's libadolc-dev (link with plain -ladolc, P13).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build/release}
CC=${CC:-cc}
CXX=${CXX:-g++}
LIB="$ROOT/$BUILD/libcgwbcore.a"
WARN="-std=c99 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -pedantic"
case "$BUILD" in
  *debug*) SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
           target=debug ;;
  *)       SAN="-O2"; target=all ;;
esac

if [ ! -f "$LIB" ]; then
  (cd "$ROOT" && make -s "$target" >/dev/null)
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgwb-adolc.XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$TMP"' EXIT; else echo "keeping $TMP"; fi

"$CXX" -O1 -o "$TMP/record" "$ROOT/spec/adolc/record.cpp" -ladolc
# shellcheck disable=SC2086
"$CC" $WARN $SAN -D_POSIX_C_SOURCE=200809L -o "$TMP/test_adolc" \
  "$ROOT/spec/c/test_adolc.c" "$LIB" -lm

# name:record options.  min = the smallest sizes that work (fmt section 1);
# odd has a value block smaller than 5 (fmt 4.6: block indices, not counts).
dirs=""
for v in "plain:" "tiny:--obs 16 --lbs 64 --vbs 8" "min:--obs 3 --lbs 43 --vbs 5" \
         "odd:--obs 7 --lbs 50 --vbs 4"; do
  d="$TMP/${v%%:*}"
  mkdir -p "$d"
  # shellcheck disable=SC2086
  (cd "$d" && "$TMP/record" ${v#*:} >out.txt 2>record.log)
  dirs="$dirs $d"
done

# shellcheck disable=SC2086
"$TMP/test_adolc" $dirs
