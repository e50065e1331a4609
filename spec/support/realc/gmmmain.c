/* gmmmain.c: runs gmmstyle.c's objective once (written for cgwb's tests). */
#include <stdio.h>
#include "gmmstyle.h"

int main(void)
{
  enum { D = 3, K = 4, N = 10 };
  double alphas[K], means[K * D], icf[K * D * (D + 1) / 2], x[N * D], err;
  WishartPrior w = { 1.0, 0 };
  int i;
  for (i = 0; i < K; i++) alphas[i] = 0.1 * i - 0.2;
  for (i = 0; i < K * D; i++) means[i] = 0.3 * (i % 5);
  for (i = 0; i < K * D * (D + 1) / 2; i++) icf[i] = 0.05 * (i % 7) - 0.1;
  for (i = 0; i < N * D; i++) x[i] = 0.2 * ((i * 3) % 11) - 1.0;
  gmm_loglik(D, K, N, alphas, means, icf, x, w, &err);
  printf("%.17g\n", err);
  return 0;
}
