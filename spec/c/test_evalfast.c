/* test_evalfast.c: the debug check of graph evaluation's inline values
 * (cg_graph.c, check_value) fires when an inline case drifts from its row
 * of the operation table (cg_gops.h).  cg_graph.c is compiled into this
 * test with its hook CG_EVAL_SKEW adding `skew` to the inline value of a
 * mulc head: with skew 0 the graph evaluates to the row's value; with skew
 * 1e-3, in a child process, the run stops (abort) naming the node.  The
 * check is compiled in unless NDEBUG, as in the debug build.
 * Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static double skew;
#define CG_EVAL_SKEW(x) ((x) + skew)
#include "graph/cg_graph.c"
#include "graph/cg_gtape.h"
#include "check.h"

static const char *TEXT = "assign_ind 0 0.5\nmult_a_d 1 0 3\nassign_dep 1\n";

/* Builds TEXT's graph and evaluates it at its point into *y. */
static int evaluate(double *y) {
  cg_error e;
  cg_tape *t = check_tape_text(NULL, "evalfast.txt", TEXT, &e);
  cg_graph *g = t ? cg_graph_build(NULL, t, NULL, NULL, &e) : NULL;
  int rc = g ? cg_graph_eval(g, NULL, NULL, y, NULL, &e) : e.code;
  if (rc) fprintf(stderr, "evalfast: %s\n", e.msg);
  cg_graph_free(g);
  if (t) cg_tape_free(t);
  return rc;
}

static void test_agrees(void) {
  double y = 0;
  skew = 0;
  CHECK(evaluate(&y) == CG_OK && y == 1.5);
}

static void test_drift_stops(void) {
#ifdef NDEBUG
  CHECK(!"compile this test without NDEBUG: the check is a debug build's");
#else
  char path[] = "/tmp/cgwb-evalfast-XXXXXX", msg[512] = "";
  int fd = mkstemp(path), status = 0;
  pid_t pid;
  FILE *fp;
  CHECK(fd >= 0);
  if (fd < 0) return;
  fflush(NULL);
  pid = fork();
  if (pid == 0) { /* the child: its stderr to the file, then a drifted run */
    double y;
    dup2(fd, 2);
    skew = 1e-3;
    evaluate(&y);
    _exit(0); /* not reached when the check fires */
  }
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  if ((fp = fopen(path, "r"))) {
    if (!fgets(msg, sizeof msg, fp)) msg[0] = 0;
    fclose(fp);
  }
  CHECK(strstr(msg, "cg_graph.c: node 1 (mulc): the inline value") != NULL);
  if (!strstr(msg, "operation table")) fprintf(stderr, "child said: %s", msg);
  close(fd);
  unlink(path);
#endif
}

int main(void) {
  test_agrees();
  test_drift_stops();
  return check_report("test_evalfast");
}
