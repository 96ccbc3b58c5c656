/*
 * seeds.c - copying fuzz inputs into a corpus folder (see seeds.h).
 */
#include "seeds.h"

#include "file.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lctx_seeds_copy_file(const char *path, const char *to) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "README.md") == 0)
    return false;
  char dest[4608];
  snprintf(dest, sizeof dest, "%s/%s", to, base);
  if (lctx_sys_is_file(dest))
    return true;
  char *data = NULL;
  size_t n = 0;
  bool copied = lctx_file_read(path, LCTX_SEEDS_MAX_INPUT, &data, &n, NULL) &&
                lctx_sys_write_file(dest, data, n);
  free(data);
  return copied;
}

typedef struct copy_walk {
  const char *to;
  size_t failed;
} copy_walk;

static void copy_one(void *user, const char *path) {
  copy_walk *w = user;
  const char *base = strrchr(path, '/');
  if (strcmp(base ? base + 1 : path, "README.md") != 0 &&
      !lctx_seeds_copy_file(path, w->to))
    w->failed++;
}

size_t lctx_seeds_copy(const char *from, const char *to) {
  copy_walk w = {to, 0};
  lctx_sys_each_file(from, copy_one, &w);
  return w.failed;
}
