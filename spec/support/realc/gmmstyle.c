/* gmmstyle.c: the negative log-likelihood of a Gaussian mixture with
 * precision matrices in Cholesky form (log-diagonal and strict lower
 * triangle packed in icf) and a Wishart prior (written for cgwb's tests, in
 * the style of the objectives AD tools are compared on). */
#include "gmmstyle.h"

static double vmax(int n, double const *v)
{
  double m = v[0];
  int i;
  for (i = 1; i < n; i++)
    if (v[i] > m) m = v[i];
  return m;
}

static double sumsq(int n, double const *v)
{
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += v[i] * v[i];
  return s;
}

static double lse(int n, double const *v)
{
  double m = vmax(n, v), s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += exp(v[i] - m);
  return log(s) + m;
}

/* log of the multivariate gamma function Gamma_p(a) */
static double log_mvgamma(int p, double a)
{
  double out = 0.25 * p * (p - 1) * log(M_PI);
  int j;
  for (j = 1; j <= p; j++) out += lgamma(a + 0.5 * (1 - j));
  return out;
}

/* y = Q x, Q lower triangular with diagonal exp(logdiag) and strict lower
 * part ltri (column by column) */
static void qx(int d, double const *logdiag, double const *ltri, double const *x, double *y)
{
  int i, j, at = 0;
  for (i = 0; i < d; i++) y[i] = exp(logdiag[i]) * x[i];
  for (j = 0; j < d; j++)
    for (i = j + 1; i < d; i++) {
      y[i] += ltri[at] * x[j];
      at++;
    }
}

static double wishart_log_prior(int d, int k, WishartPrior wishart, double const *icf)
{
  int tri = d * (d + 1) / 2, c, i;
  int dof = d + wishart.m + 1;
  double norm = dof * d * (log(wishart.gamma) - 0.5 * log(2.0)) - log_mvgamma(d, 0.5 * dof);
  double out = 0.0;
  for (c = 0; c < k; c++) {
    double const *q = &icf[c * tri];
    double fro = 0.0, logdet = 0.0;
    for (i = 0; i < d; i++) {
      fro += exp(2.0 * q[i]);
      logdet += q[i];
    }
    fro += sumsq(tri - d, &q[d]);
    out += 0.5 * wishart.gamma * wishart.gamma * fro - wishart.m * logdet;
  }
  return out - k * norm;
}

void gmm_loglik(int d, int k, int n, double const *alphas, double const *means, double const *icf,
                double const *x, WishartPrior wishart, double *err)
{
  int tri = d * (d + 1) / 2, i, c, j;
  double *centred = (double *) malloc(d * sizeof(double));
  double *qc = (double *) malloc(d * sizeof(double));
  double *terms = (double *) malloc(k * sizeof(double));
  double total = 0.0;

  for (i = 0; i < n; i++) {
    for (c = 0; c < k; c++) {
      double logdet = 0.0;
      for (j = 0; j < d; j++) {
        centred[j] = x[i * d + j] - means[c * d + j];
        logdet += icf[c * tri + j];
      }
      qx(d, &icf[c * tri], &icf[c * tri + d], centred, qc);
      terms[c] = alphas[c] + logdet - 0.5 * sumsq(d, qc);
    }
    total += lse(k, terms);
  }
  *err = -n * d * 0.5 * LOG_2PI + total - n * lse(k, alphas) + wishart_log_prior(d, k, wishart, icf);
  free(centred);
  free(qc);
  free(terms);
}
