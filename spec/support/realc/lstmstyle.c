/* lstmstyle.c: the loss of a stacked LSTM over a sequence, its gates in one
 * block taken from the heap (written for cgwb's tests, in the style of the
 * objectives AD tools are compared on). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define GATES 4

static double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }

static double log_sum_exp(double const *v, int n)
{
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += exp(v[i]);
  s += 2;
  return log(s);
}

/* one cell: weight and bias hold the four gates' parameters, hsize each */
static void cell_step(int hsize, double const *weight, double const *bias,
                      double *hidden, double *cell, double const *input)
{
  double *gates = (double *) malloc(GATES * hsize * sizeof(double));
  double *forget = &gates[0];
  double *ingate = &gates[hsize];
  double *outgate = &gates[2 * hsize];
  double *change = &gates[3 * hsize];
  int i;

  for (i = 0; i < hsize; i++) {
    forget[i] = logistic(input[i] * weight[i] + bias[i]);
    ingate[i] = logistic(hidden[i] * weight[hsize + i] + bias[hsize + i]);
    outgate[i] = logistic(input[i] * weight[2 * hsize + i] + bias[2 * hsize + i]);
    change[i] = tanh(hidden[i] * weight[3 * hsize + i] + bias[3 * hsize + i]);
  }
  for (i = 0; i < hsize; i++) cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
  for (i = 0; i < hsize; i++) hidden[i] = outgate[i] * tanh(cell[i]);
  free(gates);
}

static void predict(int layers, int b, double const *w, double const *w2, double *state,
                    double const *x, double *out)
{
  int i;
  double const *in = out;

  for (i = 0; i < b; i++) out[i] = x[i] * w2[i];
  for (i = 0; i < layers; i++) {
    cell_step(b, &w[2 * i * b * GATES], &w[(2 * i + 1) * b * GATES], &state[2 * i * b], &state[(2 * i + 1) * b], in);
    in = &state[2 * i * b];
  }
  for (i = 0; i < b; i++) out[i] = in[i] * w2[b + i] + w2[2 * b + i];
}

void lstm_loss(int layers, int steps, int b, double const *main_params, double const *extra_params,
               double *state, double const *sequence, double *loss)
{
  double total = 0.0;
  int count = 0, t, i;
  double const *input = &sequence[0];
  double *ypred = (double *) malloc(b * sizeof(double));
  double *ynorm = (double *) malloc(b * sizeof(double));

  for (t = 0; t < steps - 1; t++) {
    double const *ygold = &sequence[(t + 1) * b];
    double lse;
    predict(layers, b, main_params, extra_params, state, input, ypred);
    lse = log_sum_exp(ypred, b);
    for (i = 0; i < b; i++) ynorm[i] = ypred[i] - lse;
    for (i = 0; i < b; i++) total += ygold[i] * ynorm[i];
    count += b;
    input = ygold;
  }
  *loss = -total / count;
  free(ypred);
  free(ynorm);
}

int main(void)
{
  enum { L = 2, C = 4, B = 3 };
  double main_params[2 * L * GATES * B], extra_params[3 * B], state[2 * L * B], seq[C * B], loss;
  int i;

  for (i = 0; i < 2 * L * GATES * B; i++) main_params[i] = 0.01 * (i % 17) - 0.05;
  for (i = 0; i < 3 * B; i++) extra_params[i] = 0.1 * i;
  for (i = 0; i < 2 * L * B; i++) state[i] = 0.05 * i;
  for (i = 0; i < C * B; i++) seq[i] = 0.2 * ((i * 7) % 5);
  lstm_loss(L, C, B, main_params, extra_params, state, seq, &loss);
  printf("%.17g\n", loss);
  return 0;
}
