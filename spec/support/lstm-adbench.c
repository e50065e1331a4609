/* An LSTM objective in the style of ADBench's lstm.c (fixed sizes: the
 * subset has no malloc): 2 layers, hidden size 4, a sequence of 3 steps. */
#include <math.h>

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static double logsumexp(const double *vect, int sz) {
  double mx = vect[0];
  double sm = 0.0;
  int i;
  for (i = 1; i < sz; i++) mx = fmax(mx, vect[i]);
  for (i = 0; i < sz; i++) sm += exp(vect[i] - mx);
  return log(sm) + mx;
}

/* One LSTM cell: weights (4 gates x hsize) and biases, in the ADBench layout. */
static void lstm_model(int hsize, const double *weight, const double *bias,
                       double *hidden, double *cell, const double *input) {
  double gates[16];
  double *forget = &gates[0];
  double *ingate = &gates[4];
  double *outgate = &gates[8];
  double *change = &gates[12];
  int i;
  for (i = 0; i < hsize; i++) {
    forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
    ingate[i] = sigmoid(hidden[i] * weight[hsize + i] + bias[hsize + i]);
    outgate[i] = sigmoid(input[i] * weight[2 * hsize + i] + bias[2 * hsize + i]);
    change[i] = tanh(hidden[i] * weight[3 * hsize + i] + bias[3 * hsize + i]);
  }
  for (i = 0; i < hsize; i++) {
    cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
    hidden[i] = outgate[i] * tanh(cell[i]);
  }
}

static void lstm_predict(int l, int b, const double *w, const double *w2,
                         double *s, const double *x, double *x2) {
  double xp[4];
  double *cur = xp;
  int i;
  for (i = 0; i < b; i++) x2[i] = x[i] * w2[i];
  for (i = 0; i < l; i++) {
    lstm_model(b, &w[i * 8 * b], &w[(i * 8 + 4) * b], &s[i * 2 * b], &s[(i * 2 + 1) * b], x2);
    x2 = &s[i * 2 * b];
  }
  for (i = 0; i < b; i++) { cur[i] = x2[i] * w2[b + i] + w2[2 * b + i]; }
  for (i = 0; i < b; i++) x2[i] = cur[i];
}

void lstm_objective(const double *main_params, const double *extra_params, double *state,
                    const double *sequence, double *loss) {
  double total = 0.0;
  int count = 0;
  double ypred[4];
  double ynorm[4];
  int t, i;
  for (t = 0; t < 2; t++) {
    double lse;
    const double *input = &sequence[t * 4];
    const double *ygold = &sequence[(t + 1) * 4];
    lstm_predict(2, 4, main_params, extra_params, state, input, ypred);
    lse = logsumexp(ypred, 4);
    for (i = 0; i < 4; i++) ynorm[i] = ypred[i] - lse;
    for (i = 0; i < 4; i++) total += ygold[i] * ynorm[i];
    count += 4;
  }
  loss[0] = -total / count;
}
