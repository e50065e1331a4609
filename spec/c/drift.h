/* drift.h: the harness of the tests that prove a debug check of an inline
 * copy against the operation table fires (test_buildfast.c, test_evalfast.c,
 * test_linfast.c).  Include after check.h, with _POSIX_C_SOURCE defined
 * before any system header. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs drifted() (which skews the inline copy and runs the stage) in a child
 * whose stderr goes to a file; the child must abort, its first line naming
 * `want` and the operation table.  Without the check (NDEBUG) it fails. */
static void check_drift_aborts(void (*drifted)(void), const char *want) {
#ifdef NDEBUG
  (void)drifted, (void)want;
  CHECK(!"compile this test without NDEBUG: the check is a debug build's");
#else
  char path[] = "/tmp/cgwb-drift-XXXXXX", msg[512] = "";
  int fd = mkstemp(path), status = 0;
  pid_t pid;
  FILE *fp;
  CHECK(fd >= 0);
  if (fd < 0) return;
  fflush(NULL);
  pid = fork();
  if (pid == 0) { /* the child: its stderr to the file, then the drifted run */
    dup2(fd, 2);
    drifted();
    _exit(0); /* not reached when the check fires */
  }
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  if ((fp = fopen(path, "r"))) {
    if (!fgets(msg, sizeof msg, fp)) msg[0] = 0;
    fclose(fp);
  }
  CHECK(strstr(msg, want) != NULL);
  CHECK(strstr(msg, "operation table") != NULL);
  if (!strstr(msg, want) || !strstr(msg, "operation table")) fprintf(stderr, "child said: %s", msg);
  close(fd);
  unlink(path);
#endif
}
