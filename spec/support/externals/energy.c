/* An energy over a vector that calls two library routines it does not
 * define (their code, and their derivatives, are the library's: blas.c). */
double nrm2(int n, const double *x);
void scal(int n, double a, double *x);

double energy(int n, const double *u, double *w, double *g) {
  int i;
  double e;
  for (i = 0; i < n; i++) w[i] = u[i] * u[i] + 1.0;
  scal(n, 0.5 * u[0], w);
  e = nrm2(n, w);
  for (i = 0; i + 1 < n; i++) g[i] = nrm2(2, &w[i]) * u[i];
  return e * e + w[0] + g[0];
}
