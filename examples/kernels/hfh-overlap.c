/* Two pointer parameters without restrict: a and b may share memory, so
 * b[i] = 2 a[i] may read what another iteration wrote.  Refused "a and b
 * may overlap"; accepted with --assume 'a!=b'. */
void overlap(int n, const double *a, double *b) {
  int i;
  for (i = 0; i < n; i++) {
    b[i] = 2.0 * a[i] * a[i];
  }
}
