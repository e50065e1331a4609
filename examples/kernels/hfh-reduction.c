/* An additive reduction (Hascoet, Fidanova & Held, sec. 3): s += ... in
 * every iteration.  Increments of s commute, so the loop is independent;
 * the statement after it reads s, so it is not terminal: dry-run. */
void reduction(int n, const double *restrict x, double *restrict f) {
  int i;
  double s = 0.0;
  for (i = 0; i < n; i++) {
    s += x[i] * x[i];
  }
  f[0] = s;
}
