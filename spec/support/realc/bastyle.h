/* bastyle.h: the data of a bundle-adjustment objective (written for cgwb's
 * tests, in the style of the objectives AD tools are compared on). */
#ifndef BASTYLE_H
#define BASTYLE_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define CAM_NPARAMS 11 /* rotation 3, centre 3, focal 1, principal point 2, distortion 2 */
#define CAM_ROT 0
#define CAM_CENTER 3
#define CAM_FOCAL 6
#define CAM_PRINCIPAL 7
#define CAM_RADIAL 9

typedef struct {
  int ncams, npts, nobs;
  double *cams;  /* CAM_NPARAMS per camera */
  double *X;     /* 3 per point */
  double *w;     /* 1 per observation */
  int *obs;      /* (camera, point) per observation */
  double *feats; /* 2 per observation */
} BAProblem;

void ba_objective(int n, int m, int p, double const *cams, double const *X, double const *w,
                  int const *obs, double const *feats, double *reproj_err, double *w_err);

#endif
