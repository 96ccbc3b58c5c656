/*
 * numbers.c - the strict numbers of the command line (see numbers.h).
 */
#include "numbers.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool lctx_numbers_parse_uint(const char *v, unsigned long long min,
                             unsigned long long max, unsigned long long *out) {
  unsigned long long u = 0;
  if (!v[0])
    return false;
  for (const char *c = v; *c; c++) {
    if (*c < '0' || *c > '9')
      return false; /* a sign, a space, anything but a digit */
    unsigned d = (unsigned)(*c - '0');
    if (u > (ULLONG_MAX - d) / 10)
      return false; /* past the type */
    u = u * 10 + d;
  }
  if (u < min || u > max)
    return false;
  *out = u;
  return true;
}

bool lctx_numbers_parse_decimal(const char *v, double *out) {
  size_t digits = 0, dots = 0;
  for (const char *c = v; *c; c++) {
    if (*c == '.')
      dots++;
    else if (*c >= '0' && *c <= '9')
      digits++;
    else
      return false; /* a sign, a space, an exponent, hex, inf, nan */
  }
  if (digits == 0 || dots > 1)
    return false;
  errno = 0;
  double d = strtod(v, NULL);
  if (errno || !isfinite(d))
    return false;
  *out = d;
  return true;
}

bool lctx_numbers_parse_shard(const char *v, unsigned *i, unsigned *n,
                              char *why, size_t why_size) {
  const char *slash = strchr(v, '/');
  char first[32];
  unsigned long long si = 0, sn = 0;
  size_t k = slash ? (size_t)(slash - v) : 0;
  bool ok = slash && k < sizeof first;
  if (ok) {
    memcpy(first, v, k);
    first[k] = '\0';
    ok = lctx_numbers_parse_uint(first, 1, UINT_MAX, &si) &&
         lctx_numbers_parse_uint(slash + 1, 1, UINT_MAX, &sn) && si <= sn;
  }
  if (!ok) {
    snprintf(why, why_size, "'%s' is not I/N with 1 <= I <= N", v);
    return false;
  }
  *i = (unsigned)si;
  *n = (unsigned)sn;
  return true;
}

size_t lctx_numbers_cores(size_t max) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1)
    return 1;
  return (unsigned long)n > max ? max : (size_t)n;
}
