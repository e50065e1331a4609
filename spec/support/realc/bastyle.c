/* bastyle.c: the reprojection error of bundle adjustment, with an
 * angle-axis (Rodrigues) rotation and radial distortion (written for cgwb's
 * tests, in the style of the objectives AD tools are compared on). */
#include "bastyle.h"

static double dot3(double const *a, double const *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double const *a, double const *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* rotated = R(rot) * pt, R the rotation by |rot| about rot / |rot|; near the
 * identity the first-order formula (no division by a vanishing angle) */
static void angle_axis_rotate(double const *rot, double const *pt, double *rotated)
{
  int k;
  double theta2 = dot3(rot, rot);
  double rxp[3];

  if (theta2 > 1e-16) {
    double theta = sqrt(theta2);
    double c = cos(theta), s = sin(theta);
    double axis[3];
    double proj;
    for (k = 0; k < 3; k++) axis[k] = rot[k] / theta;
    cross3(axis, pt, rxp);
    proj = dot3(axis, pt) * (1.0 - c);
    for (k = 0; k < 3; k++) rotated[k] = pt[k] * c + rxp[k] * s + axis[k] * proj;
  } else {
    cross3(rot, pt, rxp);
    for (k = 0; k < 3; k++) rotated[k] = pt[k] + rxp[k];
  }
}

static void distort(double const *k12, double *uv)
{
  double r2 = uv[0] * uv[0] + uv[1] * uv[1];
  double f = 1.0 + k12[0] * r2 + k12[1] * r2 * r2;
  uv[0] *= f;
  uv[1] *= f;
}

static void project_point(double const *cam, double const *X, double *uv)
{
  double rel[3], Xc[3];
  int k;

  for (k = 0; k < 3; k++) rel[k] = X[k] - cam[CAM_CENTER + k];
  angle_axis_rotate(&cam[CAM_ROT], rel, Xc);
  uv[0] = Xc[0] / Xc[2];
  uv[1] = Xc[1] / Xc[2];
  distort(&cam[CAM_RADIAL], uv);
  uv[0] = uv[0] * cam[CAM_FOCAL] + cam[CAM_PRINCIPAL];
  uv[1] = uv[1] * cam[CAM_FOCAL] + cam[CAM_PRINCIPAL + 1];
}

void reproj_error(double const *cam, double const *X, double const *w, double const *feat, double *err)
{
  double uv[2];

  project_point(cam, X, uv);
  err[0] = (*w) * (uv[0] - feat[0]);
  err[1] = (*w) * (uv[1] - feat[1]);
}

void weight_error(double const *w, double *err)
{
  *err = 1.0 - (*w) * (*w);
}

void ba_objective(int n, int m, int p, double const *cams, double const *X, double const *w,
                  int const *obs, double const *feats, double *reproj_err, double *w_err)
{
  int i;

  for (i = 0; i < p; i++) {
    int c = obs[2 * i], pt = obs[2 * i + 1];
    reproj_error(&cams[c * CAM_NPARAMS], &X[3 * pt], &w[i], &feats[2 * i], &reproj_err[2 * i]);
  }
  for (i = 0; i < p; i++)
    weight_error(&w[i], &w_err[i]);
}

/* a small problem: cameras on a circle looking at a cloud of points */
static BAProblem *make_problem(int ncams, int npts, int nobs)
{
  BAProblem *b = (BAProblem *) malloc(sizeof(BAProblem));
  int i, k;

  b->ncams = ncams;
  b->npts = npts;
  b->nobs = nobs;
  b->cams = (double *) malloc(sizeof(double) * CAM_NPARAMS * ncams);
  b->X = (double *) malloc(sizeof(double) * 3 * npts);
  b->w = (double *) malloc(sizeof(double) * nobs);
  b->obs = (int *) malloc(sizeof(int) * 2 * nobs);
  b->feats = (double *) malloc(sizeof(double) * 2 * nobs);
  for (i = 0; i < ncams; i++)
    for (k = 0; k < CAM_NPARAMS; k++) b->cams[i * CAM_NPARAMS + k] = 0.1 * (k + 1) + 0.01 * i;
  for (i = 0; i < 3 * npts; i++) b->X[i] = 1.0 + 0.3 * i;
  for (i = 0; i < nobs; i++) {
    b->w[i] = 0.9 + 0.01 * i;
    b->obs[2 * i] = i % ncams;
    b->obs[2 * i + 1] = i % npts;
    b->feats[2 * i] = 0.5 * i;
    b->feats[2 * i + 1] = -0.25 * i;
  }
  return b;
}

int main(int argc, char *argv[])
{
  BAProblem *b = make_problem(argc > 1 ? atoi(argv[1]) : 3, 5, 12);
  double *re = (double *) malloc(sizeof(double) * 2 * b->nobs);
  double *we = (double *) malloc(sizeof(double) * b->nobs);
  double s = 0;
  int i;

  ba_objective(b->ncams, b->npts, b->nobs, b->cams, b->X, b->w, b->obs, b->feats, re, we);
  for (i = 0; i < 2 * b->nobs; i++) s += re[i] * re[i];
  printf("%.17g\n", s);
  free(re);
  free(we);
  free(b->cams); free(b->X); free(b->w); free(b->obs); free(b->feats);
  free(b);
  return 0;
}
