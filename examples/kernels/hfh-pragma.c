/* `#pragma cgwb independent` is an assertion that cgwb checks: the first
 * loop's is confirmed (own-index writes of v), the second's is refused
 * (v[i + 1] is written by the next iteration... read here at i + 1 before
 * iteration i + 1 overwrites it). */
void pragma(int n, const double *restrict x, double *restrict v) {
  int i;
#pragma cgwb independent
  for (i = 0; i < n; i++) {
    v[i] = x[i] * x[i];
  }
#pragma cgwb independent
  for (i = 0; i < n - 1; i++) {
    v[i] = v[i] + v[i + 1];
  }
}
