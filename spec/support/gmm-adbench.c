/* A Gaussian mixture objective in the style of ADBench's GMM (the negative
 * log-likelihood of n points under k components with a Wishart prior on the
 * precisions, each component's inverse covariance as the lower-triangular
 * factor icf: log-diagonal then the strict lower part by columns), written
 * for the kernel subset: fixed bounds for the local work arrays (d <= 4,
 * k <= 4), the data points x passed to helpers as pointers into them.
 * Not ADBench's code: the same computation, written here. */
#include <math.h>

static double arr_max(int n, const double *x) {
  int i;
  double m = x[0];
  for (i = 1; i < n; i++)
    if (m < x[i]) m = x[i];
  return m;
}

static double logsumexp(int n, const double *x) {
  int i;
  double mx = arr_max(n, x);
  double s = 0.0;
  for (i = 0; i < n; i++) s = s + exp(x[i] - mx);
  return log(s) + mx;
}

static void subtract(int d, const double *x, const double *y, double *out) {
  int id;
  for (id = 0; id < d; id++) out[id] = x[id] - y[id];
}

static double sqnorm(int n, const double *x) {
  int i;
  double s = x[0] * x[0];
  for (i = 1; i < n; i++) s = s + x[i] * x[i];
  return s;
}

/* out = Q x, Q = diag(Qdiag) + the strict lower part ltri (by columns) */
static void qtimesx(int d, const double *qdiag, const double *ltri, const double *x, double *out) {
  int i, j, lparam;
  for (i = 0; i < d; i++) out[i] = qdiag[i] * x[i];
  lparam = 0;
  for (i = 0; i < d; i++)
    for (j = i + 1; j < d; j++) {
      out[j] = out[j] + ltri[lparam] * x[i];
      lparam++;
    }
}

static void preprocess_qs(int d, int k, const double *icf, double *sum_qs, double *qdiags) {
  int ik, id, icf_sz;
  icf_sz = d * (d + 1) / 2;
  for (ik = 0; ik < k; ik++) {
    sum_qs[ik] = 0.0;
    for (id = 0; id < d; id++) {
      double q = icf[ik * icf_sz + id];
      sum_qs[ik] = sum_qs[ik] + q;
      qdiags[ik * d + id] = exp(q);
    }
  }
}

static double log_wishart_prior(int d, int k, double gamma, int m, const double *sum_qs, const double *qdiags,
                                const double *icf) {
  int ik, icf_sz;
  double out = 0.0;
  icf_sz = d * (d + 1) / 2;
  for (ik = 0; ik < k; ik++) {
    double frobenius = sqnorm(d, &qdiags[ik * d]) + sqnorm(icf_sz - d, &icf[ik * icf_sz + d]);
    out = out + 0.5 * gamma * gamma * frobenius - m * sum_qs[ik];
  }
  return out;
}

void gmm_objective(int d, int k, int n, const double *alphas, const double *means, const double *icf,
                   const double *x, double wishart_gamma, int wishart_m, double *err) {
  int ix, ik, icf_sz;
  double qdiags[16], sum_qs[4], xcentered[4], qxcentered[4], main_term[4];
  double slse, lse_alphas;
  icf_sz = d * (d + 1) / 2;
  preprocess_qs(d, k, icf, sum_qs, qdiags);
  slse = 0.0;
  for (ix = 0; ix < n; ix++) {
    for (ik = 0; ik < k; ik++) {
      subtract(d, &x[ix * d], &means[ik * d], xcentered);
      qtimesx(d, &qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, qxcentered);
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, qxcentered);
    }
    slse = slse + logsumexp(k, main_term);
  }
  lse_alphas = logsumexp(k, alphas);
  err[0] = -(slse - n * lse_alphas) + log_wishart_prior(d, k, wishart_gamma, wishart_m, sum_qs, qdiags, icf);
}
