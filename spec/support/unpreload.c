/* spec/support/unpreload.c: preloaded after the sanitizer runtimes into each
 * Lua interpreter of the sanitizer phase (scripts/run-tests.sh, san_lua), it
 * takes LD_PRELOAD out of the environment once the loader has read it, so the
 * compilers and programs a spec runs start without the runtimes (ASan's start
 * costs each process 2-3 times its time); the interpreters they start find the
 * wrapper on PATH again and are instrumented as before. */
#include <stdlib.h>

__attribute__((constructor)) static void unpreload(void) { unsetenv("LD_PRELOAD"); }
