/* A planted loop-carried dependence: iteration i reads what iteration i-1
 * wrote.  Refused, naming y[i - 1] and the line that writes y[i]. */
void carried(int n, const double *restrict x, double *restrict y) {
  int i;
  for (i = 1; i < n; i++) {
    y[i] = y[i - 1] + x[i];
  }
}
