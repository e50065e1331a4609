/* An assembly loop through an index map: each triangle t adds to the
 * residual of its three vertices res[tri[3*t+k]].  Only increments of res
 * (Hascoet, Fidanova & Held, sec. 2: increments commute), the map and q
 * read-only, w private: independent.  Nothing after it: terminal. */
void assembly(int ntri, const int *restrict tri, const double *restrict q,
              const double *restrict area, double *restrict res) {
  int t, k;
  double w;
  for (t = 0; t < ntri; t++) {
    w = area[t] * (q[tri[3 * t]] + q[tri[3 * t + 1]] + q[tri[3 * t + 2]]) / 3.0;
    for (k = 0; k < 3; k++) {
      res[tri[3 * t + k]] += w * q[tri[3 * t + k]];
    }
  }
}
