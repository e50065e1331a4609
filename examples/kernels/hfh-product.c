/* A product reduction p *= x[i]: refused (the rule admits additive
 * reductions only). */
double product(int n, const double *restrict x) {
  int i;
  double p = 1.0;
  for (i = 0; i < n; i++) {
    p *= x[i];
  }
  return p;
}
