/* gmmstyle.h: a Gaussian mixture's data (written for cgwb's tests, in the
 * style of the objectives AD tools are compared on). */
#ifndef GMMSTYLE_H
#define GMMSTYLE_H

#include <stdlib.h>
#include <math.h>

#define LOG_2PI 1.8378770664093453 /* log(2 * pi) */

typedef struct {
  double gamma; /* the prior's scale */
  int m;        /* its extra degrees of freedom */
} WishartPrior;

void gmm_loglik(int d, int k, int n, double const *alphas, double const *means, double const *icf,
                double const *x, WishartPrior wishart, double *err);

#endif
