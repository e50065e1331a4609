/* handstyle.c: a skinned-mesh objective (bones posed by angle-axis rotations,
 * vertices blended by weights, residuals to observed points) with matrices
 * as structs on the heap (written for cgwb's tests, in the style of the
 * objectives AD tools are compared on). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct {
  int rows, cols; /* column-major */
  double *data;
} Mat;

static Mat *mat_new(int rows, int cols)
{
  Mat *m = (Mat *) malloc(sizeof(Mat));
  m->rows = rows;
  m->cols = cols;
  m->data = (double *) calloc(rows * cols, sizeof(double));
  return m;
}

static void mat_free(Mat *m)
{
  free(m->data);
  free(m);
}

/* out = a * b (out already sized a->rows x b->cols) */
static void mat_mul(const Mat *a, const Mat *b, Mat *out)
{
  int i, j, l;
  for (j = 0; j < b->cols; j++)
    for (i = 0; i < a->rows; i++) {
      double s = 0.0;
      for (l = 0; l < a->cols; l++) s += a->data[i + l * a->rows] * b->data[l + j * b->rows];
      out->data[i + j * out->rows] = s;
    }
}

/* the rotation by |r| about r/|r| into the top-left 3x3 block of a 4x4 T,
 * with translation t */
static void pose(double const *r, double const *t, Mat *T)
{
  double th = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) + 1e-12;
  double x = r[0] / th, y = r[1] / th, z = r[2] / th;
  double c = cos(th), s = sin(th), v = 1.0 - c;
  double *R = T->data;
  int n = T->rows;

  R[0 + 0 * n] = c + x * x * v;     R[0 + 1 * n] = x * y * v - z * s; R[0 + 2 * n] = x * z * v + y * s;
  R[1 + 0 * n] = y * x * v + z * s; R[1 + 1 * n] = c + y * y * v;     R[1 + 2 * n] = y * z * v - x * s;
  R[2 + 0 * n] = z * x * v - y * s; R[2 + 1 * n] = z * y * v + x * s; R[2 + 2 * n] = c + z * z * v;
  R[0 + 3 * n] = t[0]; R[1 + 3 * n] = t[1]; R[2 + 3 * n] = t[2];
  R[3 + 0 * n] = 0.0; R[3 + 1 * n] = 0.0; R[3 + 2 * n] = 0.0; R[3 + 3 * n] = 1.0;
}

/* theta: 6 per bone (rotation, translation); base: 4 x nverts homogeneous
 * rest positions; weights: nbones x nverts; err: 3 per correspondence */
void hand_residuals(int nbones, double const *theta, const Mat *base, const Mat *weights,
                    int ncorr, const int *corr, const Mat *points, double *err)
{
  Mat *T = mat_new(4, 4);
  Mat *moved = mat_new(4, base->cols);
  Mat *pos = mat_new(3, base->cols);
  int b, v, i;

  for (b = 0; b < nbones; b++) {
    pose(&theta[6 * b], &theta[6 * b + 3], T);
    mat_mul(T, base, moved);
    for (v = 0; v < base->cols; v++)
      for (i = 0; i < 3; i++)
        pos->data[i + v * 3] += weights->data[b + v * weights->rows] * moved->data[i + v * 4];
  }
  for (v = 0; v < ncorr; v++)
    for (i = 0; i < 3; i++)
      err[3 * v + i] = points->data[i + v * points->rows] - pos->data[i + corr[v] * 3];
  mat_free(T);
  mat_free(moved);
  mat_free(pos);
}

int main(void)
{
  enum { B = 2, V = 5, C = 3 };
  double theta[6 * B];
  int corr[C] = { 4, 0, 2 };
  double err[3 * C];
  Mat *base = mat_new(4, V), *w = mat_new(B, V), *pts = mat_new(3, C);
  int i;
  for (i = 0; i < 6 * B; i++) theta[i] = 0.1 * (i + 1);
  for (i = 0; i < 4 * V; i++) base->data[i] = (i % 4 == 3) ? 1.0 : 0.1 * i;
  for (i = 0; i < B * V; i++) w->data[i] = 0.5;
  for (i = 0; i < 3 * C; i++) pts->data[i] = 0.2 * i;
  hand_residuals(B, theta, base, w, C, corr, pts, err);
  for (i = 0; i < 3 * C; i++) printf("%.17g\n", err[i]);
  mat_free(base); mat_free(w); mat_free(pts);
  return 0;
}
