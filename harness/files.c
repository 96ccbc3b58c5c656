/*
 * files.c - file-system helpers (see files.h).
 */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

bool lctx_mkdir_p(const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return false;
      *p = '/';
    }
  }
  return mkdir(tmp, 0777) == 0 || errno == EEXIST;
}
